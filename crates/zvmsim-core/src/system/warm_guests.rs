//! Each guest's own part of the set-up: its database (buffer pool and table) and its Linux
//! memory warmed to the workload's steady state. A guest's part reads nothing of another's
//! and draws only from its own stream, so the guests are built on the machine's cores at once
//! and the results are those of building them one after another, in any order.

use crate::config::apache::ApacheSpec;
use crate::config::scenario::DatabaseSpec;
use crate::cp::storage::NONE;
use crate::engine::rng::{Stream, Zipf};
use crate::linux::memory::LinuxMemory;
use crate::workload::database::steady::RankWeights;
use crate::workload::database::Database;

/// One guest's inputs to its part of the set-up and, after it, its database and its
/// stationary ages (`Some` when the stationary warm start wants them).
pub(super) struct GuestWarm<'a> {
    pub mem: LinuxMemory,
    pub dbspec: Option<&'a DatabaseSpec>,
    pub apache: Option<&'a ApacheSpec>,
    pub blocks: u32,
    pub shm: u32,
    pub db_vols: Vec<u32>,
    /// The guest's file volumes (Apache's document root mounts).
    pub mounts: u32,
    pub wrng: Stream,
    /// `model.warm_spread_buffers`: the ordered start spreads the hottest blocks over the pool.
    pub spread: bool,
    /// `model.warm_pool_revolutions`, and the share of the workload's gets that write.
    pub pool_revolutions: u32,
    pub pool_write_share: f64,
    pub db: Option<Database>,
    pub ages: Option<Vec<u32>>,
}

/// Builds every guest's part, on up to `threads` threads (each a contiguous run of guests),
/// and runs `beside` (a hint that changes no value) on a thread of its own.
pub(super) fn warm_guests(
    guests: &mut [GuestWarm<'_>],
    stationary: bool,
    threads: usize,
    beside: impl FnOnce() + Send,
) {
    let per = guests.len().div_ceil(threads.max(1)).max(1);
    if guests.len() <= 1 || threads <= 1 {
        beside();
        let mut weights = None;
        for g in guests.iter_mut() {
            warm_guest(g, stationary, &mut weights);
        }
        return;
    }
    std::thread::scope(|s| {
        s.spawn(beside);
        for part in guests.chunks_mut(per) {
            s.spawn(move || {
                // The rank weights are a cache of a pure function of the law: a thread's own
                // copy gives the same weights.
                let mut weights = None;
                for g in part.iter_mut() {
                    warm_guest(g, stationary, &mut weights);
                }
            });
        }
    });
}

fn warm_guest(g: &mut GuestWarm<'_>, stationary: bool, weights: &mut Option<RankWeights>) {
    let (blocks, shm) = (g.blocks, g.shm);
    let mem = &mut g.mem;
    let db_vols = &mut g.db_vols;
    let mut db = g.dbspec.map(|d| {
        let buffers = d.cache.pages() as u32;
        // Buffers and the other shared memory are anonymous pages 0.. of the guest.
        Database::new(
            blocks,
            0,
            buffers,
            shm - buffers.min(shm),
            Zipf::with_offset(blocks as u64, d.skew, d.flat_head.pages() as f64),
            (d.stripe.pages() as u32).max(1),
            std::mem::take(db_vols),
        )
    });
    // The stationary warm start draws the workload's stationary state
    // (workload/database/steady.rs): the buffer pool and the page cache hold what
    // they hold after running for ever, and every page's time since its last
    // reference orders the warm start's touches.
    let wrng = &mut g.wrng;
    match &mut db {
        Some(db) if stationary => {
            let anon = (db.other + db.buffers) as u64;
            let cache = mem.warm_cache_pages(anon) as usize;
            let st = db.stationary(weights, cache, wrng);
            db.warm_from(&st.buffers);
            db.settle_clock(g.pool_revolutions, g.pool_write_share, wrng);
            // Anonymous memory hottest first: the other shared memory (lock list,
            // catalog and package caches, used by every get), then the buffers
            // youngest first; what does not fit starts on swap.
            let other = db.other_start..db.other_start + db.other;
            mem.warm(other.chain((0..db.buffers).rev()), |i| {
                st.cache.get(i as usize).map_or(NONE, |c| c.0)
            });
            g.ages = Some(super::warm_stationary::stationary_ages(
                mem,
                Some((db, &st)),
                wrng,
            ));
        }
        Some(db) => {
            if g.spread {
                db.spread_pool();
            }
            db.settle_clock(g.pool_revolutions, g.pool_write_share, wrng);
            // Anonymous memory hottest first: the other shared memory, then the
            // buffers by rank (rank i in `buffer_of_rank(i)`); the page cache holds
            // the blocks just below the buffer pool in popularity.
            let start = db.buffers as u64;
            let heat = (db.other_start..db.other_start + db.other)
                .chain((0..db.buffers).map(|r| db.buf_start + db.buffer_of_rank(r)));
            mem.warm(heat, |i| {
                db.block_of_rank((start + i as u64) % db.blocks.max(1) as u64)
            });
        }
        None => {
            let (apache, mounts) = (g.apache, g.mounts);
            mem.warm(0..shm, |i| match apache {
                Some(a) => crate::workload::apache::warm_block(a, mounts, i),
                None => NONE,
            });
            if stationary {
                g.ages = Some(super::warm_stationary::stationary_ages(mem, None, wrng));
            }
        }
    }
    g.db = db;
}
