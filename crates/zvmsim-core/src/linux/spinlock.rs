//! Linux 2.4's global spin locks that file-system calls of all processes share: the big
//! kernel lock (lock_kernel, which 2.4's VFS takes around the file system's namespace calls,
//! readdir, statfs, setattr, and ext2 around its block allocation), dcache_lock (a path walk's
//! dentry lookups) and pagecache_lock (every page-cache lookup, insertion and removal). A
//! waiting CPU spins: the wait is CPU time of the waiting process, which is what caps a
//! file-serving workload's scaling with processors.
//!
//! An operation's times are computed when its burst starts, so the lock's holds are known a
//! little ahead (at most a burst of one operation). A processor is granted the lock at the
//! first time from its asking on that no hold already granted covers: one asking earlier than
//! a hold computed before it goes first if its hold fits before, else it waits behind it.
//! Granted holds that ended before the current time are forgotten.

/// One lock: the holds granted that have not ended (start, end; by start), and what it was
/// used for.
#[derive(Debug, Clone, Default)]
pub struct SpinLock {
    holds: Vec<(u64, u64)>,
    /// Time held, time spun waiting for it (both CPU time), and acquisitions.
    pub held_ns: u64,
    pub spin_ns: u64,
    pub acquired: u64,
}

impl SpinLock {
    /// A processor asks for the lock at `at` (ns, not before `now`, the earliest time any
    /// processor can still ask) and holds it for `hold` ns once it has it: returns the time
    /// it spins first.
    pub fn acquire(&mut self, now: u64, at: u64, hold: u64) -> u64 {
        // The holds do not overlap and are kept by start, so their ends are in order too:
        // those ended by `now`, and those ended by `at`, are a prefix each. Skipping them by
        // search keeps a burst of many holds (a large read, write or unlink takes the page
        // cache lock for every page) linear rather than quadratic in its pages.
        let ended = self.holds.partition_point(|&(_, e)| e <= now);
        self.holds.drain(..ended);
        let from = self.holds.partition_point(|&(_, e)| e <= at);
        let mut t = at;
        let mut pos = self.holds.len();
        for (i, &(s, e)) in self.holds[from..].iter().enumerate() {
            if e <= t {
                continue;
            }
            if s >= t + hold {
                pos = from + i;
                break;
            }
            t = t.max(e);
        }
        self.holds.insert(pos, (t, t + hold));
        let spin = t - at;
        self.held_ns += hold;
        self.spin_ns += spin;
        self.acquired += 1;
        spin
    }
}

/// A guest kernel's global locks.
#[derive(Debug, Clone, Default)]
pub struct KernelLocks {
    pub bkl: SpinLock,
    pub dcache: SpinLock,
    pub pagecache: SpinLock,
}

impl KernelLocks {
    /// CPU spent spinning on any of them.
    pub fn spin_ns(&self) -> u64 {
        self.bkl.spin_ns + self.dcache.spin_ns + self.pagecache.spin_ns
    }
}

#[cfg(test)]
mod tests {
    use super::SpinLock;

    /// Two processors asking together: the second spins for the first's hold; one asking
    /// after the release does not spin; one asking before a hold granted ahead of it goes
    /// first when its hold fits before that one, else waits behind it.
    #[test]
    fn waits_behind_the_holder_only() {
        let mut l = SpinLock::default();
        assert_eq!(l.acquire(1_000, 1_000, 500), 0);
        assert_eq!(l.acquire(1_000, 1_100, 500), 400);
        assert_eq!(l.acquire(1_000, 5_000, 10), 0);
        assert_eq!((l.held_ns, l.spin_ns, l.acquired), (1_010, 400, 3));
        let mut l = SpinLock::default();
        assert_eq!(l.acquire(0, 10_000, 1_000), 0);
        assert_eq!(l.acquire(0, 2_000, 1_000), 0, "fits before the later hold");
        assert_eq!(
            l.acquire(0, 9_500, 1_000),
            1_500,
            "overlaps it: waits to 11,000"
        );
        // Holds that ended before now are forgotten, and the rest stay in order.
        assert_eq!(l.acquire(10_500, 10_500, 100), 1_500);
        assert_eq!(l.holds.len(), 3);
    }

    /// One burst's many holds in a row (a 1 GB unlink asks for the page-cache lock 262,144
    /// times before time moves on): each asking costs about the same, not the number of
    /// holds before it; and the grants are those of a scan from the first hold.
    #[test]
    fn a_long_burst_of_holds_stays_linear() {
        let mut l = SpinLock::default();
        let n = 200_000u64;
        let t0 = std::time::Instant::now();
        for i in 0..n {
            assert_eq!(l.acquire(0, i * 300, 200), 0);
        }
        // Another processor asking in the middle of them waits behind the hold it meets.
        assert_eq!(l.acquire(0, 150, 100), 50);
        assert_eq!(l.holds.len() as u64, n + 1);
        let secs = t0.elapsed().as_secs_f64();
        assert!(secs < 2.0, "{n} holds took {secs:.1} s");
    }
}
