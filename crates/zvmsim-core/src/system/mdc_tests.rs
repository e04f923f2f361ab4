//! Shared read-only minidisks and CP's minidisk cache in a running system.

use super::Simulation;
use crate::workload::Workload;

/// Three guests of one entry reading one database on shared minidisks.
pub(super) const SHARED: &str = r#"
[lpar]
ifls = 2
central = "512M"
zvm_level = "5.4"

[paging]
volumes = [{ model = "3390-3", count = 1 }]

[run]
priming = "1s"
measure = "4s"
interval = "1s"

[[guests]]
name = "LNX%02d"
count = 3
storage = "128M"
workload = "ro"
dasd = [{ use = "database", model = "3390-9", count = 2, shared = true }]
linux = { kernel = "8M", min_free = "2M" }

[workloads.ro]
kind = "transactional"
users = 2
think_time = "5ms"
cpu_per_tx = "1ms"
db_refs = 10

[workloads.ro.database]
size = "200M"
cache = "16M"
"#;

pub(super) fn sim(text: &str) -> Simulation {
    Simulation::from_toml(text, "t.toml", None, &[]).expect("valid scenario")
}

fn db_volumes(s: &Simulation, g: usize) -> Vec<u32> {
    match &s.workloads[g] {
        Workload::Transactional(o) => o.db.as_ref().expect("database").volumes.clone(),
        _ => panic!("not transactional"),
    }
}

#[test]
fn shared_minidisks_are_one_set_of_real_volumes_for_the_entry() {
    let s = sim(SHARED);
    let v0 = db_volumes(&s, 0);
    assert_eq!(v0.len(), 2);
    assert_ne!(v0[0], v0[1]);
    for g in 1..3 {
        assert_eq!(db_volumes(&s, g), v0, "guest {g}");
    }
    // Without `shared`, each guest has volumes of its own.
    let s = sim(&SHARED.replace(", shared = true", ""));
    let (a, b) = (db_volumes(&s, 0), db_volumes(&s, 1));
    assert!(a.iter().all(|v| !b.contains(v)), "{a:?} {b:?}");
}

#[test]
fn shared_minidisks_refuse_writers_located() {
    let bad = SHARED.replace(
        "db_refs = 10\n",
        "db_refs = 10\n\n[[workloads.ro.transactions]]\nname = \"upd\"\nweight = 1\ncpu = \"1ms\"\ndb_refs = 5\nwrite_fraction = 0.2\n",
    );
    let e = match Simulation::from_toml(&bad, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("a writer on shared minidisks was accepted"),
    };
    assert_eq!(e.field, "workloads.ro.transactions[0].write_fraction");
    assert!(e.detail.contains("read-only"), "{}", e.detail);
    assert!(e.line > 0);
    let swap = SHARED.replace(
        "count = 2, shared = true }]",
        "count = 2, shared = true }, { use = \"swap\", model = \"3390-3\", shared = true }]",
    );
    let e = match Simulation::from_toml(&swap, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("a shared swap volume was accepted"),
    };
    assert_eq!(e.field, "guests[0].dasd[1].shared");
    let files = SHARED.replace("cache = \"16M\"", "cache = \"16M\"\nfiles_on = \"oradata\"");
    let e = match Simulation::from_toml(&files, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("a relative mount point was accepted"),
    };
    assert_eq!(e.field, "workloads.ro.database.files_on");
}

#[test]
fn shared_minidisk_run_keeps_invariants() {
    let mut s = sim(SHARED);
    s.run();
    s.check_invariants().unwrap();
    s.check_io().unwrap();
    assert!(s.summary()["throughput_tx_per_s"].as_f64().unwrap() > 0.0);
}

fn mdc_state(s: &Simulation) -> (bool, u64, u64, String, u64, u64) {
    let m = &s.m.mdc;
    (
        m.on,
        m.min_frames,
        m.max_frames,
        format!("{:.3}", m.bias),
        m.target,
        m.frames_used(),
    )
}

#[test]
fn shared_readers_hit_each_others_tracks_and_mdc_off_reads_the_volumes() {
    let mut on = sim(SHARED);
    // INDICATE LOAD's MDC line shows the cache over the interval so far.
    on.step_until(3_500_000_000);
    let load =
        crate::cp::commands::respond(&crate::cp::commands::CpCommand::IndicateLoad, &on.cp_view());
    let mdc = load.iter().find(|l| l.starts_with("MDC READS-")).unwrap();
    assert!(!mdc.contains("READS-000000/SEC"), "{mdc}");
    assert!(!mdc.ends_with("HIT RATIO-000%"), "{mdc}");
    on.run();
    on.check_invariants().unwrap();
    on.m.mdc.check().unwrap();
    let st = on.m.mdc.stats;
    assert!(st.hits > 0 && st.inserted > 0, "{st:?}");
    let s = on.summary();
    let f = |k: &str| s[k].as_f64().unwrap();
    assert!(f("dasd_avoid_per_s") > 0.0 && f("mdc_hit_pct") > 0.0);
    assert!(f("mdc_frames") > 0.0);
    assert!(f("virtual_io_per_s") >= f("dasd_avoid_per_s"));
    // The same run with MDC off: every read is a real I/O, nothing cached.
    let off_text = SHARED.replace(
        "[[guests]]",
        "[[console]]\nat = \"0s\"\ncp = \"SET MDCACHE SYSTEM OFF\"\n\n[[guests]]",
    );
    let mut off = sim(&off_text);
    off.run();
    assert_eq!(off.m.mdc.stats.hits, 0);
    assert_eq!(off.m.mdc.frames_used(), 0);
    let so = off.summary();
    assert_eq!(so["dasd_avoid_per_s"].as_f64().unwrap(), 0.0);
    assert!(so["virtual_io_per_s"].as_f64().unwrap() > 0.0);
    // Hits are shared: with the cache on, fewer reads reach the volumes per virtual I/O.
    let real = |s: &serde_json::Map<String, serde_json::Value>| {
        s["dasd_io_per_s"].as_f64().unwrap() / s["virtual_io_per_s"].as_f64().unwrap()
    };
    assert!(real(&s) < real(&so), "{} {}", real(&s), real(&so));
}

#[test]
fn mdcache_commands_set_query_and_refuse_with_cp_messages() {
    let mut s = sim(SHARED);
    let q = s.io_command("MAINT", "QUERY MDCACHE").unwrap();
    assert_eq!(q[0], "Minidisk cache ON for system");
    assert!(q[1].starts_with("Storage MDC min=0M max=512M"), "{q:?}");
    assert_eq!(s.io_command("MAINT", "SET MDC STOR 0M 256M"), Some(vec![]));
    assert_eq!(s.m.mdc.max_frames, 65536);
    assert_eq!(
        s.io_command("MAINT", "set mdcache storage bias 2"),
        Some(vec![])
    );
    assert_eq!(s.m.mdc.bias, 2.0);
    assert_eq!(
        s.io_command("MAINT", "SET MDCACHE SYSTEM OFF"),
        Some(vec![])
    );
    assert!(!s.m.mdc.on);
    let q = s.io_command("MAINT", "Q MDC").unwrap();
    assert_eq!(q[0], "Minidisk cache OFF for system");
    assert!(q[1].contains("bias=2.00"), "{q:?}");
    let r = s.io_command("MAINT", "SET MDCACHE XSTORE 0M 1G").unwrap();
    assert!(r[0].starts_with("not simulated by zvmsim"), "{r:?}");
    let rejected = [
        ("SET MDCACHE", "HCP026E Operand missing or invalid"),
        ("SET MDC SYSTEM MAYBE", "HCP002E Invalid operand - MAYBE"),
        ("SET MDC SYSTEM ON NOW", "HCP003E Invalid option - NOW"),
        ("SET MDC STORAGE 2G 1G", "HCP002E Invalid operand - 1G"),
        ("SET MDC STORAGE 12X 2G", "HCP002E Invalid operand - 12X"),
        ("SET MDC STORAGE 1G", "HCP026E Operand missing or invalid"),
        ("SET MDC STORAGE 0M 1G 2G", "HCP003E Invalid option - 2G"),
        ("SET MDC STORAGE BIAS", "HCP026E Operand missing or invalid"),
        ("SET MDC STORAGE BIAS 0", "HCP002E Invalid operand - 0"),
        ("SET MDC STORAGE BIAS 500", "HCP002E Invalid operand - 500"),
        ("SET MDC FROB", "HCP002E Invalid operand - FROB"),
        ("SET MDC RDEV", "HCP026E Operand missing or invalid"),
        ("QUERY MDCACHE ALL", "HCP003E Invalid option - ALL"),
    ];
    for (cmd, msg) in rejected {
        let before = mdc_state(&s);
        assert_eq!(
            s.io_command("MAINT", cmd),
            Some(vec![msg.to_string()]),
            "{cmd}"
        );
        assert_eq!(mdc_state(&s), before, "{cmd} changed the cache");
    }
    // The same refusal in a scenario's console script is a located scenario error.
    let bad = SHARED.replace(
        "[[guests]]",
        "[[console]]\nat = \"2s\"\ncp = \"SET MDC STORAGE 2G 1G\"\n\n[[guests]]",
    );
    let e = match Simulation::from_toml(&bad, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted"),
    };
    assert_eq!(e.field, "console[0].cp");
    assert!(e.detail.contains("HCP002E"), "{}", e.detail);
}

/// Two guests: LNX01 copies the database into a shared SN DCSS's ext2 and both mount it
/// read-only at /oradata, the `files_on` of their database.
const DCSS_FILES: &str = r#"
[lpar]
ifls = 2
central = "1G"
zvm_level = "5.4"

[paging]
volumes = [{ model = "3390-3", count = 1 }]

[spool]
volumes = [{ model = "3390-3", count = 1 }]

[run]
priming = "4s"
measure = "4s"
interval = "1s"

[[guests]]
name = "LNX%02d"
count = 2
storage = "128M"
workload = "ro"
dasd = [{ use = "database", model = "3390-9", count = 2, shared = true }]
linux = { kernel = "8M", min_free = "2M", parameters = "mem=512M" }

[workloads.ro]
kind = "transactional"
users = 2
think_time = "5ms"
cpu_per_tx = "1ms"
db_refs = 10

[workloads.ro.database]
size = "40M"
cache = "8M"
files_on = "/oradata"

[[console]]
at = "0s"
cp = "SET PRIVCLASS CMSDCSS +E"
[[console]]
at = "1s"
user = "CMSDCSS"
cp = "defseg ROFS 10000-13FFF sn"
[[console]]
at = "1s"
user = "CMSDCSS"
cp = "saveseg ROFS"
[[console]]
at = "2s"
user = "LNX0*"
linux = "modprobe dcssblk"
[[console]]
at = "2s"
user = "LNX0*"
linux = "mknod /dev/dcssblk0 b 252 0"
[[console]]
at = "2s"
user = "LNX0*"
linux = "echo ROFS > /sys/devices/dcssblk/add"
[[console]]
at = "2s"
user = "LNX01"
linux = "mke2fs -b 4096 /dev/dcssblk0"
[[console]]
at = "2s"
user = "LNX01"
linux = "mount -t ext2 -o xip /dev/dcssblk0 /mnt"
[[console]]
at = "2s"
user = "LNX01"
linux = "dd if=/data/db of=/mnt/db bs=1M count=40"
[[console]]
at = "2s"
user = "LNX01"
linux = "umount /mnt"
[[console]]
at = "2s"
user = "LNX01"
linux = "mount -t ext2 -o ro,xip /dev/dcssblk0 /oradata"
[[console]]
at = "3s"
user = "LNX02"
linux = "mount -t ext2 -o ro,xip /dev/dcssblk0 /oradata"
"#;

#[test]
fn database_files_on_a_shared_dcss_are_read_without_io_once_mounted() {
    let mut s = sim(DCSS_FILES);
    s.run();
    s.check_invariants().unwrap();
    for line in &s.console {
        assert!(
            !line.response.iter().any(|r| r.contains("bad superblock")),
            "{}: {:?}",
            line.command,
            line.response
        );
    }
    // LNX02 mounts the ext2 LNX01 made in the shared segment.
    assert!(s.m.guests.iter().all(|g| g.db_files.is_some()));
    // After the mounts (the measured window), no virtual I/O: the reads touch the DCSS.
    let rows = s.system_rows();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r.virtual_io_per_s, 0.0, "interval {}", r.interval);
        assert!(r.throughput_tx_per_s > 0.0);
    }
    // The segment's pages are shared: one copy however many guests read them.
    let seg = s.m.storage.segment_counts();
    assert!(seg.resident > 0);
}
