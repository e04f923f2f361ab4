//! Frames of central storage and the available lists: one list of free frames below 2 GB
//! (with a bitmap of the same frames, for the contiguous-pair search of 5.2's PGMBKs) and one
//! above; the low and high thresholds that start and stop demand scan; z/VM 5.2's walk of the
//! list for a frame of the wanted kind.

use super::{CpWork, Storage, FRAMES_BELOW_2G, NONE};
use crate::config::params::{AvailSearch, ModelParams};
use crate::config::scenario::ZvmLevel;

/// Smallest low threshold of the available list, in frames. Inference: CP computes its
/// thresholds dynamically and no source gives a floor; this one keeps demand scan meaningful
/// on small configurations whose fractional threshold rounds to a handful of frames.
const AVAIL_LOW_MIN: u32 = 64;
/// Smallest gap between the low and high thresholds, in frames: a demand scan frees at least
/// this many. Inference (as `AVAIL_LOW_MIN`).
const AVAIL_HIGH_MIN_GAP: u32 = 64;
/// z/VM 5.2's walk of the available list finds the wanted frame, on average, after this share
/// (1/n) of the list. Inference: the wanted frame is anywhere on the list with equal chance.
const AVAIL_WALK_DIVISOR: u64 = 2;

/// Low and high thresholds of the available list for `pageable` frames.
pub(super) fn thresholds(pageable: u32, p: &ModelParams) -> (u32, u32) {
    let low = ((pageable as f64 * p.avail_low_fraction) as u32).max(AVAIL_LOW_MIN);
    let high = ((pageable as f64 * p.avail_high_fraction) as u32).max(low + AVAIL_HIGH_MIN_GAP);
    (low, high)
}

impl Storage {
    pub(super) fn free_frame(&mut self, f: u32) {
        self.fr_page.set(f, NONE);
        if f < FRAMES_BELOW_2G {
            self.avail_lo.push(f);
            self.lo_free[(f / 64) as usize] |= 1 << (f % 64);
            self.lo_free_count += 1;
        } else {
            self.avail_hi.push(f);
        }
    }

    /// Put the available lists in the order a long-running system leaves them: frames come
    /// back as demand scan steals them and go out to whatever faults next, so after hours a
    /// frame's place in the frame table says nothing about the page it holds. Without this
    /// the warm start's pages sat in frames in the order they were touched, the clock hand
    /// stole them in that order, and blocks held pages of equal popularity, whose companions
    /// were then nearly always used: a prefetch that wore off as CP re-formed its blocks
    /// (the ten-guest 5.3 run lost a third of its throughput over 20 minutes).
    pub fn shuffle_available(&mut self, rng: &mut crate::engine::rng::Stream) {
        for list in [self.avail_hi.entries_mut(), &mut self.avail_lo[..]] {
            for i in (1..list.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                list.swap(i, j);
            }
        }
    }

    fn take_lo(&mut self) -> Option<u32> {
        while let Some(f) = self.avail_lo.pop() {
            // Entries taken by a contiguous-pair allocation are skipped (lazy removal).
            if self.lo_free[(f / 64) as usize] & (1 << (f % 64)) != 0 {
                self.lo_free[(f / 64) as usize] &= !(1 << (f % 64));
                self.lo_free_count -= 1;
                return Some(f);
            }
        }
        None
    }

    /// A frame for a guest page: above 2 GB first (CP keeps frames below 2 GB for what must
    /// live there), demand scan when the available list runs low.
    pub(super) fn alloc_frame(&mut self, paging_io: bool, cp: &mut CpWork) -> u32 {
        // Taking a frame off the available list: constant time on z/VM 5.3 ("fast available
        // list searching"); on 5.2 a walk of the list for a frame of the wanted kind, on
        // average half its length, for the requests `avail_search_frames` names (by default
        // the frames of DASD block page-ins; a synchronous XSTOR page-in or a first reference
        // takes the head of the list).
        let walks = match self.p.avail_search_frames {
            AvailSearch::All => true,
            AvailSearch::Paging | AvailSearch::PagingMigration => paging_io,
        };
        let search = match self.level {
            ZvmLevel::V5R2 if walks => self.avail_search_ns(),
            _ => 0,
        };
        cp.ns += self.p.cp_alloc_frame.ns() + search;
        cp.walk_ns += search;
        if self.avail_free() < self.low_mark as u64 {
            self.replenish(cp);
        }
        if let Some(f) = self.avail_hi.pop() {
            return f;
        }
        if let Some(f) = self.take_lo() {
            return f;
        }
        // Emergency: steal until a frame is free.
        self.replenish(cp);
        self.avail_hi
            .pop()
            .or_else(|| self.take_lo())
            .expect("demand scan freed no frame")
    }

    /// A frame for CP's own use (the minidisk cache): taken off the available list as a
    /// guest page's frame is (demand scan runs when the list is low, stealing guest pages),
    /// then owned by CP until `give_cp_frame` returns it.
    pub fn take_cp_frame(&mut self, cp: &mut CpWork) -> u32 {
        let f = self.alloc_frame(false, cp);
        self.fr_page.set(f, super::CP_OWNED);
        f
    }

    /// A frame CP took with `take_cp_frame` goes back to the available list.
    pub fn give_cp_frame(&mut self, f: u32) {
        debug_assert_eq!(self.fr_page.get(f), super::CP_OWNED);
        self.free_frame(f);
    }

    /// Refill the available list: demand scan, or from z/VM 6.3 on the aging list's reclaim.
    fn replenish(&mut self, cp: &mut CpWork) {
        if self.aging.is_some() {
            self.agelist_replenish(cp);
        } else {
            self.demand_scan(cp);
        }
    }

    /// z/VM 5.2: CP time of one walk of the available list.
    pub(super) fn avail_search_ns(&self) -> u64 {
        self.p.cp_avail_search.ns() * self.avail_free() / AVAIL_WALK_DIVISOR
    }

    pub(super) fn avail_free(&self) -> u64 {
        self.avail_hi.len() as u64 + self.lo_free_count
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, CP_FRAMES};
    use super::super::{Access, SpaceId, CP_OWNED};
    use super::*;

    fn lo_bit(st: &Storage, f: u32) -> bool {
        st.lo_free[(f / 64) as usize] & (1 << (f % 64)) != 0
    }

    #[test]
    fn freed_frame_below_2g_goes_to_low_list_and_bitmap() {
        let mut st = test_util::storage(ZvmLevel::V5R3, 1024, 0, &[], &[256]);
        let pageable = 1024 - CP_FRAMES;
        assert_eq!(st.available_below_2g(), pageable as u64);
        assert!(st.avail_hi.is_empty());
        let mut cp = CpWork::default();
        let f = st.alloc_frame(false, &mut cp);
        st.fr_page.set(f, CP_OWNED);
        assert!(!lo_bit(&st, f));
        assert_eq!(st.available_below_2g(), pageable as u64 - 1);
        st.free_frame(f);
        assert!(lo_bit(&st, f));
        assert_eq!(st.avail_lo.last(), Some(&f));
        assert_eq!(st.available_below_2g(), pageable as u64);
        assert_eq!(st.fr_page.get(f), NONE);
    }

    #[test]
    fn alloc_prefers_frames_above_2g_and_conserves_frames() {
        const ABOVE: u32 = 512;
        let frames = FRAMES_BELOW_2G + ABOVE;
        let mut st = test_util::storage(ZvmLevel::V5R3, frames, 0, &[], &[1024]);
        let mut cp = CpWork::default();
        for k in 0..ABOVE {
            let f = st.alloc_frame(false, &mut cp);
            assert!(
                f >= FRAMES_BELOW_2G,
                "allocation {k} took frame {f} below 2 GB"
            );
            st.fr_page.set(f, CP_OWNED);
        }
        assert!(st.avail_hi.is_empty());
        let f = st.alloc_frame(false, &mut cp);
        assert!(f < FRAMES_BELOW_2G);
        st.fr_page.set(f, CP_OWNED);
        // Through touch(): every frame is CP's, a page's, a PGMBK's or free.
        let mut st = test_util::storage(ZvmLevel::V5R3, frames, 0, &[], &[1024]);
        // Fewer pages (and their PGMBKs) than frames above 2 GB: none goes below.
        for page in 0..ABOVE / 2 {
            st.touch(st.space(SpaceId(0)), page, Access::Write, &mut cp);
            let sum = CP_FRAMES as u64 + st.resident() + st.pgmbk_frames() + st.available();
            assert_eq!(sum, frames as u64, "after page {page}");
        }
        assert_eq!(st.resident_below_2g(), 0);
        st.check_invariants().unwrap();
    }

    #[test]
    fn v52_walks_the_available_list_for_paging_frames_only() {
        let p = ModelParams::default();
        for level in [ZvmLevel::V5R2, ZvmLevel::V5R3] {
            let mut st = test_util::storage(level, 4096, 0, &[], &[256]);
            let listed = st.available();
            let mut cp = CpWork::default();
            st.alloc_frame(true, &mut cp);
            let walk = p.cp_avail_search.ns() * listed / AVAIL_WALK_DIVISOR;
            let expected = match level {
                ZvmLevel::V5R2 => p.cp_alloc_frame.ns() + walk,
                _ => p.cp_alloc_frame.ns(),
            };
            assert!(walk > 0);
            assert_eq!(cp.ns, expected, "{level:?} paging frame");
            let mut cp = CpWork::default();
            st.alloc_frame(false, &mut cp);
            assert_eq!(cp.ns, p.cp_alloc_frame.ns(), "{level:?} first-use frame");
        }
    }

    #[test]
    fn thresholds_have_floors_and_follow_fractions() {
        let p = ModelParams::default();
        assert_eq!(
            thresholds(1000, &p),
            (AVAIL_LOW_MIN, AVAIL_LOW_MIN + AVAIL_HIGH_MIN_GAP)
        );
        let big = 10_000_000;
        let (low, high) = thresholds(big, &p);
        assert_eq!(low, (big as f64 * p.avail_low_fraction) as u32);
        assert_eq!(high, (big as f64 * p.avail_high_fraction) as u32);
        assert!(high > low);
    }
}
