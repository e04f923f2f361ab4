//! The DASD block tasklet (`linux/dasdblock.rs`) in a running guest: the seed-003 guest's
//! kernel (4.18) passes every request through its volume's tasklet to start and to end, frees
//! a request's channel program there (the alias choice's counts), and the one tasklet per
//! volume costs CPU and throughput once many requests are in flight.

use super::Simulation;

/// Two fio jobs (16 processes) on the attached volume with 20 aliases, `release` the guest's
/// kernel: (simulation, MB/s, MB per CPU-second).
fn run(release: &str) -> (Simulation, f64, f64) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/hyperpav/attached-2jobs.toml");
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let ovr = [
        "console[1].cp=\"ATTACH B9E0-B9F3 TO LNXF01\"".to_string(),
        format!("guests[0].linux.release=\"{release}\""),
        "run.priming=\"500ms\"".to_string(),
        "run.measure=\"1s\"".to_string(),
        "run.interval=\"1s\"".to_string(),
    ];
    let mut s = Simulation::from_toml(&text, "attached-2jobs.toml", Some(1), &ovr).expect("valid");
    let mut t = 0;
    while t < s.end_ns() {
        t += 5_000_000;
        s.step_until(t);
        // Counts include the requests that ended on their subchannel and wait for the
        // tasklet to free them (check_io: count = queued + running + ending).
        s.check_io().unwrap();
    }
    let dasd = s.summary_typed().dasd.expect("dasd summary");
    (s, dasd.dasd_mb_per_s, dasd.mb_per_cpu_s)
}

#[test]
fn every_request_passes_the_volume_tasklet_which_costs_throughput_and_cpu_under_load() {
    let (s, mb, per_cpu) = run("4.18.0-147.el8.s390x");
    let g = &s.m.guests[0];
    let base = g.dasd.by_vdev(0xB9D5).expect("base online") as usize;
    let tk = g.dasd.devs[base].tasklet;
    let ios = g.total.tx + g.ipl.tx;
    // Two passes' work per request (start and end), batched: fewer passes than that.
    assert!(
        tk.passes > 0 && tk.passes < 2 * ios + 100,
        "{} passes, {ios} I/Os",
        tk.passes
    );
    assert!(
        tk.spin_ns > 0,
        "16 requests in flight: CPUs wait for the tasklet"
    );
    // Aliases have no block device: no tasklet of their own ran.
    assert!(g
        .dasd
        .devs
        .iter()
        .enumerate()
        .all(|(i, d)| i == base || d.tasklet.passes == 0));
    // A kernel before 2.6.25 has no dasd_block (and no blk-mq request limit).
    let (s0, mb0, per_cpu0) = run("2.6.16");
    assert_eq!(s0.m.guests[0].dasd.devs[base].tasklet.passes, 0);
    assert!(
        mb < mb0 * 0.95,
        "{mb} vs {mb0} MB/s: the tasklet serializes the volume"
    );
    assert!(
        per_cpu < per_cpu0 * 0.9,
        "{per_cpu} vs {per_cpu0} MB per CPU-second"
    );
}
