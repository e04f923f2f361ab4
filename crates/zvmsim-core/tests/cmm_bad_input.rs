//! Rejected VMRM-CMM input: VMRM CONFIG statements, SMSG texts, modprobe parameters and cmm
//! sysctls. Each test asserts the answer (the program's real message, or the located scenario
//! error for VMRM CONFIG) and that the state did not change.

use serde_json::Value;
use zvmsim_core::config::scenario::{self, ScenarioError};
use zvmsim_core::system::Simulation;

/// One 32 MB guest, no workload, storage not overcommitted: a run of 5 s in 1 s intervals.
const BASE: &str = r#"
[lpar]
ifls = 1
central = "64M"
zvm_level = "5.3"

[run]
priming = "1s"
measure = "4s"
interval = "1s"

[[guests]]
name = "LNX01"
storage = "32M"
linux = { kernel = "8M", min_free = "1M" }
"#;

fn with_vmrm(config: &str) -> String {
    format!("{BASE}\n[vmrm]\nconfig = \"\"\"\n{config}\"\"\"\n")
}

fn err(text: &str) -> ScenarioError {
    match scenario::parse(text, "t.toml", &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted a bad scenario"),
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.contains(needle))
        .expect("needle")
}

/// Console entries: (at, user, kind, command).
fn run(entries: &[(&str, &str, &str, &str)]) -> Simulation {
    let mut text = BASE.to_string();
    for (at, user, kind, cmd) in entries {
        let cmd = cmd.replace('\\', "\\\\").replace('"', "\\\"");
        text += &format!("\n[[console]]\nat = \"{at}\"\nuser = \"{user}\"\n{kind} = \"{cmd}\"\n");
    }
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid scenario");
    sim.run();
    sim.check_invariants().expect("invariants");
    sim
}

/// The response to the console command typed at `t_s`.
fn answer(sim: &Simulation, t_s: f64) -> Vec<String> {
    let c = sim.console();
    let line = c
        .iter()
        .find(|c| c["t_s"].as_f64() == Some(t_s))
        .unwrap_or_else(|| panic!("no command at {t_s}"));
    line["response"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// (cmm_pages_target, cmm_pages) of LNX01 at the end of each measured interval.
fn balloon(sim: &Simulation) -> Vec<(u64, u64)> {
    let f = |r: &Value, k: &str| r[k].as_u64().unwrap();
    sim.intervals()
        .iter()
        .map(|r| (f(r, "cmm_pages_target"), f(r, "cmm_pages")))
        .collect()
}

// ---------------------------------------------------------------- VMRM CONFIG

#[test]
fn vmrm_config_unknown_statement_is_located_at_its_line() {
    let text = with_vmrm("NOTIFY MEMORY LNX01\nSHRINK LNX01 100\n");
    let e = err(&text);
    assert_eq!(e.field, "vmrm.config");
    assert_eq!(e.line, line_of(&text, "SHRINK LNX01"));
    assert!(e.detail.contains("unknown statement `SHRINK`"), "{e}");
}

#[test]
fn vmrm_config_notify_needs_the_memory_keyword() {
    let text = with_vmrm("* comment\nADMIN MSGUSER MAINT\nNOTIFY LNX01\n");
    let e = err(&text);
    assert_eq!(e.line, line_of(&text, "NOTIFY LNX01"));
    assert!(e.detail.contains("only NOTIFY keyword is MEMORY"), "{e}");
}

#[test]
fn vmrm_config_wildcard_only_ends_a_user_id() {
    let text = with_vmrm("NOTIFY MEMORY LNX0*1 LNX02\n");
    let e = err(&text);
    assert_eq!(e.line, line_of(&text, "LNX0*1"));
    assert!(e.detail.contains("may only end a user ID"), "{e}");
}

#[test]
fn vmrm_config_velocity_and_importance_ranges() {
    let text = with_vmrm("GOAL FAST VELOCITY CPU 101\n");
    assert!(err(&text).detail.contains("from 1 to 100"));
    let text =
        with_vmrm("GOAL G VELOCITY DASD 5\nWORKLOAD W USER LNX01\nMANAGE W GOAL G IMPORTANCE 0\n");
    let e = err(&text);
    assert_eq!(e.line, line_of(&text, "MANAGE W"));
    assert!(e.detail.contains("from 1 to 10"), "{e}");
}

#[test]
fn xautolog_vmrmsvm_needs_its_configuration() {
    let text = format!("{BASE}\n[[console]]\nat = \"1s\"\ncp = \"XAUTOLOG VMRMSVM\"\n");
    let e = err(&text);
    assert_eq!(e.field, "console[0].cp");
    assert!(e.detail.contains("[vmrm]"), "{e}");
    // CMS commands are typed on VMRMSVM.
    let text = with_vmrm("NOTIFY MEMORY LNX01\n")
        + "\n[[console]]\nat = \"1s\"\nuser = \"LNX01\"\ncms = \"HMONITOR\"\n";
    assert_eq!(err(&text).field, "console[0].user");
}

// ---------------------------------------------------------------- SMSG

#[test]
fn smsg_from_another_user_than_the_sender_is_ignored() {
    // The sender is VMRMSVM by default: MAINT's SHRINK changes nothing.
    let sim = run(&[
        ("0.5s", "LNX01", "linux", "modprobe cmm"),
        ("1.5s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK 100"),
    ]);
    assert!(answer(&sim, 1.5).is_empty(), "CP delivers it silently");
    assert!(balloon(&sim).iter().all(|&b| b == (0, 0)));
}

#[test]
fn smsg_with_trailing_garbage_is_ignored() {
    let sim = run(&[
        ("0.5s", "LNX01", "linux", "modprobe cmm sender=maint"),
        ("1.5s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK 100"),
        ("2.5s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK 200 PAGES"),
        ("3.5s", "MAINT", "cp", "SMSG LNX01 CMM REUSE 10"),
    ]);
    assert_eq!(balloon(&sim), vec![(100, 100); 4]);
}

#[test]
fn smsg_case_and_blanks_as_cmm_c_reads_them() {
    let sim = run(&[
        ("0.5s", "LNX01", "linux", "modprobe cmm sender=MAINT"),
        ("1.5s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK 0x40"),
        ("2.2s", "MAINT", "cp", "SMSG LNX01 cmm shrink 100"),
        ("2.4s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK100"),
        ("2.6s", "MAINT", "cp", "SMSG LNX01 CMMSHRINK 100"),
        ("2.8s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK -5"),
        ("3.5s", "MAINT", "cp", "SMSG LNX01 CMM GROW 5"),
    ]);
    assert_eq!(balloon(&sim), vec![(64, 64); 4]);
}

#[test]
fn smsg_to_a_user_not_logged_on_and_to_a_guest_without_cmm() {
    let sim = run(&[
        ("1.5s", "MAINT", "cp", "SMSG LNX09 CMM SHRINK 100"),
        ("2.5s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK 100"),
        ("3.5s", "LNX01", "linux", "modprobe cmm sender=MAINT"),
        ("3.7s", "LNX01", "linux", "sysctl vm.cmm_pages"),
    ]);
    assert_eq!(answer(&sim, 1.5), ["HCPMSG045E LNX09 not logged on"]);
    // Without the module nothing takes the message; loaded later, it starts from 0.
    assert_eq!(answer(&sim, 3.7), ["vm.cmm_pages = 0"]);
    assert!(balloon(&sim).iter().all(|&b| b == (0, 0)));
}

// ---------------------------------------------------------------- modprobe, rmmod

#[test]
fn modprobe_with_an_unknown_parameter_fails_and_loads_nothing() {
    let sim = run(&[
        ("1.5s", "LNX01", "linux", "modprobe cmm sendr=MAINT"),
        ("2.5s", "LNX01", "linux", "cat /proc/sys/vm/cmm_pages"),
    ]);
    assert_eq!(
        answer(&sim, 1.5),
        ["FATAL: Error inserting cmm (/lib/modules/2.6.16.53-0.16-default/kernel/arch/s390/mm/cmm.ko): Unknown symbol in module, or unknown parameter (see dmesg)"]
    );
    assert_eq!(
        answer(&sim, 2.5),
        ["cat: /proc/sys/vm/cmm_pages: No such file or directory"]
    );
}

#[test]
fn modprobe_sender_without_a_value_is_an_invalid_argument() {
    let sim = run(&[
        ("1.5s", "LNX01", "linux", "modprobe cmm sender"),
        ("2.5s", "MAINT", "cp", "SMSG LNX01 CMM SHRINK 100"),
        ("3.5s", "LNX01", "linux", "sysctl vm.cmm_pages"),
    ]);
    assert_eq!(
        answer(&sim, 1.5),
        ["FATAL: Error inserting cmm (/lib/modules/2.6.16.53-0.16-default/kernel/arch/s390/mm/cmm.ko): Invalid argument"]
    );
    assert_eq!(
        answer(&sim, 3.5),
        ["error: \"vm.cmm_pages\" is an unknown key"]
    );
    assert!(balloon(&sim).iter().all(|&b| b == (0, 0)));
}

#[test]
fn rmmod_of_a_module_not_loaded() {
    let sim = run(&[
        ("1.5s", "LNX01", "linux", "rmmod cmm"),
        ("2.5s", "LNX01", "linux", "modprobe -r cmm"),
        ("3.5s", "LNX01", "linux", "cat /proc/sys/vm/cmm_timeout"),
    ]);
    assert_eq!(
        answer(&sim, 1.5),
        ["ERROR: Module cmm does not exist in /proc/modules"]
    );
    assert!(answer(&sim, 2.5).is_empty(), "modprobe -r is silent");
    assert_eq!(
        answer(&sim, 3.5),
        ["cat: /proc/sys/vm/cmm_timeout: No such file or directory"]
    );
}

// ---------------------------------------------------------------- sysctls

#[test]
fn cmm_sysctls_do_not_exist_before_modprobe() {
    let sim = run(&[
        (
            "1.2s",
            "LNX01",
            "linux",
            "echo 100 > /proc/sys/vm/cmm_pages",
        ),
        ("1.4s", "LNX01", "linux", "sysctl -w vm.cmm_timed_pages=100"),
        ("1.6s", "LNX01", "linux", "sysctl vm.cmm_timeout"),
        ("2.5s", "LNX01", "linux", "modprobe cmm"),
        ("3.5s", "LNX01", "linux", "cat /proc/sys/vm/cmm_timed_pages"),
    ]);
    assert_eq!(
        answer(&sim, 1.2),
        ["-bash: /proc/sys/vm/cmm_pages: Permission denied"]
    );
    assert_eq!(
        answer(&sim, 1.4),
        ["error: \"vm.cmm_timed_pages\" is an unknown key"]
    );
    assert_eq!(
        answer(&sim, 1.6),
        ["error: \"vm.cmm_timeout\" is an unknown key"]
    );
    // Nothing was kept for the module loaded later.
    assert_eq!(answer(&sim, 3.5), ["0"]);
    assert!(balloon(&sim).iter().all(|&b| b == (0, 0)));
}

#[test]
fn malformed_sysctl_settings_are_rejected_by_procps() {
    for (cmd, msg) in [
        (
            "sysctl -w vm.cmm_pages=",
            "error: Malformed setting \"vm.cmm_pages=\"",
        ),
        (
            "sysctl -w vm.cmm_timeout",
            "error: \"vm.cmm_timeout\" must be of the form name=value",
        ),
    ] {
        let text =
            format!("{BASE}\n[[console]]\nat = \"1s\"\nuser = \"LNX01\"\nlinux = \"{cmd}\"\n");
        let e = err(&text);
        assert_eq!(e.field, "console[0].linux");
        assert_eq!(e.detail, msg);
    }
}

#[test]
fn garbage_written_to_cmm_pages_is_zero_in_these_kernels() {
    // SLES 10/11 kernels (2.6.16-2.6.32) parse the write leniently: no error, the number
    // read is 0; the balloon empties.
    let sim = run(&[
        ("0.5s", "LNX01", "linux", "modprobe cmm"),
        ("1.5s", "LNX01", "linux", "sysctl -w vm.cmm_pages=0x20"),
        (
            "2.5s",
            "LNX01",
            "linux",
            "echo lots > /proc/sys/vm/cmm_pages",
        ),
    ]);
    assert_eq!(answer(&sim, 1.5), ["vm.cmm_pages = 0x20"]);
    assert!(answer(&sim, 2.5).is_empty());
    assert_eq!(balloon(&sim), vec![(32, 32), (0, 0), (0, 0), (0, 0)]);
}

#[test]
fn hmonitor_when_vmrm_is_not_running() {
    let mut text = with_vmrm("NOTIFY MEMORY LNX01\n");
    text += "\n[[console]]\nat = \"1.5s\"\nuser = \"VMRMSVM\"\ncms = \"HMONITOR\"\n";
    text += "\n[[console]]\nat = \"2.5s\"\ncp = \"XAUTOLOG VMRMSVM\"\n";
    text += "\n[[console]]\nat = \"3.5s\"\ncp = \"XAUTOLOG VMRMSVM\"\n";
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    sim.run();
    assert_eq!(
        answer(&sim, 1.5),
        ["not simulated by zvmsim: HMONITOR (VMRMSVM is not logged on)"]
    );
    assert_eq!(answer(&sim, 2.5), ["Command accepted"]);
    assert_eq!(
        answer(&sim, 3.5),
        ["not simulated by zvmsim: XAUTOLOG VMRMSVM (VMRMSVM is logged on already)"]
    );
    // One start only.
    let starts = sim
        .vmrm_log()
        .iter()
        .filter(|e| e["text"].as_str().unwrap().starts_with("VMRM started"))
        .count();
    assert_eq!(starts, 1);
}
