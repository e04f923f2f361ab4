//! The catalog of CP commands: which verbs, and which QUERY, INDICATE, SET and DEFINE operands,
//! exist in z/VM, from which release, and how far CP lets each be abbreviated. The parser uses
//! it to tell a real command that zvmsim does not model (answered "not simulated by zvmsim")
//! from a verb CP does not have (HCPCMD001E) or an operand CP would reject (HCPxxx003E).
//!
//! Sources and certainty. The verbs and operands are those of the z/VM 5.2/5.3 CP command set
//! as IBM's "CP Commands and Utilities Reference" lists it (from knowledge; commands that the
//! shared seeds show in use are marked in comments). A minimum abbreviation is the number of
//! leading characters CP requires; where the exact minimum is not confirmed the entry carries
//! the note [`ABBREV`] (and, when unsure, the full name is required). Release dates that are
//! inferred rather than stated in a source carry [`RELEASE`] or a specific note.
//!
//! Later releases: add the level to [`LEVELS`] and entries with `.since("x.y")` (or `.until`
//! for what a release removed); nothing else changes. The aging list's SET/QUERY AGELIST came
//! with 6.3; QUERY XSTORE went with expanded storage in 6.4.

use serde::Serialize;

/// z/VM releases the catalog can speak of, oldest first (zvmsim simulates those that
/// `ZvmLevel` accepts; see [`simulated_levels`]).
pub const LEVELS: [&str; 10] = [
    "5.2", "5.3", "5.4", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3",
];

/// Note for entries whose minimum abbreviation is not confirmed against IBM's reference.
pub const ABBREV: &str = "minimum abbreviation inferred";
/// Note for entries whose first release is inferred.
pub const RELEASE: &str = "release inferred";

/// A command word (verb or operand) as CP knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    pub name: &'static str,
    /// Characters CP requires at least (the upper-case part of the syntax diagram).
    pub min: usize,
    /// First release that has it; `None`: every release of the catalog.
    pub since: Option<&'static str>,
    /// Last release that has it; `None`: still present.
    pub until: Option<&'static str>,
    /// What is inferred about the entry, if anything.
    pub note: Option<&'static str>,
}

const fn w(name: &'static str, min: usize) -> Word {
    Word {
        name,
        min,
        since: None,
        until: None,
        note: None,
    }
}

/// An entry whose minimum abbreviation is not confirmed.
const fn wa(name: &'static str, min: usize) -> Word {
    w(name, min).note(ABBREV)
}

impl Word {
    const fn since(mut self, level: &'static str) -> Self {
        self.since = Some(level);
        self
    }
    const fn until(mut self, level: &'static str) -> Self {
        self.until = Some(level);
        self
    }
    const fn note(mut self, note: &'static str) -> Self {
        self.note = Some(note);
        self
    }

    /// `token` (upper case) is this word or an abbreviation CP accepts.
    pub fn matches(&self, token: &str) -> bool {
        token.len() >= self.min.min(self.name.len())
            && token.len() <= self.name.len()
            && self.name.starts_with(token)
    }

    /// Present at `level` (`None`: at some level of the catalog).
    pub fn at(&self, level: Option<&str>) -> bool {
        let Some(level) = level else { return true };
        let l = rank(level);
        self.since.map_or(true, |s| rank(s) <= l) && self.until.map_or(true, |u| l <= rank(u))
    }

    /// The shortest form CP accepts.
    pub fn abbreviation(&self) -> &'static str {
        &self.name[..self.min.min(self.name.len())]
    }
}

/// Position of a level in [`LEVELS`]; an unknown level counts as newer than all.
fn rank(level: &str) -> usize {
    LEVELS
        .iter()
        .position(|l| *l == level)
        .unwrap_or(LEVELS.len())
}

/// What follows a verb.
#[derive(Debug, Clone, Copy)]
pub enum Operands {
    /// Operands are not catalogued: anything after the verb is accepted as not simulated.
    Any,
    /// The first operand must be one of these; otherwise CP answers `HCP<module>003E`
    /// (or `026E` when it is missing).
    Strict {
        words: &'static [Word],
        module: &'static str,
    },
    /// Catalogued operands (for the listing and for operands a release does not have yet);
    /// an operand not listed is still accepted as not simulated.
    Open {
        words: &'static [Word],
        module: &'static str,
    },
}

/// A CP command verb and its operands.
#[derive(Debug, Clone, Copy)]
pub struct Verb {
    pub word: Word,
    pub operands: Operands,
}

const fn any(word: Word) -> Verb {
    Verb {
        word,
        operands: Operands::Any,
    }
}

/// The first word of `words` present at `level` that `token` names: an exact name first, then
/// the first abbreviation in catalog order.
pub fn find<'a>(words: &'a [Word], token: &str, level: Option<&str>) -> Option<&'a Word> {
    let present = || words.iter().filter(move |w| w.at(level));
    present()
        .find(|w| w.name == token)
        .or_else(|| present().find(|w| w.matches(token)))
}

/// The verb `token` names at `level`.
pub fn find_verb(token: &str, level: Option<&str>) -> Option<&'static Verb> {
    VERBS
        .iter()
        .filter(|v| v.word.at(level))
        .find(|v| v.word.name == token)
        .or_else(|| {
            VERBS
                .iter()
                .filter(|v| v.word.at(level))
                .find(|v| v.word.matches(token))
        })
}

/// `QUERY PFnn` / `SET PFnn`: program function keys 1 to 24.
pub fn is_pf_key(token: &str) -> bool {
    token
        .strip_prefix("PF")
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| (1..=24).contains(&n))
}

// ---------------------------------------------------------------- the tables

// The tables live in submodules so that this file holds only the logic; they are re-exported
// so that `catalog::QUERY`, `catalog::VERBS`... keep their paths.
mod operands;
mod verbs;
pub use operands::{DEFINE, INDICATE, QUERY, QUERY_ALLOC, SET};
pub use verbs::VERBS;

// ---------------------------------------------------------------- the listing

/// One line of `zvmsim commands`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogRow {
    /// "cp", "linux" or "cms".
    pub system: &'static str,
    /// The command as documented: "QUERY STORAGE", "free [-k|-m|-g]", "/proc/dasd/devices".
    pub command: String,
    /// CP: the shortest form CP accepts ("Q STO").
    pub abbreviation: Option<String>,
    /// zvmsim answers it from the simulated system's state.
    pub simulated: bool,
    /// First z/VM release that has it; `None`: every catalogued release.
    pub since: Option<&'static str>,
    /// "command", "operand" (CP), "file" (Linux /proc, /sys and configuration files).
    pub kind: &'static str,
    /// What is inferred about the entry, or how the simulation answers.
    pub note: Option<&'static str>,
    /// CP: the IBM privilege classes that may enter it, where zvmsim checks them
    /// (`cp/privclass.rs`); `None`: not checked (class G forms, and commands not simulated).
    pub classes: Option<&'static str>,
}

/// The levels `zvmsim` simulates: those of [`LEVELS`] that the scenario format accepts.
pub fn simulated_levels() -> Vec<&'static str> {
    LEVELS
        .into_iter()
        .filter(|l| parse_level(l).is_ok())
        .collect()
}

fn parse_level(level: &str) -> Result<&'static str, String> {
    use serde::de::{value::Error, value::StrDeserializer, Deserialize, IntoDeserializer};
    let d: StrDeserializer<Error> = level.into_deserializer();
    crate::config::scenario::ZvmLevel::deserialize(d)
        .map(|l| l.as_str())
        .map_err(|e| e.to_string())
}

/// The CP commands the console's other parsers answer (catalog names): system/cpio.rs
/// (cp/iocmds.rs), system/vdisk.rs (cp/vdisk.rs) and system/dcss.rs (cp/segments).
pub const SIMULATED_ELSEWHERE: &[&str] = &[
    "ATTACH",
    "DEFINE HYPERPAVALIAS",
    "QUERY PAV",
    "QUERY VIRTUAL",
    "SET PAGING",
    "QUERY PAGING",
    "INDICATE I/O",
    "DEFINE VFB-512",
    "QUERY VDISK",
    "SET VDISK",
    "DEFSEG",
    "SAVESEG",
    "PURGE",
    "QUERY NSS",
    "SET PRIVCLASS",
    "DEFINE STORAGE",
];

/// What of a simulated command the console answers, where that is not all of it (shown where
/// the catalog has no note of its own).
const PART_SIMULATED: &[(&str, &str)] = &[
    ("ATTACH", "real devices to a guest or SYSTEM"),
    ("QUERY VIRTUAL", "DASD, and a VDISK's device number"),
    ("PURGE", "PURGE NSS only"),
    ("XAUTOLOG", "VMRMSVM (the VM Resource Manager) only"),
    ("SMSG", "to a Linux guest (the cmm module's commands)"),
    ("DEFINE STORAGE", "a CMS user's storage, for its SAVESEG"),
];

/// Whether the console answers catalog entry `name` from the simulated system, and what of it
/// where that is not all of it.
fn simulated(name: &str) -> (bool, Option<&'static str>) {
    let all = super::commands::SIMULATED.iter().chain(SIMULATED_ELSEWHERE);
    let part = PART_SIMULATED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p);
    (all.into_iter().any(|n| *n == name), part)
}

/// The console commands of a simulated z/VM level: the CP commands (with QUERY, INDICATE,
/// SET and DEFINE operands) and the Linux commands and files, each marked simulated or not.
pub fn listing(level: &str) -> Result<Vec<CatalogRow>, String> {
    let level = parse_level(level).map_err(|_| {
        format!(
            "unknown z/VM level `{}`: zvmsim simulates {}",
            level.trim(),
            simulated_levels().join(", ")
        )
    })?;
    let at = Some(level);
    let mut rows = Vec::new();
    let row = |command: String, abbreviation: String, word: &Word, kind| {
        let (simulated, part) = simulated(&command);
        let classes = super::privclass::classes_of(&command);
        CatalogRow {
            system: "cp",
            command,
            abbreviation: Some(abbreviation),
            simulated,
            since: word.since,
            kind,
            // The word's inference note first (the CLI marks it), else what is simulated.
            note: word.note.or(part),
            classes,
        }
    };
    for verb in VERBS.iter().filter(|v| v.word.at(at)) {
        let v = &verb.word;
        match verb.operands {
            Operands::Any => rows.push(row(
                v.name.to_string(),
                v.abbreviation().to_string(),
                v,
                "command",
            )),
            Operands::Strict { words, .. } | Operands::Open { words, .. } => {
                if matches!(verb.operands, Operands::Open { .. }) {
                    rows.push(row(
                        v.name.to_string(),
                        v.abbreviation().to_string(),
                        v,
                        "command",
                    ));
                }
                for op in words.iter().filter(|o| o.at(at)) {
                    let subs: &[Word] = if v.name == "QUERY" && op.name == "ALLOC" {
                        QUERY_ALLOC
                    } else {
                        &[]
                    };
                    if subs.is_empty() {
                        rows.push(row(
                            format!("{} {}", v.name, op.name),
                            format!("{} {}", v.abbreviation(), op.abbreviation()),
                            op,
                            "operand",
                        ));
                    }
                    for sub in subs.iter().filter(|s| s.at(at)) {
                        let mut r = row(
                            format!("{} {} {}", v.name, op.name, sub.name),
                            format!(
                                "{} {} {}",
                                v.abbreviation(),
                                op.abbreviation(),
                                sub.abbreviation()
                            ),
                            sub,
                            "operand",
                        );
                        r.note = r.note.or(op.note);
                        rows.push(r);
                    }
                }
            }
        }
    }
    // Simulated first, then alphabetical, so that the listing reads well without --all.
    rows.sort_by(|a, b| {
        b.simulated
            .cmp(&a.simulated)
            .then(a.command.cmp(&b.command))
    });
    rows.extend(crate::linux::catalog::listing());
    // The CMS commands a console entry's `cms` runs (system/console.rs).
    let cms = |command: &str, note| CatalogRow {
        system: "cms",
        command: command.to_string(),
        abbreviation: None,
        simulated: true,
        since: None,
        kind: "command",
        note: Some(note),
        classes: None,
    };
    rows.push(cms(
        "[EXEC] SWAPGEN vdev #blocks [( DIAG|FBA|REUSE]",
        "defines the VDISK and writes the swap signature (seed 000)",
    ));
    rows.push(cms(
        "[EXEC] DEFDCSS stem firstpage count sizeMB type",
        "types DEFSEG stem1, stem2, ... (seed 000)",
    ));
    rows.push(cms(
        "[EXEC] SAVEDCSS stem count",
        "types SAVESEG stem1, stem2, ... (seed 000)",
    ));
    rows.push(cms("HMONITOR", "on VMRMSVM: stops VMRM"));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_levels() {
        let q = find_verb("Q", None).unwrap();
        assert_eq!(q.word.name, "QUERY");
        assert_eq!(find_verb("DEF", Some("5.2")).unwrap().word.name, "DEFINE");
        assert_eq!(find_verb("LOG", None).unwrap().word.name, "LOGOFF");
        assert_eq!(find_verb("I", None).unwrap().word.name, "IPL");
        assert!(find_verb("FROB", None).is_none());
        assert!(find_verb("VMRELOCATE", Some("5.3")).is_none());
        assert!(find_verb("VMRELOCATE", Some("6.2")).is_some());
        assert!(find(QUERY, "MEMASSIST", Some("5.2")).is_none());
        assert!(find(QUERY, "MEMASSIST", Some("5.3")).is_some());
        assert!(find(QUERY, "AGELIST", Some("5.3")).is_none());
        assert!(is_pf_key("PF12") && !is_pf_key("PF25") && !is_pf_key("PFX"));
        assert_eq!(
            simulated_levels(),
            vec!["5.2", "5.3", "5.4", "6.4", "7.1", "7.3"]
        );
    }

    #[test]
    fn catalogued_words_are_well_formed() {
        for list in [QUERY, QUERY_ALLOC, INDICATE, SET, DEFINE] {
            for (i, a) in list.iter().enumerate() {
                assert!(a.min >= 1 && a.min <= a.name.len(), "{a:?}");
                assert_eq!(a.name, a.name.to_ascii_uppercase());
                assert!(
                    list[..i].iter().all(|b| b.name != a.name),
                    "{} twice",
                    a.name
                );
                for l in a.since.iter().chain(a.until.iter()) {
                    assert!(LEVELS.contains(l), "{a:?}");
                }
            }
        }
        for (i, v) in VERBS.iter().enumerate() {
            assert!(VERBS[..i].iter().all(|u| u.word.name != v.word.name));
            assert!(v.word.min >= 1 && v.word.min <= v.word.name.len());
        }
    }

    #[test]
    fn listing_per_level() {
        let l53 = listing("5.3").unwrap();
        let l52 = listing(" 5.2 ").unwrap();
        let has = |rows: &[CatalogRow], c: &str| rows.iter().any(|r| r.command == c);
        assert!(has(&l53, "QUERY MEMASSIST") && !has(&l52, "QUERY MEMASSIST"));
        assert!(has(&l53, "DEFINE HYPERPAVALIAS") && !has(&l52, "DEFINE HYPERPAVALIAS"));
        assert!(!has(&l53, "QUERY AGELIST"));
        let simulated = |rows: &[CatalogRow]| {
            let mut v: Vec<String> = rows
                .iter()
                .filter(|r| r.simulated && r.system == "cp")
                .map(|r| r.command.clone())
                .collect();
            v.sort_unstable();
            v
        };
        let all = || {
            let own = super::super::commands::SIMULATED.iter().copied();
            own.chain(SIMULATED_ELSEWHERE.iter().copied())
        };
        // At 7.1 every simulated command is listed as such but QUERY XSTORE (no expanded
        // storage from 6.4)...
        let mut expected: Vec<String> = all()
            .filter(|c| *c != "QUERY XSTORE")
            .map(str::to_string)
            .collect();
        expected.sort_unstable();
        assert_eq!(simulated(&listing("7.1").unwrap()), expected);
        // ... and at 5.3 all but the later releases' (the aging list from 6.3, paging
        // aliases from 6.4).
        let later = ["QUERY AGELIST", "SET AGELIST", "QUERY PAGING", "SET PAGING"];
        let mut expected: Vec<String> = all()
            .filter(|c| !later.contains(c))
            .map(str::to_string)
            .collect();
        expected.sort_unstable();
        assert_eq!(simulated(&l53), expected);
        let purge = l53.iter().find(|r| r.command == "PURGE").unwrap();
        assert_eq!(purge.note, Some("PURGE NSS only"));
        let load = l53.iter().find(|r| r.command == "INDICATE LOAD").unwrap();
        assert_eq!(load.abbreviation.as_deref(), Some("IND L"));
        assert!(l53
            .iter()
            .any(|r| r.system == "linux" && r.simulated && r.command.starts_with("free")));
        // 6.3's aging list commands exist at the simulated later levels, not at 5.4.
        assert!(has(&listing("7.1").unwrap(), "QUERY AGELIST"));
        assert!(!has(&listing("5.4").unwrap(), "QUERY AGELIST"));
        let err = listing("6.2").unwrap_err();
        assert!(
            err.contains("5.2") && err.contains("5.4") && err.contains("7.1"),
            "{err}"
        );
    }
}
