//! A guest's channel program starts when the burst of the virtual CPU that built it ends (its
//! io_submit's CPU, then CP's SSCH), never at the end of another virtual CPU's burst that
//! happened to end first.

use super::Simulation;

#[test]
fn a_channel_program_starts_after_the_cpu_that_built_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/hyperpav/attached-1job.toml");
    let text = std::fs::read_to_string(&path).expect("scenario file");
    // One fio job (8 processes on 8 virtual CPUs) and 10 aliases: bursts of several virtual
    // CPUs overlap all the time.
    let ovr = [
        "console[1].cp=\"ATTACH B9E0-B9E9 TO LNXF01\"".to_string(),
        "run.priming=\"1s\"".to_string(),
        "run.measure=\"1s\"".to_string(),
        "run.interval=\"1s\"".to_string(),
    ];
    let mut s = Simulation::from_toml(&text, "attached-1job.toml", Some(1), &ovr).expect("valid");
    // Linux's submit path builds a request before anything can start it: on an idle device
    // the SSCH comes at the end of its burst (fio's and Linux's CPU, then CP's), on a busy one
    // from the completion path of the request ahead of it.
    let min = s.m.io_cost.linux_submit.ns();
    assert!(min > 0);
    let (mut checked, mut t) = (0u64, 0u64);
    while t < s.end_ns() {
        t += 1_000_000;
        s.step_until(t);
        for g in &s.m.guests {
            for d in &g.dasd.devs {
                if d.active == crate::linux::dasd::NONE {
                    continue;
                }
                let r = g.dasd.req(d.active);
                if r.started_at == 0 {
                    continue; // built, its SSCH not yet issued
                }
                assert!(
                    r.started_at >= r.queued_at + min,
                    "SSCH {} ns after its request was built (at least {min})",
                    r.started_at - r.queued_at
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} requests checked");
}
