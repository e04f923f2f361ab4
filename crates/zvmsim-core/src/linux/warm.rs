//! The guest's memory at the warm start: Linux after the workload has run for a while, its
//! shared memory resident as far as it fits and its page cache full of file blocks.

use super::memory::{LinuxMemory, ANON, A_OUT, A_REF, A_SLOT, FREE};
use crate::cp::storage::NONE;

/// How many page-cache blocks the warm start draws ahead of placing them.
const WARM_AHEAD: usize = 16;

impl LinuxMemory {
    /// Pages `warm` gives the page cache when `anon` anonymous pages want to be resident.
    pub fn warm_cache_pages(&self, anon: u64) -> u64 {
        let cap = Self::anon_capacity(self.pages, self.kernel, self.min) as u64;
        (self.pool.len() as u64 - anon.min(cap)).saturating_sub(self.high as u64)
    }

    /// Steady state after the workload has run for a while. `anon_heat` lists the anonymous
    /// pages hottest first: those that fit are resident, each in pool page v where it can
    /// (else in the first pool page left over), and the rest start on swap. The page cache
    /// holds file blocks (`fill(i)` gives the block for the i-th cached page) and the rest up
    /// to the high watermark is free.
    pub fn warm(&mut self, anon_heat: impl Iterator<Item = u32>, mut fill: impl FnMut(u32) -> u32) {
        let cap = Self::anon_capacity(self.pages, self.kernel, self.min) as u64;
        let n = self.pool.len() as u32;
        let mut homeless = Vec::new();
        // While every page so far is resident in the pool page of its own number its word is
        // implied (linux::anon); the first page placed otherwise writes the words out.
        let mut implied = true;
        // The pool words too are expected to say so (linux::pool): the shared memory's pool
        // pages are then never written, unless a page turns out to be placed otherwise.
        let mut expected =
            self.shm as u64 <= cap && self.shm <= n && self.anon_resident == 0 && self.cached == 0;
        let mut placed = fixedbitset::FixedBitSet::new();
        if expected {
            self.pool.expect_identity(self.shm);
            placed.grow(self.shm as usize);
        }
        for (k, v) in anon_heat.enumerate() {
            if implied && ((k as u64) >= cap || v >= n) {
                if expected {
                    self.pool.drop_identity(&placed);
                    expected = false;
                }
                self.anon_words_from_pool();
                implied = false;
            }
            if (k as u64) < cap {
                // In use: referenced (a cleared bit would make reclaim's first revolution
                // take the hottest pages first).
                if v < n {
                    if !implied {
                        *self.anon.at_mut(v) = v | A_REF;
                    }
                    if expected && v < self.shm {
                        placed.insert(v as usize);
                    }
                    self.pool.set(v, ANON | v);
                } else {
                    homeless.push(v);
                }
                self.anon_resident += 1;
            } else {
                let slot = self.alloc_slot().expect("swap space checked by validation");
                self.anon.set_slot(v, slot);
                self.slot_owner[slot as usize] = v;
                *self.anon.at_mut(v) = A_OUT | A_SLOT;
            }
        }
        self.identity = self.anon_resident == self.shm as u64 && homeless.is_empty();
        if expected && !(self.identity && placed.count_ones(..) == self.shm as usize) {
            self.pool.drop_identity(&placed);
        }
        if implied && self.identity {
            self.anon.set_identity();
        } else if implied {
            self.anon_words_from_pool();
        }
        let mut hole = 0u32;
        for v in homeless {
            while self.pool.at(hole) != FREE {
                hole += 1;
            }
            *self.anon.at_mut(v) = hole | A_REF;
            self.pool.set(hole, ANON | v);
        }
        let room = n as u64 - self.anon_resident;
        let cached = room.saturating_sub(self.high as u64);
        let mut i = 0u32;
        let mut free = crate::engine::freelist::FreeRuns::default();
        // The blocks come at random: each is drawn WARM_AHEAD places early and its entry asked
        // for, so that the writes' misses overlap. Every i below `cached` is drawn once, in
        // order, as before (there are at least `cached` free pool pages).
        // Room for every page the cache can hold while the anonymous memory stays resident
        // (the free pages above the watermark fill with cache first): the index then needs
        // no rehash of the whole cache when the run grows it past the warm start's size. It
        // can never hold more than the file's blocks (an idle guest has none: 4 bytes a pool
        // page written for nothing, 2.7 GB for the 900 idle guests of scale/1000guests).
        self.pc
            .reserve(room.min(self.pc.blocks() as u64), &self.pool);
        let mut ahead = std::collections::VecDeque::with_capacity(WARM_AHEAD);
        let mut drawn = 0u32;
        for idx in 0..n {
            if self.pool.at(idx) != FREE {
                continue;
            }
            if (i as u64) < cached {
                while (drawn as u64) < cached && ahead.len() < WARM_AHEAD {
                    let b = fill(drawn);
                    drawn += 1;
                    if b < self.pc.blocks() {
                        self.pc.prefetch(b);
                    }
                    ahead.push_back(b);
                }
                let b = ahead.pop_front().expect("drawn ahead");
                i += 1;
                if b < self.pc.blocks() && self.pc.get(b, &self.pool) == NONE {
                    self.pool.set(idx, b);
                    self.pc.insert(b, idx, &self.pool);
                    self.cached += 1;
                    self.mapped_resident += u64::from(b < self.mapped_below);
                    continue;
                }
            }
            free.push(idx);
        }
        self.free = crate::engine::freelist::FreePages::from_runs(free, n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index is reserved for the cache the warm start leaves room for; when anonymous
    /// memory is swapped out the cache grows past that room and the index grows with it.
    #[test]
    fn page_cache_grows_past_the_warm_room() {
        // A pool of 1,000 pages: 488 anonymous pages resident, room for 512 of cache.
        let mut m = LinuxMemory::new(0, 1100, 100, 488, 20_000, 40, 1000);
        m.warm(0..488, |i| i);
        let room = 1000 - m.anon();
        assert_eq!((m.anon(), m.cached), (488, room - m.high as u64));
        m.swappiness = 100;
        for b in 1000..6000 {
            m.alloc_for(b);
            m.swap_out.clear();
            if m.needs_kswapd() {
                m.kswapd();
            }
        }
        assert!(m.pswpout > 200, "anonymous memory swapped: {}", m.pswpout);
        assert!(m.cached > room + 100, "cache {} beyond {room}", m.cached);
        // Every cached block is found at its page (check), a block never read is not.
        m.check().unwrap();
        assert_eq!(m.cached_page(7000), None);
        let last = m.cached_page(5999).expect("the last block read is cached");
        assert_eq!(m.lookup(5999).map(|i| m.pool_global(i)), Some(last));
    }
}
