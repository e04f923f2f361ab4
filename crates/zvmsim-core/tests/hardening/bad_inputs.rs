//! The corpus of bad inputs (tests/data/bad/*.txt): each case mutates a shipped scenario
//! (overrides, text replacements, appended tables, console commands) and names the exact
//! located message it must get. None may panic, be accepted, or take long.
//!
//! `ZVMSIM_BLESS=1 cargo test --release -p zvmsim-core --test hardening bad_inputs` rewrites the
//! `expect` lines with the messages given now (review the diff before committing it).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use zvmsim_core::config::scenario::parse;

const CORPUS: &str = "tests/data/bad";

struct Case {
    name: String,
    base: String,
    sets: Vec<String>,
    replaces: Vec<(String, String)>,
    appends: Vec<String>,
    expect: Option<String>,
}

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n")
}

fn cases(text: &str) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        if key == "==" {
            out.push(Case {
                name: rest.to_string(),
                base: "quickstart.toml".into(),
                sets: vec![],
                replaces: vec![],
                appends: vec![],
                expect: None,
            });
            continue;
        }
        let c = out.last_mut().expect("a case starts with `== name`");
        match key {
            "base" => c.base = rest.to_string(),
            "set" => c.sets.push(rest.to_string()),
            "replace" => {
                let (a, b) = rest.split_once(" =>").expect("replace OLD => NEW");
                let b = b.strip_prefix(' ').unwrap_or(b);
                c.replaces.push((unescape(a), unescape(b)));
            }
            "append" => c.appends.push(unescape(rest)),
            "cp" => c
                .appends
                .push(format!("\n[[console]]\nat = \"1s\"\ncp = \"{rest}\"\n")),
            "linux" => c.appends.push(format!(
                "\n[[console]]\nat = \"1s\"\nuser = \"LNX01\"\nlinux = \"{rest}\"\n"
            )),
            "expect" => c.expect = Some(rest.to_string()),
            other => panic!("case {}: unknown directive `{other}`", c.name),
        }
    }
    out
}

fn scenario_text(c: &Case) -> String {
    let path = format!("{}/../../scenarios/{}", env!("CARGO_MANIFEST_DIR"), c.base);
    let mut text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for (a, b) in &c.replaces {
        assert!(
            text.contains(a.as_str()),
            "case {}: `{a}` not in {}",
            c.name,
            c.base
        );
        text = text.replacen(a.as_str(), b, 1);
    }
    for a in &c.appends {
        text.push_str(a);
    }
    text
}

/// What the parser answers: the message, or why the case failed (panic, accepted).
fn answer(c: &Case) -> Result<String, String> {
    let text = scenario_text(c);
    let start = Instant::now();
    let got = catch_unwind(AssertUnwindSafe(|| parse(&text, "bad.toml", &c.sets)));
    let took = start.elapsed();
    if took > Duration::from_secs(2) {
        return Err(format!("took {took:?}"));
    }
    match got {
        Err(_) => Err("panicked".into()),
        Ok(Ok(_)) => Err("accepted".into()),
        Ok(Err(e)) => Ok(e.to_string()),
    }
}

#[test]
fn every_bad_input_gets_its_located_message() {
    let dir = format!("{}/{CORPUS}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("corpus file");
            (p.display().to_string(), text)
        })
        .collect();
    files.sort();
    let all: Vec<Case> = files.iter().flat_map(|(_, t)| cases(t)).collect();
    assert!(
        all.len() >= 100,
        "{} cases: the corpus keeps at least 100",
        all.len()
    );
    let mut names = std::collections::BTreeSet::new();
    let bless = std::env::var_os("ZVMSIM_BLESS").is_some();
    let mut failures = Vec::new();
    let mut blessed = Vec::new();
    for c in &all {
        assert!(names.insert(c.name.clone()), "case name {} twice", c.name);
        match answer(c) {
            Err(why) => failures.push(format!("{}: {why}", c.name)),
            Ok(msg) => {
                blessed.push((c.name.clone(), msg.clone()));
                // Located: file (or --set), line, column and field come first.
                if !(msg.starts_with("bad.toml:") || msg.starts_with("--set "))
                    || !msg.contains(": field `")
                {
                    failures.push(format!("{}: not located: {msg}", c.name));
                }
                if !bless && c.expect.as_deref() != Some(msg.as_str()) {
                    failures.push(format!(
                        "{}:\n  expected {}\n  got      {msg}",
                        c.name,
                        c.expect.as_deref().unwrap_or("(nothing)")
                    ));
                }
            }
        }
    }
    if bless {
        for (path, text) in &files {
            rewrite(path, text, &blessed);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

fn rewrite(path: &str, text: &str, blessed: &[(String, String)]) {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    let msg = |n: &str| blessed.iter().find(|(k, _)| k == n).map(|(_, m)| m.clone());
    let mut pending = false;
    let flush = |out: &mut String, current: Option<&str>, pending: &mut bool| {
        if *pending {
            if let Some(m) = current.and_then(msg) {
                out.push_str(&format!("expect {m}\n"));
            }
        }
        *pending = false;
    };
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("== ") {
            flush(&mut out, current, &mut pending);
            current = Some(n);
            pending = true;
        }
        if line.starts_with("expect ") {
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            flush(&mut out, current, &mut pending);
        }
        out.push_str(line);
        out.push('\n');
    }
    flush(&mut out, current, &mut pending);
    std::fs::write(path, out).expect("write corpus");
}
