//! Privilege classes: which IBM-defined classes may enter each CP command zvmsim simulates,
//! and what CP answers a user without them.
//!
//! CP looks a command up among the versions the user's classes allow. A verb with no version
//! for the user is unknown to it: `HCPCMD001E Unknown CP command: verb`, the same answer as for
//! a verb that does not exist (a z/VM user's notes, stored corpus; IBM's reference gives no
//! text for it). A verb with versions for other classes, as QUERY and SET, is "interpreted in
//! the formats for which you are authorized" (CP Commands and Utilities Reference, "Privilege
//! Classes"): the operand of a form the user lacks is one its own formats do not have,
//! `HCPxxx003E Invalid option - operand` (inference from that sentence).
//!
//! Each rule names its source. "IBM 7.x" rules were read in the stored CP reference; the seed's
//! rules in the study; "recalled" rules are IBM's defaults as the reference lists them, not
//! found in the stored corpora (an inference a site may check with `QUERY COMMANDS`).
//! MEMASSIST's class B forms are in `commands/memassist.rs`, where they depend on the target.

use super::catalog;

/// The IBM-defined classes of one command or form.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub verb: &'static str,
    /// The operand that makes the form (`None`: the whole command).
    pub operand: Option<&'static str>,
    pub classes: &'static str,
    pub source: &'static str,
}

const fn rule(
    verb: &'static str,
    operand: Option<&'static str>,
    classes: &'static str,
    source: &'static str,
) -> Rule {
    Rule {
        verb,
        operand,
        classes,
        source,
    }
}

const RECALLED: &str = "recalled: IBM's default class, not in the stored corpora";

/// The commands and forms zvmsim simulates that a class G user may not enter.
pub static RULES: &[Rule] = &[
    rule("ATTACH", None, "B", RECALLED),
    rule(
        "DEFSEG",
        None,
        "E",
        "seed 000: DEFSEG and SAVESEG are Class E CP commands",
    ),
    rule(
        "SAVESEG",
        None,
        "E",
        "seed 000: DEFSEG and SAVESEG are Class E CP commands",
    ),
    rule("XAUTOLOG", None, "ABG", "IBM 7.3 XAUTOLOG"),
    rule("MONITOR", None, "AE", "IBM 7.4 MONITOR SAMPLE"),
    rule(
        "SMSG",
        None,
        "G",
        "VM/SP: a class G command (z/VM not at hand)",
    ),
    rule("PURGE", Some("NSS"), "E", RECALLED),
    rule("QUERY", Some("ALLOC"), "D", "IBM 7.2 QUERY ALLOC"),
    rule("QUERY", Some("PAGING"), "BE", "IBM 7.3 QUERY PAGING"),
    rule("QUERY", Some("NSS"), "E", RECALLED),
    rule("QUERY", Some("PAV"), "B", RECALLED),
    rule("QUERY", Some("MDCACHE"), "B", RECALLED),
    rule("QUERY", Some("VDISK"), "B", RECALLED),
    rule("QUERY", Some("STORAGE"), "B", RECALLED),
    rule("QUERY", Some("XSTORE"), "B", RECALLED),
    rule("QUERY", Some("SRM"), "E", RECALLED),
    rule("SET", Some("MDCACHE"), "B", RECALLED),
    rule("SET", Some("VDISK"), "B", RECALLED),
    rule("SET", Some("PAGING"), "A", RECALLED),
    rule("SET", Some("SRM"), "A", RECALLED),
    rule("SET", Some("AGELIST"), "A", RECALLED),
    rule("SET", Some("PRIVCLASS"), "C", RECALLED),
    rule("INDICATE", Some("I/O"), "E", RECALLED),
    rule("INDICATE", Some("PAGING"), "E", RECALLED),
    rule("INDICATE", Some("QUEUES"), "E", "IBM 7.3 INDICATE QUEUES"),
];

/// The classes of a catalog entry (`QUERY PAV`, `ATTACH`), if a rule names it.
pub fn classes_of(command: &str) -> Option<&'static str> {
    let mut w = command.split(' ');
    let (verb, op) = (w.next()?, w.next());
    RULES
        .iter()
        .find(|r| r.verb == verb && r.operand.map_or(true, |o| Some(o) == op))
        .map(|r| r.classes)
}

/// The message module of a verb's own "Invalid option" (as the parsers give it).
fn module(verb: &str) -> &'static str {
    match verb {
        "QUERY" => "CQU",
        "INDICATE" => "IND",
        "SET" | "DEFINE" => "CFC",
        _ => "",
    }
}

/// The operand table of a verb whose forms the rules name by operand.
fn operands(verb: &str) -> &'static [catalog::Word] {
    match verb {
        "QUERY" => catalog::QUERY,
        "SET" => catalog::SET,
        "INDICATE" => catalog::INDICATE,
        "DEFINE" => catalog::DEFINE,
        _ => &[],
    }
}

/// The rule for `line` (an optional leading `CP` skipped), with the words typed for its verb
/// and operand.
pub fn rule_for(line: &str, level: Option<&str>) -> Option<(&'static Rule, String, String)> {
    let upper = line.to_ascii_uppercase();
    let mut words: Vec<&str> = super::input::words(&upper).collect();
    if words.first() == Some(&"CP") {
        words.remove(0);
    }
    let typed = words.first()?.to_string();
    let verb = catalog::find_verb(&typed, level)?.word.name;
    let op = words.get(1).copied().unwrap_or("");
    // A verb without an operand table (PURGE) names its form's operand in full; an operand
    // the level does not have is the parser's to refuse.
    let table = operands(verb);
    let canon = match catalog::find(table, op, level) {
        Some(w) => w.name,
        None if table.is_empty() => op,
        None => "",
    };
    if verb == "SET" && canon == "MDCACHE" && own_mdisk_or_flush(&words[2..]) {
        return None;
    }
    RULES
        .iter()
        .find(|r| r.verb == verb && r.operand == Some(canon))
        .or_else(|| RULES.iter().find(|r| r.verb == verb && r.operand.is_none()))
        .map(|r| (r, typed, op.to_string()))
}

/// `SET MDCACHE MDISK vdev ON|OFF` (the issuer's own minidisk: no user ID) and the FLUSH
/// forms are class G (inference: the MDCBK control block's notes speak of "class G flush
/// options" for RDEV and MDISK, and only a class G form would omit the user ID).
fn own_mdisk_or_flush(ops: &[&str]) -> bool {
    let mdisk = ops
        .first()
        .is_some_and(|w| w.len() >= 2 && "MDISK".starts_with(*w));
    (mdisk && ops.len() <= 3) || ops.contains(&"FLUSH")
}

/// CP's answer to `line` typed by a user with `classes`, if they may not enter it.
pub fn refusal(line: &str, level: Option<&str>, classes: &str) -> Option<String> {
    let (r, verb, op) = rule_for(line, level)?;
    if classes.chars().any(|c| r.classes.contains(c)) {
        return None;
    }
    Some(match r.operand {
        // A class G user's QUERY STORAGE (XSTORE) is its QUERY VIRTUAL STORAGE (XSTORE), the
        // class G format of the same words.
        Some(o @ ("STORAGE" | "XSTORE")) if r.verb == "QUERY" && classes.contains('G') => {
            format!("not simulated by zvmsim: QUERY {o} typed by a class G user (CP reads it as QUERY VIRTUAL {o})")
        }
        None => format!("HCPCMD001E Unknown CP command: {verb}"),
        Some(_) => match module(r.verb) {
            "" => format!("HCP003E Invalid option - {op}"),
            m => format!("HCP{m}003E Invalid option - {op}"),
        },
    })
}

/// A directory CLASS operand: 1 to 32 classes, each A-Z or 1-6 (seed 000: `CLASS z16axcb25ge`).
pub fn valid_classes(w: &str) -> bool {
    (1..=32).contains(&w.len())
        && w.chars()
            .all(|c| c.is_ascii_uppercase() || ('1'..='6').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_g_user_is_refused_the_forms_of_other_classes() {
        let g = |cmd: &str| refusal(cmd, Some("7.1"), "G");
        assert_eq!(
            g("att b9e0 system").as_deref(),
            Some("HCPCMD001E Unknown CP command: ATT")
        );
        assert_eq!(
            g("CP SET MDC SYSTEM OFF").as_deref(),
            Some("HCPCFC003E Invalid option - MDC")
        );
        assert_eq!(
            g("q alloc page").as_deref(),
            Some("HCPCQU003E Invalid option - ALLOC")
        );
        assert_eq!(
            g("purge nss dcss1g").as_deref(),
            Some("HCP003E Invalid option - NSS")
        );
        assert_eq!(
            g("defseg x 20000-2ffff sn").as_deref(),
            Some("HCPCMD001E Unknown CP command: DEFSEG")
        );
        // Class G forms and commands zvmsim has no rule for pass.
        assert!(g("q stor").unwrap().contains("QUERY VIRTUAL STORAGE"));
        for ok in [
            "q v dasd",
            "def vfb-512 300 100",
            "smsg vmrmsvm x",
            "q cplevel",
        ] {
            assert_eq!(g(ok), None, "{ok}");
        }
        // The classes a form names let it through, any of them.
        assert_eq!(refusal("q paging", None, "E"), None);
        assert_eq!(refusal("set privclass lnx001 +e", None, "ABCDEFG"), None);
        assert_eq!(refusal("defseg x 20000-2ffff sn", None, "GE"), None);
    }

    #[test]
    fn directory_classes_are_letters_and_digits_1_to_6() {
        assert!(valid_classes("Z16AXCB25GE"));
        assert!(!valid_classes("G7"));
        assert!(!valid_classes(""));
        assert!(!valid_classes(&"A".repeat(33)));
    }
}
