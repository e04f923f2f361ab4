//! Demand scan: when the available list falls below its low threshold, CP steals frames until
//! it reaches the high threshold. A clock hand over all frames stands for CP's passes over the
//! users' frame-owned lists: a referenced frame has its reference bit reset and is spared, an
//! unreferenced one is stolen. z/VM 5.2 also scans for frames below 2 GB when it lacks a free
//! pair there for a PGMBK.

use super::cmma;
use super::{CpWork, Storage, CHANGED, CP_OWNED, FRAMES_BELOW_2G, NONE, PLACE, REF, SEG_PAGES};

/// Demand scan examines at most this many times the frames of storage before giving up: CP's
/// two regular passes and its emergency pass (demand-scan record description of the CA MICS
/// documentation; IBM's z/VM 6.3 performance report on the scan it replaced).
const SCAN_PASSES: u64 = 3;
/// Referenced frames are spared (their reference bit reset) during this many passes' worth of
/// examinations; the emergency pass after them steals referenced frames too. Same sources as
/// `SCAN_PASSES`.
const SELECTIVE_PASSES: u64 = 2;
/// z/VM 5.2's scan for frames below 2 GB wants at least this many. Inference (the high
/// threshold scaled to the share of storage below 2 GB can round to a few frames).
const BELOW_2G_WANT_MIN: u64 = 64;
/// One scan below 2 GB examines at most this many frames per frame it wants, as a demand-scan
/// pass covers a bounded share of the lists. Inference.
const BELOW_2G_EXAMINE_FACTOR: u64 = 16;

/// The hand asks for the page words of the frame this far ahead: the frame table is read in
/// order, the page words at random, so their misses overlap instead of following one another.
/// A hint only: results never depend on it.
const SCAN_PREFETCH: u32 = 16;

impl Storage {
    /// Ask for the page word and slot of the page in frame `f` (if any) ahead of the hand.
    #[inline]
    fn prefetch_frame_page(&self, f: u32, n: u32) {
        let f = if f >= n { f - n } else { f };
        if let Some(page) = self.fr_page.try_get(f) {
            if page < CP_OWNED {
                crate::engine::prefetch::prefetch(&self.pg, page as usize);
            }
        }
    }

    /// Move the clock hand one frame on; at the end of a revolution the working-set
    /// projections are taken (working_set.rs).
    #[inline]
    fn advance_hand(&mut self, n: u32, ws_rule: bool) {
        if self.hand + 1 == n {
            self.hand = 0;
            if ws_rule {
                self.ws_revolution();
            }
        } else {
            self.hand += 1;
        }
    }

    /// Steal frames until the available list reaches its high threshold. The clock hand
    /// approximates CP's passes over the frame-owned lists: a referenced frame has its
    /// reference bit reset (it ages), an unreferenced one is stolen.
    pub(super) fn demand_scan(&mut self, cp: &mut CpWork) {
        self.moved.scans += 1;
        let want = (self.high_mark as u64).saturating_sub(self.avail_free());
        self.release_empty_pgmbks(want, false, cp);
        self.steal_cmma_first(self.high_mark as u64, cp);
        self.steal_unreferenced_companions(self.high_mark as u64, cp);
        // Pass 1 visits the shared frame-owned list before the dispatch list's users.
        self.steal_shared_first(cp);
        let n = self.fr_page.len() as u32;
        let mut examined: u64 = 0;
        let mut limit = SCAN_PASSES * n as u64;
        let mut selective = SELECTIVE_PASSES * n as u64;
        let ws_rule = self.working_set_rule();
        while self.avail_free() < self.high_mark as u64 && examined < limit {
            let f = self.hand;
            self.advance_hand(n, ws_rule);
            self.clock_travel += 1;
            self.prefetch_frame_page(f + SCAN_PREFETCH, n);
            let page = self.fr_page.get(f);
            if page >= CP_OWNED {
                // Free and CP-owned frames the hand passes count towards its passes too: with
                // fewer pageable frames than the high threshold it would otherwise never stop.
                limit -= 1;
                selective = selective.saturating_sub(1);
                continue;
            }
            examined += 1;
            // CMMA: an unused page's reference bit tells nothing (the guest freed it).
            let w = self.pg[page as usize];
            if w & REF != 0
                && examined < selective
                && self.guest_state(page as usize) != cmma::UNUSED
            {
                self.pg[page as usize] &= !REF;
                self.scan_saw_key(page, w);
                if ws_rule {
                    self.ws_seen(self.space_of(page));
                }
                continue;
            }
            // Pass 1 (the first of the selective laps) leaves users within their working set.
            if ws_rule
                && examined + (n as u64) < selective
                && w & REF == 0
                && self.ws_spares(self.space_of(page))
            {
                continue;
            }
            self.steal(f, cp);
        }
        self.moved.scanned += examined;
        cp.ns += examined * self.p.cp_scan_frame.ns();
        self.flush_open_block();
        self.xstor.compact_if_needed();
    }

    /// z/VM 5.2: demand scan for frames below 2 GB. It walks the users' frame lists, so it
    /// examines frames above 2 GB too (resetting their reference bits) to find the few below.
    pub(super) fn scan_below_2g(&mut self, cp: &mut CpWork, emergency: bool) {
        self.moved.below2g_scans += 1;
        let ratio = (self.fr_page.len() as u64 / FRAMES_BELOW_2G as u64).max(1);
        let want = (self.high_mark as u64 * FRAMES_BELOW_2G as u64 / self.fr_page.len() as u64)
            .max(BELOW_2G_WANT_MIN);
        let mut got = self.release_empty_pgmbks(want, true, cp);
        let mut examined = 0u64;
        let n = self.fr_page.len() as u32;
        // One pass examines a bounded share of the frames below 2 GB, as a demand-scan pass does.
        while got < want && examined < BELOW_2G_EXAMINE_FACTOR * want {
            let f = self.hand_lo;
            self.hand_lo = if self.hand_lo + 1 >= FRAMES_BELOW_2G.min(n) {
                0
            } else {
                self.hand_lo + 1
            };
            let page = self.fr_page.get(f);
            if page >= CP_OWNED {
                continue;
            }
            examined += 1;
            let w = self.pg[page as usize];
            if w & REF != 0 && !emergency {
                self.pg[page as usize] &= !REF;
                self.scan_saw_key(page, w);
                continue;
            }
            self.steal(f, cp);
            got += 1;
        }
        // Frames above 2 GB visited on the way: examined and aged.
        let passed = examined * (ratio - 1);
        let ws_rule = self.working_set_rule();
        for _ in 0..passed.min(n as u64) {
            let f = self.hand;
            self.advance_hand(n, ws_rule);
            let page = self.fr_page.get(f);
            if page < CP_OWNED {
                let w = self.pg[page as usize];
                if ws_rule && w & REF != 0 {
                    self.ws_seen(self.space_of(page));
                }
                self.pg[page as usize] &= !REF;
                if w & REF != 0 {
                    self.scan_saw_key(page, w);
                }
            }
        }
        let total = examined + passed;
        self.moved.scanned += total;
        cp.ns += total * self.p.cp_scan_frame.ns();
        self.flush_open_block();
        self.xstor.compact_if_needed();
    }

    /// Take frame `f` from its page: an unchanged page with a DASD copy is simply dropped;
    /// otherwise it is paged out to XSTOR (or, with no XSTOR, into a DASD block).
    pub(super) fn steal(&mut self, f: u32, cp: &mut CpWork) {
        let page = self.fr_page.get(f);
        let i = page as usize;
        // z/VM 6.3 and later: off its owner's list or the aging list.
        self.agelist_unlink(f, page);
        self.moved.steals += 1;
        cp.ns += self.p.cp_steal.ns();
        let g = self.space_of(page);
        let keep_slot = self.slot(i) != NONE && self.pg[i] & CHANGED == 0;
        // Out of its frame first: an XSTOR block, if it gets one, takes the word's place field.
        self.set_word(i, (self.word(i) | PLACE) & !REF);
        if self.reclaim_without_pageout(page, cp) {
            // CMMA: unused or volatile, nothing to write.
        } else if !keep_slot {
            if self.slot(i) != NONE {
                let s = self.slot(i);
                self.release_slot(page, s);
            }
            if self.xstor.capacity() > 0 {
                if self.xstor.free() == 0 {
                    self.migrate(cp);
                }
                if let Some(b) = self.xstor.store(page) {
                    self.set_xstor_block(i, b);
                    self.on_xstor += 1;
                    self.space_xstor[g] += 1;
                    self.moved.ms_to_xs += 1;
                    cp.ns += self.p.cp_pageout_xstor.ns();
                } else if !self.drop_spool_backed(page) {
                    self.page_out_to_dasd(page);
                }
            } else if !self.drop_spool_backed(page) {
                self.page_out_to_dasd(page);
            }
        }
        self.resident -= 1;
        self.space_resident[g] -= 1;
        if f < FRAMES_BELOW_2G {
            self.resident_below -= 1;
            self.space_below[g] -= 1;
        }
        let seg = i / SEG_PAGES as usize;
        self.seg_resident[seg] -= 1;
        self.free_frame(f);
        if self.seg_resident[seg] == 0 {
            // The PGMBK stays until demand scan pages it out: a segment refilled soon keeps it.
            self.segment_emptied(seg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, frame_of, write_pages};
    use super::super::{Access, SpaceId, Touch};
    use super::*;
    use crate::config::scenario::ZvmLevel;

    #[test]
    fn fewer_pageable_frames_than_the_high_threshold_still_ends() {
        // 86 pageable frames (64 CP-owned), thresholds of 64 and 128: the available list can
        // never reach the high threshold, so the scan must stop after its passes.
        let mut st = test_util::storage(ZvmLevel::V5R3, 150, 0, &[4096], &[1024]);
        write_pages(&mut st, 0..300);
        assert!(st.resident() <= 86, "resident {}", st.resident());
        assert!(st.on_dasd() > 0);
    }

    /// 448 pageable frames (thresholds 64 and 128), XSTOR enough for every steal.
    fn storage() -> Storage {
        test_util::storage(ZvmLevel::V5R3, 512, 4096, &[4096], &[1024])
    }

    #[test]
    fn unreferenced_frames_go_first_and_the_list_reaches_the_high_threshold() {
        let mut st = storage();
        // 360 pages and two PGMBKs leave 84 frames: above the low threshold, below the high.
        const TOUCHED: u32 = 360;
        write_pages(&mut st, 0..TOUCHED);
        assert_eq!(st.moved.scans, 0);
        assert!(st.available() < st.high_mark as u64);
        for page in (0..TOUCHED).step_by(2) {
            st.pg[page as usize] &= !REF;
        }
        let mut cp = CpWork::default();
        st.demand_scan(&mut cp);
        assert_eq!(st.available(), st.high_mark as u64);
        let stolen = TOUCHED as u64 - st.resident();
        assert!(stolen > 0);
        for page in (1..TOUCHED).step_by(2) {
            assert!(
                st.is_resident(SpaceId(0), page),
                "referenced page {page} stolen"
            );
        }
        // The hand passed the first referenced page (now unreferenced) but not the last.
        assert_eq!(st.pg[1] & REF, 0);
        assert_ne!(st.pg[TOUCHED as usize - 1] & REF, 0);
        // Every stolen page was changed: each went to XSTOR.
        assert_eq!(st.on_xstor(), stolen);
        assert_eq!(st.moved.steals, stolen);
        let p = &st.p;
        let steal = p.cp_steal.ns() + p.cp_pageout_xstor.ns();
        assert_eq!(
            cp.ns,
            st.moved.scanned * p.cp_scan_frame.ns() + stolen * steal
        );
        st.check_invariants().unwrap();
    }

    #[test]
    fn all_frames_referenced_still_frees_frames() {
        let mut st = storage();
        write_pages(&mut st, 0..360);
        let mut cp = CpWork::default();
        st.demand_scan(&mut cp);
        // First lap resets every reference bit, the next steals.
        assert_eq!(st.available(), st.high_mark as u64);
        assert!(st.moved.scanned > 360);
    }

    /// A page read back from DASD, unchanged: in a frame and on its slot.
    fn page_with_slot(st: &mut Storage) -> u32 {
        // 600 pages through 448 frames and 16 XSTOR blocks: migration puts some on DASD.
        write_pages(st, 0..600);
        let page = (0..600)
            .find(|&p| st.page_slot(SpaceId(0), p) != NONE && !st.is_resident(SpaceId(0), p))
            .expect("no page migrated to DASD");
        let mut cp = CpWork::default();
        let Touch::OnDasd { group } = st.touch(st.space(SpaceId(0)), page, Access::Read, &mut cp)
        else {
            panic!("page {page} on DASD not reported so");
        };
        st.complete_pagein(group, &mut cp);
        assert!(st.is_resident(SpaceId(0), page));
        page
    }

    #[test]
    fn unchanged_page_with_slot_is_dropped_changed_page_goes_to_xstor() {
        let mut st = test_util::storage(ZvmLevel::V5R3, 512, 16, &[4096], &[1024]);
        let page = page_with_slot(&mut st);
        let slot = st.page_slot(SpaceId(0), page);
        let (before, writes) = (st.moved, st.writes.len());
        let mut cp = CpWork::default();
        st.steal(frame_of(&st, page), &mut cp);
        assert!(!st.is_resident(SpaceId(0), page));
        assert_eq!(st.page_slot(SpaceId(0), page), slot, "slot kept");
        assert!(!st.page_in_xstor(SpaceId(0), page));
        assert_eq!(st.moved.ms_to_xs, before.ms_to_xs);
        assert_eq!(st.moved.ms_to_dasd, before.ms_to_dasd);
        assert_eq!(st.writes.len(), writes, "no write");
        // Read it back and change it: the slot goes stale and the steal writes the page.
        let page = page_with_slot(&mut st);
        st.touch(st.space(SpaceId(0)), page, Access::Write, &mut cp);
        let before = st.moved;
        st.steal(frame_of(&st, page), &mut cp);
        assert!(st.page_in_xstor(SpaceId(0), page));
        assert_eq!(st.page_slot(SpaceId(0), page), NONE, "stale slot released");
        assert_eq!(st.moved.ms_to_xs, before.ms_to_xs + 1);
        st.check_invariants().unwrap();
    }

    /// A page read back from DASD and kept referenced, changed or not, under the hand of one
    /// demand scan that wants a single frame: (whether it still has its slot, stale slots
    /// released).
    fn scan_passes_page_with_slot(release: bool, change: bool) -> (bool, u64) {
        let p = crate::config::params::ModelParams {
            stale_slot_scan_release: release,
            ..Default::default()
        };
        let mut st = test_util::with_params(ZvmLevel::V5R3, &p, 512, 16, &[4096], &[1024]);
        let page = page_with_slot(&mut st);
        let mut cp = CpWork::default();
        let access = if change { Access::Write } else { Access::Read };
        st.touch(st.space(SpaceId(0)), page, access, &mut cp);
        assert_ne!(
            st.page_slot(SpaceId(0), page),
            NONE,
            "slot kept at the reference"
        );
        // Every other page unreferenced and the hand at this page's frame: the scan resets
        // its reference bit, then steals the next frame and stops.
        for q in 0..1024u32 {
            if q != page {
                st.pg[q as usize] &= !REF;
            }
        }
        st.hand = frame_of(&st, page);
        st.high_mark = st.avail_free() as u32 + 1;
        st.demand_scan(&mut cp);
        assert!(st.is_resident(SpaceId(0), page));
        assert_eq!(st.pg[page as usize] & REF, 0, "the hand passed the page");
        st.check_invariants().unwrap();
        (
            st.page_slot(SpaceId(0), page) != NONE,
            st.moved.stale_slots_released,
        )
    }

    #[test]
    fn demand_scan_frees_the_stale_slot_of_a_changed_page_it_passes() {
        assert_eq!(scan_passes_page_with_slot(true, true), (false, 1));
        // Without the rule the stale slot stays until the page is written elsewhere.
        assert_eq!(scan_passes_page_with_slot(false, true), (true, 0));
    }

    #[test]
    fn an_unchanged_page_keeps_its_slot_when_the_scan_passes_it() {
        assert_eq!(scan_passes_page_with_slot(true, false), (true, 0));
    }
}
