//! Linux guest memory: the guest's own view of its storage, as a SLES 10 kernel (2.6.16) keeps
//! it. Kernel and program text; anonymous memory (the database's System V shared memory),
//! which Linux can swap; the page cache (file pages with a referenced bit); and free pages
//! kept between the zone watermarks by kswapd, or by direct reclaim when an allocation finds
//! free memory at the minimum (counted as pgscand).
//!
//! Guest-real layout (pages, local to the guest): [0, kernel) kernel and text, never
//! reclaimed; [kernel, pages) the pool, where each page is free, caches a file block, or holds
//! an anonymous page. An anonymous page is either in a pool page or in a swap slot; reading it
//! back is a major fault. Reclaim never touches the data of the pages it frees (the host sees
//! a page again when Linux reuses it), except that swapping a page out writes it to the swap
//! device, which reads the page.
//!
//! Reclaim is a clock over the pool with a referenced bit (second chance). Whether mapped
//! (anonymous) pages are reclaimed at all follows 2.6.16's `shrink_active_list`: with
//! `distress = 100 >> priority` and `mapped_ratio` the mapped share of memory in percent,
//! mapped pages are taken only when `mapped_ratio / 2 + distress + swappiness >= 100`. Each
//! pass scans `pool >> priority` pages, from priority 12 down to 0, as `shrink_zone` does.

use crate::cp::storage::NONE;

/// Pool-page owner tag of an anonymous page (the low bits are its index).
const ANON: u32 = 1 << 31;
/// Free pool page.
const FREE: u32 = NONE;
// An anonymous page's state, one word (`anon_at`), so that a reference costs one access:
/// the page has its pool page but the swap read has not been started yet;
const A_PENDING: u32 = 1 << 31;
/// referenced since reclaim last looked (the pool page's referenced bit);
const A_REF: u32 = 1 << 30;
/// has a swap slot (in `anon_slot`);
const A_SLOT: u32 = 1 << 29;
/// and the low bits: its pool page, or A_OUT when it is not in memory.
const A_IDX: u32 = A_SLOT - 1;
const A_OUT: u32 = A_IDX;
/// Linux's DEF_PRIORITY: the first reclaim pass scans 1/4096 of the pages.
const DEF_PRIORITY: u32 = 12;

/// A page Linux writes to swap: global guest page and slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapOut {
    pub page: u32,
    pub slot: u32,
}

/// Where an anonymous page is when a task references it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anon {
    /// In guest memory at this global page.
    Resident(u32),
    /// In guest memory at this global page, which still has to be read from `slot`
    /// (a major fault in progress).
    SwapIn { page: u32, slot: u32 },
}

pub struct LinuxMemory {
    /// First guest page (global index) of this guest.
    pub base: u32,
    pub pages: u32,
    pub kernel: u32,
    /// Anonymous pages (shared memory).
    pub shm: u32,
    /// Per pool page: FREE, a file block, or ANON | anonymous page.
    pool: Vec<u32>,
    /// Referenced bit of each pool page holding a file page.
    pool_ref: Vec<u8>,
    /// Page caching each database block (NONE: not cached).
    blk_pc: Vec<u32>,
    /// Each anonymous page's pool page and flags (A_*).
    anon_at: Vec<u32>,
    /// Swap slot of each anonymous page (NONE: none). A resident page keeps its slot while
    /// unchanged (the swap cache), so that swapping it out again needs no write.
    anon_slot: Vec<u32>,
    /// The anonymous page holding each swap slot (NONE: free), for readahead.
    slot_owner: Vec<u32>,
    /// Swap areas of equal priority: slot s is offset s / areas of area s % areas.
    pub swap_areas: u32,
    /// vm.page-cluster: a major fault reads the aligned 2^page_cluster slots around it.
    pub page_cluster: u32,
    /// Pages a major fault read ahead (anonymous page, global page), for the caller to check.
    pub readahead: Vec<(u32, u32)>,
    free: Vec<u32>,
    swap_free: Vec<u32>,
    /// Every anonymous page is in pool page v and reclaim has never considered mapped pages:
    /// references then need no lookup (speed). The first reclaim pass that may take mapped
    /// pages ends this, counting every anonymous page as referenced, as it must have been
    /// to stay resident.
    identity: bool,
    hand: u32,
    pub min: u32,
    pub low: u32,
    pub high: u32,
    /// vm.swappiness (0-100).
    pub swappiness: u32,
    pub kswapd_queued: bool,
    pub cached: u64,
    anon_resident: u64,
    pub swap_pages: u64,
    /// Pages written to swap by reclaim, for the caller to start the writes.
    pub swap_out: Vec<SwapOut>,
    pub pgmajfault: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    pub pgscan_kswapd: u64,
    pub pgscan_direct: u64,
    pub pgsteal: u64,
}

impl LinuxMemory {
    /// `shm`: anonymous pages; `blocks`: size of the file data (database) in pages;
    /// `min_free`: the minimum watermark (low and high follow Linux's ratios: low = 5/4 min,
    /// high = 3/2 min); `swap_pages`: slots of the active swap space.
    pub fn new(
        base: u32,
        pages: u32,
        kernel: u32,
        shm: u32,
        blocks: u32,
        min_free: u32,
        swap_pages: u64,
    ) -> Self {
        let n = (pages - kernel) as usize;
        let swap = swap_pages.min(u32::MAX as u64 - 1) as u32;
        LinuxMemory {
            base,
            pages,
            kernel,
            shm,
            pool: vec![FREE; n],
            pool_ref: vec![0; n],
            blk_pc: vec![NONE; blocks as usize],
            anon_at: vec![A_OUT; shm as usize],
            anon_slot: vec![NONE; shm as usize],
            slot_owner: vec![NONE; swap as usize],
            swap_areas: 1,
            page_cluster: 3,
            readahead: Vec::new(),
            free: Vec::new(),
            // Popped from the end: slots are handed out in ascending order, in clusters.
            swap_free: (0..swap).rev().collect(),
            identity: false,
            hand: 0,
            min: min_free,
            low: min_free + min_free / 4,
            high: min_free + min_free / 2,
            swappiness: 60,
            kswapd_queued: false,
            cached: 0,
            anon_resident: 0,
            swap_pages: swap as u64,
            swap_out: Vec::new(),
            pgmajfault: 0,
            pswpin: 0,
            pswpout: 0,
            pgscan_kswapd: 0,
            pgscan_direct: 0,
            pgsteal: 0,
        }
    }

    /// The most anonymous memory that stays resident at the warm start: the pool less the
    /// free target and as much again for the page cache.
    pub fn anon_capacity(pages: u32, kernel: u32, min_free: u32) -> u32 {
        let high = min_free + min_free / 2;
        (pages - kernel).saturating_sub(2 * high.max(256))
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
        for (k, v) in anon_heat.enumerate() {
            if (k as u64) < cap {
                // In use: referenced (a cleared bit would make reclaim's first revolution
                // take the hottest pages first).
                if v < n {
                    self.anon_at[v as usize] = v | A_REF;
                    self.pool[v as usize] = ANON | v;
                } else {
                    homeless.push(v);
                }
                self.anon_resident += 1;
            } else {
                let slot = self
                    .swap_free
                    .pop()
                    .expect("swap space checked by validation");
                self.anon_slot[v as usize] = slot;
                self.slot_owner[slot as usize] = v;
                self.anon_at[v as usize] = A_OUT | A_SLOT;
            }
        }
        self.identity = self.anon_resident == self.shm as u64 && homeless.is_empty();
        let mut hole = 0u32;
        for v in homeless {
            while self.pool[hole as usize] != FREE {
                hole += 1;
            }
            self.anon_at[v as usize] = hole | A_REF;
            self.pool[hole as usize] = ANON | v;
        }
        let room = n as u64 - self.anon_resident;
        let cached = room.saturating_sub(self.high as u64);
        let mut i = 0u32;
        for idx in 0..n {
            if self.pool[idx as usize] != FREE {
                continue;
            }
            if (i as u64) < cached {
                let b = fill(i);
                i += 1;
                if b != NONE && (b as usize) < self.blk_pc.len() && self.blk_pc[b as usize] == NONE
                {
                    self.pool[idx as usize] = b;
                    self.blk_pc[b as usize] = idx;
                    self.cached += 1;
                    continue;
                }
            }
            self.free.push(idx);
        }
        self.free.reverse();
    }

    /// Runs [lo, hi) of pool pages that hold file pages or are free (not anonymous memory).
    pub fn file_or_free_runs(&self) -> Vec<(u32, u32)> {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for (i, &o) in self.pool.iter().enumerate() {
            if o != FREE && o & ANON != 0 {
                continue;
            }
            let i = i as u32;
            match runs.last_mut() {
                Some(r) if r.1 == i => r.1 = i + 1,
                _ => runs.push((i, i + 1)),
            }
        }
        runs
    }

    pub fn free_pages(&self) -> u32 {
        self.free.len() as u32
    }

    pub fn swap_used(&self) -> u64 {
        self.swap_pages - self.swap_free.len() as u64
    }

    /// The global page holding anonymous page `v`, if it is in memory.
    pub fn anon_page(&self, v: u32) -> Option<u32> {
        let at = self.anon_at[v as usize] & A_IDX;
        (at != A_OUT).then(|| self.pool_global(at))
    }

    /// Global page of pool page `i`.
    #[inline]
    pub fn pool_global(&self, i: u32) -> u32 {
        self.base + self.kernel + i
    }

    /// Pool page `i` of a global page, if it is in the pool.
    pub fn pool_index(&self, global: u32) -> Option<u32> {
        let local = global.checked_sub(self.base + self.kernel)?;
        (local < self.pool.len() as u32).then_some(local)
    }

    /// The page caching `block`, marking it referenced (a page-cache hit).
    #[inline]
    pub fn lookup(&mut self, block: u32) -> Option<u32> {
        let i = self.blk_pc[block as usize];
        if i == NONE {
            return None;
        }
        self.pool_ref[i as usize] = 1;
        Some(i)
    }

    /// A reference to anonymous page `v`. A swapped-out page is a major fault: Linux allocates
    /// a page for it at once (reclaiming if it must) and the caller reads it from its slot.
    /// Returns the place and the pages scanned by direct reclaim.
    #[inline]
    pub fn anon_ref(&mut self, v: u32, write: bool) -> (Anon, u64) {
        if self.identity {
            return (Anon::Resident(self.pool_global(v)), 0);
        }
        let at = self.anon_at[v as usize];
        if at & (A_PENDING | A_IDX) < A_OUT {
            // Resident, the common case.
            self.anon_at[v as usize] = at | A_REF;
            if write && at & A_SLOT != 0 {
                self.drop_slot(v);
            }
            return (Anon::Resident(self.pool_global(at & A_IDX)), 0);
        }
        self.anon_fault(v, at)
    }

    /// A reference to a page on swap (a major fault) or one whose swap read is pending.
    fn anon_fault(&mut self, v: u32, at: u32) -> (Anon, u64) {
        let mut scanned = 0;
        let mut at = at;
        if at & A_IDX == A_OUT {
            debug_assert!(at & A_SLOT != 0, "a page not in memory has a swap slot");
            let (i, s) = self.alloc_page();
            scanned = s;
            self.pool[i as usize] = ANON | v;
            at = i | A_PENDING | A_SLOT;
            self.anon_resident += 1;
            self.pgmajfault += 1;
            self.pswpin += 1;
            self.anon_at[v as usize] = at;
            scanned += self.read_ahead(self.anon_slot[v as usize]);
        }
        self.anon_at[v as usize] = at | A_REF;
        (
            Anon::SwapIn {
                page: self.pool_global(at & A_IDX),
                slot: self.anon_slot[v as usize],
            },
            scanned,
        )
    }

    /// swapin_readahead: the other slots in use of the faulting slot's aligned cluster (in its
    /// swap area) whose pages are not in memory are read by the same I/O into new pages, which
    /// go to the swap cache unreferenced (a later reference is a minor fault).
    fn read_ahead(&mut self, slot: u32) -> u64 {
        let n = 1u32 << self.page_cluster.min(8);
        let areas = self.swap_areas.max(1);
        let (area, off) = (slot % areas, slot / areas);
        let first = off & !(n - 1);
        let mut scanned = 0;
        for o in first..first + n {
            let s = o * areas + area;
            if s == slot || s as usize >= self.slot_owner.len() {
                continue;
            }
            let w = self.slot_owner[s as usize];
            if w == NONE || self.anon_at[w as usize] & A_IDX != A_OUT {
                continue;
            }
            let (i, sc) = self.alloc_page();
            scanned += sc;
            self.pool[i as usize] = ANON | w;
            self.anon_at[w as usize] = i | A_SLOT;
            self.anon_resident += 1;
            self.pswpin += 1;
            let page = self.pool_global(i);
            self.readahead.push((w, page));
        }
        scanned
    }

    /// A page read ahead is not read after all (CP does not have its frame): it stays on swap.
    pub fn cancel_readahead(&mut self, w: u32, page: u32) {
        // Only a page still as the readahead left it: not reclaimed again, not used or changed.
        let at = self.anon_at[w as usize];
        if self.anon_page(w) != Some(page) || at & (A_SLOT | A_REF | A_PENDING) != A_SLOT {
            return;
        }
        let i = at & A_IDX;
        self.anon_at[w as usize] = A_OUT | A_SLOT;
        self.pool[i as usize] = FREE;
        self.free.push(i);
        self.anon_resident -= 1;
        self.pswpin -= 1;
    }

    /// The swap read of `v` has been started. With swap more than half full the slot is freed
    /// at once (Linux's vm_swap_full); otherwise the page keeps it as a clean copy.
    pub fn swapin_started(&mut self, v: u32) {
        self.anon_at[v as usize] &= !A_PENDING;
        if 2 * self.swap_used() > self.swap_pages {
            self.drop_slot(v);
        }
    }

    /// The page changed: its copy on swap is stale.
    #[inline]
    fn drop_slot(&mut self, v: u32) {
        let s = self.anon_slot[v as usize];
        if s != NONE {
            self.anon_slot[v as usize] = NONE;
            self.slot_owner[s as usize] = NONE;
            self.anon_at[v as usize] &= !A_SLOT;
            self.swap_free.push(s);
        }
    }

    pub fn needs_kswapd(&self) -> bool {
        self.free_pages() < self.low && !self.kswapd_queued
    }

    /// A free pool page; at the minimum watermark the allocating task reclaims itself (direct
    /// reclaim). Returns the page and the pages scanned directly.
    fn alloc_page(&mut self) -> (u32, u64) {
        let mut scanned = 0;
        if self.free_pages() <= self.min {
            scanned = self.reclaim(32, false);
        }
        if let Some(i) = self.free.pop() {
            return (i, scanned);
        }
        scanned += self.reclaim(1, false);
        if let Some(i) = self.free.pop() {
            return (i, scanned);
        }
        // Every page is referenced anonymous memory and swap is full. Validation keeps
        // anonymous memory within the pool and swap, so at least one page is a file page
        // or a page with a swap copy; take the first such page found.
        let i = (0..self.pool.len() as u32)
            .find(|&i| {
                let o = self.pool[i as usize];
                o & ANON == 0 || self.anon_at[(o & !ANON) as usize] & A_SLOT != 0
            })
            .expect("anonymous memory exceeds memory and swap");
        self.evict(i);
        (self.free.pop().expect("evicted page"), scanned)
    }

    /// Allocate a page-cache page for `block`. Returns the pool page and pages scanned.
    pub fn alloc_for(&mut self, block: u32) -> (u32, u64) {
        let (i, scanned) = self.alloc_page();
        let old = self.blk_pc[block as usize];
        if old != NONE {
            // Rewriting a cached block: reuse its page.
            self.free.push(i);
            return (old, scanned);
        }
        self.pool[i as usize] = block;
        self.blk_pc[block as usize] = i;
        self.pool_ref[i as usize] = 0;
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

    /// Free pool page `i` (a file page, or an anonymous page swapped out to a slot).
    fn evict(&mut self, i: u32) -> bool {
        let o = self.pool[i as usize];
        if o & ANON != 0 {
            let v = o & !ANON;
            let at = self.anon_at[v as usize];
            if at & A_PENDING != 0 {
                return false;
            }
            if at & A_SLOT == 0 {
                let Some(slot) = self.swap_free.pop() else {
                    return false;
                };
                self.anon_slot[v as usize] = slot;
                self.slot_owner[slot as usize] = v;
                self.swap_out.push(SwapOut {
                    page: self.pool_global(i),
                    slot,
                });
                self.pswpout += 1;
            }
            self.anon_at[v as usize] = A_OUT | A_SLOT;
            self.anon_resident -= 1;
        } else {
            self.blk_pc[o as usize] = NONE;
            self.cached -= 1;
        }
        self.pool[i as usize] = FREE;
        self.free.push(i);
        true
    }

    /// shrink_zone: clock passes over the pool at falling priority until `want` pages are
    /// free. Referenced pages get another round; mapped pages are skipped unless the swap
    /// tendency says to reclaim them.
    fn reclaim(&mut self, want: u32, kswapd: bool) -> u64 {
        let n = self.pool.len() as u32;
        let mut scanned = 0u64;
        let mut freed = 0;
        let mapped_ratio = (self.anon_resident * 100 / self.pages as u64) as u32;
        let mut priority = DEF_PRIORITY;
        loop {
            let distress = 100 >> priority;
            let reclaim_mapped =
                !self.swap_free.is_empty() && mapped_ratio / 2 + distress + self.swappiness >= 100;
            if reclaim_mapped && self.identity {
                self.identity = false;
                for at in &mut self.anon_at {
                    *at |= A_REF;
                }
            }
            let quota = (n >> priority).max(32);
            let (mut examined, mut visited) = (0, 0);
            while freed < want && examined < quota && visited < n {
                let i = self.hand;
                self.hand = if i + 1 == n { 0 } else { i + 1 };
                visited += 1;
                let o = self.pool[i as usize];
                if o == FREE || (o & ANON != 0 && !reclaim_mapped) {
                    continue;
                }
                examined += 1;
                if o & ANON != 0 {
                    let at = &mut self.anon_at[(o & !ANON) as usize];
                    if *at & A_REF != 0 {
                        *at &= !A_REF;
                        continue;
                    }
                } else if self.pool_ref[i as usize] != 0 {
                    self.pool_ref[i as usize] = 0;
                    continue;
                }
                if self.evict(i) {
                    freed += 1;
                }
            }
            scanned += examined as u64;
            if freed >= want || priority == 0 {
                break;
            }
            priority -= 1;
        }
        self.pgsteal += freed as u64;
        if kswapd {
            self.pgscan_kswapd += scanned;
        } else {
            self.pgscan_direct += scanned;
        }
        scanned
    }

    /// Anonymous pages in memory that also have an unchanged copy on swap (SwapCached).
    pub fn swap_cached(&self) -> u64 {
        self.anon_at
            .iter()
            .filter(|&&at| at & A_SLOT != 0 && at & A_IDX != A_OUT)
            .count() as u64
    }

    /// Pages in use by anonymous memory in guest storage.
    pub fn anon(&self) -> u64 {
        self.anon_resident
    }

    /// Linux's bookkeeping is consistent: pool owners and their reverse maps agree, counts
    /// equal their sums, and swap slots are conserved.
    pub fn check(&self) -> Result<(), String> {
        let (mut cached, mut anon, mut free) = (0u64, 0u64, 0u64);
        for (i, &o) in self.pool.iter().enumerate() {
            if o == FREE {
                free += 1;
            } else if o & ANON != 0 {
                anon += 1;
                if self.anon_at[(o & !ANON) as usize] & A_IDX != i as u32 {
                    return Err(format!(
                        "pool page {i} holds anon {} that maps elsewhere",
                        o & !ANON
                    ));
                }
            } else {
                cached += 1;
                if self.blk_pc[o as usize] != i as u32 {
                    return Err(format!(
                        "pool page {i} caches block {o} that maps elsewhere"
                    ));
                }
            }
        }
        if free != self.free.len() as u64 || cached != self.cached || anon != self.anon_resident {
            return Err(format!(
                "counts: free {free}/{}, cached {cached}/{}, anon {anon}/{}",
                self.free.len(),
                self.cached,
                self.anon_resident
            ));
        }
        let mut slot_seen = vec![false; self.swap_pages as usize];
        for &s in &self.swap_free {
            if std::mem::replace(&mut slot_seen[s as usize], true) {
                return Err(format!("swap slot {s} free twice"));
            }
        }
        for v in 0..self.shm as usize {
            let (s, at) = (self.anon_slot[v], self.anon_at[v]);
            if (s != NONE) != (at & A_SLOT != 0) {
                return Err(format!("anon page {v}: slot flag disagrees with slot {s}"));
            }
            if at & A_IDX == A_OUT && s == NONE {
                return Err(format!("anon page {v} is neither in memory nor on swap"));
            }
            if s != NONE && std::mem::replace(&mut slot_seen[s as usize], true) {
                return Err(format!("swap slot {s} used twice"));
            }
            if s != NONE && self.slot_owner[s as usize] != v as u32 {
                return Err(format!(
                    "swap slot {s} does not point back to anon page {v}"
                ));
            }
        }
        if slot_seen.iter().any(|&x| !x) {
            return Err("a swap slot is lost".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_cache_reclaim_keeps_watermarks() {
        let mut m = LinuxMemory::new(1000, 1000, 100, 300, 10_000, 40, 0);
        m.warm(0..300, |i| i);
        assert_eq!(m.free_pages(), m.high);
        assert_eq!(m.cached as u32, 600 - m.high);
        assert!(m.lookup(3).is_some());
        assert!(m.lookup(9_999).is_none());
        // Allocate past the minimum: direct reclaim happens.
        for b in 5_000..5_100 {
            m.alloc_for(b);
        }
        assert!(m.pgscan_direct > 0);
        assert!(m.free_pages() > 0);
        m.check().unwrap();
        assert_eq!(m.cached as u32 + m.free_pages(), 600);
        // Without swap, anonymous memory stays put.
        assert_eq!(m.anon(), 300);
        let before = m.pgscan_kswapd;
        m.kswapd();
        assert!(m.pgscan_kswapd > before);
        assert!(m.free_pages() >= m.high);
        m.check().unwrap();
    }

    /// A guest whose shared memory is larger than its storage swaps: a reference to a page on
    /// swap is a major fault, and reclaim writes pages out once the page cache is small.
    #[test]
    fn anonymous_memory_beyond_storage_swaps() {
        let (pages, kernel, shm, min) = (3000, 200, 3000, 40);
        let mut m = LinuxMemory::new(0, pages, kernel, shm, 5_000, min, 1000);
        m.warm(0..shm, |i| i);
        let cap = LinuxMemory::anon_capacity(pages, kernel, min);
        assert_eq!(m.anon(), cap as u64);
        assert_eq!(m.swap_used(), (shm - cap) as u64);
        m.check().unwrap();
        let mut faults = 0;
        for r in 0..20_000u32 {
            let v = (r * 7919) % shm;
            let (a, _) = m.anon_ref(v, r % 3 == 0);
            if let Anon::SwapIn { page, slot } = a {
                faults += 1;
                assert!(page >= kernel && page < pages);
                assert!(slot != NONE);
                m.swapin_started(v);
            }
            m.swap_out.clear();
            if m.needs_kswapd() {
                m.kswapd();
            }
        }
        assert!(faults > 1000, "faults {faults}");
        assert_eq!(m.pgmajfault, faults);
        assert!(m.pswpout > 0);
        m.check().unwrap();
    }

    /// swappiness 0 with a mostly anonymous guest: the page cache is reclaimed, anonymous
    /// pages only under distress; swappiness 100 swaps at once.
    #[test]
    fn swappiness_sets_when_mapped_pages_are_reclaimed() {
        let run = |swappiness| {
            let mut m = LinuxMemory::new(0, 10_000, 200, 6_000, 20_000, 40, 4_000);
            m.swappiness = swappiness;
            m.warm(0..6_000, |i| 10_000 + i);
            for b in 0..9_000 {
                m.alloc_for(b);
                if m.needs_kswapd() {
                    m.kswapd();
                }
            }
            m.check().unwrap();
            m.pswpout
        };
        assert_eq!(run(0), 0);
        assert!(run(100) > 100, "swappiness 100 swaps");
    }
}
