//! Unit tests of the cmm module: parsing as cmm.c reads, the timer, and the balloon in
//! Linux memory (reclaim passes it by, the out-of-memory notifier gives pages back).

use super::*;

#[test]
fn numbers_as_simple_strtoul_reads_them() {
    assert_eq!(strtoul("1234 x"), (1234, " x"));
    assert_eq!(strtoul("0x1F"), (31, ""));
    assert_eq!(strtoul("010"), (8, ""));
    assert_eq!(strtoul("08"), (0, "8"));
    assert_eq!(strtoul("0x"), (0, "x"));
    assert_eq!(strtoul("abc"), (0, "abc"));
    assert_eq!(strtoul("-5"), (0, "-5"));
}

#[test]
fn smsg_forms_cmm_c_accepts() {
    use SmsgRequest::*;
    assert_eq!(parse_smsg("CMM SHRINK 1000"), Some(Shrink(1000)));
    assert_eq!(parse_smsg("CMM  SHRINK\t0x100  "), Some(Shrink(256)));
    assert_eq!(parse_smsg("CMM RELEASE 10"), Some(Release(10)));
    assert_eq!(parse_smsg("CMM REUSE 100 5"), Some(Reuse(100, 5)));
    // An empty number is 0, as simple_strtoul gives it.
    assert_eq!(parse_smsg("CMM SHRINK "), Some(Shrink(0)));
}

#[test]
fn sysctl_writes_read_as_the_handler_does() {
    let mut c = Cmm {
        loaded: true,
        ..Cmm::default()
    };
    c.write(CmmFile::Pages, " 0x10");
    assert_eq!(c.pages_target, 16);
    c.write(CmmFile::TimedPages, "5");
    c.write(CmmFile::TimedPages, "7");
    assert_eq!(c.timed_target, 12);
    // Only the first 15 bytes count.
    c.write(CmmFile::Pages, "1234567890123456789");
    assert_eq!(c.pages_target, 123_456_789_012_345);
    c.write(CmmFile::Timeout, "100   30");
    assert_eq!(c.read(CmmFile::Timeout), "100 30");
    // Garbage is 0 in these kernels.
    c.write(CmmFile::Pages, "lots");
    assert_eq!(c.pages_target, 0);
}

#[test]
fn the_timer_fires_once_per_arming() {
    let mut c = Cmm {
        loaded: true,
        timed_target: 250,
        timeout_pages: 100,
        timeout_seconds: 2,
        ..Cmm::default()
    };
    let at = c.set_timer(5).unwrap();
    assert_eq!(at, 5 + 2 * NS_PER_S);
    let again = c.set_timer(6).unwrap();
    assert!(!c.timer_fired(at), "a re-armed timer's old expiry is void");
    assert!(c.timer_fired(again));
    assert!(!c.timer_fired(again), "it fires once");
    assert_eq!(c.timed_target, 150);
    c.timeout_seconds = 0;
    assert_eq!(c.set_timer(7), None);
    assert!(!c.timer_pending());
}

fn memory() -> LinuxMemory {
    // 1,000 pages, 100 of kernel, 300 anonymous, no swap: the rest is page cache and free.
    let mut m = LinuxMemory::new(0, 1000, 100, 300, 10_000, 40, 0);
    m.warm(0..300, |i| i);
    m.cmm_load(None);
    m
}

/// Take pages into the static pool until the allocator finds none.
fn inflate(m: &mut LinuxMemory, n: usize) -> usize {
    let mut took = 0;
    while took < n {
        let (Some(i), _) = m.try_alloc_page() else {
            break;
        };
        m.balloon_take(i, false);
        took += 1;
    }
    took
}

#[test]
fn reclaim_passes_balloon_pages_by() {
    let mut m = memory();
    assert_eq!(inflate(&mut m, 200), 200);
    let listed: Vec<u32> = m.cmm.pages.clone();
    // Page-cache traffic and kswapd: reclaim frees cache pages, never a balloon page.
    for b in 5_000..6_000 {
        m.alloc_for(b);
        if m.needs_kswapd() {
            m.kswapd();
        }
    }
    assert!(listed.iter().all(|&i| m.pool.at(i) == BALLOON));
    assert_eq!(m.cmm.static_pages(), 200);
    // Used, not free: the pool's pages are free, cached, anonymous or in the balloon.
    assert_eq!(m.free_pages() as u64 + m.cached + m.anon() + 200, 900);
    m.check().unwrap();
}

#[test]
fn out_of_memory_gives_back_256_balloon_pages_and_resets_the_targets() {
    let mut m = memory();
    m.cmm.pages_target = 10_000;
    m.cmm.timed_target = 300;
    let taken = inflate(&mut m, 10_000);
    // Everything but the anonymous memory went into the balloon: nothing left to reclaim.
    assert_eq!(taken as u64 + m.anon(), 900);
    assert_eq!(m.cached, 0);
    let timed: Vec<u32> = (0..100).map(|_| m.cmm.pages.pop().unwrap()).collect();
    m.cmm.timed = timed;
    let before = m.cmm.balloon();
    // A page-cache allocation finds nothing: the notifier frees 256, the timed pool first.
    m.alloc_for(7_000);
    assert_eq!(m.cmm.oom_notifications, 1);
    assert_eq!(m.cmm.timed_pages(), 0);
    assert_eq!(m.cmm.balloon(), before - 256);
    assert_eq!(m.cmm.pages_target, m.cmm.static_pages());
    assert_eq!(m.cmm.timed_target, 0);
    assert!(!m.cmm.has_work());
    assert_eq!(m.free_pages(), 255, "one of the 256 went to the page cache");
    m.check().unwrap();
    // Unloading gives every page back.
    m.cmm_unload();
    assert_eq!(m.cmm.balloon(), 0);
    assert_eq!(m.free_pages() as u64 + m.cached + m.anon(), 900);
    m.check().unwrap();
}
