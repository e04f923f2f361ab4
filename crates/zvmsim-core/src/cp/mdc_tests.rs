//! The minidisk cache against CP's storage model.

use super::*;
use crate::config::params::ModelParams;
use crate::config::scenario::ZvmLevel;
use crate::cp::storage::{Access, Owner, SpaceId, SpaceSpec};

const FRAMES: u32 = 8192;
const CP: u32 = 64;
/// A 3390-3 (3339 cylinders).
const VOL_BLOCKS: u64 = 3339 * 15 * 12;

fn storage(guest_pages: u32) -> Storage {
    let spaces = [SpaceSpec {
        owner: Owner::Guest(0),
        pages: guest_pages,
    }];
    Storage::new(
        ZvmLevel::V5R4,
        &ModelParams::default(),
        FRAMES,
        CP,
        0,
        &[1 << 20],
        &spaces,
    )
}

/// Every frame is CP's fixed storage, a page's, a PGMBK's, free, or the cache's.
fn conserved(st: &Storage, mdc: &Mdc) {
    let sum = CP as u64 + st.resident() + st.pgmbk_frames() + st.available() + mdc.frames_used();
    assert_eq!(sum, FRAMES as u64, "frames not conserved");
    st.check_invariants().unwrap();
    mdc.check().unwrap();
}

fn fill(mdc: &mut Mdc, st: &mut Storage, dev: u32, block: u64) {
    let mut cp = CpWork::default();
    match mdc.lookup(dev, block, 1) {
        Lookup::Miss { block, pages } => mdc.insert(dev, block, pages, st, &mut cp),
        other => panic!("expected a miss, got {other:?}"),
    }
}

#[test]
fn miss_reads_whole_tracks_then_hits_for_any_reader_of_the_volume() {
    let mut st = storage(1024);
    let mut mdc = Mdc::new(FRAMES as u64);
    mdc.set_eligible(3, VOL_BLOCKS, true);
    // Block 30 is on track 2: the miss reads blocks 24..36.
    assert_eq!(
        mdc.lookup(3, 30, 1),
        Lookup::Miss {
            block: 24,
            pages: 12
        }
    );
    // A read across a track boundary widens to both tracks.
    assert_eq!(
        mdc.lookup(3, 35, 2),
        Lookup::Miss {
            block: 24,
            pages: 24
        }
    );
    let mut cp = CpWork::default();
    mdc.insert(3, 24, 12, &mut st, &mut cp);
    assert!(cp.ns > 0, "CP's frame requests cost CP time");
    assert_eq!(mdc.frames_used(), TRACK_PAGES);
    // The cache is keyed by the real volume: whichever guest reads block 24..36 of device
    // 3 next (a second guest linking the same minidisk) finds it.
    for b in 24..36 {
        assert_eq!(mdc.lookup(3, b, 1), Lookup::Hit, "block {b}");
    }
    assert_eq!(
        mdc.lookup(3, 36, 1),
        Lookup::Miss {
            block: 36,
            pages: 12
        }
    );
    // Another volume's same track is not cached; nor is a volume that is not eligible.
    mdc.set_eligible(4, VOL_BLOCKS, true);
    assert!(matches!(mdc.lookup(4, 30, 1), Lookup::Miss { .. }));
    assert_eq!(mdc.lookup(5, 30, 1), Lookup::Bypass);
    assert_eq!(mdc.stats.hits, 12);
    conserved(&st, &mdc);
}

#[test]
fn dedicated_large_and_off_are_not_cached() {
    let mut mdc = Mdc::new(FRAMES as u64);
    // A 3390-54 (65520 cylinders) is over 32767 cylinders.
    mdc.set_eligible(1, 65520 * 15 * 12, true);
    assert_eq!(mdc.lookup(1, 0, 1), Lookup::Bypass);
    // A 3390-27 (32760) is eligible; with MDC off it is not looked up.
    mdc.set_eligible(2, 32760 * 15 * 12, true);
    assert!(matches!(mdc.lookup(2, 0, 1), Lookup::Miss { .. }));
    mdc.on = false;
    assert_eq!(mdc.lookup(2, 0, 1), Lookup::Bypass);
    // A device never made eligible (an attached one) is bypassed.
    mdc.on = true;
    assert_eq!(mdc.lookup(0, 0, 1), Lookup::Bypass);
}

#[test]
fn writes_go_through_and_the_cached_track_stays_valid() {
    let mut st = storage(1024);
    let mut mdc = Mdc::new(FRAMES as u64);
    mdc.set_eligible(0, VOL_BLOCKS, true);
    fill(&mut mdc, &mut st, 0, 100);
    mdc.write(0);
    assert_eq!(mdc.stats.writes, 1);
    assert_eq!(mdc.lookup(0, 100, 1), Lookup::Hit);
    // Not eligible: the write is not the cache's.
    mdc.write(9);
    assert_eq!(mdc.stats.writes, 1);
}

#[test]
fn frames_come_from_the_available_list_and_go_back() {
    let mut st = storage(1024);
    let avail = st.available();
    let mut mdc = Mdc::new(FRAMES as u64);
    mdc.set_eligible(0, VOL_BLOCKS, true);
    for t in 0..50 {
        fill(&mut mdc, &mut st, 0, t * TRACK_PAGES);
        conserved(&st, &mdc);
    }
    assert_eq!(mdc.frames_used(), 50 * TRACK_PAGES);
    assert_eq!(st.available(), avail - 50 * TRACK_PAGES);
    // A lower maximum shrinks the cache at once; its frames are free again.
    mdc.set_storage(0, 20 * TRACK_PAGES, &mut st);
    assert_eq!(mdc.frames_used(), 20 * TRACK_PAGES);
    conserved(&st, &mdc);
    // The ceiling holds: inserting replaces tracks.
    for t in 100..130 {
        fill(&mut mdc, &mut st, 0, t * TRACK_PAGES);
    }
    assert_eq!(mdc.frames_used(), 20 * TRACK_PAGES);
    mdc.flush(None, &mut st);
    assert_eq!(mdc.frames_used(), 0);
    assert_eq!(st.available(), avail);
    conserved(&st, &mdc);
}

#[test]
fn a_growing_cache_steals_guest_pages_and_the_arbiter_gives_frames_back() {
    // A guest whose pages fill central storage.
    let guest = FRAMES - CP - 512;
    let mut st = storage(guest);
    let mut cp = CpWork::default();
    let sp = st.space(SpaceId(0));
    for p in 0..guest - 256 {
        st.touch(sp, p, Access::Write, &mut cp);
    }
    let mut mdc = Mdc::new(FRAMES as u64);
    mdc.set_eligible(0, VOL_BLOCKS, true);
    let steals0 = st.moved.steals;
    mdc.arbiter(&mut st, 1.0);
    for t in 0..200 {
        fill(&mut mdc, &mut st, 0, t * TRACK_PAGES);
    }
    let stolen = st.moved.steals - steals0;
    assert!(stolen > 0, "the cache's frames came from guest pages");
    conserved(&st, &mdc);
    let before = mdc.frames_used();
    mdc.arbiter(&mut st, 1.0);
    assert!(mdc.frames_used() < before, "the arbiter gave nothing back");
    assert!(mdc.stats.returned > 0);
    assert!(before - mdc.frames_used() <= stolen + TRACK_PAGES);
    conserved(&st, &mdc);
    // A larger bias gives back less for the same steals.
    let mut st2 = storage(guest);
    for p in 0..guest - 256 {
        st2.touch(st2.space(SpaceId(0)), p, Access::Write, &mut cp);
    }
    let mut m2 = Mdc::new(FRAMES as u64);
    m2.set_eligible(0, VOL_BLOCKS, true);
    m2.bias = 10.0;
    m2.arbiter(&mut st2, 1.0);
    for t in 0..200 {
        fill(&mut m2, &mut st2, 0, t * TRACK_PAGES);
    }
    let b2 = m2.frames_used();
    m2.arbiter(&mut st2, 1.0);
    assert!(b2 - m2.frames_used() < before - mdc.frames_used());
    // No steals in the next period: the ceiling goes back to the maximum.
    mdc.arbiter(&mut st, 1.0);
    assert_eq!(mdc.target, mdc.max_frames);
}
