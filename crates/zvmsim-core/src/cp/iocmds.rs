//! CP's DASD and HyperPAV commands and the user-directory device statements: parsing, with
//! CP's own messages for what it rejects (the generic HCPnnnE messages the CP reference lists
//! for ATTACH and DEFINE). Where IBM's message for a refusal is not known to zvmsim the answer
//! says `not simulated by zvmsim: ...` — the command is still refused and changes nothing.
//! Executing them is `system/cpio.rs`; the directory statements are `cp/directory.rs`.

/// A parsed DASD command.
#[derive(Debug, Clone, PartialEq)]
pub enum IoCommand {
    /// `ATTACH rdev[-rdev2] [TO] userid|*|SYSTEM [AS vdev]`.
    Attach {
        first: u16,
        last: u16,
        to: AttachTo,
        vdev: Option<u16>,
    },
    /// `DEFINE HYPERPAVALIAS vdev FOR BASE vdev` (z/VM 6.2 and later).
    DefineHyperpavAlias { vdev: u16, base: u16 },
    /// `QUERY PAV [rdev|ALL]`.
    QueryPav { rdev: Option<u16> },
    /// `QUERY VIRTUAL DASD`.
    QueryVirtualDasd,
    /// `SET PAGING ALIAS ON|OFF` (z/VM 6.4 and later).
    SetPagingAlias { on: bool },
    /// `QUERY PAGING` (z/VM 6.4 and later).
    QueryPaging,
    /// `INDICATE I/O`.
    IndicateIo,
    /// `SET MDCACHE ...`, `QUERY MDCACHE` (cp/mdccmds.rs).
    Mdc(crate::cp::mdccmds::MdcCommand),
    /// A well-formed command zvmsim does not execute (`DETACH`), as typed.
    NotSimulated(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachTo {
    System,
    /// The issuing user (`*`).
    Me,
    User(String),
}

use crate::config::level::ZvmLevel;
pub use crate::cp::directory::{parse_directory, DirStatement};

fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && word.len() <= full.len() && full.starts_with(word)
}

pub(crate) fn hex4(w: &str) -> Option<u16> {
    crate::config::io::parse_rdev(w)
}

/// `dev` or `dev1-dev2` (1 to 4 hex digits each) as (first, last), in the order typed.
pub(crate) fn device_pair(w: &str) -> Option<(u16, u16)> {
    match w.split_once('-') {
        Some((a, b)) => hex4(a).zip(hex4(b)),
        None => hex4(w).map(|d| (d, d)),
    }
}

/// A device range as CP takes it: `device_pair` with the first at most the last.
pub(crate) fn device_range(w: &str) -> Option<(u16, u16)> {
    device_pair(w).filter(|(a, b)| a <= b)
}

fn vdev(w: Option<&&str>) -> Result<u16, String> {
    w.and_then(|w| hex4(w)).ok_or_else(|| {
        "HCP022E A virtual device number was not supplied or it was invalid.".to_string()
    })
}

pub(crate) fn level_at_least(level: &str, want: &str) -> bool {
    let num = |s: &str| -> u32 {
        let mut it = s.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        it.next().unwrap_or(0) * 10 + it.next().unwrap_or(0)
    };
    num(level) >= num(want)
}

/// Parse a CP command if it is one of the DASD commands; `None`: not one of them.
pub fn parse(line: &str, level: &str) -> Option<Result<IoCommand, String>> {
    let upper = line.trim().to_ascii_uppercase();
    let w = crate::cp::input::command_words(&upper);
    let verb = *w.first()?;
    let ops = &w[1..];
    if let Some(r) = crate::cp::mdccmds::parse(verb, ops, line) {
        return Some(r.map(IoCommand::Mdc));
    }
    if abbrev(verb, "ATTACH", 3) {
        return Some(parse_attach(ops));
    }
    if abbrev(verb, "DETACH", 3) {
        return Some(parse_detach(ops).map(|()| IoCommand::NotSimulated(line.trim().to_string())));
    }
    if abbrev(verb, "DEFINE", 3) && ops.first().is_some_and(|o| *o == "HYPERPAVALIAS") {
        if !ZvmLevel::from_release(level).is_some_and(ZvmLevel::has_virtual_hyperpav) {
            return Some(Err("HCP002E Invalid operand - HYPERPAVALIAS".into()));
        }
        return Some(parse_define(&ops[1..]));
    }
    if abbrev(verb, "QUERY", 1) {
        match ops.first() {
            Some(&"PAV") => {
                return Some(match ops.get(1) {
                    None | Some(&"ALL") if ops.len() <= 2 => Ok(IoCommand::QueryPav { rdev: None }),
                    Some(r) if ops.len() == 2 => match hex4(r) {
                        Some(d) => Ok(IoCommand::QueryPav { rdev: Some(d) }),
                        None => Err(format!("HCP002E Invalid operand - {r}")),
                    },
                    _ => Err(format!("HCP003E Invalid option - {}", ops[2])),
                })
            }
            Some(&"PAGING") => {
                if !ZvmLevel::from_release(level).is_some_and(ZvmLevel::has_paging_alias) {
                    return Some(Err("HCP002E Invalid operand - PAGING".into()));
                }
                return Some(match ops.get(1) {
                    None => Ok(IoCommand::QueryPaging),
                    Some(x) => Err(format!("HCP003E Invalid option - {x}")),
                });
            }
            Some(v) if abbrev(v, "VIRTUAL", 1) && ops.get(1) == Some(&"DASD") => {
                return Some(match ops.get(2) {
                    None => Ok(IoCommand::QueryVirtualDasd),
                    Some(x) => Err(format!("HCP003E Invalid option - {x}")),
                })
            }
            _ => return None,
        }
    }
    if abbrev(verb, "SET", 3) && ops.first() == Some(&"PAGING") {
        if !ZvmLevel::from_release(level).is_some_and(ZvmLevel::has_paging_alias) {
            return Some(Err("HCP002E Invalid operand - PAGING".into()));
        }
        return Some(match (ops.get(1), ops.get(2), ops.len()) {
            (Some(&"ALIAS"), Some(&"ON"), 3) => Ok(IoCommand::SetPagingAlias { on: true }),
            (Some(&"ALIAS"), Some(&"OFF"), 3) => Ok(IoCommand::SetPagingAlias { on: false }),
            (Some(&"ALIAS"), None, _) => Err("HCP026E Operand missing or invalid".into()),
            (Some(&"ALIAS"), Some(x), 3) => Err(format!("HCP002E Invalid operand - {x}")),
            (Some(&"ALIAS"), _, _) => Err(format!("HCP003E Invalid option - {}", ops[3])),
            (Some(x), _, _) => Err(format!("HCP002E Invalid operand - {x}")),
            (None, _, _) => Err("HCP026E Operand missing or invalid".into()),
        });
    }
    if abbrev(verb, "INDICATE", 1) && ops.first() == Some(&"I/O") {
        return Some(match ops.get(1) {
            None => Ok(IoCommand::IndicateIo),
            Some(x) => Err(format!("HCP003E Invalid option - {x}")),
        });
    }
    None
}

fn parse_attach(ops: &[&str]) -> Result<IoCommand, String> {
    let Some(dev) = ops.first() else {
        return Err("HCP026E Operand missing or invalid".into());
    };
    let Some((first, last)) = device_range(dev) else {
        return Err(format!("HCP002E Invalid operand - {dev}"));
    };
    let mut i = 1;
    if ops.get(i) == Some(&"TO") {
        i += 1;
    }
    let to = match ops.get(i) {
        None => return Err("HCP020E Userid missing or invalid".into()),
        Some(&"SYSTEM") => AttachTo::System,
        Some(&"*") => AttachTo::Me,
        Some(u)
            if u.len() <= 8
                && u.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@#$_-".contains(c)) =>
        {
            AttachTo::User(u.to_string())
        }
        Some(u) => return Err(format!("HCP007E Invalid userid - {u}")),
    };
    i += 1;
    let mut vdev_as = None;
    if ops.get(i) == Some(&"AS") {
        if to == AttachTo::System {
            // ATTACH rdev TO SYSTEM AS volid names a volume label, which zvmsim does not model.
            return Err(format!(
                "not simulated by zvmsim: ATTACH ... TO SYSTEM AS {}",
                ops.get(i + 1).unwrap_or(&"")
            ));
        }
        vdev_as = Some(vdev(ops.get(i + 1))?);
        if first != last {
            return Err("HCP013E Conflicting option - AS".into());
        }
        i += 2;
    }
    if let Some(x) = ops.get(i) {
        return Err(format!("HCP003E Invalid option - {x}"));
    }
    Ok(IoCommand::Attach {
        first,
        last,
        to,
        vdev: vdev_as,
    })
}

/// `DETACH vdev[-vdev2] ...` (the user's virtual devices) or `DETACH rdev FROM userid|SYSTEM`
/// (class B): checked as CP checks the operands; zvmsim does not execute it.
fn parse_detach(ops: &[&str]) -> Result<(), String> {
    let Some(dev) = ops.first() else {
        return Err("HCP026E Operand missing or invalid".into());
    };
    let from = ops.iter().position(|o| *o == "FROM");
    let range_ok = |d: &str| device_range(d).is_some();
    match from {
        None => {
            // DETACH vdev ...: virtual device numbers, one or more.
            for d in ops {
                if !range_ok(d) {
                    return Err(
                        "HCP022E A virtual device number was not supplied or it was invalid."
                            .into(),
                    );
                }
            }
            Ok(())
        }
        Some(i) => {
            if i != 1 || !range_ok(dev) {
                return Err(format!("HCP002E Invalid operand - {dev}"));
            }
            match ops.get(2) {
                None => Err("HCP020E Userid missing or invalid".into()),
                Some(u) if u.len() > 8 => Err(format!("HCP007E Invalid userid - {u}")),
                Some(_) => match ops.get(3) {
                    Some(x) => Err(format!("HCP003E Invalid option - {x}")),
                    None => Ok(()),
                },
            }
        }
    }
}

fn parse_define(ops: &[&str]) -> Result<IoCommand, String> {
    let v = vdev(ops.first())?;
    match (ops.get(1), ops.get(2)) {
        (Some(&"FOR"), Some(&"BASE")) => {}
        (None, _) | (Some(&"FOR"), None) => return Err("HCP026E Operand missing or invalid".into()),
        (Some(&"FOR"), Some(x)) | (Some(x), _) => {
            return Err(format!("HCP002E Invalid operand - {x}"))
        }
    }
    let base = vdev(ops.get(3))?;
    if let Some(x) = ops.get(4) {
        return Err(format!("HCP003E Invalid option - {x}"));
    }
    Ok(IoCommand::DefineHyperpavAlias { vdev: v, base })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_and_cp_messages_for_bad_ones() {
        assert_eq!(
            parse("att b9e0-b9e4 system", "7.1").unwrap().unwrap(),
            IoCommand::Attach {
                first: 0xb9e0,
                last: 0xb9e4,
                to: AttachTo::System,
                vdev: None
            }
        );
        assert_eq!(
            parse("define hyperpavalias 0201 for base 0200", "7.1")
                .unwrap()
                .unwrap(),
            IoCommand::DefineHyperpavAlias {
                vdev: 0x201,
                base: 0x200
            }
        );
        let e = |l: &str, lvl: &str| parse(l, lvl).unwrap().unwrap_err();
        assert_eq!(
            e("define hyperpavalias 0201 for base 0200", "5.4"),
            "HCP002E Invalid operand - HYPERPAVALIAS"
        );
        assert!(e("define hyperpavalias xyzzy for base 0200", "7.1").starts_with("HCP022E"));
        assert_eq!(
            e("set paging alias on", "5.4"),
            "HCP002E Invalid operand - PAGING"
        );
        assert_eq!(e("attach 9000", "7.1"), "HCP020E Userid missing or invalid");
        assert!(parse("query storage", "7.1").is_none());
    }
}
