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
//! This module is the pool: page states, the free list, page-cache lookup, allocation, the
//! counters and the invariants. Reclaim (kswapd, direct reclaim, the clock, the swap tendency)
//! is in `linux::reclaim`; swap slots, the swap cache and readahead in `linux::swap`.

use crate::cp::storage::{GuestState, NONE};

pub use super::swap::{Anon, SwapOut};

/// Pool-page owner tag of an anonymous page (the low bits are its index).
pub(super) const ANON: u32 = 1 << 31;
/// Free pool page.
pub(super) const FREE: u32 = NONE;
/// Pool page in the cmm balloon (given to CP): neither free, nor a file page, nor anonymous.
/// File block numbers stay below it (the owner word's top bit is ANON).
pub(super) const BALLOON: u32 = ANON - 1;
// An anonymous page's state, one word (`AnonPages::at`), so that a reference costs one access:
/// the page has its pool page but the swap read has not been started yet;
pub(super) const A_PENDING: u32 = 1 << 31;
/// referenced since reclaim last looked (the pool page's referenced bit);
pub(super) const A_REF: u32 = 1 << 30;
/// has a swap slot (`AnonPages::slot`);
pub(super) const A_SLOT: u32 = 1 << 29;
/// and the low bits: its pool page, or A_OUT when it is not in memory.
pub(super) const A_IDX: u32 = A_SLOT - 1;
pub(super) const A_OUT: u32 = A_IDX;

/// vm.swappiness before the scenario or `sysctl` sets it: `vm_swappiness = 60` (mm/vmscan.c
/// of 2.6.16).
pub const DEFAULT_SWAPPINESS: u32 = 60;
/// vm.page-cluster before the scenario or `sysctl` sets it: 3 on machines over 16 MB
/// (mm/swap.c of 2.6.16, swap_setup()).
pub const DEFAULT_PAGE_CLUSTER: u32 = 3;
/// pages_low = pages_min + pages_min / 4 (mm/page_alloc.c of 2.6.16,
/// setup_per_zone_pages_min()).
const PAGES_LOW_DIVISOR: u32 = 4;
/// pages_high = pages_min + pages_min / 2 (same function).
const PAGES_HIGH_DIVISOR: u32 = 2;
/// The warm start keeps free pages up to the high watermark and as much again for the page
/// cache, at least this many pages each (1 MB). Inference: a floor so that a guest with a
/// tiny min_free still starts with some page cache.
const WARM_RESERVE_MIN: u32 = 256;

/// The low watermark for a minimum of `min` pages: kswapd is woken below it.
pub(super) fn pages_low(min: u32) -> u32 {
    min + min / PAGES_LOW_DIVISOR
}

/// The high watermark for a minimum of `min` pages: kswapd reclaims up to it.
pub(super) fn pages_high(min: u32) -> u32 {
    min + min / PAGES_HIGH_DIVISOR
}

pub struct LinuxMemory {
    /// First guest page (global index) of this guest.
    pub base: u32,
    pub pages: u32,
    pub kernel: u32,
    /// Anonymous pages (shared memory).
    pub shm: u32,
    /// Per pool page: FREE, a file block, or ANON | anonymous page.
    pub(super) pool: super::pool::PoolWords,
    /// Referenced bit of each pool page holding a file page.
    pub(super) pool_ref: fixedbitset::FixedBitSet,
    /// Page-cache pages with buffer heads attached (PagePrivate): never volatile under CMMA
    /// (`config::linux::FileSystem`). Empty until the first page gets them (a database that
    /// never writes through ext3 costs nothing here).
    pub(super) pool_bh: fixedbitset::FixedBitSet,
    /// The file system of the data files: which pages it gives buffer heads.
    pub filesystem: crate::config::linux::FileSystem,
    /// The pool page caching each file block (`linux::pcindex`).
    pub(super) pc: super::pcindex::PageCacheIndex,
    /// Each anonymous page's pool page and flags (A_*), and its swap slot (NONE: none). A
    /// resident page keeps its slot while unchanged (the swap cache), so that swapping it out
    /// again needs no write.
    pub(super) anon: super::anon::AnonPages,
    /// The anonymous page holding each swap slot (NONE: free), for readahead.
    pub(super) slot_owner: Vec<u32>,
    /// Swap areas of equal priority: slot s is offset s / areas of area s % areas.
    pub swap_areas: u32,
    /// vm.page-cluster: a major fault reads the aligned 2^page_cluster slots around it.
    pub page_cluster: u32,
    /// Pages a major fault read ahead (anonymous page, global page), for the caller to check.
    pub readahead: Vec<(u32, u32)>,
    pub(super) free: crate::engine::freelist::FreePages,
    /// Free slots of the static swap space: a swap area never used costs no entry per slot.
    pub(super) swap_free: crate::engine::freelist::FreePages,
    /// Areas activated by `swapon` and the priorities (`linux::swap_areas`).
    pub areas: super::swap_areas::SwapAreas,
    /// Every anonymous page is in pool page v and reclaim has never considered mapped pages:
    /// references then need no lookup (speed). The first reclaim pass that may take mapped
    /// pages ends this, counting every anonymous page as referenced, as it must have been
    /// to stay resident.
    pub(super) identity: bool,
    /// Guest pages used before the run (`[guests.linux] used`): the warm start touches no
    /// free page at or above it.
    pub used: u32,
    /// The reclaim clock's hand (a pool page).
    pub(super) hand: u32,
    pub min: u32,
    pub low: u32,
    pub high: u32,
    /// vm.swappiness (0-100).
    pub swappiness: u32,
    pub kswapd_queued: bool,
    pub cached: u64,
    /// File blocks below this are mapped into a process: program text and shared libraries
    /// run from a file system (execve and the dynamic loader map them with mmap), so
    /// reclaim treats their page-cache pages as mapped pages, as it does anonymous memory
    /// (2.6.16 `refill_inactive_zone` tests `page_mapped`, file or anonymous). 0: none.
    pub mapped_below: u32,
    /// Page-cache pages of mapped file blocks.
    pub(super) mapped_resident: u64,
    pub(super) anon_resident: u64,
    pub swap_pages: u64,
    /// Pages written to swap by reclaim, for the caller to start the writes.
    pub swap_out: Vec<SwapOut>,
    pub pgmajfault: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    pub pgscan_kswapd: u64,
    pub pgscan_direct: u64,
    pub pgsteal: u64,
    /// CMMA is in effect (booted with `cmma=on` and ESSA available): page allocations and
    /// frees set the host page state.
    pub cmma: bool,
    /// ESSA state changes made since the caller last applied them (global page, state).
    pub essa: Vec<(u32, GuestState)>,
    /// The cmm module (balloon) and its state.
    pub cmm: super::cmm::Cmm,
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
        debug_assert!(blocks < BALLOON, "file blocks reach the balloon tag");
        let n = (pages - kernel) as usize;
        // NONE marks "no slot": the slot numbers stay below it.
        let swap = swap_pages.min(u32::MAX as u64 - 1) as u32;
        LinuxMemory {
            base,
            pages,
            kernel,
            shm,
            pool: super::pool::PoolWords::free(n),
            pool_ref: fixedbitset::FixedBitSet::with_capacity(n),
            pool_bh: fixedbitset::FixedBitSet::new(),
            filesystem: Default::default(),
            pc: super::pcindex::PageCacheIndex::new(blocks, n as u32),
            anon: super::anon::AnonPages::new(shm),
            slot_owner: vec![NONE; swap as usize],
            swap_areas: 1,
            page_cluster: DEFAULT_PAGE_CLUSTER,
            readahead: Vec::new(),
            free: Default::default(),
            // Slots are handed out in ascending order, in clusters.
            swap_free: crate::engine::freelist::FreePages::all(swap),
            areas: super::swap_areas::SwapAreas::with_static(swap, 1),
            identity: false,
            used: pages,
            hand: 0,
            min: min_free,
            low: pages_low(min_free),
            high: pages_high(min_free),
            swappiness: DEFAULT_SWAPPINESS,
            kswapd_queued: false,
            cached: 0,
            mapped_below: 0,
            mapped_resident: 0,
            anon_resident: 0,
            swap_pages: swap as u64,
            swap_out: Vec::new(),
            pgmajfault: 0,
            pswpin: 0,
            pswpout: 0,
            pgscan_kswapd: 0,
            pgscan_direct: 0,
            pgsteal: 0,
            cmma: false,
            essa: Vec::new(),
            cmm: super::cmm::Cmm::default(),
        }
    }

    /// The most anonymous memory that stays resident at the warm start: the pool less the
    /// free target and as much again for the page cache.
    pub fn anon_capacity(pages: u32, kernel: u32, min_free: u32) -> u32 {
        let reserve = pages_high(min_free).max(WARM_RESERVE_MIN);
        // One reserve stays free, the other holds page cache.
        (pages - kernel).saturating_sub(reserve + reserve)
    }

    /// Writes out the word of every anonymous page: referenced in the pool page that holds it,
    /// out of memory if none does.
    pub(super) fn anon_words_from_pool(&mut self) {
        for i in 0..self.pool.len() as u32 {
            let o = self.pool.at(i);
            if o != FREE && o != BALLOON && o & ANON != 0 {
                *self.anon.at_mut(o & !ANON) = i | A_REF;
            }
        }
    }

    /// Runs [lo, hi) of pool pages that hold file pages, or are free and lie below `used`
    /// (free pages above it the guest never touched): what the warm start has the guest use
    /// besides its anonymous memory and kernel.
    pub fn file_or_free_runs(&self) -> Vec<(u32, u32)> {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        let used = self.used.saturating_sub(self.kernel) as usize;
        for (i, o) in self.pool.iter().enumerate() {
            if (o != FREE && o & ANON != 0) || o == BALLOON || (o == FREE && i >= used) {
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

    /// Ask for `block`'s page-cache entry ahead of a lookup.
    #[inline]
    pub fn prefetch_block(&self, block: u32) {
        if block < self.pc.blocks() {
            self.pc.prefetch(block);
        }
    }

    /// The global page caching `block`, if any (no reference is made).
    #[inline]
    pub fn cached_page(&self, block: u32) -> Option<u32> {
        if block >= self.pc.blocks() {
            return None;
        }
        let i = self.pc.get(block, &self.pool);
        (i != NONE).then(|| self.pool_global(i))
    }

    /// Ask for the pool word of the page probably caching `block` (its index slot was asked
    /// for earlier), without waiting for it; returns that page's global number, for the caller
    /// to ask for its host page word too.
    #[inline]
    pub fn prefetch_cached(&self, block: u32) -> Option<u32> {
        if block >= self.pc.blocks() {
            return None;
        }
        let i = self.pc.guess(block)?;
        self.pool.prefetch(i);
        Some(self.pool_global(i))
    }

    pub fn free_pages(&self) -> u32 {
        self.free.len() as u32
    }

    /// The global page holding anonymous page `v`, if it is in memory.
    pub fn anon_page(&self, v: u32) -> Option<u32> {
        let at = self.anon.at(v) & A_IDX;
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
        let i = self.pc.get(block, &self.pool);
        if i == NONE {
            return None;
        }
        self.pool_ref.insert(i as usize);
        Some(i)
    }

    /// A free pool page; at the minimum watermark the allocating task reclaims itself (direct
    /// reclaim). Returns the page and the pages scanned directly.
    pub(super) fn alloc_page(&mut self) -> (u32, u64) {
        let (got, scanned) = self.try_alloc_page();
        if let Some(i) = got {
            return (i, scanned);
        }
        // Out of memory: the notifiers run first; the cmm module gives back balloon pages.
        if self.cmm_oom_notify() > 0 {
            if let Some(i) = self.free.pop() {
                self.set_state(i, GuestState::Stable);
                return (i, scanned);
            }
        }
        // Every page is referenced anonymous memory and swap is full. Validation keeps
        // anonymous memory within the pool and swap, so at least one page is a file page
        // or a page with a swap copy; take the first such page found (not one whose swap
        // read is still pending: evict leaves those, as the kernel skips locked pages).
        let i = (0..self.pool.len() as u32)
            .find(|&i| {
                let o = self.pool.at(i);
                let slot_copy = |at: u32| at & (A_SLOT | A_PENDING) == A_SLOT;
                (o & ANON == 0 && o != BALLOON)
                    || (o & ANON != 0 && slot_copy(self.anon.at(o & !ANON)))
            })
            .expect("anonymous memory exceeds memory and swap");
        self.evict(i);
        let i = self.free.pop().expect("evicted page");
        self.set_state(i, GuestState::Stable);
        (i, scanned)
    }

    /// A free pool page as `alloc_page` finds one, without the out-of-memory path: None when
    /// reclaim frees nothing (the cmm thread's allocations fail so).
    pub(super) fn try_alloc_page(&mut self) -> (Option<u32>, u64) {
        let mut scanned = 0;
        if self.free_pages() <= self.min {
            scanned = self.try_to_free_pages();
        }
        if let Some(i) = self.free.pop() {
            self.set_state(i, GuestState::Stable);
            return (Some(i), scanned);
        }
        // Nothing freed at the usual target: reclaim for the one page wanted.
        scanned += self.reclaim(1, false);
        let got = self.free.pop();
        if let Some(i) = got {
            self.set_state(i, GuestState::Stable);
        }
        (got, scanned)
    }

    /// Allocate a page-cache page for `block`. Returns the pool page and pages scanned.
    pub fn alloc_for(&mut self, block: u32) -> (u32, u64) {
        let (i, scanned) = self.alloc_page();
        let old = self.pc.get(block, &self.pool);
        if old != NONE {
            // Rewriting a cached block: reuse its page (stable while it is written).
            self.free.push(i);
            self.set_state(i, GuestState::Unused);
            self.set_state(old, GuestState::Stable);
            return (old, scanned);
        }
        self.pool.set(i, block);
        self.pc.insert(block, i, &self.pool);
        self.pool_ref.remove(i as usize);
        if self.pool_bh.contains(i as usize) {
            self.pool_bh.remove(i as usize);
        }
        self.cached += 1;
        self.mapped_resident += u64::from(block < self.mapped_below);
        (i, scanned)
    }

    /// Record an ESSA state change of pool page `i` (with CMMA in effect).
    #[inline]
    pub(super) fn set_state(&mut self, i: u32, state: GuestState) {
        if self.cmma {
            self.essa.push((self.pool_global(i), state));
        }
    }

    /// A clean page-cache page (its read done, or its write started) becomes volatile, unless
    /// it has buffer heads: `attach` says the file system attached them to it now
    /// (`config::linux::FileSystem`); they stay until the page leaves the page cache.
    pub fn page_cache_clean(&mut self, global: u32, attach: bool) {
        if let Some(i) = self.pool_index(global) {
            if attach {
                self.attach_buffers(i);
            }
            if !self.pool_bh.contains(i as usize) {
                self.set_state(i, GuestState::Volatile);
            }
        }
    }

    /// Pool page `i` gets buffer heads.
    fn attach_buffers(&mut self, i: u32) {
        if self.pool_bh.is_empty() {
            self.pool_bh.grow(self.pool.len());
        }
        self.pool_bh.insert(i as usize);
    }

    /// Page-cache pages with buffer heads attached.
    pub fn buffered_pages(&self) -> u64 {
        self.pool_bh.count_ones(..) as u64
    }

    /// A discard fault on the page-cache page of `block`: the host discarded it, so Linux
    /// removes it from the page cache and frees the page (the caller reads the block again).
    pub fn discard_cached(&mut self, block: u32) {
        let i = self.pc.get(block, &self.pool);
        if i != NONE {
            self.evict(i);
        }
    }

    /// The file of `block` was deleted or truncated (truncate_inode_pages): its page, if
    /// cached, leaves the page cache and is free. Returns whether it was cached.
    pub fn truncate_cached(&mut self, block: u32) -> bool {
        let i = self.pc.get(block, &self.pool);
        i != NONE && self.evict(i)
    }

    /// The initial CMMA states after the warm start: free pages unused, page-cache pages
    /// volatile unless the file system reads with buffer heads (every cached page was read
    /// once), the rest stable (the default). The warm start's pages carry no write history:
    /// none has buffer heads from a write.
    pub fn initial_states(&mut self) {
        if !self.cmma {
            return;
        }
        for i in 0..self.pool.len() as u32 {
            let o = self.pool.at(i);
            if o == FREE {
                self.set_state(i, GuestState::Unused);
            } else if o & ANON == 0 && o != BALLOON {
                if self.filesystem.buffers_on_read() {
                    self.attach_buffers(i);
                } else {
                    self.set_state(i, GuestState::Volatile);
                }
            }
        }
    }

    /// vm.min_free_kbytes written: the minimum watermark, and low and high after it.
    pub fn set_min_free(&mut self, pages: u32) {
        self.min = pages;
        self.low = pages_low(pages);
        self.high = pages_high(pages);
    }

    /// Page-cache pages with their referenced bit set. With anonymous memory (which the
    /// model counts referenced while resident) they are /proc/meminfo's Active: the model
    /// keeps one reclaim clock, not Linux's two LRU lists.
    pub fn referenced_file_pages(&self) -> u64 {
        self.pool_ref
            .ones()
            .filter(|&i| {
                let o = self.pool.at(i as u32);
                o != FREE && o != BALLOON && o & ANON == 0
            })
            .count() as u64
    }

    /// Pages in use by anonymous memory in guest storage.
    pub fn anon(&self) -> u64 {
        self.anon_resident
    }

    /// Linux's bookkeeping is consistent: pool owners and their reverse maps agree, counts
    /// equal their sums, and swap slots are conserved.
    pub fn check(&self) -> Result<(), String> {
        let (mut cached, mut anon, mut free, mut balloon) = (0u64, 0u64, 0u64, 0u64);
        let mut mapped = 0u64;
        for (i, o) in self.pool.iter().enumerate() {
            if o == FREE {
                free += 1;
            } else if o == BALLOON {
                balloon += 1;
            } else if o & ANON != 0 {
                anon += 1;
                if self.anon.at(o & !ANON) & A_IDX != i as u32 {
                    return Err(format!(
                        "pool page {i} holds anon {} that maps elsewhere",
                        o & !ANON
                    ));
                }
            } else {
                cached += 1;
                mapped += u64::from(o < self.mapped_below);
                if self.pc.get(o, &self.pool) != i as u32 {
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
        if mapped != self.mapped_resident {
            return Err(format!(
                "mapped file pages {mapped}/{}",
                self.mapped_resident
            ));
        }
        self.check_balloon(balloon)?;
        self.check_swap()
    }
}
