//! Scenario files, located errors, determinism and storage invariants, through the public API.

use zvmsim_core::config::scenario::{self, ScenarioError};
use zvmsim_core::system::Simulation;

const SMALL: &str = r#"
[lpar]
ifls = 2
central = "256M"
expanded = "32M"
zvm_level = "5.3"

[paging]
volumes = [{ model = "3390-3", count = 2 }]

[run]
priming = "5s"
measure = "20s"
interval = "5s"
seed = 1

[[guests]]
name = "LNX%02d"
count = 3
storage = "128M"
vcpus = 2
workload = "db"
dasd = [{ use = "database", model = "3390-9", count = 2 }]
linux = { kernel = "8M", min_free = "2M" }

[workloads.db]
kind = "transactional"
users = 4
think_time = "2ms"

[workloads.db.database]
size = "400M"
cache = "48M"
shared_memory = "56M"
skew = 0.9

[[workloads.db.transactions]]
name = "a"
weight = 3
cpu = "1ms"
db_refs = 20
write_fraction = 0.3

[[workloads.db.transactions]]
name = "b"
weight = 1
cpu = "3ms"
db_refs = 50

[[console]]
at = "1s"
cp = "QUERY STORAGE"

[[console]]
at = "2s"
user = "LNX01"
linux = "free -m"
"#;

fn err(text: &str) -> ScenarioError {
    match scenario::parse(text, "t.toml", &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted a bad scenario"),
    }
}

fn with(find: &str, replace: &str) -> String {
    assert!(SMALL.contains(find), "fixture lacks {find}");
    SMALL.replacen(find, replace, 1)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}

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
fn swapping() -> String {
    with("shared_memory = \"56M\"", "shared_memory = \"118M\"")
        .replacen("cache = \"48M\"", "cache = \"110M\"", 1)
        .replacen(
            "dasd = [{ use = \"database\", model = \"3390-9\", count = 2 }]",
            "dasd = [{ use = \"database\", model = \"3390-9\", count = 2 }, { use = \"swap\", model = \"3390-3\" }]",
            1,
        )
        .replacen(
            "linux = { kernel = \"8M\", min_free = \"2M\" }",
            "linux = { kernel = \"8M\", min_free = \"2M\", swap = \"32M\" }",
            1,
        )
}

#[test]
fn undersized_guests_swap_with_major_faults_and_keep_invariants() {
    let text = swapping()
        + r#"
[[console]]
at = "3s"
user = "LNX02"
linux = "swapon -s"

[[console]]
at = "3s"
user = "LNX02"
linux = "sysctl -w vm.swappiness=10"

[[console]]
at = "3s"
user = "LNX02"
linux = "sysctl vm.swappiness"

[[console]]
at = "20s"
user = "LNX02"
linux = "cat /proc/meminfo"
"#;
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    for k in 1..=25 {
        sim.step_until(k * 1_000_000_000);
        sim.check_invariants()
            .expect("Linux and CP invariants hold at every step");
    }
    let s = sim.summary();
    let majflt = s["guest_pgmajfault"].as_u64().unwrap();
    assert!(majflt > 100, "major faults {majflt}");
    // Readahead (vm.page-cluster 3) reads more pages than faults.
    assert!(s["guest_pswpin"].as_u64().unwrap() > majflt);
    assert!(s["guest_pswpout"].as_u64().unwrap() > 100);
    assert!(s["guest_swap_used_pages"].as_u64().unwrap() > 0);
    assert!(s["wait_swap_in_ms_per_tx"].as_f64().unwrap() > 0.0);
    let console = sim.console();
    let out = |i: usize| console[i]["response"].as_array().unwrap().clone();
    // The third guest's swap minidisk is its third volume: /dev/dasdc1.
    assert!(out(2)[0].as_str().unwrap().starts_with("Filename"));
    assert!(out(2)[1].as_str().unwrap().starts_with("/dev/dasdc1"));
    assert_eq!(out(3)[0], "vm.swappiness = 10");
    assert_eq!(out(4)[0], "vm.swappiness = 10");
    // Pages read back from swap keep their copy while unchanged: the swap cache.
    let cached = out(5)
        .iter()
        .find_map(|l| {
            l.as_str()
                .unwrap()
                .strip_prefix("SwapCached:")
                .map(str::to_string)
        })
        .expect("SwapCached line");
    let kb: u64 = cached.trim().trim_end_matches("kB").trim().parse().unwrap();
    assert!(kb > 0, "SwapCached {kb} kB");
    // A sysctl Linux rejects is a located scenario error with sysctl's message.
    let bad = text.replacen("vm.swappiness=10", "vm.swappiness=250", 1);
    let e = err(&bad);
    assert_eq!(e.field, "console[3].linux");
    assert!(e.detail.contains("Invalid argument"), "{e}");
}

#[test]
fn swappiness_zero_keeps_shared_memory_in_storage() {
    let run = |swappiness: &str| {
        let o = [format!("guests[0].linux.swappiness={swappiness}")];
        let mut sim = Simulation::from_toml(&swapping(), "t.toml", None, &o).expect("valid");
        sim.run();
        sim.check_invariants().expect("invariants");
        sim.summary()
    };
    let (s60, s0) = (run("60"), run("0"));
    let out = |s: &serde_json::Map<String, serde_json::Value>| s["guest_pswpout"].as_u64().unwrap();
    assert!(
        out(&s0) * 4 < out(&s60),
        "swappiness 0: {} vs 60: {}",
        out(&s0),
        out(&s60)
    );
}

#[test]
fn swap_configuration_errors_are_located() {
    // Swap without a swap volume.
    let e = err(&with(
        "linux = { kernel = \"8M\", min_free = \"2M\" }",
        "linux = { kernel = \"8M\", min_free = \"2M\", swap = \"32M\" }",
    ));
    assert_eq!(e.field, "guests[0].linux.swap");
    assert!(e.detail.contains("use = \"swap\""), "{e}");
    // Shared memory beyond storage and swap: Linux would run out of memory.
    let e = err(&swapping().replacen("swap = \"32M\"", "swap = \"1M\"", 1));
    assert_eq!(e.field, "workloads.db.database.shared_memory");
    assert!(e.detail.contains("run out of memory"), "{e}");
    // Swap larger than its volume.
    let e = err(&swapping().replacen("swap = \"32M\"", "swap = \"3G\"", 1));
    assert_eq!(e.field, "guests[0].linux.swap");
    assert!(e.detail.contains("does not fit"), "{e}");
    let e = err(&with(
        "linux = { kernel = \"8M\", min_free = \"2M\" }",
        "linux = { kernel = \"8M\", min_free = \"2M\", swappiness = 101 }",
    ));
    assert_eq!(e.field, "guests[0].linux.swappiness");
    assert_eq!(e.line, line_of(SMALL, "linux = {"));
}

#[test]
fn shared_memory_larger_than_the_pool_starts_partly_on_swap() {
    // 124M of shared memory in a 128M guest with an 8M kernel: some anonymous pages have no
    // pool page of their own number and are placed in the pool's holes.
    let text = swapping().replacen("shared_memory = \"118M\"", "shared_memory = \"124M\"", 1);
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    sim.check_invariants()
        .expect("invariants at the warm start");
    for k in 1..=10 {
        sim.step_until(k * 1_000_000_000);
        sim.check_invariants().expect("invariants");
    }
    assert!(sim.summary()["guest_swap_used_pages"].as_u64().unwrap() > 0);
}

/// The shipped example: Linux guests too small for their shared memory swap, and a lower
/// vm.swappiness (dropping page cache instead) or a larger guest restores throughput.
#[test]
fn shipped_swap_example_shows_the_cost_of_linux_swapping() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/linux-swap/undersized-guests.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario file");
    let run = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|x| x.to_string()).collect();
        let mut sim = Simulation::from_toml(&text, path, None, &o).expect("valid");
        sim.run();
        sim.check_invariants().expect("invariants");
        sim.summary()
    };
    let f = |s: &serde_json::Map<String, serde_json::Value>, k: &str| s[k].as_f64().unwrap();
    let swapping = run(&[]);
    let calm = run(&["guests[0].linux.swappiness=0"]);
    let big = run(&["guests[0].storage=1280M"]);
    assert!(f(&swapping, "guest_pgmajfault") > 1000.0);
    assert!(f(&swapping, "wait_swap_in_ms_per_tx") > f(&swapping, "cpu_ms_per_tx"));
    assert_eq!(f(&big, "guest_pgmajfault"), 0.0);
    for better in [&calm, &big] {
        assert!(f(better, "throughput_tx_per_s") > 2.0 * f(&swapping, "throughput_tx_per_s"));
    }
}

#[test]
fn swap_readahead_reads_clusters() {
    let run = |cluster: &str| {
        let o = [format!("guests[0].linux.page_cluster={cluster}")];
        let mut sim = Simulation::from_toml(&swapping(), "t.toml", None, &o).expect("valid");
        for k in 1..=25 {
            sim.step_until(k * 1_000_000_000);
            sim.check_invariants().expect("invariants");
        }
        let s = sim.summary();
        let f = |k: &str| s[k].as_u64().unwrap();
        (f("guest_pgmajfault"), f("guest_pswpin"))
    };
    let (fault0, in0) = run("0");
    assert_eq!(
        fault0, in0,
        "without readahead every page read is a major fault"
    );
    let (fault3, in3) = run("3");
    assert!(
        in3 > 2 * fault3,
        "clusters of up to 8 pages: {in3} pages for {fault3} faults"
    );
    assert!(
        fault3 < fault0,
        "readahead saves major faults: {fault3} vs {fault0}"
    );
    let e = err(&with(
        "linux = { kernel = \"8M\", min_free = \"2M\" }",
        "linux = { kernel = \"8M\", min_free = \"2M\", page_cluster = 9 }",
    ));
    assert_eq!(e.field, "guests[0].linux.page_cluster");
}

/// Linux swapping in guests that z/VM also overcommits: some pages Linux writes to swap are
/// ones CP had paged out, and CP must bring them back for the write (double paging).
#[test]
fn linux_swap_under_zvm_overcommitment_double_pages() {
    let o = [
        "run.measure=300s".to_string(),
        "run.interval=60s".to_string(),
    ];
    let mut sim = Simulation::from_toml(&swapping(), "t.toml", None, &o).expect("valid");
    sim.run();
    sim.check_invariants().expect("invariants");
    let s = sim.summary();
    assert!(s["planned_overcommit_pct"].as_f64().unwrap() > 40.0);
    let (double, out) = (
        s["guest_double_paging"].as_u64().unwrap(),
        s["guest_pswpout"].as_u64().unwrap(),
    );
    assert!(
        double > 0 && double <= out,
        "double paging {double} of {out} swap-outs"
    );
}

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
