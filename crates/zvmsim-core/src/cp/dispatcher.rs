//! CP's dispatcher: the IFLs run the guests' virtual CPUs. A runnable virtual CPU takes a free
//! IFL or joins the dispatch list (FIFO); it runs for at most a minor time slice before the
//! next one in the list gets the IFL. CP work left over from I/O interrupts runs first on the
//! next IFL dispatched, and is charged to the guest it was done for.
//!
//! With simultaneous multithreading (`[lpar] smt = 2`) each core runs two threads, each a
//! logical CPU of its own. The two threads share the core's execution units and caches, so a
//! thread runs slower while its sibling is busy (z/VM CP Planning and Administration,
//! "Simultaneous Multithreading": "each of the individual threads will be less productive per
//! unit of time"), and the CPU timer of the guest's virtual CPU (the raw time it is charged)
//! runs for the longer time. z/VM keeps one dispatch vector per core and places a guest's
//! sibling virtual CPUs on the same one (IBM z13s Technical Guide, SG24-8294, "z/VM dispatches
//! virtual IFLs ... z/VM attempts to place virtual sibling IFLs on the same dispatch vector").
//! Which sibling shares a core at a moment changes as virtual CPUs go idle and run again, so
//! the model takes the expected value: a virtual CPU starting a burst has its core's other
//! thread busy with the probability that one of its guest's other virtual CPUs, taken at
//! random, is running now (inference from the placement above: the guest's virtual CPUs pair
//! up on cores, not with other guests' and not spread one to a core).

use std::collections::VecDeque;

use crate::cp::storage::NONE;
use crate::monitor::Level;

/// A core's capacity running two threads, in units of its capacity running one: each thread
/// with a busy sibling runs at half of it. IBM measured 1.01x to 1.97x internal throughput
/// with SMT-2 on z/VM, by workload (z/VM performance report "Simultaneous Multithreading
/// (SMT)", z13); 1.3 is the common rule of thumb for IFL workloads. Inference: the seed
/// (z14, SMT-2) does not give its workload's factor.
pub const SMT2_CORE_CAPACITY: f64 = 1.3;

/// Why a virtual CPU's burst ended early: what it now waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    None,
    /// A database read into the page cache: the task sleeps.
    DbRead {
        vol: u32,
        /// The block on the volume (where the file system puts the file block).
        block: u32,
        task: u32,
    },
    /// A host page fault on a page CP has on DASD. `sync`: the fault happened in kernel mode
    /// (or pfault is off): the whole virtual CPU waits.
    PageIn {
        group: u32,
        task: u32,
        sync: bool,
    },
    /// A Linux major fault: the task waits for the read from its swap device.
    SwapIn {
        dev: u32,
        task: u32,
    },
    /// A process sleeps in io_getevents until one of its asynchronous I/Os completes; the
    /// channel programs its io_submit built start when the burst ends.
    Aio {
        task: u32,
    },
}

/// The dispatcher's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchEvent {
    /// Virtual CPU `vcpu`'s burst on its IFL ends.
    BurstEnd { vcpu: u32 },
}

pub struct Vcpu {
    pub guest: u32,
    /// The Linux task it runs (NONE: idle in Linux).
    pub task: u32,
    pub pending: Block,
    /// Blocked in a host page fault without pfault: not dispatchable.
    pub blocked: bool,
    pub slice_used: u64,
    /// Holds a logical CPU (from its dispatch until it goes idle, blocks or is preempted).
    pub on_cpu: bool,
}

pub struct Dispatcher {
    pub vcpus: Vec<Vcpu>,
    ifl_free: u32,
    list: VecDeque<u32>,
    pub slice_ns: u64,
    /// CP work done at I/O interrupts, not yet run: (guest it was done for, or None for CP's
    /// own system work; ns).
    backlog: Vec<(Option<u32>, u64)>,
    /// Virtual CPUs waiting in the dispatch list, as a time-weighted level.
    pub waiting: Level,
    /// Two threads per core (SMT-2).
    smt: bool,
    /// Virtual CPUs holding a logical CPU, per guest.
    on_cpu: Vec<u32>,
    /// Virtual CPUs per guest.
    of_guest: Vec<u32>,
}

impl Dispatcher {
    pub fn new(ifls: u32, slice_ns: u64) -> Self {
        Dispatcher {
            vcpus: Vec::new(),
            ifl_free: ifls,
            list: VecDeque::new(),
            slice_ns,
            backlog: Vec::new(),
            waiting: Level::default(),
            smt: false,
            on_cpu: Vec::new(),
            of_guest: Vec::new(),
        }
    }

    /// The LPAR's cores run `threads` threads each (1, or 2 with SMT): as many logical CPUs.
    pub fn with_threads(mut self, threads: u32) -> Self {
        self.ifl_free *= threads;
        self.smt = threads == 2;
        self
    }

    /// `v` takes (true) or gives up (false) its logical CPU.
    pub fn set_on_cpu(&mut self, v: u32, on: bool) {
        let vc = &mut self.vcpus[v as usize];
        if vc.on_cpu != on {
            vc.on_cpu = on;
            let n = &mut self.on_cpu[vc.guest as usize];
            if on {
                *n += 1;
            } else {
                *n -= 1;
            }
        }
    }

    /// How much longer work takes on `v`'s thread (`v` holding it): 2 / SMT2_CORE_CAPACITY
    /// with a sibling on the core's other thread, 1 without, weighted by the share of its
    /// guest's other virtual CPUs that run now.
    pub fn thread_slowdown(&self, v: u32) -> f64 {
        let g = self.vcpus[v as usize].guest as usize;
        let n = self.of_guest[g];
        if !self.smt || n < 2 {
            return 1.0;
        }
        let others = self.on_cpu[g].saturating_sub(1) as f64;
        1.0 + (2.0 / SMT2_CORE_CAPACITY - 1.0) * others / (n - 1) as f64
    }

    /// How much longer work takes on a thread of guest `g` that runs besides the guest's
    /// virtual CPUs running now (work done at an interrupt, e.g. a softirq, on one of them).
    pub fn guest_slowdown(&self, g: u32) -> f64 {
        let g = g as usize;
        let n = self.of_guest.get(g).copied().unwrap_or(0);
        if !self.smt || n < 2 {
            return 1.0;
        }
        let others = self.on_cpu[g].min(n - 1) as f64;
        1.0 + (2.0 / SMT2_CORE_CAPACITY - 1.0) * others / (n - 1) as f64
    }

    pub fn add_vcpu(&mut self, guest: u32) -> u32 {
        if self.on_cpu.len() <= guest as usize {
            self.on_cpu.resize(guest as usize + 1, 0);
            self.of_guest.resize(guest as usize + 1, 0);
        }
        self.of_guest[guest as usize] += 1;
        self.vcpus.push(Vcpu {
            guest,
            task: NONE,
            pending: Block::None,
            blocked: false,
            slice_used: 0,
            on_cpu: false,
        });
        (self.vcpus.len() - 1) as u32
    }

    /// `v` became runnable: true when it got a free IFL (with a fresh slice) and runs now;
    /// otherwise it waits in the dispatch list.
    pub fn runnable(&mut self, v: u32, now: u64) -> bool {
        if self.ifl_free > 0 {
            self.ifl_free -= 1;
            self.vcpus[v as usize].slice_used = 0;
            true
        } else {
            self.list.push_back(v);
            self.waiting.set(now, self.list.len() as f64);
            false
        }
    }

    /// The next virtual CPU of the dispatch list, with a fresh slice, for an IFL given up.
    pub fn take_next(&mut self, now: u64) -> Option<u32> {
        let v = self.list.pop_front()?;
        self.waiting.set(now, self.list.len() as f64);
        self.vcpus[v as usize].slice_used = 0;
        Some(v)
    }

    /// `v` used its slice and others wait: it goes to the end of the list and the first one
    /// waiting takes the IFL (returned). None: nobody waits, `v` starts a new slice.
    pub fn preempt(&mut self, v: u32, now: u64) -> Option<u32> {
        match self.take_next(now) {
            Some(n) => {
                self.list.push_back(v);
                self.waiting.set(now, self.list.len() as f64);
                Some(n)
            }
            None => {
                self.vcpus[v as usize].slice_used = 0;
                None
            }
        }
    }

    /// An IFL falls idle.
    pub fn free_ifl(&mut self) {
        self.ifl_free += 1;
    }

    /// The virtual CPUs waiting in the dispatch list.
    pub fn waiting_vcpus(&self) -> &VecDeque<u32> {
        &self.list
    }

    pub fn idle_ifls(&self) -> u32 {
        self.ifl_free
    }

    /// CP work done for `guest` (None: for no guest) at an interrupt; it runs on the next IFL
    /// dispatched.
    pub fn defer_cp(&mut self, guest: Option<u32>, ns: u64) {
        self.backlog.push((guest, ns));
    }

    /// The deferred CP work, to run now.
    pub fn take_backlog(&mut self) -> std::vec::Drain<'_, (Option<u32>, u64)> {
        self.backlog.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ifls_are_shared_fifo_and_never_oversubscribed() {
        let mut d = Dispatcher::new(2, 5_000_000);
        let v: Vec<u32> = (0..4).map(|g| d.add_vcpu(g)).collect();
        assert!(d.runnable(v[0], 0));
        assert!(d.runnable(v[1], 0));
        // Both IFLs busy: the others queue in order.
        assert!(!d.runnable(v[2], 0));
        assert!(!d.runnable(v[3], 10));
        assert_eq!(d.idle_ifls(), 0);
        // v0 used its slice: v2 takes the IFL, v0 goes behind v3.
        d.vcpus[0].slice_used = 5_000_000;
        assert_eq!(d.preempt(v[0], 20), Some(v[2]));
        assert_eq!(d.take_next(30), Some(v[3]));
        assert_eq!(d.take_next(40), Some(v[0]));
        assert_eq!(d.vcpus[0].slice_used, 0);
        assert_eq!(d.take_next(40), None);
        // Waiting: 1 over [0, 10), 2 over [10, 30), 1 over [30, 40): 60 / 40.
        assert!((d.waiting.close(40) - 1.5).abs() < 1e-12);
        d.free_ifl();
        assert_eq!(d.idle_ifls(), 1);
    }

    #[test]
    fn smt_threads_double_the_logical_cpus_and_slow_siblings_sharing_a_core() {
        let mut d = Dispatcher::new(2, 5_000_000).with_threads(2);
        assert_eq!(d.idle_ifls(), 4);
        let a: Vec<u32> = (0..5).map(|_| d.add_vcpu(0)).collect();
        let other = d.add_vcpu(1);
        let full = 2.0 / SMT2_CORE_CAPACITY;
        d.set_on_cpu(a[0], true);
        // Alone: its core's other thread is idle.
        assert_eq!(d.thread_slowdown(a[0]), 1.0);
        // One of its 4 siblings runs: a quarter of the way to the full slowdown; another
        // guest's virtual CPU does not count.
        d.set_on_cpu(other, true);
        d.set_on_cpu(a[1], true);
        let q = d.thread_slowdown(a[1]);
        assert!((q - (1.0 + (full - 1.0) / 4.0)).abs() < 1e-12);
        // All siblings run: the full slowdown. Setting a state twice counts once.
        for &x in &a[2..] {
            d.set_on_cpu(x, true);
            d.set_on_cpu(x, true);
        }
        assert!((d.thread_slowdown(a[4]) - full).abs() < 1e-12);
        d.set_on_cpu(a[4], false);
        d.set_on_cpu(a[4], false);
        assert!((d.thread_slowdown(a[3]) - (1.0 + (full - 1.0) * 0.75)).abs() < 1e-12);
        // A guest with one virtual CPU has no sibling; without SMT nothing runs slower.
        assert_eq!(d.thread_slowdown(other), 1.0);
        let mut n = Dispatcher::new(2, 5_000_000);
        let b: Vec<u32> = (0..2).map(|_| n.add_vcpu(0)).collect();
        n.set_on_cpu(b[0], true);
        n.set_on_cpu(b[1], true);
        assert_eq!(n.thread_slowdown(b[1]), 1.0);
        assert_eq!(n.idle_ifls(), 2);
    }

    #[test]
    fn deferred_cp_work_keeps_its_guest() {
        let mut d = Dispatcher::new(1, 1);
        d.defer_cp(Some(3), 40_000);
        d.defer_cp(None, 12_000);
        d.defer_cp(Some(1), 8_000);
        let got: Vec<(Option<u32>, u64)> = d.take_backlog().collect();
        assert_eq!(
            got,
            vec![(Some(3), 40_000), (None, 12_000), (Some(1), 8_000)]
        );
        assert_eq!(d.take_backlog().count(), 0);
    }
}
