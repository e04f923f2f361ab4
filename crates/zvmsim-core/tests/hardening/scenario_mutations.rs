//! Every shipped scenario (scenarios/**/*.toml), mutated field by field: each value of each
//! `key = value` (inline tables' keys included) replaced by each of a set of wrong values
//! (wrong types, zero, negative and huge numbers and sizes, unknown units, empty strings and
//! lists), an unknown field added to each table, each line deleted, each line doubled. Each
//! mutant goes through what `zvmsim check` does (parse and validate, the event and memory
//! estimates, the guest list): it is accepted, or refused with one error located in the file
//! (line and column inside it, a field, a detail), never a panic. The small scenarios of the
//! console test are also built and run when accepted, so that what validation lets through
//! does not panic the simulation.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use zvmsim_core::config::resources;
use zvmsim_core::config::scenario::parse;
use zvmsim_core::system::Simulation;

/// Wrong values, in TOML syntax.
const WRONG: &[&str] = &[
    "0",
    "-1",
    "1.5",
    "4294967295",
    "18446744073709551615",
    "-9223372036854775808",
    "1e308",
    "nan",
    "true",
    "\"\"",
    "\" \"",
    "\"abc\"",
    "\"0\"",
    "\"-5G\"",
    "\"16Q\"",
    "\"1 G\"",
    "\"99999999999999999999G\"",
    "\"16384P\"",
    "\"0s\"",
    "\"-1s\"",
    "\"1e30s\"",
    "\"99999999999h\"",
    "[]",
    "[1]",
    "{}",
];

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// Byte ranges of the values of `key = value` pairs on one line (inline tables' keys too).
fn value_spans(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'\\' if in_str => i += 1,
            b'#' if !in_str => break,
            b'=' if !in_str && i + 1 < b.len() && b[i + 1] == b' ' => {
                let start = i + 2;
                let end = value_end(b, start);
                if end > start {
                    out.push((start, end));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The end of the TOML value starting at `start`: a string, a bracketed list or table, or
/// a bare word up to a separator.
fn value_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0i32;
    let mut in_str = false;
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
                if depth == 0 {
                    return i + 1;
                }
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' if depth == 0 => return i,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                b',' | b' ' | b'#' if depth == 0 => return i,
                _ => {}
            }
        }
        i += 1;
    }
    b.len()
}

/// The mutants of one scenario: (what was done, text).
fn mutants(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let join = |ls: &[String]| ls.join("\n") + "\n";
    let own: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut out = Vec::new();
    let mut in_multi = false;
    for (n, line) in lines.iter().enumerate() {
        let quotes = line.matches("\"\"\"").count();
        let inside = in_multi;
        if quotes % 2 == 1 {
            in_multi = !in_multi;
        }
        if inside || line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        for (s, e) in value_spans(line) {
            if line[s..].starts_with("\"\"\"") {
                continue;
            }
            for w in WRONG {
                let mut ls = own.clone();
                ls[n] = format!("{}{w}{}", &line[..s], &line[e..]);
                out.push((format!("line {}: {} -> {w}", n + 1, &line[s..e]), join(&ls)));
            }
        }
        if line.starts_with('[') && !in_multi {
            let mut ls = own.clone();
            ls.insert(n + 1, "frobnicate = 1".into());
            out.push((format!("line {}: unknown field", n + 1), join(&ls)));
        }
        if !in_multi && quotes == 0 {
            let mut ls = own.clone();
            ls.remove(n);
            out.push((format!("line {}: deleted", n + 1), join(&ls)));
            let mut ls = own.clone();
            ls.insert(n, line.to_string());
            out.push((format!("line {}: doubled", n + 1), join(&ls)));
        }
    }
    out
}

/// What `zvmsim check` does with a text: None when accepted, else the error's text; a
/// panic or an unlocated error is a finding.
fn check(file: &str, text: &str, build: bool) -> Result<Option<String>, String> {
    let lines = text.lines().count() + 1;
    let got = catch_unwind(AssertUnwindSafe(|| {
        let (sc, src) = parse(text, file, &[])?;
        resources::check_events(&sc, &src)?;
        let est = resources::estimate(&sc);
        let _ = sc.guest_instances();
        Ok::<_, zvmsim_core::config::scenario::ScenarioError>(est.bytes)
    }));
    match got {
        Err(_) => Err("check panicked".into()),
        Ok(Err(e)) => {
            // 1:1 is the fallback of a field not found in the file (a shipped scenario's
            // first line is a comment or its name), not a location.
            let first = text.lines().next().unwrap_or("").trim();
            let fallback = e.line == 1
                && e.column == 1
                && (first.is_empty() || first.starts_with('#') || first.starts_with("name"));
            let located = e.file == file
                && !fallback
                && (1..=lines).contains(&e.line)
                && e.column >= 1
                && !e.field.is_empty()
                && !e.detail.is_empty();
            if located {
                Ok(Some(e.to_string()))
            } else {
                Err(format!("unlocated: {e}"))
            }
        }
        Ok(Ok(bytes)) => {
            // Build and run only what is small enough for a test.
            if build && bytes < 1 << 30 {
                // In 50-ms steps, so that a run far slower than planned shows as a finding.
                let start = std::time::Instant::now();
                let ran = catch_unwind(AssertUnwindSafe(|| {
                    let mut s = Simulation::from_toml(text, file, None, &[]).ok()?;
                    let end = s.end_ns().min(2_000_000_000);
                    let mut t = 0;
                    while t < end && start.elapsed().as_secs() < 20 {
                        t = (t + 50_000_000).min(end);
                        s.step_until(t);
                    }
                    // Where the run stopped (its end, or an abend such as PGT004), every page
                    // still has its place and the counters add up.
                    s.check_invariants().err()
                }));
                match ran {
                    Err(_) => return Err("accepted, then the run panicked".into()),
                    Ok(Some(e)) => {
                        return Err(format!("accepted, then the invariants failed: {e}"))
                    }
                    Ok(None) => {}
                }
                if start.elapsed().as_secs() >= 20 {
                    return Err("accepted, then 2 s of run took over 20 s".into());
                }
            }
            Ok(None)
        }
    }
}

#[allow(clippy::print_stderr)] // ZVMSIM_MUTATION_TRACE names each mutant as it is tried
fn findings(file: &str, text: &str, build: bool) -> (usize, usize, Vec<String>) {
    let (mut tried, mut refused, mut found) = (0, 0, Vec::new());
    let trace = std::env::var_os("ZVMSIM_MUTATION_TRACE").is_some();
    for (what, m) in mutants(text) {
        tried += 1;
        if trace {
            eprintln!("{file}: {what}");
        }
        match check(file, &m, build) {
            Ok(Some(_)) => refused += 1,
            Ok(None) => {}
            Err(why) => found.push(format!("{file}: {what}: {why}")),
        }
    }
    (tried, refused, found)
}

#[test]
#[allow(clippy::print_stderr)] // the counts, for the report
fn every_mutated_shipped_scenario_is_accepted_or_refused_at_its_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    assert!(files.len() >= 80, "{} scenarios", files.len());
    let (mut tried, mut refused, mut found) = (0, 0, Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("scenario");
        let name = f.display().to_string();
        // ZVMSIM_MUTATION_BUILD=1 also builds and runs (2 s) the accepted mutants that fit
        // in 1 GB: a long exploration, not for CI.
        let build = std::env::var_os("ZVMSIM_MUTATION_BUILD").is_some();
        let (t, r, mut x) = findings(&name, &text, build);
        tried += t;
        refused += r;
        found.append(&mut x);
    }
    eprintln!(
        "{} scenarios: {tried} mutants, {refused} refused, {} findings",
        files.len(),
        found.len()
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
#[allow(clippy::print_stderr)] // the counts, for the report
fn mutated_small_scenarios_are_refused_or_run() {
    let (mut tried, mut refused, mut found) = (0, 0, Vec::new());
    for (name, text) in super::console_commands::small_bases() {
        let (t, r, mut x) = findings(name, text, true);
        tried += t;
        refused += r;
        found.append(&mut x);
    }
    eprintln!(
        "small scenarios: {tried} mutants, {refused} refused, {} findings",
        found.len()
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}
