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
//! for what a release removed); nothing else changes. A few later commands are already listed
//! to show the pattern; they are simply not available at 5.2/5.3.

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

// ---------------------------------------------------------------- operands

/// QUERY operands. The six zvmsim models come first, with the minimums its parser uses.
pub static QUERY: &[Word] = &[
    w("STORAGE", 3),
    w("XSTORE", 2),
    w("PROCESSORS", 4),
    w("NAMES", 1),
    w("CPLEVEL", 5),
    w("ALLOC", 5),
    wa("ABEND", 5),
    wa("CACHE", 5),
    wa("CACHEFW", 7),
    wa("CAPABILITY", 10),
    wa("CHPID", 5),
    wa("CPCMDS", 6),
    wa("CPDISKS", 6),
    wa("CPLANGLIST", 10),
    wa("CPOWNED", 5),
    wa("CPTRAP", 6),
    wa("CPUAFFINITY", 11),
    wa("CPUID", 5),
    wa("CRYPTO", 6),
    wa("CTCA", 4),
    wa("DASD", 2),
    wa("DATEFORMAT", 10),
    wa("DIAGNOSE", 8),
    wa("DUMP", 4),
    wa("DUPLEX", 6),
    wa("EDEVICE", 4),
    wa("EXITS", 5),
    wa("FCP", 3),
    wa("FILES", 5),
    wa("FRAMES", 6),
    wa("GRAF", 4),
    wa("HOLD", 4),
    wa("HOTIO", 5),
    wa("IMSG", 4),
    wa("IOASSIST", 8),
    wa("IOPRIORITY", 10),
    wa("ISLINK", 6),
    wa("JOURNAL", 7),
    wa("LAN", 3),
    wa("LDEVS", 5),
    wa("LINES", 5),
    wa("LINKS", 5),
    wa("LOADDEV", 7),
    wa("LOGMSG", 3),
    wa("MAXUSERS", 8),
    wa("MDCACHE", 3),
    wa("MDISK", 5),
    // CMMA: "initially available with z/VM 5.3" (seed: z/VM Large Memory study).
    wa("MEMASSIST", 9).since("5.3"),
    wa("MITIME", 6),
    wa("MONITOR", 3),
    w("NSS", 3), // QUERY NSS ... MAP (seeds)
    w("OSA", 3),
    w("PAV", 3), // seeds
    wa("PATHS", 5),
    wa("PENDING", 7),
    w("PER", 3),
    wa("PF", 2),
    wa("PRINTER", 7),
    wa("PRT", 3),
    wa("PRIVCLASS", 9),
    wa("PUNCH", 5),
    wa("PUN", 3),
    wa("QIOASSIST", 9),
    wa("QUICKDSP", 8),
    wa("READER", 6),
    wa("RDR", 3),
    wa("RECORDING", 9),
    wa("RESERVED", 8),
    wa("SECUSER", 7),
    w("SET", 3),
    wa("SHARE", 5),
    wa("SIGNALS", 7),
    wa("SPACES", 6),
    w("SRM", 3),
    wa("SYSOPER", 7),
    wa("SYSTEM", 6),
    w("TAG", 3),
    wa("TAPES", 5),
    wa("TDISK", 5),
    wa("TERMINAL", 4),
    wa("TIME", 4),
    wa("TODENABLE", 9),
    wa("TRACE", 5),
    wa("TRFILES", 7),
    wa("TRSAVE", 6),
    w("UCR", 3),
    w("USERID", 6),
    wa("USERS", 5),
    wa("VDISK", 5),
    w("VIRTUAL", 1), // Q V DASD
    wa("VMLAN", 5),
    wa("VSWITCH", 3),
    // Later releases (not simulated levels; listed to show the pattern).
    wa("SSI", 3)
        .since("6.2")
        .note("single system image came with z/VM 6.2"),
    wa("VMRELOCATE", 10)
        .since("6.2")
        .note("live guest relocation came with z/VM 6.2"),
    // The global aging list replaced demand scan in z/VM 6.3 (reference/interfaces.md);
    // QUERY/SET AGELIST are dated with it (the brief suggested 6.4).
    wa("AGELIST", 7).since("6.3").note(RELEASE),
    wa("MULTITHREAD", 11).since("6.3").note(RELEASE),
    // SET PAGING ALIAS: "z/VM 7.1 and 6.4 support HyperPAV alias devices for paging" (seed).
    wa("PAGING", 6).since("6.4").note(RELEASE),
];

/// Operands of QUERY ALLOC (only PAGE is simulated).
pub static QUERY_ALLOC: &[Word] = &[
    w("PAGE", 4),
    wa("ALL", 3),
    wa("DRCT", 4),
    wa("MAP", 3),
    wa("SPOOL", 5),
    wa("TDISK", 5),
];

/// INDICATE operands (only LOAD, the default, is simulated).
pub static INDICATE: &[Word] = &[
    w("LOAD", 1),
    wa("ACTIVE", 3),
    w("I/O", 3), // seeds
    w("NSS", 3),
    wa("PAGING", 3),
    wa("QUEUES", 1),
    wa("SPACES", 2),
    w("USER", 4), // seeds
    wa("MULTITHREAD", 11).since("6.3").note(RELEASE),
];

/// SET operands (none is simulated: the scenario sets the system up).
pub static SET: &[Word] = &[
    wa("ABEND", 5),
    wa("CACHE", 5),
    wa("CACHEFW", 7),
    wa("CCWTRAN", 7),
    wa("CONCEAL", 7),
    wa("CPCONIO", 7),
    wa("CPLANGUAGE", 10),
    wa("CPTRACE", 7),
    wa("CPUAFFINITY", 11),
    wa("CRYPTO", 6),
    wa("DATEFORMAT", 10),
    wa("DUMP", 4),
    wa("EDEVICE", 7),
    w("EMSG", 4),
    wa("HOTIO", 5),
    w("IMSG", 4),
    wa("IOASSIST", 8),
    wa("IOPRIORITY", 10),
    wa("JOURNAL", 7),
    wa("LAN", 3),
    wa("LINEDIT", 7),
    wa("LOADDEV", 7),
    wa("LOGMSG", 6),
    wa("MACHINE", 7),
    wa("MAXUSERS", 8),
    wa("MDCACHE", 3),
    // SET MEMASSIST ON ALL (seed); CMMA "initially available with z/VM 5.3" (seed).
    wa("MEMASSIST", 9).since("5.3"),
    wa("MITIME", 6),
    w("MSG", 3),
    wa("NOPDATA", 7),
    wa("OBSERVER", 8),
    wa("PAGEX", 5),
    wa("PF", 2),
    wa("PRIVCLASS", 9),
    wa("QIOASSIST", 9),
    wa("QUICKDSP", 8),
    wa("RDEVICE", 7),
    wa("RESERVED", 8),
    w("RUN", 3),
    wa("SECUSER", 7),
    wa("SHARE", 5),
    wa("SHUTDOWNTIME", 12),
    wa("SIGNAL", 6),
    w("SMSG", 4),
    w("SRM", 3), // SET SRM STORBUF / LDUBUF / XSTORE ...
    wa("STBYPASS", 8),
    wa("SVC76", 5),
    wa("THROTTLE", 8),
    wa("TIMER", 5),
    wa("TRACEFRAMES", 11),
    w("VDISK", 5), // SET VDISK SYSLIM / USERLIM (seed)
    wa("VMCONIO", 7),
    wa("VSWITCH", 7),
    w("WNG", 3),
    wa("370ACCOM", 8),
    wa("AGELIST", 7).since("6.3").note(RELEASE),
    wa("MULTITHREAD", 11).since("6.3").note(RELEASE),
    wa("PAGING", 6).since("6.4").note(RELEASE),
];

/// DEFINE operands that matter here (DEFINE has many more; those not listed are accepted).
pub static DEFINE: &[Word] = &[
    w("STORAGE", 4), // DEF STOR 512M (seed)
    wa("CPU", 3),
    wa("NIC", 3),
    w("VFB-512", 7), // DEF VFB-512 ... for a VDISK (seed)
    wa("T3390", 5),
    wa("MDISK", 5),
    wa("GRAF", 4),
    wa("CTCA", 4),
    wa("LAN", 3),
    wa("VSWITCH", 7),
    // Basic PAV for minidisks was there in z/VM 5.2 (IBM's HyperPAV page).
    wa("PAVALIAS", 8).note(RELEASE),
    // HyperPAV was announced for z/VM 5.3 (Feb 2007), including minidisks for guests that
    // exploit it; DEFINE HYPERPAVALIAS (seed) is dated with it.
    w("HYPERPAVALIAS", 13).since("5.3").note(RELEASE),
];

// ---------------------------------------------------------------- verbs

const CFC: &str = "CFC"; // CP's generic command-function module (inferred for SET/DEFINE)

/// CP command verbs of z/VM 5.2/5.3, with a few later ones. QUERY and INDICATE are parsed
/// before this table is consulted; they are here for the listing and for completeness.
pub static VERBS: &[Verb] = &[
    Verb {
        word: w("QUERY", 1),
        operands: Operands::Strict {
            words: QUERY,
            module: "CQU",
        },
    },
    Verb {
        word: w("INDICATE", 3),
        operands: Operands::Strict {
            words: INDICATE,
            module: "IND",
        },
    },
    Verb {
        word: w("SET", 3),
        operands: Operands::Strict {
            words: SET,
            module: CFC,
        },
    },
    Verb {
        word: w("DEFINE", 3),
        operands: Operands::Open {
            words: DEFINE,
            module: CFC,
        },
    },
    any(wa("ACNT", 4)),
    any(wa("ACTIVATE", 3)),
    any(wa("ADSTOP", 6)),
    any(wa("ASSOCIATE", 5)),
    any(w("ATTACH", 3)), // ATTACH ... / att rdev SYSTEM (seeds)
    any(wa("ATTN", 4)),
    any(wa("AUTOLOG", 4)),
    any(wa("BACKSPAC", 5)),
    any(w("BEGIN", 1)),
    any(w("CHANGE", 2)),
    any(w("CLOSE", 2)),
    any(wa("COMMANDS", 3)),
    any(wa("COUPLE", 3)),
    any(wa("CPACCESS", 5)),
    any(wa("CPCACHE", 7)),
    any(wa("CPHX", 4)),
    any(wa("CPLISTFILE", 6)),
    any(wa("CPRELEASE", 5)),
    any(wa("CPTYPE", 6)),
    any(wa("CPXLOAD", 7)),
    any(wa("CPXUNLOAD", 9)),
    any(wa("DEACTIVE", 5)),
    any(wa("DEDICATE", 3)),
    any(w("DEFSEG", 6)), // defseg DCSS1G 20000-5FFFF sn (seeds)
    any(wa("DEFSYS", 6)),
    any(wa("DELETE", 3)),
    any(w("DETACH", 3)),
    any(wa("DIAL", 4)),
    any(wa("DISABLE", 4)),
    any(w("DISCONNECT", 4)),
    any(w("DISPLAY", 1)),
    any(wa("DRAIN", 2)),
    any(wa("DUMP", 2)),
    any(w("ECHO", 4)),
    any(wa("ENABLE", 2)),
    any(wa("EXTERNAL", 3)),
    any(wa("FLASHCOPY", 6)),
    any(wa("FLUSH", 2)),
    any(w("FORCE", 5)),
    any(wa("FREE", 4)),
    any(wa("GIVE", 4)),
    any(w("HALT", 4)),
    any(wa("HOLD", 4)),
    any(w("IPL", 1)),
    any(wa("LINK", 4)),
    any(wa("LOADBUF", 7)),
    any(wa("LOADVFCB", 8)),
    any(wa("LOCATE", 3)),
    any(wa("LOCK", 4)),
    any(w("LOGOFF", 3)),
    any(wa("LOGON", 1)),
    any(w("MESSAGE", 1)),
    any(w("MSG", 3)),
    any(wa("MODIFY", 3)),
    any(wa("MONITOR", 3)),
    any(w("MSGNOH", 6)),
    any(wa("NOTREADY", 4)),
    any(wa("ORDER", 3)),
    any(w("PER", 3)),
    any(w("PURGE", 3)),
    any(w("READY", 5)),
    any(wa("RECORDING", 3)),
    any(wa("REPEAT", 3)),
    any(wa("REQUEST", 3)),
    any(w("RESET", 5)),
    any(wa("RETAIN", 6)), // RETAIN XSTORE
    any(wa("REWIND", 3)),
    any(w("SAVESEG", 7)), // saveseg DCSS1G (seeds)
    any(wa("SAVESYS", 7)),
    any(wa("SCREEN", 3)),
    any(w("SEND", 4)),
    any(w("SHUTDOWN", 8)),
    any(wa("SIGNAL", 3)),
    any(wa("SLEEP", 2)),
    any(wa("SMSG", 2)), // VMRM sends CMM SHRINK by SMSG (seeds)
    any(wa("SPACE", 5)),
    any(w("SPOOL", 2)),
    any(wa("SPXTAPE", 3)),
    any(wa("START", 3)),
    any(w("STOP", 4)),
    any(wa("STORE", 2)),
    any(wa("SYNCMDRS", 8)),
    any(wa("SYSTEM", 3)),
    any(wa("TAG", 3)),
    any(w("TERMINAL", 4)),
    any(w("TRACE", 2)),
    any(wa("TRANSFER", 4)),
    any(wa("TRSAVE", 4)),
    any(wa("TRSOURCE", 4)),
    any(wa("UNDEDICATE", 5)),
    any(wa("UNLOCK", 6)),
    any(wa("VARY", 3)),
    any(wa("VINPUT", 3)),
    any(wa("VMDUMP", 6)),
    any(wa("WARNING", 2)),
    any(w("XAUTOLOG", 5)), // xautolog VMRMSVM (seeds)
    any(wa("XSPOOL", 3)),
    // Later releases.
    any(wa("VMRELOCATE", 6)
        .since("6.2")
        .note("live guest relocation came with z/VM 6.2")),
];

// ---------------------------------------------------------------- the listing

/// One line of `zvmsim commands`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogRow {
    /// "cp" or "linux".
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
    let row = |command: String, abbreviation: String, word: &Word, kind, simulated| CatalogRow {
        system: "cp",
        command,
        abbreviation: Some(abbreviation),
        simulated,
        since: word.since,
        kind,
        note: word.note,
    };
    for verb in VERBS.iter().filter(|v| v.word.at(at)) {
        let v = &verb.word;
        match verb.operands {
            Operands::Any => rows.push(row(
                v.name.to_string(),
                v.abbreviation().to_string(),
                v,
                "command",
                false,
            )),
            Operands::Strict { words, .. } | Operands::Open { words, .. } => {
                if matches!(verb.operands, Operands::Open { .. }) {
                    rows.push(row(
                        v.name.to_string(),
                        v.abbreviation().to_string(),
                        v,
                        "command",
                        false,
                    ));
                }
                for op in words.iter().filter(|o| o.at(at)) {
                    let subs: &[Word] = if v.name == "QUERY" && op.name == "ALLOC" {
                        QUERY_ALLOC
                    } else {
                        &[]
                    };
                    if subs.is_empty() {
                        let name = format!("{} {}", v.name, op.name);
                        let simulated = super::commands::SIMULATED.contains(&name.as_str());
                        rows.push(row(
                            name,
                            format!("{} {}", v.abbreviation(), op.abbreviation()),
                            op,
                            "operand",
                            simulated,
                        ));
                    }
                    for sub in subs.iter().filter(|s| s.at(at)) {
                        let name = format!("{} {} {}", v.name, op.name, sub.name);
                        let simulated = super::commands::SIMULATED.contains(&name.as_str());
                        let mut r = row(
                            name,
                            format!(
                                "{} {} {}",
                                v.abbreviation(),
                                op.abbreviation(),
                                sub.abbreviation()
                            ),
                            sub,
                            "operand",
                            simulated,
                        );
                        r.note = sub.note.or(op.note);
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
        assert_eq!(simulated_levels(), vec!["5.2", "5.3"]);
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
        let simulated: Vec<&str> = l53
            .iter()
            .filter(|r| r.simulated && r.system == "cp")
            .map(|r| r.command.as_str())
            .collect();
        let mut expected = super::super::commands::SIMULATED.to_vec();
        expected.sort_unstable();
        assert_eq!(simulated, expected);
        let load = l53.iter().find(|r| r.command == "INDICATE LOAD").unwrap();
        assert_eq!(load.abbreviation.as_deref(), Some("IND L"));
        assert!(l53
            .iter()
            .any(|r| r.system == "linux" && r.simulated && r.command.starts_with("free")));
        let err = listing("6.4").unwrap_err();
        assert!(
            err.contains("5.2") && err.contains("5.3") && err.contains("6.4"),
            "{err}"
        );
    }
}
