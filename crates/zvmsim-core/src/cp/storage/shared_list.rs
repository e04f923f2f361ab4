//! Demand scan's pass over the shared frame-owned list (z/VM before 6.3). Within a pass CP
//! visits the lists in a fixed order: long-term dormant users, short-term dormant users, the
//! shared frames (system, NSS, DCSS), the eligible list, then the dispatch list (demand-scan
//! record description of the CA MICS documentation; ../shared/reference/storage-management.md).
//! So every scan looks at the saved segments' shared pages before the busy guests' own: an
//! unreferenced shared page is stolen, a referenced one has its reference bit reset and must
//! be referenced again before the next scan to stay. Under steady pressure only the pages
//! used between scans stay resident; the others go to XSTOR or, read-only ones, are dropped
//! and read again from spool (seed 000, "Location of the DCSS pages": of the 6 GB DCSS about
//! 10 MB resident, the rest in XSTOR, none on DASD).
//!
//! Off by default (`ModelParams::shared_list_first`): CP also takes, in the same pass, the
//! pages of dispatch-list users above their working-set estimate, which the model does not
//! have; without it a guest's cold pages are never reached while a DCSS's hot pages are
//! stolen (seed 001's servers page their DCSS: 1,081 -> 92 tx/s).
//!
//! The walk is a clock hand of its own over the segment spaces' pages; a 1 MB segment with
//! no resident page is skipped whole, so a mostly paged-out 6 GB segment costs little. A
//! guest's nonshared copy is the guest's (its frame-owned list), not on this list. VDISK
//! spaces, also CP-owned, stay on the main clock (their place in the order is not in the
//! sources at hand).

use super::{CpWork, Storage, REF, SEG_PAGES};

/// One scan's walk of the shared list takes at most this many steps (a page, or a skipped
/// empty 1 MB segment) per frame it wants, as z/VM 5.2's scan below 2 GB bounds its share
/// (`BELOW_2G_EXAMINE_FACTOR`); the hand resumes there at the next scan. Inference: bounds
/// the work when most shared pages are referenced (a read-only database in a DCSS).
const SHARED_STEPS_PER_FRAME: u64 = 16;

impl Storage {
    /// Pass 1 over the shared frames: at most one lap and `SHARED_STEPS_PER_FRAME` steps per
    /// frame wanted, ending as soon as the available list reaches the high threshold.
    /// Returns the frames examined.
    pub(super) fn steal_shared_first(&mut self, cp: &mut CpWork) -> u64 {
        if !self.kinds.any_segment || !self.p.shared_list_first {
            return 0;
        }
        let (segs, ranges) = self.segment_ranges();
        let total: u64 = ranges.iter().map(|&(b, e)| (e - b) as u64).sum();
        if total == 0 {
            return 0;
        }
        let high = self.high_mark as u64;
        let budget = SHARED_STEPS_PER_FRAME * high.saturating_sub(self.avail_free());
        let mut p = self.shared_hand;
        let (mut walked, mut examined, mut steps) = (0u64, 0u64, 0u64);
        let ws_rule = self.working_set_rule();
        while walked < total && steps < budget && self.avail_free() < high {
            steps += 1;
            // The range holding the hand, or the next one (wrapping to the first).
            let (g, e) = match ranges.iter().position(|&(_, e)| p < e) {
                Some(i) => {
                    p = p.max(ranges[i].0);
                    (segs[i], ranges[i].1)
                }
                None => {
                    // A lap of the shared list ends: its working set is what it found used.
                    if ws_rule {
                        self.ws_shared_lap(&segs);
                    }
                    p = ranges[0].0;
                    (segs[0], ranges[0].1)
                }
            };
            let seg = (p / SEG_PAGES) as usize;
            if self.seg_resident[seg] == 0 {
                let next = ((seg as u32 + 1) * SEG_PAGES).min(e);
                walked += (next - p) as u64;
                p = next;
                continue;
            }
            let w = self.pg[p as usize];
            let f = self.place(p as usize);
            if f < self.xs_base {
                examined += 1;
                if w & REF != 0 {
                    self.pg[p as usize] &= !REF;
                    if ws_rule {
                        self.ws_count(g);
                    }
                } else if !(ws_rule && self.ws_shared_spares(g)) {
                    self.steal(f, cp);
                }
            }
            p += 1;
            walked += 1;
        }
        self.shared_hand = p;
        self.moved.scanned += examined;
        cp.ns += examined * self.p.cp_scan_frame.ns();
        examined
    }

    /// The saved segments' shared spaces and their page-index ranges (first, end), ascending.
    fn segment_ranges(&self) -> (Vec<usize>, Vec<(u32, u32)>) {
        (0..self.space_resident.len())
            .filter(|&g| self.kinds.is_segment(g))
            .map(|g| (g, (self.space_base[g], self.space_base[g + 1])))
            .unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util;
    use super::super::{Access, CpWork, Owner, SpaceId, SpaceSpec, Storage};
    use crate::config::scenario::ZvmLevel;

    /// `shared_list_first` on: `frames`, `xstor` blocks, one guest of `guest` pages.
    fn on(frames: u32, xstor: u32, guest: u32) -> Storage {
        let p = crate::config::params::ModelParams {
            shared_list_first: true,
            ..Default::default()
        };
        test_util::with_params(ZvmLevel::V5R3, &p, frames, xstor, &[4096], &[guest])
    }

    /// 448 pageable frames (thresholds 64 and 128), one guest of 1024 pages, a read-only
    /// segment of 512 pages: 200 guest pages and the segment's first 150 pages resident.
    fn storage() -> (Storage, SpaceId) {
        let mut st = on(512, 4096, 1024);
        let seg = st.add_space(
            SpaceSpec {
                owner: Owner::Segment(7),
                pages: 512,
            },
            true,
        );
        let mut cp = CpWork::default();
        for p in 0..200 {
            st.touch(st.space(SpaceId(0)), p, Access::Write, &mut cp);
        }
        let s = st.space(seg);
        for p in 0..150 {
            st.load_page(s, p, &mut cp);
        }
        (st, seg)
    }

    #[test]
    fn unreferenced_shared_pages_go_before_any_guest_page() {
        let (mut st, seg) = storage();
        // Guest pages unreferenced too: the main clock would take them as readily.
        for p in 0..200 {
            st.pg[p] &= !super::REF;
        }
        let guest = st.space_resident[0];
        // Pages 0..10 of the segment referenced since the load.
        let s = st.space(seg);
        let mut cp = CpWork::default();
        for p in 0..10 {
            st.touch(s, p, Access::Read, &mut cp);
        }
        let before = st.space_resident[seg.0 as usize];
        let examined = st.steal_shared_first(&mut cp);
        assert_eq!(st.available(), st.high_mark as u64);
        assert_eq!(st.space_resident[0], guest, "a guest page was stolen");
        let after = st.space_resident[seg.0 as usize];
        assert!(after < before);
        // The referenced ones were spared (their bits reset); the hand stopped after them.
        for p in 0..10 {
            assert!(st.is_resident(seg, p), "referenced segment page {p} stolen");
            assert_eq!(st.pg[st.global(seg, p) as usize] & super::REF, 0);
        }
        assert_eq!(examined, 10 + (before - after));
        st.check_invariants().unwrap();
    }

    #[test]
    fn the_lap_ends_and_resumes_where_it_stopped() {
        let (mut st, seg) = storage();
        let s = st.space(seg);
        let mut cp = CpWork::default();
        // Every resident segment page referenced: one lap resets them and steals none.
        for p in 0..150 {
            st.touch(s, p, Access::Read, &mut cp);
        }
        let examined = st.steal_shared_first(&mut cp);
        assert_eq!(examined, 150);
        assert_eq!(st.space_resident[seg.0 as usize], 150);
        // The next scan finds them unreferenced and takes them from where the hand is.
        st.steal_shared_first(&mut cp);
        assert!(st.space_resident[seg.0 as usize] < 150);
        assert!(!st.is_resident(seg, 0));
        st.check_invariants().unwrap();
    }

    #[test]
    fn xstor_full_of_segment_pages_drops_a_batch_not_all() {
        // 448 pageable frames, 1024 XSTOR blocks, a read-only segment of 2048 pages loaded
        // whole: its pages pass through XSTOR; once XSTOR is full each migration drops only
        // a batch of the oldest (they are on spool), not every segment page XSTOR holds.
        let mut st = on(512, 1024, 256);
        let seg = st.add_space(
            SpaceSpec {
                owner: Owner::Segment(1),
                pages: 2048,
            },
            true,
        );
        let s = st.space(seg);
        let mut cp = CpWork::default();
        for p in 0..2048 {
            st.load_page(s, p, &mut cp);
        }
        let (dropped, _) = st.spool_drops();
        assert!(dropped > 0, "XSTOR never filled");
        assert!(
            st.on_xstor() + 16 * st.block as u64 >= 1024,
            "XSTOR emptied: {} pages left",
            st.on_xstor()
        );
        assert_eq!(st.moved.xs_to_dasd, 0);
        st.check_invariants().unwrap();
    }

    #[test]
    fn with_the_working_set_rule_the_list_keeps_what_it_used_last_lap() {
        let (mut st, seg) = storage();
        st.p.working_set_steal = true;
        let s = st.space(seg);
        let mut cp = CpWork::default();
        // A lap that finds all 150 used: the next lap's projection is 150.
        for p in 0..150 {
            st.touch(s, p, Access::Read, &mut cp);
        }
        assert_eq!(st.steal_shared_first(&mut cp), 150);
        // Unreferenced since, but within its working set: pass 1 takes none of them.
        st.steal_shared_first(&mut cp);
        assert_eq!(st.space_resident[seg.0 as usize], 150);
        assert_eq!(st.projected_working_set(seg.0 as usize), Some(150));
        // The lap after finds none used: the projection falls to 0 and the list gives.
        st.steal_shared_first(&mut cp);
        st.steal_shared_first(&mut cp);
        assert!(st.space_resident[seg.0 as usize] < 150);
        st.check_invariants().unwrap();
    }

    #[test]
    fn off_by_default() {
        let mut st = test_util::storage(ZvmLevel::V5R3, 512, 4096, &[4096], &[1024]);
        let seg = st.add_space(
            SpaceSpec {
                owner: Owner::Segment(7),
                pages: 512,
            },
            true,
        );
        let s = st.space(seg);
        let mut cp = CpWork::default();
        for p in 0..150 {
            st.load_page(s, p, &mut cp);
        }
        assert_eq!(st.steal_shared_first(&mut cp), 0);
        assert_eq!(st.space_resident[seg.0 as usize], 150);
    }

    #[test]
    fn no_segment_no_work() {
        let mut st = on(512, 4096, 1024);
        test_util::write_pages(&mut st, 0..400);
        let (hand, scanned) = (st.shared_hand, st.moved.scanned);
        assert_eq!(st.steal_shared_first(&mut CpWork::default()), 0);
        assert_eq!((st.shared_hand, st.moved.scanned), (hand, scanned));
    }
}
