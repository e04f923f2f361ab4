//! Linux swap inside guests under z/VM: major faults, readahead, swappiness, double paging, and
//! the swap configuration's located errors.

mod common;

use common::{err, line_of, swapping, with, SMALL};
use zvmsim_core::system::Simulation;

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
