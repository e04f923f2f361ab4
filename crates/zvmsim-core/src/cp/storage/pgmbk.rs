//! Page management blocks (PGMBKs): one per 1 MB segment with resident pages, holding its page
//! table, page status table and auxiliary storage addresses. z/VM 5.2 keeps them below 2 GB and
//! must find two contiguous free frames there; 5.3 places them anywhere. A segment whose last
//! resident page left keeps its PGMBK until demand scan pages it out.

use super::{CpWork, Storage, CP_OWNED, FRAMES_BELOW_2G, NONE};
use crate::config::scenario::ZvmLevel;

/// Frames of one PGMBK: an 8 KB block, two contiguous 4 KB frames (IBM's PGMBK control-block
/// description). The pair search below assumes two.
pub(super) const PGMBK_FRAMES: usize = 2;
/// Bit positions of the free-frame bitmap where a PGMBK may start: even frames, so a pair is
/// 8 KB aligned and never straddles two bitmap words. Inference: the control block needs only
/// 4 KB alignment; the even start is the model's simplification and halves the pairs found.
const PAIR_STARTS: u64 = 0x5555_5555_5555_5555;
/// z/VM 5.2: searches for a free pair below 2 GB, each after a demand scan of the frames below
/// 2 GB, before the model gives up and takes any two frames. Inference.
const PAIR_SEARCH_ATTEMPTS: u32 = 4;
/// From this attempt on (counting from 0) the scan below 2 GB steals referenced frames too, as
/// demand scan's emergency pass follows its two regular passes (demand-scan record description
/// of the CA MICS documentation; z/VM 6.3 performance report's account of the old scan).
const PAIR_SEARCH_EMERGENCY_ATTEMPT: u32 = 2;

impl Storage {
    /// A PGMBK for segment `seg`: two contiguous frames, below 2 GB on z/VM 5.2.
    pub(super) fn alloc_pgmbk(&mut self, seg: usize, cp: &mut CpWork) {
        self.moved.pgmbk_allocs += 1;
        let pair = match self.level {
            ZvmLevel::V5R2 => self.alloc_lo_pair(cp),
            // Anywhere: 5.3's contiguous-frame management finds a pair at no extra cost.
            ZvmLevel::V5R3 | ZvmLevel::V5R4 | ZvmLevel::V6R4 | ZvmLevel::V7R1 | ZvmLevel::V7R3 => {
                [self.alloc_frame(false, cp), self.alloc_frame(false, cp)]
            }
        };
        for f in pair {
            self.fr_page.set(f, CP_OWNED);
        }
        self.seg_pgmbk[seg] = pair;
        self.pgmbk_frames += PGMBK_FRAMES as u64;
    }

    fn release_pgmbk(&mut self, seg: usize) {
        let pair = self.seg_pgmbk[seg];
        if pair[0] == NONE {
            return;
        }
        self.seg_pgmbk[seg] = [NONE; PGMBK_FRAMES];
        self.pgmbk_frames -= PGMBK_FRAMES as u64;
        for f in pair {
            self.free_frame(f);
        }
    }

    /// Page out the PGMBKs of segments with no resident page (demand scan takes them first:
    /// they free frames without paging any guest page). `below_2g_only` for 5.2's scan for
    /// frames below 2 GB. Returns the frames freed.
    pub(super) fn release_empty_pgmbks(
        &mut self,
        want: u64,
        below_2g_only: bool,
        cp: &mut CpWork,
    ) -> u64 {
        let mut freed = 0;
        let mut keep = Vec::new();
        while freed < want {
            let Some(seg) = self.empty_segs.pop() else {
                break;
            };
            let seg = seg as usize;
            let pair = self.seg_pgmbk[seg];
            if self.seg_resident[seg] != 0 || pair[0] == NONE {
                continue;
            }
            if below_2g_only && pair[0] >= FRAMES_BELOW_2G {
                keep.push(seg as u32);
                continue;
            }
            self.release_pgmbk(seg);
            cp.ns += self.p.cp_steal.ns();
            freed += PGMBK_FRAMES as u64;
        }
        self.empty_segs.extend(keep);
        freed
    }

    /// z/VM 5.2: search the below-2 GB frames for a free contiguous pair (CP time per frame
    /// examined); when none is free, demand scan steals below 2 GB, even with frames above
    /// 2 GB free.
    fn alloc_lo_pair(&mut self, cp: &mut CpWork) -> [u32; PGMBK_FRAMES] {
        for attempt in 0..PAIR_SEARCH_ATTEMPTS {
            if let Some(f) = self.find_lo_pair(cp) {
                self.lo_free[(f / 64) as usize] &= !(1 << (f % 64));
                self.lo_free[((f + 1) / 64) as usize] &= !(1 << ((f + 1) % 64));
                self.lo_free_count -= PGMBK_FRAMES as u64;
                return [f, f + 1];
            }
            self.scan_below_2g(cp, attempt >= PAIR_SEARCH_EMERGENCY_ATTEMPT);
        }
        // Below 2 GB is exhausted by CP's own blocks: take any two frames so the run goes on
        // (the counters show the condition).
        [self.alloc_frame(false, cp), self.alloc_frame(false, cp)]
    }

    /// Walk the free frames below 2 GB for two adjacent ones; CP pays for each free-list entry
    /// it visits (the bitmap stands for the list, in address order from a roving cursor).
    fn find_lo_pair(&mut self, cp: &mut CpWork) -> Option<u32> {
        let words = self.lo_free.len() as u32;
        let mut visited = 0u64;
        let mut found = None;
        for k in 0..words {
            let w = (self.lo_cursor + k) % words;
            let bits = self.lo_free[w as usize];
            if bits == 0 {
                continue;
            }
            let pairs = bits & (bits >> 1) & PAIR_STARTS;
            if pairs != 0 {
                let bit = pairs.trailing_zeros();
                visited += (bits & ((1u64 << bit) - 1)).count_ones() as u64 + 1;
                self.lo_cursor = w;
                found = Some(w * 64 + bit);
                break;
            }
            visited += bits.count_ones() as u64;
        }
        cp.ns += visited * self.p.cp_avail_search.ns();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util;
    use super::super::{Access, SpaceId, SEG_PAGES};
    use super::*;
    use crate::config::params::ModelParams;

    const ABOVE: u32 = 4096;

    #[test]
    fn v52_pgmbk_is_an_aligned_pair_below_2g() {
        let mut st = test_util::storage(ZvmLevel::V5R2, FRAMES_BELOW_2G + ABOVE, 0, &[], &[512]);
        let mut cp = CpWork::default();
        st.touch(st.space(SpaceId(0)), 0, Access::Write, &mut cp);
        let [a, b] = st.seg_pgmbk[0];
        assert_eq!(b, a + 1);
        assert_eq!(a % 2, 0);
        assert!(b < FRAMES_BELOW_2G);
        assert_eq!(st.fr_page.get(a), CP_OWNED);
        assert_eq!(st.fr_page.get(b), CP_OWNED);
        // The guest page itself went above 2 GB.
        assert!(test_util::frame_of(&st, 0) >= FRAMES_BELOW_2G);
        assert_eq!(st.pgmbk_frames(), PGMBK_FRAMES as u64);
        // A second segment gets a second pair; the first segment's pages share the first.
        st.touch(st.space(SpaceId(0)), 1, Access::Write, &mut cp);
        assert_eq!(st.pgmbk_frames(), PGMBK_FRAMES as u64);
        st.touch(st.space(SpaceId(0)), SEG_PAGES, Access::Write, &mut cp);
        assert_eq!(st.pgmbk_frames(), 2 * PGMBK_FRAMES as u64);
        assert!(st.seg_pgmbk[1][1] < FRAMES_BELOW_2G);
        st.check_invariants().unwrap();
    }

    #[test]
    fn v53_pgmbk_takes_any_frames_without_a_search() {
        let p = ModelParams::default();
        let mut st = test_util::storage(ZvmLevel::V5R3, FRAMES_BELOW_2G + ABOVE, 0, &[], &[512]);
        let mut cp = CpWork::default();
        st.touch(st.space(SpaceId(0)), 0, Access::Write, &mut cp);
        let pair = st.seg_pgmbk[0];
        assert!(pair.iter().all(|&f| f >= FRAMES_BELOW_2G), "{pair:?}");
        // One frame for the page, two for the PGMBK, each at the constant 5.3 cost.
        assert_eq!(cp.ns, 3 * p.cp_alloc_frame.ns());
    }

    #[test]
    fn pair_search_charges_each_free_entry_it_passes() {
        let p = ModelParams::default();
        let mut st = test_util::storage(ZvmLevel::V5R2, 2048, 0, &[], &[256]);
        st.lo_free.iter_mut().for_each(|w| *w = 0);
        st.lo_cursor = 0;
        // Free: 1, 3 and 4 (adjacent but not 8 KB aligned), then the pair 8-9.
        for f in [1u32, 3, 4, 8, 9] {
            st.lo_free[0] |= 1 << f;
        }
        let mut cp = CpWork::default();
        assert_eq!(st.find_lo_pair(&mut cp), Some(8));
        // Entries 1, 3, 4 passed, then the pair's first frame.
        assert_eq!(cp.ns, 4 * p.cp_avail_search.ns());
        // No pair at all: every free entry is visited and none found.
        st.lo_free[0] = 0b1010_1010;
        let mut cp = CpWork::default();
        assert_eq!(st.find_lo_pair(&mut cp), None);
        assert_eq!(cp.ns, 4 * p.cp_avail_search.ns());
    }

    #[test]
    fn empty_segments_give_back_their_pgmbks() {
        let mut st = test_util::storage(ZvmLevel::V5R3, 1024, 64, &[], &[1024]);
        let mut cp = CpWork::default();
        st.touch(st.space(SpaceId(0)), 0, Access::Read, &mut cp);
        // The segment's only resident page leaves (to XSTOR); its PGMBK stays for now.
        st.steal(test_util::frame_of(&st, 0), &mut cp);
        assert_eq!(st.seg_resident[0], 0);
        assert_eq!(st.pgmbk_frames(), PGMBK_FRAMES as u64);
        let before = st.available();
        let freed = st.release_empty_pgmbks(u64::MAX, false, &mut cp);
        assert_eq!(freed, PGMBK_FRAMES as u64);
        assert_eq!(st.pgmbk_frames(), 0);
        assert_eq!(st.available(), before + PGMBK_FRAMES as u64);
    }
}
