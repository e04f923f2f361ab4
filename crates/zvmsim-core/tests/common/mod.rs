//! The small scenario and helpers shared by the scenario and Linux swap tests.
#![allow(dead_code)] // each test binary uses a subset

pub(crate) mod props;

use zvmsim_core::config::scenario::{self, ScenarioError};

pub(crate) const SMALL: &str = r#"
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

[[guests]]
name = "LNX%02d"
count = 3
storage = "128M"
vcpus = 2
workload = "db"
dasd = [{ use = "database", model = "3390-9", count = 2 }]
linux = { kernel = "8M", min_free = "2M" }

[workloads.db]
kind = "transactional"
users = 4
think_time = "2ms"

[workloads.db.database]
size = "400M"
cache = "48M"
shared_memory = "56M"
skew = 0.9

[[workloads.db.transactions]]
name = "a"
weight = 3
cpu = "1ms"
db_refs = 20
write_fraction = 0.3

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
"#;

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

pub(crate) fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}
