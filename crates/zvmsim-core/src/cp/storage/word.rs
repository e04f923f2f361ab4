//! The page word's fields (their layout is beside the constants in mod.rs): a page's place —
//! valid frame, XSTOR block, or the frame it keeps on the aging list — and its DASD slot, read
//! and written here only, so that every mechanism sees one meaning of each bit.

use super::{Storage, AGED, FMASK, FRAME_NONE, NONE, PLACE, SLOT_FIELD, SLOT_SHIFT, WORD_NONE};

impl Storage {
    /// Page index `i`'s word as the layout in mod.rs gives it. The array holds it with the
    /// place and slot fields complemented, so that a page never used is a zero word: the array
    /// is mapped zeroed and costs no memory (nor a fill at IPL) until pages are used. The flag
    /// bits are stored as they are, so flag updates need no conversion.
    #[inline]
    pub(super) fn word(&self, i: usize) -> u64 {
        self.pg[i] ^ WORD_NONE
    }

    /// Page index `i`'s word is now `w` (in the layout of mod.rs).
    #[inline]
    pub(super) fn set_word(&mut self, i: usize, w: u64) {
        self.pg[i] = w ^ WORD_NONE;
    }

    /// The XSTOR block holding page index `i` (NONE: none, or no expanded storage at all).
    #[inline]
    pub(super) fn xstor_block(&self, i: usize) -> u32 {
        match self.place(i) {
            FRAME_NONE => NONE,
            f if f >= self.xs_base => f - self.xs_base,
            _ => NONE,
        }
    }

    /// Page index `i`, not resident, is now in XSTOR block `b` (NONE: in none).
    #[inline]
    pub(super) fn set_xstor_block(&mut self, i: usize, b: u32) {
        let place = if b == NONE {
            FRAME_NONE
        } else {
            self.xs_base + b
        };
        self.set_place(i, place);
    }

    /// Page index `i`'s place as the page table sees it: its valid frame, its XSTOR block (past
    /// `xs_base`) or FRAME_NONE (not resident, or invalid on the aging list).
    #[inline]
    pub(super) fn place(&self, i: usize) -> u32 {
        let w = self.word(i);
        if w & AGED != 0 {
            FRAME_NONE
        } else {
            w as u32 & FMASK
        }
    }

    /// Page index `i` is now at `place`; its flags and slot stay.
    #[inline]
    pub(super) fn set_place(&mut self, i: usize, place: u32) {
        self.set_word(i, (self.word(i) & !PLACE) | place as u64);
    }

    /// Page index `i`'s DASD slot (NONE: none).
    #[inline]
    pub(super) fn slot(&self, i: usize) -> u32 {
        match (self.word(i) >> SLOT_SHIFT) & SLOT_FIELD {
            SLOT_FIELD => NONE,
            s => s as u32,
        }
    }

    /// Page index `i` now holds slot `s` (NONE: none).
    #[inline]
    pub(super) fn set_slot(&mut self, i: usize, s: u32) {
        let v = if s == NONE { SLOT_FIELD } else { s as u64 };
        self.set_word(
            i,
            (self.word(i) & !(SLOT_FIELD << SLOT_SHIFT)) | (v << SLOT_SHIFT),
        );
    }

    /// The frame page `i` holds: its valid frame, or the one it keeps on the aging list.
    #[inline]
    pub(super) fn held_frame(&self, i: usize) -> Option<u32> {
        match self.word(i) as u32 & FMASK {
            f if f < self.xs_base => Some(f),
            _ => None,
        }
    }

    /// The frame page `i` keeps on the aging list, if it is on it.
    #[inline]
    pub(super) fn aged_frame(&self, i: usize) -> Option<u32> {
        let w = self.word(i);
        (w & AGED != 0).then_some(w as u32 & FMASK)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, write_pages};
    use super::super::{
        Access, CpWork, GuestState, SpaceId, Touch, CHANGED, MAX_SLOTS, REF, WORD_NONE,
    };
    use super::*;
    use crate::config::agelist::{AgelistSettings, AgelistSize};
    use crate::config::scenario::ZvmLevel;
    use crate::config::units::Size;

    /// z/VM 7.1: 448 pageable frames, no XSTOR, one paging volume, one space of 2,048 pages,
    /// pages 0-299 written and the 40 at the heads of the frame-owned list invalidated, the
    /// head share of the aging list written early.
    fn aged() -> Storage {
        let mut st = test_util::storage(ZvmLevel::V7R1, 512, 0, &[8192], &[2048]);
        st.set_agelist(AgelistSettings {
            size: AgelistSize::Storage(Size(40 * 4096)),
            early_writes: true,
            keep_slot: true,
        });
        write_pages(&mut st, 0..300);
        let mut cp = CpWork::default();
        // The available list is above its high threshold: the visit only fills the list, and
        // early writes clean its head share.
        st.agelist_replenish(&mut cp);
        st.writes.clear();
        st.check_invariants().unwrap();
        st
    }

    /// The first page on the aging list with a slot (written early).
    fn aged_with_slot(st: &Storage) -> u32 {
        (0..300u32)
            .find(|&p| st.aged_frame(p as usize).is_some() && st.slot(p as usize) != NONE)
            .expect("an aged page written early")
    }

    #[test]
    fn the_slot_field_leaves_the_place_and_the_aged_bit_alone() {
        let mut st = aged();
        let p = aged_with_slot(&st) as usize;
        let (f, w) = (st.aged_frame(p).unwrap(), st.pg[p]);
        let s = st.slot(p);
        // The largest slot a word can name, then none, then the old one back.
        for x in [MAX_SLOTS as u32 - 1, NONE, s] {
            st.set_slot(p, x);
            assert_eq!(st.slot(p), x);
            assert_eq!(st.aged_frame(p), Some(f));
            assert_eq!(st.place(p), FRAME_NONE);
            assert_eq!(st.held_frame(p), Some(f));
            assert_eq!(st.pg[p] & (REF | CHANGED), w & (REF | CHANGED));
        }
        assert_eq!(st.pg[p], w);
    }

    #[test]
    fn diagnose_x10_on_an_aged_page_leaves_the_word_unused() {
        let mut st = aged();
        let page = aged_with_slot(&st);
        let f = st.aged_frame(page as usize).unwrap();
        let sp = st.space(SpaceId(0));
        let (resident, slots) = (st.resident(), st.on_dasd());
        let mut cp = CpWork::default();
        assert!(st.release_page(sp, page, &mut cp));
        assert_eq!(st.word(page as usize), WORD_NONE);
        assert_eq!(st.fr_page.get(f), NONE, "the frame is free");
        assert_eq!((st.resident(), st.on_dasd()), (resident - 1, slots - 1));
        st.check_invariants().unwrap();
        // The next reference is a first use, not a revalidation of the freed frame.
        assert_eq!(st.touch(sp, page, Access::Read, &mut cp), Touch::FirstUse);
        st.check_invariants().unwrap();
    }

    #[test]
    fn cmma_takes_an_aged_page_and_leaves_the_word_unused() {
        let mut st = aged();
        let page = aged_with_slot(&st);
        let sp = st.space(SpaceId(0));
        st.set_guest_state(sp, page, GuestState::Unused);
        let mut cp = CpWork::default();
        st.steal_cmma_first(u64::MAX, &mut cp);
        assert_eq!(st.moved.cmma_reclaimed, 1);
        assert_eq!(st.word(page as usize), WORD_NONE);
        st.check_invariants().unwrap();
        // HPMA supplies a fresh frame on reuse.
        assert_eq!(st.touch(sp, page, Access::Write, &mut cp), Touch::FirstUse);
        assert_eq!(st.cmma_counts(SpaceId(0)).hpma, 1);
        st.check_invariants().unwrap();
    }

    #[test]
    fn a_page_in_past_the_threshold_takes_the_kept_slot_of_an_aged_page_and_leaves_it_aged() {
        let mut st = aged();
        let page = aged_with_slot(&st);
        let f = st.aged_frame(page as usize).unwrap();
        let group = st.slot(page as usize) / st.block;
        // Steal one page of the group (unchanged, so it keeps its slot) to read it back.
        let other = (0..300u32)
            .find(|&p| {
                p != page && st.slot(p as usize) != NONE && st.slot(p as usize) / st.block == group
            })
            .expect("another page of the group");
        let mut cp = CpWork::default();
        let fo = st.held_frame(other as usize).unwrap();
        st.steal(fo, &mut cp);
        assert!(st.held_frame(other as usize).is_none());
        st.p.keepslot_release_full = 1e-9;
        st.complete_pagein(group, &mut cp);
        // Still on the aging list in its frame, no slot, its frame the only copy.
        assert_eq!(st.aged_frame(page as usize), Some(f));
        assert_eq!(st.slot(page as usize), NONE);
        assert_ne!(st.pg[page as usize] & CHANGED, 0);
        st.check_invariants().unwrap();
        // Reclaimed, it is written again.
        let out = st.moved.ms_to_dasd;
        st.steal(f, &mut cp);
        st.flush_open_block();
        assert_eq!(st.moved.ms_to_dasd, out + 1);
        assert_ne!(st.slot(page as usize), NONE);
        assert_eq!(st.pg[page as usize] & AGED, 0);
        st.check_invariants().unwrap();
    }
}
