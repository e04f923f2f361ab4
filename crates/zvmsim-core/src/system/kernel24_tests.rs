//! Seed 004's setup on its SLES 8 guest (`scenarios/disk-io/pav-iozone.toml`): the 2.4 DASD
//! driver takes each static PAV alias CP attaches for a disk of its own; LVM1's tools make a
//! volume group on the base's partition and the multipath patch finds the volume through
//! every alias; `pvpath` enables the paths. What the guest prints is 2.4's.

use super::Simulation;

/// The console entries of pav-iozone.toml.
const PVCREATE: usize = 2;
const VGCREATE: usize = 3;
const LVCREATE: usize = 4;
const FIRST_PVPATH: usize = 5;
const LAST: usize = 16;

fn sim(ovr: &[String]) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/disk-io/pav-iozone.toml");
    let text = std::fs::read_to_string(&path).expect("scenario file");
    Simulation::from_toml(&text, "pav-iozone.toml", Some(1), ovr).expect("valid")
}

/// Types `cmd` in the guest through the last console entry; its response.
fn typed(s: &mut Simulation, cmd: &str) -> Vec<String> {
    s.scenario.console[LAST].linux = Some(cmd.to_string());
    s.run_console(LAST);
    s.console.last().expect("a console line").response.clone()
}

/// The response of the console entry `i` of the scenario (the log also has the logon's
/// DEDICATE lines).
fn line(s: &Simulation, i: usize) -> Vec<String> {
    let cmd = s.scenario.console[i]
        .linux
        .clone()
        .expect("a Linux command");
    let e = s.console.iter().find(|e| e.command == cmd).expect("logged");
    e.response.clone()
}

/// Channel programs run on each of 5680 and its aliases 56B9-56BF.
fn ios(s: &Simulation) -> Vec<u64> {
    std::iter::once(0x5680)
        .chain(0x56B9..=0x56BF)
        .map(|r| s.m.io.sub(s.m.io.by_rdev(r).expect("device")).stats.ios)
        .collect()
}

#[test]
fn the_seeds_lvm1_setup_makes_one_volume_of_eight_paths() {
    let mut s = sim(&[]);
    s.step_until(1);
    assert_eq!(
        line(&s, PVCREATE),
        [
            "pvcreate -- physical volume \"/dev/dasdc1\" successfully created",
            ""
        ]
    );
    assert_eq!(line(&s, VGCREATE).len(), 5);
    assert_eq!(
        line(&s, LVCREATE)[1],
        "lvcreate -- logical volume \"/dev/vg_kb/lv_kb\" successfully created"
    );
    // The seed's 3390-9: 1759 extents of 4 MB, all in lv_kb.
    let vg = line(&s, 13);
    assert_eq!(vg[14], "Total PE              1759");
    assert_eq!(vg[15], "Alloc PE / Size       1759 / 6.87 GB");
    assert_eq!(
        line(&s, 14)[0],
        "lvscan -- ACTIVE            \"/dev/vg_kb/lv_kb\" [6.87 GB]"
    );
    // The guest's own disks, then the base and its seven aliases, eight disks of the
    // volume's size: the seed's lines for the first three.
    let devices = line(&s, 15);
    assert_eq!(devices.len(), 10);
    assert_eq!(
        devices[..3],
        [
            "5794(ECKD) at ( 94:  0) is dasda      : active at blocksize: 4096, 1803060 blocks, 7043 MB",
            "5593(ECKD) at ( 94:  4) is dasdb      : active at blocksize: 4096, 601020 blocks, 2347 MB",
            "5680(ECKD) at ( 94:  8) is dasdc      : active at blocksize: 4096, 1803060 blocks, 7043 MB"
        ]
    );
    // The seed's /proc/subchannels row, but for the subchannel number (the seed's guest had
    // 48 devices before it; zvmsim's has its two disks).
    let sch = line(&s, 16);
    assert_eq!(
        sch[0],
        "Device sch.  Dev Type/Model CU  in use  PIM PAM POM CHPIDs"
    );
    assert_eq!(
        sch[11],
        "56BF   0009  3390/0C   3990/E9  yes     FC  FC  FF  C6C7C8CA CBC90000"
    );
    // The eight paths, each the first partition of its disk, as the seed lists the first two.
    let q = line(&s, 12);
    assert_eq!(q[0], "Physical volume /dev/dasdc1 of vg_kb has 8 paths:");
    assert_eq!(q[2], " #  0:  94:9        0      0       0 enabled");
    assert_eq!(q[3], " #  1:  94:13       0      0       0 enabled");
    assert!(
        q[9].contains(" 94:37 ") && q[9].ends_with(" enabled"),
        "{q:?}"
    );
}

#[test]
fn rejected_lvm1_commands_change_nothing() {
    let mut s = sim(&[]);
    s.step_until(1);
    let before = format!("{:?}", s.m.guests[0].lvm);
    for cmd in [
        // The label is on the volume: every alias disk shows it too.
        "pvcreate /dev/dasde1",
        "vgcreate vg_kb /dev/dasdc1",
        "vgcreate vg2 /dev/dasdd1",
        "vgcreate vg2 /dev/dasda1",
        "lvcreate -l 1 -n more vg_kb",
        "lvcreate -L 10G vg_nosuch",
        "vgdisplay vg_nosuch",
    ] {
        let out = typed(&mut s, cmd);
        assert!(
            out[0].starts_with("not simulated by zvmsim"),
            "{cmd}: {out:?}"
        );
    }
    assert_eq!(format!("{:?}", s.m.guests[0].lvm), before);
    // Tools 2.4 does not have, or whose SLES 8 output zvmsim does not print.
    assert_eq!(
        typed(&mut s, "chzdev dasd 5680 -e"),
        ["-bash: chzdev: command not found"]
    );
    for cmd in ["free", "lsdasd", "cat /proc/meminfo", "vgdisplay -v vg_kb"] {
        assert_eq!(
            typed(&mut s, cmd),
            [format!("not simulated by zvmsim: {cmd}")],
            "{cmd}"
        );
    }
}

#[test]
fn the_aliases_carry_io_only_as_paths_of_the_volume_group() {
    // Without the volume group the aliases are idle disks; iozone writes through the base.
    let no_vg: Vec<String> = (PVCREATE..=LVCREATE)
        .chain(FIRST_PVPATH..FIRST_PVPATH + 7)
        .map(|i| format!("console[{i}].linux=\"lvscan\""))
        .collect();
    let mut s = sim(&no_vg);
    s.step_until(3_000_000_000);
    let plain = ios(&s);
    assert!(
        plain[0] > 0 && plain[1..].iter().all(|&n| n == 0),
        "{plain:?}"
    );
    // With it, and every path enabled, each alias takes a share.
    let mut s = sim(&[]);
    s.step_until(3_000_000_000);
    let spread = ios(&s);
    assert!(spread.iter().all(|&n| n > 0), "{spread:?}");
    s.check_io().expect("I/O invariants");
}
