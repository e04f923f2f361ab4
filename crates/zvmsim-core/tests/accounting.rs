//! What the console and the per-guest figures report agrees with the interval rows: INDICATE
//! LOAD's rates are the interval's, and CP time is charged to the guests it was spent for.

use std::path::PathBuf;

use serde_json::Value;
use zvmsim_core::Simulation;

fn quickstart(extra: &str) -> Simulation {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
    let text = std::fs::read_to_string(path).expect("quickstart") + extra;
    let mut sim = Simulation::from_toml(&text, "quickstart.toml", None, &[]).expect("valid");
    sim.run();
    sim
}

/// The numbers of an INDICATE LOAD response: AVGPROC %, XSTORE/s, MIGRATE/s, PAGING/s.
fn indicate(lines: &[Value]) -> [f64; 4] {
    let text: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
    let num = |key: &str| -> f64 {
        let line = text.iter().find(|l| l.contains(key)).expect(key);
        let rest = &line[line.find(key).expect(key) + key.len()..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().expect("a number")
    };
    [num("AVGPROC-"), num("XSTORE-"), num("MIGRATE-"), num("PAGING-")]
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1.0)
}

#[test]
fn indicate_load_agrees_with_the_interval_rows() {
    // Two moments inside the interval [80 s, 90 s) (priming 30 s, 10 s intervals).
    let sim = quickstart(
        "\n[[console]]\nat = \"83s\"\ncp = \"INDICATE LOAD\"\n\n[[console]]\nat = \"89s\"\ncp = \"INDICATE LOAD\"\n",
    );
    let rows = sim.system_rows();
    let row = rows.iter().find(|r| r.t_start_s == 80.0).expect("interval 80-90 s");
    let want = [
        row.ifl_utilization_pct,
        row.ms_to_xs_per_s + row.xs_to_ms_per_s,
        row.xs_to_dasd_per_s,
        row.dasd_to_ms_per_s + row.ms_to_dasd_per_s + row.xs_to_dasd_per_s,
    ];
    assert!(want[3] > 1000.0, "the quickstart pages to DASD: {want:?}");
    let console = sim.console();
    let mut seen = 0;
    for c in &console {
        let t = c["t_s"].as_f64().unwrap();
        if c["command"] == "INDICATE LOAD" && (83.0..90.0).contains(&t) {
            let got = indicate(c["response"].as_array().unwrap());
            for k in 0..4 {
                assert!(
                    close(got[k], want[k], 0.05),
                    "at {t} s: INDICATE LOAD {got:?}, interval row {want:?}"
                );
            }
            seen += 1;
        }
    }
    // The two added, and the quickstart's own at 85 s.
    assert_eq!(seen, 3);
}
