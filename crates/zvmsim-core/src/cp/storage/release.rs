//! DIAGNOSE X'10' (release pages): the guest tells CP it no longer needs a page, as the cmm
//! balloon does for each page it takes. CP drops the page wherever it is, without writing it:
//! its frame goes to the available list, its XSTOR block and DASD slot are freed. The page is
//! then as if never touched: a later reference is a first use with a fresh cleared frame.

use super::{CpWork, Space, Storage, CHANGED, FRAMES_BELOW_2G, NONE, PLACE, REF, SEG_PAGES};

/// The list of segments whose last resident page left is pruned when it grows past this many
/// times the number of segments (the same bound demand scan applies). Inference: a memory
/// bound.
const EMPTY_SEGS_BOUND: usize = 2;

impl Storage {
    /// DIAGNOSE X'10' for `page` of address space `s`. Returns whether the page had a place
    /// (a frame, an XSTOR block or a slot); a page never touched, or released already, costs
    /// CP the diagnose only.
    pub fn release_page(&mut self, s: Space, page: u32, cp: &mut CpWork) -> bool {
        // Page-outs are collected and written within one demand scan: none is open between
        // two calls, so no page is in flight between a frame and its slot.
        debug_assert!(!self.blocks_open());
        cp.ns += self.p.cp_diag10_page.ns();
        let page = s.base + page;
        let i = page as usize;
        let g = self.space_of(page);
        let mut had = false;
        if let Some(f) = self.held_frame(i) {
            had = true;
            self.agelist_unlink(f, page);
            self.resident -= 1;
            self.space_resident[g] -= 1;
            if f < FRAMES_BELOW_2G {
                self.resident_below -= 1;
                self.space_below[g] -= 1;
            }
            self.free_frame(f);
            let seg = i / SEG_PAGES as usize;
            self.seg_resident[seg] -= 1;
            if self.seg_resident[seg] == 0 {
                self.segment_emptied(seg);
            }
        }
        let b = self.xstor_block(i);
        if b != NONE {
            had = true;
            self.xstor.release(b);
            self.set_xstor_block(i, NONE);
            self.on_xstor -= 1;
            self.space_xstor[g] -= 1;
        }
        let slot = self.slot(i);
        if slot != NONE {
            had = true;
            self.release_slot(page, slot);
        }
        // Not resident, not referenced, nothing to write, no slot (released above): the state
        // of a page never used. The guest's CMMA page state is kept beside the word and stays.
        self.set_word(i, (self.word(i) | PLACE) & !(REF | CHANGED));
        if had {
            self.touched -= 1;
            self.moved.released += 1;
        }
        had
    }

    /// Segment `seg` has no resident page left: its PGMBK stays until demand scan pages it
    /// out, as after a steal.
    pub(super) fn segment_emptied(&mut self, seg: usize) {
        self.empty_segs.push(seg as u32);
        if self.empty_segs.len() > EMPTY_SEGS_BOUND * self.seg_pgmbk.len() {
            let (res, pg) = (&self.seg_resident, &self.seg_pgmbk);
            self.empty_segs
                .retain(|&x| res[x as usize] == 0 && pg[x as usize][0] != NONE);
            self.empty_segs.sort_unstable();
            self.empty_segs.dedup();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, write_pages};
    use super::super::{Access, SpaceId, Touch};
    use super::*;
    use crate::config::params::ModelParams;
    use crate::config::scenario::ZvmLevel;

    /// 448 pageable frames, 64 XSTOR blocks, one paging volume; two spaces of 1,024 pages.
    fn storage() -> Storage {
        test_util::storage(ZvmLevel::V5R3, 512, 64, &[4096], &[1024, 1024])
    }

    #[test]
    fn released_pages_leave_every_place_and_are_first_used_again() {
        let mut st = storage();
        write_pages(&mut st, 0..1024);
        st.check_invariants().unwrap();
        let sp = st.space(SpaceId(0));
        let (mut in_frame, mut in_xs, mut on_slot) = (None, None, None);
        for p in 0..1024 {
            if st.is_resident(SpaceId(0), p) && in_frame.is_none() {
                in_frame = Some(p);
            } else if st.page_in_xstor(SpaceId(0), p) && in_xs.is_none() {
                in_xs = Some(p);
            } else if !st.is_resident(SpaceId(0), p)
                && st.page_slot(SpaceId(0), p) != NONE
                && on_slot.is_none()
            {
                on_slot = Some(p);
            }
        }
        let pages = [in_frame.unwrap(), in_xs.unwrap(), on_slot.unwrap()];
        let before = st.space_locations(SpaceId(0));
        let (touched, avail) = (st.touched(), st.available());
        let writes = st.writes.len();
        let mut cp = CpWork::default();
        for &p in &pages {
            assert!(st.release_page(sp, p, &mut cp));
            assert!(!st.was_touched(SpaceId(0), p));
        }
        assert_eq!(cp.ns, 3 * ModelParams::default().cp_diag10_page.ns());
        let after = st.space_locations(SpaceId(0));
        assert_eq!(after.resident, before.resident - 1);
        assert_eq!(after.xstor, before.xstor - 1);
        assert_eq!(after.dasd, before.dasd - 1);
        assert_eq!(st.touched(), touched - 3);
        assert_eq!(
            st.available(),
            avail + 1,
            "the frame is on the available list"
        );
        assert_eq!(st.writes.len(), writes, "nothing written");
        assert_eq!(st.moved.released, 3);
        st.check_invariants().unwrap();
        // Released twice: nothing left to drop.
        assert!(!st.release_page(sp, pages[0], &mut cp));
        // Referenced again: a first use with a fresh frame.
        let first = st.moved.first_touch;
        for &p in &pages {
            assert_eq!(st.touch(sp, p, Access::Read, &mut cp), Touch::FirstUse);
        }
        assert_eq!(st.moved.first_touch, first + 3);
        st.check_invariants().unwrap();
    }

    /// Pages released while storage is overcommitted are never paged out: demand scan and
    /// migration find them gone, XSTOR and DASD receive only the other pages.
    #[test]
    fn a_released_page_is_never_written_to_xstor_or_dasd() {
        let mut st = storage();
        let mut cp = CpWork::default();
        let (s0, s1) = (st.space(SpaceId(0)), st.space(SpaceId(1)));
        // Space 0 writes its pages and releases each at once; space 1 overcommits storage.
        for p in 0..1024 {
            st.touch(s0, p, Access::Write, &mut cp);
            st.release_page(s0, p, &mut cp);
            st.touch(s1, p, Access::Write, &mut cp);
        }
        let l0 = st.space_locations(SpaceId(0));
        assert_eq!((l0.resident, l0.xstor, l0.dasd), (0, 0, 0));
        let l1 = st.space_locations(SpaceId(1));
        assert!(l1.xstor + l1.dasd > 0, "space 1 was paged: {l1:?}");
        let moved = st.moved.ms_to_xs + st.moved.ms_to_dasd;
        assert_eq!(moved, l1.xstor + st.moved.xs_to_dasd + st.moved.ms_to_dasd);
        for p in 0..1024 {
            assert!(!st.was_touched(SpaceId(0), p));
        }
        st.check_invariants().unwrap();
    }

    /// Counters equal the sums over pages after releases mixed with steals, migration and
    /// block page-ins.
    #[test]
    fn counters_equal_sums_over_pages_after_releases() {
        let mut st = storage();
        let mut cp = CpWork::default();
        let (s0, s1) = (st.space(SpaceId(0)), st.space(SpaceId(1)));
        write_pages(&mut st, 0..1024);
        for p in 0..1024 {
            st.touch(s1, p, Access::Write, &mut cp);
            if p % 3 == 0 {
                st.release_page(s0, p, &mut cp);
            }
            if p % 7 == 0 {
                if let Touch::OnDasd { group } = st.touch(s0, p + 1, Access::Read, &mut cp) {
                    st.complete_pagein(group, &mut cp);
                }
                st.release_page(s1, p / 2, &mut cp);
            }
            if p % 64 == 0 {
                st.check_invariants().unwrap();
            }
        }
        st.check_invariants().unwrap();
        let (l0, l1) = (
            st.space_locations(SpaceId(0)),
            st.space_locations(SpaceId(1)),
        );
        assert!(st.moved.released > 300);
        assert_eq!(st.resident(), l0.resident + l1.resident);
        assert_eq!(st.on_xstor(), l0.xstor + l1.xstor);
        assert_eq!(st.on_dasd(), l0.dasd + l1.dasd);
    }
}
