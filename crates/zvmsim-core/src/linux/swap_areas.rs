//! Swap areas and their priorities, as `swapon`/`swapoff` manage them (mm/swapfile.c): an area
//! activated without `-p` gets the next lower negative priority (-1, -2, ...); slots are taken
//! from the highest-priority area that has one free, round robin among areas of equal
//! priority; `swapoff` moves what the area holds elsewhere and, for a negative priority,
//! raises every lower area by one (the listing of seed 000: /dev/dasdw1 at -2 becomes -1
//! once /dev/dasda2 is off).
//!
//! The swap partitions of the scenario (`guests.linux.swap` on its swap DASD) are the static
//! group: equal priority, slots striped round robin (slot s on volume s % n), as before. Areas
//! activated by `swapon` while the system runs take slot numbers after them, one contiguous
//! range each. `swapoff` of an area moves each page it holds on swap to a slot of the other
//! areas and drops the swap-cache copy of each page in memory, with no I/O time (Linux reads
//! the pages in and reclaim writes them out again: a simplification, documented, for a
//! command the studies type before measuring). Without room on the other areas it fails
//! with ENOMEM and changes nothing.

use super::memory::{LinuxMemory, A_IDX, A_OUT, A_SLOT};
use crate::cp::storage::NONE;

/// Linux's errno for a swapoff that cannot fit the area's pages elsewhere.
pub use super::errno::ENOMEM;

/// An area activated by `swapon`: slots `first..first + pages`.
#[derive(Debug, Clone)]
pub struct SwapArea {
    pub first: u32,
    pub pages: u32,
    pub prio: i32,
    pub(super) free: Vec<u32>,
    pub on: bool,
}

/// The areas beside the static group.
#[derive(Debug, Clone, Default)]
pub struct SwapAreas {
    pub extra: Vec<SwapArea>,
    /// Slots of the static group (the scenario's swap partitions).
    pub static_slots: u32,
    /// The static group is active (not swapped off).
    pub static_on: bool,
    pub static_prio: i32,
    /// The last priority given (least_priority).
    pub least: i32,
    rr: u32,
}

/// Which area a slot is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AreaOf {
    /// The static group (its volume is slot % volumes).
    Static,
    /// Area `i` of `extra`, at offset `off` from its first slot.
    Extra { i: usize, off: u32 },
}

impl SwapAreas {
    /// The static group of `slots` slots on `volumes` volumes (priorities -1 .. -volumes).
    pub fn with_static(slots: u32, volumes: u32) -> Self {
        let on = slots > 0;
        SwapAreas {
            static_slots: slots,
            static_on: on,
            static_prio: -1,
            least: if on { -(volumes.max(1) as i32) } else { 0 },
            ..Default::default()
        }
    }
}

impl LinuxMemory {
    pub fn area_of(&self, slot: u32) -> AreaOf {
        if slot < self.areas.static_slots {
            return AreaOf::Static;
        }
        let i = self
            .areas
            .extra
            .iter()
            .position(|a| slot >= a.first && slot < a.first + a.pages)
            .unwrap_or(0);
        AreaOf::Extra {
            i,
            off: slot - self.areas.extra.get(i).map_or(0, |a| a.first),
        }
    }

    /// A free slot, from the highest-priority area with one (None: swap is full).
    pub(super) fn alloc_slot(&mut self) -> Option<u32> {
        if self.areas.extra.is_empty() {
            // Only the scenario's partitions: the one free list (the path of every run
            // without swapon).
            return self.swap_free.pop();
        }
        let a = &mut self.areas;
        let stat = (a.static_on && !self.swap_free.is_empty()).then_some(a.static_prio);
        let best = a
            .extra
            .iter()
            .filter(|x| x.on && !x.free.is_empty())
            .map(|x| x.prio)
            .chain(stat)
            .max()?;
        // Round robin among the areas of that priority (the static group counts as one).
        let mut cands: Vec<Option<usize>> = Vec::new();
        if stat == Some(best) {
            cands.push(None);
        }
        for (i, x) in a.extra.iter().enumerate() {
            if x.on && !x.free.is_empty() && x.prio == best {
                cands.push(Some(i));
            }
        }
        let pick = cands[a.rr as usize % cands.len()];
        a.rr = a.rr.wrapping_add(1);
        match pick {
            None => self.swap_free.pop(),
            Some(i) => a.extra[i].free.pop(),
        }
    }

    /// A slot can be had.
    #[inline]
    pub(super) fn has_free_slot(&self) -> bool {
        !self.swap_free.is_empty() || self.areas.extra.iter().any(|x| x.on && !x.free.is_empty())
    }

    /// A freed slot goes back to its area's free list.
    pub(super) fn free_slot(&mut self, s: u32) {
        match self.area_of(s) {
            AreaOf::Static => self.swap_free.push(s),
            AreaOf::Extra { i, .. } => self.areas.extra[i].free.push(s),
        }
    }

    pub(super) fn free_slots(&self) -> u64 {
        self.swap_free.len() as u64
            + self
                .areas
                .extra
                .iter()
                .filter(|x| x.on)
                .map(|x| x.free.len() as u64)
                .sum::<u64>()
    }

    /// `swapon` of an area of `pages` slots at priority `prio` (None: the next lower one).
    /// Returns its index in `areas.extra`.
    pub fn swapon_area(&mut self, pages: u32, prio: Option<i32>) -> usize {
        let first = self.slot_owner.len() as u32;
        self.slot_owner.resize((first + pages) as usize, NONE);
        let prio = prio.unwrap_or_else(|| {
            self.areas.least -= 1;
            self.areas.least
        });
        self.areas.extra.push(SwapArea {
            first,
            pages,
            prio,
            // Popped from the end: slots handed out in ascending order.
            free: (first..first + pages).rev().collect(),
            on: true,
        });
        self.swap_pages += pages as u64;
        self.areas.extra.len() - 1
    }

    /// Slots in use on an area (None: the static group).
    pub fn area_used(&self, area: Option<usize>) -> u64 {
        match area {
            None => self.areas.static_slots as u64 - self.swap_free.len() as u64,
            Some(i) => {
                let a = &self.areas.extra[i];
                a.pages as u64 - a.free.len() as u64
            }
        }
    }

    /// `swapoff` of an area (None: the static group). Returns the slots the pages on swap
    /// moved to, for the caller to write there; Err(ENOMEM) if the other areas lack room.
    pub fn swapoff_area(&mut self, area: Option<usize>) -> Result<Vec<u32>, i32> {
        let (lo, hi, prio) = match area {
            None => (0, self.areas.static_slots, self.areas.static_prio),
            Some(i) => {
                let a = &self.areas.extra[i];
                (a.first, a.first + a.pages, a.prio)
            }
        };
        let out_pages: Vec<(u32, u32)> = (lo..hi)
            .filter_map(|s| {
                let w = self.slot_owner[s as usize];
                (w != NONE).then_some((s, w))
            })
            .collect();
        let on_swap = out_pages
            .iter()
            .filter(|&&(_, w)| self.anon.at(w) & A_IDX == A_OUT)
            .count() as u64;
        let own_free = match area {
            None => self.swap_free.len() as u64,
            Some(i) => self.areas.extra[i].free.len() as u64,
        };
        if self.free_slots() - own_free < on_swap {
            return Err(ENOMEM);
        }
        // Take the area out of use first, so that no slot comes from it again.
        match area {
            None => {
                self.areas.static_on = false;
                self.swap_free.clear();
                self.swap_pages -= self.areas.static_slots as u64;
            }
            Some(i) => {
                let a = &mut self.areas.extra[i];
                a.on = false;
                a.free.clear();
                self.swap_pages -= a.pages as u64;
            }
        }
        let mut moved = Vec::new();
        for (s, w) in out_pages {
            self.slot_owner[s as usize] = NONE;
            if self.anon.at(w) & A_IDX == A_OUT {
                let n = self.alloc_slot().expect("room checked above");
                self.anon.set_slot(w, n);
                self.slot_owner[n as usize] = w;
                moved.push(n);
            } else {
                // In memory with a swap-cache copy: the copy is dropped.
                self.anon.set_slot(w, NONE);
                *self.anon.at_mut(w) &= !A_SLOT;
            }
        }
        // Areas below a negative priority move up by one (least_priority++).
        if prio < 0 {
            for x in self
                .areas
                .extra
                .iter_mut()
                .filter(|x| x.on && x.prio < prio)
            {
                x.prio += 1;
            }
            if self.areas.static_on && self.areas.static_prio < prio {
                self.areas.static_prio += 1;
            }
            self.areas.least += 1;
        }
        Ok(moved)
    }

    /// The slot is on an active area.
    pub(super) fn slot_active(&self, s: u32) -> bool {
        match self.area_of(s) {
            AreaOf::Static => self.areas.static_on,
            AreaOf::Extra { i, .. } => self.areas.extra[i].on,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guest(swap: u64) -> LinuxMemory {
        let mut m = LinuxMemory::new(0, 1000, 100, 900, 10, 40, swap);
        m.warm(0..900, |i| i);
        m
    }

    /// Seed 000's listing: the VDISK added at -2 is used only when the DASD (-1) is full; after
    /// swapoff of the DASD its pages are on the VDISK, which moves up to -1.
    #[test]
    fn priorities_order_use_and_swapoff_moves_pages() {
        let mut m = guest(900);
        let on_dasd = m.area_used(None);
        assert!(on_dasd > 0);
        let v = m.swapon_area(600, None);
        assert_eq!(m.areas.extra[v].prio, -2);
        let s = m.alloc_slot().unwrap();
        assert_eq!(m.area_of(s), AreaOf::Static, "the higher priority first");
        m.free_slot(s);
        let moved = m.swapoff_area(None).unwrap();
        assert_eq!(moved.len() as u64, on_dasd);
        assert_eq!(m.areas.extra[v].prio, -1);
        assert_eq!(m.area_used(Some(v)), on_dasd);
        assert_eq!(m.swap_pages, 600);
        m.check().unwrap();
    }

    /// Equal priorities share the slots round robin; no room elsewhere is ENOMEM, unchanged.
    #[test]
    fn equal_priorities_round_robin_and_enomem() {
        let mut m = guest(900);
        let a = m.swapon_area(100, Some(5));
        let b = m.swapon_area(100, Some(5));
        let x = m.alloc_slot().unwrap();
        let y = m.alloc_slot().unwrap();
        assert_ne!(m.area_of(x), m.area_of(y));
        assert!(matches!(m.area_of(x), AreaOf::Extra { i, .. } if i == a || i == b));
        m.free_slot(x);
        m.free_slot(y);
        let before = (m.swap_pages, m.area_used(None));
        assert_eq!(m.swapoff_area(None), Err(ENOMEM));
        assert_eq!((m.swap_pages, m.area_used(None)), before);
        m.check().unwrap();
    }
}
