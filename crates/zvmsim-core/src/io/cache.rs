//! The storage server's cache directory: which tracks of which volume are in the cache.
//!
//! A DS8000 caches by track (its directory is per track, its segments 4 KB); a read whose
//! tracks are all in the cache is a hit, anything else is staged from the ranks first. Data
//! written goes into the cache (and NVS) and stays there for later reads. When the cache is
//! full, the track least recently used is replaced; the model approximates LRU with a clock
//! (second chance): a ring of the resident tracks in the order they came in, each with a
//! referenced bit that a hit sets. A 3390 track holds 12 records of 4 KB.
//!
//! Memory: one bit per track of every volume twice (a 3390-54 has 982,800 tracks: 240 KB)
//! and 8 bytes per resident track in the ring.

use std::collections::VecDeque;

/// 4 KB records per 3390 track.
pub const BLOCKS_PER_TRACK: u64 = 12;

#[derive(Debug, Clone, Copy, Default)]
pub struct CacheStats {
    pub staged_tracks: u64,
    pub replaced_tracks: u64,
}

struct Bits(Vec<u64>);

impl Bits {
    fn new(n: u64) -> Self {
        Bits(vec![0; n.div_ceil(64) as usize])
    }
    #[inline]
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    #[inline]
    fn set(&mut self, i: u64, v: bool) {
        let w = &mut self.0[(i / 64) as usize];
        if v {
            *w |= 1 << (i % 64);
        } else {
            *w &= !(1 << (i % 64));
        }
    }
}

struct Vol {
    tracks: u64,
    resident: Bits,
    referenced: Bits,
}

pub struct Cache {
    /// Capacity in tracks.
    cap: u64,
    vols: Vec<Vol>,
    /// Resident tracks, (volume << 32 | track), oldest first: the clock's hand is the front.
    ring: VecDeque<u64>,
    pub stats: CacheStats,
}

impl Cache {
    /// A cache of `bytes` (whole tracks of 12 × 4 KB).
    pub fn new(bytes: u64) -> Self {
        Cache {
            cap: (bytes / (BLOCKS_PER_TRACK * 4096)).max(1),
            vols: Vec::new(),
            ring: VecDeque::new(),
            stats: CacheStats::default(),
        }
    }

    /// A volume of `blocks` 4 KB blocks; returns its index (the server's volume index).
    pub fn add_volume(&mut self, blocks: u64) -> u32 {
        let tracks = blocks.div_ceil(BLOCKS_PER_TRACK).max(1);
        self.vols.push(Vol {
            tracks,
            resident: Bits::new(tracks),
            referenced: Bits::new(tracks),
        });
        (self.vols.len() - 1) as u32
    }

    fn tracks(&self, v: usize, block: u64, blocks: u64) -> std::ops::Range<u64> {
        let t = self.vols[v].tracks;
        let first = (block / BLOCKS_PER_TRACK).min(t - 1);
        let last = ((block + blocks.max(1) - 1) / BLOCKS_PER_TRACK).min(t - 1);
        first..last + 1
    }

    /// Whether every track of the `blocks` at `block` of volume `v` is in the cache; a hit
    /// marks them referenced.
    pub fn lookup(&mut self, v: u32, block: u64, blocks: u64) -> bool {
        let vi = v as usize;
        let r = self.tracks(vi, block, blocks);
        let vol = &mut self.vols[vi];
        if r.clone().any(|t| !vol.resident.get(t)) {
            return false;
        }
        for t in r {
            vol.referenced.set(t, true);
        }
        true
    }

    /// The tracks of the `blocks` at `block` of volume `v` are now in the cache (staged or
    /// written); the clock replaces others when it is full.
    pub fn insert(&mut self, v: u32, block: u64, blocks: u64) {
        let vi = v as usize;
        for t in self.tracks(vi, block, blocks) {
            if self.vols[vi].resident.get(t) {
                self.vols[vi].referenced.set(t, true);
                continue;
            }
            while self.ring.len() as u64 >= self.cap {
                self.replace_one();
            }
            self.vols[vi].resident.set(t, true);
            self.ring.push_back((v as u64) << 32 | t);
            self.stats.staged_tracks += 1;
        }
    }

    /// The clock: the first unreferenced track from the hand leaves the cache; referenced
    /// ones lose their bit and go round again.
    fn replace_one(&mut self) {
        while let Some(e) = self.ring.pop_front() {
            let (v, t) = ((e >> 32) as usize, e & 0xFFFF_FFFF);
            let vol = &mut self.vols[v];
            if vol.referenced.get(t) {
                vol.referenced.set(t, false);
                self.ring.push_back(e);
            } else {
                vol.resident.set(t, false);
                self.stats.replaced_tracks += 1;
                return;
            }
        }
    }

    /// Tracks in the cache.
    pub fn resident(&self) -> u64 {
        self.ring.len() as u64
    }

    pub fn capacity(&self) -> u64 {
        self.cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hit_what_was_written_and_the_clock_replaces_the_unreferenced() {
        // Room for 3 tracks.
        let mut c = Cache::new(3 * BLOCKS_PER_TRACK * 4096);
        let v = c.add_volume(1000);
        assert!(!c.lookup(v, 0, 1));
        c.insert(v, 0, 24); // tracks 0, 1
        assert!(c.lookup(v, 0, 24), "written data is read from the cache");
        assert!(!c.lookup(v, 20, 8), "track 2 is not there");
        c.insert(v, 24, 1); // track 2: full
        assert_eq!(c.resident(), 3);
        // Track 1 referenced again, track 0 too, track 2 not: a new track replaces track 2
        // after 0 and 1 have had their second chance.
        assert!(c.lookup(v, 0, 13));
        c.insert(v, 36, 1); // track 3
        assert_eq!(c.resident(), 3);
        assert!(!c.lookup(v, 24, 1), "the unreferenced track 2 was replaced");
        assert!(c.lookup(v, 0, 24) && c.lookup(v, 36, 1));
        assert_eq!(c.stats.replaced_tracks, 1);
        assert_eq!(c.stats.staged_tracks, 4);
    }
}
