//! Address spaces added while z/VM runs: a saved segment's shared pages (one space, however
//! many guests load it, so a shared frame belongs to one segment and counts once) and a
//! guest's nonshared copy of a segment. A read-only segment's pages (SR, ER) are backed by
//! the segment's spool file: they are never changed, and CP never writes them to paging DASD.
//! Under pressure they go to XSTOR like any page; where a changed page would go on to DASD
//! (XSTOR migration, or a steal with no XSTOR) CP drops them, and a later reference reads the
//! page again from spool (IBM's DCSS study, seed 000: "They are not moved to the paging DASDs
//! because they could be read from spool").
//!
//! A spool re-read after a drop is resolved in one step with CP's per-page spool cost
//! (`cp_spool_read_page`) and no I/O wait: a simplification, rare once the working set of
//! the segment stays in storage or XSTOR.

use super::{
    CpWork, Owner, Space, SpaceId, SpaceSpec, Storage, CHANGED, CHUNK_WORDS, NONE, PGMBK_FRAMES,
    REF, SEG_PAGES,
};

/// `space_of` counts the space bases at or below a page when there are at most this many,
/// and searches them when there are more.
const SPACES_COUNTED: usize = 32;

/// What the saved-segment spaces hold, summed over all segments (a shared copy counted once).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SegmentCounts {
    /// Pages with a place (loaded): resident, in XSTOR or on DASD.
    pub loaded: u64,
    pub resident: u64,
    pub xstor: u64,
    pub dasd: u64,
}

/// Per address space: who owns it and whether it is a read-only saved segment.
pub(crate) struct SpaceKinds {
    owner: Vec<Option<Owner>>,
    ro: Vec<bool>,
    any_ro: bool,
    /// Some space is a saved segment's shared copy (demand scan's shared list is not empty).
    pub(super) any_segment: bool,
    /// Pages of read-only segments dropped instead of going to paging DASD.
    pub spool_dropped: u64,
    /// References that found such a page dropped and read it again from spool.
    pub spool_refaults: u64,
    /// Writes to a read-only segment's page (must stay 0: an invariant).
    pub ro_writes: u64,
}

impl SpaceKinds {
    pub(super) fn new(spaces: usize) -> Self {
        SpaceKinds {
            owner: vec![None; spaces],
            ro: vec![false; spaces],
            any_ro: false,
            any_segment: false,
            spool_dropped: 0,
            spool_refaults: 0,
            ro_writes: 0,
        }
    }

    /// Some space holds a read-only segment's pages.
    #[inline]
    pub(super) fn any_ro(&self) -> bool {
        self.any_ro
    }

    /// Space `g` holds a read-only segment's pages.
    #[inline]
    pub(super) fn read_only(&self, g: usize) -> bool {
        self.any_ro && self.ro[g]
    }

    pub(super) fn is_segment(&self, g: usize) -> bool {
        matches!(self.owner[g], Some(Owner::Segment(_)))
    }
}

impl Storage {
    /// Has the memory of the words of pages 0..`pages` of space `s` made resident ahead of
    /// a warm start that writes them (engine/huge.rs, `populate`): results unchanged.
    pub fn populate_words(&self, s: SpaceId, pages: u32) {
        let i = s.0 as usize;
        let lo = self.space_base[i];
        let hi = self.space_base[i + 1].min(lo.saturating_add(pages));
        self.pg.populate(lo as usize..hi as usize);
    }

    /// A first use of `page`: once a space's first uses pass the middle of a chunk of page
    /// words, the next chunk is cleared on the other core. A guest's Linux hands out its
    /// never-used pages lowest first (engine/freelist.rs), so first uses climb through its
    /// words, and each chunk is a huge page the kernel would otherwise clear on this thread at
    /// the first write. A space that stops before the middle costs no memory ahead.
    pub(super) fn first_use_ahead(&mut self, page: u32) {
        let (c, off) = (page as usize / CHUNK_WORDS, page as usize % CHUNK_WORDS);
        if off < CHUNK_WORDS / 2 || self.pg_ahead.contains(c + 1) {
            return;
        }
        let end = self.space_base[self.space_of(page) + 1] as usize;
        let lo = (c + 1) * CHUNK_WORDS;
        if lo < end {
            self.pg_ahead.insert(c + 1);
            self.pg.populate_later(lo..end.min(lo + CHUNK_WORDS));
        }
    }

    /// The address space of a global page (for the per-space counters, on page movements only).
    pub(super) fn space_of(&self, page: u32) -> usize {
        let b = &self.space_base;
        // The bases ascend: the spaces starting at or below the page are those before the
        // partition point. A few bases are counted (compares side by side, a third less
        // latency than the binary search's chain of dependent loads at ten guests); many are
        // searched.
        if b.len() <= SPACES_COUNTED {
            b.iter().map(|&x| (x <= page) as u32).sum::<u32>() as usize - 1
        } else {
            b.partition_point(|&x| x <= page) - 1
        }
    }

    /// Whether `page` (global) is a read-only saved segment's: the space is looked up only
    /// where there are such segments.
    #[inline]
    pub(super) fn page_read_only(&self, page: u32) -> bool {
        self.kinds.any_ro() && self.kinds.read_only(self.space_of(page))
    }

    /// Add an address space of `spec.pages` (whole segments) after the others; `read_only`:
    /// a shared SR/ER segment backed by its spool file. The new space starts empty.
    pub fn add_space(&mut self, spec: SpaceSpec, read_only: bool) -> SpaceId {
        let id = SpaceId((self.space_base.len() - 1) as u32);
        let base = *self.space_base.last().unwrap_or(&0);
        let end = base + spec.pages.div_ceil(SEG_PAGES) * SEG_PAGES;
        self.space_base.push(end);
        let total = end as usize;
        self.pg.resize(total, 0);
        self.pg_ahead.grow(total.div_ceil(CHUNK_WORDS));
        if !self.gstate.is_empty() {
            self.gstate.resize(total, 0);
        }
        let segs = total.div_ceil(SEG_PAGES as usize);
        self.seg_resident.resize(segs, 0);
        self.seg_pgmbk.resize(segs, [NONE; PGMBK_FRAMES]);
        self.open_blocks.push(Vec::new());
        self.space_resident.push(0);
        self.space_below.push(0);
        self.space_xstor.push(0);
        self.space_slots.push(0);
        self.cmma.push(Default::default());
        let n = self.space_resident.len();
        if let Some(a) = self.aging.as_mut() {
            a.grow(n);
        }
        self.kinds.owner.resize(n, None);
        self.kinds.ro.resize(n, false);
        self.kinds.owner[n - 1] = Some(spec.owner);
        self.kinds.ro[n - 1] = read_only;
        self.kinds.any_ro |= read_only;
        self.kinds.any_segment |= matches!(spec.owner, Owner::Segment(_));
        id
    }

    /// Address spaces there are (guests', segments', VDISKs').
    pub fn space_count(&self) -> usize {
        self.space_resident.len()
    }

    /// Pages of space `s` (whole segments).
    pub fn space_pages(&self, s: SpaceId) -> u32 {
        let g = s.0 as usize;
        self.space_base[g + 1] - self.space_base[g]
    }

    /// The space is given up (a segment's last user left, a nonshared copy removed): every
    /// page is dropped wherever it is, without being written. Returns the pages dropped.
    pub fn discard_space(&mut self, s: SpaceId) -> u64 {
        debug_assert!(!self.blocks_open());
        let sp = self.space(s);
        let mut n = 0;
        for p in 0..self.space_pages(s) {
            n += self.drop_page(sp, p) as u64;
        }
        n
    }

    /// CP read `page` of segment space `s` from its spool file: resident and unchanged (its
    /// copy is the spool file's). A page with a place already is left where it is. Returns
    /// whether the page was loaded.
    pub fn load_page(&mut self, s: Space, page: u32, cp: &mut CpWork) -> bool {
        if self.was_touched(s.id, page) {
            return false;
        }
        let gp = s.base + page;
        self.touched += 1;
        self.make_resident(gp, true, cp);
        self.pg[gp as usize] &= !(CHANGED | REF);
        true
    }

    /// Drop page `page` of `s` from every place it has (no write). Returns whether it had one.
    pub(super) fn drop_page(&mut self, s: Space, page: u32) -> bool {
        let mut scratch = CpWork::default();
        let had = self.release_page(s, page, &mut scratch);
        if had {
            self.moved.released -= 1;
        }
        had
    }

    /// A page leaving XSTOR for DASD, or stolen where it would go to DASD: a read-only
    /// segment's page is dropped instead (its copy is on spool). Returns whether it was.
    pub(super) fn drop_spool_backed(&mut self, page: u32) -> bool {
        if !self.kinds.any_ro || !self.kinds.ro[self.space_of(page)] {
            return false;
        }
        self.touched -= 1;
        self.kinds.spool_dropped += 1;
        true
    }

    /// A write to `page` (global): counted if it is a read-only segment's (never should be).
    #[inline]
    pub(super) fn note_write(&mut self, page: u32) {
        if self.kinds.any_ro && self.kinds.ro[self.space_of(page)] {
            self.kinds.ro_writes += 1;
        }
    }

    /// The saved segments' pages (shared copies only, each counted once).
    pub fn segment_counts(&self) -> SegmentCounts {
        let mut c = SegmentCounts::default();
        for g in 0..self.space_resident.len() {
            if !self.kinds.is_segment(g) {
                continue;
            }
            let l = self.space_locations(SpaceId(g as u32));
            c.resident += l.resident;
            c.xstor += l.xstor;
            c.dasd += l.dasd;
            // Loaded counts each page once: a resident or XSTOR page may keep its DASD slot
            // (`dasd` counts the slots, as zvmsim's other DASD page counts do), so with slots
            // the space's pages are walked (at a report, not per reference).
            c.loaded += if l.dasd == 0 {
                l.resident + l.xstor
            } else {
                let (lo, hi) = (self.space_base[g] as usize, self.space_base[g + 1] as usize);
                (lo..hi)
                    .filter(|&i| {
                        self.held_frame(i).is_some()
                            || self.xstor_block(i) != NONE
                            || self.slot(i) != NONE
                    })
                    .count() as u64
            };
        }
        c
    }

    /// Frames of saved segments' shared pages (the Performance Toolkit's resident shared
    /// frames).
    pub fn resident_shared_frames(&self) -> u64 {
        self.segment_counts().resident
    }

    /// Pages of read-only segments dropped instead of written, and read again from spool.
    pub fn spool_drops(&self) -> (u64, u64) {
        (self.kinds.spool_dropped, self.kinds.spool_refaults)
    }

    /// The invariants of saved segments: no write reached a read-only segment's page, none of
    /// its pages is changed or on a DASD slot.
    pub(super) fn check_segments(&self) -> Result<(), String> {
        if self.kinds.ro_writes > 0 {
            return Err(format!(
                "{} writes to read-only saved segment pages",
                self.kinds.ro_writes
            ));
        }
        for g in 0..self.space_resident.len() {
            if !self.kinds.read_only(g) {
                continue;
            }
            if self.space_slots[g] > 0 {
                return Err(format!(
                    "read-only segment space {g} has {} pages on paging DASD",
                    self.space_slots[g]
                ));
            }
            let (a, b) = (self.space_base[g] as usize, self.space_base[g + 1] as usize);
            if let Some(i) = (a..b).find(|&i| self.pg[i] & CHANGED != 0) {
                return Err(format!("read-only segment page {i} is changed"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util;
    use super::super::{Access, CpWork, SpaceId, Touch, CHUNK_WORDS};
    use crate::config::scenario::ZvmLevel;

    /// First uses climbing through a space ask for the next chunk of page words once past
    /// the middle of one, within the space only, and each chunk once.
    #[test]
    fn first_uses_clear_the_next_chunk_of_their_space_once() {
        let c = CHUNK_WORDS as u32;
        let mut st = test_util::storage(ZvmLevel::V5R3, 5 * c, 0, &[64], &[3 * c, 2 * c]);
        let mut cp = CpWork::default();
        let asked = |st: &super::Storage| st.pg_ahead.ones().collect::<Vec<_>>();
        let (s0, s1) = (st.space(SpaceId(0)), st.space(SpaceId(1)));
        for p in 0..c / 2 {
            assert_eq!(st.touch(s0, p, Access::Write, &mut cp), Touch::FirstUse);
        }
        assert_eq!(
            asked(&st),
            Vec::<usize>::new(),
            "before the middle: nothing"
        );
        st.touch(s0, c / 2, Access::Write, &mut cp);
        assert_eq!(asked(&st), vec![1]);
        for p in c / 2..3 * c {
            st.touch(s0, p, Access::Read, &mut cp);
        }
        // Chunk 3 is space 1's: space 0's first uses never ask for it.
        assert_eq!(asked(&st), vec![1, 2]);
        for p in 0..c / 2 + 1 {
            st.touch(s1, p, Access::Write, &mut cp);
        }
        assert_eq!(asked(&st), vec![1, 2, 4]);
        // Every page word reads as the touches left it.
        assert_eq!(st.space_locations(SpaceId(0)).resident, 3 * c as u64);
        assert_eq!(st.space_locations(SpaceId(1)).resident, (c / 2 + 1) as u64);
        st.check_invariants().unwrap();
    }
}
