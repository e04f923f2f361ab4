//! The golden snapshot: every summary figure, every interval row and the console log of four
//! seeded runs, pinned bit for bit. It guards refactors: a change that moves any figure fails
//! here. Change the snapshot only on purpose, in the commit that changes the mechanism, and say
//! why in its message. Re-bless with `ZVMSIM_BLESS=1 cargo test --release --test golden`.

use std::path::PathBuf;

use serde_json::{json, Value};
use zvmsim_core::system::Simulation;

mod common;

/// (snapshot name, scenario file under scenarios/, overrides shortening the window).
const CASES: &[(&str, &str, &[&str])] = &[
    // The quickstart as it shipped before it was primed to its settled state: the snapshot
    // pins the mechanisms, and a short run exercises them as well.
    ("quickstart", "quickstart.toml", common::QUICKSTART_SHORT),
    ("linux-swap", "linux-swap/undersized-guests.toml", &[]),
    (
        "zvm52-6guests-short",
        "large-memory/zvm52-6guests.toml",
        &["run.priming=20s", "run.measure=20s", "run.interval=10s"],
    ),
    (
        "zvm53-6guests-short",
        "large-memory/zvm53-6guests.toml",
        &["run.priming=20s", "run.measure=20s", "run.interval=10s"],
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshot(file: &str, overrides: &[&str]) -> Value {
    let path = root().join("scenarios").join(file);
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let ovr: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = Simulation::from_toml(&text, file, Some(1), &ovr).expect("valid scenario");
    sim.run();
    sim.check_invariants().expect("invariants");
    json!({
        "summary": Value::Object(sim.summary()),
        "intervals": sim.intervals(),
        "system": sim.system_intervals(),
        "console": sim.console(),
    })
}

/// The paths where two JSON values differ (at most `max`).
fn diff(a: &Value, b: &Value, path: &str, out: &mut Vec<String>, max: usize) {
    if out.len() >= max {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => diff(p, q, &format!("{path}.{k}"), out, max),
                    (p, q) => out.push(format!("{path}.{k}: {p:?} != {q:?}")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, &format!("{path}[{i}]"), out, max);
            }
        }
        _ if a != b => out.push(format!("{path}: snapshot {a} != now {b}")),
        _ => {}
    }
}

#[test]
fn golden_snapshot() {
    let bless = std::env::var_os("ZVMSIM_BLESS").is_some();
    let dir = root().join("crates/zvmsim-core/tests/golden");
    let mut failures = Vec::new();
    for (name, file, overrides) in CASES {
        let now = snapshot(file, overrides);
        let path = dir.join(format!("{name}.json"));
        if bless {
            std::fs::create_dir_all(&dir).expect("snapshot folder");
            let text = serde_json::to_string_pretty(&now).expect("json") + "\n";
            std::fs::write(&path, text).expect("write snapshot");
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{}: missing; bless with ZVMSIM_BLESS=1", path.display()));
        let pinned: Value = serde_json::from_str(&text).expect("snapshot json");
        // Compare text-parsed with text-parsed, so the float parser's rounding is the same.
        let now: Value = serde_json::from_str(&now.to_string()).expect("json");
        let mut out = Vec::new();
        diff(&pinned, &now, name, &mut out, 20);
        failures.extend(out);
    }
    assert!(
        failures.is_empty(),
        "golden snapshot differs:\n{}",
        failures.join("\n")
    );
}
