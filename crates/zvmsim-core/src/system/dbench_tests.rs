//! The dbench workload on seed 004's scenarios: scaling with clients and processors, what the
//! page cache holds for the clients' files, the kernel lock's cap, and located option errors.

use super::Simulation;

fn text(pus: u32) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../scenarios/disk-io/dbench-{pus}pu.toml"));
    std::fs::read_to_string(path).expect("scenario file")
}

/// A finished run of `pus` processors and `clients` clients with `more` overrides.
fn run(pus: u32, clients: u32, more: &[&str]) -> Simulation {
    let mut ov = vec![format!("workloads.dbench.dbench.clients={clients}")];
    ov.extend(more.iter().map(|s| s.to_string()));
    let mut s = Simulation::from_toml(&text(pus), "dbench.toml", Some(1), &ov).expect("valid");
    s.run();
    s
}

fn mb_s(s: &Simulation) -> f64 {
    s.summary_typed()
        .dbench
        .expect("dbench figures")
        .dbench_mb_s
}

/// On 4 processors, 4 clients do nearly 4 times what one does (the lock waits are small),
/// and 8 clients no more than 4: the processors are busy.
#[test]
fn clients_scale_up_to_the_processors() {
    let one = mb_s(&run(4, 1, &[]));
    let four = run(4, 4, &[]);
    let eight = mb_s(&run(4, 8, &[]));
    let f = mb_s(&four);
    assert!(
        f > 3.5 * one && f < 4.0 * one,
        "1 client {one:.0}, 4 clients {f:.0} MB/s"
    );
    assert!(
        (eight / f - 1.0).abs() < 0.03,
        "4 clients {f:.0}, 8 {eight:.0}"
    );
    let busy = four.summary_typed().means.cpu_guests_pct;
    assert!(
        busy > 395.0,
        "4 clients keep 4 processors busy: {busy:.1} %"
    );
}

/// The page cache holds exactly the pages of the clients' files (written pages stay until
/// their file is deleted; nothing is reclaimed), and the bytes dbench counts are bytes the
/// clients read and wrote.
#[test]
fn the_page_cache_holds_the_files() {
    let ov = vec!["workloads.dbench.dbench.clients=16".to_string()];
    let mut s = Simulation::from_toml(&text(16), "dbench.toml", Some(1), &ov).expect("valid");
    let mut t = 0;
    let mut peak = 0;
    while t < s.end_ns() {
        t += 500_000_000;
        s.step_until(t);
        let d = s.dbench(0).expect("dbench");
        let cached = s.m.guests[0].mem.cached;
        assert_eq!(cached, d.file_pages(), "at {t} ns");
        peak = peak.max(cached);
        s.check_invariants().expect("invariants");
    }
    let d = s.dbench(0).expect("dbench");
    assert_eq!(d.misses, 0);
    assert!(peak > 1000, "the files grew: {peak} pages");
    assert!(d.written > 0 && d.bytes > 0 && d.bytes <= d.written + d.read);
    // Every loadfile operation ran, in about its share.
    let all: u64 = d.by_op.iter().sum();
    let reads = d.by_op[2] as f64 / all as f64;
    assert!((reads - 0.279).abs() < 0.01, "ReadX share {reads:.3}");
}

/// The big kernel lock caps 16 processors: with its holds, 16 clients reach far less than
/// 16 times one client and the clients spin; with no work under it, nearly 16 times.
#[test]
fn the_kernel_lock_caps_sixteen_processors() {
    let one = mb_s(&run(16, 1, &[]));
    let locked = run(16, 16, &[]);
    let sum = locked.summary_typed().dbench.expect("dbench");
    assert!(
        sum.dbench_mb_s < 12.0 * one,
        "{:.0} against {one:.0}",
        sum.dbench_mb_s
    );
    assert!(sum.dbench_lock_spin_pct > 10.0 && sum.dbench_bkl_busy_pct > 70.0);
    let free = [
        "workloads.dbench.dbench.cost.namespace=\"0us\"",
        "workloads.dbench.dbench.cost.bkl_call=\"0us\"",
        "workloads.dbench.dbench.cost.block_alloc=\"0us\"",
    ];
    let one_free = mb_s(&run(16, 1, &free));
    let unlocked = mb_s(&run(16, 16, &free));
    assert!(
        unlocked > 14.0 * one_free,
        "{unlocked:.0} against {one_free:.0}"
    );
}

/// dbench's throughput is its bytes over the measured window, whatever the monitor's
/// interval: 10 s measured in 6-s intervals (one closed) is still 10 s of dbench's bytes.
#[test]
fn throughput_does_not_depend_on_the_monitor_interval() {
    let two = mb_s(&run(4, 4, &[]));
    let six = mb_s(&run(4, 4, &["run.interval=\"6s\""]));
    assert!(
        (six / two - 1.0).abs() < 0.01,
        "2-s intervals {two:.0}, 6-s {six:.0} MB/s"
    );
}

/// Two guests running dbench each have their own kernel lock: its busy share is theirs,
/// not the sum of the two (which could pass 100 %); the bytes and clients add up.
#[test]
fn two_guests_report_their_own_kernel_lock() {
    let one = run(4, 4, &[]).summary_typed().dbench.expect("dbench");
    let two = text(4)
        .replacen("name = \"LNXLPAR\"", "name = \"LNX%02d\"\ncount = 2", 1)
        .replacen("ifls = 4 ", "ifls = 8 ", 1)
        .replacen("central = \"3G\"", "central = \"6G\"", 1);
    let ov = vec!["workloads.dbench.dbench.clients=4".to_string()];
    let mut s = Simulation::from_toml(&two, "dbench.toml", Some(1), &ov).expect("valid");
    s.run();
    let two = s.summary_typed().dbench.expect("dbench");
    assert_eq!(two.dbench_clients, 8);
    assert!(two.dbench_mb_s > 1.9 * one.dbench_mb_s);
    let (a, b) = (one.dbench_bkl_busy_pct, two.dbench_bkl_busy_pct);
    assert!(
        (b / a - 1.0).abs() < 0.05,
        "one guest {a:.1} %, two {b:.1} %"
    );
}

/// Bad dbench options are refused at their line and column, naming the field.
#[test]
fn bad_options_are_located() {
    let base = text(4);
    let line_of =
        |t: &str, needle: &str| t.lines().position(|l| l.starts_with(needle)).expect("line") + 1;
    let cases = [
        (
            "clients = 8",
            "clients = 0",
            "workloads.dbench.dbench.clients",
        ),
        (
            "clients = 8",
            "clients = 8\nread_size = \"4m\"",
            "workloads.dbench.dbench.read_size",
        ),
        (
            "clients = 8",
            "clients = 8\nfiles = 5000",
            "workloads.dbench.dbench.files",
        ),
        (
            "clients = 8",
            "clients = 8\nprocs = 3",
            "workloads.dbench.dbench",
        ),
    ];
    for (from, to, field) in cases {
        let t = base.replacen(from, to, 1);
        let e = match Simulation::from_toml(&t, "dbench.toml", Some(1), &[]) {
            Err(e) => e,
            Ok(_) => panic!("{to} accepted"),
        };
        assert!(e.field.starts_with(field), "{to}: {e}");
        let key = to
            .lines()
            .last()
            .expect("line")
            .split(' ')
            .next()
            .expect("key");
        assert_eq!(e.line, line_of(&t, key), "{to}: {e}");
        assert!(e.column >= 1 && e.file == "dbench.toml");
    }
}
