//! Real I/O. A request passes through stages: a device's subchannel (one channel program at a
//! time, FIFO queue), then the storage server (cache, NVS, transfer). Its completion is an event
//! carrying its id; the origin it carries says where the completion goes.

pub mod request;
pub mod server;
pub mod subchannel;

pub use request::{IoId, IoRequest, Origin};
pub use subchannel::DevStats;

use request::Requests;
use server::StorageServer;
use subchannel::Subchannel;

use crate::config::params::ModelParams;
use crate::engine::rng::Stream;

/// The I/O events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoEvent {
    /// Request `IoId`'s channel program ended.
    Complete(IoId),
}

/// Devices, the requests in flight on them, and the storage server.
pub struct IoSystem {
    requests: Requests,
    devices: Vec<Subchannel>,
    server: StorageServer,
}

impl IoSystem {
    pub fn new(params: &ModelParams, rng: Stream) -> Self {
        IoSystem {
            requests: Requests::default(),
            devices: Vec::new(),
            server: StorageServer::new(params, rng),
        }
    }

    /// Add a volume whose random reads hit the storage-server cache with `hit_ratio` (None: the
    /// model's default); returns its device index.
    pub fn add_device(&mut self, hit_ratio: Option<f64>) -> u32 {
        let h = hit_ratio.unwrap_or(self.server.default_hit_ratio);
        self.devices.push(Subchannel::new(h));
        (self.devices.len() - 1) as u32
    }

    /// Queue a request on its device; if the subchannel was idle the channel program starts now
    /// and its completion (time, id) is returned for the caller to schedule.
    #[inline]
    pub fn submit(&mut self, r: IoRequest, now: u64) -> Option<(u64, IoId)> {
        let dev = r.device as usize;
        let id = self.requests.insert(r);
        if self.devices[dev].busy.is_none() {
            Some((self.start(id, now), id))
        } else {
            self.devices[dev].queue.push_back(id);
            None
        }
    }

    #[inline]
    fn start(&mut self, id: IoId, now: u64) -> u64 {
        let r = *self.requests.get(id);
        let d = &mut self.devices[r.device as usize];
        let s = self.server.service(d.hit_ratio, r.pages, r.write);
        d.stats.wait_ns += now - r.queued_at;
        d.stats.busy_ns += s;
        d.stats.ios += 1;
        d.stats.pages += r.pages as u64;
        d.busy = Some(id);
        now + s
    }

    /// Request `id` ended: returns it, and the next request started on its subchannel.
    #[inline]
    pub fn complete(&mut self, id: IoId, now: u64) -> (IoRequest, Option<(u64, IoId)>) {
        let r = self.requests.remove(id);
        let d = &mut self.devices[r.device as usize];
        debug_assert_eq!(d.busy, Some(id), "completion of a request not active");
        d.busy = None;
        let next = d.queue.pop_front();
        let started = next.map(|n| (self.start(n, now), n));
        (r, started)
    }

    pub fn stats(&self, dev: u32) -> DevStats {
        self.devices[dev as usize].stats
    }

    pub fn queued(&self, dev: u32) -> usize {
        self.devices[dev as usize].queued()
    }

    pub fn in_flight(&self) -> usize {
        self.requests.in_flight()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(device: u32, origin: Origin) -> IoRequest {
        IoRequest {
            origin,
            device,
            pages: 1,
            write: false,
            queued_at: 0,
        }
    }

    #[test]
    fn one_channel_program_per_subchannel_fifo_and_routed_back() {
        let p = ModelParams {
            dasd_read_hit_ratio: 0.0,
            ..Default::default()
        };
        let mut io = IoSystem::new(&p, Stream::new(1, 1));
        let v = io.add_device(None);
        let w = io.add_device(None);
        let (t1, a) = io.submit(req(v, Origin::DbRead { task: 7 }), 0).unwrap();
        assert_eq!(t1, p.dasd_read_miss.ns());
        assert!(io.submit(req(v, Origin::SwapRead { task: 9 }), 0).is_none());
        // Another device is independent.
        assert!(io.submit(req(w, Origin::DbWrite), 0).is_some());
        assert_eq!(io.queued(v), 2);
        assert_eq!(io.in_flight(), 3);
        let (done, next) = io.complete(a, t1);
        assert_eq!(done.origin, Origin::DbRead { task: 7 });
        let (t2, b) = next.unwrap();
        assert_eq!(t2, 2 * t1);
        let (done, next) = io.complete(b, t2);
        assert_eq!(done.origin, Origin::SwapRead { task: 9 });
        assert!(next.is_none());
        assert_eq!(io.stats(v).wait_ns, t1);
        assert_eq!(io.stats(v).ios, 2);
        assert_eq!(io.in_flight(), 1);
    }
}
