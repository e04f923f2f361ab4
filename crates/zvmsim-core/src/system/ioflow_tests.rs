//! End-to-end I/O conservation (`ioflow.rs`, `io/check.rs`, `linux/dasdflow.rs`) in a running
//! system: two guests read minidisks through CP's minidisk cache (hits answered by CP, misses
//! read whole tracks), and the check catches a request lost, doubled, misrouted or miscounted at
//! any stage.

use super::mdisk_tests::DIR;
use super::Simulation;
use crate::io::Origin;
use crate::linux::dasd::DevPath;
use crate::workload::Workload;

fn run_to(ms: u64) -> Simulation {
    let mut s = Simulation::from_toml(DIR, "t.toml", None, &[]).expect("valid scenario");
    let mut t = 0;
    while t < ms * 1_000_000 {
        t += 5_000_000;
        s.step_until(t);
        s.check_io().unwrap_or_else(|e| panic!("at {t} ns: {e}"));
    }
    s
}

#[test]
fn bytes_are_conserved_through_the_minidisk_cache() {
    let s = run_to(2_000);
    let st = s.m.mdc.stats;
    assert!(st.hits > 100 && st.reads > st.hits, "{st:?}");
    for g in &s.m.guests {
        let f = g.dasd.flow;
        assert!(f.delivered.reqs > 1_000, "{}: {f:?}", g.name);
        assert_eq!(
            f.delivered.bytes,
            f.delivered.reqs * 4096,
            "4 KB reads only"
        );
    }
    // CP read whole tracks on a miss: the real stage moved other bytes than the guests asked
    // for, so each stage has to balance on its own.
    let real = s.m.io.typed.completed[6];
    let asked: u64 = s.m.guests.iter().map(|g| g.dasd.flow.ended.bytes).sum();
    assert!(real.reqs > 0 && real.bytes != asked, "{real:?} vs {asked}");
}

/// Corrupts one stage's count or state with `bad`, expects the check to name it (`what`),
/// then undoes it with `undo` and expects the check to pass again.
fn caught(
    s: &mut Simulation,
    what: &str,
    bad: impl Fn(&mut Simulation),
    undo: impl Fn(&mut Simulation),
) {
    bad(s);
    let e = s.check_io().expect_err(what);
    assert!(e.contains(what), "{what}: {e}");
    undo(s);
    s.check_io().unwrap();
}

#[test]
fn a_request_lost_doubled_misrouted_or_miscounted_is_caught() {
    let mut s = run_to(500);
    caught(
        &mut s,
        "ended - ending",
        |s| s.m.guests[0].dasd.flow.delivered.bytes += 4096,
        |s| s.m.guests[0].dasd.flow.delivered.bytes -= 4096,
    );
    caught(
        &mut s,
        "entered - held",
        |s| s.m.guests[1].dasd.flow.entered.reqs += 1,
        |s| s.m.guests[1].dasd.flow.entered.reqs -= 1,
    );
    caught(
        &mut s,
        "guest DASD: submitted",
        |s| s.m.io.typed.completed[6].bytes += 4096,
        |s| s.m.io.typed.completed[6].bytes -= 4096,
    );
    caught(
        &mut s,
        "guest DASD: started",
        |s| s.m.io.typed.started[6].bytes += 4096,
        |s| s.m.io.typed.started[6].bytes -= 4096,
    );
    caught(
        &mut s,
        "server",
        |s| s.m.io.server_stats_mut().read_bytes += 4096,
        |s| s.m.io.server_stats_mut().read_bytes -= 4096,
    );
    let bump = |s: &mut Simulation, by: i64| {
        if let Workload::Fio(f) = &mut s.workloads[0] {
            f.reaped = (f.reaped as i64 + by) as u64;
        }
    };
    caught(&mut s, "workload issued", |s| bump(s, 1), |s| bump(s, -1));
    // A request in flight in CP or real I/O completing twice (a second MDC hit with its
    // origin).
    let dasd = |s: &Simulation| {
        let real = s.m.io.in_flight_requests().into_iter().map(|r| r.origin);
        let hits = s.m.mdc_hits.live();
        real.chain(hits).find(|o| matches!(o, Origin::Dasd { .. }))
    };
    let mut t = 500_000_000;
    while dasd(&s).is_none() && t < 600_000_000 {
        t += 10_000;
        s.step_until(t);
    }
    let o = dasd(&s).expect("a guest request in CP or real I/O");
    // Its device taken for a dedicated one: CP's handling no longer fits the path.
    let Origin::Dasd { guest, req } = o else {
        unreachable!()
    };
    let dev = s.m.guests[guest as usize].dasd.req(req).dev as usize;
    let path = s.m.guests[guest as usize].dasd.devs[dev].path;
    s.m.guests[guest as usize].dasd.devs[dev].path = DevPath::Dedicated { sub: 0 };
    let e = s.check_io().expect_err("misrouted");
    assert!(e.contains("runs on"), "{e}");
    s.m.guests[guest as usize].dasd.devs[dev].path = path;
    s.check_io().unwrap();
    let slot = s.m.mdc_hits.put(o);
    let e = s.check_io().expect_err("doubled");
    assert!(e.contains("in flight twice"), "{e}");
    s.m.mdc_hits.take(slot);
    s.check_io().unwrap();
}
