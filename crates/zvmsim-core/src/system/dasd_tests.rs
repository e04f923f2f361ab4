//! The DASD command surface in a running guest: lsdasd, /proc/dasd/devices and iostat -x from
//! its driver, and rejected CP DASD commands and Linux DASD commands, each answered with CP's
//! or the tool's own message and leaving the devices, their owners and the guest's driver as
//! they were.

use std::fmt::Write;

use super::Simulation;

/// One guest with a full-pack minidisk (0200 on B9D6) from its directory, the volume B9D5
/// attached as 0100, two of four HyperPAV aliases owned by SYSTEM and one virtual alias; a
/// fio job on the minidisk.
pub(super) const BASE: &str = concat!(
    r#"
[lpar]
ifls = 2
central = "2G"
zvm_level = "7.1"

[run]
priming = "1s"
measure = "2s"
interval = "1s"

"#,
    // The channels, storage server, LCU and guest, as in tests/hardening/console_bases.rs.
    include_str!("../../tests/data/fragments/dasd_hyperpav_fio.toml"),
    r#"[[console]]
at = "1500ms"
cp = "QUERY PAV"
"#
);

pub(super) fn sim() -> Simulation {
    let mut s = Simulation::from_toml(BASE, "t.toml", None, &[]).expect("valid");
    s.step_until(1_200_000_000);
    s
}

/// Types `cmd` (kind "cp" or "linux") as `user` through console entry 2; its response.
pub(super) fn typed(s: &mut Simulation, user: &str, kind: &str, cmd: &str) -> Vec<String> {
    let e = &mut s.scenario.console[2];
    e.user = user.to_string();
    e.cp = (kind == "cp").then(|| cmd.to_string());
    e.linux = (kind == "linux").then(|| cmd.to_string());
    s.run_console(2);
    s.console.last().expect("a console line").response.clone()
}

/// The devices' state: owners of the real devices, the guest's driver's devices, SET PAGING
/// ALIAS, and what QUERY VIRTUAL DASD and lsdasd -u print.
pub(super) fn state(s: &mut Simulation) -> String {
    let mut out = String::new();
    for r in [0xb9d5, 0xb9d6, 0xb9e0, 0xb9e1, 0xb9e2, 0xb9e3] {
        let sub = s.m.io.by_rdev(r).expect("device");
        write!(out, "{r:04X}:{:?} ", s.m.io.sub(sub).owner).unwrap();
    }
    for g in &s.m.guests {
        for d in &g.dasd.devs {
            write!(
                out,
                "{:04x} {:?} {:?} {} {};",
                d.vdev, d.name, d.path, d.group, d.blocks
            )
            .unwrap();
        }
    }
    write!(out, " paging alias {}", s.m.paging_alias).unwrap();
    let q = typed(s, "LNX01", "cp", "QUERY VIRTUAL DASD").join("|");
    let l = typed(s, "LNX01", "linux", "lsdasd -u").join("|");
    out + &q + &l
}

#[test]
fn lsdasd_proc_devices_and_iostat_from_the_guests_driver() {
    let mut s = sim();
    let ls = typed(&mut s, "LNX01", "linux", "lsdasd");
    // 3390-3: 3339 cylinders of 15 tracks of 12 4-KB blocks.
    assert_eq!(
        ls[2..],
        [
            "0.0.0201   alias                         ECKD",
            "0.0.0200   active      dasda     94:0    ECKD  4096   2347MB    601020",
            "0.0.0100   active      dasdb     94:4    ECKD  4096   2347MB    601020",
        ]
    );
    let u = typed(&mut s, "LNX01", "linux", "lsdasd -u");
    assert_eq!(
        u[2..],
        [
            "0.0.0100  dasdb     IBM.75000000000001.b900.d5",
            "0.0.0200  dasda     IBM.75000000000001.b900.d6",
            "0.0.0201  alias     IBM.75000000000001.b900.xx",
        ]
    );
    assert_eq!(
        typed(&mut s, "LNX01", "linux", "cat /proc/dasd/devices"),
        [
            "0.0.0200(ECKD) at ( 94:     0) is dasda       : active at blocksize: 4096, 601020 blocks, 2347 MB",
            "0.0.0100(ECKD) at ( 94:     4) is dasdb       : active at blocksize: 4096, 601020 blocks, 2347 MB",
        ]
    );
    // The logon's MDISK came before the ATTACH at 0 s (a guest is attached devices once it
    // has logged on): 0200 is dasda. The fio job reads the minidisk: dasda has reads this
    // interval, dasdb none.
    let io = typed(&mut s, "LNX01", "linux", "iostat -x -k");
    let cols = |l: &str| -> Vec<f64> {
        l.split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap())
            .collect()
    };
    let a = cols(&io[1]);
    assert!(io[1].starts_with("dasda "), "{io:?}");
    assert!(
        a[2] > 10.0 && a[3] == 0.0,
        "r/s {} w/s {}: {io:?}",
        a[2],
        a[3]
    );
    // 4 KB reads: 4 kB per read, 8 sectors a request.
    assert!((a[4] / a[2] - 4.0).abs() < 1e-6, "{io:?}");
    assert!((a[6] - 8.0).abs() < 1e-6, "{io:?}");
    assert!(a[10] > 0.0 && a[10] <= 100.0, "{io:?}");
    assert_eq!(cols(&io[2]), vec![0.0; 11], "{io:?}");
}

#[test]
fn rejected_dasd_commands_answer_with_cp_or_the_tools_message_and_change_nothing() {
    let cases: &[(&str, &str, &str)] = &[
        ("cp", "ATTACH", "HCP026E Operand missing or invalid"),
        ("cp", "ATTACH XYZ TO LNX01", "HCP002E Invalid operand - XYZ"),
        ("cp", "ATTACH B9E3-B9E2 TO SYSTEM", "HCP002E Invalid operand - B9E3-B9E2"),
        ("cp", "ATTACH B9E2", "HCP020E Userid missing or invalid"),
        ("cp", "ATTACH B9E2 TO LONGUSERID", "HCP007E Invalid userid - LONGUSERID"),
        ("cp", "ATTACH B9E2 TO LNX09", "HCP045E LNX09 not logged on"),
        ("cp", "ATTACH B9E2-B9E3 TO LNX01 AS 0300", "HCP013E Conflicting option - AS"),
        ("cp", "ATTACH B9E2 TO LNX01 AS ZZZZ", "HCP022E A virtual device number was not supplied or it was invalid."),
        ("cp", "ATTACH B9E2 TO LNX01 NOW", "HCP003E Invalid option - NOW"),
        ("cp", "ATTACH 1234 TO LNX01", "HCP040E Device 1234 does not exist"),
        // A range with a device that does not exist attaches none of it.
        ("cp", "ATTACH B9E2-B9E9 TO SYSTEM", "HCP040E Device B9E4 does not exist"),
        ("cp", "DETACH", "HCP026E Operand missing or invalid"),
        ("cp", "DETACH ZZZZ", "HCP022E A virtual device number was not supplied or it was invalid."),
        ("cp", "DETACH B9E0 FROM", "HCP020E Userid missing or invalid"),
        ("cp", "DETACH B9E0 FROM SYSTEM NOW", "HCP003E Invalid option - NOW"),
        ("cp", "DEFINE HYPERPAVALIAS", "HCP022E A virtual device number was not supplied or it was invalid."),
        ("cp", "DEFINE HYPERPAVALIAS 0202", "HCP026E Operand missing or invalid"),
        ("cp", "DEFINE HYPERPAVALIAS 0202 FOR", "HCP026E Operand missing or invalid"),
        ("cp", "DEFINE HYPERPAVALIAS 0202 FOR DISK 0200", "HCP002E Invalid operand - DISK"),
        ("cp", "DEFINE HYPERPAVALIAS 0202 FOR BASE", "HCP022E A virtual device number was not supplied or it was invalid."),
        ("cp", "DEFINE HYPERPAVALIAS 0202 FOR BASE 0200 NOW", "HCP003E Invalid option - NOW"),
        ("cp", "QUERY PAV XYZ", "HCP002E Invalid operand - XYZ"),
        ("cp", "QUERY PAV B9D5 NOW", "HCP003E Invalid option - NOW"),
        ("cp", "QUERY PAV 1234", "HCP040E Device 1234 does not exist"),
        ("cp", "QUERY VIRTUAL DASD NOW", "HCP003E Invalid option - NOW"),
        ("cp", "SET PAGING ALIAS", "HCP026E Operand missing or invalid"),
        ("cp", "SET PAGING ALIAS MAYBE", "HCP002E Invalid operand - MAYBE"),
        ("cp", "SET PAGING ALIAS ON NOW", "HCP003E Invalid option - NOW"),
        ("cp", "SET PAGING FOO", "HCP002E Invalid operand - FOO"),
        ("cp", "INDICATE I/O NOW", "HCP003E Invalid option - NOW"),
        ("linux", "lsdasd -x", "lsdasd: Invalid option -x|Try 'lsdasd --help' for more information."),
        ("linux", "lsdasd --frob", "lsdasd: Invalid option --frob|Try 'lsdasd --help' for more information."),
        ("linux", "lsdasd 0.0.zz00", "lsdasd: ERROR: 0.0.zz00 no device format"),
        ("linux", "lsdasd -l -u", "lsdasd: ERROR: invalid options specified"),
        ("linux", "iostat -q", "Usage: iostat [ options ] [ <interval> [ <count> ] ]|Options are:|[ -c ] [ -d ] [ -N ] [ -k | -m ] [ -t ] [ -V ] [ -x ]|[ <device> [ <device> ... ] | ALL ] [ -p [ <device> | ALL ] ]"),
        ("linux", "cat /proc/dasd/device", "cat: /proc/dasd/device: No such file or directory"),
        ("linux", "cat -z /proc/dasd/devices", "cat: invalid option -- 'z'"),
    ];
    assert!(cases.len() >= 30);
    let mut s = sim();
    let before = state(&mut s);
    assert!(
        before.contains("B9E0:System B9E1:System B9E2:Free"),
        "{before}"
    );
    for (kind, cmd, want) in cases {
        let user = if cmd.starts_with("DEFINE") || cmd.starts_with("QUERY V") || *kind == "linux" {
            "LNX01"
        } else {
            "MAINT"
        };
        assert_eq!(typed(&mut s, user, kind, cmd).join("|"), *want, "{cmd}");
        assert_eq!(state(&mut s), before, "{cmd} changed the state");
    }
    // Before 6.2 CP does not know HYPERPAVALIAS; before 6.4 not PAGING ALIAS.
    s.scenario.lpar.zvm_level = crate::config::level::ZvmLevel::V5R4;
    for (cmd, want) in [
        (
            "DEFINE HYPERPAVALIAS 0202 FOR BASE 0200",
            "HCP002E Invalid operand - HYPERPAVALIAS",
        ),
        ("SET PAGING ALIAS ON", "HCP002E Invalid operand - PAGING"),
    ] {
        assert_eq!(typed(&mut s, "LNX01", "cp", cmd), [want], "{cmd}");
        assert_eq!(state(&mut s), before, "{cmd} changed the state");
    }
}

#[test]
fn a_rejected_dasd_command_in_the_script_is_a_scenario_error() {
    let text = BASE.replace("cp = \"QUERY PAV\"", "cp = \"ATTACH B9E2 TO LNX01 NOW\"");
    let err = Simulation::from_toml(&text, "t.toml", None, &[])
        .err()
        .expect("refused");
    assert_eq!(err.field, "console[2].cp");
    assert_eq!(err.detail, "HCP003E Invalid option - NOW");
}

/// `iostat -x interval count` (sysstat 8): the first report in the response, then one every
/// interval over that interval, each after a blank line, `count` in all.
#[test]
fn iostat_with_an_interval_reports_again_over_each_interval() {
    let mut s = sim();
    let first = typed(&mut s, "LNX01", "linux", "iostat -x -k 1 2");
    assert_eq!(first.len(), 3, "header, dasda, dasdb: {first:?}");
    let line = s.console.len() - 1;
    // The run ends at 3 s; the second report comes at 2.2 s, and no third.
    s.step_until(4_000_000_000);
    let all = &s.console[line].response;
    assert_eq!(all.len(), 2 * 3 + 1, "two reports: {all:?}");
    assert_eq!(all[3], "", "{all:?}");
    assert_eq!(all[4], first[0], "{all:?}");
    // The later report covers its own second: the fio job still reads dasda, dasdb idles.
    let rs = |l: &str| -> f64 { l.split_whitespace().nth(3).unwrap().parse().unwrap() };
    assert!(
        all[5].starts_with("dasda ") && rs(&all[5]) > 10.0,
        "{all:?}"
    );
    assert!(
        all[6].starts_with("dasdb ") && rs(&all[6]) == 0.0,
        "{all:?}"
    );
    // A device, or a count of 0: not simulated.
    let dev = typed(&mut s, "LNX01", "linux", "iostat -x dasda 1");
    assert!(dev[0].starts_with("not simulated by zvmsim"), "{dev:?}");
}
