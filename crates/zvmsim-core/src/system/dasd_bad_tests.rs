//! Rejected I/O commands typed at a running guest (issue 10's bad-input corpus, with
//! dasd_tests.rs's first 37 and the directory statements of tests/data/bad/dasd_io.txt): each
//! answered with CP's message (only HCPnnnE messages with a source: the CP catalog and the
//! generic messages the CP reference lists) or the Linux tool's or shell's own line for the
//! errno, and none changing the devices, their owners, the guest's driver, SET PAGING ALIAS or
//! any minidisk-cache setting.

use super::dasd_tests::{sim, state, typed};
use super::Simulation;

/// dasd_tests' state plus every minidisk-cache setting.
fn all_state(s: &mut Simulation) -> String {
    let m = &s.m.mdc;
    let mdc = format!(
        "{} {} {} {} {:?}",
        m.on, m.min_frames, m.max_frames, m.bias, m.elig
    );
    state(s) + &mdc
}

const HCP022E: &str = "HCP022E A virtual device number was not supplied or it was invalid.";
const CCW: &str = "/sys/bus/ccw/devices";

#[test]
fn rejected_io_commands_answer_with_their_own_message_and_change_nothing() {
    let einval = "-bash: echo: write error: Invalid argument";
    let cases: Vec<(&str, &str, &str, String)> = vec![
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV",
            "HCP026E Operand missing or invalid".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV B9D6",
            "HCP026E Operand missing or invalid".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV XYZ OFF",
            "HCP002E Invalid operand - XYZ".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV B9D6-B9D5 OFF",
            "HCP002E Invalid operand - B9D6-B9D5".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV B9D6 MAYBE",
            "HCP002E Invalid operand - MAYBE".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV 1234 OFF",
            "HCP040E Device 1234 does not exist".into(),
        ),
        // A range with a device that does not exist sets none of it.
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV B9D6-B9D9 OFF",
            "HCP040E Device B9D7 does not exist".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE RDEV B9D6 OFF NOW",
            "HCP003E Invalid option - NOW".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE MDISK LNX09 0200 OFF",
            "HCP045E LNX09 not logged on".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE MDISK LONGUSERID 0200 OFF",
            "HCP007E Invalid userid - LONGUSERID".into(),
        ),
        ("LNX01", "cp", "SET MDCACHE MDISK ZZZZ OFF", HCP022E.into()),
        (
            "LNX01",
            "cp",
            "SET MDCACHE MDISK 0200 MAYBE",
            "HCP002E Invalid operand - MAYBE".into(),
        ),
        (
            "LNX01",
            "cp",
            "SET MDCACHE MDISK 0200",
            "HCP026E Operand missing or invalid".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE MDISK LNX01 0200 ON NOW",
            "HCP003E Invalid option - NOW".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE SYSTEM",
            "HCP026E Operand missing or invalid".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE SYSTEM MAYBE",
            "HCP002E Invalid operand - MAYBE".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE STORAGE 2G 1G",
            "HCP002E Invalid operand - 1G".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE STORAGE BIAS 1000",
            "HCP002E Invalid operand - 1000".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET MDCACHE FROB",
            "HCP002E Invalid operand - FROB".into(),
        ),
        (
            "MAINT",
            "cp",
            "QUERY MDCACHE NOW",
            "HCP003E Invalid option - NOW".into(),
        ),
        (
            "MAINT",
            "cp",
            "QUERY PAGING NOW",
            "HCP003E Invalid option - NOW".into(),
        ),
        (
            "MAINT",
            "cp",
            "SET PAGING ALIAS OFF ON",
            "HCP003E Invalid option - ON".into(),
        ),
        (
            "MAINT",
            "cp",
            "DETACH ZZZZ FROM SYSTEM",
            "HCP002E Invalid operand - ZZZZ".into(),
        ),
        (
            "MAINT",
            "cp",
            "DETACH B9E0 FROM LONGUSERID",
            "HCP007E Invalid userid - LONGUSERID".into(),
        ),
        (
            "MAINT",
            "cp",
            "ATTACH B9E2 TO",
            "HCP020E Userid missing or invalid".into(),
        ),
        (
            "LNX01",
            "cp",
            "DEFINE HYPERPAVALIAS ZZZZ FOR BASE 0200",
            HCP022E.into(),
        ),
        (
            "LNX01",
            "cp",
            "QUERY VIRTUAL DASD ALL",
            "HCP003E Invalid option - ALL".into(),
        ),
        (
            "MAINT",
            "cp",
            "QUERY PAV B9D5 B9D6",
            "HCP003E Invalid option - B9D6".into(),
        ),
        // SLES 11's s390-tools (1.8) have no chzdev: bash's own line.
        (
            "LNX01",
            "linux",
            "chzdev dasd 0200 -e",
            "-bash: chzdev: command not found".into(),
        ),
        (
            "LNX01",
            "linux",
            "echo 1 > /sys/bus/ccw/devices/0.0.0999/online",
            format!("-bash: {CCW}/0.0.0999/online: No such file or directory"),
        ),
        (
            "LNX01",
            "linux",
            "echo 2 > /sys/bus/ccw/devices/0.0.0200/online",
            einval.into(),
        ),
        (
            "LNX01",
            "linux",
            "echo yes > /sys/bus/ccw/devices/0.0.0200/use_diag",
            einval.into(),
        ),
        (
            "LNX01",
            "linux",
            "echo 5 > /sys/bus/ccw/devices/0.0.0200/readonly",
            einval.into(),
        ),
        (
            "LNX01",
            "linux",
            "echo 2 > /sys/bus/ccw/devices/0.0.0201/erplog",
            einval.into(),
        ),
        (
            "LNX01",
            "linux",
            "echo 1 > /sys/bus/ccw/devices/0.0.0200/uid",
            format!("-bash: {CCW}/0.0.0200/uid: Permission denied"),
        ),
        (
            "LNX01",
            "linux",
            "echo 1 > /sys/bus/ccw/devices/0.0.0200/frob",
            format!("-bash: {CCW}/0.0.0200/frob: Permission denied"),
        ),
        (
            "LNX01",
            "linux",
            "cat /sys/bus/ccw/devices/0.0.0999/online",
            format!("cat: {CCW}/0.0.0999/online: No such file or directory"),
        ),
        (
            "LNX01",
            "linux",
            "cat /sys/bus/ccw/devices/0.0.0200/frob",
            format!("cat: {CCW}/0.0.0200/frob: No such file or directory"),
        ),
        (
            "LNX01",
            "linux",
            "lsdasd -u -l",
            "lsdasd: ERROR: invalid options specified".into(),
        ),
        (
            "LNX01",
            "linux",
            "lsdasd 0.0.0200.1",
            "lsdasd: ERROR: 0.0.0200.1 no device format".into(),
        ),
    ];
    assert!(cases.len() >= 40);
    let mut s = sim();
    let before = all_state(&mut s);
    // The minidisk 0200 (B9D6, a 3390-3) is in the cache's settings.
    assert!(
        before.contains("Extent { start: 0, end: 601020"),
        "{before}"
    );
    for (user, kind, cmd, want) in &cases {
        assert_eq!(typed(&mut s, user, kind, cmd).join("|"), *want, "{cmd}");
        assert_eq!(all_state(&mut s), before, "{cmd} changed the state");
    }
    // Before 6.4 CP does not know QUERY PAGING.
    s.scenario.lpar.zvm_level = crate::config::level::ZvmLevel::V5R4;
    assert_eq!(
        typed(&mut s, "MAINT", "cp", "QUERY PAGING"),
        ["HCP002E Invalid operand - PAGING"]
    );
    assert_eq!(all_state(&mut s), before);
}

#[test]
fn the_dasd_attributes_a_guest_reads_and_writes_that_change_nothing() {
    let mut s = sim();
    let before = all_state(&mut s);
    for (cmd, want) in [
        ("cat /sys/bus/ccw/devices/0.0.0200/online", "1"),
        ("echo 1 > /sys/bus/ccw/devices/0.0.0200/online", ""),
        (
            "cat /sys/bus/ccw/devices/0.0.0200/uid",
            "IBM.75000000000001.b900.d6",
        ),
        ("cat /sys/bus/ccw/devices/0.0.0201/alias", "1"),
        ("cat /sys/bus/ccw/devices/0.0.0200/use_diag", "0"),
        (
            "echo 0 > /sys/bus/ccw/devices/0.0.0200/online",
            "not simulated by zvmsim: echo 0 > /sys/bus/ccw/devices/0.0.0200/online",
        ),
    ] {
        assert_eq!(
            typed(&mut s, "LNX01", "linux", cmd).join("|"),
            want,
            "{cmd}"
        );
        assert_eq!(all_state(&mut s), before, "{cmd} changed the state");
    }
}

#[test]
fn proc_dasd_statistics_from_the_drivers_profile() {
    let stats = "cat /proc/dasd/statistics";
    let mut s = sim();
    assert_eq!(
        typed(&mut s, "LNX01", "linux", stats),
        ["Statistics are off - they might be switched on using 'echo set on > /proc/dasd/statistics'"]
    );
    // Refused verbs: -EINVAL, nothing changes.
    let profile = s.m.guests[0].dasd.profile.clone();
    let state_before = all_state(&mut s);
    for bad in [
        "echo set maybe > /proc/dasd/statistics",
        "echo frob > /proc/dasd/statistics",
    ] {
        assert_eq!(
            typed(&mut s, "LNX01", "linux", bad),
            ["-bash: echo: write error: Invalid argument"]
        );
        assert_eq!(s.m.guests[0].dasd.profile, profile, "{bad}");
        assert_eq!(all_state(&mut s), state_before, "{bad}");
    }
    assert!(typed(
        &mut s,
        "LNX01",
        "linux",
        "echo set on > /proc/dasd/statistics"
    )
    .is_empty());
    let done = |s: &Simulation| {
        let b = &s.m.guests[0].dasd.devs;
        b.iter()
            .map(|d| d.block.reads + d.block.writes)
            .sum::<u64>()
    };
    let before = done(&s);
    s.step_until(1_700_000_000);
    let ended = done(&s) - before;
    let out = typed(&mut s, "LNX01", "linux", stats);
    let p = &s.m.guests[0].dasd.profile;
    // Every request that ended since, but the first (it cleared the profile and counted).
    assert!(
        p.reqs > 10 && p.reqs as u64 <= ended,
        "{} of {ended}",
        p.reqs
    );
    assert_eq!(out[0], format!("{} dasd I/O requests", p.reqs));
    // fio reads 4 KB blocks: 8 sectors each, bucket 2 (below 16).
    assert_eq!(p.sects, 8 * p.reqs);
    assert_eq!(p.secs[2], p.reqs);
    for h in [p.times, p.timps, p.time1, p.time2, p.time2ps, p.time3] {
        assert_eq!(h.iter().sum::<u32>(), p.reqs);
    }
    assert_eq!(p.time3[0], p.reqs, "no bottom half: interrupt to end is 0");
    assert_eq!(out[4], "Histogram of sizes (512B secs)");
    assert_eq!(
        out[5].split_whitespace().nth(2),
        Some(p.reqs.to_string().as_str())
    );
    assert!(typed(
        &mut s,
        "LNX01",
        "linux",
        "echo reset > /proc/dasd/statistics"
    )
    .is_empty());
    assert_eq!(s.m.guests[0].dasd.profile.reqs, 0);
}
