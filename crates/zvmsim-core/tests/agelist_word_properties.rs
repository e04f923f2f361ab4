//! Property test of the 64-bit page word on z/VM 7.1, where one word holds a page's place, its
//! DASD slot and whether it waits on the aging list (keeping its frame number in the place
//! field). The paths the study runs do not reach are mixed in with references and page-ins:
//! CMMA states (CP takes unused and volatile frames first, valid or aged), DIAGNOSE X'10'
//! releases of pages wherever they are (on the aging list included), saved segments added and
//! given up at run time, and paging space full enough that page-ins give up their kept slots
//! (`keepslot_release_full`). After every step CP's bookkeeping must stay consistent, a released
//! page must be unused, and a discarded space must hold nothing.

mod common;

use common::props::{aging_storage, reach_states, touch_guest_page, PageIns};
use proptest::prelude::*;
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::{AgelistSettings, AgelistSize};
use zvmsim_core::cp::storage::{Access, CpWork, GuestState, Owner, SpaceId, SpaceSpec, Touch};

const GUEST_PAGES: u32 = 512;
const GUESTS: u32 = 3;
const SEGMENT_PAGES: u32 = 256;
const CASES: u32 = 48;
/// Share of generated sequences that must reach each state.
const MIN_SHARE: f64 = 0.5;

#[derive(Debug, Clone)]
enum Op {
    /// A reference to a guest page (index over all guests' pages).
    Touch { page: u32, write: bool },
    /// Complete the oldest outstanding DASD page-in.
    Complete,
    /// The guest sets a page's CMMA state (0 stable, 1 unused, 2 volatile).
    Essa { page: u32, state: u8 },
    /// DIAGNOSE X'10' for a guest page.
    Release { page: u32 },
    /// A saved segment is added (read-only or not).
    AddSegment { read_only: bool },
    /// A page of the newest live segment is loaded from spool, or referenced.
    SegmentPage { page: u32, load: bool, write: bool },
    /// The oldest live segment is given up.
    Discard,
    /// SET AGELIST.
    Set { size: u32, early: bool, keep: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (0..GUESTS * GUEST_PAGES, any::<bool>())
            .prop_map(|(page, write)| Op::Touch { page, write }),
        6 => (0..GUESTS * GUEST_PAGES / 3, any::<bool>())
            .prop_map(|(page, write)| Op::Touch { page: page * 3, write }),
        4 => Just(Op::Complete),
        3 => (0..GUESTS * GUEST_PAGES / 3, 0u8..3)
            .prop_map(|(page, state)| Op::Essa { page: page * 3, state }),
        2 => (0..GUESTS * GUEST_PAGES / 3).prop_map(|page| Op::Release { page: page * 3 }),
        1 => any::<bool>().prop_map(|read_only| Op::AddSegment { read_only }),
        4 => (0..SEGMENT_PAGES, any::<bool>(), any::<bool>())
            .prop_map(|(page, load, write)| Op::SegmentPage { page, load, write }),
        1 => Just(Op::Discard),
        1 => (
            prop::sample::select(vec![500u32, 1000, 2500]),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(size, early, keep)| Op::Set { size, early, keep }),
    ]
}

const STATES: [&str; 5] = [
    "revalidation",
    "CMMA reclaim",
    "release of a resident page",
    "kept slot given up",
    "segment discarded",
];

/// 256 frames (32 for CP) for three guests of 512 pages and the segments, no XSTOR, 2,048
/// slots on each of two volumes; `full` is `keepslot_release_full`. Returns which of `STATES`
/// the sequence reached.
fn run(ops: &[Op], full: f64) -> Result<Vec<bool>, String> {
    let p = ModelParams {
        keepslot_release_full: full,
        ..ModelParams::default()
    };
    let mut st = aging_storage(&p, &[2048, 2048], GUESTS, GUEST_PAGES);
    let mut pageins = PageIns::default();
    // Live segments: (space, read-only), oldest first.
    let mut segments: Vec<(SpaceId, bool)> = Vec::new();
    let mut next_segment = 0u32;
    let mut cp = CpWork::default();
    let (mut revalidated, mut released_resident, mut segment_discarded) = (false, false, false);
    for (k, op) in ops.iter().enumerate() {
        match *op {
            Op::Touch { page, write } => {
                let t =
                    touch_guest_page(&mut st, &mut pageins, &mut cp, GUEST_PAGES, (page, write))?;
                revalidated |= t == Touch::Revalidated;
            }
            Op::Complete => pageins.complete_oldest(&mut st, &mut cp),
            Op::Essa { page, state } => {
                let sp = st.space(SpaceId(page / GUEST_PAGES));
                let state =
                    [GuestState::Stable, GuestState::Unused, GuestState::Volatile][state as usize];
                st.set_guest_state(sp, page % GUEST_PAGES, state);
            }
            Op::Release { page } => {
                let (sp, pg) = (st.space(SpaceId(page / GUEST_PAGES)), page % GUEST_PAGES);
                released_resident |= st.is_resident(sp.id, pg);
                st.release_page(sp, pg, &mut cp);
                if st.was_touched(sp.id, pg) || st.is_resident(sp.id, pg) {
                    return Err(format!(
                        "page {page} still has a place after DIAGNOSE X'10'"
                    ));
                }
                if st.page_slot(sp.id, pg) != u32::MAX {
                    return Err(format!("page {page} kept its slot after DIAGNOSE X'10'"));
                }
            }
            Op::AddSegment { read_only } => {
                if segments.len() < 3 {
                    let id = st.add_space(
                        SpaceSpec {
                            owner: Owner::Segment(next_segment),
                            pages: SEGMENT_PAGES,
                        },
                        read_only,
                    );
                    next_segment += 1;
                    segments.push((id, read_only));
                }
            }
            Op::SegmentPage { page, load, write } => {
                if let Some(&(id, read_only)) = segments.last() {
                    let sp = st.space(id);
                    if load {
                        st.load_page(sp, page, &mut cp);
                    } else {
                        let access = Access::write(write && !read_only);
                        pageins.note(st.touch(sp, page, access, &mut cp));
                    }
                }
            }
            Op::Discard => {
                if !segments.is_empty() {
                    let (id, _) = segments.remove(0);
                    st.discard_space(id);
                    segment_discarded = true;
                    let l = st.space_locations(id);
                    if l.resident + l.xstor + l.dasd != 0 {
                        return Err(format!("discarded space {id:?} still holds pages: {l:?}"));
                    }
                    // Its page-ins under way find no page of it any more.
                }
            }
            Op::Set { size, early, keep } => {
                if !st.set_agelist(AgelistSettings {
                    size: AgelistSize::Percent(size),
                    early_writes: early,
                    keep_slot: keep,
                }) {
                    return Err("7.1 refused SET AGELIST".into());
                }
            }
        }
        st.writes.clear();
        if st.paging_full {
            return Err("the paging space filled".into());
        }
        if k % 16 == 0 {
            st.check_invariants()
                .map_err(|e| format!("after op {k} ({op:?}): {e}"))?;
        }
    }
    st.check_invariants()?;
    let m = st.moved;
    if m.scans != 0 {
        return Err(format!("demand scan ran {} times on 7.1", m.scans));
    }
    Ok(vec![
        revalidated,
        m.cmma_reclaimed > 0,
        released_resident,
        m.keepslot_released > 0,
        segment_discarded,
    ])
}

#[test]
fn page_words_stay_consistent_under_cmma_releases_segments_and_full_paging_space() {
    let strategy = (
        proptest::collection::vec(op(), 600..2500),
        prop::sample::select(vec![0.02f64, 0.1, 0.9]),
    );
    reach_states("7.1", CASES, strategy, &STATES, MIN_SHARE, |(ops, full)| {
        run(&ops, full)
    });
}
