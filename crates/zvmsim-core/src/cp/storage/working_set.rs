//! Demand scan's per-user working-set rule (z/VM before 6.3, `ModelParams::working_set_steal`,
//! off by default).
//!
//! What the sources say: CP keeps each user's frames on a frame-owned list whose reference
//! bits reorder processing resets (IBM, "z/VM Reorder Processing"); demand scan makes two
//! regular passes and an emergency pass, each less selective, visiting the shared frame-owned
//! list (NSS, DCSS) before the dispatch-list users (CA MICS demand-scan record description);
//! IBM's z/VM 6.3 report, on the scan 6.3 replaced: pass 1 was soft on guests, pass 2 worked
//! from an inaccurate working-set estimate, pass 3 took from everyone (via
//! reference/storage-management.md). INDICATE USER shows the estimate as WS=.
//!
//! What the model makes of it (inferences: no source gives the projection or the passes'
//! bounds):
//! * The projection of a user's working set is the number of its frames the clock hand found
//!   referenced during its last full revolution over central storage: the pages it used in
//!   that period (a working set with the revolution as its window). Before the first
//!   revolution it is 0, so every user is above it and the rule changes nothing.
//! * Pass 1 (the first lap's worth of frames a scan examines) takes an unreferenced frame of a
//!   user only while the user's resident pages exceed its projection; a user within its
//!   working set is spared (its reference bits are still reset, so an unused page shows at
//!   the next revolution and the projection falls). The saved segments' shared pages have no
//!   working set of their own: their unreferenced frames are taken in pass 1, as the shared
//!   list's are. A nonshared copy or a VDISK counts as its own space.
//! * Pass 2 takes any unreferenced frame, the emergency pass any frame (demand_scan.rs).

use super::Storage;

/// The projections and the counts of the revolution under way, per address space.
#[derive(Default)]
pub(super) struct WorkingSets {
    /// Frames found referenced since the hand last passed frame 0.
    seen: Vec<u64>,
    /// The projection: what `seen` was at the end of the last full revolution.
    projected: Vec<u64>,
    /// Unreferenced frames pass 1 left to users within their working set.
    pub(super) spared: u64,
}

impl WorkingSets {
    fn grow(&mut self, spaces: usize) {
        self.seen.resize(spaces, 0);
        self.projected.resize(spaces, 0);
    }
}

impl Storage {
    /// The rule applies (before 6.3, switched on).
    #[inline]
    pub(super) fn working_set_rule(&self) -> bool {
        self.p.working_set_steal && self.aging.is_none()
    }

    /// The clock hand found a referenced frame of space `g` (and reset its bit). With
    /// `shared_list_first` a segment's frames are counted by the shared list's own hand.
    #[inline]
    pub(super) fn ws_seen(&mut self, g: usize) {
        if !(self.p.shared_list_first && self.kinds.is_segment(g)) {
            self.ws_count(g);
        }
    }

    /// A referenced frame of space `g` found (and its bit reset) by either hand.
    #[inline]
    pub(super) fn ws_count(&mut self, g: usize) {
        let n = self.space_resident.len();
        let ws = &mut self.ws;
        if ws.seen.len() < n {
            ws.grow(n);
        }
        ws.seen[g] += 1;
    }

    /// The clock hand passed the last frame: this revolution's counts become the
    /// projections (of the segments too, unless the shared list's hand keeps theirs).
    pub(super) fn ws_revolution(&mut self) {
        let n = self.space_resident.len();
        self.ws.grow(n);
        for g in 0..n {
            if !(self.p.shared_list_first && self.kinds.is_segment(g)) {
                self.ws.projected[g] = std::mem::take(&mut self.ws.seen[g]);
            }
        }
    }

    /// The shared list's hand ended a lap over the segments `segs`: their projections.
    pub(super) fn ws_shared_lap(&mut self, segs: &[usize]) {
        self.ws.grow(self.space_resident.len());
        for &g in segs {
            self.ws.projected[g] = std::mem::take(&mut self.ws.seen[g]);
        }
    }

    /// With `shared_list_first`, the shared list gives in pass 1 only its frames beyond its
    /// own projected working set (pages its hand found used during its last lap), as a user
    /// does. Inference: the sources put the list in pass 1, not how much it gives there.
    #[inline]
    pub(super) fn ws_shared_spares(&mut self, g: usize) -> bool {
        let projected = self.ws.projected.get(g).copied().unwrap_or(0);
        let spare = self.space_resident[g] <= projected;
        self.ws.spared += spare as u64;
        spare
    }

    /// Pass 1 spares an unreferenced frame of space `g`: a user (not a shared segment) whose
    /// resident pages do not exceed its projected working set.
    #[inline]
    pub(super) fn ws_spares(&mut self, g: usize) -> bool {
        if self.kinds.is_segment(g) {
            return false;
        }
        let projected = self.ws.projected.get(g).copied().unwrap_or(0);
        let spare = self.space_resident[g] <= projected;
        self.ws.spared += spare as u64;
        spare
    }

    /// Space `g`'s projected working set in pages (INDICATE USER's WS=), when the rule is on.
    pub fn projected_working_set(&self, g: usize) -> Option<u64> {
        self.working_set_rule()
            .then(|| self.ws.projected.get(g).copied().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util;
    use super::super::{CpWork, Owner, SpaceId, SpaceSpec, Storage, REF};
    use crate::config::params::ModelParams;
    use crate::config::scenario::ZvmLevel;

    /// 448 pageable frames (thresholds 64 and 128), XSTOR for every steal, two guests of 1024
    /// pages and a read-only segment of 512; the rule on or off.
    fn storage(on: bool) -> (Storage, SpaceId) {
        let p = ModelParams {
            working_set_steal: on,
            ..Default::default()
        };
        let mut st = test_util::with_params(ZvmLevel::V5R3, &p, 512, 4096, &[4096], &[1024, 1024]);
        let seg = st.add_space(
            SpaceSpec {
                owner: Owner::Segment(3),
                pages: 512,
            },
            true,
        );
        (st, seg)
    }

    fn touch(st: &mut Storage, s: SpaceId, pages: std::ops::Range<u32>) {
        let mut cp = CpWork::default();
        for p in pages {
            let sp = st.space(s);
            st.touch(sp, p, super::super::Access::Write, &mut cp);
        }
    }

    /// One revolution of the hand with nothing stolen, as demand_scan.rs makes it: each
    /// referenced frame counted for its space and its bit reset.
    fn age_lap(st: &mut Storage) {
        for f in 0..st.fr_page.len() {
            let page = st.fr_page.get(f as u32);
            if page < super::super::CP_OWNED && st.pg[page as usize] & REF != 0 {
                st.pg[page as usize] &= !REF;
                st.ws_seen(st.space_of(page));
            }
        }
        st.ws_revolution();
    }

    /// Guest 0 has 100 pages resident and uses all of them each period; guest 1 has 200 and
    /// uses 20. After a revolution the projections are 100 and 20; then every bit is reset
    /// (guest 0's pages unreferenced since, but within its working set).
    fn settled(on: bool) -> Storage {
        let (mut st, _) = storage(on);
        touch(&mut st, SpaceId(0), 0..100);
        touch(&mut st, SpaceId(1), 0..200);
        age_lap(&mut st);
        touch(&mut st, SpaceId(0), 0..100);
        touch(&mut st, SpaceId(1), 0..20);
        age_lap(&mut st);
        st
    }

    #[test]
    fn the_projection_is_what_the_last_revolution_found_referenced() {
        let st = settled(true);
        assert_eq!(st.projected_working_set(0), Some(100));
        assert_eq!(st.projected_working_set(1), Some(20));
        assert_eq!(settled(false).projected_working_set(0), None);
    }

    /// Guest 1 takes 130 more pages: storage crosses the low threshold and demand scan runs.
    fn pressure(on: bool) -> Storage {
        let mut st = settled(on);
        assert_eq!(st.moved.scans, 0);
        touch(&mut st, SpaceId(1), 200..330);
        assert!(st.moved.scans > 0, "no demand scan ran");
        st.check_invariants().unwrap();
        st
    }

    #[test]
    fn pass_1_takes_from_the_user_above_its_working_set_only() {
        let st = pressure(true);
        // Guest 0 (100 resident, projection 100) kept every page; guest 1 gave.
        assert_eq!(st.space_resident[0], 100);
        assert!(st.ws.spared > 0);
        assert!(st.space_resident[1] < 330);
        // Without the rule the clock takes guest 0's unreferenced pages as readily.
        let off = pressure(false);
        assert!(off.space_resident[0] < 100, "{}", off.space_resident[0]);
        assert_eq!(off.ws.spared, 0);
    }

    #[test]
    fn shared_segment_pages_have_no_working_set() {
        let (mut st, seg) = storage(true);
        let s = st.space(seg);
        let mut cp = CpWork::default();
        for p in 0..100 {
            st.load_page(s, p, &mut cp);
        }
        let g = seg.0 as usize;
        assert!(!st.ws_spares(g));
        st.ws_revolution();
        assert!(!st.ws_spares(g));
        // A guest with nothing resident and a projection of 0 is within it.
        assert!(st.ws_spares(0));
    }
}
