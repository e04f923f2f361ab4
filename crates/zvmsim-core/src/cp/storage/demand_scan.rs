//! Demand scan: when the available list falls below its low threshold, CP steals frames until
//! it reaches the high threshold. A clock hand over all frames stands for CP's passes over the
//! users' frame-owned lists: a referenced frame has its reference bit reset and is spared, an
//! unreferenced one is stolen. z/VM 5.2 also scans for frames below 2 GB when it lacks a free
//! pair there for a PGMBK.

use super::{
    CpWork, Storage, CHANGED, CP_OWNED, FRAMES_BELOW_2G, FRAME_NONE, NONE, REF, SEG_PAGES,
};

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
/// The list of segments whose last resident page left is pruned (stale entries and duplicates
/// dropped, then sorted, which sets the order PGMBKs are paged out in) when it grows past this
/// many times the number of segments. Inference: a memory bound, with an effect on results.
const EMPTY_SEGS_BOUND: usize = 2;

impl Storage {
    /// Steal frames until the available list reaches its high threshold. The clock hand
    /// approximates CP's passes over the frame-owned lists: a referenced frame has its
    /// reference bit reset (it ages), an unreferenced one is stolen.
    pub(super) fn demand_scan(&mut self, cp: &mut CpWork) {
        self.moved.scans += 1;
        let want = (self.high_mark as u64).saturating_sub(self.avail_free());
        self.release_empty_pgmbks(want, false, cp);
        let n = self.fr_page.len() as u32;
        let mut examined: u64 = 0;
        let limit = SCAN_PASSES * n as u64;
        while self.avail_free() < self.high_mark as u64 && examined < limit {
            let f = self.hand;
            self.hand = if self.hand + 1 == n { 0 } else { self.hand + 1 };
            let page = self.fr_page[f as usize];
            if page >= CP_OWNED {
                continue;
            }
            examined += 1;
            if self.pg[page as usize] & REF != 0 && examined < SELECTIVE_PASSES * n as u64 {
                self.pg[page as usize] &= !REF;
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
            let page = self.fr_page[f as usize];
            if page >= CP_OWNED {
                continue;
            }
            examined += 1;
            if self.pg[page as usize] & REF != 0 && !emergency {
                self.pg[page as usize] &= !REF;
                continue;
            }
            self.steal(f, cp);
            got += 1;
        }
        // Frames above 2 GB visited on the way: examined and aged.
        let passed = examined * (ratio - 1);
        for _ in 0..passed.min(n as u64) {
            let f = self.hand;
            self.hand = if self.hand + 1 == n { 0 } else { self.hand + 1 };
            let page = self.fr_page[f as usize];
            if page < CP_OWNED {
                self.pg[page as usize] &= !REF;
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
        let page = self.fr_page[f as usize];
        let i = page as usize;
        self.moved.steals += 1;
        cp.ns += self.p.cp_steal.ns();
        let keep_slot = self.pg_slot[i] != NONE && self.pg[i] & CHANGED == 0;
        if !keep_slot {
            if self.pg_slot[i] != NONE {
                let s = self.pg_slot[i];
                self.release_slot(page, s);
            }
            if self.xstor.capacity() > 0 {
                if self.xstor.free() == 0 {
                    self.migrate(cp);
                }
                if let Some(b) = self.xstor.store(page) {
                    self.pg_xstor[i] = b;
                    self.on_xstor += 1;
                    let g = self.space_of(page);
                    self.space_xstor[g] += 1;
                    self.moved.ms_to_xs += 1;
                    cp.ns += self.p.cp_pageout_xstor.ns();
                } else {
                    self.page_out_to_dasd(page);
                }
            } else {
                self.page_out_to_dasd(page);
            }
        }
        self.pg[i] = (self.pg[i] | FRAME_NONE) & !REF;
        self.resident -= 1;
        let g = self.space_of(page);
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
            self.empty_segs.push(seg as u32);
            if self.empty_segs.len() > EMPTY_SEGS_BOUND * self.seg_pgmbk.len() {
                // Bounded memory: drop stale entries and duplicates.
                let (res, pg) = (&self.seg_resident, &self.seg_pgmbk);
                self.empty_segs
                    .retain(|&x| res[x as usize] == 0 && pg[x as usize][0] != NONE);
                self.empty_segs.sort_unstable();
                self.empty_segs.dedup();
            }
        }
    }
}

