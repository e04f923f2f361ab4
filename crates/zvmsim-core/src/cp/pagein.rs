//! CP's block page-ins from DASD in flight. A fault on a page whose slot group is already being
//! read joins that read instead of starting another (one channel program brings the block).

use crate::cp::storage::NONE;

/// Who waits for a page-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiter {
    /// A task that faulted in problem state with pfault: only the task waits.
    Task(u32),
    /// A virtual CPU stopped by a fault without pfault (or in kernel mode).
    Vcpu(u32),
    /// A Linux swap write on device `dev`: CP must bring the page in before the channel
    /// program can read it (double paging).
    SwapWrite { dev: u32 },
    /// Nobody waits: CP brings the page in for a copy already counted (a swap write to a
    /// memory-backed device, `system/swapdev.rs`).
    Nothing,
}

struct PageIn {
    group: u32,
    /// The guest whose fault started the read: CP's completion work is charged to it.
    guest: u32,
    waiters: Vec<Waiter>,
}

/// The page-ins in flight and, per slot group, the one reading it.
pub struct PageIns {
    list: Vec<PageIn>,
    free: Vec<u32>,
    by_group: Vec<u32>,
}

impl PageIns {
    pub fn new(groups: usize) -> Self {
        PageIns {
            list: Vec::new(),
            free: Vec::new(),
            by_group: vec![NONE; groups],
        }
    }

    /// Ask for group `group`'s entry ahead of `join` (a hint).
    #[inline]
    pub fn prefetch(&self, group: u32) {
        crate::engine::prefetch::prefetch(&self.by_group, group as usize);
    }

    /// `waiter` waits for slot group `group`. Returns the id of a new page-in for the caller to
    /// start, or None when it joined one under way.
    pub fn join(&mut self, group: u32, guest: u32, waiter: Waiter) -> Option<u32> {
        let cur = self.by_group[group as usize];
        if cur != NONE {
            self.list[cur as usize].waiters.push(waiter);
            return None;
        }
        let id = match self.free.pop() {
            Some(id) => {
                let p = &mut self.list[id as usize];
                p.group = group;
                p.guest = guest;
                p.waiters.push(waiter);
                id
            }
            None => {
                self.list.push(PageIn {
                    group,
                    guest,
                    waiters: vec![waiter],
                });
                (self.list.len() - 1) as u32
            }
        };
        self.by_group[group as usize] = id;
        Some(id)
    }

    /// The slot group page-in `id` reads, and the guest that started it.
    pub fn group_of(&self, id: u32) -> (u32, u32) {
        let p = &self.list[id as usize];
        (p.group, p.guest)
    }

    /// Page-in `id` completed: its waiters, in the order they came. Give the vector back
    /// with `recycle` so its buffer is reused.
    pub fn finish(&mut self, id: u32) -> Vec<Waiter> {
        let p = &mut self.list[id as usize];
        self.by_group[p.group as usize] = NONE;
        std::mem::take(&mut p.waiters)
    }

    pub fn recycle(&mut self, id: u32, mut waiters: Vec<Waiter>) {
        waiters.clear();
        self.list[id as usize].waiters = waiters;
        self.free.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_fault_on_the_same_group_joins_the_read() {
        let mut p = PageIns::new(4);
        let id = p.join(2, 0, Waiter::Task(5)).unwrap();
        assert_eq!(p.join(2, 1, Waiter::Vcpu(3)), None);
        assert_eq!(p.group_of(id), (2, 0));
        let w = p.finish(id);
        assert_eq!(w, vec![Waiter::Task(5), Waiter::Vcpu(3)]);
        p.recycle(id, w);
        // The group is free again, and the id is reused.
        assert_eq!(p.join(2, 0, Waiter::SwapWrite { dev: 1 }), Some(id));
    }
}
