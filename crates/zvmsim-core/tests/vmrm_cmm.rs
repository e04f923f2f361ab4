//! VMRM-CMM end to end through the public API: an overcommitted system with VMRMSVM running
//! and the cmm module loaded in the guests gets SHRINK messages, the balloons inflate, CP
//! releases their pages (the guests' pages in storage, XSTOR and on DASD fall), and a later,
//! smaller SHRINK deflates them.

use serde_json::Value;
use zvmsim_core::system::Simulation;

/// Three 128 MB guests on 256 MB of central storage and 32 MB of XSTOR; VMRM every 5 s,
/// started at 6 s, so that the first interval (5-10 s) is measured before any SHRINK.
const SCENARIO: &str = concat!(
    r#"
[lpar]
ifls = 2
central = "256M"
expanded = "32M"
zvm_level = "5.3"

[paging]
volumes = [{ model = "3390-3", count = 2 }]

[run]
priming = "5s"
measure = "60s"
interval = "5s"
seed = 1

"#,
    // The three database guests, as in common/mod.rs SMALL.
    include_str!("data/fragments/three_db_guests.toml"),
    r#"
[vmrm]
config = """
* VMRM CONFIG A1
NOTIFY MEMORY LNX0*
ADMIN MSGUSER MAINT
"""
interval = "5s"
constrained_paging = 20.0
relieved_paging = 20.0
max_shrink = 0.5

[[console]]
at = "1s"
user = "LNX0*"
linux = "modprobe cmm"

[[console]]
at = "6s"
cp = "XAUTOLOG VMRMSVM"

[[console]]
at = "14s"
user = "LNX02"
linux = "cat /proc/sys/vm/cmm_pages"
"#
);

const GUEST_PAGES: u64 = 3 * 32_768;

fn u(v: &Value) -> u64 {
    v.as_u64().expect("a count")
}

/// The SHRINK targets VMRM sent to `guest`, with their times.
fn shrinks(sim: &Simulation, guest: &str) -> Vec<(f64, u64)> {
    sim.vmrm_log()
        .iter()
        .filter(|e| e["user"] == guest)
        .map(|e| {
            let text = e["text"].as_str().unwrap();
            let n = text.rsplit(' ').next().unwrap().parse().unwrap();
            assert!(
                text.starts_with(&format!("SMSG sent to {guest}: CMM SHRINK ")),
                "{text}"
            );
            (e["t_s"].as_f64().unwrap(), n)
        })
        .collect()
}

#[test]
fn shrink_inflates_the_balloons_and_a_smaller_shrink_deflates_them() {
    let mut sim = Simulation::from_toml(SCENARIO, "t.toml", None, &[]).expect("valid");
    let mut t = 0;
    while t < sim.end_ns() {
        t += 2_500_000_000;
        sim.step_until(t);
        sim.check_invariants().expect("invariants");
    }
    let rows = sim.intervals();
    let sys = sim.system_intervals();
    let row = |i: u64, g: &str| {
        rows.iter()
            .find(|r| u(&r["interval"]) == i && r["guest"] == g)
            .unwrap()
            .clone()
    };
    let guests = ["LNX01", "LNX02", "LNX03"];
    let balloon = |i: u64| -> u64 {
        guests
            .iter()
            .map(|g| u(&row(i, g)["cmm_pages"]) + u(&row(i, g)["cmm_timed_pages"]))
            .sum()
    };
    let paged_out = |i: u64| -> u64 {
        guests
            .iter()
            .map(|g| u(&row(i, g)["pages_xstor"]) + u(&row(i, g)["pages_dasd"]))
            .sum()
    };
    let touched = |i: usize| u(&sys[i]["pages_resident"]) + u(&sys[i]["pages_not_in_memory"]);

    // Before VMRM's first interval: no balloon, every guest page used once.
    assert_eq!(balloon(0), 0);
    assert_eq!(touched(0), GUEST_PAGES);
    // VMRM's first interval (11 s): storage is constrained, each guest gets its share.
    for g in guests {
        let s = shrinks(&sim, g);
        assert!(s.len() >= 3, "{g}: {s:?}");
        assert_eq!(s[0].0, 11.0);
        assert!(s[0].1 > 1_000, "{g}: {s:?}");
        // The balloon reached its target within the interval, each page given to CP.
        let r = row(1, g);
        assert_eq!(u(&r["cmm_pages_target"]), s[0].1);
        assert_eq!(u(&r["cmm_pages"]), s[0].1);
        assert!(r["cmm_diag10_pages_per_s"].as_f64().unwrap() * 5.0 >= s[0].1 as f64);
    }
    // CP dropped the released pages: they are in no frame, XSTOR block or slot.
    assert_eq!(touched(1) + balloon(1), GUEST_PAGES);
    assert!(
        paged_out(1) + balloon(1) / 2 < paged_out(0),
        "paged-out pages {} -> {}",
        paged_out(0),
        paged_out(1)
    );
    // A later, smaller SHRINK: the balloon gives pages back to Linux.
    let s = shrinks(&sim, "LNX01");
    let k = (1..s.len())
        .find(|&k| s[k].1 < s[k - 1].1)
        .expect("a smaller SHRINK");
    let interval = ((s[k].0 - 5.0) / 5.0) as u64;
    let before = u(&row(interval - 1, "LNX01")["cmm_pages"]);
    let after = u(&row(interval, "LNX01")["cmm_pages"]);
    assert_eq!(after, s[k].1);
    assert!(after < before, "{before} -> {after}");
    // Each SMSG counted in the system rows, and echoed to ADMIN MSGUSER's console.
    let smsgs = sim.vmrm_log().iter().filter(|e| e["user"] != "").count() as u64;
    assert_eq!(
        sys.iter().map(|r| u(&r["vmrm_notifications"])).sum::<u64>(),
        smsgs
    );
    let console = sim.console();
    let to_maint = console
        .iter()
        .filter(|c| c["user"] == "MAINT" && c["command"] == "")
        .filter(|c| c["response"][0].as_str().unwrap().contains("CMM SHRINK"))
        .count() as u64;
    assert_eq!(to_maint, smsgs);
    let xautolog = console
        .iter()
        .find(|c| c["command"] == "XAUTOLOG VMRMSVM")
        .unwrap();
    assert_eq!(xautolog["response"][0], "Command accepted");
    // modprobe ran in each guest the pattern matched; cat shows the static pool's size.
    let modprobes = console
        .iter()
        .filter(|c| c["command"] == "modprobe cmm")
        .count();
    assert_eq!(modprobes, 3);
    let cat = console
        .iter()
        .find(|c| c["user"] == "LNX02" && c["command"] != "modprobe cmm")
        .unwrap();
    let shown: u64 = cat["response"][0].as_str().unwrap().parse().unwrap();
    assert_eq!(shown, shrinks(&sim, "LNX02")[0].1);
    let summary = sim.summary();
    let g0 = &summary["guests"][0];
    assert!(g0["cmm_diag10_pages"].as_u64().unwrap() >= s[0].1);
    assert!(g0["cmm_pages_mean"].as_f64().unwrap() > 0.0);
}

/// The timed pool: `CMM RELEASE n` adds to its target, `CMM REUSE n s` has the target fall by
/// n pages every s seconds, and the thread follows; the timer stops when the pool is empty.
#[test]
fn the_timed_pool_empties_at_the_reuse_rate() {
    let text = r#"
[lpar]
ifls = 1
central = "64M"
zvm_level = "5.3"

[run]
priming = "1s"
measure = "6s"
interval = "1s"

[[guests]]
name = "LNX01"
storage = "32M"
linux = { kernel = "8M", min_free = "1M" }

[[console]]
at = "0.5s"
user = "LNX01"
linux = "modprobe cmm sender=MAINT"

[[console]]
at = "0.6s"
cp = "SMSG LNX01 CMM RELEASE 300"

[[console]]
at = "0.7s"
cp = "SMSG LNX01 CMM RELEASE 0x64"

[[console]]
at = "1.5s"
cp = "SMSG LNX01 CMM REUSE 150 2"

[[console]]
at = "6.9s"
user = "LNX01"
linux = "sysctl vm.cmm_timeout"
"#;
    let mut sim = Simulation::from_toml(text, "t.toml", None, &[]).expect("valid");
    sim.run();
    sim.check_invariants().expect("invariants");
    let timed: Vec<u64> = sim
        .intervals()
        .iter()
        .map(|r| u(&r["cmm_timed_pages"]))
        .collect();
    // 400 pages until the first expiry at 3.5 s, then 150 fewer every 2 s, down to 0.
    assert_eq!(timed, vec![400, 400, 250, 250, 100, 100]);
    let last = sim.console().last().cloned().unwrap();
    assert_eq!(last["response"][0], "vm.cmm_timeout = 150 2");
    let diag10: f64 = sim
        .intervals()
        .iter()
        .map(|r| r["cmm_diag10_pages_per_s"].as_f64().unwrap())
        .sum();
    assert_eq!(
        diag10, 0.0,
        "the 400 pages were given to CP before the window"
    );
}
