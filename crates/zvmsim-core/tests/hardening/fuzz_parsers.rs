//! Fuzzing on stable Rust (proptest): the scenario parser and validator (on random mutations of
//! the shipped scenarios), the `--set` override parser, and the CP and Linux command parsers.
//! Every input must get an answer (a value or an error), never a panic, within a time bound;
//! a rejected scenario's error is located (file or --set, line, column, field). CI runs a short
//! pass; `scripts/fuzz` runs a long one (ZVMSIM_FUZZ_CASES sets the cases per target).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use zvmsim_core::config::scenario::parse;

const SCENARIOS: &[(&str, &str)] = &[
    (
        "quickstart.toml",
        include_str!("../../../../scenarios/quickstart.toml"),
    ),
    (
        "zvm52-10guests.toml",
        include_str!("../../../../scenarios/large-memory/zvm52-10guests.toml"),
    ),
    (
        "undersized-guests.toml",
        include_str!("../../../../scenarios/linux-swap/undersized-guests.toml"),
    ),
    (
        "zvm53-10guests-vmrm-cmm-cmma.toml",
        include_str!("../../../../scenarios/cmm/zvm53-10guests-vmrm-cmm-cmma.toml"),
    ),
];

/// Values a hostile or careless user might type, in TOML syntax.
const NASTY: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "0.5",
    "5.25",
    "1e308",
    "-1e308",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "true",
    "[]",
    "{}",
    "[[]]",
    "\"\"",
    "\" \"",
    "\"0\"",
    "\"1ns\"",
    "\"1ms\"",
    "\"0s\"",
    "\"1h\"",
    "\"10000h\"",
    "\"-5G\"",
    "\"0G\"",
    "\"1T\"",
    "\"1P\"",
    "\"99999999999999999999G\"",
    "\"1e30G\"",
    "\"4097M\"",
    "\"5.3\"",
    "\"5.2\"",
    "\"%999999d\"",
    "\"LNX%08d\"",
    "\"\\u0000\"",
    "\"\\u0007\"",
    "\"\\u00a0\"",
    "\"Q\\u00a0STOR\"",
    "\"QUERY STORAGE\"",
    "\"free -m\"",
    "\"database\"",
    "\"3390-54\"",
    "100000",
    "65536",
];

/// Override keys: real ones and broken syntax.
const KEYS: &[&str] = &[
    "lpar.ifls",
    "lpar.central",
    "lpar.expanded",
    "lpar.zvm_level",
    "run.measure",
    "run.interval",
    "run.priming",
    "run.seed",
    "run.drift_tolerance",
    "guests[0].count",
    "guests[0].storage",
    "guests[0].name",
    "guests[0].first",
    "guests[0].vcpus",
    "guests[0].dasd[0].count",
    "guests[0].dasd[0].cache_hit",
    "guests[0].linux.swap",
    "guests[0].linux.kernel",
    "paging.slots",
    "paging.cache_hit",
    "model.paging_block",
    "model.time_slice",
    "model.avail_low_fraction",
    "model.avail_high_fraction",
    "model.dasd_read_hit_ratio",
    "model.dasd_read_miss",
    "workloads.oltp.users",
    "workloads.oltp.database.size",
    "console[0].cp",
    "console[0].linux",
    "lpar..ifls",
    ".",
    "",
    "lpar.",
    ".lpar",
    "guests[99].count",
    "guests[x].count",
    "guests[0",
    "a.b.c.d.e",
    "lpar.ifls.x",
    "lpar ifls",
    "guests[0][0]",
];

const CP_WORDS: &[&str] = &[
    "CP",
    "QUERY",
    "Q",
    "STORAGE",
    "STOR",
    "XSTORE",
    "ALLOC",
    "PAGE",
    "INDICATE",
    "IND",
    "LOAD",
    "SET",
    "MEMASSIST",
    "ON",
    "OFF",
    "ALL",
    "USER",
    "LNX01",
    "SMSG",
    "VMRMSVM",
    "XAUTOLOG",
    "NAMES",
    "CPLEVEL",
    "PROCESSORS",
    "SRM",
    "STORBUF",
    "DEFINE",
    "MSG",
    "*",
    "=",
    "(",
    ")",
    "\u{a0}",
    "\t",
    "\u{7}",
    "\0",
    "",
    "9999999999999999999999",
    "-1",
];

const SH_WORDS: &[&str] = &[
    "free",
    "-m",
    "-k",
    "-g",
    "-s",
    "cat",
    "/proc/meminfo",
    "/proc/vmstat",
    "/proc/swaps",
    "/proc/sys/vm/swappiness",
    "/proc/sys/vm/cmm_pages",
    "echo",
    "sysctl",
    "-w",
    "vm.swappiness=60",
    "vm.page-cluster=3",
    "vm.cmm_pages=1000",
    "modprobe",
    "cmm",
    "-r",
    "rmmod",
    "swapon",
    "vmstat",
    ">",
    ">>",
    "2>&1",
    "|",
    ";",
    "&&",
    "&",
    "'",
    "\"",
    "`",
    "$(",
    ")",
    "X=1",
    "\u{a0}",
    "\r",
    "\u{7}",
    "\u{1b}",
    "\n",
    "18446744073709551616",
    "-1",
];

/// Cases per target: ZVMSIM_FUZZ_CASES_<TARGET> (SCENARIOS, OVERRIDES, CP, LINUX), else
/// ZVMSIM_FUZZ_CASES, else 300 (CI).
fn cases(target: &str) -> u32 {
    let read = |k: &str| std::env::var(k).ok().and_then(|v| v.parse().ok());
    read(&format!("ZVMSIM_FUZZ_CASES_{target}"))
        .or_else(|| read("ZVMSIM_FUZZ_CASES"))
        .unwrap_or(300)
}

fn runner(target: &str) -> TestRunner {
    TestRunner::new(Config {
        cases: cases(target),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Executions of each target, reported by the long run.
static EXECUTIONS: AtomicU64 = AtomicU64::new(0);

/// One parser call, bounded in time: a hang shows as a failure, not a stuck CI job.
fn timed<T>(what: &str, input: &str, f: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    EXECUTIONS.fetch_add(1, Ordering::Relaxed);
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    if took > Duration::from_secs(2) {
        return Err(TestCaseError::fail(format!(
            "{what} took {took:?} on {input:?}"
        )));
    }
    Ok(out)
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the value of the `n`-th `key = value` line.
    Value(usize, String),
    DeleteLine(usize),
    DuplicateLine(usize),
    /// Insert text at a char position.
    Insert(usize, String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let value = prop_oneof![
        4 => proptest::sample::select(NASTY).prop_map(str::to_string),
        1 => "\\PC{0,12}".prop_map(|s| format!("{s:?}")),
        1 => "[-0-9.eE]{1,24}",
    ];
    prop_oneof![
        6 => (any::<usize>(), value).prop_map(|(n, v)| Mutation::Value(n, v)),
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), "\\PC{0,8}|[\\[\\]{}=\".,#\\n]{1,4}")
            .prop_map(|(n, s)| Mutation::Insert(n, s)),
    ]
}

fn mutate(text: &str, muts: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for m in muts {
        let n = lines.len().max(1);
        match m {
            Mutation::Value(k, v) => {
                let with_value: Vec<usize> = (0..lines.len())
                    .filter(|&i| lines[i].contains(" = ") && !lines[i].starts_with('#'))
                    .collect();
                if let Some(&i) = with_value.get(k % with_value.len().max(1)) {
                    let key = lines[i].split(" = ").next().unwrap_or("").to_string();
                    lines[i] = format!("{key} = {v}");
                }
            }
            Mutation::DeleteLine(k) if !lines.is_empty() => {
                lines.remove(k % n);
            }
            Mutation::DuplicateLine(k) if !lines.is_empty() => {
                let l = lines[k % n].clone();
                lines.insert(k % n, l);
            }
            Mutation::Insert(k, s) if !lines.is_empty() => {
                let l = &mut lines[k % n];
                let at = l
                    .char_indices()
                    .map(|(i, _)| i)
                    .nth(k % (l.chars().count() + 1));
                l.insert_str(at.unwrap_or(l.len()), s);
            }
            _ => {}
        }
    }
    lines.join("\n") + "\n"
}

fn check_scenario(file: &str, text: &str, overrides: &[String]) -> Result<(), TestCaseError> {
    let got = timed("parse", text, || parse(text, file, overrides))?;
    if let Err(e) = got {
        let located = e.file == file || e.file.starts_with("--set ");
        prop_assert!(located, "error not located: {e}");
        prop_assert!(e.line >= 1 && e.column >= 1, "no position: {e}");
        prop_assert!(!e.detail.is_empty(), "no detail: {e}");
    }
    Ok(())
}

#[test]
fn fuzz_scenarios() {
    let strategy = (
        0..SCENARIOS.len(),
        proptest::collection::vec(mutation(), 1..4),
    );
    runner("SCENARIOS")
        .run(&strategy, |(i, muts)| {
            let (file, text) = SCENARIOS[i];
            check_scenario(file, &mutate(text, &muts), &[])
        })
        .unwrap();
}

#[test]
fn fuzz_overrides() {
    let key = prop_oneof![
        3 => proptest::sample::select(KEYS).prop_map(str::to_string),
        1 => "[a-z_.\\[\\]0-9 ]{0,20}",
        1 => "\\PC{0,10}",
    ];
    let value = prop_oneof![
        3 => proptest::sample::select(NASTY).prop_map(str::to_string),
        1 => "\\PC{0,16}",
    ];
    let one = prop_oneof![
        8 => (key, value).prop_map(|(k, v)| format!("{k}={v}")),
        1 => "\\PC{0,20}",
    ];
    runner("OVERRIDES")
        .run(&proptest::collection::vec(one, 1..4), |sets| {
            check_scenario("quickstart.toml", SCENARIOS[0].1, &sets)
        })
        .unwrap();
}

fn line_of(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    let sep = prop_oneof![8 => Just(" "), 1 => Just("  "), 1 => Just("")];
    prop_oneof![
        4 => proptest::collection::vec((proptest::sample::select(words), sep), 0..8)
            .prop_map(|ws| ws.into_iter().map(|(w, s)| format!("{w}{s}")).collect()),
        1 => "\\PC{0,40}",
        1 => ".{0,300}",
    ]
}

#[test]
fn fuzz_cp_commands() {
    let levels = proptest::sample::select(vec![None, Some("5.2"), Some("5.3"), Some("9.9")]);
    runner("CP")
        .run(&(line_of(CP_WORDS), levels), |(line, level)| {
            let got = timed("CP parse", &line, || {
                zvmsim_core::cp::commands::parse_at(&line, level)
            })?;
            if let Err(m) = got {
                prop_assert!(!m.is_empty());
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn fuzz_linux_commands() {
    runner("LINUX")
        .run(&line_of(SH_WORDS), |line| {
            let got = timed("Linux parse", &line, || {
                zvmsim_core::linux::commands::parse(&line)
            })?;
            if let Err(m) = got {
                prop_assert!(!m.is_empty());
            }
            Ok(())
        })
        .unwrap();
}

/// The long run's figures: executions and the process's peak resident memory, which must stay
/// under 1 GB (no input makes a parser allocate without bound).
#[test]
#[allow(clippy::print_stderr)]
fn zz_peak_memory_stays_small() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    if std::env::vars().any(|(k, _)| k.starts_with("ZVMSIM_FUZZ_CASES")) {
        eprintln!(
            "fuzz: {} executions so far in this process, peak RSS {} MB",
            EXECUTIONS.load(Ordering::Relaxed),
            hwm_kb / 1024
        );
    }
    assert!(hwm_kb < 1 << 20, "peak RSS {hwm_kb} kB is over 1 GB");
}
