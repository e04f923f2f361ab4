//! VDISKs and swap devices in a running guest: seed 000's VDISK procedure (SET VDISK, DEF
//! VFB-512, DEF to renumber, Q V, mkswap, swapon, swapon -s, swapoff) answers as the seed
//! shows, and every rejected CP or Linux command answers with CP's message or the errno of
//! the tool and leaves the VDISKs, their limits and the guest's swap areas as they were.

use std::fmt::Write;

use super::Simulation;

/// One 256 MB guest whose server keeps 300 MB of heap in use (about 80 MB on its DASD swap
/// partition /dev/dasda2), limits of 1.5 GB and 1 GB, and a 1 GB VDISK 2000 renumbered 29F.
const BASE: &str = concat!(
    r#"
[lpar]
ifls = 2
central = "4G"
zvm_level = "5.4"

[paging]
volumes = [{ model = "3390-9", count = 1 }]

[run]
priming = "1s"
measure = "2s"
interval = "1s"

"#,
    // The guest and its server, as in tests/hardening/console_bases.rs.
    include_str!("../../tests/data/fragments/appserver_swap_guest.toml"),
    r#"
[[console]]
cp = "CP set vdisk syslim 1536m"
[[console]]
cp = "CP set vdisk userlim 1g"
[[console]]
at = "1500ms"
user = "LNX001"
cp = "def vfb-512 2000 2097152"
"#
);

fn sim() -> Simulation {
    let mut s = Simulation::from_toml(BASE, "t.toml", None, &[]).expect("valid");
    s.step_until(1_200_000_000);
    s
}

/// Types `cmd` (kind "cp", "linux" or "cms") as `user` through console entry 2.
fn typed(s: &mut Simulation, user: &str, kind: &str, cmd: &str) -> Vec<String> {
    let e = &mut s.scenario.console[2];
    e.user = user.to_string();
    e.cp = (kind == "cp").then(|| cmd.to_string());
    e.linux = (kind == "linux").then(|| cmd.to_string());
    e.cms = (kind == "cms").then(|| cmd.to_string());
    s.run_console(2);
    s.console.last().expect("a console line").response.clone()
}

fn state(s: &mut Simulation) -> String {
    let mut out = String::new();
    for d in &s.m.vdisk.disks {
        write!(
            out,
            "{} {:04x} {} {:?} {};",
            d.guest, d.vdev, d.blocks, d.space, d.linux
        )
        .unwrap();
    }
    let g = &s.m.guests[0];
    write!(
        out,
        "{:?} {:?} spaces {} slots {} used {} sigs {:?}",
        s.m.vdisk.syslim,
        s.m.vdisk.userlim,
        s.m.storage.space_count(),
        g.mem.swap_pages,
        g.mem.swap_used(),
        g.swap_sigs
    )
    .unwrap();
    let l = typed(s, "LNX001", "linux", "swapon -s").join("|");
    out + &l
}

#[test]
fn seed_000_vdisk_procedure() {
    let mut s = sim();
    assert_eq!(
        typed(&mut s, "LNX001", "cp", "def vfb-512 2000 2097152"),
        ["DASD 2000 DEFINED"]
    );
    assert_eq!(
        typed(&mut s, "LNX001", "cp", "def 2000 29f"),
        ["DASD 029F DEFINED"]
    );
    let q = typed(&mut s, "LNX001", "cp", "q v 29f");
    assert!(q[0].starts_with("DASD 029F 9336 (VDSK) R/W"), "{q:?}");
    assert!(
        q[0].contains("2097152 BLK ON DASD  VDSK SUBCHANNEL = "),
        "{q:?}"
    );
    // QUERY VIRTUAL DASD lists it among the guest's DASD, in device-number order.
    let all = typed(&mut s, "LNX001", "cp", "q v dasd");
    assert!(all.contains(&q[0]), "{all:?}");
    let vdevs: Vec<&str> = all.iter().map(|l| &l[5..9]).collect();
    let mut sorted = vdevs.clone();
    sorted.sort_unstable();
    assert_eq!(vdevs, sorted, "{all:?}");
    assert_eq!(
        typed(&mut s, "MAINT", "cp", "q vdisk"),
        ["VDISK LNX001   029F  2097152 BLK"]
    );
    let mk = typed(&mut s, "LNX001", "linux", "mkswap /dev/dasdb1");
    assert_eq!(mk[0], "Setting up swapspace version 1, size = 1048568 KiB");
    assert!(typed(&mut s, "LNX001", "linux", "swapon /dev/dasdb1").is_empty());
    let l = typed(&mut s, "LNX001", "linux", "swapon -s");
    assert!(
        l[1].starts_with("/dev/dasda2") && l[1].ends_with("-1"),
        "{l:?}"
    );
    assert!(
        l[2].starts_with("/dev/dasdb1") && l[2].contains("1048564 0") && l[2].ends_with("-2"),
        "{l:?}"
    );
    let used = s.m.guests[0].mem.area_used(None);
    assert!(
        used > 10_000,
        "the heap beyond the guest is on the DASD: {used}"
    );
    let out = s.m.guests[0].mem.swap_used() - s.m.guests[0].mem.swap_cached();
    assert!(typed(&mut s, "LNX001", "linux", "swapoff /dev/dasda2").is_empty());
    let l = typed(&mut s, "LNX001", "linux", "swapon -s");
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(
        l[1].starts_with("/dev/dasdb1") && l[1].ends_with("-1"),
        "{l:?}"
    );
    // The pages out of memory moved to the VDISK (swap-cache copies were dropped).
    assert_eq!(s.m.guests[0].mem.area_used(Some(0)), out);
    assert_eq!(s.m.guests[0].mem.swap_cached(), 0);
    // They are written in the VDISK's space, beside the signature page.
    let vd = s.m.vdisk.disks[0].space;
    assert_eq!(s.m.storage.space_locations(vd).resident, out + 1);
    // The guest runs on, swapping to the VDISK through the lock.
    s.step_until(3_000_000_000);
    assert!(s.m.vdisk.lock.requests > 100, "{}", s.m.vdisk.lock.requests);
    s.check_invariants().unwrap();
}

#[test]
fn swapgen_defines_and_formats() {
    let mut s = sim();
    assert_eq!(
        typed(&mut s, "LNX001", "cms", "ex SWAPGEN 300 200000 ,"),
        ["DASD 0300 DEFINED"]
    );
    assert!(typed(&mut s, "LNX001", "linux", "swapon /dev/dasdb1").is_empty());
    let l = typed(&mut s, "LNX001", "linux", "swapon -s");
    assert!(
        l[2].starts_with("/dev/dasdb1") && l[2].contains(&format!("{} ", (200_000 / 8 - 3) * 4)),
        "{l:?}"
    );
}

#[test]
fn rejected_commands_change_nothing() {
    let mut s = sim();
    assert_eq!(
        typed(&mut s, "LNX001", "cp", "def vfb-512 2000 2097152"),
        ["DASD 2000 DEFINED"]
    );
    let before = state(&mut s);
    for (kind, cmd, want) in [
        ("cp", "def vfb-512 zz 100", "HCP022E"),
        ("cp", "def vfb-512 300", "HCP026E"),
        ("cp", "def vfb-512 300 abc", "HCP002E"),
        ("cp", "def vfb-512 300 4194297", "HCP002E"),
        ("cp", "def vfb-512 300 0", "HCP002E"),
        ("cp", "def vfb-512 300 10 extra", "HCP003E"),
        (
            "cp",
            "def vfb-512 2000 80",
            "not simulated by zvmsim: DEFINE VFB-512 AS 2000 (virtual device 2000 exists",
        ),
        (
            "cp",
            "def vfb-512 301 1048584",
            "not simulated by zvmsim: DEFINE VFB-512 AS 0301 BLK 1048584: the system limit",
        ),
        (
            "cp",
            "def vfb-512 301 8",
            "not simulated by zvmsim: DEFINE VFB-512 AS 0301 BLK 8: the user limit",
        ),
        ("cp", "set vdisk", "HCP026E"),
        ("cp", "set vdisk frob 1g", "HCP002E Invalid operand - FROB"),
        (
            "cp",
            "set vdisk syslim lots",
            "HCP002E Invalid operand - LOTS",
        ),
        ("cp", "set vdisk userlim 1g blk", "HCP003E"),
        ("cp", "q vdisk frob", "HCP003E Invalid option - FROB"),
        ("cp", "q vdisk syslim extra", "HCP003E"),
        ("cms", "ex SWAPGEN 300 10", "SWAPGEN vdev #blocks"),
        ("cms", "SWAPGEN 300 100 ( FROB", "SWAPGEN vdev #blocks"),
        (
            "cms",
            "SWAPGEN 2000 100",
            "not simulated by zvmsim: SWAPGEN 2000: the device exists",
        ),
        (
            "linux",
            "mkswap /dev/dasdz1",
            "/dev/dasdz1: No such file or directory",
        ),
        (
            "linux",
            "mkswap /dev/dasda2",
            "mkswap: will not try to make swapdevice on '/dev/dasda2'",
        ),
        ("linux", "mkswap", "Usage: mkswap"),
        (
            "linux",
            "swapon /dev/dasdz1",
            "swapon: /dev/dasdz1: stat failed: No such file or directory",
        ),
        (
            "linux",
            "swapon /dev/dasda2",
            "swapon: /dev/dasda2: swapon failed: Device or resource busy",
        ),
        (
            "linux",
            "swapon /dev/dasdb1",
            "swapon: /dev/dasdb1: swapon failed: Invalid argument",
        ),
        (
            "linux",
            "swapon /dev/dcssblk0",
            "swapon: /dev/dcssblk0: stat failed: No such file or directory",
        ),
        (
            "linux",
            "swapon -x /dev/dasdb1",
            "swapon: invalid option -- 'x'",
        ),
        (
            "linux",
            "swapon -p",
            "swapon: option requires an argument -- 'p'",
        ),
        (
            "linux",
            "swapon -p high /dev/dasdb1",
            "swapon: invalid priority: 'high'",
        ),
        (
            "linux",
            "swapoff /dev/dasdb1",
            "swapoff: /dev/dasdb1: swapoff failed: Invalid argument",
        ),
        (
            "linux",
            "swapoff /dev/dasdz1",
            "swapoff: /dev/dasdz1: stat failed: No such file or directory",
        ),
        (
            "linux",
            "swapoff /dev/dasda2",
            "swapoff: /dev/dasda2: swapoff failed: Cannot allocate memory",
        ),
        ("linux", "swapoff -q", "swapoff: invalid option -- 'q'"),
        ("linux", "swapoff", "Usage: swapoff"),
    ] {
        // The guest types its class G commands (DEFINE); MAINT the class B ones (VDISK).
        let user = if kind == "cp" && !cmd.starts_with("def") {
            "MAINT"
        } else {
            "LNX001"
        };
        let r = typed(&mut s, user, kind, cmd);
        assert!(
            r.first().is_some_and(|l| l.starts_with(want)),
            "{cmd}: {r:?}"
        );
        assert_eq!(state(&mut s), before, "{cmd} changed the state");
    }
    // SET and QUERY VDISK are class B: the class G guest's own formats lack them.
    for (cmd, want) in [
        ("set vdisk syslim 8g", "HCPCFC003E Invalid option - VDISK"),
        ("q vdisk", "HCPCQU003E Invalid option - VDISK"),
    ] {
        assert_eq!(typed(&mut s, "LNX001", "cp", cmd), [want], "{cmd}");
        assert_eq!(state(&mut s), before, "{cmd} changed the state");
    }
}

/// A VDISK from the directory exists at logon; a DCSS of type SN as swap (seed 000's "Defining
/// a DCSS for swapping", at 1 GB): the swap area keeps the dcssblk device open, so that it
/// cannot be removed until swapoff.
#[test]
fn dcss_swap_and_a_directory_vdisk() {
    let toml = BASE
        .replace(
            r#"swap = "200M" }"#,
            "swap = \"200M\", parameters = \"mem=2048M\" }\ndirectory = [\"MDISK 0300 FB-512 V-DISK 200000 MR\"]",
        )
        .replace("[run]", "[spool]\nvolumes = [{ model = \"3390-9\", count = 1 }]\n\n[run]")
        + "\n[[console]]\nat = \"2900ms\"\nuser = \"CMSDCSS\"\ncp = \"q nss\"\n";
    let mut s = Simulation::from_toml(&toml, "t.toml", None, &[]).expect("valid");
    s.step_until(1_200_000_000);
    assert_eq!(
        typed(&mut s, "MAINT", "cp", "q vdisk"),
        ["VDISK LNX001   0300   200000 BLK"]
    );
    let p = typed(&mut s, "MAINT", "cp", "SET PRIVCLASS CMSDCSS +E");
    assert!(p.is_empty(), "{p:?}");
    let d = typed(&mut s, "CMSDCSS", "cp", "defseg swapping 40000-7ffff sn");
    assert!(d[0].starts_with("HCPNSD440I"), "{d:?}");
    typed(&mut s, "CMSDCSS", "cp", "saveseg swapping");
    s.step_until(1_400_000_000);
    for c in [
        "modprobe dcssblk",
        "mknod /dev/dcssblk0 b 252 0",
        "echo SWAPPING > /sys/devices/dcssblk/add",
    ] {
        assert!(typed(&mut s, "LNX001", "linux", c).is_empty(), "{c}");
    }
    let mk = typed(&mut s, "LNX001", "linux", "mkswap /dev/dcssblk0");
    assert_eq!(mk[0], "Setting up swapspace version 1, size = 1048572 KiB");
    assert!(typed(&mut s, "LNX001", "linux", "swapon /dev/dcssblk0").is_empty());
    let l = typed(&mut s, "LNX001", "linux", "swapon -s");
    assert!(
        l[2].starts_with("/dev/dcssblk0") && l[2].contains("1048568 0") && l[2].ends_with("-2"),
        "{l:?}"
    );
    let r = typed(
        &mut s,
        "LNX001",
        "linux",
        "echo SWAPPING > /sys/devices/dcssblk/remove",
    );
    assert!(r.join(" ").contains("busy"), "{r:?}");
    assert!(typed(&mut s, "LNX001", "linux", "swapoff /dev/dcssblk0").is_empty());
    assert!(typed(
        &mut s,
        "LNX001",
        "linux",
        "echo SWAPPING > /sys/devices/dcssblk/remove"
    )
    .is_empty());
    s.check_invariants().unwrap();
}
