//! Unit tests of the Linux commands: parsing, shell errors, and what is not simulated.

use super::*;

#[test]
fn commands() {
    assert_eq!(
        parse("free -m").unwrap(),
        LinuxCommand::Free {
            unit_kib: 1024,
            total: false
        }
    );
    assert_eq!(parse("cat /proc/meminfo").unwrap(), LinuxCommand::Meminfo);
    assert_eq!(parse("frob").unwrap_err(), "-bash: frob: command not found");
    assert!(parse("free -z").unwrap_err().contains("invalid option"));
    assert!(parse("cat /proc/nothing")
        .unwrap_err()
        .contains("No such file"));
    assert_eq!(
        parse("sysctl -w vm.swappiness=10").unwrap(),
        LinuxCommand::SetVm {
            tunable: VmTunable::Swappiness,
            value: 10,
            sysctl: true
        }
    );
    assert_eq!(
        parse("echo 0 > /proc/sys/vm/swappiness").unwrap(),
        LinuxCommand::SetVm {
            tunable: VmTunable::Swappiness,
            value: 0,
            sysctl: false
        }
    );
    assert!(parse("sysctl vm.swappiness=101")
        .unwrap_err()
        .contains("Invalid argument"));
    assert!(parse("echo x > /proc/sys/vm/swappiness")
        .unwrap_err()
        .contains("write error"));
    assert!(parse("sysctl vm.nosuch=1")
        .unwrap_err()
        .contains("unknown key"));
    assert_eq!(parse("swapon -s").unwrap(), LinuxCommand::Swaps);
    assert_eq!(
        parse("sysctl vm.page-cluster=0").unwrap(),
        LinuxCommand::SetVm {
            tunable: VmTunable::PageCluster,
            value: 0,
            sysctl: true
        }
    );
    assert_eq!(
        parse("cat /proc/sys/vm/page-cluster").unwrap(),
        LinuxCommand::ShowVm {
            tunable: VmTunable::PageCluster,
            sysctl: false
        }
    );
    assert!(parse("sysctl vm.page-cluster=9")
        .unwrap_err()
        .contains("Invalid argument"));
    assert_eq!(dasd_name(0), "dasda");
    assert_eq!(dasd_name(8), "dasdi");
    assert_eq!(dasd_name(27), "dasdab");
    // Past dasdzz the driver goes on with three, then four letters (dasd_genhd.c).
    assert_eq!(dasd_name(701), "dasdzz");
    assert_eq!(dasd_name(702), "dasdaaa");
    assert_eq!(dasd_name(18_277), "dasdzzz");
    assert_eq!(dasd_name(18_278), "dasdaaaa");
    assert!(dasd_name(65_535).chars().all(|c| c.is_ascii_lowercase()));
}

fn ns(cmd: &str) -> LinuxCommand {
    LinuxCommand::NotSimulated {
        command: cmd.trim().to_string(),
    }
}

#[test]
fn real_commands_not_simulated() {
    for cmd in [
        "/sbin/modprobe -v cmm sender=VMRMSVM",
        "mkswap -L swap1 /dev/dasdb1",
        "swapon /dev/dasdb1 /dev/dasdc1",
        "swapon -a",
        "swapoff -a",
        "lsdasd -l",
        "iostat -x dasda",
        "top -b -n 2",
        "ps aux",
        "vmstat -a 1 5",
        "free -m -s 5",
        "echo 3 > /proc/sys/vm/drop_caches",
        "echo hello",
        "tunedasd -S /dev/dasda",
        "cat /proc/meminfo /proc/vmstat",
        "cat -n /proc/meminfo",
        "cat /proc/meminfo > /tmp/mem",
        "cat /proc/dasd/devices | grep dasdb",
        "sysctl vm.dirty_ratio",
        "sysctl -w vm.dirty_ratio=20",
        "sysctl -a",
        "sysctl -n vm.swappiness",
        "sysctl vm.swappiness vm.page-cluster",
        "free -m; vmstat",
        "LANG=C free -m",
    ] {
        assert_eq!(parse(cmd), Ok(ns(cmd)), "{cmd}");
    }
    let v = LinuxView {
        total: 0,
        free: 0,
        cached: 0,
        anon: 0,
        kernel: 0,
        swap_total: 0,
        swap_used: 0,
        swap_cached: 0,
        pgmajfault: 0,
        pgscan_direct: 0,
        pgscan_kswapd: 0,
        pswpin: 0,
        pswpout: 0,
        swappiness: 60,
        page_cluster: 3,
        swap_devices: vec![],
        cmdline: "root=/dev/dasda1 cmma=on".into(),
        ..Default::default()
    };
    assert_eq!(
        respond(&parse(" modprobe -v dm_mod ").unwrap(), &v),
        vec!["not simulated by zvmsim: modprobe -v dm_mod".to_string()]
    );
    // The dcssblk driver's commands are the simulation's (system/dcss_linux.rs).
    use crate::linux::dcssblk::DcssCommand;
    for (cmd, want) in [
        ("modprobe dcssblk", DcssCommand::Modprobe),
        (
            "echo \"DCSS1G\" > /sys/devices/dcssblk/add",
            DcssCommand::Add("DCSS1G".into()),
        ),
        (
            "echo DCSS4G1:DCSS4G2 > /sys/devices/dcssblk/remove",
            DcssCommand::Remove("DCSS4G1:DCSS4G2".into()),
        ),
        (
            "mount -t ext2 -o xip /dev/dcssblk0 /mnt",
            DcssCommand::Mount {
                dev: "/dev/dcssblk0".into(),
                dir: "/mnt".into(),
                xip: true,
                ro: false,
            },
        ),
    ] {
        assert_eq!(parse(cmd), Ok(LinuxCommand::Dcss(want)), "{cmd}");
    }
    // /proc/cmdline prints the parameter line as the guest booted with it.
    assert_eq!(
        respond(&parse("cat /proc/cmdline").unwrap(), &v),
        vec!["root=/dev/dasda1 cmma=on".to_string()]
    );
    assert_eq!(
        parse("cat -n /proc/cmdline"),
        Ok(ns("cat -n /proc/cmdline"))
    );
}

#[test]
fn unknown_commands_and_bad_operands() {
    assert_eq!(parse("FREE").unwrap_err(), "-bash: FREE: command not found");
    assert_eq!(
        parse("chzdev dasd 1000 -e").unwrap_err(),
        "-bash: chzdev: command not found"
    );
    assert_eq!(
        parse("./frob").unwrap_err(),
        "-bash: ./frob: No such file or directory"
    );
    // A `|` inside quotes does not split the pipeline (`56BF"` is no command).
    let piped = "cat /proc/subchannels | egrep \"5680|56BF\"";
    assert_eq!(parse(piped), Ok(ns(piped)));
    assert_eq!(
        parse("ps aux | frob").unwrap_err(),
        "-bash: frob: command not found"
    );
    assert_eq!(
        parse("swapon -z").unwrap_err(),
        "swapon: invalid option -- 'z'"
    );
    assert_eq!(
        parse("free -mz").unwrap_err(),
        "free: invalid option -- 'z'"
    );
    assert_eq!(
        parse("cat -z /proc/meminfo").unwrap_err(),
        "cat: invalid option -- 'z'"
    );
    assert_eq!(
        parse("cat /sys/devices/dcssblk/add").unwrap_err(),
        "cat: /sys/devices/dcssblk/add: Permission denied"
    );
    assert_eq!(
        parse("echo 1 > /proc/meminfo").unwrap_err(),
        "-bash: /proc/meminfo: Permission denied"
    );
    assert_eq!(
        parse("echo 1 > /proc/nothing").unwrap_err(),
        "-bash: /proc/nothing: Permission denied"
    );
    assert_eq!(
        parse("sysctl vm.dirty_ratio vm.nosuch").unwrap_err(),
        "error: \"vm.nosuch\" is an unknown key"
    );
    assert_eq!(
        parse("sysctl -w kernel.osrelease=9").unwrap_err(),
        "error: permission denied on key 'kernel.osrelease'"
    );
    // procps 3.2's WriteSetting: -w needs name=value, and a value.
    assert_eq!(
        parse("sysctl -w vm.swappiness").unwrap_err(),
        "error: \"vm.swappiness\" must be of the form name=value"
    );
    assert_eq!(
        parse("sysctl -w vm.page-cluster=").unwrap_err(),
        "error: Malformed setting \"vm.page-cluster=\""
    );
    assert_eq!(
        parse("sysctl -z vm.swappiness").unwrap_err(),
        "error: Unknown parameter \"-z\""
    );
    assert_eq!(
        parse("echo \"DCSS1G > /sys/devices/dcssblk/add").unwrap_err(),
        "-bash: unexpected EOF while looking for matching `\"'"
    );
    assert_eq!(
        parse("free -m >").unwrap_err(),
        "-bash: syntax error near unexpected token `newline'"
    );
    // Modelled commands are unchanged, quotes removed as the shell does.
    assert_eq!(
        parse("echo \"5\" > /proc/sys/vm/swappiness").unwrap(),
        LinuxCommand::SetVm {
            tunable: VmTunable::Swappiness,
            value: 5,
            sysctl: false
        }
    );
    assert_eq!(
        parse("vmstat").unwrap(),
        LinuxCommand::Vmstat {
            delay: None,
            count: None,
            procps_ng: false
        }
    );
    assert_eq!(
        parse("free -g").unwrap(),
        LinuxCommand::Free {
            unit_kib: 1 << 20,
            total: false
        }
    );
}

#[test]
fn procps_forms_and_usage_errors() {
    let vm = |d, c| LinuxCommand::Vmstat {
        delay: d,
        count: c,
        procps_ng: false,
    };
    assert_eq!(parse("vmstat 5").unwrap(), vm(Some(5), None));
    assert_eq!(parse("vmstat 2 10").unwrap(), vm(Some(2), Some(10)));
    for bad in ["vmstat x", "vmstat 1 2 3", "vmstat -z"] {
        assert_eq!(
            parse(bad).unwrap_err(),
            "usage: vmstat [-V] [-n] [delay [count]]",
            "{bad}"
        );
    }
    assert_eq!(parse("uptime").unwrap(), LinuxCommand::Uptime);
    assert!(parse("uptime now")
        .unwrap_err()
        .starts_with("usage: uptime"));
    assert_eq!(parse("cat /proc/loadavg").unwrap(), LinuxCommand::Loadavg);
    assert_eq!(
        parse("free -t -m").unwrap(),
        LinuxCommand::Free {
            unit_kib: 1024,
            total: true
        }
    );
    assert_eq!(
        parse("sysctl -w vm.min_free_kbytes=4096").unwrap(),
        LinuxCommand::SetVm {
            tunable: VmTunable::MinFreeKbytes,
            value: 4096,
            sysctl: true
        }
    );
    assert!(parse("sysctl vm.min_free_kbytes=-1")
        .unwrap_err()
        .contains("Invalid argument"));
    // uptime's line and /proc/loadavg from the view.
    let v = LinuxView {
        uptime_s: 2.0 * 86_400.0 + 3.0 * 3600.0 + 4.0 * 60.0,
        time_of_day_s: 2.0 * 86_400.0 + 3.0 * 3600.0 + 4.0 * 60.0 + 5.0,
        loadavg: [1.5, 0.25, 0.125],
        running: 2,
        tasks: 6,
        ..Default::default()
    };
    assert_eq!(
        respond(&LinuxCommand::Uptime, &v),
        [" 03:04:05 up 2 days,  3:04,  1 user,  load average: 1.50, 0.25, 0.12"]
    );
    assert_eq!(
        respond(&LinuxCommand::Loadavg, &v),
        ["1.50 0.25 0.12 2/6 6"]
    );
    // The load average follows the kernel's exponential decay.
    let l = decay_load([0.0; 3], 60.0, 1.0);
    assert!((l[0] - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
}
