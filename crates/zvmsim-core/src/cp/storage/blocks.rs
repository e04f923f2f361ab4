//! Block paging as IBM designed it for VM (US patent 4,967,353, Brenner and VanLeer, IBM,
//! 1990: "memory management and block paging in a control program"): pages found
//! unreferenced system-wide are grouped into blocks of pages *of one virtual machine* and
//! written together; a fault on any of them reads the whole block; and pages brought in with a
//! block but not referenced while resident are made available again on their own ("page
//! frames reallocated ... after being allocated", the patent's title).
//!
//! Two mechanisms follow:
//! - **Blocks per address space.** Each space has its own open block; a page-out joins its
//!   space's block, which is written when full (or at the end of the demand scan or migration
//!   batch that filled it). Blocks mixing guests would make every block read bring in pages of
//!   other guests that nobody is about to use.
//! - **Unreferenced companions.** The pages a block read validates besides the one that
//!   faulted are noted with a due point on the clock's travel; when demand scan runs past it
//!   and the page is still unreferenced, its frame is taken first. It still has its slot, so
//!   this needs no write. Without it such a page waits a whole revolution of the clock (13–17
//!   minutes in the ten-guest large-memory runs), and unreferenced companions filled over a
//!   quarter of central storage.

use super::{CpWork, Storage, CP_OWNED, REF};
use crate::engine::fifo::ChunkedFifo;
use crate::engine::prefetch::prefetch;

/// The companions past due are checked this many entries ahead of the one taken: their pages'
/// words and frames lie at random, so their misses overlap instead of following one another.
/// A hint only: results never depend on it.
const COMPANION_PREFETCH: usize = 12;

/// The companions waiting for their due point, oldest first: (page, frame) each, and the due
/// points as runs, since the companions of one block read share theirs and due points never
/// decrease (8 bytes a companion where a (page, frame, due) triple took 16).
#[derive(Debug, Clone, Default)]
pub(super) struct Companions {
    pages: ChunkedFifo<[u32; 2]>,
    /// (due point, companions with it).
    dues: ChunkedFifo<(u64, u32)>,
}

impl Companions {
    fn push_back(&mut self, page: u32, f: u32, due: u64) {
        self.pages.push_back([page, f]);
        match self.dues.back_mut() {
            Some((d, n)) if *d == due && *n > 0 => *n += 1,
            _ => self.dues.push_back((due, 1)),
        }
    }

    /// The oldest companion: (page, frame, due point).
    #[inline]
    fn front(&self) -> Option<(u32, u32, u64)> {
        let &[page, f] = self.pages.front()?;
        let &(due, _) = self.dues.front()?;
        Some((page, f, due))
    }

    /// The (page, frame) `k` entries behind the oldest.
    #[inline]
    fn peek(&self, k: usize) -> Option<[u32; 2]> {
        self.pages.get(k).copied()
    }

    fn pop_front(&mut self) {
        if self.pages.pop_front().is_some() {
            let ended = match self.dues.front() {
                Some(&(_, n)) => n <= 1,
                None => false,
            };
            if ended {
                self.dues.pop_front();
            } else if let Some((_, n)) = self.dues.front_mut() {
                *n -= 1;
            }
        }
    }
}

impl Storage {
    /// Queue `page` (already off its frame or XSTOR block) for a DASD block of its own space.
    pub(super) fn queue_for_block(&mut self, page: u32) {
        let g = self.space_of(page);
        let open = &mut self.open_blocks[g];
        if open.is_empty() {
            self.open_spaces.push(g as u32);
        }
        open.push(page);
        if open.len() as u32 >= self.block {
            self.write_open_block(g);
        }
    }

    /// Write space `g`'s open block (its buffer is kept for the next one).
    fn write_open_block(&mut self, g: usize) {
        let pages = std::mem::take(&mut self.open_blocks[g]);
        if !pages.is_empty() {
            self.write_block(&pages);
        }
        self.open_blocks[g] = pages;
        self.open_blocks[g].clear();
    }

    /// Write every open block, full or not: the demand scan or migration batch that collected
    /// them is over, and no page may stay between two places.
    pub(super) fn flush_open_blocks(&mut self) {
        let spaces = std::mem::take(&mut self.open_spaces);
        for &g in &spaces {
            self.write_open_block(g as usize);
        }
        self.open_spaces = spaces;
        self.open_spaces.clear();
    }

    /// Whether any page is waiting in an open block.
    pub(super) fn blocks_open(&self) -> bool {
        !self.open_spaces.is_empty()
    }

    /// A block read made `page` resident in frame `f` without a reference to it (yet).
    pub(super) fn note_companion(&mut self, page: u32, f: u32) {
        let due = match (self.companion_ns, self.companion_window) {
            (0, 0) => return,
            (0, w) => self.clock_travel + w,
            (t, _) => self.now_ns + t,
        };
        self.companions.push_back(page, f, due);
    }

    /// Take the frames of block-read companions that are past their due point and still
    /// unreferenced, oldest first, until the available list reaches `high`. Each one taken
    /// counts in the clock's travel: in CP it is a frame demand scan passed on its lists, and
    /// without it the hand stood still while due companions met every demand, so their window
    /// stretched with no bound in time (docs/storage.md, "Block paging").
    pub(super) fn steal_unreferenced_companions(&mut self, high: u64, cp: &mut CpWork) {
        while self.avail_free() < high {
            let Some((page, f, due)) = self.companions.front() else {
                break;
            };
            if due > self.companion_clock() {
                break;
            }
            if let Some([p, pf]) = self.companions.peek(COMPANION_PREFETCH) {
                self.fr_page.prefetch(pf);
                if p < CP_OWNED {
                    prefetch(&self.pg, p as usize);
                }
            }
            self.companions.pop_front();
            // Stale when the page left that frame since (stolen, released) or was referenced.
            if self.fr_page.get(f) != page || page >= CP_OWNED || self.place(page as usize) != f {
                continue;
            }
            let w = self.pg[page as usize];
            if w & REF != 0 {
                if self.slot_until_ref {
                    self.give_up_kept_slot(page);
                } else {
                    self.scan_saw_key(page, w);
                }
                continue;
            }
            self.moved.scanned += 1;
            self.clock_travel += 1;
            self.moved.companions_stolen += 1;
            cp.ns += self.p.cp_scan_frame.ns();
            self.steal(f, cp);
        }
        // Entries past due whose pages have left their frames (stolen, released or moved)
        // are dropped as the front is reached; the queue holds at most one window's companions.
        while self.companions.front().is_some_and(|(page, f, due)| {
            due <= self.companion_clock() && self.fr_page.get(f) != page
        }) {
            self.companions.pop_front();
        }
    }
}

impl Storage {
    /// What the companions' due points are reckoned in: simulated time with a period set,
    /// else the clock's travel.
    #[inline]
    fn companion_clock(&self) -> u64 {
        if self.companion_ns > 0 {
            self.now_ns
        } else {
            self.clock_travel
        }
    }

    /// A block-read page found referenced gives up the slot it kept (stale or not: the storage
    /// key CP tests holds the change bit beside the reference bit): it is an ordinary changed
    /// page again, to be written with the pages referenced in its period when next stolen.
    fn give_up_kept_slot(&mut self, page: u32) {
        let s = self.slot(page as usize);
        if s != super::NONE {
            self.release_slot(page, s);
            self.pg[page as usize] |= super::CHANGED;
        }
    }
}

/// The clock travel after which an unreferenced companion is taken: `window` revolutions of a
/// clock over `frames` frames (0 turns the mechanism off).
pub(super) fn companion_window(window: f64, frames: u32) -> u64 {
    if window.is_finite() && window > 0.0 {
        ((window * frames as f64) as u64).max(1)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, write_pages};
    use super::super::{Access, SpaceId, Touch, NONE};
    use super::*;
    use crate::config::params::ModelParams;
    use crate::config::scenario::ZvmLevel;

    #[test]
    fn blocks_hold_pages_of_one_space_only() {
        // Two guests, no XSTOR: demand scan's page-outs are grouped by guest.
        let mut st = test_util::storage(ZvmLevel::V5R3, 512, 0, &[4096], &[1024, 1024]);
        let mut cp = CpWork::default();
        for k in 0..800u32 {
            let s = SpaceId(k % 2);
            st.touch(st.space(s), k / 2, Access::Write, &mut cp);
        }
        assert!(st.writes.len() > 4);
        for group in 0..st.slot_groups() as u32 {
            let spaces: std::collections::BTreeSet<usize> = (0..st.block)
                .map(|j| !st.slot_page[(group * st.block + j) as usize])
                .filter(|&p| p != NONE)
                .map(|p| st.space_of(p))
                .collect();
            assert!(spaces.len() <= 1, "group {group} mixes spaces {spaces:?}");
        }
        assert!(!st.blocks_open());
        st.check_invariants().unwrap();
    }

    #[test]
    fn an_unreferenced_companion_is_taken_after_its_window_a_referenced_one_is_not() {
        let p = travel_window();
        let mut st = test_util::with_params(ZvmLevel::V5R3, &p, 512, 0, &[4096], &[2048]);
        write_pages(&mut st, 0..1200);
        // Page 0 went to DASD with its block: read the block back.
        let Touch::OnDasd { group } = st.touch(
            st.space(SpaceId(0)),
            0,
            Access::Read,
            &mut CpWork::default(),
        ) else {
            panic!("page 0 not on DASD");
        };
        let mut cp = CpWork::default();
        let n = st.complete_pagein(group, &mut cp);
        assert!(n > 2, "block brought {n} pages");
        let companions: Vec<u32> = (0..st.block)
            .map(|j| !st.slot_page[(group * st.block + j) as usize])
            .filter(|&p| p != NONE && p != 0)
            .collect();
        // The faulting page and one companion are referenced; the others are not.
        st.touch(st.space(SpaceId(0)), 0, Access::Read, &mut cp);
        let used = companions[0];
        st.touch(st.space(SpaceId(0)), used, Access::Read, &mut cp);
        let steals_before = st.moved.companions_stolen;
        // Run the clock well past the window.
        write_pages(&mut st, 1200..2048);
        assert_eq!(
            st.moved.companions_stolen - steals_before,
            companions.len() as u64 - 1
        );
        for &c in &companions[1..] {
            assert!(
                !st.is_resident(SpaceId(0), c),
                "companion {c} still resident"
            );
            // Taken without a write: it kept its slot.
            assert_ne!(st.page_slot(SpaceId(0), c), NONE);
        }
        st.check_invariants().unwrap();
    }

    /// Companions due after a quarter revolution of the clock's travel (no period): the rule
    /// before `block_companion_period`, still the one with a period of 0.
    fn travel_window() -> ModelParams {
        ModelParams {
            block_companion_window: 0.25,
            block_companion_period: crate::config::units::Duration(0),
            ..ModelParams::default()
        }
    }

    /// Pages written out, then page 0's block read back at simulated time `now` and page 0
    /// referenced: the storage, the CP work and the pages the block brought.
    fn companions_read_at(p: &ModelParams, now: u64) -> (Storage, CpWork, u64) {
        let mut st = test_util::with_params(ZvmLevel::V5R3, p, 512, 0, &[4096], &[2048]);
        write_pages(&mut st, 0..1200);
        let mut cp = CpWork::default();
        st.now_ns = now;
        let Touch::OnDasd { group } = st.touch(st.space(SpaceId(0)), 0, Access::Read, &mut cp)
        else {
            panic!("page 0 not on DASD");
        };
        let n = st.complete_pagein(group, &mut cp) as u64;
        assert!(n > 2, "block brought {n} pages");
        st.touch(st.space(SpaceId(0)), 0, Access::Read, &mut cp);
        (st, cp, n)
    }

    #[test]
    fn taking_a_companion_moves_the_hand_on() {
        // A companion taken at its due point is a frame demand scan passed: the clock's travel
        // counts it, so later companions fall due even while companions meet every demand.
        let p = travel_window();
        let (mut st, mut cp, n) = companions_read_at(&p, 0);
        // Every companion past its due point; the hand has not moved since.
        st.clock_travel += st.companion_window;
        let (travel, stolen) = (st.clock_travel, st.moved.companions_stolen);
        st.steal_unreferenced_companions(u64::MAX, &mut cp);
        let taken = st.moved.companions_stolen - stolen;
        assert_eq!(taken, n - 1, "all but the faulting page");
        assert_eq!(st.clock_travel - travel, taken);
        st.check_invariants().unwrap();
    }

    #[test]
    fn with_a_period_companions_fall_due_by_time_not_by_the_hand() {
        let p = ModelParams {
            block_companion_period: crate::config::units::Duration(1_000_000_000),
            ..ModelParams::default()
        };
        let (mut st, mut cp, n) = companions_read_at(&p, 5_000_000_000);
        // The hand has gone round many times, but only 0.999 s have passed: none is due.
        st.clock_travel += 100 * st.companion_window;
        st.now_ns += 999_999_999;
        let stolen = st.moved.companions_stolen;
        st.steal_unreferenced_companions(u64::MAX, &mut cp);
        assert_eq!(st.moved.companions_stolen, stolen);
        // A second after the read, all but the faulting page are taken.
        st.now_ns += 1;
        st.steal_unreferenced_companions(u64::MAX, &mut cp);
        assert_eq!(st.moved.companions_stolen - stolen, n - 1);
        st.check_invariants().unwrap();
    }

    #[test]
    fn a_companion_found_referenced_gives_up_its_slot_unless_kept_for_good() {
        for until_referenced in [true, false] {
            let p = ModelParams {
                slot_until_referenced: until_referenced,
                ..ModelParams::default()
            };
            let (mut st, mut cp, _) = companions_read_at(&p, 0);
            let space = SpaceId(0);
            let companions: Vec<u32> = (1..1200u32)
                .filter(|&c| st.is_resident(space, c) && st.page_slot(space, c) != NONE)
                .collect();
            assert!(companions.len() > 1, "{companions:?}");
            let used = companions[0];
            st.touch(st.space(space), used, Access::Read, &mut cp);
            st.now_ns += st.p.block_companion_period.ns();
            st.steal_unreferenced_companions(u64::MAX, &mut cp);
            // The referenced companion stays resident; its slot goes only until referenced.
            assert!(st.is_resident(space, used));
            assert_eq!(st.page_slot(space, used) == NONE, until_referenced);
            // The unreferenced ones are taken without a write, keeping their slots.
            for &c in &companions[1..] {
                assert!(!st.is_resident(space, c), "companion {c} still resident");
                assert_ne!(st.page_slot(space, c), NONE);
            }
            st.check_invariants().unwrap();
        }
    }
}
