//! DASD paging space: slots on the paging volumes, handed out a whole group (one paging block)
//! at a time so that a block page-out is one contiguous write; volumes are taken in turn. A
//! group returns to its volume's free list when its last live slot is released. A few groups
//! are kept in reserve so that CP can finish the page-outs under way when it finds paging
//! space full (z/VM then ends with abend PGT004). Once whole groups are down to the reserve,
//! blocks go into the free slots of used groups (smaller writes, as z/VM's blocks get smaller
//! when paging space fills); paging space is full when those are gone too.

use super::{PageWrite, Storage, CHANGED, NONE};

/// Largest paging block, in pages (`ModelParams::paging_block` is clamped to 1..=this).
/// Inference: no source gives z/VM's block size.
const PAGING_BLOCK_MAX: u32 = 64;
/// The reserve holds the page-outs of this many demand scans, each stealing up to the high
/// threshold of the available list. Inference.
const RESERVE_HIGH_MARKS: u64 = 4;
/// Slot groups added to the reserve beyond those scans (migration batches and the open
/// block). Inference.
const RESERVE_EXTRA_GROUPS: u64 = 256;
/// The reserve never exceeds this share (1/n) of all slot groups, so a small paging space is
/// still mostly usable. Inference.
const RESERVE_MAX_DIVISOR: u64 = 4;

/// Pages per paging block for the configured size.
pub(super) fn block_pages(configured: u32) -> u32 {
    // At least one page per block.
    configured.clamp(1, PAGING_BLOCK_MAX)
}

/// Slot groups kept back for the page-outs under way when paging space is found full.
pub(super) fn reserve_groups(high_mark: u32, block: u32, free_groups: u64) -> u64 {
    (RESERVE_HIGH_MARKS * high_mark as u64 / block as u64 + RESERVE_EXTRA_GROUPS)
        .min(free_groups / RESERVE_MAX_DIVISOR)
}

/// A paging volume's slots as QUERY ALLOC PAGE shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VolumeUsage {
    pub slots: u64,
    pub used: u64,
    pub high: u64,
}

impl Storage {
    /// Frames CP may page: central storage less its nucleus and fixed storage.
    pub fn pageable_frames(&self) -> u64 {
        self.pageable as u64
    }

    /// Each paging volume's slots, slots in use and high-water mark (one past the highest
    /// slot ever used, counted from the volume's first slot).
    pub fn volume_usage(&self) -> Vec<VolumeUsage> {
        (0..self.vol_free_groups.len())
            .map(|v| {
                let (a, b) = (self.vol_group_base[v], self.vol_group_base[v + 1]);
                VolumeUsage {
                    slots: (b - a) as u64 * self.block as u64,
                    used: self.vol_used[v],
                    high: self.vol_high[v] as u64,
                }
            })
            .collect()
    }

    /// Pages of a slot group that a block read brings in.
    pub fn group_live(&self, group: u32) -> u32 {
        self.group_slots(group).iter().filter(|&&s| s != 0).count() as u32
    }

    /// Slot group `group`'s entries of `slot_page`.
    #[inline]
    pub(super) fn group_slots(&self, group: u32) -> &[u32] {
        let b = self.block as usize;
        let base = group as usize * b;
        &self.slot_page[base..base + b]
    }

    /// Ask for slot group `group`'s entries ahead of a block read (a hint).
    #[inline]
    pub fn prefetch_group(&self, group: u32) {
        let i = group as usize * self.block as usize;
        crate::engine::prefetch::prefetch(&self.slot_page, i);
    }

    /// A page-out from central storage straight to DASD, in its space's next block.
    pub(super) fn page_out_to_dasd(&mut self, page: u32) {
        self.moved.ms_to_dasd += 1;
        self.queue_for_block(page);
    }

    /// Write the blocks collected so far, full or not.
    pub(super) fn flush_open_block(&mut self) {
        self.flush_open_blocks();
    }

    pub(super) fn write_block(&mut self, pages: &[u32]) {
        // Whole groups down to the reserve: the block goes into free slots of used groups.
        let pages = if self.free_groups <= self.reserve_groups {
            self.write_into_holes(pages)
        } else {
            pages
        };
        if pages.is_empty() {
            return;
        }
        let Some((vol, group)) = self.alloc_group() else {
            // No group left: only without any paging space (no reserve to finish the writes
            // under way); past the reserve otherwise cannot happen within the one event that
            // follows detection.
            self.lost_at_abend += pages.len() as u64;
            self.paging_full = true;
            return;
        };
        // Full when neither whole groups beyond the reserve nor holes for as many blocks
        // are left.
        if self.free_groups <= self.reserve_groups
            && self.hole_slots() < self.reserve_groups * self.block as u64
        {
            self.paging_full = true;
        }
        let base = group as usize * self.block as usize;
        for (k, &page) in pages.iter().enumerate() {
            self.place_on_slot(page, (base + k) as u32, vol);
        }
        self.writes.push(PageWrite {
            volume: vol,
            pages: pages.len() as u32,
            block: self.offset_on(vol, group),
        });
    }

    /// `page` goes to free slot `s` of volume `vol`.
    fn place_on_slot(&mut self, page: u32, s: u32, vol: u32) {
        self.slot_page[s as usize] = !page;
        self.set_slot(page as usize, s);
        self.pg[page as usize] &= !CHANGED;
        self.on_slot += 1;
        let g = self.space_of(page);
        self.space_slots[g] += 1;
        self.vol_used[vol as usize] += 1;
        self.moved_to_blocks += 1;
    }

    /// Free slots in groups that hold a page (a block write cannot have the group).
    pub(super) fn hole_slots(&self) -> u64 {
        let used_groups = self.slot_groups() as u64 - self.free_groups;
        used_groups * self.block as u64 - self.on_slot
    }

    /// Write `pages` into the free slots of used groups, the volumes in turn, each volume
    /// searched from where its last search stopped (z/VM writes where it finds free slots, so
    /// its blocks get smaller as paging space fills). Each group filled is one write, and its
    /// new pages join the group's block read. Returns the pages no hole was found for.
    fn write_into_holes<'a>(&mut self, pages: &'a [u32]) -> &'a [u32] {
        let b = self.block as usize;
        let nv = self.vol_free_groups.len();
        let mut rest = pages;
        let mut dry = 0;
        while !rest.is_empty() && dry < nv && self.hole_slots() > 0 {
            let v = self.next_vol % nv;
            self.next_vol = (v + 1) % nv;
            // Only groups below the volume's high-water mark were ever used.
            let span = self.vol_high[v].div_ceil(self.block);
            let lo = self.vol_group_base[v];
            let found = (0..span).find_map(|_| {
                let g = lo + self.hole_cursor[v] % span;
                self.hole_cursor[v] = (self.hole_cursor[v] + 1) % span;
                let free = self.group_slots(g).iter().filter(|&&e| e == 0).count();
                (free > 0 && free < b).then_some(g)
            });
            let Some(g) = found else {
                dry += 1;
                continue;
            };
            dry = 0;
            let base = g as usize * b;
            let holes: Vec<u32> = (base..base + b)
                .filter(|&s| self.slot_page[s] == 0)
                .map(|s| s as u32)
                .take(rest.len())
                .collect();
            for (&page, &s) in rest.iter().zip(&holes) {
                self.place_on_slot(page, s, v as u32);
            }
            self.writes.push(PageWrite {
                volume: v as u32,
                pages: holes.len() as u32,
                block: self.offset_on(v as u32, g) + (holes[0] as usize - base) as u64,
            });
            rest = &rest[holes.len()..];
        }
        rest
    }

    /// Warm start: resident pages of space `s` that came back from DASD and kept their slots,
    /// with whether the workload has changed them since. Written as blocks of the space,
    /// without I/O.
    pub fn warm_kept_slots(&mut self, s: super::SpaceId, pages: &[(u32, bool)]) {
        let base = self.space_base[s.0 as usize];
        let b = self.block.max(1) as usize;
        for chunk in pages.chunks(b) {
            let globals: Vec<u32> = chunk.iter().map(|&(p, _)| base + p).collect();
            self.write_block(&globals);
            for &(p, changed) in chunk {
                if changed {
                    self.pg[(base + p) as usize] |= CHANGED;
                }
            }
        }
        self.writes.clear();
    }

    /// A free slot group, taking volumes in turn so block writes spread over all of them.
    fn alloc_group(&mut self) -> Option<(u32, u32)> {
        let nv = self.vol_free_groups.len();
        for k in 0..nv {
            let v = (self.next_vol + k) % nv;
            if let Some(g) = self.vol_free_groups[v].pop() {
                self.next_vol = (v + 1) % nv;
                self.free_groups -= 1;
                let end = (g + 1 - self.vol_group_base[v]) * self.block;
                self.vol_high[v] = self.vol_high[v].max(end);
                return Some((v as u32, g));
            }
        }
        None
    }

    /// z/VM 6.3 and later: whether paging space is so full that a page read back gives up
    /// its slot although KEEPSLOT is YES (`ModelParams::keepslot_release_full`, an
    /// inference). Use counts whole groups, since a block write needs a free one.
    pub(super) fn keepslot_suspended(&self) -> bool {
        if self.aging.is_none() {
            return false;
        }
        let groups = self.slot_groups() as u64;
        let used = groups - self.free_groups;
        used as f64 >= self.p.keepslot_release_full * groups as f64
    }

    /// Demand scan looked at `page`'s storage key (`w`: its word before): a changed page's
    /// slot holds an obsolete copy, and with `stale_slot_scan_release` CP frees it now.
    #[inline]
    pub(super) fn scan_saw_key(&mut self, page: u32, w: u64) {
        if self.stale_scan_release && w & CHANGED != 0 {
            let s = self.slot(page as usize);
            if s != NONE {
                self.release_slot(page, s);
                self.moved.stale_slots_released += 1;
            }
        }
    }

    pub(super) fn release_slot(&mut self, page: u32, s: u32) {
        self.slot_page[s as usize] = !NONE;
        self.set_slot(page as usize, NONE);
        self.on_slot -= 1;
        let g = self.space_of(page);
        self.space_slots[g] -= 1;
        let g = s / self.block;
        let v = self.volume_of_group(g) as usize;
        self.vol_used[v] -= 1;
        if self.group_slots(g).iter().all(|&e| e == 0) {
            // The whole group is free again: a block write can reuse it.
            self.vol_free_groups[v].push(g);
            self.free_groups += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, write_pages};
    use super::*;
    use crate::config::scenario::ZvmLevel;

    /// Three paging volumes of 256 slots (32 groups of 8 each), no XSTOR.
    fn storage() -> Storage {
        test_util::storage(ZvmLevel::V5R3, 512, 0, &[256, 256, 256], &[1024])
    }

    #[test]
    fn a_block_write_takes_a_whole_group_volumes_in_turn() {
        let mut st = storage();
        assert_eq!(st.block, 8);
        for k in 0..4u32 {
            let pages: Vec<u32> = (k * 8..k * 8 + 8).collect();
            st.write_block(&pages);
        }
        let vols: Vec<u32> = st.writes.iter().map(|w| w.volume).collect();
        assert_eq!(vols, [0, 1, 2, 0]);
        assert!(st.writes.iter().all(|w| w.pages == 8));
        // Each volume's lowest free group first: groups 0, 32, 64, then 1.
        for (k, group) in [0u32, 32, 64, 1].into_iter().enumerate() {
            assert_eq!(st.volume_of_group(group), vols[k]);
            assert_eq!(st.group_live(group), 8);
            for j in 0..8 {
                let page = k as u32 * 8 + j;
                assert_eq!(st.slot(page as usize), group * 8 + j);
            }
        }
        assert_eq!(st.free_groups, 96 - 4);
    }

    #[test]
    fn steals_without_xstor_write_whole_blocks_round_robin() {
        let mut st = storage();
        write_pages(&mut st, 0..600);
        assert!(st.writes.len() > 3);
        for (k, w) in st.writes.iter().enumerate() {
            assert_eq!(w.volume, k as u32 % 3, "write {k}");
        }
        // Demand scan flushes its last, partial block; the others are full.
        let full = st.writes.iter().filter(|w| w.pages == st.block).count();
        assert!(full >= st.writes.len() / 2);
        let written: u64 = st.writes.iter().map(|w| w.pages as u64).sum();
        assert_eq!(written, st.on_dasd());
        // Each volume's slots in use are its blocks' pages.
        for (v, u) in st.volume_usage().iter().enumerate() {
            let on_v: u64 = st
                .writes
                .iter()
                .filter(|w| w.volume == v as u32)
                .map(|w| w.pages as u64)
                .sum();
            assert_eq!(u.used, on_v, "volume {v}");
        }
        st.check_invariants().unwrap();
    }

    #[test]
    fn a_group_is_free_again_when_its_last_slot_is_released() {
        let mut st = storage();
        st.write_block(&[0, 1, 2]);
        st.write_block(&[3]);
        let group = st.slot(0) / st.block;
        let vol = st.volume_of_group(group) as usize;
        let (free_vol, free) = (st.vol_free_groups[vol].len(), st.free_groups);
        st.release_slot(0, st.slot(0));
        st.release_slot(1, st.slot(1));
        assert_eq!(st.group_live(group), 1);
        assert_eq!(st.vol_free_groups[vol].len(), free_vol);
        assert_eq!(st.free_groups, free);
        st.release_slot(2, st.slot(2));
        assert_eq!(st.group_live(group), 0);
        assert_eq!(st.vol_free_groups[vol].peek(), Some(group));
        assert_eq!(st.free_groups, free + 1);
        assert_eq!(st.on_dasd(), 1);
        // QUERY ALLOC PAGE's USED per volume: page 3's slot only, on the second volume.
        let used: Vec<u64> = st.volume_usage().iter().map(|u| u.used).collect();
        assert_eq!(used, [0, 1, 0]);
        // The next write on that volume reuses the group.
        st.next_vol = vol;
        st.write_block(&[4]);
        assert_eq!(st.slot(4) / st.block, group);
    }

    #[test]
    fn paging_space_full_is_pgt004_after_the_reserve_not_before() {
        // One volume of 2,048 slots: 256 groups, a quarter of them reserve.
        let mut st = test_util::storage(ZvmLevel::V5R3, 512, 0, &[2048], &[4096]);
        assert_eq!(st.reserve_groups, 64);
        let mut page = 0;
        while !st.paging_full {
            assert!(st.free_groups > st.reserve_groups);
            write_pages(&mut st, page..page + 1);
            page += 1;
            assert!(page < 4096, "paging space never filled");
        }
        assert!(st.free_groups <= st.reserve_groups);
        // Detected within the reserve: no page was lost.
        assert_eq!(st.touched(), st.resident() + st.on_dasd());
        st.check_invariants().unwrap();
        // With no group left at all, a block write has nowhere to go.
        let mut st = test_util::storage(ZvmLevel::V5R3, 512, 0, &[], &[256]);
        assert!(!st.paging_full);
        st.write_block(&[0]);
        assert!(st.paging_full);
        assert!(st.writes.is_empty());
    }

    #[test]
    fn past_the_reserve_a_block_fills_the_holes_of_used_groups() {
        // One volume of 2,048 slots: 256 groups of 8, 64 of them reserve. One-page blocks
        // take 192 groups and leave 7 holes in each.
        let mut st = test_util::storage(ZvmLevel::V5R3, 512, 0, &[2048], &[4096]);
        for page in 0..192 {
            st.write_block(&[page]);
        }
        st.writes.clear();
        assert_eq!(st.free_groups, st.reserve_groups);
        assert_eq!(st.hole_slots(), 192 * 7);
        // An eight-page block: seven pages into the first group with holes, one into the
        // next; no whole group is taken, and each group is one write.
        let block: Vec<u32> = (192..200).collect();
        st.write_block(&block);
        assert_eq!(st.free_groups, st.reserve_groups);
        assert!(!st.paging_full);
        let written: Vec<u32> = st.writes.iter().map(|w| w.pages).collect();
        assert_eq!(written, [7, 1]);
        assert_eq!(st.slot(192) / st.block, st.slot(0) / st.block);
        assert_eq!(st.group_live(st.slot(0) / st.block), 8);
        assert_eq!(st.hole_slots(), 192 * 7 - 8);
        assert_eq!(st.volume_usage()[0].used, 200);
        // Holes taken to the last: only then do the reserve's groups go, and that is PGT004.
        let mut page = 200;
        while st.hole_slots() > 0 {
            st.write_block(&[page]);
            page += 1;
            assert!(!st.paging_full && st.free_groups == st.reserve_groups);
        }
        assert_eq!(page, 192 * 8);
        st.write_block(&[page]);
        assert!(st.paging_full);
        assert_eq!(st.free_groups, st.reserve_groups - 1);
        assert_eq!(st.volume_usage()[0].used, 192 * 8 + 1);
    }
}
