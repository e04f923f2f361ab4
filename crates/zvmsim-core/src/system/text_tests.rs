//! Program text as files (`[workloads.W.appserver.text]`): in a DCSS mounted xip the text is
//! the segment's one shared copy, in no guest's page cache; on a shared minidisk each guest
//! reads it into its own page cache.

use super::mdc_tests::sim;

/// Three WebSphere-like guests; their 16 MB of program text is copied by LNX01 into a shared
/// SN DCSS and mounted read-only with xip at /optdcss (`files_on`), or (the test removes
/// `files_on` and the DCSS) read from the shared `files` minidisk.
const TEXT: &str = r#"
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
count = 3
storage = "128M"
workload = "was"
dasd = [{ use = "files", model = "3390-3", count = 1, shared = true }]
linux = { kernel = "8M", min_free = "2M", parameters = "mem=512M" }

[workloads.was]
kind = "appserver"
users = 4
think_time = "5ms"

[workloads.was.appserver]
heap = "16M"
cpu_per_request = "1ms"
refs_per_request = 20

[workloads.was.appserver.text]
size = "16M"
refs_per_request = 10
skew = 0.5
files_on = "/optdcss"

[[console]]
at = "0s"
cp = "SET PRIVCLASS CMSDCSS +E"
[[console]]
at = "1s"
user = "CMSDCSS"
cp = "defseg WASTEXT 10000-13FFF sn"
[[console]]
at = "1s"
user = "CMSDCSS"
cp = "saveseg WASTEXT"
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
linux = "echo WASTEXT > /sys/devices/dcssblk/add"
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
linux = "dd if=/opt/was.img of=/mnt/was.img bs=1M count=16"
[[console]]
at = "2s"
user = "LNX01"
linux = "umount /mnt"
[[console]]
at = "3s"
user = "LNX0*"
linux = "mount -t ext2 -o ro,xip /dev/dcssblk0 /optdcss"
"#;

const TEXT_PAGES: u32 = 16 << 8;

/// Pages of the text file set in guest `g`'s page cache.
fn cached_text(s: &super::Simulation, g: usize) -> u32 {
    (0..TEXT_PAGES)
        .filter(|&b| s.m.guests[g].mem.cached_page(b).is_some())
        .count() as u32
}

#[test]
fn xip_text_is_one_shared_copy_in_no_page_cache() {
    let mut s = sim(TEXT);
    s.run();
    s.check_invariants().unwrap();
    assert!(s.m.guests.iter().all(|g| g.text_files.is_some()), "mounted");
    let rows = s.system_rows();
    assert!(rows.iter().all(|r| r.throughput_tx_per_s > 0.0));
    // No text I/O and no text page in any page cache: the guests run it in the segment.
    assert!(rows.iter().all(|r| r.virtual_io_per_s == 0.0));
    for g in 0..3 {
        assert_eq!(cached_text(&s, g), 0, "guest {g}");
    }
    // Counted once: the segment's loaded pages (ext2 metadata, the copy, the text run) are
    // at most the 64 MB segment, not three copies; and the text the guests ran is among them.
    let seg = s.m.storage.segment_counts();
    assert!(seg.loaded <= 64 << 8, "loaded {}", seg.loaded);
    assert!(
        seg.resident > TEXT_PAGES as u64 / 2,
        "resident {}",
        seg.resident
    );
    let last = rows.last().unwrap();
    assert_eq!(last.dcss_loaded_pages, Some(seg.loaded));
    assert_eq!(last.dcss_dasd_pages, Some(0));
}

/// The scenario with the text on the `use = "files"` minidisks (no `files_on`) and without
/// its console commands.
fn minidisk_text() -> String {
    let text: String = TEXT
        .lines()
        .filter(|l| !l.starts_with("files_on"))
        .collect::<Vec<_>>()
        .join("\n");
    match text.find("[[console]]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[test]
fn minidisk_text_is_read_into_every_guests_page_cache() {
    let text = minidisk_text();
    let mut s = sim(&text);
    s.run();
    s.check_invariants().unwrap();
    assert!(s.m.guests.iter().all(|g| g.text_files.is_none()));
    assert!(s.system_rows().iter().all(|r| r.throughput_tx_per_s > 0.0));
    // Each guest holds its own copy of the text it ran: most of the 16 MB (skew 0.5 spreads
    // the 10 references of each request over the whole set).
    for g in 0..3 {
        let n = cached_text(&s, g);
        assert!(n > TEXT_PAGES / 2, "guest {g}: {n} text pages cached");
    }
    assert_eq!(s.m.storage.segment_counts().loaded, 0);
    assert!(s.system_rows()[0].dcss_loaded_pages == Some(0));
}

#[test]
fn text_on_minidisks_too_small_or_more_refs_than_steps_is_refused() {
    let more = TEXT.replace("refs_per_request = 10", "refs_per_request = 30");
    let e = match super::Simulation::from_toml(&more, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted"),
    };
    assert_eq!(e.field, "workloads.was.appserver.text.refs_per_request");
    let big = TEXT
        .replace("size = \"16M\"", "size = \"4G\"")
        .replace("files_on = \"/optdcss\"\n", "");
    let e = match super::Simulation::from_toml(&big, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted"),
    };
    assert_eq!(e.field, "workloads.was.appserver.text.size");
    assert!(e.detail.contains("LNX%02d"), "{}", e.detail);
}

/// With `runtime` the requests run only the first pages of the file set (a started Java
/// server's native code): the minidisk guests read nothing beyond it (its last 128 KB
/// readahead window), however spread the references are.
#[test]
fn requests_run_only_the_runtime_part_of_the_file_set() {
    let text = minidisk_text();
    let text = text.replace("size = \"16M\"", "size = \"16M\"\nruntime = \"2M\"");
    let mut s = sim(&text);
    s.run();
    s.check_invariants().unwrap();
    let run = 2 << 8;
    for g in 0..3 {
        let past = (run..TEXT_PAGES)
            .filter(|&b| s.m.guests[g].mem.cached_page(b).is_some())
            .count();
        assert_eq!(past, 0, "guest {g}: pages beyond the runtime part cached");
        assert!(cached_text(&s, g) > run / 2, "guest {g}");
    }
    let big = TEXT.replace("size = \"16M\"", "size = \"16M\"\nruntime = \"32M\"");
    let e = match super::Simulation::from_toml(&big, "t.toml", None, &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted"),
    };
    assert_eq!(e.field, "workloads.was.appserver.text.runtime");
}
