//! The DASD block layer's tasklet (drivers/s390/block/dasd.c, `dasd_block_tasklet`): one per
//! block device (`struct dasd_block`, the base and all its aliases), the stage every request of
//! the volume passes twice, whichever device (base or alias) runs its channel program.
//!
//! - Start: `do_dasd_request` builds the channel program, puts it on the block's `ccw_queue`
//!   and schedules the block tasklet (`dasd_schedule_block_bh`); the tasklet's
//!   `__dasd_block_start_head` walks the block's queue and hands every filled request to its
//!   start device (`dasd_add_request_tail`), whose device tasklet issues the start.
//! - End: the device tasklet's final queue marks the request done under the block's queue
//!   lock and schedules the block tasklet again; its `__dasd_process_block_ccw_queue` walks the
//!   queue for finished requests, and for each `__dasd_cleanup_cqr` frees the channel program
//!   (`free_cp`, the device's request count) and completes the block request
//!   (`blk_mq_complete_request`: the aio completion and the wake-up of the process).
//!
//! A tasklet never runs on two CPUs at once (kernel/softirq.c `tasklet_action_common`: a CPU
//! that finds it running elsewhere puts it back on its list and raises the softirq again, so it
//! spins in softirq until the running pass ends). One pass does all the work found when it
//! starts; work arriving while it runs waits for the next pass, which the CPU that scheduled
//! it runs right after the current one (the `tasklet_scheduled` flag lets only one CPU hold a
//! schedule). Each pass walks the whole `ccw_queue` twice under the block's queue lock, so its
//! fixed part grows with the requests the volume has built.

/// The block tasklet of one block device: when its scheduled passes run, and when each
/// releases the block's queue lock.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockTasklet {
    /// When the last scheduled pass starts (work arriving before then joins it) and ends.
    pub start: u64,
    pub end: u64,
    /// When that pass releases the queue lock (its walks and its starts hold it from its
    /// start), and when the pass before it did.
    lock_end: u64,
    prev_lock_end: u64,
    /// Passes run; CPU time the passes ran; CPU time spent spinning, for a pass running
    /// elsewhere (the schedule) and for the queue lock.
    pub passes: u64,
    pub busy_ns: u64,
    pub spin_ns: u64,
}

/// What scheduling work on the tasklet gives: when that work is done, and the CPU it costs
/// (the queue lock's spin, the spin of the CPU holding the schedule while another pass runs,
/// the pass's own time when this work opens a pass, and the work itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scheduled {
    pub done: u64,
    pub cpu_ns: u64,
}

/// Work for the tasklet: a request to hand to its device (done under the queue lock, in
/// `__dasd_block_start_head`) or one to end (`__dasd_cleanup_cqr`, under the hardware
/// queue's lock only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    Start(u64),
    End(u64),
}

impl BlockTasklet {
    /// `work` arrives at `now` from a CPU that first takes the queue lock (the device
    /// tasklet marking a request done, or `do_dasd_request` queueing one) and then schedules
    /// the tasklet; a new pass costs `pass` ns (its walks of the queue, under the lock).
    pub fn schedule(&mut self, now: u64, pass: u64, work: Work) -> Scheduled {
        let (ns, locked) = match work {
            Work::Start(w) => (w, w),
            Work::End(w) => (w, 0),
        };
        // The pass running at `now` holds the queue lock until its lock end.
        let holder = if now >= self.start {
            self.lock_end
        } else {
            self.prev_lock_end
        };
        let lock_spin = holder.saturating_sub(now).min(self.end.saturating_sub(now));
        let t = now + lock_spin;
        let s = if t >= self.end {
            // Idle: a pass starts now on this CPU.
            self.open(t, pass, ns, locked);
            Scheduled {
                done: self.end,
                cpu_ns: pass + ns,
            }
        } else if t >= self.start {
            // A pass runs elsewhere: this CPU holds the next schedule and spins in softirq
            // until that pass ends, then runs the next one.
            let spin = self.end - t;
            self.spin_ns += spin;
            self.open(self.end, pass, ns, locked);
            Scheduled {
                done: self.end,
                cpu_ns: spin + pass + ns,
            }
        } else {
            // The next pass is scheduled and has not started: the work joins it.
            self.end += ns;
            self.lock_end += locked;
            self.busy_ns += ns;
            Scheduled {
                done: self.end,
                cpu_ns: ns,
            }
        };
        self.spin_ns += lock_spin;
        Scheduled {
            done: s.done,
            cpu_ns: s.cpu_ns + lock_spin,
        }
    }

    fn open(&mut self, at: u64, pass: u64, ns: u64, locked: u64) {
        self.prev_lock_end = self.lock_end;
        self.start = at;
        self.end = at + pass + ns;
        self.lock_end = at + pass + locked;
        self.passes += 1;
        self.busy_ns += pass + ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_joins_the_scheduled_pass_and_a_running_pass_makes_the_scheduler_spin() {
        let mut t = BlockTasklet::default();
        // Idle: a pass of 2 (walks) + 1 (an end, after the lock is released at 102).
        assert_eq!(
            t.schedule(100, 2, Work::End(1)),
            Scheduled {
                done: 103,
                cpu_ns: 3
            }
        );
        // At 101 the lock is held until 102: spin 1; then the pass still runs until 103: the
        // CPU holds the next schedule and spins 1 more, then runs a pass of 2 + 1.
        assert_eq!(
            t.schedule(101, 2, Work::Start(1)),
            Scheduled {
                done: 106,
                cpu_ns: 5
            }
        );
        // At 102 the running pass (100-103) no longer holds the lock; the next pass (from
        // 103) has not started: the work joins it.
        assert_eq!(
            t.schedule(102, 2, Work::End(1)),
            Scheduled {
                done: 107,
                cpu_ns: 1
            }
        );
        assert_eq!((t.passes, t.spin_ns), (2, 2));
        // At 104 the pass of 103 holds the lock until 106 (walks 2 + the start 1).
        assert_eq!(t.schedule(104, 2, Work::End(1)).cpu_ns, 2 + 1 + 3);
        // After everything: idle again.
        assert_eq!(t.schedule(200, 2, Work::End(1)).done, 203);
    }
}
