//! Page reclaim in the Linux guest, as 2.6.16's mm/vmscan.c does it: kswapd, woken below the
//! low watermark, frees pages up to the high one; an allocation that finds free memory at the
//! minimum reclaims itself (direct reclaim, try_to_free_pages, counted as pgscand).
//!
//! Reclaim is a clock over the pool with a referenced bit (second chance). Whether mapped
//! (anonymous) pages are reclaimed at all follows 2.6.16's `refill_inactive_zone`: with
//! `distress = 100 >> priority` and `mapped_ratio` the mapped share of memory in percent,
//! mapped pages are taken only when `mapped_ratio / 2 + distress + swappiness >= 100` (the
//! swap tendency). Each pass scans `pool >> priority` pages, from DEF_PRIORITY down to 0, as
//! `shrink_zone` does. Mapped file pages (program text, `mapped_below`) count as mapped too;
//! being clean, they need no swap slot to be freed.

use super::memory::{LinuxMemory, SwapOut, ANON, A_OUT, A_PENDING, A_REF, A_SLOT, BALLOON, FREE};
use crate::cp::storage::GuestState;

/// DEF_PRIORITY (include/linux/mmzone.h of 2.6.16): the first reclaim pass scans
/// 1/2^12 = 1/4096 of the pages.
const DEF_PRIORITY: u32 = 12;
/// SWAP_CLUSTER_MAX (include/linux/swap.h of 2.6.16). Direct reclaim's target:
/// try_to_free_pages stops once it has freed this many pages. And the smallest batch a pass
/// scans: shrink_zone defers a scan count below it (nr_scan_active/inactive) until it
/// reaches it; scanning at least one batch per pass is an inference from that.
const SWAP_CLUSTER_MAX: u32 = 32;
/// The hand asks for the page-cache entry of the pool page this far ahead: the pool is walked
/// in order, the entries an eviction removes lie at random, so their misses overlap. A hint
/// only: results never depend on it.
const RECLAIM_PREFETCH: u32 = 16;
/// distress at priority 0, in percent: `distress = 100 >> prev_priority` (mm/vmscan.c of
/// 2.6.16, refill_inactive_zone).
const DISTRESS_MAX: u32 = 100;
/// Mapped pages are reclaimed once the swap tendency `mapped_ratio / 2 + distress +
/// vm_swappiness` reaches this (same function).
const SWAP_TENDENCY_RECLAIM_MAPPED: u32 = 100;

/// refill_inactive_zone's choice: whether mapped pages may be reclaimed at `priority`, with
/// `mapped_ratio` the mapped share of memory in percent.
fn reclaim_mapped(mapped_ratio: u32, priority: u32, swappiness: u32) -> bool {
    let distress = DISTRESS_MAX >> priority;
    mapped_ratio / 2 + distress + swappiness >= SWAP_TENDENCY_RECLAIM_MAPPED
}

impl LinuxMemory {
    pub fn needs_kswapd(&self) -> bool {
        self.free_pages() < self.low && !self.kswapd_queued
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

    /// Direct reclaim by an allocating task: one cluster of pages. Returns pages scanned.
    pub(super) fn try_to_free_pages(&mut self) -> u64 {
        self.reclaim(SWAP_CLUSTER_MAX, false)
    }

    /// Free pool page `i` (a file page, or an anonymous page swapped out to a slot).
    pub(super) fn evict(&mut self, i: u32) -> bool {
        let o = self.pool.at(i);
        if o & ANON != 0 {
            let v = o & !ANON;
            let at = self.anon.at(v);
            if at & A_PENDING != 0 {
                return false;
            }
            if at & A_SLOT == 0 {
                let Some(slot) = self.alloc_slot() else {
                    return false;
                };
                self.anon.set_slot(v, slot);
                self.slot_owner[slot as usize] = v;
                self.swap_out.push(SwapOut {
                    page: self.pool_global(i),
                    slot,
                });
                self.pswpout += 1;
            }
            *self.anon.at_mut(v) = A_OUT | A_SLOT;
            self.anon_resident -= 1;
        } else {
            self.pc.remove(o, &self.pool);
            self.cached -= 1;
            self.mapped_resident -= u64::from(o < self.mapped_below);
        }
        self.pool.set(i, FREE);
        self.free.push(i);
        self.set_state(i, GuestState::Unused);
        true
    }

    /// shrink_zone: clock passes over the pool at falling priority until `want` pages are
    /// free. Referenced pages get another round; mapped pages are skipped unless the swap
    /// tendency says to reclaim them.
    pub(super) fn reclaim(&mut self, want: u32, kswapd: bool) -> u64 {
        let n = self.pool.len() as u32;
        let mut scanned = 0u64;
        let mut freed = 0;
        let mapped_ratio =
            ((self.anon_resident + self.mapped_resident) * 100 / self.pages as u64) as u32;
        let mut priority = DEF_PRIORITY;
        loop {
            // A mapped file page is clean and needs no swap slot; an anonymous one does.
            let take_mapped = reclaim_mapped(mapped_ratio, priority, self.swappiness);
            let reclaim_mapped = self.has_free_slot() && take_mapped;
            if !take_mapped && self.cached == self.mapped_resident {
                // Nothing this pass may take: every page is free, mapped or in the balloon.
                // (Speed: the pass would visit the whole pool to find nothing and leave the
                // hand where it was.)
                if priority == 0 {
                    break;
                }
                priority -= 1;
                continue;
            }
            if reclaim_mapped && self.identity {
                self.identity = false;
                for at in self.anon.all_mut() {
                    *at |= A_REF;
                }
            }
            let quota = (n >> priority).max(SWAP_CLUSTER_MAX);
            let (mut examined, mut visited) = (0, 0);
            while freed < want && examined < quota && visited < n {
                let i = self.hand;
                self.hand = if i + 1 == n { 0 } else { i + 1 };
                visited += 1;
                if n > RECLAIM_PREFETCH {
                    let j = i + RECLAIM_PREFETCH;
                    let ahead = self.pool.at(if j >= n { j - n } else { j });
                    if ahead & ANON == 0 {
                        self.prefetch_block(ahead);
                    }
                }
                let o = self.pool.at(i);
                // Balloon pages are the cmm module's: reclaim passes them by.
                if o == FREE
                    || o == BALLOON
                    || (o & ANON != 0 && !reclaim_mapped)
                    || (o < self.mapped_below && !take_mapped)
                {
                    continue;
                }
                examined += 1;
                if o & ANON != 0 {
                    let at = self.anon.at_mut(o & !ANON);
                    if *at & A_REF != 0 {
                        *at &= !A_REF;
                        continue;
                    }
                } else if self.pool_ref.contains(i as usize) {
                    self.pool_ref.remove(i as usize);
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

    /// The swap tendency: at DEF_PRIORITY distress is 0, at priority 0 it is 100.
    #[test]
    fn swap_tendency() {
        assert!(!reclaim_mapped(0, DEF_PRIORITY, 60));
        assert!(reclaim_mapped(80, DEF_PRIORITY, 60));
        assert!(!reclaim_mapped(0, 1, 0));
        assert!(reclaim_mapped(0, 0, 0));
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

    /// Program text's pages (file blocks below `mapped_below`) are mapped: while the swap
    /// tendency is low, reclaim takes the other file pages and leaves the text, which an
    /// unmapped page cache would have given up in its turn.
    #[test]
    fn mapped_text_stays_while_other_file_pages_go() {
        let run = |mapped_below| {
            let mut m = LinuxMemory::new(0, 10_000, 200, 1_000, 20_000, 40, 4_000);
            m.mapped_below = mapped_below;
            m.swappiness = 0;
            m.warm(0..1_000, |i| i);
            // 2,000 text pages, then streaming file data through the rest of the pool.
            for b in 0..2_000 {
                m.alloc_for(b);
            }
            for b in 10_000..30_000 {
                m.alloc_for(b);
                if m.needs_kswapd() {
                    m.kswapd();
                }
            }
            m.check().unwrap();
            (0..2_000).filter(|&b| m.cached_page(b).is_some()).count()
        };
        assert_eq!(run(2_000), 2_000, "mapped text kept");
        assert_eq!(run(0), 0, "unmapped, the same pages are reclaimed");
    }
}
