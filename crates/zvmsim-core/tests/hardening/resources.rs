//! The memory estimate of a run (config/resources.rs): it grows with the fields that size the
//! model's arrays, and a run over its limit is refused at the field that drives it most.

use zvmsim_core::config::resources::{check, estimate, BASE_BYTES};
use zvmsim_core::config::scenario::parse;
use zvmsim_core::config::units::Size;

const QUICKSTART: &str = include_str!("../../../../scenarios/quickstart.toml");

fn with(sets: &[&str]) -> zvmsim_core::config::scenario::Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(QUICKSTART, "quickstart.toml", &sets)
        .expect("valid")
        .0
}

#[test]
fn the_estimate_grows_with_what_sizes_the_arrays() {
    let base = estimate(&with(&[])).bytes;
    assert!(base > BASE_BYTES);
    // Twice the guests, the paging space alike: about twice the guest part.
    let same = estimate(&with(&["paging.slots=5000000"])).bytes;
    let more = estimate(&with(&["guests[0].count=8", "paging.slots=5000000"])).bytes;
    assert!(more > same + (same - BASE_BYTES) / 3, "{same} -> {more}");
    // Ten times the intervals: the rows grow.
    let rows = estimate(&with(&["run.measure=3600s", "run.interval=1s"]));
    assert!(rows.bytes > base, "{} vs {base}", rows.bytes);
    assert!(rows.drivers.iter().any(|d| d.0 == "run.interval"));
    // The database's size sizes nothing once the page cache cannot hold it all: its maps are
    // sized by the buffers and by what the page cache can hold (issue 14).
    let db = estimate(&with(&["workloads.oltp.database.size=7G"])).bytes;
    assert_eq!(db, base);
    let small = estimate(&with(&[
        "workloads.oltp.database.size=600M",
        "workloads.oltp.database.cache=300M",
    ]));
    assert!(small.bytes < base, "{} vs {base}", small.bytes);
}

#[test]
fn a_run_over_its_limit_names_the_memory_and_the_fields() {
    let sets = vec![
        "guests[0].count=99".to_string(),
        "paging.slots=50000000".to_string(),
    ];
    let (sc, src) = parse(QUICKSTART, "q.toml", &sets).expect("valid");
    let e = check(&sc, &src, Size(1 << 30), "--max-memory").unwrap_err();
    let msg = e.to_string();
    // The largest driver: 99 guests' storage (CP's tables and Linux's pools; the XSTOR block
    // in the page word, a bit per pool page for the referenced flag and one for buffer heads,
    // no free-list entries for pages never used). The databases' maps are tables sized by the
    // buffers and by what the page cache can hold, not by the blocks, since issue 14: below
    // paging slots and shared memory.
    assert_eq!(e.field, "guests[0].storage", "{msg}");
    assert_eq!((e.file.as_str(), e.line), ("q.toml", 29), "{msg}");
    // Paging slots cost 5 bytes each since the slot table is zeroed memory written only for
    // slots handed out (issue 14): 239M for 50 M slots, where 6 bytes gave 287M.
    assert!(msg.contains("this run would need about 1351M"), "{msg}");
    assert!(msg.contains("more than --max-memory (1G)"), "{msg}");
    assert!(
        msg.contains("it is driven by guests[0].storage 486M, paging.slots 239M, workloads.oltp.database.shared_memory 221M"),
        "{msg}"
    );
    // Under the limit: the estimate comes back.
    let ok = check(&sc, &src, Size(1 << 40), "--max-memory").expect("fits");
    assert!(ok.bytes > 1 << 30);
}

#[test]
fn the_event_bound_scales_with_the_run_and_refuses_a_week_of_the_quickstart() {
    // The quickstart over 90 s (its window before it was primed for 40 minutes) runs about
    // 0.4 million events: the bound is above, not wildly.
    let window = |measure: &'static str| {
        [
            "run.priming=30s",
            measure,
            "run.interval=10s",
            "console[1].at=85s",
            "console[2].at=85s",
            "console[3].at=85s",
        ]
    };
    let short = zvmsim_core::config::resources::estimate_events(&with(&window("run.measure=60s")));
    assert!((400_000..20_000_000).contains(&short), "{short}");
    let long = zvmsim_core::config::resources::estimate_events(&with(&window("run.measure=600s")));
    assert!(long > 5 * short, "{short} -> {long}");
    let sets = vec!["run.measure=160h".to_string()];
    let (sc, src) = parse(QUICKSTART, "q.toml", &sets).expect("valid");
    let e = zvmsim_core::config::resources::check_events(&sc, &src).unwrap_err();
    let e = zvmsim_core::config::scenario::blame_override(e, &sets);
    assert_eq!(e.field, "run.measure");
    assert!(e.file.starts_with("--set run.measure=160h"), "{e}");
    assert!(e.detail.contains("over zvmsim's bound of 1e10"), "{e}");
}

const HYPERPAV_4JOBS: &str = include_str!("../../../../scenarios/hyperpav/attached-4jobs.toml");

#[test]
fn an_fio_run_is_bounded_by_its_guests_cpu_per_io_so_five_minutes_pass_and_a_day_does_not() {
    let parse4 = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        parse(HYPERPAV_4JOBS, "attached-4jobs.toml", &sets).expect("valid")
    };
    // A 25-s run (the scenarios' window before their steady-state priming): 3.67 million
    // events measured (50,000 I/Os a second, 2.9 events each). The bound (8 virtual CPUs /
    // 22 us per I/O, 4 events each, and the time slices) is above it, not wildly: the 1-us
    // floor of CPU per transaction it replaces planned 1.6e9.
    let (sc, _) = parse4(&["run.priming=5s", "run.measure=20s"]);
    let planned = zvmsim_core::config::resources::estimate_events(&sc);
    assert!((3_670_000..50_000_000).contains(&planned), "{planned}");
    // Issue 10's speed case: 5 minutes measured (305 s in all) is accepted...
    let (sc, src) = parse4(&["run.priming=5s", "run.measure=300s"]);
    let five = zvmsim_core::config::resources::check_events(&sc, &src).expect("accepted");
    assert!(five > 12 * planned, "{planned} -> {five}");
    // ...and a day of it is still refused at run.measure.
    let (sc, src) = parse4(&["run.measure=24h"]);
    let e = zvmsim_core::config::resources::check_events(&sc, &src).unwrap_err();
    assert_eq!(e.field, "run.measure", "{e}");
}

const DBENCH_4PU: &str = include_str!("../../../../scenarios/disk-io/dbench-4pu.toml");

/// dbench's clients run operations back to back, each at least its `cost.per_op` of CPU: the
/// seed's 12-s run is accepted, and one of 1-ns operations (a billion a second on each
/// processor) is refused rather than run for hours.
#[test]
fn a_dbench_run_is_bounded_by_its_cpu_per_operation() {
    let sets = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (sc, src) = parse(DBENCH_4PU, "dbench-4pu.toml", &sets(&[])).expect("valid");
    let planned = zvmsim_core::config::resources::check_events(&sc, &src).expect("accepted");
    // The run takes 5.8 million events.
    assert!((5_800_000..100_000_000).contains(&planned), "{planned}");
    let tiny = sets(&["workloads.dbench.dbench.cost.per_op=\"1ns\""]);
    let (sc, src) = parse(DBENCH_4PU, "dbench-4pu.toml", &tiny).expect("valid");
    let e = zvmsim_core::config::resources::check_events(&sc, &src).unwrap_err();
    assert_eq!(e.field, "run.measure", "{e}");
}

const SCALE_4TB: &str = include_str!("../../../../scenarios/scale/4tb-1000x8g.toml");

/// Issue 14's 4 TB case: 100 busy and 900 idle guests of 8 GB. Idle guests that filled their
/// memory need every page word, frame and paging slot; idle guests that had used 2 GB each
/// leave most words unwritten and use fewer frames than the LPAR has, and the estimate falls
/// under this machine's 24 GB.
#[test]
fn idle_guests_cost_only_the_storage_they_had_used() {
    let gb = |used: Option<&str>| {
        let sets: Vec<String> = used
            .map(|u| vec![format!("guests[1].linux.used={u}")])
            .unwrap_or_default();
        let (sc, _) = parse(SCALE_4TB, "4tb-1000x8g.toml", &sets).expect("valid");
        estimate(&sc).bytes as f64 / (1u64 << 30) as f64
    };
    let all = gb(None);
    assert!((42.0..46.0).contains(&all), "{all}");
    assert_eq!(
        gb(Some("8G")),
        all,
        "used = all of its storage is the default"
    );
    let two = gb(Some("2G"));
    assert!(two < 24.0 && two > gb(Some("1G")), "{two}");
    // The frames are bounded by the pages used (100 x 8 GB + 900 x 2 GB of 4 TB).
    let (sc, _) = parse(SCALE_4TB, "t.toml", &["guests[1].linux.used=2G".into()]).expect("valid");
    let frames = estimate(&sc)
        .drivers
        .iter()
        .find(|d| d.0 == "lpar.central")
        .map(|d| d.1)
        .expect("frames");
    assert_eq!(frames, (100 * (8u64 << 18) + 900 * (2u64 << 18)) * 12);
}

const MEMSAVE_768M: &str = include_str!("../../../../scenarios/dcss/memsave-minidisk-768m.toml");

/// An application server's request costs its CPU and its page references: every shipped
/// scenario is accepted, and a request of 2^32 - 1 references (which planned no work before,
/// so the run never ended) is refused at the event bound.
#[test]
fn an_appserver_run_is_bounded_by_its_cpu_and_references_per_request() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("scenarios").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&p).expect("scenario");
                let name = p.display().to_string();
                let (sc, src) = parse(&text, &name, &[]).expect("valid");
                zvmsim_core::config::resources::check_events(&sc, &src)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    let huge = vec!["workloads.was.appserver.refs_per_request=4294967295".to_string()];
    let (sc, src) = parse(MEMSAVE_768M, "memsave-minidisk-768m.toml", &huge).expect("valid");
    let e = zvmsim_core::config::resources::check_events(&sc, &src).unwrap_err();
    assert_eq!(e.field, "run.measure", "{e}");
}
