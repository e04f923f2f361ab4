//! The directory's minidisks in a running system: extents on a labelled volume, LINK (the
//! same real extent), MINIOPT NOMDC, and SET MDCACHE MDISK/RDEV changing what CP's minidisk
//! cache keeps.

use super::Simulation;
use crate::linux::dasd::DevPath;

/// Two guests: LNX01 owns two minidisks on the volume labelled LXD500 (B9D5, a 3390-9),
/// the second NOMDC; LNX02 LINKs LNX01's first as its own 0200. Both run fio random reads on
/// their 0200. B9D6 (a 3390-54) holds a full-pack minidisk of LNX01.
pub(super) const DIR: &str = r#"
[lpar]
ifls = 2
central = "2G"
zvm_level = "7.1"

[run]
priming = "1s"
measure = "2s"
interval = "1s"

[io.channels]
count = 2
speed = 16
zhpf = true

[io.server]
model = "DS8886 (2831-985)"
cache = "16G"
nvs = "1G"
ranks = 2

[[io.lcus]]
ssid = "B900"
bases = [{ rdev = "B9D5", model = "3390-9", volsers = ["LXD500"] }, { rdev = "B9D6", model = "3390-54" }]
aliases = { rdev = "B9E0", count = 4, kind = "hyperpav" }

[[guests]]
name = "LNX01"
storage = "512M"
vcpus = 2
workload = "fio"
directory = ["MDISK 0200 3390 1 1000 LXD500 MR", "MDISK 0201 3390 1001 END lxd500 MR", "MINIOPT NOMDC", "MDISK 0202 3390 DEVNO B9D6 MR"]

[[guests]]
name = "LNX02"
storage = "512M"
vcpus = 2
workload = "fio"
directory = ["LINK LNX01 0200 0200 RR"]

[workloads.fio]
kind = "fio"
[workloads.fio.fio]
jobs = 1
numjobs = 2
rw = "randread"
bssplit = "4k/100"
filesize = "1m-4m"
nrfiles = 4
iodepth = 1
direct = 1
ioengine = "libaio"
directory = "/"
device = "0200"

[[console]]
at = "2500ms"
cp = "QUERY MDCACHE"
"#;

fn sim(text: &str) -> Simulation {
    Simulation::from_toml(text, "t.toml", None, &[]).expect("valid scenario")
}

fn path(s: &Simulation, g: usize, vdev: u16) -> DevPath {
    let d = &s.m.guests[g].dasd;
    d.devs[d.by_vdev(vdev).expect("device") as usize].path
}

/// Types `cmd` as `user` through console entry 0; its response.
fn cp(s: &mut Simulation, user: &str, cmd: &str) -> Vec<String> {
    let e = &mut s.scenario.console[0];
    e.user = user.to_string();
    e.cp = Some(cmd.to_string());
    s.run_console(0);
    s.console.last().expect("a console line").response.clone()
}

#[test]
fn extents_links_and_miniopt_nomdc() {
    let mut s = sim(DIR);
    let b9d5 = s.m.io.by_rdev(0xb9d5).unwrap();
    // Cylinders 1-1000 and 1001-10016 of the 3390-9 (10017 cylinders of 180 4-KB blocks).
    assert_eq!(
        path(&s, 0, 0x200),
        DevPath::Minidisk {
            base: b9d5,
            offset: 180,
            blocks: 180_000
        }
    );
    assert_eq!(
        path(&s, 0, 0x201),
        DevPath::Minidisk {
            base: b9d5,
            offset: 180_180,
            blocks: 9016 * 180
        }
    );
    // LINK: LNX02's 0200 is the same real extent.
    assert_eq!(path(&s, 1, 0x200), path(&s, 0, 0x200));
    let e = &s.m.mdc.elig;
    assert!(e.read(b9d5, 180, 12), "a normal minidisk is MDC-eligible");
    assert!(!e.read(b9d5, 180_180, 12), "MINIOPT NOMDC");
    assert_eq!(e.extents(b9d5).len(), 2, "the LINK adds no extent");
    let b9d6 = s.m.io.by_rdev(0xb9d6).unwrap();
    assert!(!s.m.mdc.eligible(b9d6), "65520 cylinders: over 32767");
    // Only the full-pack minidisk is in an alias group.
    let devs = &s.m.guests[0].dasd.devs;
    assert!(devs
        .iter()
        .filter(|d| d.vdev != 0x202)
        .all(|d| d.group == u32::MAX));
    assert!(devs.iter().any(|d| d.vdev == 0x202 && d.group != u32::MAX));
    let q = cp(&mut s, "LNX01", "QUERY VIRTUAL DASD");
    // As z/VM consoles print it: volser (the device number without one), access, cylinders
    // in 10 columns, real device, virtual subchannel.
    assert_eq!(
        q[..3],
        [
            "DASD 0200 3390 LXD500 R/W       1000 CYL ON DASD  B9D5 SUBCHANNEL = 0000",
            "DASD 0201 3390 LXD500 R/W       9016 CYL ON DASD  B9D5 SUBCHANNEL = 0001",
            "DASD 0202 3390 B9D6   R/W      65520 CYL ON DASD  B9D6 SUBCHANNEL = 0002",
        ],
        "{q:?}"
    );
    // LNX02's read-only LINK of LNX01's 0200.
    let q2 = cp(&mut s, "LNX02", "QUERY VIRTUAL DASD");
    assert_eq!(
        q2,
        ["DASD 0200 3390 LXD500 R/O       1000 CYL ON DASD  B9D5 SUBCHANNEL = 0000"]
    );
    // Both guests read the one extent: the cache fills and serves them.
    s.step_until(2_000_000_000);
    let st = s.m.mdc.stats;
    assert!(st.inserted > 0 && st.hits > 0, "{st:?}");
    assert!(s.m.mdc.frames_used() > 0);
    s.m.mdc.check().unwrap();
}

#[test]
fn set_mdcache_mdisk_and_rdev_change_what_is_cached() {
    let mut s = sim(DIR);
    s.step_until(1_500_000_000);
    let b9d5 = s.m.io.by_rdev(0xb9d5).unwrap();
    assert!(s.m.mdc.frames_used() > 0);
    // LNX02 turns off the minidisk it LINKs: it is LNX01's too (one extent).
    assert!(cp(&mut s, "LNX02", "SET MDCACHE MDISK 0200 OFF").is_empty());
    assert_eq!(s.m.mdc.frames_used(), 0, "its tracks are dropped at once");
    let reads = s.m.mdc.stats.reads;
    s.step_until(1_700_000_000);
    assert_eq!(s.m.mdc.stats.reads, reads, "no lookups while off");
    assert_eq!(s.m.mdc.frames_used(), 0);
    // Back on: the reads fill it again.
    assert!(cp(&mut s, "MAINT", "SET MDCACHE MDISK LNX01 0200 ON").is_empty());
    s.step_until(1_900_000_000);
    assert!(s.m.mdc.frames_used() > 0);
    // The real device off: nothing on it is cached, whatever the minidisk says.
    assert!(cp(&mut s, "MAINT", "SET MDCACHE RDEV B9D5 OFF").is_empty());
    assert_eq!(s.m.mdc.frames_used(), 0);
    assert!(!s.m.mdc.eligible(b9d5));
    // DFLTOFF: the minidisk set ON explicitly is cached; the NOMDC one is not.
    assert!(cp(&mut s, "MAINT", "SET MDCACHE RDEV B9D5 DFLTOFF").is_empty());
    assert!(s.m.mdc.elig.read(b9d5, 180, 12));
    assert!(!s.m.mdc.elig.read(b9d5, 180_180, 12));
    s.m.mdc.check().unwrap();
    s.check_invariants().unwrap();
}

#[test]
fn directory_errors_are_located_scenario_errors() {
    let cases = [
        (
            "MDISK 0200 3390 1 1000 LXD500 MR",
            "MDISK 0200 3390 1 1000 NOVOL MR",
            "no base device of [io] is labelled `NOVOL`",
        ),
        (
            "MDISK 0200 3390 1 1000 LXD500 MR",
            "MDISK 0200 3390 10000 100 LXD500 MR",
            "cylinders 10000 to 10099 do not fit on LXD500",
        ),
        (
            "MDISK 0202 3390 DEVNO B9D6 MR",
            "MDISK 0202 3390 DEVNO B9D7 MR",
            "real device B9D7 is not a base device of [io]",
        ),
        (
            "\"MINIOPT NOMDC\", \"MDISK 0202",
            "\"MDISK 0203 FB-512 V-DISK 1000 MR\", \"MINIOPT NOMDC\", \"MDISK 0202",
            "MINIOPT must follow an MDISK statement",
        ),
        (
            "LINK LNX01 0200 0200 RR",
            "LINK LNX09 0200 0200 RR",
            "LNX09 is not a guest of the scenario",
        ),
        (
            "LINK LNX01 0200 0200 RR",
            "LINK LNX01 0209 0200 RR",
            "LNX01 has no minidisk 0209",
        ),
        (
            "MDISK 0202 3390 DEVNO B9D6 MR",
            "MDISK 0200 3390 DEVNO B9D6 MR",
            "virtual device 0200 is defined twice",
        ),
        (
            "MINIOPT NOMDC",
            "MINIOPT NOCACHE",
            "zvmsim simulates MINIOPT MDC and MINIOPT NOMDC",
        ),
    ];
    for (from, to, want) in cases {
        assert!(DIR.contains(from), "{from}");
        let text = DIR.replacen(from, to, 1);
        let err = Simulation::from_toml(&text, "t.toml", None, &[])
            .err()
            .unwrap_or_else(|| panic!("{to} accepted"));
        assert!(err.field.contains(".directory["), "{to}: {}", err.field);
        assert!(err.detail.contains(want), "{to}: {}", err.detail);
    }
}
