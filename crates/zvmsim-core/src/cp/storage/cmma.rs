//! CMMA, the collaborative memory management assist (z/VM 5.3 on System z9 and later; seed
//! 002's "Collaborative Memory Management Assist"; Linux's arch/s390/mm/page-states.c). A
//! guest that IPLs with `cmma=on` while CP's SET MEMASSIST is on for it tells the host the
//! state of each 4 KB page with the ESSA instruction:
//! * stable: the content matters (the default, and every page of a guest without CMMA);
//! * unused: Linux freed the page; its content does not matter;
//! * volatile: a clean page-cache page; Linux can read it again from disk.
//!
//! CP takes the frames of unused and volatile pages without writing them to XSTOR or DASD (and
//! drops any copy they have there). A later reference to an unused page gets a fresh frame
//! from the host page-management assist (HPMA) without a CP page fault; a reference to a
//! discarded volatile page is a discard fault the guest handles by dropping the page from its
//! page cache and reading the block again. The state is a byte per page beside the page word,
//! allocated when a guest first leaves the stable state, so that systems without CMMA pay
//! nothing and the page word keeps all its bits for the frame number (4 TB).

use super::{CpWork, Space, SpaceId, Storage, CP_OWNED, NONE};

/// The list of frames CP takes first is pruned of stale entries when it holds more than this
/// share (1/n) of all frames. A memory bound, no effect on results.
const CANDIDATES_BOUND_DIVISOR: usize = 4;

/// The guest state byte of a page: 0 stable.
const STABLE: u8 = 0;
/// Unused: freed by the guest.
pub(super) const UNUSED: u8 = 1;
/// Volatile: clean page-cache page.
pub(super) const VOLATILE: u8 = 2;

/// A page's state as the guest last set it with ESSA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestState {
    Stable,
    Unused,
    Volatile,
}

impl GuestState {
    fn bits(self) -> u8 {
        match self {
            GuestState::Stable => STABLE,
            GuestState::Unused => UNUSED,
            GuestState::Volatile => VOLATILE,
        }
    }
}

/// Per address space: pages in the unused and volatile states, and what CMMA did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CmmaCounts {
    pub unused: u64,
    pub volatile: u64,
    /// Frames (and XSTOR blocks) CP reclaimed without a page-out because the page was unused
    /// or volatile.
    pub reclaimed: u64,
    /// References to discarded volatile pages (discard faults presented to the guest).
    pub discards: u64,
    /// Unused pages reused with a fresh frame from the host page-management assist.
    pub hpma: u64,
}

impl Storage {
    /// The guest's CMMA state of page index `i` (stable where no state was ever set).
    #[inline]
    pub(super) fn guest_state(&self, i: usize) -> u8 {
        self.gstate.get(i).copied().unwrap_or(STABLE)
    }

    /// The guest sets the state of its page `page` (ESSA). Returns whether the page was a
    /// discarded volatile page: its content is gone, and the guest must rebuild it.
    pub fn set_guest_state(&mut self, s: Space, page: u32, state: GuestState) -> bool {
        let i = (s.base + page) as usize;
        let old = self.guest_state(i);
        let discarded = old == VOLATILE && self.has_no_place(i);
        let c = &mut self.cmma[s.id.0 as usize];
        match old {
            UNUSED => c.unused -= 1,
            VOLATILE => c.volatile -= 1,
            _ => {}
        }
        let new = state.bits();
        match new {
            UNUSED => c.unused += 1,
            VOLATILE => c.volatile += 1,
            _ => {}
        }
        if new != old {
            if self.gstate.len() <= i {
                // First non-stable state in this range: the bytes exist from now on for every
                // page (spaces added later grow them in add_space).
                self.gstate.resize(self.pg.len(), STABLE);
            }
            self.gstate[i] = new;
        }
        if let Some(f) = self.held_frame(i) {
            if self.taken_first(new) && !self.taken_first(old) {
                // CP takes such frames first (seed 002: CP "can select those pages for removal
                // at a higher priority").
                self.cmma_first.push_back(f);
                if self.cmma_first.len() > self.fr_page.len() / CANDIDATES_BOUND_DIVISOR {
                    self.prune_cmma_first();
                }
            }
        } else if new == UNUSED {
            // A freed page that CP had paged out: its copy is not needed any more.
            self.drop_backing(i as u32);
        }
        discarded
    }

    /// Whether demand scan takes a page in guest state `state` before its clock: an unused
    /// page always, a volatile one with `cmma_volatile_first`.
    #[inline]
    fn taken_first(&self, state: u8) -> bool {
        state == UNUSED || (state == VOLATILE && self.p.cmma_volatile_first)
    }

    /// Drop the candidates whose frame no longer holds a page demand scan takes first.
    fn prune_cmma_first(&mut self) {
        let volatile_too = self.p.cmma_volatile_first;
        let (fr, gs) = (&self.fr_page, &self.gstate);
        self.cmma_first.retain(|&f| {
            fr.get(f) < CP_OWNED
                && gs
                    .get(fr.get(f) as usize)
                    .is_some_and(|&s| s == UNUSED || (s == VOLATILE && volatile_too))
        });
    }

    /// Demand scan's first step with CMMA: take the frames of unused (and, with
    /// `cmma_volatile_first`, volatile) pages, oldest state change first, until the available
    /// list reaches `high`. No page-out is needed.
    pub(super) fn steal_cmma_first(&mut self, high: u64, cp: &mut CpWork) {
        while self.avail_free() < high {
            let Some(f) = self.cmma_first.pop_front() else {
                break;
            };
            let page = self.fr_page.get(f);
            if page >= CP_OWNED || !self.taken_first(self.guest_state(page as usize)) {
                continue;
            }
            self.moved.scanned += 1;
            cp.ns += self.p.cp_scan_frame.ns();
            self.steal(f, cp);
        }
    }

    /// Release the XSTOR block or DASD slot of a page that is not resident (CMMA: its
    /// content does not matter).
    fn drop_backing(&mut self, page: u32) {
        let i = page as usize;
        let g = self.space_of(page);
        let xb = self.xstor_block(i);
        if xb != NONE {
            self.xstor.release(xb);
            self.set_xstor_block(i, NONE);
            self.on_xstor -= 1;
            self.space_xstor[g] -= 1;
        } else if self.slot(i) != NONE {
            let s = self.slot(i);
            self.release_slot(page, s);
        } else {
            return;
        }
        self.touched -= 1;
        self.cmma[g].reclaimed += 1;
        self.moved.cmma_reclaimed += 1;
    }

    /// Forget what CMMA did so far (the warm start's history), keeping the page states.
    pub fn reset_cmma_counts(&mut self) {
        for c in &mut self.cmma {
            (c.reclaimed, c.discards, c.hpma) = (0, 0, 0);
        }
    }

    /// The page is a volatile page CP discarded: a reference would be a discard fault.
    #[inline]
    pub fn is_discarded(&self, s: Space, page: u32) -> bool {
        let i = (s.base + page) as usize;
        self.guest_state(i) == VOLATILE && self.has_no_place(i)
    }

    /// What CMMA did for space `s`.
    pub fn cmma_counts(&self, s: SpaceId) -> CmmaCounts {
        self.cmma[s.0 as usize]
    }

    #[inline]
    fn has_no_place(&self, i: usize) -> bool {
        self.held_frame(i).is_none() && self.xstor_block(i) == NONE && self.slot(i) == NONE
    }

    /// Steal's CMMA case: the page is unused or volatile, so its frame is taken without a
    /// write and any DASD copy is dropped. The caller frees the frame. Returns false for a
    /// stable page (steal pages it out as usual).
    #[inline]
    pub(super) fn reclaim_without_pageout(&mut self, page: u32, cp: &mut CpWork) -> bool {
        let i = page as usize;
        if self.guest_state(i) == STABLE {
            return false;
        }
        if self.slot(i) != NONE {
            let s = self.slot(i);
            self.release_slot(page, s);
        }
        self.touched -= 1;
        let g = self.space_of(page);
        self.cmma[g].reclaimed += 1;
        self.moved.cmma_reclaimed += 1;
        cp.ns += self.p.cp_cmma_reclaim.ns();
        true
    }

    /// Migration's CMMA case: an unused or volatile page in XSTOR is dropped, not moved to
    /// DASD. Returns whether it was.
    pub(super) fn drop_from_xstor(&mut self, page: u32) -> bool {
        let i = page as usize;
        if self.guest_state(i) == STABLE {
            return false;
        }
        self.touched -= 1;
        let g = self.space_of(page);
        self.cmma[g].reclaimed += 1;
        self.moved.cmma_reclaimed += 1;
        true
    }

    /// A reference found the page nowhere. A discarded volatile page is a discard fault (the
    /// guest normally checks first, see `is_discarded`; a reference that did not is counted and
    /// gets a fresh page); an unused one gets its frame from HPMA, without CP's fault path.
    /// Returns whether HPMA supplied the frame.
    #[inline]
    pub(super) fn first_use_state(&mut self, page: u32) -> bool {
        let i = page as usize;
        let st = self.guest_state(i);
        if st == STABLE {
            return false;
        }
        let g = self.space_of(page);
        if st == VOLATILE {
            self.cmma[g].discards += 1;
            false
        } else {
            self.cmma[g].hpma += 1;
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, frame_of, write_pages};
    use super::super::{Access, Touch};
    use super::*;
    use crate::config::params::ModelParams;
    use crate::config::scenario::ZvmLevel;

    fn storage() -> Storage {
        // 448 pageable frames, 16 XSTOR blocks, DASD behind: pages 0..600 overflow to DASD.
        test_util::storage(ZvmLevel::V5R3, 512, 16, &[4096], &[1024])
    }

    /// Unused and volatile pages are reclaimed without a page-out; a stable one is written.
    #[test]
    fn unused_and_volatile_frames_are_reclaimed_without_pageout() {
        let mut st = storage();
        let sp = st.space(SpaceId(0));
        write_pages(&mut st, 0..300);
        st.set_guest_state(sp, 10, GuestState::Unused);
        st.set_guest_state(sp, 11, GuestState::Volatile);
        let before = st.moved;
        let mut cp = CpWork::default();
        for p in [10, 11, 12] {
            st.steal(frame_of(&st, p), &mut cp);
        }
        assert_eq!(
            st.moved.ms_to_xs,
            before.ms_to_xs + 1,
            "only the stable page written"
        );
        assert_eq!(st.moved.cmma_reclaimed, before.cmma_reclaimed + 2);
        assert!(!st.page_in_xstor(SpaceId(0), 10) && !st.page_in_xstor(SpaceId(0), 11));
        assert!(st.page_in_xstor(SpaceId(0), 12));
        assert!(st.is_discarded(sp, 11));
        assert!(!st.is_discarded(sp, 10));
        let c = st.cmma_counts(SpaceId(0));
        assert_eq!((c.unused, c.volatile, c.reclaimed), (1, 1, 2));
        st.check_invariants().unwrap();
    }

    /// Demand scan's first step takes unused frames, and volatile ones only with
    /// `cmma_volatile_first`; without it a volatile page stays for the clock.
    #[test]
    fn volatile_pages_taken_first_only_when_configured() {
        for volatile_first in [true, false] {
            let p = ModelParams {
                cmma_volatile_first: volatile_first,
                ..ModelParams::default()
            };
            let mut st = test_util::with_params(ZvmLevel::V5R3, &p, 512, 16, &[4096], &[1024]);
            let sp = st.space(SpaceId(0));
            write_pages(&mut st, 0..300);
            st.set_guest_state(sp, 10, GuestState::Unused);
            st.set_guest_state(sp, 11, GuestState::Volatile);
            let mut cp = CpWork::default();
            let high = st.avail_free() + 2;
            st.steal_cmma_first(high, &mut cp);
            assert!(
                !st.is_resident(SpaceId(0), 10),
                "the unused page is taken first"
            );
            assert_eq!(
                st.is_resident(SpaceId(0), 11),
                !volatile_first,
                "volatile_first {volatile_first}"
            );
            st.check_invariants().unwrap();
        }
    }

    /// A reused unused page gets a frame from HPMA; a discarded volatile page, set stable by
    /// the guest, reports that its content is gone.
    #[test]
    fn reuse_after_reclaim() {
        let mut st = storage();
        let sp = st.space(SpaceId(0));
        write_pages(&mut st, 0..300);
        st.set_guest_state(sp, 10, GuestState::Unused);
        st.set_guest_state(sp, 11, GuestState::Volatile);
        let mut cp = CpWork::default();
        st.steal(frame_of(&st, 10), &mut cp);
        st.steal(frame_of(&st, 11), &mut cp);
        // The guest allocates page 10 again (stable) and uses it: a fresh frame, by HPMA.
        assert!(!st.set_guest_state(sp, 10, GuestState::Stable));
        st.set_guest_state(sp, 10, GuestState::Unused);
        assert_eq!(st.touch(sp, 10, Access::Write, &mut cp), Touch::FirstUse);
        assert_eq!(st.cmma_counts(SpaceId(0)).hpma, 1);
        // Page 11 was discarded: making it stable tells the guest so.
        assert!(st.set_guest_state(sp, 11, GuestState::Stable));
        assert!(!st.is_discarded(sp, 11));
        assert_eq!(st.touch(sp, 11, Access::Write, &mut cp), Touch::FirstUse);
        st.check_invariants().unwrap();
    }

    /// The state bytes cost nothing until a guest leaves the stable state, and then cover
    /// every page, including those of a space added later.
    #[test]
    fn state_bytes_exist_only_once_used() {
        let mut st = storage();
        let sp = st.space(SpaceId(0));
        write_pages(&mut st, 0..300);
        st.set_guest_state(sp, 5, GuestState::Stable);
        assert!(st.gstate.is_empty(), "a stable page needs no byte");
        st.set_guest_state(sp, 5, GuestState::Volatile);
        assert_eq!(st.gstate.len(), st.pg.len());
        assert_eq!(st.guest_state(5), VOLATILE);
        let added = st.add_space(
            super::super::SpaceSpec {
                owner: super::super::Owner::Guest(1),
                pages: 256,
            },
            false,
        );
        assert_eq!(st.gstate.len(), st.pg.len(), "grown with the new space");
        let sp2 = st.space(added);
        st.set_guest_state(sp2, 255, GuestState::Unused);
        assert_eq!(st.cmma_counts(added).unused, 1);
        st.check_invariants().unwrap();
    }

    /// An unused page in XSTOR is dropped when XSTOR migrates, never written to DASD.
    #[test]
    fn unused_pages_never_reach_dasd() {
        let mut st = storage();
        let sp = st.space(SpaceId(0));
        for p in 0..200 {
            st.set_guest_state(sp, p, GuestState::Unused);
        }
        write_pages(&mut st, 0..900);
        for p in 0..200 {
            assert_eq!(st.page_slot(SpaceId(0), p), NONE, "unused page {p} on DASD");
            assert!(!st.page_in_xstor(SpaceId(0), p), "unused page {p} in XSTOR");
        }
        assert!(st.moved.cmma_reclaimed > 0);
        st.check_invariants().unwrap();
    }
}
