//! The saved-segment commands' syntax and CP's limits. DEFSEG checks each page range, its
//! type and the options; SAVESEG, PURGE NSS and QUERY NSS name a file. A rejected command
//! answers with CP's message (module HCPNSD for DEFSEG, HCPNSS for SAVESEG, HCPCQU for QUERY;
//! the generic HCP002E/003E/026E texts) and changes nothing.

use super::{extent, PageRange, PageType, LIMIT_PAGES_54, LIMIT_PAGES_OLD, MAX_SEGMENT_PAGES};

/// Members a segment space may have (CP's limit).
pub const SPACE_MEMBERS: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegCommand {
    /// `DEFSEG name range type [range type ...] [LOADNSHR] [RSTD] [SPACE spacename]`.
    Defseg {
        name: String,
        ranges: Vec<PageRange>,
        loadnshr: bool,
        rstd: bool,
        space: Option<String>,
    },
    /// `SAVESEG name`.
    Saveseg { name: String },
    /// `PURGE NSS NAME name` or `PURGE NSS spoolid`.
    PurgeNss {
        name: Option<String>,
        id: Option<u32>,
    },
    /// `QUERY NSS [ALL|NAME name] [MAP]`.
    QueryNss { name: Option<String>, map: bool },
    /// `SET PRIVCLASS userid [+|-]classes`.
    SetPrivclass {
        user: String,
        op: char,
        classes: String,
    },
}

fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && word.len() <= full.len() && full.starts_with(word)
}

/// A saved segment's name: 1 to 8 letters, digits or @ # $.
pub fn valid_name(w: &str) -> bool {
    (1..=8).contains(&w.len())
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '@' | '#' | '$'))
}

fn hex(w: &str) -> Option<u32> {
    if w.is_empty() || w.len() > 8 {
        return None;
    }
    u32::from_str_radix(w, 16).ok()
}

/// Parse a CP command if it is one of the saved-segment commands (`None`: it is not); `level`
/// is the z/VM release ("5.4", ...), which sets how high a segment may lie.
pub fn parse(line: &str, level: &str) -> Option<Result<SegCommand, String>> {
    let upper = line.trim().to_ascii_uppercase();
    let w = crate::cp::input::command_words(&upper);
    let verb = *w.first()?;
    let ops = &w[1..];
    if abbrev(verb, "DEFSEG", 6) {
        return Some(parse_defseg(ops, level));
    }
    if abbrev(verb, "SAVESEG", 7) {
        return Some(match ops {
            [] => Err("HCPNSS026E Operand missing or invalid".into()),
            [n] if valid_name(n) => Ok(SegCommand::Saveseg {
                name: n.to_string(),
            }),
            [n] => Err(format!("HCPNSS002E Invalid operand - {n}")),
            [_, x, ..] => Err(format!("HCPNSS003E Invalid option - {x}")),
        });
    }
    // PURGE's minimum abbreviation is PUR (CP Commands reference; cp/catalog/verbs.rs).
    if abbrev(verb, "PURGE", 3) && ops.first() == Some(&"NSS") {
        return Some(match &ops[1..] {
            [] => Err("HCP026E Operand missing or invalid".into()),
            ["NAME"] => Err("HCP026E Operand missing or invalid".into()),
            ["NAME", n] if valid_name(n) => Ok(SegCommand::PurgeNss {
                name: Some(n.to_string()),
                id: None,
            }),
            ["NAME", n] => Err(format!("HCP002E Invalid operand - {n}")),
            [id] => match id.parse::<u32>() {
                Ok(i) if (1..=9999).contains(&i) => Ok(SegCommand::PurgeNss {
                    name: None,
                    id: Some(i),
                }),
                _ => Err(format!("HCP002E Invalid operand - {id}")),
            },
            [.., x] => Err(format!("HCP003E Invalid option - {x}")),
        });
    }
    if abbrev(verb, "QUERY", 1) && ops.first() == Some(&"NSS") {
        return Some(parse_query(&ops[1..]));
    }
    if abbrev(verb, "SET", 3) && ops.first() == Some(&"PRIVCLASS") {
        return Some(match &ops[1..] {
            [user, cls] => {
                let (op, rest) = match cls.chars().next() {
                    Some(c @ ('+' | '-')) => (c, &cls[1..]),
                    _ => ('=', &cls[..]),
                };
                if rest.is_empty()
                    || !rest
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                {
                    Err(format!("HCP002E Invalid operand - {cls}"))
                } else {
                    Ok(SegCommand::SetPrivclass {
                        user: user.to_string(),
                        op,
                        classes: rest.to_string(),
                    })
                }
            }
            [_, _, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
            _ => Err("HCP026E Operand missing or invalid".into()),
        });
    }
    None
}

fn parse_query(ops: &[&str]) -> Result<SegCommand, String> {
    let (mut name, mut map, mut k) = (None, false, 0);
    while k < ops.len() {
        match ops[k] {
            "MAP" if !map => map = true,
            "ALL" if name.is_none() => {}
            "NAME" if name.is_none() => {
                // The name may follow MAP, as the seed types `q nss name map dcssname`.
                let mut j = k + 1;
                if ops.get(j) == Some(&"MAP") && !map {
                    map = true;
                    j += 1;
                }
                match ops.get(j) {
                    Some(n) if valid_name(n) => name = Some(n.to_string()),
                    Some(n) => return Err(format!("HCPCQU002E Invalid operand - {n}")),
                    None => return Err("HCPCQU026E Operand missing or invalid".into()),
                }
                k = j;
            }
            x => return Err(format!("HCPCQU003E Invalid option - {x}")),
        }
        k += 1;
    }
    Ok(SegCommand::QueryNss { name, map })
}

fn parse_defseg(ops: &[&str], level: &str) -> Result<SegCommand, String> {
    let missing = || "HCPNSD026E Operand missing or invalid".to_string();
    let Some((&name, rest)) = ops.split_first() else {
        return Err(missing());
    };
    if !valid_name(name) {
        return Err(format!("HCPNSD002E Invalid operand - {name}"));
    }
    let limit = if crate::cp::iocmds::level_at_least(level, "5.4") {
        LIMIT_PAGES_54
    } else {
        LIMIT_PAGES_OLD
    };
    let mut ranges: Vec<PageRange> = Vec::new();
    let mut k = 0;
    // Page ranges with their types first.
    while let Some(&r) = rest.get(k) {
        let (b, e) = match r.split_once('-') {
            Some((b, e)) => (hex(b), hex(e)),
            None => (hex(r), hex(r)),
        };
        let (Some(beg), Some(end)) = (b, e) else {
            break; // an option
        };
        if beg > end || end >= limit {
            return Err(format!("HCPNSD002E Invalid operand - {r}"));
        }
        let Some(t) = rest.get(k + 1) else {
            return Err(missing());
        };
        let Some(ty) = PageType::parse(t) else {
            return Err(format!("HCPNSD003E Invalid option - {t}"));
        };
        if ranges.iter().any(|o| beg <= o.end && o.beg <= end) {
            return Err(format!("HCPNSD002E Invalid operand - {r}"));
        }
        ranges.push(PageRange { beg, end, ty });
        k += 2;
    }
    if ranges.is_empty() {
        return Err(match rest.first() {
            None => missing(),
            Some(w) => format!("HCPNSD002E Invalid operand - {w}"),
        });
    }
    if extent(&ranges).1 > MAX_SEGMENT_PAGES {
        let last = rest[k - 2];
        return Err(format!("HCPNSD002E Invalid operand - {last}"));
    }
    let (mut loadnshr, mut rstd, mut space) = (false, false, None);
    while let Some(&o) = rest.get(k) {
        match o {
            "LOADNSHR" if !loadnshr => loadnshr = true,
            "RSTD" if !rstd => rstd = true,
            "SPACE" if space.is_none() => match rest.get(k + 1) {
                Some(s) if valid_name(s) => {
                    space = Some(s.to_string());
                    k += 1;
                }
                Some(s) => return Err(format!("HCPNSD002E Invalid operand - {s}")),
                None => return Err(missing()),
            },
            _ => return Err(format!("HCPNSD003E Invalid option - {o}")),
        }
        // LOADNSHR cannot go with RSTD, nor with an SC range.
        if loadnshr && rstd {
            return Err(format!("HCPNSD003E Invalid option - {o}"));
        }
        k += 1;
    }
    if loadnshr && ranges.iter().any(|r| r.ty == PageType::Sc) {
        return Err("HCPNSD003E Invalid option - LOADNSHR".into());
    }
    Ok(SegCommand::Defseg {
        name: name.to_string(),
        ranges,
        loadnshr,
        rstd,
        space,
    })
}
