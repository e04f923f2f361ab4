//! The real-I/O invariants (one channel program per subchannel, aliases serving only their
//! own LCU's bases, every request active or queued once, requests and pages conserved) under
//! seed 004's workloads, which tests/hyperpav.rs does not run: iozone over PAV paths, FCP
//! LUNs behind four CHPIDs, dbench.

use std::path::PathBuf;

use zvmsim_core::Simulation;

fn sim(file: &str, extra: &[&str]) -> Simulation {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let ovr: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    Simulation::from_toml(&text, file, Some(1), &ovr).expect("valid scenario")
}

/// Steps `s` to its end, checking the I/O invariants every `every_ms` of simulated time, and
/// returns the summary figure `busy`, which must show that I/O ran.
fn checked(mut s: Simulation, every_ms: u64, busy: &str) -> f64 {
    let end = s.end_ns();
    let mut t = 0;
    while t < end {
        t += every_ms * 1_000_000;
        s.step_until(t);
        s.check_io().unwrap();
    }
    let sum = s.summary();
    sum.get(busy)
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("{busy} missing: {sum:?}"))
}

#[test]
fn invariants_hold_under_iozone_over_pav_paths() {
    let s = sim(
        "disk-io/pav-iozone.toml",
        &["run.priming=1s", "run.measure=20s", "run.interval=10s"],
    );
    let mb = checked(s, 100, "iozone_write_mb_s");
    assert!(mb > 1.0, "iozone wrote {mb} MB/s");
}

#[test]
fn invariants_hold_under_iozone_on_fcp_luns() {
    let s = sim(
        "disk-io/fcp-four-chpids.toml",
        &["run.priming=1s", "run.measure=20s", "run.interval=10s"],
    );
    let mb = checked(s, 100, "dasd_mb_per_s");
    assert!(mb > 1.0, "FCP moved {mb} MB/s");
}

#[test]
fn invariants_hold_under_dbench() {
    let s = sim("disk-io/dbench-4pu.toml", &[]);
    let mb = checked(s, 20, "dbench_mb_s");
    assert!(mb > 1.0, "dbench moved {mb} MB/s");
}
