//! SET and QUERY MEMASSIST: the collaborative memory management assist (CMMA) per user and
//! for ALL. Facts from QUERY MEMASSIST in IBM's z/VM CP Commands and Utilities Reference
//! (7.3; the 5.3 text is not at hand, and the commands came with 5.3): a user's setting starts
//! ON when the machine has the assist, unless the directory says OPTION NOMEMASSIST; the ALL
//! setting is ON at CP's IPL and "controls access" to the assist; the response is
//! `ALL USERS SET - ON|OFF`, a heading, and each user's setting and status. zvmsim's machines
//! (System z9 and later, seed 002's 2094) have the assist, so no status is `,SIMULATED`.

use super::{CpCommand, CpView, Target};
use crate::config::level::ZvmLevel;
use crate::cp::directory::{parse_directory, DirStatement};

/// A user's MEMASSIST setting at logon: ON from z/VM 5.3 unless its directory entry has
/// `OPTION NOMEMASSIST`.
pub fn memassist_initial(level: ZvmLevel, directory: &[String]) -> bool {
    level.has_memassist()
        && !directory.iter().any(|l| {
            matches!(
                parse_directory(l),
                Ok(DirStatement::Option { nomemassist: true })
            )
        })
}

/// The users a MEMASSIST command names: `[FOR] ALL`, `[FOR] USER userid` (the forms IBM's
/// reference shows: "SET MEMASSIST ON|OFF FOR ALL", "QUERY MEMASSIST USER userid") or
/// `[FOR] userid` (the brief's form; inference). `None`: none named. A word after the target
/// is an invalid option; `FOR` or `USER` without what follows, a missing operand.
pub(super) fn memassist_target(ops: &[&str], module: &str) -> Result<Option<Target>, String> {
    let missing = || format!("HCP{module}026E Operand missing or invalid");
    let ops = match ops {
        [] => return Ok(None),
        ["FOR"] => return Err(missing()),
        ["FOR", rest @ ..] => rest,
        _ => ops,
    };
    let (target, rest) = match ops {
        ["ALL", rest @ ..] => (Target::All, rest),
        ["USER"] => return Err(missing()),
        ["USER", u, rest @ ..] => (Target::User(u.to_string()), rest),
        [u, rest @ ..] => (Target::User(u.to_string()), rest),
        [] => return Err(missing()),
    };
    match rest.first() {
        Some(extra) => Err(format!("HCP{module}003E Invalid option - {extra}")),
        None => Ok(Some(target)),
    }
}

/// `*` (or `FOR *`): the issuer's own virtual machine, which the scenario's console is not.
pub(super) fn is_own(ops: &[&str]) -> bool {
    matches!(ops, ["*"] | ["FOR", "*"])
}

/// The operands after `SET MEMASSIST`: `ON|OFF` and the users; none named: the issuer's own
/// virtual machine (the class G form).
pub(super) fn parse_set_memassist(ops: &[&str]) -> Result<CpCommand, String> {
    let on = match ops.first() {
        Some(&"ON") => true,
        Some(&"OFF") => false,
        Some(w) => return Err(format!("HCPCFC003E Invalid option - {w}")),
        None => return Err("HCPCFC026E Operand missing or invalid".into()),
    };
    let target = memassist_target(&ops[1..], "CFC")?.unwrap_or(Target::Own);
    Ok(CpCommand::SetMemassist { on, target })
}

/// The command as `user` types it (`guest`: the user is a logged-on guest; `class_b`: it has
/// privilege class B). Another user or ALL needs class B (QUERY MEMASSIST's notes: "Only class B
/// users may specify" USER userid; class B SET changes another machine's setting and ALL);
/// without it CP reads the command in the class G format, where the user's word is an
/// invalid option (inference: the reference gives no message for it). The issuer's own machine
/// is the guest's; a console user that is no guest has none in the model: not simulated.
pub fn for_user(
    cmd: CpCommand,
    typed: &str,
    user: &str,
    guest: bool,
    class_b: bool,
) -> Result<CpCommand, String> {
    let (target, module) = match &cmd {
        CpCommand::SetMemassist { target, .. } => (target, "CFC"),
        CpCommand::QueryMemassist { target } => (target, "CQU"),
        _ => return Ok(cmd),
    };
    let mine = match target {
        Target::Own => true,
        Target::User(u) => guest && u.eq_ignore_ascii_case(user),
        Target::All => false,
    };
    if !mine && !class_b {
        // The first word after MEMASSIST (and after ON|OFF for SET) as typed.
        let upper = typed.to_ascii_uppercase();
        let words: Vec<&str> = crate::cp::input::words(&upper).collect();
        let at = words
            .iter()
            .position(|w| w.starts_with("MEMA"))
            .unwrap_or(0);
        let skip = if module == "CFC" { 2 } else { 1 };
        let word = words.get(at + skip).copied().unwrap_or("");
        return Err(format!("HCP{module}003E Invalid option - {word}"));
    }
    if !mine {
        return Ok(cmd);
    }
    if !guest {
        // A class B console user's own QUERY lists every guest (inference: its own virtual
        // machine is not in the model, the guests' settings are what it asks about).
        if class_b && matches!(cmd, CpCommand::QueryMemassist { .. }) {
            return Ok(CpCommand::QueryMemassist {
                target: Target::All,
            });
        }
        return Ok(CpCommand::NotSimulated {
            command: typed.trim().to_string(),
        });
    }
    let own = Target::User(user.to_string());
    Ok(match cmd {
        CpCommand::SetMemassist { on, .. } => CpCommand::SetMemassist { on, target: own },
        _ => CpCommand::QueryMemassist { target: own },
    })
}

/// The guests (indices into `names`, the logged-on users) a MEMASSIST command addresses, or
/// CP's HCP045E when the named user is not logged on (`module`: the answering CP module).
pub fn memassist_targets<S: AsRef<str>>(
    target: &Target,
    names: &[S],
    module: &str,
) -> Result<Vec<usize>, String> {
    match target {
        Target::All => Ok((0..names.len()).collect()),
        // Resolved to the issuing guest before it gets here (`for_user`).
        Target::Own => Ok(Vec::new()),
        Target::User(u) => names
            .iter()
            .position(|n| n.as_ref().eq_ignore_ascii_case(u))
            .map(|i| vec![i])
            .ok_or_else(|| format!("HCP{module}045E {u} not logged on")),
    }
}

/// A user's SETTING and STATUS columns. The reference lists the pairs `OFF INACTIVE`,
/// `ON INACTIVE`, `ON ACTIVE`, `ON|(ON) INACTIVE|ACTIVE,PENDING OFF`. Read here (inference,
/// the reference does not explain them): ACTIVE, the guest uses the assist since its IPL; a
/// guest using it keeps it until its next IPL, so turning its setting or ALL off leaves it
/// PENDING OFF; the parentheses mark a user setting of ON that ALL OFF overrides.
fn columns(on: bool, all: bool, active: bool) -> (&'static str, &'static str) {
    let setting = match (on || active, all) {
        (false, _) => "OFF",
        (true, true) => "ON",
        (true, false) => "(ON)",
    };
    let status = match (active, on && all) {
        (false, _) => "INACTIVE",
        (true, true) => "ACTIVE",
        (true, false) => "ACTIVE,PENDING OFF",
    };
    (setting, status)
}

/// CP's response. A successful SET answers with nothing but CP's ready (inference: no
/// response text is documented that we could verify); the console applies it.
pub(super) fn respond(cmd: &CpCommand, v: &CpView) -> Vec<String> {
    let names: Vec<&str> = v.memassist.iter().map(|(n, ..)| n.as_str()).collect();
    match cmd {
        CpCommand::SetMemassist { target, .. } => match memassist_targets(target, &names, "CFC") {
            Ok(_) => vec![],
            Err(m) => vec![m],
        },
        // No user named: every logged-on guest (the console is no guest of its own).
        CpCommand::QueryMemassist { target } => match memassist_targets(target, &names, "CQU") {
            Ok(ix) => {
                let all = if v.memassist_all { "ON" } else { "OFF" };
                let mut out = vec![
                    format!("ALL USERS SET - {all}"),
                    "USER      SETTING   STATUS".to_string(),
                ];
                for i in ix {
                    let (name, on, active) = &v.memassist[i];
                    let (setting, status) = columns(*on, v.memassist_all, *active);
                    out.push(format!("{name:<10}{setting:<10}{status}"));
                }
                out
            }
            Err(m) => vec![m],
        },
        _ => vec![],
    }
}
