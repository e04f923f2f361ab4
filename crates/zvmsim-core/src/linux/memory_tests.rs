//! Unit tests of `linux::memory`: the pool, reclaim's clock, CMMA states, swap.

use super::memory::*;
use crate::cp::storage::GuestState;

/// The watermarks follow 2.6.16's ratios, and the warm start leaves the free target and
/// the page cache their share.
#[test]
fn watermarks_and_warm_start() {
    assert_eq!((pages_low(40), pages_high(40)), (50, 60));
    let mut m = LinuxMemory::new(1000, 1000, 100, 300, 10_000, 40, 0);
    assert_eq!((m.min, m.low, m.high), (40, 50, 60));
    m.warm(0..300, |i| i);
    assert_eq!(m.free_pages(), m.high);
    assert_eq!(m.cached as u32, 600 - m.high);
    assert_eq!(LinuxMemory::anon_capacity(1000, 100, 40), 900 - 2 * 256);
    assert_eq!(m.anon_page(7), Some(1000 + 100 + 7));
    assert_eq!(m.pool_index(1000 + 100 + 7), Some(7));
    assert_eq!(m.pool_index(1000 + 99), None);
    m.check().unwrap();
}

/// With CMMA, Linux tells the host each page's state: a freed page is unused, an
/// allocated one stable, a clean page-cache page volatile; without CMMA it says nothing.
#[test]
fn cmma_states_follow_allocation_and_reclaim() {
    let mut m = LinuxMemory::new(0, 1000, 100, 300, 10_000, 40, 0);
    m.warm(0..300, |i| i);
    m.initial_states();
    assert!(m.essa.is_empty(), "no ESSA without CMMA");
    m.cmma = true;
    m.initial_states();
    let unused = m.essa.iter().filter(|e| e.1 == GuestState::Unused).count() as u32;
    let volatile = m
        .essa
        .iter()
        .filter(|e| e.1 == GuestState::Volatile)
        .count() as u64;
    assert_eq!((unused, volatile), (m.free_pages(), m.cached));
    m.essa.clear();
    // Allocating past the minimum reclaims page cache: each freed page is unused, and the
    // page handed out is stable.
    let (_, page) = cache_block(&mut m, 9_000);
    assert_eq!(m.essa.last(), Some(&(page, GuestState::Stable)));
    m.page_cache_clean(page, false);
    assert_eq!(m.essa.last(), Some(&(page, GuestState::Volatile)));
    // A discard fault drops the block from the page cache and frees its page (unused).
    m.discard_cached(9_000);
    assert!(m.lookup(9_000).is_none());
    assert_eq!(m.essa.last(), Some(&(page, GuestState::Unused)));
    m.check().unwrap();
}

/// A page-cache page for `block`: (pool page, global page).
fn cache_block(m: &mut LinuxMemory, block: u32) -> (u32, u32) {
    let (i, _) = m.alloc_for(block);
    (i, m.pool_global(i))
}

/// A page-cache page with buffer heads stays stable (the page hinting patches' check_bits
/// refuses PagePrivate); they go with the page, so the block's next page can be volatile.
#[test]
fn a_page_with_buffer_heads_is_never_made_volatile() {
    let mut m = LinuxMemory::new(0, 1000, 100, 300, 10_000, 40, 0);
    m.warm(0..300, |i| i);
    m.cmma = true;
    let (i, page) = cache_block(&mut m, 9_000);
    m.essa.clear();
    m.page_cache_clean(page, true);
    assert!(
        m.essa.is_empty(),
        "a written page keeps its buffers: stable"
    );
    assert_eq!(m.buffered_pages(), 1);
    // Read again (a page-cache hit needs no state change), rewritten: still stable.
    let (again, _) = m.alloc_for(9_000);
    assert_eq!(again, i);
    m.page_cache_clean(page, false);
    assert!(m.essa.iter().all(|e| e.1 != GuestState::Volatile));
    // Reclaim drops the page (its buffers with it); the block read anew is volatile.
    m.truncate_cached(9_000);
    m.essa.clear();
    let (_, page) = cache_block(&mut m, 9_000);
    assert_eq!(m.buffered_pages(), 0);
    m.page_cache_clean(page, false);
    assert_eq!(m.essa.last(), Some(&(page, GuestState::Volatile)));
    m.check().unwrap();
}

/// Out of memory with swap full and no balloon: the fallback passes over a page whose swap
/// read is pending (evict refuses it) and drops the next page with a copy on swap.
#[test]
fn out_of_memory_passes_over_a_pending_swap_read() {
    // A pool of 4 pages, 5 anonymous pages all on 5 slots of swap, no page cache.
    let mut m = LinuxMemory::new(0, 104, 100, 5, 0, 0, 5);
    m.warm(0..5, |i| i);
    m.page_cluster = 1;
    assert_eq!((m.anon(), m.free_pages(), m.swap_used()), (0, 4, 5));
    // Faults on 0 and 2 (their reads not started: pending) read 1 and 3 ahead (swap
    // cache): every pool page is anonymous, every slot held.
    for v in [0, 2] {
        assert!(matches!(m.anon_ref(v, false).0, Anon::SwapIn { .. }));
    }
    assert_eq!((m.anon(), m.free_pages(), m.swap_used()), (4, 0, 5));
    let pool = |m: &LinuxMemory, v| m.pool_index(m.anon_page(v).unwrap()).unwrap();
    assert_eq!(pool(&m, 0), 0, "the pending page is the first candidate");
    let ahead = pool(&m, 1);
    // The fault on 4 finds nothing to reclaim: it takes page 1's pool page, not 0's.
    assert!(matches!(m.anon_ref(4, false).0, Anon::SwapIn { .. }));
    assert_eq!(pool(&m, 4), ahead);
    assert_eq!(m.anon_page(1), None, "page 1 is back on swap only");
    assert!(m.anon_page(0).is_some(), "the pending read keeps its page");
    assert!(m.swap_out.is_empty(), "a swap copy needs no write");
    m.check().unwrap();
}
