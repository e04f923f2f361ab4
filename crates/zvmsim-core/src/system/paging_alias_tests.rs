//! SET PAGING ALIAS: CP's paging I/O to a paging volume of [io] runs on the SYSTEM-owned
//! HyperPAV aliases of the volume's LCU (the pool search CP makes for minidisk I/O) only
//! while it is ON; QUERY PAGING shows the setting.

use super::Simulation;

/// Two 1 GB guests on 768 MB of central storage page to one 3390-9 paging volume, B9D5, a
/// base of LCU B900 with four HyperPAV aliases attached to SYSTEM.
const PAGING: &str = r#"
[lpar]
ifls = 2
central = "768M"
zvm_level = "7.1"

[paging]
volumes = [{ model = "3390-9", count = 1 }]

[run]
priming = "2s"
measure = "3s"
interval = "1s"

[io]
paging = ["B9D5"]

[io.server]
model = "DS8886 (2831-985)"
cache = "16G"
nvs = "1G"
ranks = 2

[[io.lcus]]
ssid = "B900"
bases = [{ rdev = "B9D5", model = "3390-9" }]
aliases = { rdev = "B9E0", count = 4, kind = "hyperpav" }

[[guests]]
name = "LNX%02d"
count = 2
storage = "1G"
vcpus = 1
workload = "oltp"
dasd = [{ use = "database", model = "3390-9", count = 2 }]
linux = { kernel = "32M", min_free = "4M" }

[workloads.oltp]
kind = "transactional"
users = 4
think_time = "5ms"
cpu_per_tx = "1ms"
db_refs = 20

[workloads.oltp.database]
size = "1G"
cache = "600M"

[[console]]
cp = "ATTACH B9E0-B9E3 TO SYSTEM"
[[console]]
cp = "SET PAGING ALIAS OFF"
[[console]]
at = "4s"
cp = "QUERY PAGING"
"#;

/// Runs with SET PAGING ALIAS `on`: (paging I/Os on B9D5, of them on an alias, QUERY PAGING).
fn run(on: bool) -> (u64, u64, Vec<String>) {
    let text = if on {
        PAGING.replace("SET PAGING ALIAS OFF", "SET PAGING ALIAS ON")
    } else {
        PAGING.to_string()
    };
    let mut s = Simulation::from_toml(&text, "t.toml", Some(1), &[]).expect("valid scenario");
    s.run();
    s.check_invariants().expect("invariants");
    let b = s.m.io.by_rdev(0xb9d5).expect("B9D5");
    let base = s.m.io.sub(b);
    let aliases: u64 = (0xb9e0..=0xb9e3)
        .map(|r| s.m.io.sub(s.m.io.by_rdev(r).unwrap()).stats.ios)
        .sum();
    assert_eq!(
        base.via_alias, aliases,
        "only B9D5's paging I/O may run on them"
    );
    let q = s.console.last().expect("QUERY PAGING").response.clone();
    (base.stats.ios + base.via_alias, base.via_alias, q)
}

#[test]
fn paging_io_uses_aliases_only_when_paging_alias_is_on() {
    let (ios_off, alias_off, q_off) = run(false);
    let (ios_on, alias_on, q_on) = run(true);
    eprintln!(
        "paging I/O: OFF {ios_off} (on aliases {alias_off}), ON {ios_on} (on aliases {alias_on})"
    );
    assert!(
        ios_off > 100 && ios_on > 100,
        "the guests page: {ios_off} {ios_on}"
    );
    assert_eq!(alias_off, 0, "OFF: every paging I/O on the base");
    assert!(
        alias_on > 0,
        "ON: some paging I/O on the aliases ({alias_on} of {ios_on})"
    );
    assert_eq!(q_off, ["PAGING_ALIAS: OFF PAGING_HPF: ON WARNING: 90%"]);
    assert_eq!(q_on, ["PAGING_ALIAS: ON PAGING_HPF: ON WARNING: 90%"]);
}

#[test]
fn io_paging_devices_are_checked() {
    for (from, to, want) in [
        (
            "paging = [\"B9D5\"]",
            "paging = [\"B9D6\"]",
            "B9D6 is not a base device of [io]",
        ),
        (
            "paging = [\"B9D5\"]",
            "paging = [\"B9D5\", \"B9D5\"]",
            "2 real devices for 1 paging volumes",
        ),
        (
            "model = \"3390-9\" }]\naliases",
            "model = \"3390-3\" }]\naliases",
            "is a M3390_3, the paging volume a M3390_9",
        ),
    ] {
        let text = PAGING.replacen(from, to, 1);
        assert_ne!(text, PAGING, "{from}");
        let err = Simulation::from_toml(&text, "t.toml", None, &[])
            .err()
            .unwrap_or_else(|| panic!("{to} accepted"));
        assert!(err.field.starts_with("io.paging"), "{}", err.field);
        assert!(err.detail.contains(want), "{}", err.detail);
    }
}
