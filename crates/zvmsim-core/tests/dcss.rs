//! Saved segments end to end: seed 000's setup commands answer as the seed shows, the load
//! times follow from page counts and spool bandwidth, and rejected commands change nothing.

mod common;

use common::dcss::{answer, lines, run, sim};

#[test]
fn sr_8g_setup_answers_as_the_seed_shows_and_takes_the_seeds_times() {
    let s = run("load-sr-8g.toml");
    s.check_invariants().expect("invariants");
    let l = lines(&s);
    let save = answer(&l, "saveseg DCSS8G1");
    assert_eq!(
        save.1,
        vec!["HCPNSS440I Saved segment DCSS8G1 was successfully saved in fileid 0001."]
    );
    assert_eq!(
        answer(&l, "q nss name map DCSS8G1").1,
        vec![
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0001 DCSS8G1 DCSSG 0000000020000 000000009FEFF SR A 00000"
        ]
    );
    assert_eq!(
        answer(&l, "ls /sys/devices/dcssblk/DCSS8G1/block/dcssblk0").1,
        vec![
            "bdi dev holders removable size stat uevent",
            "capability device range ro slaves subsystem"
        ]
    );
    let ls = &answer(&l, "ls -l /sys/devices/dcssblk/DCSS8G1").1;
    let names: Vec<&str> = ls[1..]
        .iter()
        .filter_map(|x| x.rsplit(' ').next())
        .collect();
    assert_eq!(names, ["block", "save", "seglist", "shared", "uevent"]);
    assert_eq!(
        answer(&l, "cat /sys/devices/dcssblk/DCSS8G1/seglist").1,
        ["DCSS8G1", "DCSS8G2", "DCSS8G3", "DCSS8G4"]
    );
    // Table 5 (8 GB): CMS save 11 min, first add 8 min, within 15 %.
    let cms: f64 = l
        .iter()
        .filter(|x| x.0.starts_with("saveseg"))
        .filter_map(|x| x.2)
        .sum();
    assert!((cms / 660.0 - 1.0).abs() < 0.15, "CMS save {cms} s");
    let add = "time echo DCSS8G1:DCSS8G2:DCSS8G3:DCSS8G4 > /sys/devices/dcssblk/add";
    let first = answer(&l, add).2.expect("timed");
    assert!((first / 480.0 - 1.0).abs() < 0.15, "first add {first} s");
    // dd fills the file system until it is full and prints as coreutils 6.12 does.
    let dd = answer(
        &l,
        "time dd if=/mnt2/testcase0-data of=/mnt/testcase0-data bs=268435456",
    );
    let (resp, secs) = (&dd.1, dd.2.expect("timed"));
    assert_eq!(
        resp[0],
        "dd: writing `/mnt/testcase0-data': No space left on device"
    );
    let records = |line: &str| -> u64 { line.split('+').next().unwrap().parse().unwrap() };
    let out = records(&resp[2]);
    assert_eq!(records(&resp[1]), out + 1, "{resp:?}");
    assert!(resp[2].ends_with("+0 records out"));
    let bytes: u64 = resp[3].split(' ').next().unwrap().parse().unwrap();
    assert!(bytes / 268_435_456 == out && bytes > 7 << 30, "{resp:?}");
    assert!(resp[3].contains(" GB) copied, "), "{resp:?}");
    // The rate is the bytes over dd's own time, which is the command's.
    let rate: f64 = resp[3]
        .rsplit(", ")
        .next()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (rate / (bytes as f64 / secs / 1e6) - 1.0).abs() < 0.01,
        "{resp:?} in {secs} s"
    );
    assert!(resp[3].ends_with(" MB/s"), "{resp:?}");
    assert!(resp[4].starts_with("real "), "{resp:?}");
    // The save asked for while mounted ran at the umount, as dcssblk defers it.
    let umount = answer(&l, "time umount /mnt").2.expect("timed");
    assert!(umount > 0.5 * cms, "Linux save {umount} s");
    // A run with a spool for saved segments reports where their pages are, per interval: by
    // its end the 8 GB the dd wrote are loaded, each page counted once.
    let last = s.system_rows().last().expect("rows");
    let loaded = last.dcss_loaded_pages.expect("segment pages reported");
    assert!(loaded > (7 << 30) / 4096, "{loaded} pages loaded");
    // Each page once, wherever it is: at least the resident and XSTOR pages (which exclude
    // each other), at most those and the DASD slots (a page may keep its slot), and never
    // more than the four segments' 4 x 2047 MB.
    let (r, x, d) = (
        last.dcss_resident_pages.unwrap(),
        last.dcss_xstor_pages.unwrap(),
        last.dcss_dasd_pages.unwrap(),
    );
    assert!(
        r + x <= loaded && loaded <= r + x + d,
        "{r} {x} {d} {loaded}"
    );
    assert!(loaded <= 4 * 2047 * 256, "{loaded}");
}

#[test]
fn rejected_commands_answer_with_cp_messages_and_errno_and_change_nothing() {
    let map = "QUERY NSS MAP";
    let script: Vec<(&str, &str, &str)> = vec![
        ("CMSUSER", "cp", "DEFSEG DCSS1G 20000-5FFFF SR"),
        ("MAINT", "cp", "SET PRIVCLASS CMSUSER +E"),
        ("CMSUSER", "cp", "DEFSEG DCSS1G 20000-5FFFF SN"),
        ("CMSUSER", "cp", "SAVESEG DCSS1G"),
        ("CMSUSER", "cp", map),
        ("CMSUSER", "cp", "DEFSEG"),
        ("CMSUSER", "cp", "DEFSEG TOOLONGNAME 20000-5FFFF SN"),
        ("CMSUSER", "cp", "DEFSEG BAD 5FFFF-20000 SN"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-5FFFF XX"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-5FFFF"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-AFFFF SN"),
        ("CMSUSER", "cp", "DEFSEG BAD 8000000-8000FFF SN"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-5FFFF SR LOADNSHR RSTD"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-5FFFF SC LOADNSHR"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-3FFFF SN 30000-5FFFF SR"),
        ("CMSUSER", "cp", "DEFSEG BAD 20000-5FFFF SN FROB"),
        ("CMSUSER", "cp", "SAVESEG NOSUCH"),
        ("CMSUSER", "cp", "SAVESEG"),
        ("CMSUSER", "cp", "PURGE NSS NAME NOSUCH"),
        ("CMSUSER", "cp", map),
        ("LNX001", "linux", "echo DCSS1G > /sys/devices/dcssblk/add"),
        ("LNX001", "linux", "modprobe dcssblk"),
        ("LNX001", "linux", "echo NOSUCH > /sys/devices/dcssblk/add"),
        (
            "LNX001",
            "linux",
            "echo TOOLONGNAME > /sys/devices/dcssblk/add",
        ),
        ("LNX001", "linux", "echo DCSS1G: > /sys/devices/dcssblk/add"),
        (
            "LNX001",
            "linux",
            "echo NOSUCH > /sys/devices/dcssblk/remove",
        ),
        ("LNX001", "linux", "mknod /dev/dcssblk0 b 252 0"),
        ("LNX001", "linux", "echo DCSS1G > /sys/devices/dcssblk/add"),
        ("LNX001", "linux", "echo DCSS1G > /sys/devices/dcssblk/add"),
        (
            "LNX001",
            "linux",
            "echo 2 > /sys/devices/dcssblk/DCSS1G/shared",
        ),
        ("LNX001", "linux", "mount -t ext2 /dev/dcssblk0 /mnt"),
        ("LNX001", "linux", "mke2fs -b 4096 /dev/dcssblk0"),
        ("LNX001", "linux", "mount -t ext2 -o xip /dev/dcssblk0 /mnt"),
        (
            "LNX001",
            "linux",
            "echo 0 > /sys/devices/dcssblk/DCSS1G/shared",
        ),
        (
            "LNX001",
            "linux",
            "echo DCSS1G > /sys/devices/dcssblk/remove",
        ),
        ("LNX001", "linux", "umount /opt"),
        ("MAINT", "cp", "SET PRIVCLASS NOBODY +E"),
        ("CMSUSER", "cp", map),
    ];
    let s = sim(&script);
    s.check_invariants().expect("invariants");
    let got: Vec<Vec<String>> = lines(&s).into_iter().map(|x| x.1).collect();
    let want: Vec<Vec<&str>> = vec![
        vec!["HCPCMD001E Unknown CP command: DEFSEG"],
        vec![],
        vec!["HCPNSD440I Saved segment DCSS1G was successfully defined in fileid 0001."],
        vec!["HCPNSS440I Saved segment DCSS1G was successfully saved in fileid 0001."],
        vec![
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0001 DCSS1G DCSS 0000000020000 000000005FFFF SN A 00000",
        ],
        vec!["HCPNSD026E Operand missing or invalid"],
        vec!["HCPNSD002E Invalid operand - TOOLONGNAME"],
        vec!["HCPNSD002E Invalid operand - 5FFFF-20000"],
        vec!["HCPNSD003E Invalid option - XX"],
        vec!["HCPNSD026E Operand missing or invalid"],
        vec!["HCPNSD002E Invalid operand - 20000-AFFFF"],
        vec!["HCPNSD002E Invalid operand - 8000000-8000FFF"],
        vec!["HCPNSD003E Invalid option - RSTD"],
        vec!["HCPNSD003E Invalid option - LOADNSHR"],
        vec!["HCPNSD002E Invalid operand - 30000-5FFFF"],
        vec!["HCPNSD003E Invalid option - FROB"],
        vec!["HCPNSS002E Invalid operand - NOSUCH"],
        vec!["HCPNSS026E Operand missing or invalid"],
        vec!["HCP003E Invalid option - NOSUCH"],
        vec![
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0001 DCSS1G DCSS 0000000020000 000000005FFFF SN A 00000",
        ],
        vec!["-bash: /sys/devices/dcssblk/add: No such file or directory"],
        vec![],
        vec!["-bash: echo: write error: No such file or directory"],
        vec!["-bash: echo: write error: File name too long"],
        vec!["-bash: echo: write error: File name too long"],
        vec!["-bash: echo: write error: No such device"],
        vec![],
        vec![],
        vec!["-bash: echo: write error: File exists"],
        vec!["-bash: echo: write error: Invalid argument"],
        vec!["mount: wrong fs type, bad option, bad superblock on /dev/dcssblk0,"],
        // e2fsprogs 1.41.9's mke2fs on a 1 GB device (linux/mke2fs.rs); the lines squashed.
        vec![
            "mke2fs 1.41.9 (22-Aug-2009)",
            "Filesystem label=",
            "OS type: Linux",
            "Block size=4096 (log=2)",
            "Fragment size=4096 (log=2)",
            "65536 inodes, 262144 blocks",
            "13107 blocks (5.00%) reserved for the super user",
            "First data block=0",
            "Maximum filesystem blocks=268435456",
            "8 block groups",
            "32768 blocks per group, 32768 fragments per group",
            "8192 inodes per group",
            "Superblock backups stored on blocks:",
            "32768, 98304, 163840, 229376",
            "",
            "Writing inode tables: done",
            "Writing superblocks and filesystem accounting information: done",
            "",
            "This filesystem will be automatically checked every 31 mounts or",
            "180 days, whichever comes first. Use tune2fs -c or -i to override.",
        ],
        vec![],
        vec!["-bash: echo: write error: Device or resource busy"],
        vec!["-bash: echo: write error: Device or resource busy"],
        vec!["umount: /opt: not mounted"],
        vec!["HCP045E NOBODY not logged on"],
        vec![
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0001 DCSS1G DCSS 0000000020000 000000005FFFF SN A 00001",
        ],
    ];
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {k}: {}", script[k].2);
    }
}

/// dcssblk's add and `shared` as the 4.18 kernel has them (dcssblk.c, extmem.c, vmem.c).
#[test]
fn dcssblk_add_and_shared_follow_the_kernel() {
    let mut script: Vec<(&str, &str, &str)> = vec![("MAINT", "cp", "SET PRIVCLASS CMSUSER +E")];
    for (def, name) in [
        ("DEFSEG A 20000-2FFFF EW", "SAVESEG A"),
        ("DEFSEG B 30000-3FFFF EN", "SAVESEG B"),
        ("DEFSEG C 40000-47FFF SC", "SAVESEG C"),
        ("DEFSEG E2 48000-4FFFF EW", "SAVESEG E2"),
        ("DEFSEG R2 50000-57FFF ER", "SAVESEG R2"),
        ("DEFSEG LOW 10000-1FFFF SN", "SAVESEG LOW"),
    ] {
        script.push(("CMSUSER", "cp", def));
        script.push(("CMSUSER", "cp", name));
    }
    let at = "/sys/devices/dcssblk";
    let linux = [
        "modprobe dcssblk".to_string(),
        // Typed in reverse address order: the kernel sorts them; EN and EW may be mixed.
        format!("echo B:A > {at}/add"),
        format!("cat {at}/B/shared"),
        format!("echo 1 > {at}/B/shared"),
        format!("echo E2:R2 > {at}/add"),
        format!("echo C > {at}/add"),
        format!("echo 0 > {at}/C/shared"),
        format!("echo LOW > {at}/add"),
        format!("echo NOSUCH > {at}/add"),
        format!("cat {at}/B/seglist"),
        format!("echo A > {at}/B/seglist"),
        "dmesg".to_string(),
    ];
    let first = script.len();
    script.extend(linux.iter().map(|c| ("LNX001", "linux", c.as_str())));
    script.push(("CMSUSER", "cp", "QUERY NSS MAP"));
    let s = sim(&script);
    s.check_invariants().expect("invariants");
    let got: Vec<Vec<String>> = lines(&s).into_iter().map(|x| x.1).collect();
    let l = &got[first..];
    let err = |e: &str| vec![format!("-bash: echo: write error: {e}")];
    assert_eq!(l[1], Vec::<String>::new(), "B:A is added");
    assert_eq!(l[2], vec!["1"], "is_shared is 1 after an add");
    assert_eq!(l[3], Vec::<String>::new(), "already shared: accepted");
    assert_eq!(l[4], err("Invalid argument"), "ER mixes with nothing");
    assert_eq!(l[5], Vec::<String>::new());
    assert_eq!(l[6], err("Invalid argument"), "SC cannot go exclusive");
    assert_eq!(l[7], err("No space left on device"), "LOW overlaps storage");
    assert_eq!(l[8], err("No such file or directory"));
    // seglist lists them as typed; it has no store (kernfs: EACCES).
    assert_eq!(l[9], vec!["B", "A"]);
    assert_eq!(
        l[10],
        vec![format!("-bash: {at}/B/seglist: Permission denied")]
    );
    let dmesg = l[11].join("\n");
    for line in [
        "DCSS B is already in the requested access mode",
        "DCSS A is already in the requested access mode",
        "DCSS E2 and DCSS R2 have incompatible types",
        "DCSS C is of type SC and cannot be loaded as exclusive-writable",
        "DCSS LOW overlaps with used storage and cannot be loaded",
        "Querying a DCSS type failed with rc=44",
        "DCSS NOSUCH cannot be loaded or queried",
        "Loaded B:A with total size 536870912 bytes and capacity 1048576 sectors",
    ] {
        assert!(dmesg.contains(line), "{line} not in:\n{dmesg}");
    }
    // B is logged before A, as typed.
    let (b, a) = (
        dmesg.find("DCSS B of range").unwrap(),
        dmesg.find("DCSS A of range").unwrap(),
    );
    assert!(b < a && dmesg.contains("and type EN loaded in shared access mode"));
    // A SLES guest's kernel prefixes each line with its component and IBM's message number
    // (linux/kmsg.rs), and prints the addresses as they are.
    for line in [
        "dcssblk.dd556f: DCSS E2 and DCSS R2 have incompatible types",
        "extmem.e08a4c: DCSS LOW overlaps with used storage and cannot be loaded",
        "dcssblk.f259b2: Loaded B:A with total size 536870912 bytes",
    ] {
        assert!(dmesg.contains(line), "{line} not in:\n{dmesg}");
    }
    assert!(
        dmesg
            .lines()
            .filter(|l| l.contains(" of range "))
            .all(|l| l.starts_with("extmem.aa62ff: DCSS ") && l.contains(" of range 00000000")),
        "{dmesg}"
    );
}

/// The driver's save types DEFSEG with the ranges and types alone (extmem.c's segment_save):
/// the file it saves has no LOADNSHR, so the segment the study defined `sr loadnshr` can no
/// longer be loaded exclusive once Linux has saved it: the driver's reload fails, and it
/// removes the device (dcssblk.c, `dcssblk_shared_store`) with EIO (extmem.c's translation).
#[test]
fn a_linux_save_drops_loadnshr() {
    let add = "echo DCSS1G > /sys/devices/dcssblk/add";
    let shared = "echo 0 > /sys/devices/dcssblk/DCSS1G/shared";
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSUSER +E"),
        // The Linux guest's save is CP's DEFSEG and SAVESEG too: class E.
        ("MAINT", "cp", "SET PRIVCLASS LNX001 +E"),
        ("CMSUSER", "cp", "DEFSEG DCSS1G 20000-5FFFF SR LOADNSHR"),
        ("CMSUSER", "cp", "SAVESEG DCSS1G"),
        ("LNX001", "linux", "modprobe dcssblk"),
        ("LNX001", "linux", "mknod /dev/dcssblk0 b 252 0"),
        ("LNX001", "linux", add),
        ("LNX001", "linux", shared),
        (
            "LNX001",
            "linux",
            "echo 1 > /sys/devices/dcssblk/DCSS1G/save",
        ),
        (
            "LNX001",
            "linux",
            "echo DCSS1G > /sys/devices/dcssblk/remove",
        ),
        ("LNX001", "linux", add),
        ("LNX001", "linux", shared),
        ("LNX001", "linux", "ls /sys/devices/dcssblk"),
        ("CMSUSER", "cp", "QUERY NSS MAP"),
    ];
    let s = sim(&script);
    s.check_invariants().expect("invariants");
    let got: Vec<Vec<String>> = lines(&s).into_iter().map(|x| x.1).collect();
    // The first change to exclusive is accepted, the second fails and the device is gone.
    assert_eq!(got[7], Vec::<String>::new());
    assert_eq!(
        got[11],
        vec!["-bash: echo: write error: Input/output error"]
    );
    assert_eq!(got[12], vec!["add remove uevent"]);
    // One file, the one Linux saved, no longer loaded by anyone.
    assert_eq!(
        got[13],
        vec![
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0002 DCSS1G DCSS 0000000020000 000000005FFFF SR A 00000",
        ]
    );
}

#[test]
fn one_segment_dcss_of_1_and_2_gb_set_up_as_the_seed_shows() {
    let mut save = std::collections::HashMap::new();
    for (kind, gb, name, end) in [
        ("sr", 1, "DCSS1G", "5FFFF"),
        ("sr", 2, "DCSS2G", "9FEFF"),
        ("sn", 1, "DCSS1G", "5FFFF"),
        ("sn", 2, "DCSS2G", "9FEFF"),
    ] {
        let s = run(&format!("load-{kind}-{gb}g.toml"));
        s.check_invariants().expect("invariants");
        let l = lines(&s);
        let saved = answer(&l, &format!("saveseg {name}"));
        assert_eq!(
            saved.1,
            vec![format!(
                "HCPNSS440I Saved segment {name} was successfully saved in fileid 0001."
            )]
        );
        // CP names a segment reaching above 2 GB DCSSG (seed: "DCSSG" in QUERY NSS MAP).
        let ftype = if gb == 1 { "DCSS" } else { "DCSSG" };
        assert_eq!(
            answer(&l, &format!("q nss name map {name}")).1[1],
            format!(
                "0001 {name} {ftype} 0000000020000 00000000{end} {} A 00000",
                kind.to_uppercase()
            )
        );
        assert_eq!(
            answer(&l, &format!("cat /sys/devices/dcssblk/{name}/seglist")).1,
            [name]
        );
        save.insert((kind, gb), saved.2.expect("timed"));
    }
    // An SR save writes every page to spool, so twice the pages take about twice the time; an
    // SN save writes none ("little overhead on CP to create and save data").
    let (sr1, sr2) = (save[&("sr", 1)], save[&("sr", 2)]);
    assert!(sr2 > 1.5 * sr1, "SR save 1 GB {sr1} s, 2 GB {sr2} s");
    assert!(
        save[&("sn", 2)] < 0.01 * sr2,
        "SN save {} s",
        save[&("sn", 2)]
    );
}

#[test]
fn dd_onto_a_missing_or_read_only_device_answers_as_coreutils_does() {
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSUSER +E"),
        ("CMSUSER", "cp", "DEFSEG DCSS1G 20000-5FFFF SR"),
        ("CMSUSER", "cp", "SAVESEG DCSS1G"),
        ("LNX001", "linux", "modprobe dcssblk"),
        ("LNX001", "linux", "mknod /dev/dcssblk0 b 252 0"),
        ("LNX001", "linux", "echo DCSS1G > /sys/devices/dcssblk/add"),
        (
            "LNX001",
            "linux",
            "dd if=/opt/x of=/dev/dcssblk7 bs=1M count=1",
        ),
        (
            "LNX001",
            "linux",
            "dd if=/opt/x of=/dev/dcssblk0 bs=1M count=1",
        ),
        ("CMSUSER", "cp", "QUERY NSS MAP"),
    ];
    let s = sim(&script);
    let l = lines(&s);
    assert_eq!(
        answer(&l, "dd if=/opt/x of=/dev/dcssblk7 bs=1M count=1").1,
        ["dd: opening `/dev/dcssblk7': No such file or directory"]
    );
    // An SR segment loaded shared is a read-only disk: the open succeeds, the write fails.
    assert_eq!(
        answer(&l, "dd if=/opt/x of=/dev/dcssblk0 bs=1M count=1").1,
        [
            "dd: writing `/dev/dcssblk0': Operation not permitted",
            "1+0 records in",
            "0+0 records out",
            "0 bytes (0 B) copied, 0 s, Infinity B/s"
        ]
    );
}
