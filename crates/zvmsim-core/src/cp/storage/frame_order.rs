//! Before z/VM 6.3: the order of the resident pages under demand scan's clock after a warm
//! start. The clock examines frames in address order, and a page's frame is the one the
//! available list gave it when it last came in. The ordered warm start touches pages coldest
//! first while the clock steals behind it, so a page's frame ends up a step of the hand ahead
//! of the page touched just before it: the hand's next revolution meets the resident pages
//! coldest first, as the 6.3 visits met the frame-owned lists (`shuffle_frame_owned`). After
//! hours of running, where a page sits says when it last came in, not how popular it is; this
//! puts the resident pages in random frames (*inference*, as for the frame-owned lists).

use super::{Storage, CP_OWNED, FRAMES_BELOW_2G, NONE};

impl Storage {
    /// Permute the valid guest pages among the frames they hold, below and above 2 GB
    /// separately (a page CP keeps below 2 GB stays there, and the counts of frames below 2 GB
    /// stay exact). Reference and change bits, slots and XSTOR copies go with the pages.
    /// Nothing happens from z/VM 6.3 on (`shuffle_frame_owned` orders those lists).
    pub fn shuffle_resident_frames(&mut self, rng: &mut crate::engine::rng::Stream) {
        if self.aging.is_some() {
            return;
        }
        // The take-first CMMA frames follow their pages (entries stay in their order).
        let cmma_pages: Vec<u32> = self
            .cmma_first
            .iter()
            .map(|&f| self.fr_page.get(f))
            .collect();
        let n = self.fr_page.len() as u32;
        for (lo, hi) in [(0, FRAMES_BELOW_2G.min(n)), (FRAMES_BELOW_2G.min(n), n)] {
            let frames: Vec<u32> = (lo..hi)
                .filter(|&f| {
                    let p = self.fr_page.get(f);
                    p < CP_OWNED && self.place(p as usize) == f
                })
                .collect();
            let mut pages: Vec<u32> = frames.iter().map(|&f| self.fr_page.get(f)).collect();
            for i in (1..pages.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                pages.swap(i, j);
            }
            for (&f, &p) in frames.iter().zip(&pages) {
                self.fr_page.set(f, p);
                self.set_place(p as usize, f);
            }
        }
        // Per space, the pages below 2 GB.
        self.space_below.iter_mut().for_each(|c| *c = 0);
        for f in 0..FRAMES_BELOW_2G.min(n) {
            let p = self.fr_page.get(f);
            if p < CP_OWNED && self.place(p as usize) == f {
                let g = self.space_of(p);
                self.space_below[g] += 1;
            }
        }
        self.cmma_first = cmma_pages
            .into_iter()
            .filter(|&p| p < CP_OWNED)
            .map(|p| self.place(p as usize))
            .filter(|&f| f < n && f != NONE)
            .collect();
        // Demand scan's companion notes name frames: none exist after a warm start (no page
        // came back from DASD), and stale ones are skipped when reached.
    }

    /// Permute each address space's pages that are only on DASD among the slots they hold.
    /// The ordered warm start pages out coldest first, so a block holds pages of neighbouring
    /// popularity (neighbouring database buffers): a block read is then a prefetch of pages
    /// about as hot as the one that faulted. In a long-running system a block holds the pages
    /// demand scan or the aging list found unused in one period, whatever their rank
    /// (*inference*, as for the frames). Blocks stay of one space; the slots in use do not
    /// change.
    pub fn shuffle_dasd_blocks(&mut self, rng: &mut crate::engine::rng::Stream) {
        for g in 0..self.space_base.len() - 1 {
            let (lo, hi) = (self.space_base[g], self.space_base[g + 1]);
            let pages: Vec<u32> = (lo..hi)
                .filter(|&p| {
                    let i = p as usize;
                    self.slot(i) != NONE
                        && self.held_frame(i).is_none()
                        && self.xstor_block(i) == NONE
                })
                .collect();
            let mut slots: Vec<u32> = pages.iter().map(|&p| self.slot(p as usize)).collect();
            for i in (1..slots.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                slots.swap(i, j);
            }
            for (&p, &s) in pages.iter().zip(&slots) {
                self.set_slot(p as usize, s);
                self.slot_page[s as usize] = !p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util;
    use super::super::{Access, CpWork, SpaceId, Touch};
    use crate::config::scenario::ZvmLevel;

    #[test]
    fn pages_change_frames_and_nothing_else() {
        // 5.3, 2,048 frames (all below 2 GB), two guests overcommitted through XSTOR.
        let mut st = test_util::storage(ZvmLevel::V5R3, 2048, 256, &[8192], &[2048, 2048]);
        let mut cp = CpWork::default();
        for (g, n) in [(0, 2048), (1, 1500)] {
            let sp = st.space(SpaceId(g));
            for p in 0..n {
                st.touch(sp, p, Access::Write, &mut cp);
            }
        }
        st.check_invariants().unwrap();
        let before: Vec<(bool, bool)> = (0..4096u32)
            .map(|p| {
                let g = SpaceId(p / 2048);
                (
                    st.is_resident(g, p % 2048),
                    st.page_slot(g, p % 2048) != super::NONE,
                )
            })
            .collect();
        let frames: Vec<u32> = (0..4096).map(|p| st.place(p)).collect();
        let mut rng = crate::engine::rng::Stream::new(1, 7);
        st.shuffle_resident_frames(&mut rng);
        st.check_invariants().unwrap();
        let mut moved = 0;
        for p in 0..4096u32 {
            let g = SpaceId(p / 2048);
            let now = (
                st.is_resident(g, p % 2048),
                st.page_slot(g, p % 2048) != super::NONE,
            );
            assert_eq!(now, before[p as usize], "page {p}");
            moved += (now.0 && st.place(p as usize) != frames[p as usize]) as u32;
        }
        assert!(moved > 1000, "{moved} pages changed frames");
        // The pages are still there: a reference to each resident one finds it.
        let sp = st.space(SpaceId(0));
        for p in 0..2048 {
            if before[p as usize].0 {
                assert_eq!(st.touch(sp, p, Access::Read, &mut cp), Touch::Resident);
            }
        }
    }

    #[test]
    fn dasd_pages_change_slots_within_their_space_and_read_back() {
        // 5.3 without XSTOR: two guests, most pages on DASD only.
        let mut st = test_util::storage(ZvmLevel::V5R3, 1024, 0, &[16384], &[4096, 4096]);
        let mut cp = CpWork::default();
        for g in 0..2 {
            let sp = st.space(SpaceId(g));
            for p in 0..3000 {
                st.touch(sp, p, Access::Write, &mut cp);
            }
        }
        let slots = |st: &super::Storage, g: u32| -> Vec<u32> {
            let mut v: Vec<u32> = (0..3000)
                .filter(|&p| !st.is_resident(SpaceId(g), p))
                .map(|p| st.page_slot(SpaceId(g), p))
                .collect();
            v.sort_unstable();
            v
        };
        let before = [slots(&st, 0), slots(&st, 1)];
        let first = st.page_slot(SpaceId(0), 0);
        let mut rng = crate::engine::rng::Stream::new(1, 9);
        st.shuffle_dasd_blocks(&mut rng);
        st.check_invariants().unwrap();
        // Each space holds the same slots, its pages in other ones.
        assert_eq!([slots(&st, 0), slots(&st, 1)], before);
        assert_ne!(st.page_slot(SpaceId(0), 0), first);
        // A page still reads back from its new slot.
        let sp = st.space(SpaceId(0));
        let Touch::OnDasd { group } = st.touch(sp, 0, Access::Read, &mut cp) else {
            panic!("page 0 not on DASD");
        };
        st.complete_pagein(group, &mut cp);
        assert!(st.is_resident(SpaceId(0), 0));
        st.check_invariants().unwrap();
    }
}
