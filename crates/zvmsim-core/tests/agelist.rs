//! z/VM 6.3 and later real storage management through the public API: `[lpar.agelist]` and
//! its located errors, SET/QUERY AGELIST in the console script, the aging list's figures in
//! the interval rows and the summary (left out before 6.3), and the ten-guest scenarios.

use serde_json::Value;
use zvmsim_core::config::scenario::{self, AgelistSize, ScenarioError};
use zvmsim_core::system::Simulation;

const BASE: &str = r#"
[lpar]
ifls = 2
central = "256M"
zvm_level = "7.1"

[paging]
volumes = [{ model = "3390-3", count = 2 }]

[run]
priming = "2s"
measure = "6s"
interval = "2s"
seed = 3

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
shared_memory = "80M"
skew = 0.9

[[workloads.db.transactions]]
name = "a"
weight = 1
cpu = "1ms"
db_refs = 30
write_fraction = 0.3
"#;

fn with_lpar(extra: &str) -> String {
    BASE.replacen("[paging]", &format!("{extra}\n[paging]"), 1)
}

fn err(text: &str) -> ScenarioError {
    scenario::parse(text, "t.toml", &[]).err().expect("refused")
}

/// Line (from 1) of the first occurrence of `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}

#[test]
fn agelist_table_parses_with_defaults_and_cp_spellings() {
    let text = with_lpar("[lpar.agelist]\nsize = \"5%\"\nearlywrites = \"NO\"\nkeepslot = false\n");
    let (sc, _) = scenario::parse(&text, "t.toml", &[]).expect("valid");
    let s = sc.lpar.agelist.expect("table").settings();
    assert_eq!(s.size, AgelistSize::Percent(500));
    assert!(!s.early_writes && !s.keep_slot);
    // Fields left out take IBM's defaults.
    let (sc, _) = scenario::parse(&with_lpar("[lpar.agelist]\n"), "t.toml", &[]).expect("valid");
    let s = sc.lpar.agelist.unwrap().settings();
    assert_eq!(s.size, AgelistSize::Percent(200));
    assert!(s.early_writes && s.keep_slot);
    // Without the table the scenario's hash is what it was before the table existed.
    let (plain, _) = scenario::parse(BASE, "t.toml", &[]).unwrap();
    assert!(!serde_json::to_string(&plain).unwrap().contains("agelist"));
}

#[test]
fn agelist_errors_are_located() {
    let on53 = with_lpar("[lpar.agelist]\nsize = \"5%\"\n").replacen(
        "zvm_level = \"7.1\"",
        "zvm_level = \"5.3\"",
        1,
    );
    let cases = [
        (
            on53,
            "lpar.agelist",
            "[lpar.agelist]",
            "z/VM 5.3 has no global aging list",
        ),
        (
            with_lpar("[lpar.agelist]\nsize = \"150%\"\n"),
            "lpar.agelist.size",
            "150%",
            "from 0 to 100",
        ),
        (
            with_lpar("[lpar.agelist]\nsize = \"512\"\n"),
            "lpar.agelist.size",
            "\"512\"",
            "with its unit",
        ),
        (
            with_lpar("[lpar.agelist]\nsize = \"1G\"\n"),
            "lpar.agelist.size",
            "\"1G\"",
            "at most central storage",
        ),
        (
            with_lpar("[lpar.agelist]\nearlywrites = \"maybe\"\n"),
            "lpar.agelist.earlywrites",
            "maybe",
            "give YES or NO",
        ),
        (
            with_lpar("[lpar.agelist]\nearlywrite = true\n"),
            "lpar.agelist.earlywrite",
            "earlywrite",
            "unknown field",
        ),
    ];
    for (text, field, at, detail) in cases {
        let e = err(&text);
        assert_eq!(e.field, field, "{e}");
        assert_eq!(e.line, line_of(&text, at), "{e}");
        assert!(e.detail.contains(detail), "{e}");
    }
}

fn console(text: &str, entries: &[(&str, &str)]) -> String {
    let mut t = text.to_string();
    for (at, cmd) in entries {
        t += &format!("\n[[console]]\nat = \"{at}\"\ncp = \"{cmd}\"\n");
    }
    t
}

#[test]
fn console_script_is_checked_at_the_scenario_level() {
    for (level, cmd, msg) in [
        (
            "5.3",
            "SET AGELIST SIZE 5%",
            "HCPCFC003E Invalid option - AGELIST",
        ),
        (
            "5.4",
            "QUERY AGELIST",
            "HCPCQU003E Invalid option - AGELIST",
        ),
        (
            "7.1",
            "SET AGELIST SIZE 150%",
            "HCPCFC002E Invalid operand - 150%",
        ),
        ("7.1", "QUERY XSTORE", "HCPCQU003E Invalid option - XSTORE"),
        (
            "6.4",
            "SET AGELIST EARLYWRITES",
            "HCPCFC026E Operand missing or invalid",
        ),
    ] {
        let text = console(BASE, &[("1s", cmd)]).replacen(
            "zvm_level = \"7.1\"",
            &format!("zvm_level = \"{level}\""),
            1,
        );
        let e = err(&text);
        assert_eq!(e.field, "console[0].cp", "{level} {cmd}: {e}");
        assert_eq!(e.detail, msg, "{level} {cmd}");
    }
}

fn run(text: &str) -> Simulation {
    let mut sim = Simulation::from_toml(text, "t.toml", None, &[]).expect("valid");
    sim.run();
    sim.check_invariants().expect("invariants");
    sim
}

fn responses(sim: &Simulation) -> Vec<(String, Vec<String>)> {
    sim.console()
        .iter()
        .map(|c| {
            let r = c["response"].as_array().unwrap();
            (
                c["command"].as_str().unwrap().to_string(),
                r.iter().map(|l| l.as_str().unwrap().to_string()).collect(),
            )
        })
        .collect()
}

#[test]
fn set_agelist_applies_and_query_shows_it() {
    let text = console(
        &with_lpar("[lpar.agelist]\nsize = \"10%\"\n"),
        &[
            ("1s", "QUERY AGELIST"),
            ("5s", "SET AGELIST SIZE 1% EARLYWRITES NO"),
            ("5s", "Q AGELIST"),
            ("6s", "SET AGELIST KEEPSLOT NO"),
            ("6s", "QUERY AGELIST"),
            ("6s", "IND"),
        ],
    );
    let sim = run(&text);
    let r = responses(&sim);
    // 256 MB: 65,536 frames less CP's eighth, 57,344 pageable; 10 % of them (5,734 frames,
    // 22 MB), then 1 % (573 frames).
    let expected = [
        vec!["AGELIST SIZE 10% (22M) EARLYWRITES YES KEEPSLOT YES"],
        vec![],
        vec!["AGELIST SIZE 1% (2M) EARLYWRITES NO KEEPSLOT YES"],
        vec![],
        vec!["AGELIST SIZE 1% (2M) EARLYWRITES NO KEEPSLOT NO"],
    ];
    for (k, want) in expected.iter().enumerate() {
        assert_eq!(r[k].1, *want, "{}", r[k].0);
    }
    // INDICATE LOAD has no XSTORE line on 7.1: AVGPROC, MDC, then PAGING alone.
    assert!(
        !r[5].1.iter().any(|l| l.starts_with("XSTORE")),
        "{:?}",
        r[5].1
    );
    assert!(r[5].1[1].starts_with("MDC READS-"), "{:?}", r[5].1);
    assert!(r[5].1[2].starts_with("PAGING-"), "{:?}", r[5].1);
    // The rows follow the setting: 5,734 frames at 4 s, 573 after the SET at 5 s.
    let rows = sim.system_intervals();
    let target = |i: usize| rows[i]["agelist_target_frames"].as_u64().unwrap();
    assert_eq!((target(0), target(rows.len() - 1)), (5734, 573));
}

#[test]
fn rows_and_summary_carry_agelist_figures_from_6_3_only() {
    let sim = run(&BASE.replacen("measure = \"6s\"", "measure = \"4s\"", 1));
    let s = sim.summary();
    for k in [
        "agelist_target_frames",
        "agelist_frames",
        "agelist_invalidated_per_s",
        "agelist_reclaimed_per_s",
        "agelist_revalidated_per_s",
        "agelist_early_writes_per_s",
    ] {
        assert!(s.get(k).and_then(Value::as_f64).is_some(), "summary {k}");
        for r in sim.system_intervals() {
            assert!(r.get(k).is_some(), "row {k}");
        }
    }
    // Guests overcommit the LPAR: the list is filled and frames are reclaimed from it.
    assert!(s["agelist_frames"].as_f64().unwrap() > 0.0);
    assert!(s["agelist_reclaimed_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(s["pages_xstor"].as_f64(), Some(0.0));
    // The same system on 5.3 has demand scan and none of these keys.
    let old = BASE
        .replacen("zvm_level = \"7.1\"", "zvm_level = \"5.3\"", 1)
        .replacen("measure = \"6s\"", "measure = \"4s\"", 1);
    let sim = run(&old);
    let s = sim.summary();
    assert!(s.keys().all(|k| !k.starts_with("agelist")));
    for r in sim.system_intervals() {
        assert!(r
            .as_object()
            .unwrap()
            .keys()
            .all(|k| !k.starts_with("agelist")));
    }
}

#[test]
fn ten_guest_scenarios_of_later_releases_load() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/large-memory/");
    for (file, level, central, agelist) in [
        ("zvm54-10guests.toml", "5.4", 80u64 << 30, false),
        ("zvm64-10guests.toml", "6.4", 84 << 30, true),
        ("zvm71-10guests.toml", "7.1", 84 << 30, true),
    ] {
        let path = format!("{dir}{file}");
        let text = std::fs::read_to_string(&path).expect("scenario");
        let (sc, _) = scenario::parse(&text, &path, &[]).expect("valid");
        assert_eq!(sc.lpar.zvm_level.as_str(), level);
        assert_eq!(sc.lpar.central.bytes(), central, "{file}");
        assert_eq!(sc.lpar.agelist.is_some(), agelist, "{file}");
        // The guests and paging space are the 5.3 scenario's.
        let base = std::fs::read_to_string(format!("{dir}zvm53-10guests.toml")).unwrap();
        let (b, _) = scenario::parse(&base, "zvm53", &[]).unwrap();
        assert_eq!(sc.guests.len(), b.guests.len());
        assert_eq!(sc.paging_slots(), b.paging_slots());
        assert_eq!(
            sc.lpar.central.bytes() + sc.lpar.expanded.bytes(),
            b.lpar.central.bytes() + b.lpar.expanded.bytes()
        );
    }
}

#[test]
fn later_levels_parse_and_bound_storage() {
    let lvl = |l: &str| BASE.replacen("zvm_level = \"7.1\"", &format!("zvm_level = \"{l}\""), 1);
    let xs = |l: &str| {
        lvl(l).replacen(
            "central = \"256M\"",
            "central = \"256M\"\nexpanded = \"32M\"",
            1,
        )
    };
    // 5.4 accepts expanded storage as 5.3 does.
    let (s, _) = scenario::parse(&xs("5.4"), "t.toml", &[]).expect("5.4 valid");
    assert_eq!(s.lpar.zvm_level.as_str(), "5.4");
    // 6.4, 7.1 and 7.3 have none: a located error naming the release.
    for l in ["6.4", "7.1", "7.3"] {
        let text = xs(l);
        let e = err(&text);
        assert_eq!(e.field, "lpar.expanded", "{e}");
        assert_eq!(e.line, line_of(&text, "expanded = "), "{e}");
        assert!(e.detail.contains(&format!("z/VM {l}")), "{e}");
        let (s, _) = scenario::parse(&lvl(l), "t.toml", &[]).expect("valid without XSTOR");
        assert_eq!(s.lpar.zvm_level.as_str(), l);
    }
    // The page word reaches 7.3's 4 TB: 6.4 and 7.1 take their 2 TB, 7.3 its 4 TB, and each
    // refuses more with the release's own limit.
    for (l, ok, over) in [
        ("6.4", "2T", "2049G"),
        ("7.1", "2T", "3T"),
        ("7.3", "4T", "4097G"),
    ] {
        let with =
            |c: &str| lvl(l).replacen("central = \"256M\"", &format!("central = \"{c}\""), 1);
        let (s, _) = scenario::parse(&with(ok), "t.toml", &[]).expect("largest central valid");
        assert_eq!(s.lpar.central, s.lpar.zvm_level.max_central());
        let e = err(&with(over));
        assert_eq!(e.field, "lpar.central", "{e}");
        assert!(
            e.detail
                .contains(&format!("z/VM {l} supports at most {ok}")),
            "{e}"
        );
    }
    // 5.4 keeps 5.3's 256 GB.
    let e = err(&lvl("5.4").replacen("central = \"256M\"", "central = \"300G\"", 1));
    assert!(e.detail.contains("z/VM 5.4 supports at most 256G"), "{e}");
}
