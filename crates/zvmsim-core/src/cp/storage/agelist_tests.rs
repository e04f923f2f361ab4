//! The aging list's rules: FIFO order, revalidation, reclaim from the head, early writes,
//! KEEPSLOT, and the release check.

use super::super::test_util::{self, frame_of, write_pages};
use super::super::{Access, SpaceId, Touch};
use super::*;
use crate::config::agelist::AgelistSize;
use crate::config::params::ModelParams;
use crate::config::scenario::ZvmLevel;
use crate::config::units::Size;

/// z/VM 7.1: 448 pageable frames (thresholds 64 and 128), no XSTOR, one paging volume, one
/// address space of 2,048 pages; the aging list kept at `size_frames` frames.
fn storage(size_frames: u64, early_writes: bool) -> Storage {
    let mut st = test_util::storage(ZvmLevel::V7R1, 512, 0, &[8192], &[2048]);
    assert!(st.set_agelist(AgelistSettings {
        size: AgelistSize::Storage(Size(size_frames * 4096)),
        early_writes,
        keep_slot: true,
    }));
    st
}

/// The pages on the aging list, head first.
fn list_pages(st: &Storage) -> Vec<u32> {
    let a = st.aging.as_ref().expect("aging list");
    let mut out = Vec::new();
    let mut f = a.list.head;
    while f != NONE {
        out.push(st.fr_page.get(f));
        f = a.next.get(f);
    }
    out
}

fn on_list(st: &Storage, page: u32) -> bool {
    st.aged_frame(page as usize).is_some()
}

#[test]
fn frames_join_the_tail_and_are_reclaimed_from_the_head() {
    let mut st = storage(10, false);
    // 300 pages and two PGMBKs: 144 frames left, above the low threshold.
    write_pages(&mut st, 0..300);
    assert_eq!(st.agelist().unwrap().frames, 0);
    let mut cp = CpWork::default();
    // The oldest frames of the space's frame-owned list go first, in their order.
    assert_eq!(st.trial_invalidate(10, &mut cp), 10);
    assert_eq!(list_pages(&st), (0..10).collect::<Vec<_>>());
    assert_eq!(st.trial_invalidate(5, &mut cp), 5);
    assert_eq!(list_pages(&st), (0..15).collect::<Vec<_>>());
    assert_eq!(cp.ns, 15 * ModelParams::default().cp_trial_invalidate.ns());
    // Invalid but resident: still counted resident, the page table entry invalid.
    assert_eq!(st.resident(), 300);
    assert!(st.is_resident(SpaceId(0), 3) && st.place(3) == super::super::FRAME_NONE);
    st.check_invariants().unwrap();
    // The list exceeds its size by 5: the reclaim takes the five at the head, oldest first.
    st.agelist_replenish(&mut cp);
    assert_eq!(list_pages(&st), (5..15).collect::<Vec<_>>());
    for p in 0..5 {
        assert!(!st.is_resident(SpaceId(0), p), "page {p} still resident");
    }
    assert_eq!(st.moved.agelist_reclaimed, 5);
    assert_eq!(st.resident(), 295);
    st.check_invariants().unwrap();
}

#[test]
fn a_reference_revalidates_the_page_without_io() {
    let mut st = storage(40, false);
    write_pages(&mut st, 0..300);
    let mut cp = CpWork::default();
    st.trial_invalidate(10, &mut cp);
    let f = frame_of(&st, 4);
    let (writes, moved) = (st.writes.len(), st.moved);
    let mut cp = CpWork::default();
    let sp = st.space(SpaceId(0));
    assert_eq!(st.touch(sp, 4, Access::Read, &mut cp), Touch::Revalidated);
    assert_eq!(cp.ns, ModelParams::default().cp_agelist_revalidate.ns());
    // Same frame, valid again, at the tail of its owner's list; off the aging list.
    assert_eq!(st.place(4), f);
    assert!(!on_list(&st, 4));
    assert_eq!(st.aging.as_ref().unwrap().owned[0].tail, f);
    assert_eq!(list_pages(&st), [0, 1, 2, 3, 5, 6, 7, 8, 9]);
    assert_eq!(st.moved.agelist_revalidated, 1);
    assert_eq!(st.writes.len(), writes, "no I/O");
    assert_eq!(st.moved.dasd_to_ms, moved.dasd_to_ms);
    // A second reference is an ordinary one.
    assert_eq!(st.touch(sp, 4, Access::Write, &mut cp), Touch::Resident);
    // The next visit takes the oldest valid frames: page 4 is now the youngest.
    st.trial_invalidate(291, &mut cp);
    assert_eq!(*list_pages(&st).last().unwrap(), 4);
    st.check_invariants().unwrap();
}

#[test]
fn early_writes_clean_the_head_so_reclaim_writes_nothing() {
    // A list of 40 frames: early writes keep the head quarter, 10 frames, written.
    let mut st = storage(40, true);
    write_pages(&mut st, 0..300);
    let mut cp = CpWork::default();
    st.trial_invalidate(40, &mut cp);
    st.early_writes();
    st.flush_open_block();
    assert_eq!(st.agelist().unwrap().early_frames, 10);
    assert_eq!(st.moved.agelist_early_writes, 10);
    for p in 0..40 {
        let written = p < 10;
        assert_eq!(st.page_slot(SpaceId(0), p) != NONE, written, "page {p}");
        assert_eq!(st.pg[p as usize] & CHANGED == 0, written, "page {p}");
        assert!(on_list(&st, p), "page {p} left the list");
    }
    let written: u32 = st.writes.iter().map(|w| w.pages).sum();
    assert_eq!(written, 10);
    st.check_invariants().unwrap();
    // Shrink the list by 10: the reclaim takes the written head without writing again.
    let out = st.moved.ms_to_dasd;
    let s = AgelistSettings {
        size: AgelistSize::Storage(Size(30 * 4096)),
        ..st.agelist().unwrap().settings
    };
    st.set_agelist(s);
    st.agelist_replenish(&mut cp);
    assert_eq!(st.moved.agelist_reclaimed, 10);
    // The reclaim wrote nothing; early writes then cleaned the next head share (8 frames).
    assert_eq!(
        st.moved.ms_to_dasd - out,
        st.moved.agelist_early_writes - 10
    );
    assert_eq!(st.agelist().unwrap().early_frames, 8);
    for p in 0..10 {
        assert!(!st.is_resident(SpaceId(0), p));
        assert_ne!(st.page_slot(SpaceId(0), p), NONE, "page {p} lost its copy");
    }
    st.check_invariants().unwrap();
}

#[test]
fn without_early_writes_reclaim_pages_out_changed_pages() {
    let mut st = storage(30, false);
    write_pages(&mut st, 0..300);
    let mut cp = CpWork::default();
    st.trial_invalidate(40, &mut cp);
    let out = st.moved.ms_to_dasd;
    st.agelist_replenish(&mut cp);
    assert_eq!(st.moved.agelist_early_writes, 0);
    assert_eq!(st.agelist().unwrap().early_frames, 0);
    // The ten reclaimed pages were changed: each written at the reclaim.
    assert_eq!(st.moved.agelist_reclaimed, 10);
    assert_eq!(st.moved.ms_to_dasd - out, 10);
    assert!((10..40).all(|p| st.page_slot(SpaceId(0), p) == NONE));
    st.check_invariants().unwrap();
}

/// A page of space 0 on DASD only: written, reclaimed.
fn page_on_dasd(st: &mut Storage) -> u32 {
    write_pages(st, 0..300);
    let mut cp = CpWork::default();
    st.trial_invalidate(40, &mut cp);
    let s = AgelistSettings {
        size: AgelistSize::Storage(Size(30 * 4096)),
        ..st.agelist().unwrap().settings
    };
    st.set_agelist(s);
    st.agelist_replenish(&mut cp);
    assert!(!st.is_resident(SpaceId(0), 0));
    assert_ne!(st.page_slot(SpaceId(0), 0), NONE);
    0
}

#[test]
fn keepslot_yes_keeps_the_slot_on_page_in_and_no_releases_it() {
    for keep in [true, false] {
        let mut st = storage(40, false);
        let page = page_on_dasd(&mut st);
        let s = AgelistSettings {
            keep_slot: keep,
            ..st.agelist().unwrap().settings
        };
        st.set_agelist(s);
        let mut cp = CpWork::default();
        let sp = st.space(SpaceId(0));
        let Touch::OnDasd { group } = st.touch(sp, page, Access::Read, &mut cp) else {
            panic!("page {page} not on DASD");
        };
        st.complete_pagein(group, &mut cp);
        assert!(st.is_resident(SpaceId(0), page));
        assert_eq!(
            st.page_slot(SpaceId(0), page) != NONE,
            keep,
            "KEEPSLOT {keep}"
        );
        // Kept: unchanged with a current copy. Released: the frame is the only copy.
        assert_eq!(st.pg[page as usize] & CHANGED == 0, keep);
        st.check_invariants().unwrap();
    }
}

#[test]
fn a_block_read_leaves_pages_on_the_aging_list_in_their_frames() {
    let mut st = storage(40, true);
    page_on_dasd(&mut st);
    // Blocks of 8: pages 0-7 (reclaimed), then 8 and 9 (reclaimed) with 10-15 (written
    // early, still on the list), then 16 and 17.
    let group = st.page_slot(SpaceId(0), 8) / st.block;
    assert_eq!(st.page_slot(SpaceId(0), 15) / st.block, group);
    let mut cp = CpWork::default();
    let resident = st.resident();
    // Page 8 faults: the read validates it and brings 9 in invalid (block_read_ibr).
    let sp = st.space(SpaceId(0));
    assert_eq!(
        st.touch(sp, 8, Access::Read, &mut cp),
        Touch::OnDasd { group }
    );
    st.complete_pagein(group, &mut cp);
    let live = st.group_live(group) as u64;
    let mut on = 0;
    for p in 0..300 {
        if st.page_slot(SpaceId(0), p) / st.block == group && on_list(&st, p) {
            on += 1;
        }
    }
    // Every page of the group is resident once; those on the list were not read again.
    assert_eq!((live, on), (8, 7));
    assert_eq!(st.resident(), resident + 2);
    assert!((9..16).all(|p| on_list(&st, p)) && !on_list(&st, 8));
    st.check_invariants().unwrap();
}

#[test]
fn a_block_read_validates_the_faulting_page_and_leaves_the_others_ibr() {
    for ibr in [true, false] {
        let mut st = storage(40, false);
        st.p.agelist_block_read_ibr = ibr;
        page_on_dasd(&mut st);
        let sp = st.space(SpaceId(0));
        let mut cp = CpWork::default();
        // Page 3 faults; its block holds pages 0-7, reclaimed and written together.
        let Touch::OnDasd { group } = st.touch(sp, 3, Access::Read, &mut cp) else {
            panic!("page 3 not on DASD");
        };
        let slots: Vec<u32> = (0..8).map(|p| st.page_slot(SpaceId(0), p)).collect();
        assert!(slots.iter().all(|&s| s / st.block == group));
        let before = list_pages(&st).len();
        st.complete_pagein(group, &mut cp);
        // The faulting page is valid, at the tail of its frame-owned list (with the others
        // after it when they come in valid too).
        assert!(!on_list(&st, 3));
        let tail = st.aging.as_ref().unwrap().owned[0].tail;
        assert_eq!(tail, frame_of(&st, if ibr { 3 } else { 7 }));
        assert_eq!(st.touch(sp, 3, Access::Read, &mut cp), Touch::Resident);
        let others = [0, 1, 2, 4, 5, 6, 7];
        if !ibr {
            // All valid, on the frame-owned list: nothing joined the aging list.
            assert_eq!(list_pages(&st).len(), before);
            assert!(others.iter().all(|&p| !on_list(&st, p)));
            st.check_invariants().unwrap();
            continue;
        }
        // The other seven are invalid but resident at the aging list's tail, in block order.
        assert_eq!(list_pages(&st)[before..], others);
        assert_eq!(st.resident(), 290 + 8);
        // A reference to one revalidates it, without I/O.
        assert_eq!(st.touch(sp, 5, Access::Read, &mut cp), Touch::Revalidated);
        st.check_invariants().unwrap();
        // An empty list: reclaim takes the six nobody referenced, counted as companions, with
        // their slots kept (no write).
        let s = AgelistSettings {
            size: AgelistSize::Storage(Size(0)),
            ..st.agelist().unwrap().settings
        };
        st.set_agelist(s);
        st.agelist_replenish(&mut cp);
        assert_eq!(st.moved.companions_stolen, 6);
        for (p, &slot) in slots.iter().enumerate() {
            let kept = p == 3 || p == 5;
            assert_eq!(st.is_resident(SpaceId(0), p as u32), kept, "page {p}");
            assert_eq!(st.page_slot(SpaceId(0), p as u32), slot, "page {p}");
        }
        st.check_invariants().unwrap();
    }
}

#[test]
fn sustained_overcommit_pages_through_the_aging_list() {
    let mut st = storage(20, true);
    let sp = st.space(SpaceId(0));
    let mut cp = CpWork::default();
    let mut pending = Vec::new();
    // Four sweeps over 1,000 pages (over twice the frames), writing every third.
    for sweep in 0..4u32 {
        for p in 0..1000u32 {
            let access = Access::write((p + sweep) % 3 == 0);
            if let Touch::OnDasd { group } = st.touch(sp, p, access, &mut cp) {
                pending.push(group);
            }
            if p % 50 == 0 {
                for g in pending.drain(..) {
                    st.complete_pagein(g, &mut cp);
                }
            }
        }
        st.check_invariants().unwrap();
    }
    let m = st.moved;
    assert!(m.agelist_reclaimed > 1000, "{m:?}");
    assert!(m.agelist_early_writes > 0, "{m:?}");
    assert!(m.dasd_to_ms > 0, "{m:?}");
    // A frame reclaimed was trial-invalidated, or came in IBR with a block read and was
    // never referenced.
    assert!(m.agelist_invalidated + m.companions_stolen >= m.agelist_reclaimed);
    assert!(m.companions_stolen > 0, "{m:?}");
    // Demand scan never ran.
    assert_eq!((m.scans, m.scanned), (0, 0));
}

#[test]
fn releases_before_6_3_have_no_aging_list() {
    for level in [ZvmLevel::V5R2, ZvmLevel::V5R3, ZvmLevel::V5R4] {
        let mut st = test_util::storage(level, 512, 16, &[4096], &[1024]);
        assert_eq!(st.agelist(), None);
        assert!(!st.set_agelist(AgelistSettings::default()));
        write_pages(&mut st, 0..600);
        assert_eq!(st.moved.agelist_invalidated, 0);
        assert!(st.moved.scans > 0, "{level:?}: demand scan ran");
    }
    let st = storage(40, true);
    let a = st.agelist().unwrap();
    assert_eq!((a.target_frames, a.frames), (40, 0));
    // IBM's default: 2 % of the dynamic paging area.
    let st = test_util::storage(ZvmLevel::V6R4, 100_064, 0, &[4096], &[1024]);
    assert_eq!(st.agelist().unwrap().target_frames, 2000);
}

#[test]
fn past_the_threshold_a_page_read_back_gives_up_its_slot() {
    for keep in [true, false] {
        let mut st = storage(40, false);
        let page = page_on_dasd(&mut st);
        // The threshold one group above the groups in use, or exactly at them.
        let groups = st.slot_groups() as f64;
        let used = groups - st.free_groups as f64;
        st.p.keepslot_release_full = (used + if keep { 1.0 } else { 0.0 }) / groups;
        let mut cp = CpWork::default();
        let sp = st.space(SpaceId(0));
        let Touch::OnDasd { group } = st.touch(sp, page, Access::Read, &mut cp) else {
            panic!("page {page} not on DASD");
        };
        let free = st.free_groups;
        let n = st.complete_pagein(group, &mut cp) as u64;
        assert_eq!(n, 8, "the block of pages 0-7 comes back whole");
        assert_eq!(st.page_slot(SpaceId(0), page) != NONE, keep, "keep {keep}");
        assert_eq!(st.pg[page as usize] & CHANGED == 0, keep);
        // Released: the whole group is free again, and counted.
        assert_eq!(st.free_groups, free + (!keep) as u64);
        assert_eq!(st.moved.keepslot_released, if keep { 0 } else { n });
        st.check_invariants().unwrap();
    }
}

#[test]
fn before_6_3_the_threshold_does_not_apply() {
    let mut st = test_util::storage(ZvmLevel::V5R3, 512, 0, &[4096], &[2048]);
    st.p.keepslot_release_full = 1e-9;
    write_pages(&mut st, 0..1200);
    let mut cp = CpWork::default();
    let sp = st.space(SpaceId(0));
    let Touch::OnDasd { group } = st.touch(sp, 0, Access::Read, &mut cp) else {
        panic!("page 0 not on DASD");
    };
    st.complete_pagein(group, &mut cp);
    assert!(st.is_resident(SpaceId(0), 0));
    assert_ne!(st.page_slot(SpaceId(0), 0), NONE);
    assert_eq!(st.moved.keepslot_released, 0);
}

/// Random reads over 3,584 pages on a 7.1 LPAR of 2,048 frames with 4,096 slots (512 groups, 128 of
/// them reserve): the pages alone fit, but not with a kept slot for every resident page. Each
/// reclaim takes about 300 frames, so that its last, partial blocks waste few groups, as in a
/// large LPAR.
fn kept_slot_run(limit: f64) -> Storage {
    let p = ModelParams {
        keepslot_release_full: limit,
        avail_low_fraction: 0.05,
        avail_high_fraction: 0.2,
        ..ModelParams::default()
    };
    let mut st = test_util::with_params(ZvmLevel::V7R1, &p, 2048, 0, &[4096], &[3584]);
    let sp = st.space(SpaceId(0));
    let mut cp = CpWork::default();
    let mut x = 12345u32;
    for _ in 0..40_000u32 {
        if st.paging_full {
            break;
        }
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let page = (x >> 8) % 3584;
        if let Touch::OnDasd { group } = st.touch(sp, page, Access::Read, &mut cp) {
            st.complete_pagein(group, &mut cp);
            st.touch(sp, page, Access::Read, &mut cp);
        }
    }
    st
}

#[test]
fn kept_slots_stop_growing_before_paging_space_fills() {
    // Slots kept until the paging space is full: PGT004.
    let st = kept_slot_run(1.0);
    assert!(st.paging_full, "on DASD {}", st.on_dasd());
    assert_eq!(st.moved.keepslot_released, 0);
    // Past 60 %, pages read back give up their slots: the run goes on.
    let st = kept_slot_run(0.6);
    assert!(!st.paging_full, "on DASD {}", st.on_dasd());
    assert!(st.moved.keepslot_released > 1000, "{:?}", st.moved);
    let used = st.slot_groups() as u64 - st.free_groups;
    assert!(
        used * 10 < st.slot_groups() as u64 * 7,
        "{used} groups in use"
    );
    // KEEPSLOT still works below the threshold: some resident pages hold a slot.
    let not_resident = st.touched() - st.resident();
    assert!(
        st.on_dasd() > not_resident,
        "{} {not_resident}",
        st.on_dasd()
    );
    st.check_invariants().unwrap();
}

/// The frame-owned list's pages, head first.
fn owned_pages(st: &Storage, g: usize) -> Vec<u32> {
    let a = st.aging.as_ref().expect("aging list");
    let mut out = Vec::new();
    let mut f = a.owned[g].head;
    while f != NONE {
        out.push(st.fr_page.get(f));
        f = a.next.get(f);
    }
    out
}

#[test]
fn the_warm_start_order_is_shuffled_on_the_frame_owned_lists_only() {
    use crate::engine::rng::Stream;
    let mut st = storage(10, false);
    write_pages(&mut st, 0..300);
    let mut cp = CpWork::default();
    assert_eq!(st.trial_invalidate(4, &mut cp), 4);
    let before = owned_pages(&st, 0);
    assert_eq!(before, (4..300).collect::<Vec<_>>());
    st.shuffle_frame_owned(&mut Stream::new(1, 9));
    let after = owned_pages(&st, 0);
    // The same frames in another order, the aging list untouched, every list well linked.
    assert_ne!(after, before);
    let mut sorted = after.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, before);
    assert_eq!(list_pages(&st), (0..4).collect::<Vec<_>>());
    st.check_invariants().unwrap();
    // The visits now take the shuffled head first.
    assert_eq!(st.trial_invalidate(3, &mut cp), 3);
    assert_eq!(list_pages(&st)[4..], after[..3]);
    // Deterministic: the same stream gives the same order.
    let mut again = storage(10, false);
    write_pages(&mut again, 0..300);
    assert_eq!(again.trial_invalidate(4, &mut cp), 4);
    again.shuffle_frame_owned(&mut Stream::new(1, 9));
    assert_eq!(owned_pages(&again, 0), after);
    // Before 6.3 there are no lists: nothing changes and nothing is drawn.
    let mut old = test_util::storage(ZvmLevel::V5R3, 512, 0, &[8192], &[2048]);
    write_pages(&mut old, 0..300);
    let mut rng = Stream::new(1, 9);
    old.shuffle_frame_owned(&mut rng);
    assert_eq!(rng.below(1 << 40), Stream::new(1, 9).below(1 << 40));
    old.check_invariants().unwrap();
}

/// A first reference to a page of a segment with no PGMBK, the available list exactly at its
/// low threshold: the page's frame leaves it there, the PGMBK's frames start a reclaim. The
/// reclaim must not take the page being made resident (a space whose frame-owned list is that
/// one page gives it up first): the reference finds it resident, changed, with no slot.
#[test]
fn the_pgmbk_of_a_first_reference_does_not_reclaim_the_page_itself() {
    let mut st = test_util::storage(ZvmLevel::V7R1, 512, 0, &[8192], &[512, 2048]);
    assert!(st.set_agelist(AgelistSettings {
        size: AgelistSize::Storage(Size(0)),
        early_writes: false,
        keep_slot: true,
    }));
    let sp = st.space(SpaceId(1));
    let mut cp = CpWork::default();
    let mut p = 0;
    while st.avail_free() > st.low_mark as u64 {
        st.touch(sp, p, Access::Write, &mut cp);
        p += 1;
    }
    assert_eq!(st.avail_free(), st.low_mark as u64);
    assert_eq!(st.moved.agelist_reclaimed, 0);
    // The visit starts at space 0, whose list is the new page alone.
    let other = st.space(SpaceId(0));
    assert_eq!(st.touch(other, 0, Access::Write, &mut cp), Touch::FirstUse);
    assert!(
        st.moved.agelist_reclaimed > 0,
        "the PGMBK started a reclaim"
    );
    assert!(
        st.is_resident(SpaceId(0), 0),
        "the page just made resident was taken"
    );
    assert_eq!(st.page_slot(SpaceId(0), 0), NONE);
    st.check_invariants().unwrap();
    assert_eq!(st.touch(other, 0, Access::Read, &mut cp), Touch::Resident);
}

/// Early writes skip a read-only saved segment's pages: their copy is the spool file, and
/// reclaim drops them without a write.
#[test]
fn early_writes_leave_read_only_segment_pages_unwritten() {
    use super::super::{Owner, SpaceSpec};
    let mut st = storage(40, true);
    let seg = st.add_space(
        SpaceSpec {
            owner: Owner::Segment(0),
            pages: 256,
        },
        true,
    );
    let sp = st.space(seg);
    let mut cp = CpWork::default();
    for p in 0..200 {
        assert!(st.load_page(sp, p, &mut cp));
    }
    // The segment's pages are the only valid ones: the visit moves 40 of them to the list,
    // and early writes then take its head share.
    let base = st.space_base[seg.0 as usize];
    assert_eq!(st.trial_invalidate(40, &mut cp), 40);
    assert!((0..200).filter(|&p| on_list(&st, base + p)).count() == 40);
    st.early_writes();
    st.flush_open_block();
    assert_eq!(st.space_locations(seg).dasd, 0);
    assert_eq!(st.moved.agelist_early_writes, 0);
    st.check_invariants().unwrap();
}
