//! The staged DASD path under the seed-003 scenarios: invariants hold during a run, aliases
//! raise throughput, and the run is fast enough.

use std::path::PathBuf;

use zvmsim_core::Simulation;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sim(file: &str, extra: &[&str]) -> Simulation {
    let path = root().join("scenarios").join(file);
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let ovr: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    Simulation::from_toml(&text, file, Some(1), &ovr).expect("valid scenario")
}

fn aliases(n: u32) -> String {
    if n == 0 {
        "console[1].cp=\"QUERY PAV\"".into()
    } else {
        format!(
            "console[1].cp=\"ATTACH B9E0-{:04X} TO LNXF01\"",
            0xB9E0 + n - 1
        )
    }
}

fn mb_s(s: &Simulation) -> f64 {
    s.summary()["dasd_mb_per_s"].as_f64().unwrap()
}

#[test]
fn invariants_hold_while_requests_run_on_base_and_aliases() {
    let a = aliases(10);
    let mut s = sim(
        "hyperpav/attached-1job.toml",
        &[&a, "run.priming=5s", "run.measure=5s", "run.interval=5s"],
    );
    let end = s.end_ns();
    let mut t = 0;
    while t < end {
        t += 50_000_000;
        s.step_until(t);
        s.check_io().unwrap();
    }
    let sum = s.summary();
    assert!(sum["alias_io_pct"].as_f64().unwrap() > 10.0, "{sum:?}");
}

#[test]
fn aliases_raise_throughput_of_one_job() {
    let mut none = sim(
        "hyperpav/attached-1job.toml",
        &[
            &aliases(0),
            "run.priming=5s",
            "run.measure=5s",
            "run.interval=5s",
        ],
    );
    none.run();
    let mut five = sim(
        "hyperpav/attached-1job.toml",
        &[
            &aliases(5),
            "run.priming=5s",
            "run.measure=5s",
            "run.interval=5s",
        ],
    );
    five.run();
    let (a, b) = (mb_s(&none), mb_s(&five));
    assert!(b > 2.0 * a, "0 aliases {a:.0} MB/s, 5 aliases {b:.0} MB/s");
    assert_eq!(none.summary()["alias_io_pct"].as_f64().unwrap(), 0.0);
}

/// Throughput per guest CPU second of a short run of `file` with `n` aliases and SMT `smt`.
fn mb_per_cpu(file: &str, n: u32, smt: &str) -> f64 {
    let a = aliases(n);
    let mut s = sim(
        file,
        &[
            &a,
            smt,
            "run.priming=2s",
            "run.measure=3s",
            "run.interval=3s",
        ],
    );
    s.run();
    s.summary()["mb_per_cpu_s"].as_f64().unwrap()
}

#[test]
fn smt_makes_concurrent_io_dearer_per_mb() {
    // Four jobs, 20 aliases: many virtual CPUs run at once, so siblings share cores and each
    // path takes longer; with 0 aliases one subchannel serializes them and SMT costs little.
    let f = "hyperpav/attached-4jobs.toml";
    let busy = mb_per_cpu(f, 20, "lpar.smt=2") / mb_per_cpu(f, 20, "lpar.smt=1");
    let calm = mb_per_cpu(f, 0, "lpar.smt=2") / mb_per_cpu(f, 0, "lpar.smt=1");
    assert!(
        busy < 0.85,
        "20 aliases: SMT-2 / SMT-1 throughput per CPU {busy:.3}"
    );
    assert!(
        calm > 0.97,
        "0 aliases: SMT-2 / SMT-1 throughput per CPU {calm:.3}"
    );
}

#[test]
#[ignore]
#[allow(clippy::print_stdout)]
fn speed_five_minutes_four_jobs_twenty_aliases() {
    let mut s = sim(
        "hyperpav/attached-1job.toml",
        &[
            &aliases(20),
            "workloads.fio.fio.jobs=4",
            "run.priming=0s",
            "run.measure=300s",
            "run.interval=60s",
        ],
    );
    let t0 = std::time::Instant::now();
    s.run();
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "5 min, 4 jobs, 20 aliases: {:.1} s wall, {} events, {:.2} M events/s, {:.0} MB/s",
        wall,
        s.events(),
        s.events() as f64 / wall / 1e6,
        mb_s(&s)
    );
    assert!(wall < 30.0);
}

#[test]
fn invariants_hold_with_virtual_aliases_on_cp_owned_real_aliases() {
    // Four jobs on a full-pack minidisk with 10 virtual aliases: CP runs the guest's I/O on
    // the base or on an idle real alias of the base's LCU that SYSTEM owns.
    let stmts: Vec<String> = std::iter::once("\"MDISK 0200 3390 DEVNO B9D5 MR\"".to_string())
        .chain((0..10).map(|k| {
            format!(
                "\"COMMAND DEFINE HYPERPAVALIAS {:04X} FOR BASE 0200\"",
                0x201 + k
            )
        }))
        .collect();
    let dir = format!("guests[0].directory=[{}]", stmts.join(","));
    let mut s = sim(
        "hyperpav/minidisk-4jobs.toml",
        &[
            "console[1].cp=\"ATTACH B9E0-B9E9 TO SYSTEM\"",
            &dir,
            "run.priming=5s",
            "run.measure=3s",
            "run.interval=3s",
        ],
    );
    let end = s.end_ns();
    let mut t = 0;
    while t < end {
        t += 25_000_000;
        s.step_until(t);
        s.check_io().unwrap();
    }
    let sum = s.summary();
    assert!(sum["alias_io_pct"].as_f64().unwrap() > 50.0, "{sum:?}");
    // fio's files were laid out before the run: every read is a cache hit.
    assert_eq!(sum["read_hit_pct"].as_f64().unwrap(), 100.0, "{sum:?}");
}
