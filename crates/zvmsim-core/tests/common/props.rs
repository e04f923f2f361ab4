//! What the storage property tests share: page-ins under way, guest address spaces, and the
//! runner that fails on the first inconsistent sequence and then checks that enough sequences
//! reached each state worth testing (a property test that never pages from DASD proves little).

use std::cell::RefCell;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use zvmsim_core::config::params::ModelParams;
use zvmsim_core::config::scenario::{AgelistSettings, AgelistSize, ZvmLevel};
use zvmsim_core::cp::storage::{Access, CpWork, Owner, SpaceId, SpaceSpec, Storage, Touch};

/// One address space of `pages` pages per guest.
pub(crate) fn guest_spaces(guests: u32, pages: u32) -> Vec<SpaceSpec> {
    (0..guests)
        .map(|g| SpaceSpec {
            owner: Owner::Guest(g),
            pages,
        })
        .collect()
}

/// z/VM 7.1 with 256 frames (32 for CP, 224 pageable), no XSTOR, paging `volumes`, `guests`
/// guests of `pages` pages, and an aging list of 10 % (22 frames), so that references find
/// pages on it.
pub(crate) fn aging_storage(p: &ModelParams, volumes: &[u64], guests: u32, pages: u32) -> Storage {
    let spaces = guest_spaces(guests, pages);
    let mut st = Storage::new(ZvmLevel::V7R1, p, 256, 32, 0, volumes, &spaces);
    st.set_agelist(AgelistSettings {
        size: AgelistSize::Percent(1000),
        ..AgelistSettings::default()
    });
    st
}

/// A reference to guest page `page`, numbered over all guests' pages (`pages` each): notes
/// the block read it waits for, and checks that a page revalidated from the aging list is
/// resident.
pub(crate) fn touch_guest_page(
    st: &mut Storage,
    pageins: &mut PageIns,
    cp: &mut CpWork,
    pages: u32,
    (page, write): (u32, bool),
) -> Result<Touch, String> {
    let (sp, pg) = (st.space(SpaceId(page / pages)), page % pages);
    let t = st.touch(sp, pg, Access::write(write), cp);
    pageins.note(t);
    if t == Touch::Revalidated && !st.is_resident(sp.id, pg) {
        return Err(format!("page {page} revalidated but not resident"));
    }
    Ok(t)
}

/// Block reads under way, oldest first: the model starts one per paging group a reference
/// finds on DASD and completes them when the test says so.
#[derive(Default)]
pub(crate) struct PageIns(Vec<u32>);

impl PageIns {
    /// Notes the block read a reference waits for; true if it waits for one.
    pub(crate) fn note(&mut self, t: Touch) -> bool {
        let Touch::OnDasd { group } = t else {
            return false;
        };
        if !self.0.contains(&group) {
            self.0.push(group);
        }
        true
    }

    /// Completes the oldest block read under way, if any.
    pub(crate) fn complete_oldest(&mut self, st: &mut Storage, cp: &mut CpWork) {
        if !self.0.is_empty() {
            let group = self.0.remove(0);
            st.complete_pagein(group, cp);
        }
    }
}

/// Runs `cases` sequences drawn from `strategy` through `run`, which returns for each of
/// `names` whether the sequence reached that state (or why it is inconsistent). Panics on the
/// first inconsistency, and if fewer than `min_share` of the sequences reach any state;
/// prints the share reached per state. The sequences are the same on every run, so that a
/// share near its floor cannot fail CI by chance; `ZVMSIM_PROPTEST_RANDOM=1` draws new ones.
#[allow(clippy::print_stderr)]
pub(crate) fn reach_states<S: Strategy>(
    label: &str,
    cases: u32,
    strategy: S,
    names: &[&str],
    min_share: f64,
    run: impl Fn(S::Value) -> Result<Vec<bool>, String>,
) {
    let config = Config {
        failure_persistence: None,
        ..Config::with_cases(cases)
    };
    let mut runner = if std::env::var("ZVMSIM_PROPTEST_RANDOM").is_ok_and(|v| v == "1") {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    };
    let counts = RefCell::new((0u32, vec![0u32; names.len()]));
    let result = runner.run(&strategy, |v| {
        let reached = run(v).map_err(TestCaseError::fail)?;
        let mut c = counts.borrow_mut();
        assert_eq!(reached.len(), names.len(), "one flag per state");
        c.0 += 1;
        for (n, hit) in c.1.iter_mut().zip(reached) {
            *n += hit as u32;
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (ran, counts) = counts.into_inner();
    assert_eq!(ran, cases);
    for (name, n) in names.iter().zip(counts) {
        let share = f64::from(n) / f64::from(cases);
        eprintln!(
            "{label} {name}: {n} of {cases} sequences ({:.0} %)",
            share * 100.0
        );
        assert!(
            share >= min_share,
            "too few sequences reach {name}: {n} of {cases}"
        );
    }
}
