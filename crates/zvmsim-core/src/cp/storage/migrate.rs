//! Migration from expanded storage to DASD: when XSTOR is full, CP moves its oldest pages to
//! DASD in blocks (XSTOR keeps exact ages, so this is true LRU among XSTOR pages). Each page
//! passes through a central-storage frame on its way.

use super::{CpWork, Storage, NONE};
use crate::config::params::AvailSearch;

/// Paging blocks migrated each time XSTOR is found full: a few at a time, as CP migrates in
/// batches rather than page by page. Inference.
const MIGRATE_BLOCKS: usize = 4;

impl Storage {
    /// XSTOR full: migrate its oldest pages to DASD in blocks (XSTOR keeps exact ages, so
    /// this is true LRU among XSTOR pages).
    pub(super) fn migrate(&mut self, cp: &mut CpWork) {
        // A few blocks at a time, as CP migrates when XSTOR is full.
        let want = (self.block as usize) * MIGRATE_BLOCKS;
        let mut batch: Vec<u32> = Vec::with_capacity(self.block as usize);
        let mut moved = 0usize;
        while moved < want {
            let Some(page) = self.xstor.evict_oldest() else {
                break;
            };
            self.pg_xstor[page as usize] = NONE;
            self.on_xstor -= 1;
            let g = self.space_of(page);
            self.space_xstor[g] -= 1;
            if self.drop_from_xstor(page) {
                continue;
            }
            batch.push(page);
            moved += 1;
            if batch.len() as u32 == self.block {
                self.write_block(&batch);
                batch.clear();
            }
        }
        if !batch.is_empty() {
            self.write_block(&batch);
        }
        self.moved.xs_to_dasd += moved as u64;
        // Migration is CP's own housekeeping of expanded storage, not done for the guest whose
        // steal found XSTOR full: system time (inference from z/VM's accounting of CP work
        // not attributable to a user).
        cp.system_ns += moved as u64 * self.p.cp_migrate.ns();
        if self.level.pgmbk_below_2g() && self.p.avail_search_frames == AvailSearch::PagingMigration
        {
            // Each page passes through a central-storage frame taken off the list.
            cp.system_ns += moved as u64 * self.avail_search_ns();
        }
    }
}
