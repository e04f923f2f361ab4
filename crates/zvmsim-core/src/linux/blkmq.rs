//! blk-mq's hardware dispatch queues in front of the DASD driver (4.18: `block/blk-mq.c`,
//! `drivers/s390/block/dasd.c`), for the requests the driver refuses.
//!
//! The ECKD discipline builds a channel program only while the device the alias choice picked
//! (base or alias) has fewer than `DASD_ECKD_CHANQ_MAX_SIZE` (4) requests built
//! (`dasd_eckd_build_alias_cp`, dasd_eckd.c: -EBUSY beyond). `do_dasd_request` turns -EBUSY
//! into BLK_STS_RESOURCE, and blk-mq keeps the request on the dispatch list of its hardware
//! context (hctx; dasd_genhd.c's default `nr_hw_queues` is 4, each serving a share of the
//! CPUs) and stops dispatching that list at the first refusal. Each block device has its own
//! request queue and so its own hctxs (dasd_genhd.c: a tag set per `dasd_block`): a refusal
//! on one device never holds another's requests. The list is dispatched again when a request
//! is submitted on its hctx and on every completion: `dasd_request_done` ends the request and
//! runs all hardware queues of that request's queue asynchronously
//! (`blk_mq_run_hw_queues(req->q, true)`), so each of the device's hctxs with requests held
//! gets a kblockd worker run on one of its CPUs, which tries its list again (one build that
//! succeeds, if a device has room, then a refusal).
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
    /// The block devices (bases) whose queues the queued run runs.
    rerun: Vec<u32>,
    /// kblockd runs of a hardware context, dispatch attempts, refusals (-EBUSY).
    pub runs: u64,
    pub attempts: u64,
    pub refused: u64,
}

impl HwQueues {
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The requests held, and their bytes.
    pub fn held_count(&self) -> crate::io::Count {
        let mut c = crate::io::Count::default();
        for h in &self.held {
            c.add(h.pages);
        }
        c
    }

    /// Hardware contexts of block device `base` holding requests (a completion's queue run
    /// runs each of them).
    pub fn busy_hctxs(&self, base: u32) -> u32 {
        let mut mask = 0u32;
        for h in self.held.iter().filter(|h| h.base == base) {
            mask |= 1 << h.hctx;
        }
        mask.count_ones()
    }

    /// dasd_request_done for a request of block device `base`: its queue is to be run if it
    /// holds requests. Returns its hardware contexts to run when this arms the kblockd run
    /// (None: nothing held on that device, or a run already queued, which now runs it too).
    pub fn rerun(&mut self, base: u32) -> Option<u32> {
        if !self.held.iter().any(|h| h.base == base) {
            return None;
        }
        if !self.rerun.contains(&base) {
            self.rerun.push(base);
        }
        if self.run_pending {
            return None;
        }
        self.run_pending = true;
        Some(self.busy_hctxs(base))
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
        self.flow.entered.add(pages);
        self.mq.held.push_back(Held {
            task,
            base,
            block,
            pages,
            write,
            at: now,
            hctx,
        });
        self.mq_dispatch(base, hctx, now, started)
    }

    /// A kblockd run of every hctx holding requests of the devices completions asked to run.
    /// Returns (hctxs run, dispatch attempts).
    pub fn mq_run(&mut self, now: u64, started: &mut Vec<(u32, u32)>) -> (u32, u32) {
        self.mq.run_pending = false;
        let (mut runs, mut attempts) = (0, 0);
        for base in std::mem::take(&mut self.mq.rerun) {
            for h in 0..HW_QUEUES {
                if self.mq.held.iter().any(|x| x.base == base && x.hctx == h) {
                    runs += 1;
                    attempts += self.mq_dispatch(base, h, now, started);
                }
            }
        }
        self.mq.runs += runs as u64;
        (runs, attempts)
    }

    /// blk_mq_dispatch_rq_list for hctx `h` of block device `base`: its requests in order
    /// until the driver refuses one.
    fn mq_dispatch(&mut self, base: u32, h: u32, now: u64, started: &mut Vec<(u32, u32)>) -> u32 {
        let mut attempts = 0;
        let mut i = 0;
        while i < self.mq.held.len() {
            let x = self.mq.held[i];
            if x.hctx != h || x.base != base {
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
    use crate::linux::dasd::tests::base_with_aliases;
    use crate::linux::dasd::{DevPath, CHANQ_MAX, NONE};

    fn driver(aliases: u32) -> (DasdDriver, u32) {
        let d = DasdDriver::default().request_limit(CHANQ_MAX);
        let (d, b, _) = base_with_aliases(d, aliases, 0);
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
        assert_eq!(d.mq.rerun(b), Some(1), "one hctx holds requests");
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
        assert_eq!(d.mq.busy_hctxs(b), 0);
        d.mq_submit(8, b, 64, 1, false, 2, 0, &mut started);
        assert_eq!((d.mq.held(), d.mq.busy_hctxs(b)), (1, 1));
        // The alias choice counts the 8 requests built, not the refused try.
        assert_eq!(d.to_alias + d.kept_on_base, 8);
        d.check().unwrap();
    }

    #[test]
    fn a_full_device_holds_none_of_another_devices_requests() {
        // Two volumes without aliases: each block device has its own request queue and hctxs.
        let (mut d, a) = driver(0);
        let path = DevPath::Dedicated { sub: 1 };
        let b = d.add(
            0x201,
            Some("dasdb".into()),
            path,
            Some((1, NONE)),
            false,
            1000,
            0,
        );
        let mut started = Vec::new();
        for k in 0..5 {
            d.mq_submit(k, a, k as u64 * 8, 1, false, 0, 0, &mut started);
        }
        assert_eq!((d.devs[a as usize].count, d.mq.held()), (CHANQ_MAX, 1));
        // Submitted on the same CPU: dasdb's queue is dispatched, not dasda's held request.
        d.mq_submit(5, b, 0, 1, false, 0, 0, &mut started);
        assert_eq!(d.devs[b as usize].count, 1, "dasdb builds its request");
        assert_eq!(d.mq.held(), 1);
        // A completion on dasdb runs dasdb's queue, which holds nothing.
        let on_b = started.iter().find(|&&(_, dev)| dev == b).unwrap().0;
        d.complete(on_b, 100);
        assert_eq!(d.mq.rerun(b), None);
        assert_eq!(d.mq.rerun(a), Some(1));
        d.check().unwrap();
    }
}
