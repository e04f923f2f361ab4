//! The database each guest of a transactional workload runs: a buffer pool in shared memory
//! with clock replacement over skewed (Zipf) page popularity, reading through the Linux page
//! cache from its striped volumes.

use crate::cp::storage::NONE;
use crate::engine::rng::{Stream, Zipf};

pub mod steady;

/// A database instance in one guest.
pub struct Database {
    pub blocks: u32,
    /// First buffer page: an index into the guest's anonymous (shared) memory.
    pub buf_start: u32,
    pub buffers: u32,
    /// Other shared memory (lock list, catalog and package caches): anonymous start and size.
    pub other_start: u32,
    pub other: u32,
    buf_block: Vec<u32>,
    /// Per block: its buffer (B_NONE when not cached) with the buffer's referenced and dirty
    /// bits, so that a buffer-pool hit costs one memory access.
    blk_buf: crate::engine::huge::HugeArray<u32>,
    hand: u32,
    zipf: Zipf,
    perm_mult: u64,
    pub stripe_pages: u32,
    pub volumes: Vec<u32>,
    pub hits: u64,
    pub misses: u64,
}

const BMASK: u32 = 0x3FFF_FFFF;
const B_NONE: u32 = BMASK;
const REF: u32 = 1 << 30;
const DIRTY: u32 = 1 << 31;

impl Database {
    pub fn new(
        blocks: u32,
        buf_start: u32,
        buffers: u32,
        other: u32,
        popularity: Zipf,
        stripe_pages: u32,
        volumes: Vec<u32>,
    ) -> Self {
        // Popularity rank -> block: a multiplicative permutation, so hot blocks are spread
        // over the files (and the stripes) as in a real database.
        let mut mult = 2_654_435_761u64 % blocks.max(2) as u64;
        while gcd(mult, blocks as u64) != 1 {
            mult += 1;
        }
        let buffers = buffers.min(blocks);
        let mut db = Database {
            blocks,
            buf_start,
            buffers,
            other_start: buf_start + buffers,
            other,
            buf_block: vec![NONE; buffers as usize],
            blk_buf: crate::engine::huge::HugeArray::filled(blocks as usize, B_NONE),
            hand: 0,
            zipf: popularity,
            perm_mult: mult,
            stripe_pages: stripe_pages.max(1),
            volumes,
            hits: 0,
            misses: 0,
        };
        // Warm buffer pool: the hottest blocks, each in a buffer.
        for i in 0..buffers {
            let b = db.block_of_rank(i as u64);
            db.buf_block[i as usize] = b;
            db.blk_buf[b as usize] = i;
        }
        db
    }

    #[inline]
    pub fn block_of_rank(&self, rank: u64) -> u32 {
        ((rank * self.perm_mult) % self.blocks as u64) as u32
    }

    #[inline]
    pub fn sample_block(&self, rng: &mut Stream) -> u32 {
        self.block_of_rank(self.zipf.sample(rng))
    }

    /// The buffer holding `block`, marking it referenced.
    #[inline]
    pub fn lookup(&mut self, block: u32) -> Option<u32> {
        let e = self.blk_buf[block as usize];
        if e & BMASK == B_NONE {
            return None;
        }
        self.blk_buf[block as usize] = e | REF;
        Some(e & BMASK)
    }

    /// The transaction changed `block` (it is in the pool).
    pub fn set_dirty(&mut self, block: u32) {
        self.blk_buf[block as usize] |= DIRTY;
    }

    /// Clock replacement: a victim buffer for `block`; the buffer is assigned to it at once.
    /// Returns (buffer, old block if the victim was dirty and must be written first).
    pub fn replace(&mut self, block: u32) -> (u32, Option<u32>) {
        loop {
            let i = self.hand;
            self.hand = if i + 1 == self.buffers { 0 } else { i + 1 };
            let old = self.buf_block[i as usize];
            let mut dirty = false;
            if old != NONE {
                let e = self.blk_buf[old as usize];
                if e & REF != 0 {
                    self.blk_buf[old as usize] = e & !REF;
                    continue;
                }
                dirty = e & DIRTY != 0;
                self.blk_buf[old as usize] = B_NONE;
            }
            self.buf_block[i as usize] = block;
            self.blk_buf[block as usize] = i | REF;
            return (i, if dirty { Some(old) } else { None });
        }
    }

    /// Where `block` lies on its volume (LVM striping: stripe k of the logical volume is
    /// stripe k / volumes of volume k % volumes).
    #[inline]
    pub fn volume_block(&self, block: u32) -> u32 {
        let stripe = block / self.stripe_pages;
        let n = self.volumes.len().max(1) as u32;
        (stripe / n) * self.stripe_pages + block % self.stripe_pages
    }

    /// Database volume holding `block` (LVM striping).
    #[inline]
    pub fn volume_of(&self, block: u32) -> u32 {
        self.volumes[((block / self.stripe_pages) as usize) % self.volumes.len()]
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_pool_maps_both_ways_and_hits_hot_blocks() {
        let mut db = Database::new(
            10_000,
            100,
            1_000,
            50,
            Zipf::new(10_000, 0.9),
            8,
            vec![0, 1, 2],
        );
        let mut rng = Stream::new(1, 1);
        let mut hits = 0;
        for _ in 0..20_000 {
            let b = db.sample_block(&mut rng);
            if db.lookup(b).is_some() {
                hits += 1;
            } else {
                let (buf, _) = db.replace(b);
                assert_eq!(db.lookup(b), Some(buf));
            }
        }
        // A tenth of the blocks in the pool catches well over half of the references.
        assert!(hits > 10_000, "hits {hits}");
        for (i, &b) in db.buf_block.iter().enumerate() {
            if b != NONE {
                assert_eq!(db.blk_buf[b as usize] & BMASK, i as u32);
            }
        }
        assert!(db.volume_of(0) < 3);
    }
}
