//! `SET MDCACHE` and `QUERY MDCACHE`: parsing, with CP's generic messages (HCP002E, HCP003E,
//! HCP026E) for what CP rejects. The forms zvmsim executes are SYSTEM ON|OFF, STORAGE min max,
//! STORAGE BIAS n, RDEV rdev[-rdev] DFLTON|DFLTOFF|OFF (ON taken as DFLTON: inference) and
//! MDISK [userid] vdev ON|OFF; the other real forms (XSTORE, INSERT, FLUSH) parse and answer
//! `not simulated by zvmsim`. Executing them is `system/mdc.rs`; the cache is `cp/mdc.rs`,
//! its per-device and per-minidisk settings `cp/mdcelig.rs`.

use crate::cp::mdcelig::RdevSetting;

/// A parsed minidisk-cache command.
#[derive(Debug, Clone, PartialEq)]
pub enum MdcCommand {
    /// `SET MDCACHE SYSTEM ON|OFF`.
    System { on: bool },
    /// `SET MDCACHE STORAGE min max` (bytes).
    Storage { min: u64, max: u64 },
    /// `SET MDCACHE STORAGE BIAS n`.
    Bias(f64),
    /// `SET MDCACHE RDEV rdev[-rdev2] DFLTON|DFLTOFF|OFF`.
    Rdev {
        first: u16,
        last: u16,
        setting: RdevSetting,
    },
    /// `SET MDCACHE MDISK [userid] vdev ON|OFF` (no userid: the issuing user's).
    Mdisk {
        user: Option<String>,
        vdev: u16,
        on: bool,
    },
    /// `QUERY MDCACHE`.
    Query,
    /// A real form zvmsim does not execute, as typed.
    NotSimulated(String),
}

fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && word.len() <= full.len() && full.starts_with(word)
}

fn invalid(op: &str) -> String {
    format!("HCP002E Invalid operand - {op}")
}

fn missing() -> String {
    "HCP026E Operand missing or invalid".into()
}

/// A size as SET MDCACHE takes it: a number followed by M or G.
fn size(w: &str) -> Option<u64> {
    let (n, unit) = w.split_at(w.len().checked_sub(1)?);
    let mult: u64 = match unit {
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    let n: u64 = n.parse().ok()?;
    n.checked_mul(mult)
}

/// `words`: the upper-cased words after the verb. None: not an MDCACHE command.
pub fn parse(verb: &str, ops: &[&str], typed: &str) -> Option<Result<MdcCommand, String>> {
    let first = *ops.first()?;
    if !abbrev(first, "MDCACHE", 3) {
        return None;
    }
    let rest = &ops[1..];
    if abbrev(verb, "QUERY", 1) {
        // The RDEV and MDISK forms exist (MDCBK, "Storage area for SET MDC/Q MDC cmnds": its
        // MDCRDV and MDCMDISK flags); their layouts are not known to zvmsim.
        return Some(match rest.first() {
            None => Ok(MdcCommand::Query),
            Some(x) if abbrev(x, "RDEV", 4) || abbrev(x, "MDISK", 2) => {
                Ok(MdcCommand::NotSimulated(typed.trim().to_string()))
            }
            Some(x) => Err(format!("HCP003E Invalid option - {x}")),
        });
    }
    if !abbrev(verb, "SET", 3) {
        return None;
    }
    let Some(&what) = rest.first() else {
        return Some(Err(missing()));
    };
    let args = &rest[1..];
    let not_sim = || Ok(MdcCommand::NotSimulated(typed.trim().to_string()));
    Some(if abbrev(what, "SYSTEM", 3) {
        match args {
            ["ON"] => Ok(MdcCommand::System { on: true }),
            ["OFF"] => Ok(MdcCommand::System { on: false }),
            ["FLUSH"] => not_sim(),
            [] => Err(missing()),
            [x] => Err(invalid(x)),
            [_, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
        }
    } else if abbrev(what, "STORAGE", 3) || abbrev(what, "XSTORE", 2) {
        let storage = abbrev(what, "STORAGE", 3);
        match args {
            [] => Err(missing()),
            ["BIAS"] => Err(missing()),
            ["BIAS", b] => match b.parse::<f64>() {
                Ok(x) if (0.001..=100.0).contains(&x) && storage => Ok(MdcCommand::Bias(x)),
                Ok(x) if (0.001..=100.0).contains(&x) => not_sim(),
                _ => Err(invalid(b)),
            },
            ["BIAS", _, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
            [one] if size(one).is_none() => Err(invalid(one)),
            [_] => Err(missing()),
            [lo, hi] => match (size(lo), size(hi)) {
                (None, _) => Err(invalid(lo)),
                (_, None) => Err(invalid(hi)),
                (Some(a), Some(b)) if a > b => Err(invalid(hi)),
                (Some(a), Some(b)) if storage => Ok(MdcCommand::Storage { min: a, max: b }),
                _ => not_sim(),
            },
            [_, _, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
        }
    } else if abbrev(what, "RDEV", 4) {
        parse_rdev(args, not_sim)
    } else if abbrev(what, "MDISK", 2) {
        parse_mdisk(args, not_sim)
    } else if abbrev(what, "INSERT", 3) {
        match args {
            [] => Err(missing()),
            _ => not_sim(),
        }
    } else {
        Err(invalid(what))
    })
}

/// `SET MDCACHE RDEV rdev[-rdev2] setting`.
fn parse_rdev(
    args: &[&str],
    not_sim: impl Fn() -> Result<MdcCommand, String>,
) -> Result<MdcCommand, String> {
    let (dev, set) = match args {
        [] | [_] => return Err(missing()),
        [d, s] => (*d, *s),
        [_, _, x, ..] => return Err(format!("HCP003E Invalid option - {x}")),
    };
    let Some((first, last)) = crate::cp::iocmds::device_range(dev) else {
        return Err(invalid(dev));
    };
    let setting = match set {
        "DFLTON" | "ON" => RdevSetting::DfltOn,
        "DFLTOFF" => RdevSetting::DfltOff,
        "OFF" => RdevSetting::Off,
        "FLUSH" => return not_sim(),
        x => return Err(invalid(x)),
    };
    Ok(MdcCommand::Rdev {
        first,
        last,
        setting,
    })
}

/// `SET MDCACHE MDISK [userid] vdev ON|OFF`.
fn parse_mdisk(
    args: &[&str],
    not_sim: impl Fn() -> Result<MdcCommand, String>,
) -> Result<MdcCommand, String> {
    let (user, vdev, set) = match args {
        [] | [_] => return Err(missing()),
        [v, s] => (None, *v, *s),
        [u, v, s] => (Some(*u), *v, *s),
        [_, _, _, x, ..] => return Err(format!("HCP003E Invalid option - {x}")),
    };
    if let Some(u) = user {
        if u.len() > 8 {
            return Err(format!("HCP007E Invalid userid - {u}"));
        }
    }
    let Some(v) = crate::cp::iocmds::hex4(vdev) else {
        return Err("HCP022E A virtual device number was not supplied or it was invalid.".into());
    };
    let on = match set {
        "ON" => true,
        "OFF" => false,
        "FLUSH" => return not_sim(),
        x => return Err(invalid(x)),
    };
    Ok(MdcCommand::Mdisk {
        user: user.map(str::to_string),
        vdev: v,
        on,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: &str) -> Option<Result<MdcCommand, String>> {
        let up = line.to_ascii_uppercase();
        let w: Vec<&str> = up.split_whitespace().collect();
        parse(w[0], &w[1..], line)
    }

    #[test]
    fn forms_and_cp_messages() {
        assert_eq!(
            p("set mdc system off"),
            Some(Ok(MdcCommand::System { on: false }))
        );
        assert_eq!(
            p("SET MDCACHE SYS ON"),
            Some(Ok(MdcCommand::System { on: true }))
        );
        assert_eq!(
            p("set mdcache storage 0M 6G"),
            Some(Ok(MdcCommand::Storage {
                min: 0,
                max: 6 << 30
            }))
        );
        assert_eq!(p("set mdc stor bias 2.5"), Some(Ok(MdcCommand::Bias(2.5))));
        assert_eq!(p("q mdc"), Some(Ok(MdcCommand::Query)));
        for q in ["q mdc rdev b9d6", "QUERY MDCACHE MDISK LNX01 0200"] {
            assert!(matches!(p(q), Some(Ok(MdcCommand::NotSimulated(_)))), "{q}");
        }
        assert!(matches!(
            p("set mdc xstore 0M 2G"),
            Some(Ok(MdcCommand::NotSimulated(_)))
        ));
        assert_eq!(p("set memassist on all"), None);
        assert_eq!(p("query storage"), None);
        let e = |l: &str| p(l).unwrap().unwrap_err();
        assert_eq!(e("set mdc"), "HCP026E Operand missing or invalid");
        assert_eq!(e("set mdc system maybe"), "HCP002E Invalid operand - MAYBE");
        assert_eq!(e("set mdc storage 2G 1G"), "HCP002E Invalid operand - 1G");
        assert_eq!(e("set mdc storage 12X 2G"), "HCP002E Invalid operand - 12X");
        assert_eq!(e("set mdc storage bias 0"), "HCP002E Invalid operand - 0");
        assert_eq!(e("q mdc all"), "HCP003E Invalid option - ALL");
        assert_eq!(e("set mdc frob"), "HCP002E Invalid operand - FROB");
        assert_eq!(
            p("set mdc rdev b9d5-b9d6 dfltoff"),
            Some(Ok(MdcCommand::Rdev {
                first: 0xb9d5,
                last: 0xb9d6,
                setting: RdevSetting::DfltOff
            }))
        );
        assert_eq!(
            p("set mdcache mdisk lnx02 0201 off"),
            Some(Ok(MdcCommand::Mdisk {
                user: Some("LNX02".into()),
                vdev: 0x201,
                on: false
            }))
        );
        assert_eq!(e("set mdc rdev b9d5"), "HCP026E Operand missing or invalid");
        assert_eq!(
            e("set mdc rdev b9d6-b9d5 off"),
            "HCP002E Invalid operand - B9D6-B9D5"
        );
        assert_eq!(
            e("set mdc rdev b9d5 maybe"),
            "HCP002E Invalid operand - MAYBE"
        );
        assert_eq!(
            e("set mdc mdisk zzzz on"),
            "HCP022E A virtual device number was not supplied or it was invalid."
        );
        assert_eq!(
            e("set mdc mdisk lnx02 0200 on now"),
            "HCP003E Invalid option - NOW"
        );
    }
}
