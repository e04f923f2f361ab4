//! The small scenario and helpers shared by the Rust tests (the quickstart's short window too).
#![allow(dead_code)] // each test binary uses a subset

pub(crate) mod dcss;
pub(crate) mod props;

use zvmsim_core::config::scenario::{self, ScenarioError};

/// The quickstart's window before it was primed to its settled state (40 minutes): 30 s primed,
/// 60 s measured in 10 s intervals, its console's last commands at 85 s. Tests that need a run
/// of the quickstart, not its settled figures, use it (a tenth of the events).
pub(crate) const QUICKSTART_SHORT: &[&str] = &[
    "run.priming=30s",
    "run.measure=60s",
    "run.interval=10s",
    "console[1].at=85s",
    "console[2].at=85s",
    "console[3].at=85s",
];

pub(crate) const SMALL: &str = concat!(
    r#"
[lpar]
ifls = 2
central = "256M"
expanded = "32M"
zvm_level = "5.3"

[paging]
volumes = [{ model = "3390-3", count = 2 }]

[run]
priming = "5s"
measure = "20s"
interval = "5s"
seed = 1

"#,
    // The three database guests, as in vmrm_cmm.rs.
    include_str!("../data/fragments/three_db_guests.toml"),
    r#"
[[workloads.db.transactions]]
name = "b"
weight = 1
cpu = "3ms"
db_refs = 50

[[console]]
at = "1s"
cp = "QUERY STORAGE"

[[console]]
at = "2s"
user = "LNX01"
linux = "free -m"
"#
);

pub(crate) fn err(text: &str) -> ScenarioError {
    match scenario::parse(text, "t.toml", &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted a bad scenario"),
    }
}

pub(crate) fn with(find: &str, replace: &str) -> String {
    assert!(SMALL.contains(find), "fixture lacks {find}");
    SMALL.replacen(find, replace, 1)
}

/// SMALL whose guests' database buffers and shared memory outgrow their storage, each with
/// a swap disk and 32 MB of swap (tests/linux_swap.rs, tests/console_formats.rs).
pub(crate) fn swapping() -> String {
    with("shared_memory = \"56M\"", "shared_memory = \"118M\"")
        .replacen("cache = \"48M\"", "cache = \"110M\"", 1)
        .replacen(
            "dasd = [{ use = \"database\", model = \"3390-9\", count = 2 }]",
            "dasd = [{ use = \"database\", model = \"3390-9\", count = 2 }, { use = \"swap\", model = \"3390-3\" }]",
            1,
        )
        .replacen(
            "linux = { kernel = \"8M\", min_free = \"2M\" }",
            "linux = { kernel = \"8M\", min_free = \"2M\", swap = \"32M\" }",
            1,
        )
}

pub(crate) fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}
