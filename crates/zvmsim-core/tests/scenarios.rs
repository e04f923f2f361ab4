//! Scenario files, located errors, determinism and storage invariants, through the public API.

mod common;

use common::{err, line_of, with, SMALL};
use zvmsim_core::config::scenario;
use zvmsim_core::system::Simulation;

#[test]
fn small_scenario_is_valid() {
    let (s, _) = scenario::parse(SMALL, "t.toml", &[]).expect("valid");
    assert_eq!(s.guest_instances().len(), 3);
    assert_eq!(s.guest_instances()[2].name, "LNX03");
}

#[test]
fn bad_input_is_located() {
    let cases: Vec<(String, &str, &str, &str)> = vec![
        (
            with("ifls = 2", "ifl = 2"),
            "lpar.ifl",
            "ifl = 2",
            "unknown field",
        ),
        (
            with("ifls = 2", "ifls = \"two\""),
            "lpar.ifls",
            "ifls = \"two\"",
            "invalid type",
        ),
        (
            with("storage = \"128M\"", "storage = \"-128M\""),
            "guests[0].storage",
            "storage = \"-128M\"",
            "negative",
        ),
        (
            with("storage = \"128M\"", "storage = \"128Q\""),
            "guests[0].storage",
            "storage = \"128Q\"",
            "unknown unit",
        ),
        (
            with("cp = \"QUERY STORAGE\"", "cp = \"FROB IT\""),
            "console[0].cp",
            "FROB IT",
            "HCPCMD001E Unknown CP command: FROB",
        ),
        (
            with("linux = \"free -m\"", "linux = \"frob\""),
            "console[1].linux",
            "linux = \"frob\"",
            "command not found",
        ),
        (
            with("zvm_level = \"5.3\"", "zvm_level = \"4.4\""),
            "lpar.zvm_level",
            "zvm_level = \"4.4\"",
            "unknown z/VM level",
        ),
        (
            with("count = 3", "count = 0"),
            "guests[0].count",
            "count = 0",
            "at least 1",
        ),
        (
            with("vcpus = 2", "vcpus = 0"),
            "guests[0].vcpus",
            "vcpus = 0",
            "virtual CPUs",
        ),
        (
            with("storage = \"128M\"", "storage = \"2T\""),
            "guests[0].storage",
            "storage = \"2T\"",
            "maximum",
        ),
        (
            with("central = \"256M\"", "central = \"300G\""),
            "lpar.central",
            "central = \"300G\"",
            "at most",
        ),
        (
            with("workload = \"db\"", "workload = \"web\""),
            "guests[0].workload",
            "workload = \"web\"",
            "no workload",
        ),
        (
            with("skew = 0.9", "skew = 0.9\ncheckpoint = \"10ms\""),
            "workloads.db.database.checkpoint",
            "checkpoint = \"10ms\"",
            "wake-up interval",
        ),
        (with("[run]", "[runn]"), "runn", "[runn]", "unknown field"),
        (
            with("measure = \"20s\"", "measure = \"20 fortnights\""),
            "run.measure",
            "20 fortnights",
            "unknown unit",
        ),
    ];
    for (text, field, at, detail) in cases {
        let e = err(&text);
        assert_eq!(e.file, "t.toml");
        assert_eq!(e.field, field, "{e}");
        assert_eq!(e.line, line_of(&text, at), "{e}");
        // The column lies on the located line.
        let line_len = text.lines().nth(e.line - 1).map_or(0, str::len);
        assert!(e.column >= 1 && e.column <= line_len + 1, "{e}");
        assert!(e.detail.contains(detail), "{e}");
    }
}

#[test]
fn missing_field_and_syntax_error() {
    let e = err(&with("measure = \"20s\"\n", ""));
    assert_eq!(e.field, "run.measure");
    assert!(e.detail.contains("missing"));
    let e = err(&with("ifls = 2", "ifls = = 2"));
    assert_eq!(e.line, line_of(SMALL, "ifls = 2"));
    assert!(e.detail.contains("TOML syntax error"));
    assert!(!e.detail.contains('\n'));
}

#[test]
fn zvm_level_may_be_written_as_a_number() {
    // `--set lpar.zvm_level=5.2` gives a TOML float; the quickstart suggests it.
    let (s, _) = scenario::parse(SMALL, "t.toml", &["lpar.zvm_level=5.2".to_string()])
        .expect("a bare 5.2 is a z/VM level");
    assert_eq!(s.lpar.zvm_level, scenario::ZvmLevel::V5R2);
    let e = err(&with("zvm_level = \"5.3\"", "zvm_level = 6.1"));
    assert_eq!(e.field, "lpar.zvm_level");
    assert!(e.detail.contains("unknown z/VM level `6.1`"), "{e}");
}

#[test]
fn paging_space_too_small_for_overcommitment() {
    let text = with("count = 3", "count = 8").replacen(
        "volumes = [{ model = \"3390-3\", count = 2 }]",
        "slots = 1000",
        1,
    );
    let e = err(&text);
    assert_eq!(e.field, "paging.slots");
    assert!(e.detail.contains("too small"), "{e}");
}

/// Guests that fill central storage exactly, with no paging space, overcommit it: CP keeps
/// frames for itself. Such a run used to end at 0 s with PGT004, its stolen pages without a
/// place (found by fuzzing `lpar.central`); the check refuses it now.
#[test]
fn guests_filling_central_without_paging_space_are_refused() {
    let text = with("count = 3", "count = 2")
        .replacen(
            "central = \"256M\"",
            "central = \"256M\"\nexpanded = \"0M\"",
            1,
        )
        .replacen("expanded = \"32M\"\n", "", 1)
        .replacen("volumes = [{ model = \"3390-3\", count = 2 }]", "", 1);
    let e = err(&text);
    assert_eq!(e.field, "paging", "{e}");
    assert!(e.detail.contains("CP keeps for itself"), "{e}");
    // With the paging volumes back, the same guests run.
    let ok = text.replacen(
        "[paging]\n",
        "[paging]\nvolumes = [{ model = \"3390-3\", count = 1 }]\n",
        1,
    );
    scenario::parse(&ok, "t.toml", &[]).expect("valid with paging space");
}

#[test]
fn overrides_apply_and_are_blamed() {
    let (s, _) = scenario::parse(
        SMALL,
        "t.toml",
        &["run.seed=9".into(), "lpar.ifls=3".into()],
    )
    .expect("ok");
    assert_eq!(s.run.seed, 9);
    assert_eq!(s.lpar.ifls, 3);
    let e = scenario::parse(SMALL, "t.toml", &["lpar.ifls=ten".into()])
        .err()
        .expect("rejected");
    assert_eq!(e.file, "--set lpar.ifls=ten");
    assert_eq!(e.field, "lpar.ifls");
    let e = scenario::parse(SMALL, "t.toml", &["nosuch.x=1".into()])
        .err()
        .expect("rejected");
    assert!(e.file.starts_with("--set nosuch.x=1"));
}

fn run(seed: u64) -> serde_json::Map<String, serde_json::Value> {
    let mut sim = Simulation::from_toml(SMALL, "t.toml", Some(seed), &[]).expect("valid");
    sim.run();
    sim.check_invariants().expect("invariants");
    sim.summary()
}

#[test]
fn same_seed_same_figures_other_seed_differs() {
    let a = run(1);
    let b = run(1);
    let c = run(2);
    assert_eq!(a, b);
    assert_ne!(a.get("transactions"), c.get("transactions"));
    assert!(a["transactions"].as_u64().unwrap() > 100);
}

#[test]
fn overcommitted_run_pages_and_keeps_invariants() {
    // 3 × 128M guests on 256M central: 50 % planned overcommitment.
    let mut sim = Simulation::from_toml(SMALL, "t.toml", None, &[]).expect("valid");
    for k in 1..=25 {
        sim.step_until(k * 1_000_000_000);
        sim.check_invariants()
            .expect("invariants hold at every step");
    }
    let s = sim.summary();
    assert_eq!(s["frames_central"].as_u64(), Some(65_536));
    assert_eq!(s["pages_guest_virtual"].as_u64(), Some(98_304));
    assert!(s["planned_overcommit_pct"].as_f64().unwrap() > 49.0);
    assert!(
        s["pages_dasd"].as_f64().unwrap() > 0.0,
        "overcommitted guests reach DASD"
    );
    assert!(s["pages_xstor"].as_f64().unwrap() > 0.0);
    assert!(s["dasd_to_ms_per_s"].as_f64().unwrap() > 0.0);
    assert!(s["cpu_cp_pct"].as_f64().unwrap() > 0.0);
    let console = sim.console();
    assert!(console[0]["response"][0]
        .as_str()
        .unwrap()
        .starts_with("STORAGE = 256M"));
    assert!(console[1]["response"][0]
        .as_str()
        .unwrap()
        .contains("total"));
}

#[test]
fn zvm52_keeps_invariants_with_pgmbks_below_2g() {
    // 2.5 GB of central storage, so that frames lie both below and above 2 GB, and enough
    // guests that PGMBK pairs must be found below 2 GB.
    let text = with("central = \"256M\"", "central = \"2560M\"")
        .replacen("zvm_level = \"5.3\"", "zvm_level = \"5.2\"", 1)
        .replacen("count = 3", "count = 24", 1)
        .replacen(
            "volumes = [{ model = \"3390-3\", count = 2 }]",
            "volumes = [{ model = \"3390-9\", count = 2 }]",
            1,
        );
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    for k in 1..=10 {
        sim.step_until(k * 2_500_000_000);
        sim.check_invariants()
            .expect("invariants hold at every step");
    }
    let s = sim.summary();
    assert!(s["pgmbk_frames"].as_f64().unwrap() > 0.0);
    assert!(s["pages_resident_below_2g"].as_f64().unwrap() > 0.0);
    assert!(s["transactions"].as_u64().unwrap() > 0);
}

#[test]
fn paging_space_exhaustion_ends_cleanly() {
    // Slots just enough to pass the static check, and a workload that changes pages so that
    // kept copies and block fragmentation fill the paging space.
    let text = with("count = 3", "count = 4").replacen(
        "volumes = [{ model = \"3390-3\", count = 2 }]",
        "volumes = [{ model = \"3390-3\", count = 1 }]\nslots = 70000",
        1,
    );
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    sim.run();
    let s = sim.summary();
    let ended = s["ended"].as_str().unwrap().to_string();
    assert!(ended.starts_with("PGT004"), "{ended}");
    let last = sim.console().last().cloned().unwrap();
    assert!(last["response"][0].as_str().unwrap().contains("PGT004"));
    assert!(sim.now_ns() < sim.end_ns(), "the run stopped at the abend");
    sim.check_invariants().expect("invariants");
}

#[test]
fn large_memory_scenarios_are_full_scale() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/large-memory");
    let mut n = 0;
    for level in ["52", "53"] {
        for guests in 5..=10u64 {
            let path = format!("{dir}/zvm{level}-{guests}guests.toml");
            let text = std::fs::read_to_string(&path).expect("scenario file");
            let (s, _) = scenario::parse(&text, &path, &[]).expect("valid scenario");
            assert_eq!(s.lpar.central.pages(), 20_971_520);
            let pages: u64 = s
                .guest_instances()
                .iter()
                .map(|g| s.guests[g.spec_index].storage.pages())
                .sum();
            assert_eq!(pages, guests * 4_194_304);
            assert_eq!(s.paging_slots(), 37_256_192);
            n += 1;
        }
    }
    assert_eq!(n, 12);
}

/// SMALL with guests whose shared memory does not fit beside the kernel: Linux must swap.
#[test]
fn drift_tolerance_is_validated_and_the_steady_state_check_reaches_the_summary() {
    for bad in ["0", "1", "-0.1", "1.5"] {
        let e = scenario::parse(SMALL, "t.toml", &[format!("run.drift_tolerance={bad}")])
            .err()
            .expect("rejected");
        assert_eq!(e.field, "run.drift_tolerance", "{bad}");
    }
    let (s, _) = scenario::parse(SMALL, "t.toml", &[]).expect("ok");
    let (t, _) = scenario::parse(SMALL, "t.toml", &["run.drift_tolerance=0.1".into()]).expect("ok");
    assert_eq!(t.run.drift_tolerance, 0.1);
    // The default is left out of the hash, so existing scenarios keep theirs.
    let (d, _) =
        scenario::parse(SMALL, "t.toml", &["run.drift_tolerance=0.05".into()]).expect("ok");
    assert_eq!(s.hash(), d.hash());
    assert_ne!(s.hash(), t.hash());
    let sim = {
        let mut sim = Simulation::from_toml(
            SMALL,
            "t.toml",
            Some(1),
            &["run.drift_tolerance=0.1".into()],
        )
        .expect("valid");
        sim.run();
        sim
    };
    let ss = &sim.summary()["steady_state"];
    assert_eq!(ss["intervals"], 4);
    assert_eq!(ss["tolerance_pct"], 10.0);
    let figures = ss["figures"].as_array().expect("figures");
    assert!(figures.iter().any(|f| f["figure"] == "pages_dasd"));
    assert_eq!(
        ss["stationary"].as_bool().unwrap(),
        ss["drifting"].as_array().unwrap().is_empty()
    );
}
