//! The global aging list: real storage management of z/VM 6.3 and later, in place of demand
//! scan (IBM's z/VM 6.3 performance report "z/VM 6.3 Memory Management"; IBM's AGEBK and
//! PGAUX control blocks; docs/storage.md). z/VM 6.4 and 7.1 manage storage so.
//!
//! * Each guest's valid frames are on its frame-owned list, oldest first: a frame joins the
//!   tail when the page gets it (first use, page-in) or is revalidated.
//! * When the available list falls below its low threshold, CP's reclaim visits the guests'
//!   lists and takes frames from their heads, each guest in proportion to its valid frames
//!   (inference: the report describes visits, not their shares). Each frame taken is
//!   trial-invalidated: its page table entry is made invalid, but the frame keeps the page,
//!   and it goes to the tail of the global aging list. The visit takes enough to keep the list
//!   at its size (SET AGELIST SIZE) after the frames this reclaim takes from its head.
//! * A reference to a page on the aging list is a page fault CP resolves without I/O: the page
//!   is revalidated in its frame, which goes back to the tail of its owner's list
//!   (`Touch::Revalidated`, `cp_agelist_revalidate`).
//! * Frames are reclaimed from the head of the list, as demand scan's steals were: an
//!   unchanged page with a DASD copy is dropped, a changed one is paged out to DASD first.
//! * EARLYWRITES YES: after each reclaim, CP writes the changed pages of the head share of the
//!   list (`agelist_early_write_share`) to DASD ahead of need, so that reclaim finds them
//!   clean; a written page stays on the list with its frame (and its slot).
//! * A block read validates the pages whose faults it serves; the block's other pages come in
//!   invalid but resident at the tail of the aging list (`ModelParams::agelist_block_read_ibr`,
//!   an inference): a reference revalidates one, reclaim takes it unreferenced, slot kept.
//! * KEEPSLOT YES: a page read back from DASD keeps its slot (`complete_pagein`); NO releases
//!   it on page-in. Past `keepslot_release_full` of the paging space (an inference), a block
//!   read gives up its whole slot group as under NO (`Storage::keepslot_suspended`).
//!
//! One pair of links per frame serves every list, since a frame is on exactly one: its owner's
//! frame-owned list while valid, the aging list while invalid but resident. The system's
//! frame-owned list (shared saved segments) has no pageable frames in the model yet.

use super::{CpWork, Storage, AGED, CHANGED, CP_OWNED, NONE, REF};
use crate::config::agelist::AgelistSettings;

/// A doubly linked list of frames (through `Aging::prev` and `Aging::next`).
#[derive(Debug, Clone, Copy)]
struct List {
    head: u32,
    tail: u32,
    len: u64,
}

const EMPTY: List = List {
    head: NONE,
    tail: NONE,
    len: 0,
};

/// The frame-owned lists, the global aging list and their settings.
pub(super) struct Aging {
    settings: AgelistSettings,
    /// Frames of the dynamic paging area (the pageable frames).
    dpa: u64,
    /// Frames the list is kept at (SIZE of the dynamic paging area).
    target: u64,
    /// Per frame: its neighbours on the list it is on.
    prev: super::frame_table::FrameTable,
    next: super::frame_table::FrameTable,
    /// Per frame: in the head share early writes have processed (a bit, not a byte: 0.9 GB
    /// less at 4 TB).
    early: fixedbitset::FixedBitSet,
    list: List,
    /// Per address space: its frame-owned list of valid frames.
    owned: Vec<List>,
    /// Frames of the processed head share, and its last frame (NONE: none processed).
    early_len: u64,
    early_last: u32,
    /// The address space the next visit starts with (round robin).
    visit_next: usize,
    /// Pages whose faults started or joined a block read still under way: (slot group, page).
    faulted: Vec<(u32, u32)>,
    /// The pages of the block read completing now that faulted (a buffer reused).
    faulted_now: Vec<u32>,
}

/// Fault records kept at most (a bound on memory only: a record outlives its read only when a
/// fault is never followed by the read, and the oldest half is dropped past it).
const FAULTED_BOUND: usize = 1 << 16;

/// What the aging list holds, for QUERY AGELIST, the interval rows and the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgelistState {
    pub settings: AgelistSettings,
    /// Frames the list is kept at.
    pub target_frames: u64,
    /// Frames on the list now.
    pub frames: u64,
    /// Frames of its head share that early writes have processed.
    pub early_frames: u64,
}

impl Aging {
    pub(super) fn new(frames: usize, spaces: usize, dpa: u64) -> Self {
        let settings = AgelistSettings::default();
        Aging {
            settings,
            dpa,
            target: settings.size.frames(dpa),
            prev: super::frame_table::FrameTable::new(frames),
            next: super::frame_table::FrameTable::new(frames),
            early: fixedbitset::FixedBitSet::with_capacity(frames),
            list: EMPTY,
            owned: vec![EMPTY; spaces],
            early_len: 0,
            early_last: NONE,
            visit_next: 0,
            faulted: Vec::new(),
            faulted_now: Vec::new(),
        }
    }

    /// Address spaces added at run time (saved segments): `spaces` spaces in all now.
    pub(super) fn grow(&mut self, spaces: usize) {
        self.owned.resize(spaces, EMPTY);
    }

    fn push_tail(&mut self, which: Option<usize>, f: u32) {
        let l = match which {
            Some(g) => &mut self.owned[g],
            None => &mut self.list,
        };
        self.prev.set(f, l.tail);
        self.next.set(f, NONE);
        if l.tail == NONE {
            l.head = f;
        } else {
            self.next.set(l.tail, f);
        }
        l.tail = f;
        l.len += 1;
    }

    fn remove(&mut self, which: Option<usize>, f: u32) {
        let (p, n) = (self.prev.get(f), self.next.get(f));
        let l = match which {
            Some(g) => &mut self.owned[g],
            None => &mut self.list,
        };
        if p == NONE {
            l.head = n;
        } else {
            self.next.set(p, n);
        }
        if n == NONE {
            l.tail = p;
        } else {
            self.prev.set(n, p);
        }
        l.len -= 1;
        self.prev.set(f, NONE);
        self.next.set(f, NONE);
    }

    /// Frame `f` of address space `g` became valid: the tail of its frame-owned list.
    #[inline]
    pub(super) fn link_valid(&mut self, g: usize, f: u32) {
        self.push_tail(Some(g), f);
    }

    /// Take frame `f` off the aging list, keeping the processed head share a prefix of the
    /// list (the caller clears the page's AGED bit).
    fn leave_list(&mut self, f: u32) {
        if self.early.contains(f as usize) {
            self.early.set(f as usize, false);
            self.early_len -= 1;
            if self.early_last == f {
                self.early_last = self.prev.get(f);
            }
        }
        self.remove(None, f);
    }

    /// Frames in the head share early writes keep written.
    fn early_zone(&self, share: f64) -> u64 {
        (self.target as f64 * share).ceil() as u64
    }
}

impl Storage {
    /// The aging list's settings and contents; `None` before z/VM 6.3.
    pub fn agelist(&self) -> Option<AgelistState> {
        self.aging.as_ref().map(|a| AgelistState {
            settings: a.settings,
            target_frames: a.target,
            frames: a.list.len,
            early_frames: a.early_len,
        })
    }

    /// SET AGELIST (or the scenario's `[lpar.agelist]` at IPL): the new size applies at the
    /// next reclaim, which gives back from the head what exceeds it; EARLYWRITES and KEEPSLOT
    /// apply to what CP does from now on (pages written or slots kept stay so). Returns false
    /// on a release without the aging list, changing nothing.
    pub fn set_agelist(&mut self, settings: AgelistSettings) -> bool {
        let Some(a) = self.aging.as_mut() else {
            return false;
        };
        a.settings = settings;
        a.target = settings.size.frames(a.dpa);
        self.keep_slot = settings.keep_slot;
        true
    }

    /// Put each frame-owned list in the order a long-running system leaves it (called after
    /// the warm start, 6.3 and later). A frame joins its list's tail when its page comes in or
    /// is revalidated, and the visits go round each list in one order, so after many rounds a
    /// frame's place says when it last entered (a phase in the round), not how popular its page
    /// is (*inference*: IBM's report describes the lists as FIFO, not their state after hours).
    /// The warm start instead links each guest's pages coldest first, so the visits swept its
    /// pages from cold to hot over one round: in the ten-guest 7.1 run throughput fell from
    /// 2,078 to 28 tx/s over 19 minutes as they reached the text and other shared memory every
    /// get references (564 DASD page-ins a transaction), and climbed back as those, faulted in
    /// together, went to the tails together. The aging list itself is left as it is.
    pub fn shuffle_frame_owned(&mut self, rng: &mut crate::engine::rng::Stream) {
        let Some(a) = self.aging.as_mut() else {
            return;
        };
        let mut frames = Vec::new();
        for g in 0..a.owned.len() {
            frames.clear();
            let mut f = a.owned[g].head;
            while f != NONE {
                frames.push(f);
                f = a.next.get(f);
            }
            for i in (1..frames.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                frames.swap(i, j);
            }
            a.owned[g] = EMPTY;
            for &f in &frames {
                a.push_tail(Some(g), f);
            }
        }
    }

    /// Frame `f` of `page` leaves whichever list it is on (steal and release take it).
    #[inline]
    pub(super) fn agelist_unlink(&mut self, f: u32, page: u32) {
        if self.aging.is_none() {
            return;
        }
        let g = self.space_of(page);
        let Some(a) = self.aging.as_mut() else {
            return;
        };
        let i = page as usize;
        if self.pg[i] & AGED != 0 {
            a.leave_list(f);
            self.pg[i] &= !AGED;
        } else {
            a.remove(Some(g), f);
        }
    }

    /// A reference found `page` (of slot group `group`) on DASD: CP resolves the fault with a
    /// block read, which validates this page. Noted only where the block's other pages come in
    /// IBR (`block_read_ibr`).
    #[inline]
    pub(super) fn note_fault(&mut self, group: u32, page: u32) {
        if !self.p.agelist_block_read_ibr {
            return;
        }
        if let Some(a) = self.aging.as_mut() {
            if a.faulted.len() >= FAULTED_BOUND {
                a.faulted.drain(..FAULTED_BOUND / 2);
            }
            a.faulted.push((group, page));
        }
    }

    /// The block read of slot group `group` completes: take the faults it serves. Returns
    /// whether the block's other pages come in IBR on the aging list.
    pub(super) fn block_read_ibr(&mut self, group: u32) -> bool {
        if !self.p.agelist_block_read_ibr {
            return false;
        }
        let Some(a) = self.aging.as_mut() else {
            return false;
        };
        let mut now = std::mem::take(&mut a.faulted_now);
        now.clear();
        a.faulted.retain(|&(gr, p)| {
            if gr == group {
                now.push(p);
            }
            gr != group
        });
        a.faulted_now = now;
        true
    }

    /// Whether `page`'s fault is one the completing block read serves (`block_read_ibr`).
    pub(super) fn faulted_now(&self, page: u32) -> bool {
        self.aging
            .as_ref()
            .is_some_and(|a| a.faulted_now.contains(&page))
    }

    /// A block read brought `page` into frame `f` besides the faults it serves: the page table
    /// entry stays invalid and the frame goes to the tail of the aging list, the page
    /// unreferenced (REF, free on an aged page, marks it so until a reference revalidates it
    /// or reclaim takes it: `companions_stolen`). Its frame just joined its owner's list.
    pub(super) fn park_companion(&mut self, page: u32, f: u32) {
        let g = self.space_of(page);
        let Some(a) = self.aging.as_mut() else {
            return;
        };
        a.remove(Some(g), f);
        a.push_tail(None, f);
        self.pg[page as usize] |= AGED | REF;
    }

    /// A reference found `page` on the aging list in frame `f`: the page is valid again in its
    /// frame, which goes back to the tail of its owner's list. No I/O.
    pub(super) fn revalidate(&mut self, page: u32, f: u32, cp: &mut CpWork) {
        let g = self.space_of(page);
        let i = page as usize;
        if let Some(a) = self.aging.as_mut() {
            a.leave_list(f);
            a.push_tail(Some(g), f);
        }
        self.pg[i] = (self.pg[i] & !AGED) | REF;
        self.moved.agelist_revalidated += 1;
        cp.ns += self.p.cp_agelist_revalidate.ns();
    }

    /// Trial invalidation of up to `n` valid frames, taken from the heads of the address
    /// spaces' frame-owned lists in proportion to their lengths, round robin from the space
    /// after the last visit's first. Returns the frames moved to the aging list.
    fn trial_invalidate(&mut self, n: u64, cp: &mut CpWork) -> u64 {
        let Some(a) = self.aging.as_mut() else {
            return 0;
        };
        let spaces = a.owned.len();
        let total: u64 = a.owned.iter().map(|l| l.len).sum();
        let n = n.min(total);
        if n == 0 || spaces == 0 {
            return 0;
        }
        let start = a.visit_next;
        a.visit_next = (start + 1) % spaces;
        let mut moved = 0u64;
        for k in 0..spaces {
            let g = (start + k) % spaces;
            let a = self.aging.as_mut().expect("aging list");
            let len = a.owned[g].len;
            // A share rounded up: the shares add up to at least `n` in one round.
            let share = (n as u128 * len as u128).div_ceil(total as u128) as u64;
            let take = share.min(n - moved).min(len);
            for _ in 0..take {
                let a = self.aging.as_mut().expect("aging list");
                let f = a.owned[g].head;
                a.remove(Some(g), f);
                let page = self.fr_page.get(f);
                let i = page as usize;
                a.push_tail(None, f);
                // The page table entry is invalid; the frame keeps the page (and whether it
                // changed), and the word its number.
                self.pg[i] = (self.pg[i] | AGED) & !REF;
            }
            moved += take;
            if moved == n {
                break;
            }
        }
        self.moved.agelist_invalidated += moved;
        cp.ns += moved * self.p.cp_trial_invalidate.ns();
        moved
    }

    /// CP's reclaim when the available list falls below its low threshold (z/VM 6.3 and
    /// later): empty segments' PGMBKs and CMMA's unused and volatile frames first, as demand
    /// scan took them; then a visit tops the aging list up, frames are reclaimed from its head
    /// until the available list reaches its high threshold (and the list its size), and early
    /// writes clean the new head share.
    pub(super) fn agelist_replenish(&mut self, cp: &mut CpWork) {
        let high = self.high_mark as u64;
        let want = high.saturating_sub(self.avail_free());
        self.release_empty_pgmbks(want, false, cp);
        self.steal_cmma_first(high, cp);
        let need = high.saturating_sub(self.avail_free());
        let (target, len) = match &self.aging {
            Some(a) => (a.target, a.list.len),
            None => return,
        };
        self.trial_invalidate((target + need).saturating_sub(len), cp);
        loop {
            let (head, len) = match &self.aging {
                Some(a) => (a.list.head, a.list.len),
                None => return,
            };
            let short = high.saturating_sub(self.avail_free());
            if short == 0 && len <= target {
                break;
            }
            if head == NONE {
                // Every frame on the list was revalidated since the visit: visit again.
                if self.trial_invalidate(short, cp) == 0 {
                    break;
                }
                continue;
            }
            // A block-read page nobody referenced (`park_companion`): taken with its slot kept.
            if self.pg[self.fr_page.get(head) as usize] & REF != 0 {
                self.moved.companions_stolen += 1;
            }
            self.steal(head, cp);
            self.moved.agelist_reclaimed += 1;
        }
        if self.aging.as_ref().is_some_and(|a| a.settings.early_writes) {
            self.early_writes();
        }
        self.flush_open_block();
    }

    /// EARLYWRITES YES: the changed pages of the list's head share are paged out to DASD now,
    /// in blocks, and stay on the list with their frames. A page whose copy is current is
    /// left as it is; a CMMA unused or volatile page needs no copy at all. The CP time of the
    /// write is in `cp_steal`, which the reclaim pays, as for demand scan's page-outs.
    fn early_writes(&mut self) {
        let share = self.p.agelist_early_write_share;
        loop {
            let Some(a) = self.aging.as_mut() else {
                return;
            };
            if a.early_len >= a.early_zone(share) {
                return;
            }
            let f = match a.early_last {
                NONE => a.list.head,
                last => a.next.get(last),
            };
            if f == NONE {
                return;
            }
            a.early.insert(f as usize);
            a.early_len += 1;
            a.early_last = f;
            let page = self.fr_page.get(f);
            let i = page as usize;
            let slot = self.slot(i);
            let current = slot != NONE && self.pg[i] & CHANGED == 0;
            // A read-only saved segment's page needs no copy either: its copy is the
            // segment's spool file (reclaim drops it, `drop_spool_backed`).
            if current || self.guest_state(i) != 0 || self.page_read_only(page) {
                continue;
            }
            if slot != NONE {
                // A stale copy: the page is written to a new block.
                self.release_slot(page, slot);
            }
            self.page_out_to_dasd(page);
            self.moved.agelist_early_writes += 1;
        }
    }

    /// The aging list's own checks (the tests'): every frame a page holds is on its owner's
    /// list (valid) or on the aging list (invalid), never both; the lists are well linked and
    /// their lengths counted right; the processed head share is a prefix of the list.
    pub(super) fn check_agelist(&self) -> Result<(), String> {
        let Some(a) = &self.aging else {
            return Ok(());
        };
        for (f, page) in self.fr_page.iter().enumerate() {
            if page >= CP_OWNED {
                continue;
            }
            let valid = self.place(page as usize) == f as u32;
            let aging = self.aged_frame(page as usize) == Some(f as u32);
            if valid == aging {
                return Err(format!(
                    "frame {f} of page {page}: valid {valid}, on the aging list {aging}"
                ));
            }
        }
        for i in 0..self.pg.len() {
            let Some(f) = self.aged_frame(i) else {
                continue;
            };
            if self.fr_page.get(f) != i as u32 {
                return Err(format!(
                    "page {i} keeps frame {f} on the aging list wrongly"
                ));
            }
        }
        // The aging list, head to tail.
        let walk = |l: &List, on: &dyn Fn(u32) -> bool, what: &str| -> Result<u64, String> {
            let (mut n, mut prev, mut f) = (0u64, NONE, l.head);
            while f != NONE {
                if a.prev.get(f) != prev || !on(f) {
                    return Err(format!("{what}: frame {f} misplaced"));
                }
                n += 1;
                if n > self.fr_page.len() as u64 {
                    return Err(format!("{what}: a cycle"));
                }
                (prev, f) = (f, a.next.get(f));
            }
            if prev != l.tail || n != l.len {
                return Err(format!("{what}: {n} frames linked, {} counted", l.len));
            }
            Ok(n)
        };
        let page_of = |f: u32| self.fr_page.get(f) as usize;
        walk(
            &a.list,
            &|f| self.aged_frame(page_of(f)) == Some(f),
            "aging list",
        )?;
        let mut owned = 0;
        for (g, l) in a.owned.iter().enumerate() {
            let mine = |f: u32| {
                let p = page_of(f);
                self.place(p) == f && self.space_of(p as u32) == g
            };
            owned += walk(l, &mine, &format!("frame-owned list of space {g}"))?;
        }
        if owned + a.list.len != self.resident {
            return Err(format!(
                "valid {owned} + aging {} frames != resident pages {}",
                a.list.len, self.resident
            ));
        }
        // The processed head share: the first `early_len` frames, ending at `early_last`.
        let (mut f, mut k, mut last) = (a.list.head, 0u64, NONE);
        while f != NONE && a.early.contains(f as usize) {
            (k, last, f) = (k + 1, f, a.next.get(f));
        }
        let flagged = a.early.count_ones(..) as u64;
        if k != a.early_len || flagged != k || last != a.early_last {
            return Err(format!(
                "early-write share: {k} frames from the head, {flagged} marked, {} counted",
                a.early_len
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "agelist_tests.rs"]
mod tests;
