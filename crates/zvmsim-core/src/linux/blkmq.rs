//! blk-mq's hardware dispatch queues in front of the DASD driver (4.18: `block/blk-mq.c`,
//! `drivers/s390/block/dasd.c`), for the requests the driver refuses.
//!
//! The ECKD discipline builds a channel program only while the device the alias choice picked
//! (base or alias) has fewer than `DASD_ECKD_CHANQ_MAX_SIZE` (4) requests built
//! (`dasd_eckd_build_alias_cp`, dasd_eckd.c: -EBUSY beyond). `do_dasd_request` turns -EBUSY
//! into BLK_STS_RESOURCE, and blk-mq keeps the request on the dispatch list of its hardware
//! context (hctx; dasd_genhd.c's default `nr_hw_queues` is 4, each serving a share of the
//! CPUs) and stops dispatching that list at the first refusal. The list is dispatched again
//! when a request is submitted on its hctx and on every completion: `dasd_request_done` ends
//! the request and runs all hardware queues asynchronously (`blk_mq_run_hw_queues(q, true)`),
//! so each hctx with requests held gets a kblockd worker run on one of its CPUs, which tries
//! its list again (one build that succeeds, if a device has room, then a refusal).
//!
//! So with one subchannel (no alias) and more requests than 4 in flight, every completion
//! costs worker runs (and, under z/VM, a waiting virtual CPU woken for each), and from one
//! alias on, with 8 requests or fewer in flight, hardly any. The retry after blk-mq's 3-ms
//! delay (`BLK_MQ_RESOURCE_DELAY`, when SCHED_RESTART is set) is not modelled: the next
//! completion, well within 3 ms at these rates, reruns the queue first.

use std::collections::VecDeque;

use super::dasd::DasdDriver;

/// dasd_genhd.c: `nr_hw_queues = 4` (module parameter's default).
pub const HW_QUEUES: u32 = 4;

/// A request blk-mq holds on a dispatch list (not yet built by the driver).
#[derive(Debug, Clone, Copy)]
struct Held {
    task: u32,
    base: u32,
    block: u64,
    pages: u32,
    write: bool,
    /// When the process submitted it (its latency counts from there).
    at: u64,
    hctx: u32,
}

/// The held requests of a guest's DASD block devices, and the asynchronous queue run.
#[derive(Debug, Default)]
pub struct HwQueues {
    held: VecDeque<Held>,
    /// A kblockd run is queued and has not run yet (a further completion re-arms it only).
    pub run_pending: bool,
    /// kblockd runs of a hardware context, dispatch attempts, refusals (-EBUSY).
    pub runs: u64,
    pub attempts: u64,
    pub refused: u64,
}

impl HwQueues {
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Hardware contexts holding requests (a completion's queue run runs each of them).
    pub fn busy_hctxs(&self) -> u32 {
        let mut mask = 0u32;
        for h in &self.held {
            mask |= 1 << h.hctx;
        }
        mask.count_ones()
    }
}

impl DasdDriver {
    /// io_submit on virtual CPU `cpu`: the request joins its hctx's dispatch list, which is
    /// dispatched (held requests first). The channel programs built on an idle device are
    /// appended to `started` as (request, device). Returns the dispatch attempts.
    #[allow(clippy::too_many_arguments)]
    pub fn mq_submit(
        &mut self,
        task: u32,
        base: u32,
        block: u64,
        pages: u32,
        write: bool,
        cpu: u32,
        now: u64,
        started: &mut Vec<(u32, u32)>,
    ) -> u32 {
        let hctx = cpu % HW_QUEUES;
        self.mq.held.push_back(Held {
            task,
            base,
            block,
            pages,
            write,
            at: now,
            hctx,
        });
        self.mq_dispatch(hctx, now, started)
    }

    /// A kblockd run of every hctx holding requests. Returns (hctxs run, dispatch attempts).
    pub fn mq_run(&mut self, now: u64, started: &mut Vec<(u32, u32)>) -> (u32, u32) {
        self.mq.run_pending = false;
        let (mut runs, mut attempts) = (0, 0);
        for h in 0..HW_QUEUES {
            if self.mq.held.iter().any(|x| x.hctx == h) {
                runs += 1;
                attempts += self.mq_dispatch(h, now, started);
            }
        }
        self.mq.runs += runs as u64;
        (runs, attempts)
    }

    /// blk_mq_dispatch_rq_list for hctx `h`: its requests in order until the driver refuses
    /// one.
    fn mq_dispatch(&mut self, h: u32, now: u64, started: &mut Vec<(u32, u32)>) -> u32 {
        let mut attempts = 0;
        let mut i = 0;
        while i < self.mq.held.len() {
            let x = self.mq.held[i];
            if x.hctx != h {
                i += 1;
                continue;
            }
            attempts += 1;
            match self.try_submit(x.task, x.base, x.block, x.pages, x.write, x.at, now) {
                Some((id, dev)) => {
                    self.mq.held.remove(i);
                    if let Some(d) = dev {
                        started.push((id, d));
                    }
                }
                None => {
                    self.mq.refused += 1;
                    break;
                }
            }
        }
        self.mq.attempts += attempts as u64;
        attempts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::dasd::{DevPath, CHANQ_MAX, NONE};

    fn driver(aliases: u32) -> (DasdDriver, u32) {
        let mut d = DasdDriver::default().request_limit(CHANQ_MAX);
        let path = DevPath::Dedicated { sub: 0 };
        let b = d.add(
            0x200,
            Some("dasda".into()),
            path,
            Some((0, NONE)),
            false,
            1000,
            0,
        );
        for k in 0..aliases {
            d.add(0x300 + k as u16, None, path, Some((0, NONE)), true, 0, 0);
        }
        (d, b)
    }

    #[test]
    fn a_device_builds_at_most_four_and_the_rest_wait_in_order() {
        let (mut d, b) = driver(0);
        let mut started = Vec::new();
        for k in 0..6 {
            d.mq_submit(k, b, k as u64 * 8, 1, false, 0, 0, &mut started);
        }
        assert_eq!(d.devs[b as usize].count, CHANQ_MAX);
        assert_eq!(d.mq.held(), 2);
        assert_eq!(started.len(), 1, "one channel program runs, three queue");
        // The fifth request was refused on its own submit and again, first in its list, on
        // the sixth's (which was not tried).
        assert_eq!(d.mq.refused, 2);
        // A completion frees a slot; the queue run builds the oldest held request only.
        let first = started[0].0;
        d.complete(first, 100);
        started.clear();
        let (runs, attempts) = d.mq_run(100, &mut started);
        assert_eq!((runs, attempts), (1, 2));
        assert_eq!(d.mq.held(), 1);
        assert_eq!(d.devs[b as usize].count, CHANQ_MAX);
        let built = (0..d.devs[b as usize].queue.len())
            .map(|i| d.req(d.devs[b as usize].queue[i]).task)
            .collect::<Vec<_>>();
        assert_eq!(built.last(), Some(&4), "the held requests keep their order");
        d.check().unwrap();
    }

    #[test]
    fn with_an_alias_eight_requests_are_built() {
        let (mut d, b) = driver(1);
        let mut started = Vec::new();
        for k in 0..8 {
            d.mq_submit(k, b, k as u64 * 8, 1, false, k, 0, &mut started);
        }
        assert_eq!(d.mq.held(), 0);
        assert_eq!(d.mq.refused, 0);
        assert_eq!(d.mq.busy_hctxs(), 0);
        d.mq_submit(8, b, 64, 1, false, 2, 0, &mut started);
        assert_eq!((d.mq.held(), d.mq.busy_hctxs()), (1, 1));
        d.check().unwrap();
    }
}
