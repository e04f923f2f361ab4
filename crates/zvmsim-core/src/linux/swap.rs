//! Swap in the Linux guest (2.6.16's mm/swapfile.c, mm/swap_state.c, mm/memory.c): swap
//! slots, the swap cache (a page read back keeps its slot while unchanged, so that swapping
//! it out again needs no write), major faults and swap readahead. Slots are written by
//! reclaim (`linux::reclaim`), which hands the writes to the caller in `swap_out`.

use super::memory::{LinuxMemory, ANON, A_IDX, A_OUT, A_PENDING, A_REF, A_SLOT, FREE};
use super::swap_areas::AreaOf;
use crate::cp::storage::NONE;

/// Largest vm.page-cluster honoured (readahead of 2^8 = 256 slots). Inference: the bound
/// `config/validate.rs` enforces on scenarios, kept here so that a shift cannot overflow.
const PAGE_CLUSTER_MAX: u32 = 8;

/// A page Linux writes to swap: global guest page and slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapOut {
    pub page: u32,
    pub slot: u32,
}

/// Where an anonymous page is when a task references it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anon {
    /// In guest memory at this global page.
    Resident(u32),
    /// In guest memory at this global page, which still has to be read from `slot`
    /// (a major fault in progress).
    SwapIn { page: u32, slot: u32 },
}

impl LinuxMemory {
    pub fn swap_used(&self) -> u64 {
        self.swap_pages - self.free_slots()
    }

    /// vm_swap_full() (include/linux/swap.h of 2.6.16): more than half of swap is in use.
    fn vm_swap_full(&self) -> bool {
        2 * self.swap_used() > self.swap_pages
    }

    /// The global page anonymous page `v` is in, while that is implied (no load to find it).
    #[inline]
    pub fn anon_page_hint(&self, v: u32) -> Option<u32> {
        self.identity.then(|| self.pool_global(v))
    }

    /// A reference to anonymous page `v`. A swapped-out page is a major fault: Linux allocates
    /// a page for it at once (reclaiming if it must) and the caller reads it from its slot.
    /// Returns the place and the pages scanned by direct reclaim.
    #[inline]
    pub fn anon_ref(&mut self, v: u32, write: bool) -> (Anon, u64) {
        if self.identity {
            return (Anon::Resident(self.pool_global(v)), 0);
        }
        let at = self.anon.at(v);
        if at & (A_PENDING | A_IDX) < A_OUT {
            // Resident, the common case.
            *self.anon.at_mut(v) = at | A_REF;
            if write && at & A_SLOT != 0 {
                self.drop_slot(v);
            }
            return (Anon::Resident(self.pool_global(at & A_IDX)), 0);
        }
        self.anon_fault(v, at)
    }

    /// A reference to a page on swap (a major fault) or one whose swap read is pending.
    fn anon_fault(&mut self, v: u32, at: u32) -> (Anon, u64) {
        let mut scanned = 0;
        let mut at = at;
        if at & A_IDX == A_OUT {
            debug_assert!(at & A_SLOT != 0, "a page not in memory has a swap slot");
            let (i, s) = self.alloc_page();
            scanned = s;
            self.pool.set(i, ANON | v);
            at = i | A_PENDING | A_SLOT;
            self.anon_resident += 1;
            self.pgmajfault += 1;
            self.pswpin += 1;
            *self.anon.at_mut(v) = at;
            scanned += self.read_ahead(self.anon.slot(v));
        }
        *self.anon.at_mut(v) = at | A_REF;
        (
            Anon::SwapIn {
                page: self.pool_global(at & A_IDX),
                slot: self.anon.slot(v),
            },
            scanned,
        )
    }

    /// swapin_readahead: the other slots in use of the faulting slot's aligned cluster (in its
    /// swap area) whose pages are not in memory are read by the same I/O into new pages, which
    /// go to the swap cache unreferenced (a later reference is a minor fault).
    fn read_ahead(&mut self, slot: u32) -> u64 {
        let n = 1u32 << self.page_cluster.min(PAGE_CLUSTER_MAX);
        // The area's geometry: the static group's volumes are striped (slot s on volume
        // s % areas at offset s / areas); an area of swapon is one range from `base`.
        let (stride, base, off, end) = match self.area_of(slot) {
            AreaOf::Static => {
                let areas = self.swap_areas.max(1);
                (areas, slot % areas, slot / areas, self.areas.static_slots)
            }
            AreaOf::Extra { i, off } => {
                let a = &self.areas.extra[i];
                (1, a.first, off, a.first + a.pages)
            }
        };
        let first = off & !(n - 1);
        let mut scanned = 0;
        for o in first..first + n {
            let s = o * stride + base;
            if s == slot || s >= end {
                continue;
            }
            let w = self.slot_owner[s as usize];
            if w == NONE || self.anon.at(w) & A_IDX != A_OUT {
                continue;
            }
            let (i, sc) = self.alloc_page();
            scanned += sc;
            self.pool.set(i, ANON | w);
            *self.anon.at_mut(w) = i | A_SLOT;
            self.anon_resident += 1;
            self.pswpin += 1;
            let page = self.pool_global(i);
            self.readahead.push((w, page));
        }
        scanned
    }

    /// A page read ahead is not read after all (CP does not have its frame): it stays on swap.
    pub fn cancel_readahead(&mut self, w: u32, page: u32) {
        // Only a page still as the readahead left it: not reclaimed again, not used or changed.
        let at = self.anon.at(w);
        if self.anon_page(w) != Some(page) || at & (A_SLOT | A_REF | A_PENDING) != A_SLOT {
            return;
        }
        let i = at & A_IDX;
        *self.anon.at_mut(w) = A_OUT | A_SLOT;
        self.pool.set(i, FREE);
        self.free.push(i);
        self.set_state(i, crate::cp::storage::GuestState::Unused);
        self.anon_resident -= 1;
        self.pswpin -= 1;
    }

    /// The swap read of `v` has been started. With swap more than half full the slot is freed
    /// at once (vm_swap_full in do_swap_page); otherwise the page keeps it as a clean copy.
    pub fn swapin_started(&mut self, v: u32) {
        *self.anon.at_mut(v) &= !A_PENDING;
        if self.vm_swap_full() {
            self.drop_slot(v);
        }
    }

    /// The page changed: its copy on swap is stale.
    #[inline]
    fn drop_slot(&mut self, v: u32) {
        let s = self.anon.slot(v);
        if s != NONE {
            self.anon.set_slot(v, NONE);
            self.slot_owner[s as usize] = NONE;
            *self.anon.at_mut(v) &= !A_SLOT;
            self.free_slot(s);
        }
    }

    /// Anonymous pages in memory that also have an unchanged copy on swap (SwapCached).
    pub fn swap_cached(&self) -> u64 {
        self.anon
            .count(|at| at & A_SLOT != 0 && at & A_IDX != A_OUT)
    }

    /// Swap slots are conserved: each is free or held by exactly one anonymous page, which
    /// points back to it, and every page out of memory has one.
    pub(super) fn check_swap(&self) -> Result<(), String> {
        // Slots of areas swapped off are neither free nor held: seen from the start.
        let mut slot_seen: Vec<bool> = (0..self.slot_owner.len() as u32)
            .map(|s| !self.slot_active(s))
            .collect();
        let extra_free = self.areas.extra.iter().flat_map(|a| a.free.iter());
        for s in self.swap_free.iter().chain(extra_free.copied()) {
            if std::mem::replace(&mut slot_seen[s as usize], true) {
                return Err(format!("swap slot {s} free twice"));
            }
        }
        for v in 0..self.shm as usize {
            let (s, at) = (self.anon.slot(v as u32), self.anon.at(v as u32));
            if (s != NONE) != (at & A_SLOT != 0) {
                return Err(format!("anon page {v}: slot flag disagrees with slot {s}"));
            }
            if at & A_IDX == A_OUT && s == NONE {
                return Err(format!("anon page {v} is neither in memory nor on swap"));
            }
            if s != NONE && std::mem::replace(&mut slot_seen[s as usize], true) {
                return Err(format!("swap slot {s} used twice"));
            }
            if s != NONE && self.slot_owner[s as usize] != v as u32 {
                return Err(format!(
                    "swap slot {s} does not point back to anon page {v}"
                ));
            }
        }
        if slot_seen.iter().any(|&x| !x) {
            return Err("a swap slot is lost".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A guest whose shared memory is larger than its storage swaps: a reference to a page on
    /// swap is a major fault, and reclaim writes pages out once the page cache is small.
    #[test]
    fn anonymous_memory_beyond_storage_swaps() {
        let (pages, kernel, shm, min) = (3000, 200, 3000, 40);
        let mut m = LinuxMemory::new(0, pages, kernel, shm, 5_000, min, 1000);
        m.warm(0..shm, |i| i);
        let cap = LinuxMemory::anon_capacity(pages, kernel, min);
        assert_eq!(m.anon(), cap as u64);
        assert_eq!(m.swap_used(), (shm - cap) as u64);
        m.check().unwrap();
        let mut faults = 0;
        for r in 0..20_000u32 {
            let v = (r * 7919) % shm;
            let (a, _) = m.anon_ref(v, r % 3 == 0);
            if let Anon::SwapIn { page, slot } = a {
                faults += 1;
                assert!(page >= kernel && page < pages);
                assert!(slot != NONE);
                m.swapin_started(v);
            }
            m.swap_out.clear();
            if m.needs_kswapd() {
                m.kswapd();
            }
        }
        assert!(faults > 1000, "faults {faults}");
        assert_eq!(m.pgmajfault, faults);
        assert!(m.pswpout > 0);
        m.check().unwrap();
    }

    /// vm_swap_full: a page read back from a more than half full swap gives up its slot.
    #[test]
    fn full_swap_frees_the_slot_on_swap_in() {
        let mut m = LinuxMemory::new(0, 1000, 100, 900, 10, 40, 900);
        m.warm(0..900, |i| i);
        assert!(m.vm_swap_full());
        let v = 899; // the coldest page, on swap
        let (a, _) = m.anon_ref(v, false);
        assert!(matches!(a, Anon::SwapIn { .. }));
        m.swapin_started(v);
        assert_eq!(m.anon.slot(v), NONE);
        m.check().unwrap();
    }
}
