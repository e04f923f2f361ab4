//! Adversarial console input at running systems (console_inputs.rs): thousands of malformed
//! CP, CMS and Linux commands typed in four small scenarios (DASD and HyperPAV at 7.1, VDISK
//! and DASD swap at 5.4, VMRM-CMM at 5.3, a DCSS swap device at 5.4). Each base is run three
//! ways: with no extra input, with all of it, and with only the input that was rejected.
//! - No input may panic the run (a panic is narrowed down to the lines that cause it).
//! - A scenario error on a console line must be located at that line.
//! - Rejected input changes nothing: the run with only the rejected lines gives the intervals
//!   of the run without them, and the same answers to read-only queries typed at its end.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;
use zvmsim_core::config::scenario::parse;
use zvmsim_core::system::Simulation;

use super::console_bases::{Base, BASES};
use super::console_inputs::{cp_catalog, cp_forms, linux_forms, Input, Kind};

/// The inputs typed first: from 1.5 s, one every 100 us; the probes at 3.9 s.
const FIRST_NS: u64 = 1_500_000_000;
const STEP_NS: u64 = 100_000;
const PROBE_AT: &str = "3900ms";

/// CMS lines: HMONITOR and SWAPGEN, well and badly formed.
fn cms_forms() -> Vec<String> {
    [
        "",
        "HMONITOR",
        "HMONITOR FROB",
        "SWAPGEN",
        "SWAPGEN 300",
        "SWAPGEN 10000 1000",
        "SWAPGEN FFFF 1000",
        "SWAPGEN 300 -1",
        "SWAPGEN 300 0",
        "SWAPGEN 300 99999999999999999999",
        "SWAPGEN 300 1000 (FROB",
        "SWAPGEN 300 1000 ,",
        "EXEC SWAPGEN 300 16",
        "EX",
        "EXEC",
        "ACCESS 191 A",
        "FILELIST",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn inputs(b: &Base) -> Vec<Input> {
    let mut v = cp_catalog("MAINT");
    v.extend(cp_catalog(b.guest));
    for t in cp_forms(b.guest, b.vdev) {
        for u in ["MAINT", b.guest, "CMSDCSS"] {
            v.push(Input {
                user: u.into(),
                kind: Kind::Cp,
                text: t.clone(),
            });
        }
    }
    for t in cms_forms() {
        for u in ["VMRMSVM", b.guest] {
            v.push(Input {
                user: u.into(),
                kind: Kind::Cms,
                text: t.clone(),
            });
        }
    }
    for t in linux_forms(b.dev, b.bus) {
        v.push(Input {
            user: b.guest.into(),
            kind: Kind::Linux,
            text: t,
        });
    }
    v
}

/// Read-only queries typed at the end of every run (those the base's level has): the state
/// they show must not differ.
fn probes(b: &Base) -> Vec<Input> {
    all_probes(b)
        .into_iter()
        .filter(|p| {
            let t = format!(
                "{}[[console]]\nuser = \"{}\"\n{} = {}\n",
                b.text,
                p.user,
                p.kind.key(),
                toml_str(&p.text)
            );
            parse(&t, "bad.toml", &[]).is_ok()
        })
        .collect()
}

fn all_probes(b: &Base) -> Vec<Input> {
    let cp = [
        "QUERY STORAGE",
        "QUERY ALLOC PAGE",
        "INDICATE LOAD",
        "QUERY MEMASSIST",
        "QUERY AGELIST",
        "QUERY MDCACHE",
        "QUERY VDISK",
        "QUERY NSS ALL MAP",
        "QUERY PAV",
        "QUERY PAGING",
        "QUERY NAMES",
        "QUERY PROCESSORS",
    ];
    let guest_cp = ["QUERY VIRTUAL DASD", "QUERY MDCACHE"];
    let linux = [
        "free -k",
        "cat /proc/swaps",
        "cat /proc/cmdline",
        "sysctl vm.swappiness",
        "sysctl vm.page-cluster",
        "sysctl vm.min_free_kbytes",
        "sysctl vm.cmm_pages",
        "sysctl vm.cmm_timed_pages",
        "sysctl vm.cmm_timeout",
        "lsmod",
        "lsdasd -u",
        "cat /proc/dasd/devices",
        "ls /sys/devices/dcssblk",
        "tunedasd -P /dev/dasda",
    ];
    let mk = |user: &str, kind, t: &&str| Input {
        user: user.into(),
        kind,
        text: t.to_string(),
    };
    cp.iter()
        .map(|t| mk("MAINT", Kind::Cp, t))
        .chain(guest_cp.iter().map(|t| mk(b.guest, Kind::Cp, t)))
        .chain(linux.iter().map(|t| mk(b.guest, Kind::Linux, t)))
        .collect()
}

/// A TOML basic string holding `s` exactly.
fn toml_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                o.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The scenario with `typed` and the probes appended, and the first line of each typed entry.
fn scenario_lines(b: &Base, typed: &[&Input]) -> (String, Vec<usize>) {
    let mut t = b.text.to_string();
    let mut starts = Vec::new();
    let mut line = t.lines().count() + 1;
    for (i, x) in typed.iter().enumerate() {
        let at = FIRST_NS + i as u64 * STEP_NS;
        starts.push(line);
        line += 4;
        t += &format!(
            "[[console]]\nat = \"{at}ns\"\nuser = {}\n{} = {}\n",
            toml_str(&x.user),
            x.kind.key(),
            toml_str(&x.text)
        );
    }
    for p in probes(b) {
        t += &format!(
            "[[console]]\nat = \"{PROBE_AT}\"\nuser = \"{}\"\n{} = {}\n",
            p.user,
            p.kind.key(),
            toml_str(&p.text)
        );
    }
    (t, starts)
}

/// A run's outcome: the scenario error, the panic, or what the run showed.
enum Outcome {
    Refused(zvmsim_core::config::scenario::ScenarioError),
    Panicked(String),
    Ran(Run),
}

struct Run {
    /// The console's lines: (user, command, response).
    console: Vec<(String, String, Vec<String>)>,
    /// The interval rows and the probes' answers.
    fingerprint: Vec<String>,
}

fn run(b: &Base, typed: &[&Input]) -> Outcome {
    let (text, _) = scenario_lines(b, typed);
    let got = catch_unwind(AssertUnwindSafe(|| {
        let mut s = Simulation::from_toml(&text, "bad.toml", None, &[])?;
        s.run();
        Ok(s)
    }));
    let s = match got {
        Err(p) => {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Outcome::Panicked(m);
        }
        Ok(Err(e)) => return Outcome::Refused(e),
        Ok(Ok(s)) => s,
    };
    let console: Vec<(String, String, Vec<String>)> = s
        .console()
        .iter()
        .map(|l| {
            let r = l["response"].as_array().cloned().unwrap_or_default();
            (
                l["user"].as_str().unwrap_or("").to_string(),
                l["command"].as_str().unwrap_or("").to_string(),
                r.iter()
                    .map(|x| x.as_str().unwrap_or("").to_string())
                    .collect(),
            )
        })
        .collect();
    let mut fingerprint: Vec<String> = s
        .intervals()
        .iter()
        .chain(s.system_intervals().iter())
        .map(Value::to_string)
        .collect();
    let probe_t = 3.9;
    for l in s.console() {
        if l["t_s"]
            .as_f64()
            .is_some_and(|t| (t - probe_t).abs() < 1e-9)
        {
            fingerprint.push(l.to_string());
        }
    }
    Outcome::Ran(Run {
        console,
        fingerprint,
    })
}

/// The response of each input, matched by user and command in the order typed.
fn responses<'a>(r: &Run, typed: &[&'a Input]) -> Vec<(&'a Input, Vec<String>)> {
    let mut by: HashMap<(String, String), VecDeque<Vec<String>>> = HashMap::new();
    for (u, c, resp) in &r.console {
        by.entry((u.clone(), c.clone()))
            .or_default()
            .push_back(resp.clone());
    }
    typed
        .iter()
        .map(|x| {
            let key = (x.user.to_ascii_uppercase(), x.text.clone());
            let resp = by
                .get_mut(&key)
                .and_then(VecDeque::pop_front)
                .unwrap_or_else(|| vec!["(no console line)".into()]);
            (*x, resp)
        })
        .collect()
}

/// An answer that refuses the command: CP's error message, zvmsim's own refusal, or a Linux
/// tool's or the shell's error line.
fn rejected(resp: &[String]) -> bool {
    resp.iter().any(|l| {
        let low = l.to_ascii_lowercase();
        let hcp_error = l.starts_with("HCP")
            && l.split_whitespace()
                .next()
                .is_some_and(|w| w.ends_with('E'));
        hcp_error
            || low.contains("not simulated by zvmsim")
            || low.starts_with("-bash:")
            || [
                "no such file",
                "invalid argument",
                "permission denied",
                "not permitted",
                "command not found",
                "no such device",
                "invalid",
                "unknown",
                "usage:",
                "error",
                "fatal",
                "not found",
                "cannot",
                "read-only",
                "busy",
                "illegal",
                "unrecognized",
            ]
            .iter()
            .any(|k| low.contains(k))
    })
}

/// The lines of `typed` that alone make the run panic, by halving.
fn culprits<'a>(b: &Base, typed: &[&'a Input]) -> Vec<&'a Input> {
    if typed.len() == 1 {
        return typed.to_vec();
    }
    let (l, r) = typed.split_at(typed.len() / 2);
    let mut out = Vec::new();
    for half in [l, r] {
        if matches!(run(b, half), Outcome::Panicked(_)) {
            out.extend(culprits(b, half));
        }
    }
    out
}

/// The rejected lines of `typed` whose run differs from `base`'s, by halving.
fn changers<'a>(b: &Base, typed: &[&'a Input], base: &[String]) -> Vec<&'a Input> {
    let differs = |t: &[&Input]| match run(b, t) {
        Outcome::Ran(r) => r.fingerprint != base,
        _ => true,
    };
    if typed.len() == 1 {
        return typed.to_vec();
    }
    let (l, r) = typed.split_at(typed.len() / 2);
    let mut out = Vec::new();
    for half in [l, r] {
        if differs(half) {
            out.extend(changers(b, half, base));
        }
    }
    out
}

/// Everything found at one base, as report lines; empty when the base is clean.
#[allow(clippy::print_stderr)] // counts for the report; ZVMSIM_CONSOLE_DUMP adds every answer
fn check(b: &Base) -> Vec<String> {
    let all = inputs(b);
    let mut typed: Vec<&Input> = all.iter().collect();
    let mut found = Vec::new();
    let mut refused_at_load = Vec::new();
    let clean = match run(b, &[]) {
        Outcome::Ran(r) => r,
        Outcome::Refused(e) => return vec![format!("{}: the base is refused: {e}", b.name)],
        Outcome::Panicked(m) => return vec![format!("{}: the base panics: {m}", b.name)],
    };
    // A line the scenario refuses must be refused at its own line, naming the console.
    typed.retain(|x| {
        let (text, starts) = scenario_lines(b, &[x]);
        match parse(&text, "bad.toml", &[]) {
            Ok(_) => true,
            Err(e) => {
                let on_its_line = e.file == "bad.toml"
                    && e.field.starts_with("console")
                    && (starts[0]..starts[0] + 4).contains(&e.line)
                    && e.column >= 1;
                if !on_its_line {
                    found.push(format!("{}: {x:?}: unlocated error: {e}", b.name));
                }
                refused_at_load.push(format!("{x:?}: {e}"));
                false
            }
        }
    });
    let batch = loop {
        match run(b, &typed) {
            Outcome::Ran(r) => break r,
            Outcome::Panicked(m) => {
                let c = culprits(b, &typed);
                if c.is_empty() {
                    found.push(format!(
                        "{}: panic from several lines together: {m}",
                        b.name
                    ));
                    return found;
                }
                for x in c {
                    found.push(format!("{}: panic on {:?}: {m}", b.name, x));
                    typed.retain(|y| !std::ptr::eq(*y, x));
                }
            }
            Outcome::Refused(e) => {
                found.push(format!("{}: refused together, not alone: {e}", b.name));
                return found;
            }
        }
    };
    let answered = responses(&batch, &typed);
    let dump = std::env::var_os("ZVMSIM_CONSOLE_DUMP").is_some();
    if dump {
        for (x, r) in &answered {
            eprintln!(
                "{}\t{}\t{:?}\t{}\t{:?}",
                b.name,
                x.user,
                x.kind,
                x.text.escape_debug(),
                r
            );
        }
    }
    // A line rejected after an accepted one (SET VDISK USERLIM 0, then DEFINE VFB-512) may be
    // accepted without it: keep the lines rejected in the run of rejected lines alone.
    let mut refused: Vec<&Input> = answered
        .iter()
        .filter(|(_, r)| rejected(r))
        .map(|(x, _)| *x)
        .collect();
    let only = loop {
        let only = match run(b, &refused) {
            Outcome::Ran(r) => r,
            _ => return vec![format!("{}: the rejected lines alone do not run", b.name)],
        };
        let still: Vec<&Input> = responses(&only, &refused)
            .into_iter()
            .filter(|(_, r)| rejected(r))
            .map(|(x, _)| x)
            .collect();
        if still.len() == refused.len() {
            break only;
        }
        refused = still;
    };
    if only.fingerprint != clean.fingerprint {
        for x in changers(b, &refused, &clean.fingerprint) {
            found.push(format!(
                "{}: rejected but changed the state: {:?}",
                b.name, x
            ));
        }
    }
    eprintln!(
        "{}: {} lines typed, {} refused at load, {} rejected at the console",
        b.name,
        all.len(),
        refused_at_load.len(),
        refused.len()
    );
    if dump {
        for l in &refused_at_load {
            eprintln!("  load: {l}");
        }
    }
    found
}

/// The bases' (name, text), for scenario_mutations.rs.
pub(super) fn small_bases() -> Vec<(&'static str, &'static str)> {
    BASES.iter().map(|b| (b.name, b.text)).collect()
}

#[test]
fn malformed_console_input_never_panics_and_rejected_input_changes_nothing() {
    let found: Vec<String> = BASES.iter().flat_map(check).collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}
