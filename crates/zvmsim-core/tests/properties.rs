//! Property tests: random sequences of operations keep CP's storage and Linux's memory
//! bookkeeping consistent (every page in exactly one place, frames and slots conserved,
//! counters equal to the sums over pages). The host properties also count how many of the
//! generated sequences reach the states worth checking (DASD page-ins, XSTOR migration, full
//! paging space) and fail when too few do, so that a change of sizes cannot silently leave
//! them testing only the easy states.

use std::cell::Cell;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::ZvmLevel;
use zvmsim_core::cp::storage::{Access, CpWork, Owner, SpaceId, SpaceSpec, Storage, Touch};
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

/// The states a sequence reached.
#[derive(Debug, Default, Clone, Copy)]
struct Reached {
    /// A reference found its page on DASD (`Touch::OnDasd`).
    dasd_pagein: bool,
    /// XSTOR was full and pages migrated to DASD.
    migrated: bool,
    /// Paging space full (abend PGT004 in z/VM).
    full: bool,
}

fn run_host(level: ZvmLevel, host: &Host, ops: &[HostOp]) -> Result<Reached, String> {
    let p = ModelParams::default();
    let spaces: Vec<SpaceSpec> = (0..GUESTS)
        .map(|g| SpaceSpec {
            owner: Owner::Guest(g),
            pages: GUEST_PAGES,
        })
        .collect();
    let mut st = Storage::new(level, &p, 256, 32, 32, host.volumes, &spaces);
    let mut pending: Vec<u32> = Vec::new();
    let mut cp = CpWork::default();
    let mut reached = Reached::default();
    for (k, op) in ops.iter().enumerate() {
        match *op {
            HostOp::Touch { page, write } => {
                let (sp, pg) = (st.space(SpaceId(page / GUEST_PAGES)), page % GUEST_PAGES);
                if let Touch::OnDasd { group } = st.touch(sp, pg, Access::write(write), &mut cp) {
                    reached.dasd_pagein = true;
                    if !pending.contains(&group) {
                        pending.push(group);
                    }
                }
            }
            HostOp::Complete => {
                if !pending.is_empty() {
                    let group = pending.remove(0);
                    st.complete_pagein(group, &mut cp);
                }
            }
        }
        st.writes.clear();
        if st.paging_full {
            // z/VM ends here; the reserve must have held every page written so far.
            reached.full = true;
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
    reached.migrated = st.moved.xs_to_dasd > 0;
    Ok(reached)
}

/// Runs `HOST_CASES` generated sequences on `host`, each checked by `run_host`, and returns
/// how many reached each state (DASD page-in, migration, full) and how many ran.
fn measure(level: ZvmLevel, host: &Host) -> ([u32; 3], u32) {
    let mut runner = TestRunner::new(Config {
        // The runner is driven by hand, so proptest knows no source file to persist to.
        failure_persistence: None,
        ..Config::with_cases(HOST_CASES)
    });
    let counts = Cell::new([0u32; 3]);
    let cases = Cell::new(0u32);
    let strategy = proptest::collection::vec(host_op(), host.ops.clone());
    let result = runner.run(&strategy, |ops| {
        let r = run_host(level, host, &ops).map_err(TestCaseError::fail)?;
        let mut c = counts.get();
        c[0] += r.dasd_pagein as u32;
        c[1] += r.migrated as u32;
        c[2] += r.full as u32;
        counts.set(c);
        cases.set(cases.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{level:?}: {e}");
    }
    (counts.get(), cases.get())
}

#[allow(clippy::print_stderr)]
fn report(what: &str, level: ZvmLevel, reached: u32, cases: u32) -> f64 {
    let share = reached as f64 / cases as f64;
    eprintln!(
        "{level:?} {what}: {reached} of {cases} sequences ({:.0} %)",
        share * 100.0
    );
    share
}

/// Storage stays consistent, and most sequences page from DASD and migrate from XSTOR.
fn pages_from_dasd(level: ZvmLevel) {
    let ([dasd, migrated, full], cases) = measure(level, &ROOMY);
    assert_eq!(cases, HOST_CASES);
    assert_eq!(full, 0, "the roomy paging space filled");
    assert!(report("DASD page-in", level, dasd, cases) >= MIN_SHARE);
    assert!(report("XSTOR migration", level, migrated, cases) >= MIN_SHARE);
}

/// Storage stays consistent up to a full paging space, which most sequences reach.
fn fills_paging_space(level: ZvmLevel) {
    let ([_, _, full], cases) = measure(level, &TIGHT);
    assert_eq!(cases, HOST_CASES);
    assert!(report("paging space full", level, full, cases) >= MIN_SHARE);
}

#[test]
fn host_sequences_page_from_dasd_zvm53() {
    pages_from_dasd(ZvmLevel::V5R3);
}

#[test]
fn host_sequences_page_from_dasd_zvm52() {
    pages_from_dasd(ZvmLevel::V5R2);
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
        let r = run_host(level, &ROOMY, &ops).unwrap();
        assert!(r.dasd_pagein && r.migrated && !r.full, "{level:?}: {r:?}");
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
}

const SHM: u32 = 3000;

fn guest_op() -> impl Strategy<Value = GuestOp> {
    prop_oneof![
        8 => (0..SHM, any::<bool>(), any::<bool>())
            .prop_map(|(v, write, start_read)| GuestOp::Anon { v, write, start_read }),
        4 => (0u32..5000).prop_map(|block| GuestOp::File { block }),
        1 => Just(GuestOp::Kswapd),
        1 => (0u32..=100).prop_map(GuestOp::Swappiness),
        1 => (0u32..=4).prop_map(GuestOp::PageCluster),
        1 => Just(GuestOp::CancelReadahead),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A 3,200-page guest whose 3,000 pages of shared memory do not all fit: Linux swaps.
    #[test]
    fn linux_memory_stays_consistent(ops in proptest::collection::vec(guest_op(), 0..2000)) {
        let mut m = LinuxMemory::new(0, 3200, 100, SHM, 5000, 40, 2000);
        m.swap_areas = 2;
        m.warm(0..SHM, |i| i);
        m.check().unwrap();
        let mut pending: Vec<u32> = Vec::new();
        for op in &ops {
            match *op {
                GuestOp::Anon { v, write, start_read } => {
                    if let (Anon::SwapIn { .. }, _) = m.anon_ref(v, write) {
                        if start_read {
                            m.swapin_started(v);
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
            }
            m.swap_out.clear();
        }
        for v in pending {
            m.swapin_started(v);
        }
        m.check().unwrap();
        prop_assert!(m.free_pages() as u64 + m.cached + m.anon() == 3100);
    }
}
