//! CP commands as typed on a z/VM console: parsing (with CP's minimum abbreviations) and the
//! responses CP writes, from the simulated system's state. A rejected command answers with the
//! CP message and changes nothing; a real CP command that zvmsim does not model (see
//! [`super::catalog`]) answers `not simulated by zvmsim: <command>`.

use super::catalog;
use crate::config::agelist::AgelistSize;
use crate::config::units::PAGE_SIZE;

mod agelist;
mod indicate;
pub mod memassist;
mod query;

pub use indicate::{UserState, UserView};
use memassist::{is_own, memassist_target, parse_set_memassist};
pub use memassist::{memassist_initial, memassist_targets};
pub use query::paging_volume_id;
pub(crate) use query::{clock, ipl_unix_s};

/// A parsed CP command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpCommand {
    QueryStorage,
    QueryXstore,
    QueryProcessors,
    QueryNames,
    QueryAllocPage,
    QueryCplevel,
    IndicateLoad,
    /// `INDICATE USER userid` (class E form; the console is not a virtual machine of its own,
    /// so the operand is required).
    IndicateUser {
        user: String,
    },
    /// `INDICATE PAGING [WAIT]`: the users in page wait.
    IndicatePaging,
    /// `XAUTOLOG VMRMSVM`: log on the VM Resource Manager service machine, which starts VMRM.
    Xautolog {
        user: String,
    },
    /// `SMSG userid text`: a special message to a virtual machine that receives them (the
    /// text as typed).
    Smsg {
        to: String,
        text: String,
    },
    /// `SET MEMASSIST ON|OFF ALL|userid` (z/VM 5.3 and later): the CMMA assist for guests.
    SetMemassist {
        on: bool,
        target: Target,
    },
    /// `QUERY MEMASSIST [ALL|userid]`.
    QueryMemassist {
        target: Target,
    },
    /// `SET AGELIST [SIZE n%|nU] [EARLYWRITES YES|NO] [KEEPSLOT YES|NO]` (z/VM 6.3 and
    /// later): what the command changes; the rest stays as it is.
    SetAgelist {
        size: Option<AgelistSize>,
        early_writes: Option<bool>,
        keep_slot: Option<bool>,
    },
    /// `QUERY AGELIST` (z/VM 6.3 and later).
    QueryAgelist,
    /// A real CP command (see [`super::catalog`]) that zvmsim does not model, as typed.
    NotSimulated {
        command: String,
    },
}

/// The commands above as `zvmsim commands` lists them (catalog names); the console's other
/// parsers have their own lists (`catalog::SIMULATED_ELSEWHERE`).
pub const SIMULATED: &[&str] = &[
    "QUERY STORAGE",
    "QUERY XSTORE",
    "QUERY PROCESSORS",
    "QUERY NAMES",
    "QUERY CPLEVEL",
    "QUERY ALLOC PAGE",
    "INDICATE LOAD",
    "INDICATE USER",
    "INDICATE PAGING",
    "SET MEMASSIST",
    "QUERY MEMASSIST",
    "SET AGELIST",
    "QUERY AGELIST",
    "SET MDCACHE",
    "QUERY MDCACHE",
    "XAUTOLOG",
    "SMSG",
];

/// Whom a per-user command addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Every logged-on user.
    All,
    /// One user (upper case, as CP folds it).
    User(String),
    /// The issuer's own virtual machine (`*`, or no user named where CP defaults to it).
    Own,
}

/// What a CP command needs to see of the system to answer.
#[derive(Default)]
pub struct CpView<'a> {
    pub level: &'a str,
    pub central_bytes: u64,
    pub xstor_bytes: u64,
    pub xstor_used_blocks: u64,
    pub ifls: u32,
    pub guests: Vec<String>,
    pub slots_total: u64,
    pub slots_used: u64,
    pub avg_proc_pct: f64,
    pub paging_per_s: f64,
    pub xstor_per_s: f64,
    pub migrate_per_s: f64,
    /// Each logged-on guest, its SET MEMASSIST setting and whether the guest uses the assist
    /// (CMMA in effect since its IPL), in logon order.
    pub memassist: Vec<(String, bool, bool)>,
    /// The system's SET MEMASSIST ... FOR ALL setting.
    pub memassist_all: bool,
    /// The global aging list (z/VM 6.3 and later).
    pub agelist: Option<crate::cp::storage::AgelistState>,
    /// Simulated seconds since CP's IPL.
    pub now_s: f64,
    /// Frames CP may page (central storage less its nucleus and fixed storage).
    pub pageable_frames: u64,
    /// The paging volumes, in the scenario's order.
    pub volumes: Vec<crate::cp::storage::VolumeUsage>,
    /// Each logged-on guest as CP's user commands see it, in logon order.
    pub users: Vec<UserView>,
    /// Demand-scan steals per second over the same span as `paging_per_s`.
    pub steals_per_s: f64,
    /// The minidisk cache in the current interval: lookups and writes per second, hit %.
    pub mdc: (f64, f64, f64),
}

/// `word` matches `full` if it is at least `min` characters long and a prefix of it.
fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && word.len() <= full.len() && full.starts_with(word)
}

fn unknown(cmd: &str) -> String {
    format!("HCPCMD001E Unknown CP command: {cmd}")
}

/// Parse one CP command line (an optional leading `CP ` is accepted, as from a guest), as any
/// catalogued z/VM release would.
pub fn parse(line: &str) -> Result<CpCommand, String> {
    parse_at(line, None)
}

/// Parse one CP command line as z/VM `level` ("5.2", "5.3", ...) would: a verb or operand that
/// came with a later release is rejected as that release's CP rejects it. `None`: any release.
pub fn parse_at(line: &str, level: Option<&str>) -> Result<CpCommand, String> {
    crate::cp::input::check(line)?;
    let typed = line.trim_matches(crate::cp::input::BLANK);
    let upper = typed.to_ascii_uppercase();
    let mut words: Vec<&str> = crate::cp::input::words(&upper).collect();
    if words.first() == Some(&"CP") {
        words.remove(0);
    }
    // CP reads an empty line (or a bare `CP`) without a response: there is no CP message to
    // give, so zvmsim refuses it in its own words.
    let Some(&verb) = words.first() else {
        return Err(
            "not simulated by zvmsim: an empty CP command line (CP answers none); give the command to type"
                .into(),
        );
    };
    let ops = &words[1..];
    let not_simulated = || {
        Ok(CpCommand::NotSimulated {
            command: typed.to_string(),
        })
    };
    if abbrev(verb, "QUERY", 1) {
        let Some(&what) = ops.first() else {
            return Err("HCPCQU026E Operand missing or invalid".into());
        };
        let cmd = if abbrev(what, "STORAGE", 3) {
            CpCommand::QueryStorage
        } else if (abbrev(what, "XSTORE", 2) || what == "XSTORAGE")
            && is_operand(catalog::QUERY, "XSTORE", level)
        {
            CpCommand::QueryXstore
        } else if abbrev(what, "PROCESSORS", 4) {
            CpCommand::QueryProcessors
        } else if abbrev(what, "NAMES", 1) {
            CpCommand::QueryNames
        } else if abbrev(what, "CPLEVEL", 5) {
            CpCommand::QueryCplevel
        } else if abbrev(what, "ALLOC", 5) {
            match ops.get(1) {
                Some(w) if abbrev(w, "PAGE", 4) => CpCommand::QueryAllocPage,
                Some(w) if catalog::find(catalog::QUERY_ALLOC, w, level).is_some() => {
                    return not_simulated()
                }
                Some(w) => return Err(format!("HCPQAL003E Invalid option - {w}")),
                None => return Err("HCPQAL026E Operand missing or invalid".into()),
            }
        } else if is_named(catalog::QUERY, what, level, "AGELIST") {
            CpCommand::QueryAgelist
        } else if is_memassist(catalog::QUERY, what, level) {
            if is_own(&ops[1..]) {
                return Ok(CpCommand::QueryMemassist {
                    target: Target::Own,
                });
            }
            // No operand: the issuer's own virtual machine (the reference's default).
            let target = memassist_target(&ops[1..], "CQU")?.unwrap_or(Target::Own);
            return Ok(CpCommand::QueryMemassist { target });
        } else if catalog::find(catalog::QUERY, what, level).is_some()
            || catalog::is_pf_key(what)
            || is_device_number(what)
        {
            return not_simulated();
        } else {
            return Err(format!("HCPCQU003E Invalid option - {what}"));
        };
        let extra = if cmd == CpCommand::QueryAllocPage {
            2
        } else {
            1
        };
        if let Some(w) = ops.get(extra) {
            return Err(format!("HCPCQU003E Invalid option - {w}"));
        }
        return Ok(cmd);
    }
    if abbrev(verb, "INDICATE", 3) {
        if let Some(cmd) = indicate::parse(ops)? {
            return Ok(cmd);
        }
        return match ops.first() {
            None => Ok(CpCommand::IndicateLoad),
            Some(w) if abbrev(w, "LOAD", 1) && ops.len() == 1 => Ok(CpCommand::IndicateLoad),
            Some(w)
                if !abbrev(w, "LOAD", 1)
                    && catalog::find(catalog::INDICATE, w, level).is_some() =>
            {
                not_simulated()
            }
            Some(w) => Err(format!("HCPIND003E Invalid option - {w}")),
        };
    }
    if abbrev(verb, "SET", 3)
        && ops
            .first()
            .is_some_and(|w| is_named(catalog::SET, w, level, "AGELIST"))
    {
        return agelist::parse_set(&ops[1..]);
    }
    if abbrev(verb, "SET", 3)
        && ops
            .first()
            .is_some_and(|w| is_memassist(catalog::SET, w, level))
    {
        if is_own(ops.get(2..).unwrap_or_default()) {
            return match ops.get(1) {
                Some(&"ON") | Some(&"OFF") => Ok(CpCommand::SetMemassist {
                    on: ops[1] == "ON",
                    target: Target::Own,
                }),
                _ => parse_set_memassist(&ops[1..]),
            };
        }
        return parse_set_memassist(&ops[1..]);
    }
    let Some(found) = catalog::find_verb(verb, level) else {
        return Err(unknown(verb));
    };
    match (found.word.name, ops) {
        ("XAUTOLOG", [user]) if *user == crate::cp::vmrm::VMRMSVM => {
            return Ok(CpCommand::Xautolog {
                user: user.to_string(),
            })
        }
        ("SMSG", [to, _, ..]) => {
            // The message is passed on as typed: skip (CP), the verb and the user ID.
            let skip = words_before(&upper) + 2;
            return Ok(CpCommand::Smsg {
                to: to.to_string(),
                text: rest_after(typed, skip).trim_end().to_string(),
            });
        }
        _ => {}
    }
    match found.operands {
        catalog::Operands::Any => not_simulated(),
        catalog::Operands::Strict { words, module } => match ops.first() {
            None => Err(format!("HCP{module}026E Operand missing or invalid")),
            Some(op) if catalog::find(words, op, level).is_some() || catalog::is_pf_key(op) => {
                not_simulated()
            }
            Some(op) => Err(format!("HCP{module}003E Invalid option - {op}")),
        },
        catalog::Operands::Open { words, module } => match ops.first() {
            // An operand of a later release than `level`.
            Some(op)
                if catalog::find(words, op, level).is_none()
                    && catalog::find(words, op, None).is_some() =>
            {
                Err(format!("HCP{module}003E Invalid option - {op}"))
            }
            _ => not_simulated(),
        },
    }
}

/// Words before the verb: 1 when the line starts with `CP`.
fn words_before(upper: &str) -> usize {
    usize::from(crate::cp::input::words(upper).next() == Some("CP"))
}

/// `QUERY rdev[-rdev]` (QUERY Real Device, a class B form): one to four hex digits, or a
/// range of them.
fn is_device_number(w: &str) -> bool {
    crate::cp::iocmds::device_pair(w).is_some()
}

/// `line` after its first `n` blank-separated words and the blanks after them.
fn rest_after(line: &str, n: usize) -> &str {
    use crate::cp::input::BLANK;
    let mut rest = line.trim_start_matches(BLANK);
    for _ in 0..n {
        rest = rest[rest.find(BLANK).unwrap_or(rest.len())..].trim_start_matches(BLANK);
    }
    rest
}

/// `token` names the MEMASSIST operand of `words` at `level` (absent before z/VM 5.3).
fn is_memassist(words: &[catalog::Word], token: &str, level: Option<&str>) -> bool {
    is_named(words, token, level, "MEMASSIST")
}

/// `token` names operand `name` of `words` at `level`.
fn is_named(words: &[catalog::Word], token: &str, level: Option<&str>, name: &str) -> bool {
    catalog::find(words, token, level).is_some_and(|w| w.name == name)
}

/// Operand `name` of `words` exists at `level` (`None`: at some level).
fn is_operand(words: &[catalog::Word], name: &str, level: Option<&str>) -> bool {
    words.iter().any(|w| w.name == name && w.at(level))
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 {
        format!("{}G", bytes >> 30)
    } else {
        format!("{}M", bytes >> 20)
    }
}

/// CP's response lines.
pub fn respond(cmd: &CpCommand, v: &CpView) -> Vec<String> {
    match cmd {
        CpCommand::QueryStorage | CpCommand::QueryCplevel | CpCommand::QueryAllocPage => {
            query::respond(cmd, v)
        }
        CpCommand::QueryXstore => {
            if v.xstor_bytes == 0 {
                vec!["HCPQXS2053I No XSTORE is attached to the system".into()]
            } else {
                let usage =
                    100.0 * v.xstor_used_blocks as f64 * PAGE_SIZE as f64 / v.xstor_bytes as f64;
                vec![
                    format!(
                        "XSTORE= {}M online= {}M",
                        v.xstor_bytes >> 20,
                        v.xstor_bytes >> 20
                    ),
                    format!(
                        "XSTORE= {}M userid= SYSTEM usage= {:.0}% retained= 0M pending= 0M",
                        v.xstor_bytes >> 20,
                        usage
                    ),
                ]
            }
        }
        CpCommand::QueryProcessors => (0..v.ifls)
            .map(|i| {
                format!(
                    "PROCESSOR {i:02X} {}",
                    if i == 0 {
                        "MASTER IFL"
                    } else {
                        "ALTERNATE IFL"
                    }
                )
            })
            .collect(),
        CpCommand::QueryNames => {
            let mut lines = Vec::new();
            for chunk in v.guests.chunks(4) {
                lines.push(
                    chunk
                        .iter()
                        .map(|g| format!("{g:<8} - DSC"))
                        .collect::<Vec<_>>()
                        .join(" , "),
                );
            }
            lines
        }
        CpCommand::IndicateLoad | CpCommand::IndicateUser { .. } | CpCommand::IndicatePaging => {
            indicate::respond(cmd, v)
        }
        CpCommand::SetMemassist { .. } | CpCommand::QueryMemassist { .. } => {
            memassist::respond(cmd, v)
        }
        CpCommand::SetAgelist { .. } | CpCommand::QueryAgelist => agelist::respond(cmd, v),
        CpCommand::NotSimulated { command } => vec![format!("not simulated by zvmsim: {command}")],
        // Answered by the simulation, which starts VMRM or delivers the message.
        CpCommand::Xautolog { .. } | CpCommand::Smsg { .. } => vec![],
    }
}

#[cfg(test)]
mod memassist_tests;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod layout_tests;
