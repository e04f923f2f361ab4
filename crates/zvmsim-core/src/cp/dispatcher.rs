//! CP's dispatcher: the IFLs run the guests' virtual CPUs. A runnable virtual CPU takes a free
//! IFL or joins the dispatch list (FIFO); it runs for at most a minor time slice before the
//! next one in the list gets the IFL. CP work left over from I/O interrupts runs first on the
//! next IFL dispatched, and is charged to the guest it was done for.

use std::collections::VecDeque;

use crate::cp::storage::NONE;
use crate::monitor::Level;

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
        }
    }

    pub fn add_vcpu(&mut self, guest: u32) -> u32 {
        self.vcpus.push(Vcpu {
            guest,
            task: NONE,
            pending: Block::None,
            blocked: false,
            slice_used: 0,
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
