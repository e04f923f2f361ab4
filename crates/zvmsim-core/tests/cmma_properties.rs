//! CMMA property: random references, block page-ins and guest page-state changes (ESSA) on a
//! small overcommitted host keep CP's storage consistent, never write an unused page to XSTOR
//! or DASD, and rebuild a discarded volatile page on its next reference. The test also
//! measures how many sequences reach the states that matter (frames reclaimed without a
//! page-out, discard faults, HPMA reuse, DASD page-ins) and fails when too few do.

mod common;

use common::props::{reach_states, PageIns};
use proptest::prelude::*;
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::ZvmLevel;
use zvmsim_core::cp::storage::{
    Access, CpWork, GuestState, Owner, SpaceId, SpaceSpec, Storage, Touch, NONE,
};

const PAGES: u32 = 1024;
const CASES: u32 = 64;
/// Share of sequences that must reach each state.
const MIN_SHARE: f64 = 0.8;

#[derive(Debug, Clone)]
enum Op {
    Touch { page: u32, write: bool },
    Complete,
    Essa { page: u32, state: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..PAGES, any::<bool>()).prop_map(|(page, write)| Op::Touch { page, write }),
        1 => Just(Op::Complete),
        3 => (0..PAGES, 0u8..3).prop_map(|(page, state)| Op::Essa { page, state }),
    ]
}

fn state(k: u8) -> GuestState {
    match k {
        0 => GuestState::Stable,
        1 => GuestState::Unused,
        _ => GuestState::Volatile,
    }
}

/// States reached: [reclaimed without page-out, discard fault, HPMA reuse, DASD page-in].
fn run(ops: &[Op]) -> Result<Vec<bool>, String> {
    let p = ModelParams::default();
    let spaces = [SpaceSpec {
        owner: Owner::Guest(0),
        pages: PAGES,
    }];
    // 256 frames (32 for CP), 32 XSTOR blocks, DASD for every page.
    let mut st = Storage::new(ZvmLevel::V5R3, &p, 256, 32, 32, &[4096], &spaces);
    let sp = st.space(SpaceId(0));
    let mut states = vec![GuestState::Stable; PAGES as usize];
    let mut pageins = PageIns::default();
    let mut cp = CpWork::default();
    let mut reached = [false; 4];
    for (k, o) in ops.iter().enumerate() {
        // Where unused pages are before the operation: none may gain a copy by it.
        let placed: Vec<(u32, bool, u32)> = (0..PAGES)
            .filter(|&pg| states[pg as usize] == GuestState::Unused)
            .map(|pg| {
                (
                    pg,
                    st.page_in_xstor(SpaceId(0), pg),
                    st.page_slot(SpaceId(0), pg),
                )
            })
            .collect();
        match *o {
            Op::Touch { page, write } => {
                let discarded = st.is_discarded(sp, page);
                let t = st.touch(sp, page, Access::write(write), &mut cp);
                if discarded {
                    // The guest's discard fault: the page comes back as a fresh page.
                    reached[1] = true;
                    if t != Touch::FirstUse || st.is_discarded(sp, page) {
                        return Err(format!("discarded page {page} not rebuilt: {t:?}"));
                    }
                }
                reached[3] |= pageins.note(t);
            }
            Op::Complete => pageins.complete_oldest(&mut st, &mut cp),
            Op::Essa { page, state: s } => {
                st.set_guest_state(sp, page, state(s));
                states[page as usize] = state(s);
            }
        }
        st.writes.clear();
        for (pg, x, slot) in placed {
            if states[pg as usize] != GuestState::Unused {
                continue;
            }
            if (st.page_in_xstor(SpaceId(0), pg) && !x)
                || (st.page_slot(SpaceId(0), pg) != NONE && st.page_slot(SpaceId(0), pg) != slot)
            {
                return Err(format!("unused page {pg} written out by op {k}: {o:?}"));
            }
        }
        if k % 32 == 0 {
            st.check_invariants()?;
        }
    }
    st.check_invariants()?;
    let c = st.cmma_counts(SpaceId(0));
    reached[0] = c.reclaimed > 0;
    reached[2] = c.hpma > 0;
    Ok(reached.to_vec())
}

#[test]
fn cmma_keeps_storage_consistent_and_never_pages_out_unused_pages() {
    let names = [
        "reclaimed without page-out",
        "discard fault",
        "HPMA reuse",
        "DASD page-in",
    ];
    let strategy = proptest::collection::vec(op(), 1500..3000);
    reach_states("CMMA", CASES, strategy, &names, MIN_SHARE, |ops| run(&ops));
}
