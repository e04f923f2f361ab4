//! The database's page cleaners: a task of the transactional workload that wakes at a fixed
//! interval and moves a hand over the buffer pool, writing each changed buffer it passes, fast
//! enough that the hand goes round the pool once per checkpoint interval
//! (`[workloads.x.database] checkpoint`). Without them a changed buffer is written only when
//! the pool replaces it, and a hot page, never replaced, is never written.
//!
//! Every database product spreads its checkpoint writes this way (DB2's page cleaners driven
//! by SOFTMAX, Oracle's DBWR by its checkpoint target, PostgreSQL's checkpointer by
//! `checkpoint_timeout` and `checkpoint_completion_target`); the study's product is not named
//! (seed 002), so the interval is the scenario's.

use crate::cp::faults::Work;
use crate::cp::storage::NONE;
use crate::system::machine::Machine;

use super::database::Database;
use super::Outcome;

/// How often the cleaners wake. An inference: short against any checkpoint interval, so that
/// the writes come as a steady stream, as PostgreSQL's writers wake every 200 ms
/// (`bgwriter_delay`) and DB2's cleaners work asynchronously.
pub const WAKE_NS: u64 = 100_000_000;

/// The user index the cleaner task carries in its `TaskKind::User`: beyond any real user's.
pub(crate) const CLEANER_USER: u32 = u32::MAX;

pub(crate) struct Cleaner {
    /// Buffers the hand passes per wake-up: the pool over the checkpoint interval.
    per_wake: u32,
    /// Buffers left to look at in this wake-up.
    left: u32,
    /// The changed buffer being written and its block (NONE: none), so that a write stopped
    /// by a host page fault goes on where it stopped.
    buf: u32,
    block: u32,
    /// When the cleaners wake next (a fixed grid, so their rate does not drift with their
    /// own run time).
    next_wake: u64,
}

impl Cleaner {
    /// Cleaners for a pool of `buffers` written once per `checkpoint_ns`.
    pub(crate) fn new(buffers: u32, checkpoint_ns: u64) -> Self {
        let per_wake = (buffers as u128 * WAKE_NS as u128).div_ceil(checkpoint_ns.max(1) as u128);
        Cleaner {
            per_wake: per_wake.clamp(1, u32::MAX as u128) as u32,
            left: 0,
            buf: NONE,
            block: NONE,
            next_wake: WAKE_NS,
        }
    }

    /// The first wake-up (the caller schedules the task's first submit then).
    pub(crate) fn first_wake(&self) -> u64 {
        self.next_wake
    }

    /// A wake-up: the hand's round for this interval starts.
    pub(crate) fn wake(&mut self) {
        self.left = self.per_wake;
    }

    /// The round ended at `at`: when the next starts (at once when the round overran).
    pub(crate) fn done(&mut self, at: u64) -> u64 {
        self.next_wake += WAKE_NS;
        self.next_wake = self.next_wake.max(at);
        self.next_wake
    }

    /// Run the cleaner task `t` of guest `g` for up to `budget` ns: write the changed buffers
    /// the hand passes through the page cache (`write(2)`, as the database's other writes).
    pub(crate) fn run(
        &mut self,
        db: &mut Database,
        t: u32,
        g: usize,
        budget: u64,
        k: &mut Machine,
    ) -> (u64, Outcome) {
        let mut used = 0;
        loop {
            while self.buf == NONE {
                if self.left == 0 {
                    return (used, Outcome::Done);
                }
                self.left -= 1;
                if let Some((buf, block)) = db.clean_next() {
                    (self.buf, self.block) = (buf, block);
                }
            }
            let mut w = Work::default();
            let (from, dev) = (db.buf_start + self.buf, db.volume_of(self.block));
            let r = k.file_write(g, t, dev, self.block, from, &mut w);
            used += k.charge_work(g, &w);
            k.flush_page_writes();
            if let Err(b) = r {
                return (used, Outcome::Blocked(b));
            }
            self.buf = NONE;
            if used >= budget {
                return (used, Outcome::SliceEnd);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Cleaner, WAKE_NS};

    /// A pool of 3,000 buffers cleaned once a minute: 5 buffers per 100 ms wake-up (rounded
    /// up, so that the hand never falls behind its interval); the grid holds its phase
    /// unless a round overruns it.
    #[test]
    fn the_hand_goes_round_the_pool_once_per_checkpoint() {
        let mut c = Cleaner::new(3_000, 60_000_000_000);
        assert_eq!(c.per_wake, 5);
        assert_eq!(Cleaner::new(3_001, 60_000_000_000).per_wake, 6);
        assert_eq!(c.first_wake(), WAKE_NS);
        assert_eq!(c.done(WAKE_NS + 3), 2 * WAKE_NS);
        assert_eq!(c.done(5 * WAKE_NS), 5 * WAKE_NS);
    }
}
