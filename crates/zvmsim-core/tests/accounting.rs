//! What the console and the per-guest figures report agrees with the interval rows: INDICATE
//! LOAD's rates are the interval's, and CP time is charged to the guests it was spent for.

use std::path::PathBuf;

use serde_json::Value;
use zvmsim_core::Simulation;

mod common;

/// The quickstart over its short window (`common::QUICKSTART_SHORT`), with `extra` appended.
fn quickstart(extra: &str) -> Simulation {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
    let text = std::fs::read_to_string(path).expect("quickstart") + extra;
    let short: Vec<String> = common::QUICKSTART_SHORT
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut sim = Simulation::from_toml(&text, "quickstart.toml", None, &short).expect("valid");
    sim.run();
    sim
}

/// The numbers of an INDICATE LOAD response: AVGPROC %, XSTORE/s, MIGRATE/s, PAGING/s.
fn indicate(lines: &[Value]) -> [f64; 4] {
    let text: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
    let num = |key: &str| -> f64 {
        let line = text.iter().find(|l| l.contains(key)).expect(key);
        let rest = &line[line.find(key).expect(key) + key.len()..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().expect("a number")
    };
    [
        num("AVGPROC-"),
        num("XSTORE-"),
        num("MIGRATE-"),
        num("PAGING-"),
    ]
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1.0)
}

#[test]
fn indicate_load_agrees_with_the_interval_rows() {
    // Two moments inside the interval [80 s, 90 s) (priming 30 s, 10 s intervals).
    let sim = quickstart(
        "\n[[console]]\nat = \"83s\"\ncp = \"INDICATE LOAD\"\n\n[[console]]\nat = \"89s\"\ncp = \"INDICATE LOAD\"\n",
    );
    let rows = sim.system_rows();
    let row = rows
        .iter()
        .find(|r| r.t_start_s == 80.0)
        .expect("interval 80-90 s");
    let want = [
        row.ifl_utilization_pct,
        row.ms_to_xs_per_s + row.xs_to_ms_per_s,
        row.xs_to_dasd_per_s,
        row.dasd_to_ms_per_s + row.ms_to_dasd_per_s + row.xs_to_dasd_per_s,
    ];
    assert!(want[3] > 1000.0, "the quickstart pages to DASD: {want:?}");
    let console = sim.console();
    let mut seen = 0;
    for c in &console {
        let t = c["t_s"].as_f64().unwrap();
        if c["command"] == "INDICATE LOAD" && (83.0..90.0).contains(&t) {
            let got = indicate(c["response"].as_array().unwrap());
            for k in 0..4 {
                assert!(
                    close(got[k], want[k], 0.05),
                    "at {t} s: INDICATE LOAD {got:?}, interval row {want:?}"
                );
            }
            seen += 1;
        }
    }
    // The two added, and the quickstart's own at 85 s.
    assert_eq!(seen, 3);
}

#[test]
fn cp_time_is_charged_to_the_guests_it_was_spent_for() {
    let sim = quickstart("");
    let s = sim.summary_typed();
    let guests: f64 = s.guests.iter().map(|g| g.cp_pct).sum();
    let total = s.means.cpu_cp_pct;
    let system = s.means.cpu_cp_system_pct;
    assert!(
        total > 1.0,
        "the overcommitted quickstart has CP work: {total}"
    );
    assert!(
        close(guests + system, total, 0.05),
        "guests {guests} + system {system} != CP total {total}"
    );
    // Most of it is spent for the guests whose page faults caused it.
    assert!(guests > 0.5 * total, "guests {guests} of {total}");
    // The four guests run the same workload: none is charged many times another.
    let (lo, hi) = s.guests.iter().fold((f64::MAX, 0.0f64), |(lo, hi), g| {
        (lo.min(g.cp_pct), hi.max(g.cp_pct))
    });
    assert!(hi < 2.0 * lo, "per-guest CP time from {lo} to {hi}");
    // Per interval too: the guest rows' CP time adds up to the system row's.
    for r in sim.system_rows() {
        let g: f64 = sim
            .guest_rows()
            .iter()
            .filter(|x| x.interval == r.interval)
            .map(|x| x.cp_pct)
            .sum();
        assert!(
            close(g + r.cpu_cp_system_pct, r.cpu_cp_pct, 0.05),
            "interval {}: {g} vs {}",
            r.interval,
            r.cpu_cp_pct
        );
    }
}

#[test]
fn no_interval_uses_more_cpu_than_the_lpar_has() {
    // z/VM 5.2 with six 16 GB guests saturates its IFLs with CP work when its available-list
    // walks run side by side at their former cost (the default serializes them).
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/large-memory/zvm52-6guests.toml");
    let text = std::fs::read_to_string(path).expect("scenario");
    let ovr: Vec<String> = [
        "run.priming=20s",
        "run.measure=20s",
        "run.interval=5s",
        "model.avail_walk_serialized=false",
        "model.cp_avail_search=75ns",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut sim = Simulation::from_toml(&text, "zvm52-6guests.toml", None, &ovr).expect("valid");
    sim.run();
    let ifls = sim.scenario.lpar.ifls as f64;
    let busiest = sim
        .system_rows()
        .iter()
        .map(|r| r.cpu_lpar_pct)
        .fold(0.0f64, f64::max);
    // Busy enough that an over-count would show, and never above what the IFLs can give.
    assert!(
        busiest > 50.0 * ifls,
        "busiest interval {busiest} % of {ifls} IFLs"
    );
    for r in sim.system_rows() {
        assert!(
            r.cpu_lpar_pct <= 100.0 * ifls * 1.001,
            "interval {}: {} % on {ifls} IFLs",
            r.interval,
            r.cpu_lpar_pct
        );
    }
}

/// z/VM 5.2's walks of the available list for block page-ins hold the list's lock: one walks
/// at a time, the others wait without CPU, so CP's time stays near one IFL's worth however
/// costly a walk is; run side by side, the same walks take several IFLs.
#[test]
fn serialized_available_list_walks_use_one_ifl_at_most() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/large-memory/zvm52-6guests.toml");
    let text = std::fs::read_to_string(path).expect("scenario");
    let cp_pct = |serialized: bool| {
        let ovr: Vec<String> = [
            "run.priming=20s",
            "run.measure=20s",
            "run.interval=5s",
            "model.cp_avail_search=75ns",
            if serialized {
                "model.avail_walk_serialized=true"
            } else {
                "model.avail_walk_serialized=false"
            },
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut sim =
            Simulation::from_toml(&text, "zvm52-6guests.toml", None, &ovr).expect("valid");
        sim.run();
        let s = sim.summary();
        s["cpu_cp_pct"].as_f64().expect("cpu_cp_pct")
    };
    let (one, side_by_side) = (cp_pct(true), cp_pct(false));
    // One walker (100 % of an IFL) plus CP's other paging work, against several IFLs.
    assert!(one < 150.0, "serialized walks: CP {one} %");
    assert!(
        side_by_side > 300.0,
        "walks side by side: CP {side_by_side} %"
    );
}
