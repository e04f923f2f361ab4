//! Linux guest memory: the guest's own view of its storage. Kernel and program text, anonymous
//! memory (the database's shared memory), the page cache (file pages on an LRU with a
//! referenced bit) and free pages kept between the zone watermarks by kswapd, or by direct
//! reclaim when an allocation finds free memory below the minimum (counted as pgscand).
//!
//! Guest-real layout (pages, local to the guest): [0, kernel) kernel and text;
//! [kernel, kernel + shm) database shared memory; the rest is page cache and free memory.
//! Reclaim never touches the data of the pages it frees; the host sees a page again when Linux
//! reuses it and writes new contents into it.

use crate::storage::NONE;

pub struct LinuxMemory {
    /// First guest page (global index) of this guest.
    pub base: u32,
    pub pages: u32,
    pub kernel: u32,
    pub shm: u32,
    /// First page of the page-cache region (local).
    pub pc_start: u32,
    /// File block cached in each page-cache-region page (NONE: free).
    pc_block: Vec<u32>,
    pc_ref: Vec<u8>,
    /// Page caching each database block (NONE: not cached).
    blk_pc: Vec<u32>,
    free: Vec<u32>,
    hand: u32,
    pub min: u32,
    pub low: u32,
    pub high: u32,
    pub kswapd_queued: bool,
    pub cached: u64,
    pub swap_pages: u64,
    pub pgmajfault: u64,
    pub pgscan_kswapd: u64,
    pub pgscan_direct: u64,
    pub pgsteal: u64,
}

impl LinuxMemory {
    /// `blocks`: size of the file data (database) in pages; `min_free`: the minimum watermark
    /// (low and high follow Linux's ratios: low = 5/4 min, high = 3/2 min).
    pub fn new(
        base: u32,
        pages: u32,
        kernel: u32,
        shm: u32,
        blocks: u32,
        min_free: u32,
        swap_pages: u64,
    ) -> Self {
        let pc_start = kernel + shm;
        let n = (pages - pc_start) as usize;
        LinuxMemory {
            base,
            pages,
            kernel,
            shm,
            pc_start,
            pc_block: vec![NONE; n],
            pc_ref: vec![0; n],
            blk_pc: vec![NONE; blocks as usize],
            free: Vec::new(),
            hand: 0,
            min: min_free,
            low: min_free + min_free / 4,
            high: min_free + min_free / 2,
            kswapd_queued: false,
            cached: 0,
            swap_pages,
            pgmajfault: 0,
            pgscan_kswapd: 0,
            pgscan_direct: 0,
            pgsteal: 0,
        }
    }

    /// Steady state after the workload has run for a while: the page cache holds file blocks
    /// (`fill(i)` gives the block for the i-th cached page), the rest up to the high watermark
    /// is free.
    pub fn warm(&mut self, mut fill: impl FnMut(u32) -> u32) {
        let n = self.pc_block.len() as u32;
        let cached = n.saturating_sub(self.high);
        for i in 0..cached {
            let b = fill(i);
            if b != NONE && (b as usize) < self.blk_pc.len() && self.blk_pc[b as usize] == NONE {
                self.pc_block[i as usize] = b;
                self.blk_pc[b as usize] = i;
                self.cached += 1;
            } else {
                self.free.push(i);
            }
        }
        for i in (cached..n).rev() {
            self.free.push(i);
        }
    }

    pub fn free_pages(&self) -> u32 {
        self.free.len() as u32
    }

    /// Global page of a page-cache-region page.
    #[inline]
    pub fn pc_global(&self, i: u32) -> u32 {
        self.base + self.pc_start + i
    }

    /// The page caching `block`, marking it referenced (a page-cache hit).
    #[inline]
    pub fn lookup(&mut self, block: u32) -> Option<u32> {
        let i = self.blk_pc[block as usize];
        if i == NONE {
            return None;
        }
        self.pc_ref[i as usize] = 1;
        Some(i)
    }

    pub fn needs_kswapd(&self) -> bool {
        self.free_pages() < self.low && !self.kswapd_queued
    }

    /// Allocate a page-cache page for `block`. Below the minimum watermark the allocating
    /// task reclaims itself (direct reclaim); returns the page and pages scanned directly.
    pub fn alloc_for(&mut self, block: u32) -> (u32, u64) {
        let mut scanned = 0;
        if self.free_pages() <= self.min {
            scanned = self.reclaim(32, false);
        }
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                scanned += self.reclaim(1, false);
                self.free.pop().expect("reclaim freed nothing")
            }
        };
        let old = self.blk_pc[block as usize];
        if old != NONE {
            // Rewriting a cached block: reuse its page.
            self.free.push(i);
            return (old, scanned);
        }
        self.pc_block[i as usize] = block;
        self.blk_pc[block as usize] = i;
        self.pc_ref[i as usize] = 0;
        self.cached += 1;
        (i, scanned)
    }

    /// kswapd's work: reclaim up to the high watermark. Returns pages scanned.
    pub fn kswapd(&mut self) -> u64 {
        self.kswapd_queued = false;
        let want = self.high.saturating_sub(self.free_pages());
        if want == 0 {
            return 0;
        }
        self.reclaim(want, true)
    }

    /// Second-chance LRU over the page cache: referenced pages are given another round,
    /// unreferenced ones are freed (their blocks dropped from the cache).
    fn reclaim(&mut self, want: u32, kswapd: bool) -> u64 {
        let n = self.pc_block.len() as u32;
        let mut scanned = 0u64;
        let mut freed = 0;
        while freed < want && scanned < 4 * n as u64 {
            let i = self.hand;
            self.hand = if i + 1 == n { 0 } else { i + 1 };
            let b = self.pc_block[i as usize];
            if b == NONE {
                continue;
            }
            scanned += 1;
            if self.pc_ref[i as usize] != 0 {
                self.pc_ref[i as usize] = 0;
                continue;
            }
            self.pc_block[i as usize] = NONE;
            self.blk_pc[b as usize] = NONE;
            self.cached -= 1;
            self.free.push(i);
            freed += 1;
        }
        self.pgsteal += freed as u64;
        if kswapd {
            self.pgscan_kswapd += scanned;
        } else {
            self.pgscan_direct += scanned;
        }
        scanned
    }

    /// Pages in use by anonymous memory (kernel data and shared memory).
    pub fn anon(&self) -> u64 {
        self.shm as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_cache_reclaim_keeps_watermarks() {
        let mut m = LinuxMemory::new(1000, 1000, 100, 400, 10_000, 40, 0);
        m.warm(|i| i);
        assert_eq!(m.free_pages(), m.high);
        assert_eq!(m.cached as u32, 500 - m.high);
        assert!(m.lookup(3).is_some());
        assert!(m.lookup(9_999).is_none());
        // Allocate past the minimum: direct reclaim happens.
        for b in 5_000..5_100 {
            m.alloc_for(b);
        }
        assert!(m.pgscan_direct > 0);
        assert!(m.free_pages() > 0);
        // Every cached block maps back to its page.
        let mut cached = 0;
        for (i, &b) in m.pc_block.iter().enumerate() {
            if b != NONE {
                cached += 1;
                assert_eq!(m.blk_pc[b as usize], i as u32);
            }
        }
        assert_eq!(cached, m.cached);
        assert_eq!(m.cached as u32 + m.free_pages(), 500);
        let before = m.pgscan_kswapd;
        m.kswapd();
        assert!(m.pgscan_kswapd > before);
        assert!(m.free_pages() >= m.high);
    }
}
