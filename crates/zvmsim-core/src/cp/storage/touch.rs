//! A reference that found its page out of a valid frame: on the aging list, in XSTOR, on DASD,
//! or nowhere (a first use, or a page of a read-only saved segment dropped under pressure,
//! which CP reads again from its spool file); and the page-in that makes pages resident.

use super::{CpWork, Storage, Touch, CHANGED, FRAMES_BELOW_2G, NONE, PLACE, REF, SEG_PAGES};

impl Storage {
    #[cold]
    pub(super) fn touch_slow(&mut self, page: u32, write: bool, cp: &mut CpWork) -> Touch {
        let i = page as usize;
        if let Some(f) = self.aged_frame(i) {
            self.revalidate(page, f, cp);
            if write {
                self.mark_changed(page);
            }
            return Touch::Revalidated;
        }
        let xb = self.xstor_block(i);
        if xb != NONE {
            // Synchronous page-in from expanded storage: the block is released.
            self.xstor.release(xb);
            self.set_xstor_block(i, NONE);
            self.on_xstor -= 1;
            let g = self.space_of(page);
            self.space_xstor[g] -= 1;
            self.moved.xs_to_ms += 1;
            cp.ns += self.p.cp_pagein_xstor.ns();
            self.make_resident(page, false, cp);
            // No DASD copy exists: the page must be written if stolen again (a read-only
            // saved segment's page has its spool copy and is never changed).
            if !self.kinds.read_only(g) {
                self.pg[i] |= CHANGED;
            }
            if write {
                self.mark_changed(page);
            }
            Touch::FromXstor
        } else if self.slot(i) != NONE {
            let group = self.slot(i) / self.block;
            self.note_fault(group, page);
            Touch::OnDasd { group }
        } else if self.page_read_only(page) {
            // A read-only saved segment's page dropped under pressure: CP reads it again from
            // the segment's spool file.
            self.touched += 1;
            self.kinds.spool_refaults += 1;
            cp.ns += self.p.cp_spool_read_page.ns();
            self.make_resident(page, false, cp);
            Touch::FromSpool
        } else {
            // First reference: CP supplies a cleared frame; for a reused CMMA-unused page the
            // machine does (HPMA), without CP's fault handling.
            self.moved.first_touch += 1;
            self.touched += 1;
            self.first_use_ahead(page);
            self.pg[i] |= CHANGED;
            if self.first_use_state(page) {
                let before = cp.ns;
                self.make_resident(page, false, cp);
                cp.ns = before + (cp.ns - before).saturating_sub(self.p.cp_alloc_frame.ns());
            } else {
                self.make_resident(page, false, cp);
            }
            if write {
                self.mark_changed(page);
            }
            Touch::FirstUse
        }
    }

    /// A block read of `group` completed: every page of the group not in central storage is
    /// made resident; each keeps its slot (unchanged copy) under KEEPSLOT. On 6.3 and later
    /// with paging space past `keepslot_release_full`, the whole group is given up instead:
    /// the pages read and those of the group still resident (kept slots) lose their slots, so
    /// the group is free for a new block. On 6.3 and later the pages whose faults the read
    /// serves are valid; the others come in invalid but resident on the aging list
    /// (`park_companion`). Returns the pages read.
    pub fn complete_pagein(&mut self, group: u32, cp: &mut CpWork) -> u32 {
        let b = self.block as usize;
        let base = group as usize * b;
        let mut n = 0;
        let suspended = self.keep_slot && self.keepslot_suspended();
        let keep = self.keep_slot && !suspended;
        let ibr = self.block_read_ibr(group);
        cp.ns += self.p.cp_pagein_dasd.ns();
        self.moved.pagein_dasd_blocks += 1;
        // The block's pages lie at random: ask for all their words before the first is read,
        // so that their misses overlap (a hint; results never depend on it).
        for s in base..base + b {
            let page = !self.slot_page[s];
            if page != NONE {
                crate::engine::prefetch::prefetch(&self.pg, page as usize);
            }
        }
        for s in base..base + b {
            let page = !self.slot_page[s];
            if page == NONE {
                continue;
            }
            // A page on the aging list still has its frame: the read leaves it there.
            let read = self.held_frame(page as usize).is_none();
            if read {
                self.make_resident(page, true, cp);
                // Block-read pages are not referenced yet, except the one that faulted, which
                // the caller touches again.
                self.pg[page as usize] &= !REF;
                let f = self.place(page as usize);
                if ibr && !self.faulted_now(page) {
                    self.park_companion(page, f);
                } else {
                    self.note_companion(page, f);
                }
                self.moved.dasd_to_ms += 1;
                n += 1;
            }
            if !keep && (read || suspended) {
                // The frame is now the only copy.
                self.release_slot(page, s as u32);
                self.pg[page as usize] |= CHANGED;
                self.moved.keepslot_released += suspended as u64;
            }
        }
        n
    }

    pub(super) fn make_resident(&mut self, page: u32, paging_io: bool, cp: &mut CpWork) {
        let f = self.alloc_frame(paging_io, cp);
        let i = page as usize;
        let seg = i / SEG_PAGES as usize;
        // The segment's PGMBK before the page takes its frame: a reclaim the PGMBK's frames
        // start (trial invalidation of a one-page frame-owned list, an emergency scan) must not
        // take the page being made resident. Meanwhile its frame is neither free nor owned,
        // so no scan looks at it.
        if self.seg_resident[seg] == 0 && self.seg_pgmbk[seg][0] == NONE {
            self.alloc_pgmbk(seg, cp);
        }
        self.set_word(i, (self.word(i) & !PLACE) | f as u64 | REF);
        self.fr_page.set(f, page);
        self.resident += 1;
        let g = self.space_of(page);
        self.space_resident[g] += 1;
        if let Some(a) = self.aging.as_mut() {
            a.link_valid(g, f);
        }
        if f < FRAMES_BELOW_2G {
            self.resident_below += 1;
            self.space_below[g] += 1;
        }
        self.seg_resident[seg] += 1;
    }
}
