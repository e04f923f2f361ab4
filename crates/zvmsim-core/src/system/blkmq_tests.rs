//! The DASD driver's per-device request limit with blk-mq holding what it refuses
//! (`[guests.linux] dasd_request_limit`, `linux/blkmq.rs`), in a running guest: one fio job
//! (8 processes, iodepth 1) on a volume without aliases keeps 4 requests built and 4 held, and
//! every completion reruns the queues; from one alias on, 8 requests fit.

use super::Simulation;

fn run(aliases: u32, limit: u32) -> (Simulation, f64, f64) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/hyperpav/attached-1job.toml");
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let cmd = if aliases == 0 {
        "QUERY PAV".to_string()
    } else {
        format!("ATTACH B9E0-{:04X} TO LNXF01", 0xB9E0 + aliases - 1)
    };
    let ovr = [
        format!("console[1].cp=\"{cmd}\""),
        format!("guests[0].linux.dasd_request_limit={limit}"),
        "run.priming=\"500ms\"".to_string(),
        "run.measure=\"1s\"".to_string(),
        "run.interval=\"1s\"".to_string(),
    ];
    let mut s = Simulation::from_toml(&text, "attached-1job.toml", Some(1), &ovr).expect("valid");
    let mut t = 0;
    while t < s.end_ns() {
        t += 5_000_000;
        s.step_until(t);
        s.check_io().unwrap();
        let d = &s.m.guests[0].dasd;
        for dev in &d.devs {
            assert!(
                limit == 0 || dev.count <= limit,
                "a device built more than the limit"
            );
        }
        // 8 processes with one I/O each: what is not built is held.
        assert!(d.in_flight + d.mq.held() as u32 <= 8);
    }
    let sum = s.summary_typed();
    let dasd = sum.dasd.expect("dasd summary");
    (s, dasd.dasd_mb_per_s, dasd.mb_per_cpu_s)
}

#[test]
fn without_aliases_four_are_built_and_each_completion_reruns_the_queues() {
    let (s, mb, per_cpu) = run(0, 4);
    let d = &s.m.guests[0].dasd;
    assert!(d.mq.refused > 0 && d.mq.runs > 0);
    // A run per completion at least (the volume's one subchannel finishes one at a time).
    let ios = s.m.guests[0].total.tx;
    assert!(d.mq.runs >= ios, "{} runs for {ios} I/Os", d.mq.runs);
    let (_, mb0, per_cpu0) = run(0, 0);
    // The subchannel stays busy either way (4 built: one runs, three queue on it) ...
    assert!((mb / mb0 - 1.0).abs() < 0.01, "{mb} vs {mb0} MB/s");
    // ... but the retries cost CPU.
    assert!(
        per_cpu < per_cpu0 * 0.9,
        "{per_cpu} vs {per_cpu0} MB per CPU-second"
    );
}

#[test]
fn with_an_alias_eight_requests_fit_and_refusals_are_rare() {
    let (s, _, _) = run(1, 4);
    let d = &s.m.guests[0].dasd;
    let ios = s.m.guests[0].total.tx;
    assert!(ios > 1000);
    assert!(d.mq.runs * 20 < ios, "{} runs for {ios} I/Os", d.mq.runs);
}
