//! The apache workload's three ways of reading its files (linux/filemap.rs), on small
//! systems: a DCSS file system mounted with xip (no page-cache page; one shared copy, counted
//! once), mounted without xip (each server's page cache holds the file pages), and minidisks
//! (one I/O per readahead window). Also: every scenario of scenarios/dcss-above-2g parses.

use crate::cp::storage::SpaceId;

use super::Simulation;

/// Two 256 MB servers and a client; the files (40 of 1 MB, 20 touched) on a minidisk or in
/// the 256 MB SN segment WEBSEG at 1 GB, filled by LNX01 and mounted by both.
fn scenario(docroot: &str, mount: &str, files: u32) -> String {
    let mut s = format!(
        r#"
[lpar]
ifls = 2
central = "2G"
zvm_level = "5.4"
[paging]
volumes = [{{ model = "3390-9", count = 1 }}]
[spool]
volumes = [{{ model = "3390-54", count = 1 }}]
[run]
priming = "0s"
measure = "20s"
interval = "5s"
[[guests]]
name = "LNX%02d"
count = 2
storage = "256M"
workload = "web"
dasd = [{{ use = "files", model = "3390-3", count = 1 }}]
linux = {{ kernel = "32M", min_free = "2M", parameters = "mem=1280M" }}
[[guests]]
name = "CLI01"
storage = "256M"
vcpus = 2
workload = "client"
linux = {{ kernel = "32M", min_free = "2M" }}
[workloads.web]
kind = "apache"
users = 1
think_time = "0ms"
[workloads.web.apache]
docroot = "{docroot}"
file_set = {files}
files = {half}
[workloads.client]
kind = "apache"
think_time = "0ms"
[workloads.client.apache]
role = "client"
server = "web"
"#,
        half = files / 2
    );
    if docroot == "dcss" {
        let mut con = |at: &str, user: &str, kind: &str, cmd: &str| {
            s += &format!("[[console]]\nat = \"{at}\"\nuser = \"{user}\"\n{kind} = \"{cmd}\"\n");
        };
        con("0s", "MAINT", "cp", "SET PRIVCLASS CMSDCSS +E");
        con("1s", "CMSDCSS", "cp", "DEFSEG WEBSEG 40000-4FFFF SN");
        con("1s", "CMSDCSS", "cp", "SAVESEG WEBSEG");
        let add = "echo WEBSEG > /sys/devices/dcssblk/add";
        for c in [
            "modprobe dcssblk",
            "mknod /dev/dcssblk0 b 252 0",
            add,
            "mke2fs -b 4096 /dev/dcssblk0",
            "mount -t ext2 /dev/dcssblk0 /mnt",
            "dd if=/srv/www/f.tar of=/mnt/f.tar bs=1048576 count=40",
            "umount /mnt",
        ] {
            con("2s", "LNX01", "linux", c);
        }
        for u in ["LNX01", "LNX02"] {
            if u == "LNX02" {
                for c in ["modprobe dcssblk", "mknod /dev/dcssblk0 b 252 0", add] {
                    con("4s", u, "linux", c);
                }
            }
            con(
                "4s",
                u,
                "linux",
                &format!("mount -t ext2 {mount} /dev/dcssblk0 /srv/www"),
            );
        }
    }
    s
}

fn run(text: &str) -> Simulation {
    let mut sim = Simulation::from_toml(text, "t.toml", Some(1), &[]).expect("valid scenario");
    sim.run();
    sim.check_invariants().expect("invariants");
    sim
}

/// File-set blocks in guest `g`'s page cache.
fn cached(sim: &Simulation, g: usize, set_pages: u32) -> usize {
    let m = &sim.m.guests[g].mem;
    (0..set_pages)
        .filter(|&b| m.cached_page(b).is_some())
        .count()
}

fn console(sim: &Simulation) -> String {
    format!("{:#?}", sim.console())
}

#[test]
fn xip_references_one_shared_copy_and_no_page_cache() {
    let sim = run(&scenario("dcss", "-o xip,ro", 40));
    let (a, b) = (&sim.m.guests[0], &sim.m.guests[1]);
    assert!(a.total.tx > 100 && b.total.tx > 100, "{}", console(&sim));
    let (sa, sb) = (
        a.dcss_mount.as_ref().expect("mounted"),
        b.dcss_mount.as_ref().expect("mounted"),
    );
    assert!(sa.xip && sb.xip);
    // Both servers reference the same segment copy: one space.
    assert_eq!(sa.runs, sb.runs);
    assert_eq!(sa.runs.len(), 1);
    for g in 0..2 {
        assert_eq!(
            cached(&sim, g, 40 * 256),
            0,
            "xip leaves no page-cache page"
        );
    }
    // The copy's frames are counted once: the guests' and the segment's resident pages make
    // up CP's resident total.
    let seg = sim.m.storage.space_locations(sa.runs[0].0).resident;
    assert!(
        seg >= 20 * 256,
        "touched file pages resident in the segment: {seg}"
    );
    let guests: u64 = (0..3)
        .map(|g| sim.m.storage.space_locations(SpaceId(g)).resident)
        .sum();
    assert_eq!(sim.m.storage.resident(), guests + seg);
    let last = sim.system_rows().last().expect("rows");
    assert_eq!(last.resident_shared_frames, Some(seg));
}

#[test]
fn without_xip_each_server_copies_the_pages_into_its_page_cache() {
    let sim = run(&scenario("dcss", "-o ro", 40));
    for g in 0..2 {
        let gs = &sim.m.guests[g];
        assert!(!gs.dcss_mount.as_ref().expect("mounted").xip);
        assert!(gs.total.tx > 100, "{}", console(&sim));
        // Each server has its own copy of (nearly) every touched file's pages.
        let c = cached(&sim, g, 40 * 256);
        assert!(c >= 18 * 256, "server {g}: {c} file pages cached");
    }
}

#[test]
fn minidisk_reads_one_io_per_readahead_window() {
    // 2000 files of 1 MB (1000 touched) cannot stay in a 256 MB guest's page cache.
    let sim = run(&scenario("minidisk", "", 2000));
    let dev = 2; // devices: the paging volume, the spool volume, then the files minidisk
    let st = sim.m.io.stats(dev);
    let reads: u64 = sim.m.guests.iter().map(|g| g.total.db_reads).sum();
    assert!(st.ios > 100, "{} I/Os", st.ios);
    // 128 KB windows of 1 MB files: 32 pages per I/O.
    assert_eq!(st.pages, 32 * st.ios);
    assert!(reads >= st.ios, "virtual {reads} >= real {}", st.ios);
    assert!(sim.summary_typed().web.expect("web").virtual_io_per_s > 0.0);
    // Each interval carries the Performance Toolkit's names for its own figures.
    let ifls = sim.scenario.lpar.ifls as f64;
    for r in &sim.mon.sys_rows {
        let per_tx = 10.0 * r.cpu_cp_pct / r.throughput_tx_per_s;
        assert!((r.cp_msec_per_tx.expect("apache run") - per_tx).abs() < 1e-9);
        assert_eq!(r.total_util_per_proc_pct, Some(r.cpu_lpar_pct / ifls));
        assert_eq!(r.dasd_paging_per_s, Some(r.paging_io_per_s));
        assert_eq!(r.resident_pages_total, Some(r.pages_resident));
        let above = r.available_frames - r.available_below_2g;
        assert_eq!(r.avail_list_above_2g, Some(above));
    }
    assert!(!sim.mon.sys_rows.is_empty());
    // The file servers' rows carry their I/O wait; the clients' leave it out.
    let servers = (0..sim.m.guests.len())
        .filter(|&g| sim.web_server(g))
        .count();
    assert!(servers > 0 && servers < sim.m.guests.len());
    for r in &sim.mon.rows {
        let g = sim.m.guests.iter().position(|g| g.name == r.guest).unwrap();
        match r.io_wait_pct {
            Some(w) => assert!(sim.web_server(g) && (0.0..=100.0).contains(&w), "{w}"),
            None => assert!(!sim.web_server(g)),
        }
    }
    let waits: f64 = sim.mon.rows.iter().filter_map(|r| r.io_wait_pct).sum();
    assert!(waits > 0.0, "the servers read files from the minidisk");
}

#[test]
fn dcss_above_2g_scenarios_parse() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dcss-above-2g");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("scenario folder") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("read");
        let file = p.display().to_string();
        crate::config::scenario::parse(&text, &file, &[]).unwrap_or_else(|e| panic!("{e}"));
        n += 1;
    }
    assert_eq!(n, 12);
}

#[test]
fn bad_apache_options_are_located_errors() {
    let good = scenario("minidisk", "", 40);
    let bad = |text: String, field: &str| {
        let e = crate::config::scenario::parse(&text, "t.toml", &[])
            .err()
            .expect("refused");
        assert_eq!(e.field, field, "{e}");
    };
    bad(
        good.replace("server = \"web\"", "server = \"client\""),
        "workloads.client.apache.server",
    );
    bad(
        good.replace("users = 1\n", "users = 2\n"),
        "workloads.web.users",
    );
    bad(
        good.replace("file_set = 40", "file_set = 4000"),
        "workloads.web.apache.file_set",
    );
}

/// Under CMMA the pages a readahead window reads become volatile once the read completes, as
/// any clean page-cache page does; CP takes them without a page-out, and the next reference to
/// one it took is a discard fault that reads the window again (linux/filemap.rs). The
/// servers' 600 MB file set on 448M of central storage makes CP take their frames.
#[test]
fn readahead_pages_become_volatile_and_are_discarded() {
    let text = |cmma: bool| {
        let mut s = scenario("minidisk", "", 600)
            .replacen("central = \"2G\"", "central = \"448M\"", 1)
            .replacen("mem=1280M", if cmma { "cmma=on" } else { "" }, 1);
        if cmma {
            s += "[[console]]\nat = \"0s\"\ncp = \"SET MEMASSIST ON ALL\"\n";
        }
        s
    };
    let n = |s: &serde_json::Map<String, serde_json::Value>, k: &str| s[k].as_f64().unwrap();
    let on = run(&text(true)).summary();
    assert!(n(&on, "transactions") > 100.0);
    assert!(
        n(&on, "cmma_volatile_pages") > 1_000.0,
        "{}",
        on["cmma_volatile_pages"]
    );
    assert!(n(&on, "guest_discard_faults") > 0.0, "no discard fault");
    // Every page of a CMMA guest's storage (256M) is in one of the three states.
    let states = n(&on, "cmma_unused_pages") + n(&on, "cmma_volatile_pages");
    let stable = n(&on, "cmma_stable_pages");
    assert!(stable > 0.0);
    assert_eq!(stable + states, n(&on, "cmma_guests") * 65536.0);
    let off = run(&text(false)).summary();
    assert_eq!(n(&off, "cmma_volatile_pages"), 0.0);
    assert_eq!(
        n(&off, "cmma_stable_pages"),
        0.0,
        "not tracked without CMMA"
    );
    assert_eq!(n(&off, "guest_discard_faults"), 0.0);
}
