//! The database each guest of a transactional workload runs: a buffer pool in shared memory
//! with clock replacement over skewed (Zipf) page popularity, reading through the Linux page
//! cache from its striped volumes.

use crate::engine::huge::HugeArray;
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
    /// Per buffer: its block (B_NONE: none) with the buffer's referenced and dirty bits.
    buf_block: HugeArray<u32>,
    /// The buffer of each block in the pool: an open-addressing table (linear probing) sized
    /// by the buffers, not the blocks, since at most `buffers` of the blocks are in the pool.
    /// A slot holds a buffer in its low `idx_bits` and a fingerprint of the block above them;
    /// the key itself is the buffer's block, so a slot whose fingerprint matches is checked
    /// there. EMPTY: a free slot.
    table: HugeArray<u32>,
    idx_bits: u32,
    hand: u32,
    /// The page cleaners' hand: the next buffer they look at (workload/cleaner.rs).
    clean_hand: u32,
    zipf: Zipf,
    perm_mult: u64,
    /// Popularity rank -> buffer at the warm start: rank r starts in buffer r * pool_mult mod
    /// buffers (1: buffer r; `spread_pool`).
    pool_mult: u64,
    pub stripe_pages: u32,
    pub volumes: Vec<u32>,
    pub hits: u64,
    pub misses: u64,
}

/// A buffer's word: block in the low 30 bits, so the database has at most BMASK blocks
/// (`config/bounds.rs` refuses a larger one).
pub const BMASK: u32 = 0x3FFF_FFFF;
const B_NONE: u32 = BMASK;
const REF: u32 = 1 << 30;
const DIRTY: u32 = 1 << 31;
const EMPTY: u32 = u32::MAX;

/// Popularity rank -> block: rank × `mult` mod `blocks` (`mult` coprime to `blocks`, so a
/// permutation), shared by the pool and the gets' draws (workload/draws.rs).
#[inline]
pub(crate) fn rank_to_block(rank: u64, mult: u64, blocks: u32) -> u32 {
    ((rank * mult) % blocks as u64) as u32
}

/// Fibonacci hashing: the high bits place a block in the table, the low bits (independent of
/// the high ones) are its fingerprint.
#[inline]
fn hash(block: u32) -> u32 {
    block.wrapping_mul(0x9E37_79B1)
}

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
        assert!(
            blocks <= BMASK,
            "database of {blocks} blocks over the bound"
        );
        // Popularity rank -> block: a multiplicative permutation, so hot blocks are spread
        // over the files (and the stripes) as in a real database.
        let mult = coprime_from(2_654_435_761u64 % blocks.max(2) as u64, blocks as u64);
        let buffers = buffers.min(blocks);
        // Load factor 0.7 at most (with one slot free at least, so every probe ends); a
        // buffer index below all ones in its field, so no slot is EMPTY.
        let slots = (buffers as u64 * 10).div_ceil(7).max(buffers as u64 + 1);
        let idx_bits = 32 - buffers.leading_zeros();
        let mut db = Database {
            blocks,
            buf_start,
            buffers,
            other_start: buf_start + buffers,
            other,
            buf_block: HugeArray::filled(buffers as usize, B_NONE),
            table: HugeArray::filled(slots as usize, EMPTY),
            idx_bits,
            hand: 0,
            clean_hand: 0,
            zipf: popularity,
            perm_mult: mult,
            pool_mult: 1,
            stripe_pages: stripe_pages.max(1),
            volumes,
            hits: 0,
            misses: 0,
        };
        // Warm buffer pool: the hottest blocks, each in a buffer.
        db.fill_with(|db, i| db.block_of_rank(i as u64), buffers as usize);
        db
    }

    /// Buffers 0..n hold `block(i)`; each block's table slot is asked for `LEAD` inserts
    /// ahead, so that the misses of the random slots overlap (millions per guest).
    pub(crate) fn fill_with(&mut self, block: impl Fn(&Self, usize) -> u32, n: usize) {
        const LEAD: usize = 16;
        for i in 0..n {
            if i + LEAD < n {
                let home = self.home(hash(block(self, i + LEAD)));
                crate::engine::prefetch::prefetch(&self.table, home);
            }
            let b = block(self, i);
            self.buf_block[i] = b;
            self.insert(b, i as u32);
        }
    }

    /// Refills the pool with the same hottest blocks, rank r in buffer r * m mod buffers (m
    /// coprime to the buffers, near buffers / golden ratio) instead of buffer r. The pool's
    /// clock hand walks the buffers in index order, so with buffer r holding rank r it would
    /// meet the hottest blocks first and the coldest after hours; spread, every stretch of
    /// the hand's walk holds blocks of every popularity, as after a long run (inference: the
    /// buffer a block lands in says when it came in, not how popular it is).
    pub(crate) fn spread_pool(&mut self) {
        let n = self.buffers as u64;
        if n < 3 {
            return;
        }
        let m = coprime_from(((n as f64 * 0.618_033_988_749_895) as u64).max(2), n);
        self.pool_mult = m;
        let inv = inverse_mod(m, n);
        self.table.fill(EMPTY);
        self.buf_block.fill(B_NONE);
        self.fill_with(|db, b| db.block_of_rank((b as u64 * inv) % n), n as usize);
    }

    /// The buffer the warm start put popularity rank `r` in (`spread_pool`).
    #[inline]
    pub fn buffer_of_rank(&self, r: u32) -> u32 {
        if self.pool_mult == 1 {
            r
        } else {
            ((r as u64 * self.pool_mult) % self.buffers as u64) as u32
        }
    }

    /// The blocks' popularity law and the rank-to-block multiplier (`block_of_rank`).
    pub(crate) fn popularity(&self) -> (&Zipf, u64) {
        (&self.zipf, self.perm_mult)
    }

    #[inline]
    pub fn block_of_rank(&self, rank: u64) -> u32 {
        rank_to_block(rank, self.perm_mult, self.blocks)
    }

    #[inline]
    pub fn sample_block(&self, rng: &mut Stream) -> u32 {
        self.block_of_rank(self.zipf.sample(rng))
    }

    /// The table slot where the probe for a block of hash `h` starts (multiply-shift range
    /// reduction: the table's size need not be a power of two).
    #[inline]
    fn home(&self, h: u32) -> usize {
        ((h as u64 * self.table.len() as u64) >> 32) as usize
    }

    #[inline]
    fn next_slot(&self, p: usize) -> usize {
        if p + 1 == self.table.len() {
            0
        } else {
            p + 1
        }
    }

    /// The fingerprint bits of a slot for a block of hash `h`.
    #[inline]
    fn tag(&self, h: u32) -> u32 {
        // idx_bits <= 30: a buffer index is below BMASK.
        h << self.idx_bits
    }

    #[inline]
    fn idx(&self, slot: u32) -> u32 {
        slot & ((1u32 << self.idx_bits) - 1)
    }

    /// The table slot holding `block`'s buffer.
    #[inline(always)]
    fn find(&self, block: u32) -> Option<usize> {
        self.probe::<true>(block)
    }

    /// The probe for `block`: the first slot whose fingerprint matches and, with `VERIFY`,
    /// whose buffer holds `block` (read through the buffer word); without, a guess that reads
    /// the table alone.
    #[inline(always)]
    fn probe<const VERIFY: bool>(&self, block: u32) -> Option<usize> {
        let (t, bb): (&[u32], &[u32]) = (&self.table, &self.buf_block);
        let h = hash(block);
        let (tag, mask) = (self.tag(h), u32::MAX << self.idx_bits);
        let mut p = self.home(h);
        loop {
            let s = t[p];
            if s == EMPTY {
                return None;
            }
            if s & mask == tag && (!VERIFY || bb[self.idx(s) as usize] & BMASK == block) {
                return Some(p);
            }
            p = self.next_slot(p);
        }
    }

    /// The table slot of buffer `buf`, holding `block` (no check through the buffer needed).
    fn slot_of(&self, block: u32, buf: u32) -> Option<usize> {
        let t: &[u32] = &self.table;
        let h = hash(block);
        let want = self.tag(h) | buf;
        let mut p = self.home(h);
        loop {
            match t[p] {
                s if s == want => return Some(p),
                EMPTY => return None,
                _ => p = self.next_slot(p),
            }
        }
    }

    fn insert(&mut self, block: u32, buf: u32) {
        let h = hash(block);
        let mut p = self.home(h);
        while self.table[p] != EMPTY {
            p = self.next_slot(p);
        }
        self.table[p] = self.tag(h) | buf;
    }

    /// Empties slot `p`, shifting back the entries after it whose probe started at or before
    /// it, so that no probe meets a hole before its entry.
    fn remove_slot(&mut self, p: usize) {
        // The entries after it are checked through their buffers: ask for those lines at
        // once, so that their misses overlap.
        let mut j = self.next_slot(p);
        for _ in 0..16 {
            let s = self.table[j];
            if s == EMPTY {
                break;
            }
            crate::engine::prefetch::prefetch(&self.buf_block, self.idx(s) as usize);
            j = self.next_slot(j);
        }
        let mut hole = p;
        let mut j = p;
        loop {
            j = self.next_slot(j);
            let s = self.table[j];
            if s == EMPTY {
                break;
            }
            let k = self.home(hash(self.buf_block[self.idx(s) as usize] & BMASK));
            // The entry stays if its home lies cyclically in (hole, j].
            let stays = if hole <= j {
                hole < k && k <= j
            } else {
                hole < k || k <= j
            };
            if !stays {
                self.table[hole] = s;
                hole = j;
            }
        }
        self.table[hole] = EMPTY;
    }

    /// Ask for `block`'s table slot ahead of its lookup.
    #[inline]
    pub fn prefetch(&self, block: u32) {
        crate::engine::prefetch::prefetch(&self.table, self.home(hash(block)));
    }

    /// The buffer that probably holds `block`: the first whose fingerprint matches, not
    /// checked through the buffer (a wrong guess is rare and costs only a useless prefetch).
    /// A hint for prefetches only: it reads only the table slot asked for by `prefetch`.
    #[inline(always)]
    pub fn buffer_guess(&self, block: u32) -> Option<u32> {
        self.probe::<false>(block).map(|p| self.idx(self.table[p]))
    }

    /// `buffer_guess`, asking besides for the buffer word that will check the guess at the
    /// lookup.
    #[inline]
    pub fn prefetch_verify(&self, block: u32) -> Option<u32> {
        let buf = self.buffer_guess(block)?;
        crate::engine::prefetch::prefetch(&self.buf_block, buf as usize);
        Some(buf)
    }

    /// The buffer holding `block` now, without marking it (a hint for a prefetch).
    #[inline]
    pub fn buffer_hint(&self, block: u32) -> Option<u32> {
        self.find(block).map(|p| self.idx(self.table[p]))
    }

    /// The buffer holding `block`, marking it referenced.
    #[inline]
    pub fn lookup(&mut self, block: u32) -> Option<u32> {
        let buf = self.buffer_hint(block)?;
        self.buf_block[buf as usize] |= REF;
        Some(buf)
    }

    /// The transaction changed `block` (it is in the pool).
    pub fn set_dirty(&mut self, block: u32) {
        if let Some(buf) = self.buffer_hint(block) {
            self.buf_block[buf as usize] |= DIRTY;
        }
    }

    /// The page cleaners look at the buffer under their hand and move it on: the buffer and
    /// its block if the buffer was changed. Its dirty bit is cleared as the write starts, so a
    /// change made while the write is under way makes it dirty again (as a database's
    /// cleaner does, which copies the page before writing it).
    pub fn clean_next(&mut self) -> Option<(u32, u32)> {
        let i = self.clean_hand;
        self.clean_hand = if i + 1 == self.buffers { 0 } else { i + 1 };
        let e = self.buf_block[i as usize];
        if e & DIRTY == 0 || e & BMASK == B_NONE {
            return None;
        }
        self.buf_block[i as usize] = e & !DIRTY;
        Some((i, e & BMASK))
    }

    /// Clock replacement: a victim buffer for `block`; the buffer is assigned to it at once.
    /// Returns (buffer, old block if the victim was dirty and must be written first).
    pub fn replace(&mut self, block: u32) -> (u32, Option<u32>) {
        loop {
            let i = self.hand;
            self.hand = if i + 1 == self.buffers { 0 } else { i + 1 };
            let e = self.buf_block[i as usize];
            let old = e & BMASK;
            let mut dirty = false;
            if old != B_NONE {
                if e & REF != 0 {
                    self.buf_block[i as usize] = e & !REF;
                    continue;
                }
                dirty = e & DIRTY != 0;
                if let Some(p) = self.slot_of(old, i) {
                    self.remove_slot(p);
                }
            }
            self.buf_block[i as usize] = block | REF;
            self.insert(block, i);
            self.prefetch_victims();
            return (i, if dirty { Some(old) } else { None });
        }
    }

    /// Ask early for what replacing the clock's next likely victims (the next unreferenced
    /// buffers from the hand) will read: for the second its table slot, for the first, whose
    /// slot was asked for at the replacement before, the buffer words of the entries after it
    /// that the backward shift checks.
    fn prefetch_victims(&self) {
        let (t, bb): (&[u32], &[u32]) = (&self.table, &self.buf_block);
        let (mut j, mut n) = (self.hand as usize, 0);
        for _ in 0..8 {
            let e = bb[j];
            if e & REF == 0 && e & BMASK != B_NONE {
                let block = e & BMASK;
                if n == 1 {
                    crate::engine::prefetch::prefetch(t, self.home(hash(block)));
                    return;
                }
                n = 1;
                if let Some(p) = self.slot_of(block, j as u32) {
                    let mut q = self.next_slot(p);
                    for _ in 0..8 {
                        let s = t[q];
                        if s == EMPTY {
                            break;
                        }
                        crate::engine::prefetch::prefetch(bb, self.idx(s) as usize);
                        q = self.next_slot(q);
                    }
                }
            }
            j = if j + 1 == bb.len() { 0 } else { j + 1 };
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

/// The inverse of `a` modulo `n` (a and n coprime), by the extended Euclidean algorithm.
fn inverse_mod(a: u64, n: u64) -> u64 {
    let (mut r0, mut r1) = (n as i128, a as i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    t0.rem_euclid(n as i128) as u64
}

/// The first multiplier from `m` on that is coprime to `n`: it permutes 0..n.
fn coprime_from(mut m: u64, n: u64) -> u64 {
    while gcd(m, n) != 1 {
        m += 1;
    }
    m
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
    fn a_spread_pool_holds_the_same_blocks_with_rank_r_where_buffer_of_rank_says() {
        for buffers in [3u32, 1_000, 1_024, 7_919] {
            let mk = || Database::new(50_000, 0, buffers, 10, Zipf::new(50_000, 0.9), 8, vec![0]);
            let plain = mk();
            let mut spread = mk();
            spread.spread_pool();
            let blocks = |d: &Database| {
                let mut v: Vec<u32> = d.buf_block.iter().map(|&b| b & BMASK).collect();
                v.sort_unstable();
                v
            };
            assert_eq!(blocks(&plain), blocks(&spread), "{buffers} buffers");
            let mut seen = vec![false; buffers as usize];
            for r in 0..buffers {
                let b = spread.buffer_of_rank(r);
                assert!(!seen[b as usize], "buffer {b} twice");
                seen[b as usize] = true;
                let block = spread.block_of_rank(r as u64);
                assert_eq!(spread.buffer_hint(block), Some(b));
                assert_eq!(plain.buffer_hint(block), Some(r));
            }
            // The hottest tenth is not in the first tenth of the buffers, as it is unspread.
            let first = (0..buffers / 10).filter(|&r| spread.buffer_of_rank(r) < buffers / 10);
            assert!(
                first.count() as u32 <= buffers / 50 + 1,
                "{buffers} buffers"
            );
        }
        assert_eq!(inverse_mod(3, 7), 5);
        assert_eq!(inverse_mod(618, 1_000_003) * 618 % 1_000_003, 1);
    }

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
            if b & BMASK != B_NONE {
                assert_eq!(db.buffer_hint(b & BMASK), Some(i as u32));
            }
        }
        assert!(db.volume_of(0) < 3);
    }

    /// The buffer pool as it was kept before the table: a dense entry per block.
    struct Dense {
        buf_block: Vec<u32>,
        blk_buf: Vec<u32>,
        hand: u32,
    }

    impl Dense {
        fn lookup(&mut self, block: u32) -> Option<u32> {
            let e = self.blk_buf[block as usize];
            if e & BMASK == B_NONE {
                return None;
            }
            self.blk_buf[block as usize] = e | REF;
            Some(e & BMASK)
        }
        fn replace(&mut self, block: u32) -> (u32, Option<u32>) {
            loop {
                let i = self.hand;
                self.hand = (i + 1) % self.buf_block.len() as u32;
                let old = self.buf_block[i as usize];
                let e = self.blk_buf[old as usize];
                if e & REF != 0 {
                    self.blk_buf[old as usize] = e & !REF;
                    continue;
                }
                self.blk_buf[old as usize] = B_NONE;
                self.buf_block[i as usize] = block;
                self.blk_buf[block as usize] = i | REF;
                return (i, (e & DIRTY != 0).then_some(old));
            }
        }
    }

    #[test]
    fn the_table_answers_as_a_dense_map_of_every_block_would() {
        // Small tables so that probes wrap around the end and clusters are long; every get
        // and replacement against the dense map, then every block looked up.
        for (blocks, buffers, seed) in [(5_000u32, 700u32, 1u64), (3_001, 64, 2), (900, 899, 3)] {
            let mut db = Database::new(
                blocks,
                0,
                buffers,
                0,
                Zipf::new(blocks as u64, 0.6),
                1,
                vec![0],
            );
            let mut dense = Dense {
                buf_block: (0..buffers).map(|i| db.block_of_rank(i as u64)).collect(),
                blk_buf: vec![B_NONE; blocks as usize],
                hand: 0,
            };
            for (i, &b) in dense.buf_block.iter().enumerate() {
                dense.blk_buf[b as usize] = i as u32;
            }
            let mut rng = Stream::new(seed, 7);
            for _ in 0..60_000 {
                let b = db.sample_block(&mut rng);
                let hit = db.lookup(b);
                assert_eq!(hit, dense.lookup(b));
                if hit.is_some() {
                    if rng.chance(0.3) {
                        db.set_dirty(b);
                        dense.blk_buf[b as usize] |= DIRTY;
                    }
                } else {
                    assert_eq!(db.replace(b), dense.replace(b));
                }
            }
            for b in 0..blocks {
                let e = dense.blk_buf[b as usize] & BMASK;
                assert_eq!(db.buffer_hint(b), (e != B_NONE).then_some(e), "block {b}");
            }
        }
    }
}
