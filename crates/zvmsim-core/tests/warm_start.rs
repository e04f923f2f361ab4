//! The stationary warm start (`run.warm_start = "stationary"`): pages placed as the workload
//! and CP leave them after running for hours. It must leave storage consistent, be
//! deterministic, and actually differ from the ordered start.

mod common;

use common::SMALL;
use serde_json::Value;
use zvmsim_core::system::Simulation;

const STATIONARY: &str = "run.warm_start=stationary";
/// KEEPSLOT's slots kept until the page changes: only such slots are a stationary population
/// that the warm start places (`Storage::slot_retention`); held until the next reference, they
/// are not, and the start places none.
const KEPT_FOR_GOOD: &str = "model.slot_until_referenced=false";

fn run(overrides: &[String]) -> (Simulation, serde_json::Map<String, Value>) {
    let mut sim = Simulation::from_toml(SMALL, "t.toml", None, overrides).expect("valid");
    sim.check_invariants()
        .expect("consistent after the warm start");
    sim.run();
    sim.check_invariants().expect("consistent after the run");
    let mut s = sim.summary();
    for k in ["wall_seconds", "started_utc", "events_per_second"] {
        s.remove(k);
    }
    (sim, s)
}

fn num(s: &serde_json::Map<String, Value>, k: &str) -> f64 {
    s[k].as_f64().unwrap_or_else(|| panic!("{k} missing"))
}

#[test]
fn stationary_start_is_consistent_deterministic_and_live() {
    let o = [STATIONARY.to_string()];
    let (a, sa) = run(&o);
    let (_, sb) = run(&o);
    assert_eq!(sa, sb, "same seed, same results");
    let (ord, so) = run(&[]);
    assert_ne!(
        a.scenario_hash(),
        ord.scenario_hash(),
        "the option is part of the scenario"
    );
    // The small scenario overcommits storage: both starts page to DASD, and they differ.
    assert!(num(&so, "pages_dasd") > 0.0 && num(&sa, "pages_dasd") > 0.0);
    assert_ne!(
        (num(&sa, "throughput_tx_per_s"), num(&sa, "pages_dasd")),
        (num(&so, "throughput_tx_per_s"), num(&so, "pages_dasd"))
    );
}

#[test]
fn ordered_start_is_the_default_and_keeps_the_scenario_hash() {
    let plain = Simulation::from_toml(SMALL, "t.toml", None, &[]).expect("valid");
    let explicit = Simulation::from_toml(SMALL, "t.toml", None, &["run.warm_start=ordered".into()])
        .expect("valid");
    assert_eq!(plain.scenario_hash(), explicit.scenario_hash());
}

#[test]
fn an_unknown_warm_start_is_a_located_error() {
    let text = SMALL.replacen("seed = 1", "seed = 1\nwarm_start = \"hot\"", 1);
    let e = common::err(&text);
    let msg = e.to_string();
    let line = common::line_of(&text, "warm_start");
    assert!(msg.contains(&format!("t.toml:{line}:")), "{msg}");
    assert!(
        msg.contains("run.warm_start") && msg.contains("stationary"),
        "{msg}"
    );
}

/// Pages that are resident and still hold a DASD slot, at the end of the first interval.
fn resident_with_slot(sim: &Simulation) -> i64 {
    let r = &sim.system_rows()[0];
    (r.pages_dasd + r.pages_xstor) as i64 - r.pages_not_in_memory as i64
}

#[test]
fn stationary_start_draws_kept_slots_only_where_cp_keeps_them() {
    let (keep, _) = run(&[STATIONARY.to_string(), KEPT_FOR_GOOD.to_string()]);
    let (release, _) = run(&[
        STATIONARY.to_string(),
        "model.keep_slot_on_pagein=false".to_string(),
    ]);
    let pages = keep.system_rows()[0].pages_not_in_memory as i64;
    // With KEEPSLOT, resident pages that came back from DASD hold their slots from the start;
    // without it, only the few pages a block read just brought in can still hold one.
    assert!(
        resident_with_slot(&keep) * 20 > pages,
        "{}",
        resident_with_slot(&keep)
    );
    assert!(
        resident_with_slot(&release) * 100 < pages,
        "{}",
        resident_with_slot(&release)
    );
}

#[test]
fn a_shorter_history_leaves_fewer_kept_slots() {
    let (long, _) = run(&[STATIONARY.to_string(), KEPT_FOR_GOOD.to_string()]);
    let (short, _) = run(&[
        STATIONARY.to_string(),
        KEPT_FOR_GOOD.to_string(),
        "run.warm_history=2m".to_string(),
    ]);
    let (a, b) = (resident_with_slot(&long), resident_with_slot(&short));
    // Pages that have not yet had a long gap have never left memory, so hold no slot.
    assert!(b < a, "2 minutes: {b}, unlimited: {a}");
}

/// SMALL with two idle guests of 64 MB that had used `used` (none: all of it), on a central
/// storage large enough that nothing pages.
fn with_idle(used: Option<&str>) -> Simulation {
    let linux = match used {
        Some(u) => format!("{{ kernel = \"8M\", min_free = \"2M\", used = \"{u}\" }}"),
        None => "{ kernel = \"8M\", min_free = \"2M\" }".into(),
    };
    let idle = format!(
        "[[guests]]\nname = \"IDL%02d\"\ncount = 2\nstorage = \"64M\"\nvcpus = 1\nlinux = {linux}\n\n[workloads.db]"
    );
    let text = common::with("[workloads.db]", &idle);
    let mut sim =
        Simulation::from_toml(&text, "t.toml", None, &["lpar.central=1G".into()]).expect("valid");
    sim.run();
    sim.check_invariants().expect("consistent");
    sim
}

/// An idle guest's pages resident in the last interval (nothing pages here).
fn idle_resident(sim: &Simulation) -> u64 {
    let rows = sim.guest_rows();
    let last = rows.iter().map(|r| r.interval).max().expect("rows");
    rows.iter()
        .find(|r| r.interval == last && r.guest == "IDL01")
        .map(|r| r.resident_pages + r.pages_xstor)
        .expect("IDL01's row")
}

#[test]
fn an_idle_guest_uses_only_what_it_had_used_and_the_rest_costs_no_frame() {
    // Without `used` the warm start has the idle guest use all of its storage: 64 MB.
    assert_eq!(idle_resident(&with_idle(None)), 64 * 256);
    // With it, CP backs 24 MB: the kernel and the free pages Linux had handed out.
    let part = with_idle(Some("24M"));
    assert_eq!(idle_resident(&part), 24 * 256);
    // The busy guests are unchanged by the idle guests' footprint.
    let busy = |s: &Simulation| {
        s.guest_rows()
            .iter()
            .filter(|r| r.guest.starts_with("LNX"))
            .map(|r| r.tx)
            .sum::<u64>()
    };
    assert_eq!(busy(&part), busy(&with_idle(None)));
}

#[test]
fn used_outside_the_kernel_and_the_storage_is_a_located_error() {
    for bad in ["129M", "4M"] {
        let text = common::with(
            "linux = { kernel = \"8M\", min_free = \"2M\" }",
            &format!("linux = {{ kernel = \"8M\", min_free = \"2M\", used = \"{bad}\" }}"),
        );
        let msg = common::err(&text).to_string();
        let line = common::line_of(&text, "used =");
        assert!(msg.contains(&format!("t.toml:{line}:")), "{msg}");
        assert!(
            msg.contains("linux.used")
                && msg.contains("between the kernel's 8M and guest storage 128M"),
            "{msg}"
        );
    }
}

/// The guests' set-up runs on several threads (system/warm_guests.rs), and the OLTP gets'
/// draws are made on a worker thread (workload/draws.rs); the results must be those of one
/// thread doing everything, for both warm starts. Set only in this test, and any setting gives
/// the same results, so other tests reading them meanwhile are unaffected.
#[test]
fn threads_change_no_result() {
    for o in [vec![], vec![STATIONARY.to_string()]] {
        std::env::set_var("ZVMSIM_BUILD_THREADS", "1");
        std::env::set_var("ZVMSIM_DRAW_THREAD", "0");
        let (_, one) = run(&o);
        std::env::set_var("ZVMSIM_BUILD_THREADS", "3");
        std::env::remove_var("ZVMSIM_DRAW_THREAD");
        let (_, three) = run(&o);
        std::env::remove_var("ZVMSIM_BUILD_THREADS");
        assert_eq!(
            one, three,
            "warm start {o:?}: one thread, or 3 build threads and a draw worker"
        );
        assert!(num(&one, "throughput_tx_per_s") > 0.0, "the run did work");
    }
}

#[test]
fn a_spread_buffer_pool_leaves_storage_consistent_and_changes_the_run() {
    let o = ["model.warm_spread_buffers=true".to_string()];
    let (a, sa) = run(&o);
    let (_, sb) = run(&o);
    assert_eq!(sa, sb, "same seed, same results");
    let (ord, so) = run(&[]);
    assert_ne!(a.scenario_hash(), ord.scenario_hash());
    // The same blocks in other buffers: the pool's clock replaces other pages, so the run differs.
    assert_ne!(
        num(&sa, "throughput_tx_per_s"),
        num(&so, "throughput_tx_per_s")
    );
}
