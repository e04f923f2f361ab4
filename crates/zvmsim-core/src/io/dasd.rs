//! DASD volumes (3390 on a DS8000-class storage server): one channel program per device at a
//! time (no PAV yet), further requests queue FIFO on the subchannel. Service time: a random read
//! hits the storage-server cache or goes to the disks; writes go to NVS (fast write); extra 4 KB
//! pages of a channel program add FICON transfer time.

use std::collections::VecDeque;

use crate::engine::rng::Stream;
use crate::config::params::ModelParams;

#[derive(Debug, Clone, Copy)]
pub struct IoReq {
    /// What to do on completion (the simulation's encoding).
    pub token: u64,
    pub pages: u32,
    pub write: bool,
    pub queued_at: u64,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DevStats {
    pub ios: u64,
    pub pages: u64,
    pub busy_ns: u64,
    pub wait_ns: u64,
}

struct Device {
    hit_ratio: f64,
    busy: Option<IoReq>,
    queue: VecDeque<IoReq>,
    stats: DevStats,
}

pub struct Dasd {
    devs: Vec<Device>,
    rng: Stream,
    read_miss: u64,
    read_hit: u64,
    write: u64,
    per_page: u64,
    hit_ratio: f64,
}

impl Dasd {
    pub fn new(params: &ModelParams, rng: Stream) -> Self {
        Dasd {
            devs: Vec::new(),
            rng,
            read_miss: params.dasd_read_miss.ns(),
            read_hit: params.dasd_read_hit.ns(),
            write: params.dasd_write.ns(),
            per_page: params.dasd_per_page.ns(),
            hit_ratio: params.dasd_read_hit_ratio,
        }
    }

    /// Add a volume whose random reads hit the storage-server cache with `hit_ratio` (None: the
    /// model's default); returns its device index.
    pub fn add(&mut self, hit_ratio: Option<f64>) -> u32 {
        self.devs.push(Device {
            hit_ratio: hit_ratio.unwrap_or(self.hit_ratio),
            busy: None,
            queue: VecDeque::new(),
            stats: DevStats::default(),
        });
        (self.devs.len() - 1) as u32
    }

    pub fn len(&self) -> usize {
        self.devs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.devs.is_empty()
    }

    fn service(&mut self, dev: u32, r: &IoReq) -> u64 {
        let base = if r.write {
            self.write
        } else if self.rng.chance(self.devs[dev as usize].hit_ratio) {
            self.read_hit
        } else {
            self.read_miss
        };
        base + self.per_page * r.pages.saturating_sub(1) as u64
    }

    /// Queue a request; if the device was idle it starts now and its completion time is
    /// returned (the caller schedules the completion event).
    pub fn submit(&mut self, dev: u32, req: IoReq, now: u64) -> Option<u64> {
        if self.devs[dev as usize].busy.is_none() {
            Some(self.start(dev, req, now))
        } else {
            self.devs[dev as usize].queue.push_back(req);
            None
        }
    }

    fn start(&mut self, dev: u32, req: IoReq, now: u64) -> u64 {
        let s = self.service(dev, &req);
        let d = &mut self.devs[dev as usize];
        d.stats.wait_ns += now - req.queued_at;
        d.stats.busy_ns += s;
        d.stats.ios += 1;
        d.stats.pages += req.pages as u64;
        d.busy = Some(req);
        now + s
    }

    /// The device's current I/O ended: returns it, and the next one's completion time if one
    /// was queued.
    pub fn complete(&mut self, dev: u32, now: u64) -> (IoReq, Option<u64>) {
        let d = &mut self.devs[dev as usize];
        let done = d.busy.take().expect("completion on an idle device");
        let next = d.queue.pop_front();
        let t = next.map(|r| self.start(dev, r, now));
        (done, t)
    }

    pub fn stats(&self, dev: u32) -> DevStats {
        self.devs[dev as usize].stats
    }
    pub fn queued(&self, dev: u32) -> usize {
        self.devs[dev as usize].queue.len() + self.devs[dev as usize].busy.is_some() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_io_at_a_time_fifo() {
        let p = ModelParams {
            dasd_read_hit_ratio: 0.0,
            ..Default::default()
        };
        let mut d = Dasd::new(&p, Stream::new(1, 1));
        let v = d.add(None);
        let r = |t| IoReq {
            token: t,
            pages: 1,
            write: false,
            queued_at: 0,
        };
        let t1 = d.submit(v, r(1), 0).unwrap();
        assert_eq!(t1, p.dasd_read_miss.ns());
        assert!(d.submit(v, r(2), 0).is_none());
        assert_eq!(d.queued(v), 2);
        let (done, next) = d.complete(v, t1);
        assert_eq!(done.token, 1);
        assert_eq!(next, Some(2 * t1));
        let (done, next) = d.complete(v, 2 * t1);
        assert_eq!(done.token, 2);
        assert!(next.is_none());
        assert_eq!(d.stats(v).wait_ns, t1);
    }
}
