//! Seed 003's setup on its RHEL 8.1 guest (`scenarios/hyperpav/attached-1job.toml`): the
//! aliases CP attaches stay on the boot line's cio_ignore list, unknown to Linux and unused by
//! the DASD driver, until `chzdev dasd ... -e` frees them and sets them online; CP knows them
//! all along. Rejected zdev commands answer as s390-tools does and change nothing.

use super::Simulation;

/// The seed-003 guest with 4 aliases attached; `enable` is console entry 2's Linux command.
fn sim(enable: &str) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/hyperpav/attached-1job.toml");
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let ovr = [
        "console[1].cp=\"ATTACH B9E0-B9E3 TO LNXF01\"".to_string(),
        format!("console[2].linux=\"{enable}\""),
        "run.priming=\"1s\"".to_string(),
        "run.measure=\"1s\"".to_string(),
        "run.interval=\"1s\"".to_string(),
    ];
    Simulation::from_toml(&text, "attached-1job.toml", Some(1), &ovr).expect("valid")
}

/// Types `cmd` in the guest through console entry 3; its response.
fn typed(s: &mut Simulation, cmd: &str) -> Vec<String> {
    s.scenario.console[3].linux = Some(cmd.to_string());
    s.run_console(3);
    s.console.last().expect("a console line").response.clone()
}

/// What Linux and CP know of the guest's devices.
fn devices(s: &Simulation) -> (Vec<u16>, Vec<u16>) {
    let g = &s.m.guests[0];
    (
        g.dasd.devs.iter().map(|d| d.vdev).collect(),
        g.cio.hidden.iter().map(|h| h.vdev).collect(),
    )
}

#[test]
fn attached_aliases_stay_hidden_until_chzdev_enables_them() {
    // lszdev instead of chzdev: the aliases stay on the blacklist.
    let mut s = sim("lszdev dasd");
    s.step_until(1);
    assert_eq!(
        devices(&s),
        (vec![0xB9D5], vec![0xB9E0, 0xB9E1, 0xB9E2, 0xB9E3])
    );
    let line = |s: &Simulation, i: usize| s.console[i].response.clone();
    assert_eq!(
        line(&s, 2),
        [
            "TYPE       ID        ON   PERS  NAMES",
            "dasd-eckd  0.0.b9d5  yes  yes   dasda"
        ]
    );
    // CP knows all five; Linux lists the base.
    assert_eq!(typed(&mut s, "lsdasd -u").len(), 3);
    s.scenario.console[3].linux = None;
    s.scenario.console[3].cp = Some("QUERY VIRTUAL DASD".into());
    s.run_console(3);
    assert_eq!(s.console.last().unwrap().response.len(), 5);
    s.scenario.console[3].cp = None;
    assert_eq!(
        typed(&mut s, "cat /proc/cio_ignore")[..3],
        [
            "0.0.0000-0.0.0008",
            "0.0.000a-0.0.b9d4",
            "0.0.b9d6-0.0.ffff"
        ]
    );
    // The seed's command, on part of the aliases, then on all of them again.
    assert_eq!(
        typed(&mut s, "chzdev dasd B9E0-B9E1 -e"),
        [
            "ECKD DASD 0.0.b9e0 configured",
            "ECKD DASD 0.0.b9e1 configured"
        ]
    );
    assert_eq!(
        devices(&s),
        (vec![0xB9D5, 0xB9E0, 0xB9E1], vec![0xB9E2, 0xB9E3])
    );
    assert_eq!(
        typed(&mut s, "chzdev dasd b9d5 0.0.b9e1-0.0.b9e3 -e"),
        [
            "ECKD DASD 0.0.b9d5 already configured",
            "ECKD DASD 0.0.b9e1 already configured",
            "ECKD DASD 0.0.b9e2 configured",
            "ECKD DASD 0.0.b9e3 configured"
        ]
    );
    let lsdasd = typed(&mut s, "lsdasd -u");
    assert_eq!(lsdasd.len(), 7, "{lsdasd:?}");
    assert!(lsdasd[2].starts_with("0.0.b9d5  dasda "), "{lsdasd:?}");
    assert!(lsdasd[3].starts_with("0.0.b9e0  alias "), "{lsdasd:?}");
}

#[test]
fn the_driver_uses_an_alias_only_once_chzdev_set_it_online() {
    let alias_io = |enable: &str| {
        let mut s = sim(enable);
        s.run();
        s.summary()["alias_io_pct"].as_f64().expect("alias share")
    };
    assert_eq!(alias_io("lszdev dasd"), 0.0);
    assert!(alias_io("chzdev dasd B9E0-B9E3 -e") > 10.0);
}

#[test]
fn iostat_prints_sysstat_11_7s_report_on_rhel_8() {
    let mut s = sim("chzdev dasd B9E0-B9E3 -e");
    s.step_until(1_500_000_000);
    let out = typed(&mut s, "iostat -dx");
    assert!(
        out[0].starts_with("Device            r/s     w/s     rkB/s"),
        "{out:?}"
    );
    // One block device, dasda, moving data (fio's reads and writes).
    assert_eq!(out.len(), 2, "{out:?}");
    let kb: Vec<f64> = out[1]
        .split_whitespace()
        .skip(3)
        .take(2)
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        out[1].starts_with("dasda ") && kb[0] > 0.0 && kb[1] > 0.0,
        "{out:?}"
    );
    // procps-ng's free and 4.18's meminfo agree on the guest's memory.
    let free = typed(&mut s, "free");
    assert_eq!(
        free[0],
        "              total        used        free      shared  buff/cache   available"
    );
    let meminfo = typed(&mut s, "cat /proc/meminfo");
    let kb = |line: &str| line.split_whitespace().nth(1).unwrap().to_string();
    let mem: Vec<&str> = free[1].split_whitespace().collect();
    assert_eq!(
        (mem[1], mem[3], mem[6]),
        (
            kb(&meminfo[0]).as_str(),
            kb(&meminfo[1]).as_str(),
            kb(&meminfo[2]).as_str()
        )
    );
    // procps-ng's vmstat header: the cpu group one dash further left than SUSE's 3.2.7.
    assert_eq!(
        typed(&mut s, "vmstat")[0],
        "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
    );
    // sysstat 11.7's usage for a letter it does not have, as iostat prints it.
    assert_eq!(typed(&mut s, "iostat -q")[1], "Options are:");
}

#[test]
fn rejected_zdev_commands_answer_as_s390_tools_and_change_nothing() {
    let mut s = sim("lszdev dasd");
    s.step_until(1);
    let before = devices(&s);
    let cases = [
        (
            "chzdev dasd C000 -e",
            &["DASD C000 configure failed", "    Error: Device not found"][..],
        ),
        (
            "chzdev dasd B9E0",
            &[
                "chzdev: Please specify an action",
                "Use 'chzdev --help' for more information",
            ],
        ),
        (
            "chzdev dasd 1B9E0 -e",
            &["chzdev: Error in CCW device ID format: DEVNO out of bounds: 1B9E0"],
        ),
        ("lszdev dasd C000", &["lszdev: No device was selected!"]),
        ("pvpath -qa", &["-bash: pvpath: command not found"]),
        (
            "cat /proc/vmstat",
            &["not simulated by zvmsim: cat /proc/vmstat"],
        ),
        (
            "free -m -g",
            &["free: Multiple unit options doesn't make sense."],
        ),
        // -d does not free a blacklisted device; a base's in-use check is not modelled.
        (
            "chzdev dasd B9E0 -d",
            &["DASD B9E0 deconfigure failed", "    Error: Device not found"],
        ),
        (
            "chzdev dasd B9D5 -d",
            &["not simulated by zvmsim: chzdev -d of base device 0.0.b9d5 (setting a block device offline: its in-use check is not modelled)"],
        ),
        (
            "chccwdev -d b9d5",
            &["not simulated by zvmsim: chccwdev -d of base device 0.0.b9d5 (setting a block device offline: its in-use check is not modelled)"],
        ),
    ];
    for (cmd, want) in cases {
        assert_eq!(typed(&mut s, cmd), want, "{cmd}");
        assert_eq!(devices(&s), before, "{cmd}");
    }
    // A SLES guest's shell has no chzdev: the scenario is refused with bash's line.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/hyperpav/attached-1job.toml");
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let e = Simulation::from_toml(
        &text,
        "attached-1job.toml",
        Some(1),
        &["guests[0].linux.distribution=\"SLES 11 SP1\"".into()],
    )
    .err()
    .expect("refused");
    let e = e.to_string();
    assert!(e.contains("-bash: chzdev: command not found"), "{e}");
}

#[test]
fn debugfs_statistics_count_each_alias_and_the_requests_run_on_aliases() {
    let mut s = sim("chzdev dasd B9E0-B9E3 -e");
    s.step_until(1);
    let dbg = "/sys/kernel/debug/dasd";
    assert_eq!(
        typed(&mut s, &format!("cat {dbg}/global/statistics")),
        ["disabled"]
    );
    for dir in ["global", "0.0.b9e0", "0.0.b9d5"] {
        assert!(typed(&mut s, &format!("echo on > {dbg}/{dir}/statistics")).is_empty());
    }
    // Refused as the kernel refuses them, changing nothing.
    let refused = [
        (
            format!("echo set on > {dbg}/dasda/statistics"),
            "-bash: echo: write error: Invalid argument".to_string(),
        ),
        (
            format!("cat {dbg}/0.0.c000/statistics"),
            format!("cat: {dbg}/0.0.c000/statistics: No such file or directory"),
        ),
        (
            format!("cat {dbg}/dasda/host_access_list"),
            format!("cat: {dbg}/dasda/host_access_list: No such file or directory"),
        ),
    ];
    for (cmd, want) in &refused {
        assert_eq!(typed(&mut s, cmd), [want.as_str()], "{cmd}");
    }
    assert_eq!(
        typed(&mut s, &format!("cat {dbg}/dasda/statistics")),
        ["disabled"]
    );
    s.step_until(1_500_000_000);
    let field = |out: &[String], name: &str| -> u64 {
        let line = out
            .iter()
            .find(|l| l.starts_with(&format!("{name} ")))
            .expect(name);
        line[name.len() + 1..].parse().expect("a count")
    };
    let g = typed(&mut s, &format!("cat {dbg}/global/statistics"));
    let (reqs, pav) = (field(&g, "total_requests"), field(&g, "total_pav"));
    // High Performance FICON on the seed's channels: every request in transport mode.
    assert_eq!(field(&g, "total_hpf"), reqs);
    assert!(pav > 0 && pav < reqs, "{g:?}");
    // The alias's own file: every request it ran came from the base's block device.
    let a = typed(&mut s, &format!("cat {dbg}/0.0.b9e0/statistics"));
    assert!(field(&a, "total_requests") > 0);
    assert_eq!(field(&a, "total_pav"), field(&a, "total_requests"));
    // The base's ccw device ran the rest, none of them on an alias (all three profiles were
    // switched on at the same moment).
    let b = typed(&mut s, &format!("cat {dbg}/0.0.b9d5/statistics"));
    assert_eq!(field(&b, "total_pav"), 0);
    assert_eq!(field(&b, "total_requests"), reqs - pav, "{b:?}");
}

#[test]
fn dasdstat_switches_and_prints_the_same_profiles() {
    let mut s = sim("chzdev dasd B9E0-B9E1 -e");
    s.step_until(1);
    let dbg = "/sys/kernel/debug/dasd";
    // Every directory of debugfs's dasd, in ls order: bus IDs, block devices, global.
    let on = typed(&mut s, "dasdstat -e");
    let dirs = ["0.0.b9d5", "0.0.b9e0", "0.0.b9e1", "dasda", "global"];
    assert_eq!(
        on,
        dirs.map(|d| format!("enable statistic \"{dbg}/{d}/statistics\""))
    );
    assert_eq!(
        typed(&mut s, "dasdstat -d 0.0.b9e1 nosuch"),
        [
            "dasdstat: No statistics found for nosuch",
            "disable statistic \"/sys/kernel/debug/dasd/0.0.b9e1/statistics\""
        ]
    );
    s.step_until(1_000_000_000);
    // The table's totals are the file's.
    let file = typed(&mut s, &format!("cat {dbg}/dasda/statistics"));
    let t = typed(&mut s, "dasdstat dasda");
    let total = file[1].trim_start_matches("total_requests ");
    let pav = file[3].trim_start_matches("total_pav ");
    assert_eq!(t[1], "statistics data for statistic: dasda");
    assert_eq!(t[4], format!("{total} dasd I/O requests"));
    assert_eq!(t[6], format!("{pav} requests used a PAV alias device"));
    assert!(pav.parse::<u64>().unwrap() > 0, "{file:?}");
    assert_eq!(t[0].len(), (total.len() + 1).max(5) * 16);
    // Switched off: nothing printed, or with -V why.
    assert!(typed(&mut s, "dasdstat 0.0.b9e1").is_empty());
    assert_eq!(
        typed(&mut s, "dasdstat -V 0.0.b9e1")[4],
        "statistics \"0.0.b9e1\" are disabled"
    );
    assert_eq!(
        typed(&mut s, "dasdstat -q"),
        [
            "dasdstat: Invalid option -q",
            "Try 'dasdstat --help' for more information."
        ]
    );
}

#[test]
fn devices_freed_by_cio_ignore_come_up_offline_until_set_online() {
    let mut s = sim("lszdev dasd");
    s.step_until(1);
    assert!(typed(&mut s, "cio_ignore -r b9e0-b9e1,0.0.b9e3").is_empty());
    assert_eq!(
        typed(&mut s, "lszdev dasd"),
        [
            "TYPE       ID        ON   PERS  NAMES",
            "dasd-eckd  0.0.b9d5  yes  yes   dasda",
            "dasd-eckd  0.0.b9e0  no   no    ",
            "dasd-eckd  0.0.b9e1  no   no    ",
            "dasd-eckd  0.0.b9e3  no   no    ",
        ]
    );
    // Linux knows them, its DASD driver does not use them.
    assert_eq!(devices(&s), (vec![0xB9D5], vec![0xB9E2]));
    assert_eq!(typed(&mut s, "lsdasd -u").len(), 3);
    // lsdasd lists them with -a only, before the online devices.
    let all = typed(&mut s, "lsdasd -a");
    assert_eq!(
        all[2..5],
        [
            "0.0.b9e0   offline",
            "0.0.b9e1   offline",
            "0.0.b9e3   offline"
        ]
    );
    assert!(
        all[5].starts_with("0.0.b9d5   active      dasda"),
        "{all:?}"
    );
    assert_eq!(typed(&mut s, "lsdasd").len(), 3);
    let online = "/sys/bus/ccw/devices/0.0.b9e0/online";
    assert_eq!(typed(&mut s, &format!("cat {online}")), ["0"]);
    let einval = ["-bash: echo: write error: Invalid argument"];
    assert_eq!(typed(&mut s, &format!("echo 2 > {online}")), einval);
    assert!(typed(&mut s, &format!("echo 1 > {online}")).is_empty());
    assert_eq!(typed(&mut s, &format!("cat {online}")), ["1"]);
    // 4.18 refuses to set an online device online again.
    assert_eq!(typed(&mut s, &format!("echo 1 > {online}")), einval);
    assert_eq!(
        typed(&mut s, "chccwdev -e 0.0.b9e1,b9e0,b9e2"),
        [
            "Setting device 0.0.b9e1 online",
            "Done",
            "WARNING: Device[0.0.b9e0] is already  online",
            "Done",
            "Device 0.0.b9e2 not found"
        ]
    );
    assert_eq!(
        typed(&mut s, "chccwdev -e b9e4-b9ef"),
        [
            "No Device in range (0.0.b9e4-0.0.b9ef) found",
            "ERROR: Evaluation of bus IDs failed!",
            ""
        ]
    );
    assert_eq!(
        typed(&mut s, "chzdev dasd B9E2-B9E3 -e"),
        [
            "ECKD DASD 0.0.b9e2 configured",
            "ECKD DASD 0.0.b9e3 configured"
        ]
    );
    assert_eq!(
        devices(&s),
        (vec![0xB9D5, 0xB9E0, 0xB9E1, 0xB9E2, 0xB9E3], vec![])
    );
    let before = devices(&s);
    for (cmd, first) in [
        ("chccwdev -x 0.0.b9e0", "chccwdev: Invalid option -x"),
        (
            "chccwdev -e -d 0.0.b9e0",
            "chccwdev: Incompatible argument list.",
        ),
        ("chccwdev -e 0.0.12345", "0.0.12345 is not a valid bus ID."),
        ("cio_ignore -r", "cio_ignore: --remove requires an argument"),
    ] {
        assert_eq!(typed(&mut s, cmd)[0], first, "{cmd}");
        assert_eq!(devices(&s), before, "{cmd}");
    }
}

#[test]
fn aliases_set_offline_take_no_more_io_until_set_online_again() {
    let mut s = sim("chzdev dasd B9E0-B9E3 -e");
    s.step_until(500_000_000);
    assert_eq!(
        typed(&mut s, "chzdev dasd B9E2-B9E3 -d"),
        [
            "ECKD DASD 0.0.b9e2 deconfigured",
            "ECKD DASD 0.0.b9e3 deconfigured"
        ]
    );
    assert_eq!(
        typed(&mut s, "chzdev dasd b9e3 c000 -d"),
        [
            "ECKD DASD 0.0.b9e3 already deconfigured",
            "DASD c000 deconfigure failed",
            "    Error: Device not found"
        ]
    );
    assert_eq!(
        typed(&mut s, "chccwdev -d 0.0.b9e1,b9e2"),
        [
            "Setting device 0.0.b9e1 offline",
            "Done",
            "Device is already offline",
            "Done"
        ]
    );
    assert!(typed(&mut s, "echo 0 > /sys/bus/ccw/devices/0.0.b9e0/online").is_empty());
    assert_eq!(
        typed(&mut s, "cat /sys/bus/ccw/devices/0.0.b9e0/online"),
        ["0"]
    );
    // Linux lists them offline; CP still has them attached.
    assert_eq!(typed(&mut s, "lsdasd -u").len(), 3);
    assert_eq!(
        typed(&mut s, "lszdev dasd b9e0")[1],
        "dasd-eckd  0.0.b9e0  no  no    "
    );
    assert_eq!(
        typed(&mut s, "cat /sys/kernel/debug/dasd/0.0.b9e0/statistics"),
        ["cat: /sys/kernel/debug/dasd/0.0.b9e0/statistics: No such file or directory"]
    );
    let aliases = |s: &Simulation| -> u64 {
        (0xB9E0..=0xB9E3)
            .map(|r| s.m.io.sub(s.m.io.by_rdev(r).expect("alias")).stats.ios)
            .sum()
    };
    // Their requests under way end; no new one starts on them.
    s.step_until(600_000_000);
    let idle = aliases(&s);
    s.step_until(1_200_000_000);
    assert_eq!(aliases(&s), idle);
    assert_eq!(typed(&mut s, "chzdev dasd B9E0-B9E3 -e").len(), 4);
    s.step_until(1_800_000_000);
    assert!(aliases(&s) > idle);
    s.check_io().expect("I/O invariants");
}
