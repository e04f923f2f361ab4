//! The page cache's index: which pool page caches a file block (the radix tree of an
//! address_space in Linux). A dense array over every block of the file set would cost 4 bytes
//! a block, 31 MB for a guest's 30 GB database although at most its page cache's 1.8 M pages
//! are ever in it; this table is sized by what is cached. Open addressing with linear probing:
//! a slot holds the pool page and, in the bits the pool's size leaves free, a fingerprint of
//! the block; the block itself is read from the pool page (which holds it), so a slot is four
//! bytes and a lookup that misses rarely reads the pool.

use crate::cp::storage::NONE;

/// Slots per entry at most (load factor 0.7): probes stay short.
const LOAD_NUM: u64 = 10;
const LOAD_DEN: u64 = 7;
const MIN_SLOTS: usize = 64;

pub(super) struct PageCacheIndex {
    slots: Vec<u32>,
    /// Bits of a slot holding the pool page; the rest hold the fingerprint.
    idx_bits: u32,
    len: u64,
    /// Blocks of the file set: keys are below it.
    blocks: u32,
}

#[inline]
fn mix(block: u32) -> u64 {
    (block as u64 ^ 0x5bd1_e995).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl PageCacheIndex {
    /// An empty index for blocks below `blocks`, pool pages below `pool`.
    pub(super) fn new(blocks: u32, pool: u32) -> Self {
        // NONE marks an empty slot, so a pool page never fills every index bit.
        let idx_bits = (32 - pool.leading_zeros()).clamp(1, 32);
        PageCacheIndex {
            slots: vec![NONE; MIN_SLOTS],
            idx_bits,
            len: 0,
            blocks,
        }
    }

    pub(super) fn blocks(&self) -> u32 {
        self.blocks
    }

    #[inline]
    fn idx_mask(&self) -> u32 {
        if self.idx_bits >= 32 {
            u32::MAX
        } else {
            (1u32 << self.idx_bits) - 1
        }
    }

    #[inline]
    fn fingerprint(&self, h: u64) -> u32 {
        if self.idx_bits >= 32 {
            0
        } else {
            (h as u32) & !self.idx_mask()
        }
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        (((h >> 32) * self.slots.len() as u64) >> 32) as usize
    }

    #[inline]
    fn next(&self, i: usize) -> usize {
        if i + 1 == self.slots.len() {
            0
        } else {
            i + 1
        }
    }

    /// Ask for the cache line of `block`'s home slot.
    #[inline]
    pub(super) fn prefetch(&self, block: u32) {
        crate::engine::prefetch::prefetch(&self.slots, self.home(mix(block)));
    }

    /// The pool page in `block`'s home slot, if its fingerprint matches: a guess for a
    /// prefetch (no pool read).
    #[inline]
    pub(super) fn guess(&self, block: u32) -> Option<u32> {
        let h = mix(block);
        let s = self.slots[self.home(h)];
        (s != NONE && s & !self.idx_mask() == self.fingerprint(h)).then(|| s & self.idx_mask())
    }

    /// The slot holding `block`, if it is cached; `pool.at(i)` is the block page i holds.
    #[inline]
    fn find(&self, block: u32, pool: &super::pool::PoolWords) -> Option<usize> {
        let h = mix(block);
        let (fp, mask) = (self.fingerprint(h), self.idx_mask());
        let mut i = self.home(h);
        loop {
            let s = self.slots[i];
            if s == NONE {
                return None;
            }
            if s & !mask == fp && pool.at(s & mask) == block {
                return Some(i);
            }
            i = self.next(i);
        }
    }

    /// The pool page caching `block` (NONE: none).
    #[inline]
    pub(super) fn get(&self, block: u32, pool: &super::pool::PoolWords) -> u32 {
        self.find(block, pool)
            .map_or(NONE, |i| self.slots[i] & self.idx_mask())
    }

    /// Pool page `page` (whose pool word already holds `block`) now caches `block`, which
    /// was not cached.
    pub(super) fn insert(&mut self, block: u32, page: u32, pool: &super::pool::PoolWords) {
        if (self.len + 1) * LOAD_NUM > self.slots.len() as u64 * LOAD_DEN {
            // Grow by an eighth: the page cache grows by little past the warm start's size
            // (bounded by the pool), and each slot is 4 bytes per guest page cached.
            self.resize(self.len + 1 + self.len / 8, pool);
        }
        self.place(block, page);
        self.len += 1;
    }

    fn place(&mut self, block: u32, page: u32) {
        let h = mix(block);
        let mut i = self.home(h);
        while self.slots[i] != NONE {
            i = self.next(i);
        }
        self.slots[i] = self.fingerprint(h) | page;
    }

    /// Room for `n` entries without growing (the warm start knows how many it will cache).
    pub(super) fn reserve(&mut self, n: u64, pool: &super::pool::PoolWords) {
        if n * LOAD_NUM > self.slots.len() as u64 * LOAD_DEN {
            self.resize(n, pool);
        }
    }

    fn resize(&mut self, n: u64, pool: &super::pool::PoolWords) {
        let want = ((n * LOAD_NUM).div_ceil(LOAD_DEN) as usize).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![NONE; want]);
        let mask = self.idx_mask();
        for s in old.into_iter().filter(|&s| s != NONE) {
            let page = s & mask;
            self.place(pool.at(page), page);
        }
    }

    /// `block` is no longer cached (the pool still holds every cached block, `block` too).
    pub(super) fn remove(&mut self, block: u32, pool: &super::pool::PoolWords) {
        let Some(i) = self.find(block, pool) else {
            return;
        };
        let mask = self.idx_mask();
        self.len -= 1;
        // Backward shift: move up each later entry of the run that may sit in the hole.
        let mut hole = i;
        let mut j = self.next(i);
        loop {
            let s = self.slots[j];
            if s == NONE {
                break;
            }
            let home = self.home(mix(pool.at(s & mask)));
            // The entry may move to the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.slots[hole] = s;
                hole = j;
            }
            j = self.next(j);
        }
        self.slots[hole] = NONE;
    }

    /// Bytes held.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.slots.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::Stream;

    /// Against a dense map, through random inserts and removals with a pool that holds the
    /// blocks, including growth and the wrap at the table's end.
    #[test]
    fn behaves_as_a_dense_map() {
        let (blocks, n) = (50_000u32, 4_000u32);
        let mut pool = super::super::pool::PoolWords::free(n as usize);
        let mut dense = vec![NONE; blocks as usize];
        let mut ix = PageCacheIndex::new(blocks, n);
        let mut rng = Stream::new(11, 1);
        let mut free: Vec<u32> = (0..n).collect();
        let mut cached: Vec<u32> = Vec::new();
        for step in 0..200_000 {
            let b = rng.below(blocks as u64) as u32;
            assert_eq!(ix.get(b, &pool), dense[b as usize], "step {step} block {b}");
            if dense[b as usize] == NONE && !free.is_empty() && rng.uniform() < 0.6 {
                let p = free.pop().expect("free page");
                pool.set(p, b);
                ix.insert(b, p, &pool);
                dense[b as usize] = p;
                cached.push(b);
            } else if !cached.is_empty() {
                let k = rng.below(cached.len() as u64) as usize;
                let o = cached.swap_remove(k);
                let p = dense[o as usize];
                ix.remove(o, &pool);
                pool.set(p, NONE);
                dense[o as usize] = NONE;
                free.push(p);
            }
        }
        for b in 0..blocks {
            assert_eq!(ix.get(b, &pool), dense[b as usize], "block {b}");
        }
        assert!(
            cached.len() > 1_000,
            "the table was filled: {}",
            cached.len()
        );
        // Sized by what is cached, not by the blocks.
        assert!(ix.bytes() < 4 * blocks as usize / 4, "{} bytes", ix.bytes());
    }
}
