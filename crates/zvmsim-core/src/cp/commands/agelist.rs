//! SET AGELIST and QUERY AGELIST (z/VM 6.3 and later): the global aging list's size, early
//! writes and slot keeping (cp/storage/agelist.rs). Before 6.3 CP has no AGELIST operand and
//! answers HCPCFC003E / HCPCQU003E, as the catalog's release dates give.
//!
//! Sources: the operands and the forms SIZE takes (`n%`, `n PERCENT`, an amount of storage
//! `nU`) are those of IBM's AGEBK control block, whose flags name EARLYWrite (so EARLYW is
//! taken as its shortest form) and KEEPSLOT (required in full). The texts of QUERY AGELIST's
//! response and of the errors were not found in the stored corpora: the response keeps the
//! closest documented form (the operands as SET AGELIST takes them, with the storage the size
//! stands for), and the errors are CP's generic ones: HCP026E for a missing operand, HCP003E
//! for an unknown option, HCP002E for a value CP cannot take (inference). A successful SET
//! answers nothing but CP's ready, as SET MEMASSIST (inference).

use super::{CpCommand, CpView};
use crate::config::agelist::{parse_yes_no, AgelistSize};
use crate::config::units::PAGE_SIZE;

/// Shortest forms the model accepts for EARLYWRITES (from AGEBK's "EARLYWrite"; inference).
const EARLYWRITES_MIN: usize = 6;

fn missing() -> String {
    "HCPCFC026E Operand missing or invalid".into()
}

fn invalid_operand(word: &str) -> String {
    format!("HCPCFC002E Invalid operand - {word}")
}

/// The operands after `SET AGELIST` (upper case): SIZE, EARLYWRITES and KEEPSLOT, each with
/// its value, in any order, at least one. A later one of the same kind wins (inference).
pub(super) fn parse_set(ops: &[&str]) -> Result<CpCommand, String> {
    if ops.is_empty() {
        return Err(missing());
    }
    let (mut size, mut early_writes, mut keep_slot) = (None, None, None);
    let mut k = 0;
    while k < ops.len() {
        let key = ops[k];
        let early = key.len() >= EARLYWRITES_MIN && "EARLYWRITES".starts_with(key);
        if key != "SIZE" && key != "KEEPSLOT" && !early {
            return Err(format!("HCPCFC003E Invalid option - {key}"));
        }
        let Some(&value) = ops.get(k + 1) else {
            return Err(missing());
        };
        k += 2;
        if key == "SIZE" {
            // `5 PERCENT`: the keyword is the size's unit.
            let text = if ops.get(k) == Some(&"PERCENT") {
                k += 1;
                format!("{value} PERCENT")
            } else {
                value.to_string()
            };
            size = Some(AgelistSize::parse(&text).map_err(|_| invalid_operand(value))?);
        } else {
            let on = parse_yes_no(value).ok_or_else(|| invalid_operand(value))?;
            if early {
                early_writes = Some(on);
            } else {
                keep_slot = Some(on);
            }
        }
    }
    Ok(CpCommand::SetAgelist {
        size,
        early_writes,
        keep_slot,
    })
}

fn yes_no(on: bool) -> &'static str {
    if on {
        "YES"
    } else {
        "NO"
    }
}

/// SET AGELIST answers nothing; QUERY AGELIST one line with the settings in SET AGELIST's
/// operand form and, in parentheses, the storage the size stands for (in M).
pub(super) fn respond(cmd: &CpCommand, v: &CpView) -> Vec<String> {
    match (cmd, &v.agelist) {
        (CpCommand::QueryAgelist, Some(a)) => {
            let s = a.settings;
            vec![format!(
                "AGELIST SIZE {} ({}M) EARLYWRITES {} KEEPSLOT {}",
                s.size,
                (a.target_frames * PAGE_SIZE) >> 20,
                yes_no(s.early_writes),
                yes_no(s.keep_slot)
            )]
        }
        // The parser accepts AGELIST only at a release that has it.
        (CpCommand::QueryAgelist, None) => vec!["HCPCQU003E Invalid option - AGELIST".into()],
        _ => vec![],
    }
}
