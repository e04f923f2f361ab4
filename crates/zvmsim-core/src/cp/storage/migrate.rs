//! Migration from expanded storage to DASD: when XSTOR is full, CP moves its oldest pages to
//! DASD in blocks (XSTOR keeps exact ages, so this is true LRU among XSTOR pages). Blocks hold
//! pages of one address space (blocks.rs); oldest pages that do not fill a block of their space
//! within the batch stay in XSTOR, still the oldest, for the next batch. Each page passes
//! through a central-storage frame on its way.

use super::{CpWork, Storage, NONE};
use crate::config::params::AvailSearch;
use crate::config::scenario::ZvmLevel;

/// Paging blocks migrated each time XSTOR is found full: a few at a time, as CP migrates in
/// batches rather than page by page. Inference.
const MIGRATE_BLOCKS: usize = 4;
/// A batch looks at most this many times its size of oldest pages for full blocks; past that
/// (pages of many guests, none filling a block) it writes partial blocks. Inference: a bound on
/// the work of one batch.
const MIGRATE_LOOKAHEAD: usize = 8;

impl Storage {
    /// XSTOR full: migrate its oldest pages to DASD in blocks of one space each.
    pub(super) fn migrate(&mut self, cp: &mut CpWork) {
        // Page-outs of the demand scan under way first: the open blocks then hold this batch.
        self.flush_open_blocks();
        let want = (self.block as usize) * MIGRATE_BLOCKS;
        let written_before = self.moved_to_blocks;
        let mut taken: Vec<u32> = Vec::with_capacity(want * 2);
        // Read-only segment pages dropped (their copy is on spool) free XSTOR blocks as a
        // write would: they count towards the batch, which otherwise would empty XSTOR of
        // them in one go when they are all its oldest pages.
        let mut dropped = 0u64;
        while self.moved_to_blocks - written_before + dropped < want as u64
            && taken.len() + (dropped as usize) < want * MIGRATE_LOOKAHEAD
        {
            let Some(page) = self.xstor.evict_oldest() else {
                break;
            };
            self.set_xstor_block(page as usize, NONE);
            self.on_xstor -= 1;
            let g = self.space_of(page);
            self.space_xstor[g] -= 1;
            if self.drop_from_xstor(page) {
                continue;
            }
            if self.drop_spool_backed(page) {
                dropped += 1;
                continue;
            }
            taken.push(page);
            self.queue_for_block(page);
        }
        if self.moved_to_blocks == written_before {
            // No space filled a block: write what was collected so that XSTOR gains room.
            self.flush_open_blocks();
        } else {
            self.return_open_blocks_to_xstor(&taken);
        }
        let moved = self.moved_to_blocks - written_before;
        self.moved.xs_to_dasd += moved;
        // Migration is CP's own housekeeping of expanded storage, not done for the guest whose
        // steal found XSTOR full: system time (inference from z/VM's accounting of CP work
        // not attributable to a user).
        cp.system_ns += moved * self.p.cp_migrate.ns();
        if self.level == ZvmLevel::V5R2
            && self.p.avail_search_frames == AvailSearch::PagingMigration
        {
            // Each page passes through a central-storage frame taken off the list.
            cp.system_ns += moved * self.avail_search_ns();
        }
    }

    /// Pages of the batch left in open blocks go back to XSTOR as its oldest, in their order.
    fn return_open_blocks_to_xstor(&mut self, taken: &[u32]) {
        for &g in &self.open_spaces {
            self.open_blocks[g as usize].clear();
        }
        self.open_spaces.clear();
        let mut homeless = Vec::new();
        for &page in taken.iter().rev() {
            let i = page as usize;
            if self.slot(i) != NONE {
                continue; // written in a full block
            }
            // Each page taken freed its XSTOR block, so one is there for it to go back to.
            let Some(b) = self.xstor.return_oldest(page) else {
                homeless.push(page);
                continue;
            };
            self.set_xstor_block(i, b);
            self.on_xstor += 1;
            let g = self.space_of(page);
            self.space_xstor[g] += 1;
        }
        for page in homeless.into_iter().rev() {
            self.queue_for_block(page);
        }
        self.flush_open_blocks();
    }
}
