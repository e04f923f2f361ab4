//! Property tests: random sequences of operations keep CP's storage and Linux's memory
//! bookkeeping consistent (every page in exactly one place, frames and slots conserved,
//! counters equal to the sums over pages).

use proptest::prelude::*;
use zvmsim_core::linux::memory::{Anon, LinuxMemory};
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::ZvmLevel;
use zvmsim_core::cp::storage::{Access, CpWork, Owner, SpaceId, SpaceSpec, Storage, Touch};

const GUEST_PAGES: u32 = 4096;
const GUESTS: u32 = 3;

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

fn run_host(level: ZvmLevel, ops: &[HostOp]) -> u64 {
    let p = ModelParams::default();
    // 2,048 frames for 12,288 guest pages (6 times overcommitted), a small XSTOR, three
    // volumes: a few thousand touches reach DASD.
    let mut st = Storage::new(
        level,
        &p,
        2048,
        128,
        256,
        &[4096, 4096, 4096],
        &(0..GUESTS)
            .map(|g| SpaceSpec {
                owner: Owner::Guest(g),
                pages: GUEST_PAGES,
            })
            .collect::<Vec<_>>(),
    );
    let mut pending: Vec<u32> = Vec::new();
    let mut cp = CpWork::default();
    for (k, op) in ops.iter().enumerate() {
        match *op {
            HostOp::Touch { page, write } => {
                let (sp, pg) = (SpaceId(page / GUEST_PAGES), page % GUEST_PAGES);
                if let Touch::OnDasd { group } = st.touch(sp, pg, Access::write(write), &mut cp) {
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
            break;
        }
        if k % 64 == 0 {
            st.check_invariants().unwrap();
        }
    }
    st.check_invariants().unwrap();
    st.on_dasd()
}

/// The random sequences do reach DASD: a sweep over 6,000 distinct pages, twice.
#[test]
fn host_sequences_reach_dasd() {
    let ops: Vec<HostOp> = (0..2)
        .flat_map(|_| {
            (0..6000u32).map(|k| HostOp::Touch {
                page: k * 2,
                write: true,
            })
        })
        .chain(std::iter::repeat_n(HostOp::Complete, 100))
        .collect();
    for level in [ZvmLevel::V5R2, ZvmLevel::V5R3] {
        assert!(run_host(level, &ops) > 1000);
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

    #[test]
    fn host_storage_stays_consistent_zvm53(ops in proptest::collection::vec(host_op(), 0..3000)) {
        run_host(ZvmLevel::V5R3, &ops);
    }

    #[test]
    fn host_storage_stays_consistent_zvm52(ops in proptest::collection::vec(host_op(), 0..3000)) {
        run_host(ZvmLevel::V5R2, &ops);
    }


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
