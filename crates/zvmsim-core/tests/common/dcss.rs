//! What the saved-segment tests share: seed 000's scenarios run whole, a small system whose
//! console script the test gives, and the console log read back.

use serde_json::Value;
use zvmsim_core::system::Simulation;

pub(crate) fn run(file: &str) -> Simulation {
    let path = format!("{}/../../scenarios/dcss/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("scenario");
    let mut s = Simulation::from_toml(&text, &path, None, &[]).expect("valid");
    s.run();
    s
}

pub(crate) fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// (command, response lines squashed, elapsed seconds) of every console line.
pub(crate) fn lines(s: &Simulation) -> Vec<(String, Vec<String>, Option<f64>)> {
    s.console()
        .iter()
        .map(|l| {
            let resp = l["response"]
                .as_array()
                .map(|a| a.iter().map(|x| squash(x.as_str().unwrap_or(""))).collect())
                .unwrap_or_default();
            (
                l["command"].as_str().unwrap_or("").to_string(),
                resp,
                l.get("elapsed_s").and_then(Value::as_f64),
            )
        })
        .collect()
}

/// When console command `cmd` was typed and how long it took, in seconds.
pub(crate) fn started_and_elapsed(s: &Simulation, cmd: &str) -> (f64, f64) {
    let l = s
        .console()
        .into_iter()
        .find(|l| l["command"] == cmd)
        .unwrap_or_else(|| panic!("{cmd} not typed"));
    let t = l["t_s"].as_f64().expect("t_s");
    (t, l.get("elapsed_s").and_then(Value::as_f64).unwrap_or(0.0))
}

pub(crate) fn answer<'a>(
    l: &'a [(String, Vec<String>, Option<f64>)],
    cmd: &str,
) -> &'a (String, Vec<String>, Option<f64>) {
    l.iter()
        .find(|x| x.0 == cmd)
        .unwrap_or_else(|| panic!("{cmd} not typed"))
}

pub(crate) const SMALL: &str = r#"
[lpar]
ifls = 2
central = "4G"
expanded = "512M"
zvm_level = "5.4"

[paging]
volumes = [{ model = "3390-9", count = 1 }]

[spool]
volumes = [{ model = "3390-9", count = 1 }]

[run]
priming = "0s"
measure = "30m"
interval = "60s"

[[guests]]
name = "LNX001"
storage = "512M"
linux = { kernel = "48M", min_free = "4M", parameters = "root=/dev/dasda1 mem=1536M" }
"#;

pub(crate) fn sim(script: &[(&str, &str, &str)]) -> Simulation {
    let mut text = String::from(SMALL);
    // CP first (one user's console, in order), then Linux once the save is done, then a
    // last look at the spool.
    for (k, (user, kind, cmd)) in script.iter().enumerate() {
        let at = match (*kind, k + 1 == script.len()) {
            (_, true) => "20m",
            ("linux", _) => "10m",
            ("cp", _) if *user == "MAINT" && k > 1 => "15m",
            _ => "1s",
        };
        text += &format!("\n[[console]]\nat = \"{at}\"\nuser = \"{user}\"\n{kind} = \"{cmd}\"\n");
    }
    let mut s = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    s.run();
    s
}
