//! The storage server's cache in front of volumes outside `[io]`: CP's paging volumes when
//! the scenario gives `paging.cache`. A read hits when every track of its data is in the cache
//! (the clock over tracks of io/cache.rs), so the share of page-ins served from the cache
//! follows from how soon CP reads back what it wrote instead of being a configured fraction.
//! A write goes into the cache (DS8000 fast write); a read that misses stages its tracks.

use super::cache::Cache;
use super::NONE;

pub struct VolumeCache {
    cache: Cache,
    /// Per device (subchannel index): its volume in the cache, NONE if it has none.
    vol_of: Vec<u32>,
    pub reads: u64,
    pub read_hits: u64,
}

impl VolumeCache {
    pub fn new(bytes: u64) -> Self {
        VolumeCache {
            cache: Cache::new(bytes),
            vol_of: Vec::new(),
            reads: 0,
            read_hits: 0,
        }
    }

    /// Device `dev` is a volume of `blocks` 4 KB blocks behind this cache.
    pub fn add(&mut self, dev: u32, blocks: u64) {
        if self.vol_of.len() <= dev as usize {
            self.vol_of.resize(dev as usize + 1, NONE);
        }
        self.vol_of[dev as usize] = self.cache.add_volume(blocks);
    }

    /// A channel program moving `pages` at `block` of device `dev`: None if the device is not
    /// behind the cache, else whether a read found its data there (a write is never a miss).
    pub fn access(&mut self, dev: u32, block: u64, pages: u32, write: bool) -> Option<bool> {
        let v = *self.vol_of.get(dev as usize)?;
        if v == NONE {
            return None;
        }
        let n = pages.max(1) as u64;
        if write {
            self.cache.insert(v, block, n);
            return Some(true);
        }
        self.reads += 1;
        let hit = self.cache.lookup(v, block, n);
        if hit {
            self.read_hits += 1;
        } else {
            self.cache.insert(v, block, n);
        }
        Some(hit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::cache::BLOCKS_PER_TRACK;

    #[test]
    fn a_page_in_hits_while_its_block_is_still_cached() {
        // Two tracks of cache; device 3 is a volume behind it, device 1 is not.
        let mut c = VolumeCache::new(2 * BLOCKS_PER_TRACK * 4096);
        c.add(3, 1_000);
        assert_eq!(c.access(1, 0, 8, false), None);
        assert_eq!(
            c.access(3, 0, 8, true),
            Some(true),
            "a page-out goes to the cache"
        );
        assert_eq!(
            c.access(3, 0, 8, false),
            Some(true),
            "read back while there"
        );
        // The clock gives the read track 0 a second chance: the next track written replaces
        // track 2, the one after that track 0.
        c.access(3, 24, 8, true);
        c.access(3, 36, 8, true);
        assert_eq!(c.access(3, 0, 8, false), Some(true), "second chance");
        c.access(3, 48, 8, true);
        c.access(3, 60, 8, true);
        assert_eq!(
            c.access(3, 0, 8, false),
            Some(false),
            "replaced: staged from the ranks"
        );
        assert_eq!(c.access(3, 0, 8, false), Some(true), "the miss staged it");
        assert_eq!((c.reads, c.read_hits), (4, 3));
    }
}
