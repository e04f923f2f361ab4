//! The I/O invariants (one channel program per subchannel, aliases serving only their own
//! LCU's bases, every request active or queued once; requests and bytes conserved at each
//! stage, per origin kind, and end to end from the workload through the DASD driver, CP and
//! real I/O back to it, each request completing once) under seed 004's workloads (iozone over
//! PAV paths, FCP LUNs behind four CHPIDs, dbench) and seed 003's busiest cases: four fio jobs
//! on 20 attached HyperPAV aliases, and on a minidisk with 20 virtual aliases.

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
/// returns the summary figures `keys`, which must show that I/O ran.
fn checked<const N: usize>(mut s: Simulation, every_ms: u64, keys: [&str; N]) -> [f64; N] {
    let end = s.end_ns();
    let mut t = 0;
    while t < end {
        t += every_ms * 1_000_000;
        s.step_until(t);
        s.check_io().unwrap_or_else(|e| panic!("at {t} ns: {e}"));
    }
    let sum = s.summary();
    keys.map(|k| {
        sum.get(k)
            .and_then(|v| v.as_f64())
            .unwrap_or_else(|| panic!("{k} missing: {sum:?}"))
    })
}

#[test]
fn invariants_hold_under_iozone_over_pav_paths() {
    let s = sim(
        "disk-io/pav-iozone.toml",
        &["run.priming=1s", "run.measure=20s", "run.interval=10s"],
    );
    let [mb] = checked(s, 100, ["iozone_write_mb_s"]);
    assert!(mb > 1.0, "iozone wrote {mb} MB/s");
}

#[test]
fn invariants_hold_under_iozone_on_fcp_luns() {
    let s = sim(
        "disk-io/fcp-four-chpids.toml",
        &["run.priming=1s", "run.measure=20s", "run.interval=10s"],
    );
    let [mb] = checked(s, 100, ["dasd_mb_per_s"]);
    assert!(mb > 1.0, "FCP moved {mb} MB/s");
}

#[test]
fn invariants_hold_under_dbench() {
    let s = sim("disk-io/dbench-4pu.toml", &[]);
    let [mb] = checked(s, 20, ["dbench_mb_s"]);
    assert!(mb > 1.0, "dbench moved {mb} MB/s");
}

#[test]
fn invariants_hold_under_four_jobs_on_twenty_attached_aliases() {
    // The file attaches B9E0-B9F3 to the guest.
    let s = sim(
        "hyperpav/attached-4jobs.toml",
        &["run.priming=1s", "run.measure=2s", "run.interval=2s"],
    );
    let [mb, alias] = checked(s, 10, ["dasd_mb_per_s", "alias_io_pct"]);
    assert!(
        mb > 100.0 && alias > 50.0,
        "{mb} MB/s, {alias} % on aliases"
    );
}

#[test]
fn invariants_hold_under_four_jobs_on_twenty_virtual_aliases() {
    // CP runs the guest's I/O on the base or on one of 20 real aliases SYSTEM owns.
    let stmts: Vec<String> = std::iter::once("\"MDISK 0200 3390 DEVNO B9D5 MR\"".to_string())
        .chain((0..20).map(|k| {
            format!(
                "\"COMMAND DEFINE HYPERPAVALIAS {:04X} FOR BASE 0200\"",
                0x201 + k
            )
        }))
        .collect();
    let dir = format!("guests[0].directory=[{}]", stmts.join(","));
    let s = sim(
        "hyperpav/minidisk-4jobs.toml",
        &[&dir, "run.priming=1s", "run.measure=2s", "run.interval=2s"],
    );
    let [mb, alias] = checked(s, 10, ["dasd_mb_per_s", "alias_io_pct"]);
    assert!(
        mb > 100.0 && alias > 50.0,
        "{mb} MB/s, {alias} % on aliases"
    );
}
