//! The stationary warm start (`run.warm_start = "stationary"`): pages placed as the workload
//! and CP leave them after running for hours. It must leave storage consistent, be
//! deterministic, and actually differ from the ordered start.

mod common;

use common::SMALL;
use serde_json::Value;
use zvmsim_core::system::Simulation;

const STATIONARY: &str = "run.warm_start=stationary";

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
    let (keep, _) = run(&[STATIONARY.to_string()]);
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
    let (long, _) = run(&[STATIONARY.to_string()]);
    let (short, _) = run(&[STATIONARY.to_string(), "run.warm_history=2m".to_string()]);
    let (a, b) = (resident_with_slot(&long), resident_with_slot(&short));
    // Pages that have not yet had a long gap have never left memory, so hold no slot.
    assert!(b < a, "2 minutes: {b}, unlimited: {a}");
}
