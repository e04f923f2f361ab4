//! Property tests: random sequences of operations keep CP's storage and Linux's memory
//! bookkeeping consistent (every page in exactly one place, frames and slots conserved,
//! counters equal to the sums over pages). Each property also counts how many of the
//! generated sequences reach the states worth checking (DASD page-ins, XSTOR migration, full
//! paging space; Linux swapping, balloon pages, the balloon given back when memory runs out)
//! and fails when too few do, so that a change of sizes cannot silently leave it testing only
//! the easy states.

mod common;

use common::props::{guest_spaces, reach_states, PageIns};
use proptest::prelude::*;
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::ZvmLevel;
use zvmsim_core::cp::storage::{Access, CpWork, SpaceId, Storage};
use zvmsim_core::linux::memory::{Anon, LinuxMemory};

const GUEST_PAGES: u32 = 512;
const GUESTS: u32 = 3;
/// Cases per host property (proptest's default is 256; these runs are longer).
const HOST_CASES: u32 = 64;
/// Share of generated sequences that must reach each state.
const MIN_SHARE: f64 = 0.8;

/// A small overcommitted host: 256 frames (32 for CP, 224 pageable) for three guests of 512
/// pages (1,536 pages, about 7 times the frames), an XSTOR of 32 blocks.
struct Host {
    /// Slots of each paging volume.
    volumes: &'static [u64],
    /// Operations per generated sequence.
    ops: std::ops::Range<usize>,
}

/// Paging space for every page: sequences page from DASD but never fill it.
const ROOMY: Host = Host {
    volumes: &[4096, 4096, 4096],
    // 400 operations touch about 300 distinct pages: past central storage and XSTOR.
    ops: 400..3000,
};
/// One volume of 512 slots (64 groups, 16 of them reserve): full after 384 pages on DASD.
const TIGHT: Host = Host {
    volumes: &[512],
    // 1,500 operations touch about 880 distinct pages, beyond 224 + 32 + 384.
    ops: 1500..4000,
};

#[derive(Debug, Clone)]
enum HostOp {
    Touch {
        page: u32,
        write: bool,
    },
    /// Complete the oldest outstanding DASD page-in.
    Complete,
}

fn host_op() -> impl Strategy<Value = HostOp> {
    prop_oneof![
        6 => (0..GUESTS * GUEST_PAGES, any::<bool>())
            .prop_map(|(page, write)| HostOp::Touch { page, write }),
        1 => Just(HostOp::Complete),
    ]
}

/// The states a host sequence may reach: a reference found its page on DASD
/// (`Touch::OnDasd`); XSTOR was full and pages migrated to DASD; paging space full (abend
/// PGT004 in z/VM); demand scan freed a changed page's stale slot (`stale_slot_scan_release`).
const HOST_STATES: [&str; 4] = [
    "DASD page-in",
    "XSTOR migration",
    "paging space full",
    "stale slot freed by a scan",
];

/// Which of `HOST_STATES` the sequence reached.
fn run_host(
    level: ZvmLevel,
    host: &Host,
    p: &ModelParams,
    ops: &[HostOp],
) -> Result<Vec<bool>, String> {
    let spaces = guest_spaces(GUESTS, GUEST_PAGES);
    let mut st = Storage::new(level, p, 256, 32, 32, host.volumes, &spaces);
    let mut pageins = PageIns::default();
    let mut cp = CpWork::default();
    let (mut dasd_pagein, mut full) = (false, false);
    for (k, op) in ops.iter().enumerate() {
        match *op {
            HostOp::Touch { page, write } => {
                let (sp, pg) = (st.space(SpaceId(page / GUEST_PAGES)), page % GUEST_PAGES);
                dasd_pagein |= pageins.note(st.touch(sp, pg, Access::write(write), &mut cp));
            }
            HostOp::Complete => pageins.complete_oldest(&mut st, &mut cp),
        }
        st.writes.clear();
        if st.paging_full {
            // z/VM ends here; the reserve must have held every page written so far.
            full = true;
            let placed = (0..GUESTS * GUEST_PAGES)
                .filter(|&g| st.was_touched(SpaceId(g / GUEST_PAGES), g % GUEST_PAGES))
                .count() as u64;
            if placed != st.touched() {
                return Err(format!(
                    "paging space full: {} pages used, {placed} have a place",
                    st.touched()
                ));
            }
            break;
        }
        if k % 64 == 0 {
            st.check_invariants()?;
        }
    }
    st.check_invariants()?;
    Ok(vec![
        dasd_pagein,
        st.moved.xs_to_dasd > 0,
        full,
        st.moved.stale_slots_released > 0,
    ])
}

/// Storage stays consistent on `host`; every state in `must` is reached by most sequences,
/// and none reaches a full paging space unless `full` is among them.
fn host_property(level: ZvmLevel, host: &Host, p: &ModelParams, must: &[usize]) {
    let strategy = proptest::collection::vec(host_op(), host.ops.clone());
    let names: Vec<&str> = must.iter().map(|&k| HOST_STATES[k]).collect();
    let fills = must.contains(&2);
    reach_states(
        &format!("{level:?}"),
        HOST_CASES,
        strategy,
        &names,
        MIN_SHARE,
        |ops| {
            let r = run_host(level, host, p, &ops)?;
            if r[2] && !fills {
                return Err("the roomy paging space filled".into());
            }
            Ok(must.iter().map(|&k| r[k]).collect())
        },
    );
}

/// Storage stays consistent, and most sequences page from DASD and migrate from XSTOR.
fn pages_from_dasd(level: ZvmLevel) {
    host_property(level, &ROOMY, &ModelParams::default(), &[0, 1]);
}

/// Storage stays consistent up to a full paging space, which most sequences reach.
fn fills_paging_space(level: ZvmLevel) {
    host_property(level, &TIGHT, &ModelParams::default(), &[2]);
}

#[test]
fn host_sequences_page_from_dasd_zvm53() {
    pages_from_dasd(ZvmLevel::V5R3);
}

#[test]
fn host_sequences_page_from_dasd_zvm52() {
    pages_from_dasd(ZvmLevel::V5R2);
}

/// With stale slots freed by demand scan, storage stays consistent (a page in one place, the
/// counters the sums over pages) and most sequences reach such a release.
#[test]
fn host_sequences_free_stale_slots_zvm53() {
    let p = ModelParams {
        stale_slot_scan_release: true,
        ..ModelParams::default()
    };
    host_property(ZvmLevel::V5R3, &ROOMY, &p, &[0, 3]);
}

#[test]
fn host_sequences_fill_paging_space_zvm53() {
    fills_paging_space(ZvmLevel::V5R3);
}

#[test]
fn host_sequences_fill_paging_space_zvm52() {
    fills_paging_space(ZvmLevel::V5R2);
}

/// A fixed sequence reaches DASD too: a sweep over every other page, twice, then reads back.
#[test]
fn host_sweep_reaches_dasd() {
    let pages = GUESTS * GUEST_PAGES;
    let ops: Vec<HostOp> = (0..2)
        .flat_map(|_| {
            (0..pages / 2).map(|k| HostOp::Touch {
                page: k * 2,
                write: true,
            })
        })
        .chain(std::iter::repeat_n(HostOp::Complete, 100))
        .collect();
    for level in [ZvmLevel::V5R2, ZvmLevel::V5R3] {
        let r = run_host(level, &ROOMY, &ModelParams::default(), &ops).unwrap();
        assert_eq!(
            r,
            [true, true, false, false],
            "{level:?}: DASD page-in, migration, full, stale slot freed (rule off)"
        );
    }
}

#[derive(Debug, Clone)]
enum GuestOp {
    Anon {
        v: u32,
        write: bool,
        start_read: bool,
    },
    File {
        block: u32,
    },
    Kswapd,
    Swappiness(u32),
    PageCluster(u32),
    /// Drop the pages a fault read ahead whose frames "CP has not got" (every other one).
    CancelReadahead,
    /// The cmm thread takes up to `pages` pages into a pool (as after `CMM SHRINK` or a
    /// write to cmm_timed_pages).
    Inflate {
        pages: u32,
        timed: bool,
    },
    /// The cmm thread gives up to `pages` pages of a pool back.
    Deflate {
        pages: u32,
        timed: bool,
    },
}

const SHM: u32 = 3000;
const POOL: u64 = 3100;
const LINUX_CASES: u32 = 64;
/// The states a Linux sequence may reach.
const LINUX_STATES: [&str; 4] = [
    "swap-out",
    "swap-in",
    "balloon pages",
    "balloon given back when memory ran out",
];

fn guest_op() -> impl Strategy<Value = GuestOp> {
    prop_oneof![
        8 => (0..SHM, any::<bool>(), any::<bool>())
            .prop_map(|(v, write, start_read)| GuestOp::Anon { v, write, start_read }),
        4 => (0u32..5000).prop_map(|block| GuestOp::File { block }),
        1 => Just(GuestOp::Kswapd),
        1 => (0u32..=100).prop_map(GuestOp::Swappiness),
        1 => (0u32..=4).prop_map(GuestOp::PageCluster),
        1 => Just(GuestOp::CancelReadahead),
        3 => (1u32..=64, any::<bool>()).prop_map(|(pages, timed)| GuestOp::Inflate { pages, timed }),
        1 => (1u32..=64, any::<bool>()).prop_map(|(pages, timed)| GuestOp::Deflate { pages, timed }),
    ]
}

/// A 3,200-page guest whose 3,000 pages of shared memory do not all fit, with the cmm module
/// loaded: Linux swaps, and the balloon takes pages until reclaim finds none. Returns which
/// of `LINUX_STATES` the sequence reached.
fn run_linux(ops: &[GuestOp]) -> Result<Vec<bool>, String> {
    let mut m = LinuxMemory::new(0, 3200, 100, SHM, 5000, 40, 2000);
    m.swap_areas = 2;
    m.warm(0..SHM, |i| i);
    m.cmm_load(None);
    m.check()?;
    let mut pending: Vec<u32> = Vec::new();
    let (mut swapped_out, mut swapped_in, mut ballooned) = (false, false, false);
    let mut given_back = false;
    for (k, op) in ops.iter().enumerate() {
        let (balloon, notified) = (m.cmm.balloon(), m.cmm.oom_notifications);
        match *op {
            GuestOp::Anon {
                v,
                write,
                start_read,
            } => {
                if let (Anon::SwapIn { .. }, _) = m.anon_ref(v, write) {
                    swapped_in = true;
                    // A fault on a page whose read is pending finds it pending again; the
                    // read is started once, by whichever fault starts it.
                    if start_read {
                        m.swapin_started(v);
                        pending.retain(|&p| p != v);
                    } else if !pending.contains(&v) {
                        pending.push(v);
                    }
                }
            }
            GuestOp::File { block } => {
                m.alloc_for(block);
            }
            GuestOp::Kswapd => {
                m.kswapd();
            }
            GuestOp::Swappiness(s) => m.swappiness = s,
            GuestOp::PageCluster(c) => m.page_cluster = c,
            GuestOp::CancelReadahead => {
                let ra = std::mem::take(&mut m.readahead);
                for (k, &(w, page)) in ra.iter().enumerate() {
                    if k % 2 == 0 {
                        m.cancel_readahead(w, page);
                    }
                }
            }
            GuestOp::Inflate { pages, timed } => {
                for _ in 0..pages {
                    if m.cmm_take_page(timed).0.is_none() {
                        break;
                    }
                }
            }
            GuestOp::Deflate { pages, timed } => {
                for _ in 0..pages {
                    if !m.cmm_give_page(timed) {
                        break;
                    }
                }
            }
        }
        ballooned |= m.cmm.balloon() > 0;
        swapped_out |= !m.swap_out.is_empty();
        m.swap_out.clear();
        // Only the out-of-memory notifier shrinks the balloon besides a deflate. Its count
        // alone would not do: it counts each time memory ran out, balloon or none.
        let shrank = m.cmm.balloon() < balloon && !matches!(op, GuestOp::Deflate { .. });
        let ran_out = m.cmm.oom_notifications > notified;
        if shrank && !ran_out {
            return Err(format!(
                "op {k}: the balloon shrank without running out of memory"
            ));
        }
        given_back |= shrank;
        if k % 64 == 0 {
            m.check()?;
        }
    }
    for v in pending {
        m.swapin_started(v);
    }
    m.check()?;
    let used = u64::from(m.free_pages()) + m.cached + m.anon() + m.cmm.balloon();
    if used != POOL {
        return Err(format!("{used} pool pages accounted for, not {POOL}"));
    }
    Ok(vec![swapped_out, swapped_in, ballooned, given_back])
}

#[test]
fn linux_memory_stays_consistent() {
    let strategy = proptest::collection::vec(guest_op(), 600..2000);
    reach_states(
        "Linux",
        LINUX_CASES,
        strategy,
        &LINUX_STATES,
        MIN_SHARE,
        |ops| run_linux(&ops),
    );
}
