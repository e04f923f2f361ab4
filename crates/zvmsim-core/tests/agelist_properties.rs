//! Property test of z/VM 7.1's real storage management: random references, block page-ins
//! and SET AGELIST changes over a small overcommitted LPAR keep CP's bookkeeping consistent (a
//! frame on the aging list xor valid, every page in exactly one place, counters equal to the
//! sums over pages), and most sequences reach the states worth checking: DASD page-ins, pages
//! revalidated on the aging list, early writes and reclaims from the list's head.

mod common;

use common::props::{aging_storage, reach_states, touch_guest_page, PageIns};
use proptest::prelude::*;
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::{AgelistSettings, AgelistSize};
use zvmsim_core::cp::storage::{CpWork, Touch};

const GUEST_PAGES: u32 = 512;
const GUESTS: u32 = 3;
const CASES: u32 = 64;
/// Share of generated sequences that must reach each state.
const MIN_SHARE: f64 = 0.8;

#[derive(Debug, Clone)]
enum Op {
    Touch {
        page: u32,
        write: bool,
    },
    /// Complete the oldest outstanding DASD page-in.
    Complete,
    /// SET AGELIST with this size (hundredths of a percent), EARLYWRITES and KEEPSLOT.
    Set {
        size: u32,
        early: bool,
        keep: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        // References favour a hot third of the pages, so that some come back while their
        // frames are still on the aging list.
        10 => (0..GUESTS * GUEST_PAGES, any::<bool>())
            .prop_map(|(page, write)| Op::Touch { page, write }),
        6 => (0..GUESTS * GUEST_PAGES / 3, any::<bool>())
            .prop_map(|(page, write)| Op::Touch { page: page * 3, write }),
        4 => Just(Op::Complete),
        // Now and then a new setting, 0 % to 25 %.
        1 => (
            prop::sample::select(vec![0u32, 100, 200, 500, 1000, 2500]),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(size, early, keep)| Op::Set { size, early, keep }),
    ]
}

const STATES: [&str; 5] = [
    "DASD page-in",
    "revalidation",
    "early write",
    "reclaim",
    // A block read's page nobody faulted on came in IBR and was reclaimed unreferenced.
    "companion reclaimed unreferenced",
];

/// 256 frames (32 for CP, 224 pageable) for three guests of 512 pages, no XSTOR, paging
/// space for every page.
/// Returns which of `STATES` the sequence reached.
fn run(ops: &[Op]) -> Result<Vec<bool>, String> {
    let mut st = aging_storage(&ModelParams::default(), &[4096, 4096], GUESTS, GUEST_PAGES);
    let mut pageins = PageIns::default();
    let mut cp = CpWork::default();
    let (mut pagein, mut revalidated) = (false, false);
    for (k, op) in ops.iter().enumerate() {
        match *op {
            Op::Touch { page, write } => {
                let t =
                    touch_guest_page(&mut st, &mut pageins, &mut cp, GUEST_PAGES, (page, write))?;
                pagein |= matches!(t, Touch::OnDasd { .. });
                revalidated |= t == Touch::Revalidated;
            }
            Op::Complete => pageins.complete_oldest(&mut st, &mut cp),
            Op::Set { size, early, keep } => {
                let applied = st.set_agelist(AgelistSettings {
                    size: AgelistSize::Percent(size),
                    early_writes: early,
                    keep_slot: keep,
                });
                if !applied {
                    return Err("7.1 refused SET AGELIST".into());
                }
            }
        }
        st.writes.clear();
        if st.paging_full {
            return Err("the roomy paging space filled".into());
        }
        if k % 32 == 0 {
            st.check_invariants()?;
        }
    }
    st.check_invariants()?;
    let m = st.moved;
    // A block read's companions are its pages but the one that faulted at least; a frame
    // reclaimed was trial-invalidated or came in with a block read, never referenced.
    if m.companions_stolen > m.dasd_to_ms - m.pagein_dasd_blocks.min(m.dasd_to_ms) {
        return Err(format!("companions reclaimed beyond those read: {m:?}"));
    }
    if m.agelist_reclaimed > m.agelist_invalidated + m.companions_stolen {
        return Err(format!(
            "reclaims beyond invalidations and companions: {m:?}"
        ));
    }
    if m.scans != 0 {
        return Err(format!("demand scan ran {} times on 7.1", m.scans));
    }
    if m.ms_to_xs + m.xs_to_dasd != 0 {
        return Err("pages went to XSTOR on 7.1".into());
    }
    Ok(vec![
        pagein,
        revalidated,
        m.agelist_early_writes > 0,
        m.agelist_reclaimed > 0,
        m.companions_stolen > 0,
    ])
}

#[test]
fn aging_list_sequences_stay_consistent_and_page_from_dasd() {
    let strategy = proptest::collection::vec(op(), 600..3000);
    reach_states("7.1", CASES, strategy, &STATES, MIN_SHARE, |ops| run(&ops));
}
