//! `tunedasd` (s390-tools tunedasd/src/tunedasd.c and disk.c, 2.9.0 as RHEL 8.1 ships it): its
//! cache and profile functions are simulated, `-g` (print the device's cache attribute),
//! `-c MODE [-n CYL]` (set it: BIODASDSATTR, which the DASD driver puts in each channel
//! program's Define Extent), `-P` (print the device's profile, or with `-I ITEM` one row of
//! it) and `-R` (reset it), on one or more devices; the reserve/release, path and copy-swap
//! functions and `-h`/`-v` are not. Messages are the tool's own: getopt's for an unknown
//! option or a missing argument, `Error: ...` for a bad caching mode, cylinder count or
//! profile item, a repeated option or a combination its keyword table refuses. With no
//! function or no device it prints its usage too, which zvmsim does not reproduce: not
//! simulated.

use super::{DasdQuery, LinuxCommand};
use crate::config::linux::{DasdCache, DasdCacheMode};
use crate::linux::dasdprof::ITEMS;

/// The profile function asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tune {
    /// `-P [-I ITEM]`.
    Profile { item: Option<String> },
    /// `-R`.
    Reset,
    /// `-g`: the cache attribute (BIODASDGATTR).
    GetCache,
    /// `-c MODE [-n CYL]`: set it; without `-n`, 2 cylinders (disk.c, `check_no_cyl`).
    SetCache(DasdCache),
}

/// The caching modes by tunedasd's names (disk.c, `mode_list`).
pub const MODES: [(&str, DasdCacheMode); 6] = [
    ("normal", DasdCacheMode::Normal),
    ("bypass", DasdCacheMode::Bypass),
    ("inhibit", DasdCacheMode::Inhibit),
    ("sequential", DasdCacheMode::Sequential),
    ("prestage", DasdCacheMode::Prestage),
    ("record", DasdCacheMode::Record),
];

/// A mode's name as `tunedasd -g` prints it.
pub fn mode_name(m: DasdCacheMode) -> &'static str {
    MODES
        .iter()
        .find(|(_, x)| *x == m)
        .map_or("<unknown>", |(n, _)| n)
}

/// `-n`'s value as `check_no_cyl` reads it: C's strtoul with base 0 (0x hex, leading 0
/// octal, a sign), the whole word consumed, then cast to int. None: its error.
fn no_cyl(v: &str) -> Option<i32> {
    let (neg, t) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.len() > 1 && t.starts_with('0') {
        (8, &t[1..])
    } else {
        (10, t)
    };
    // No digits at all: strtoul stops at the start, so only an empty word passes (as 0).
    let n = if digits.is_empty() {
        if !v.is_empty() {
            return None;
        }
        0
    } else {
        u64::from_str_radix(digits, radix).ok()?
    };
    let n = if neg { n.wrapping_neg() } else { n };
    Some(n as u32 as i32)
}

/// tunedasd's keyword table (`cmd_key_table`) for the keywords zvmsim simulates, rows and
/// columns in the table's order: get_cache, cache, no_cyl, profile, prof_item, reset_prof.
/// 'r': required, 'o': optional, 'i': invalid.
const KEYS: [char; 6] = ['g', 'c', 'n', 'P', 'I', 'R'];
const TABLE: [&str; 6] = ["riiiii", "iroiii", "irriii", "iiiroi", "iiirri", "iiiiir"];

const TRY: &str = "Try 'tunedasd --help' for more information.";

/// Options that take an argument (getopt's short string "c:n:gLOQSI:PRp:s:hv").
const WITH_ARG: &[char] = &['c', 'n', 'I', 'p', 's'];
const SHORT: &[char] = &[
    'c', 'n', 'g', 'L', 'O', 'Q', 'S', 'I', 'P', 'R', 'p', 's', 'h', 'v',
];
const LONG: &[(&str, char)] = &[
    ("cache", 'c'),
    ("no_cyl", 'n'),
    ("get_cache", 'g'),
    ("release", 'L'),
    ("slock", 'O'),
    ("query_reserve", 'Q'),
    ("reserve", 'S'),
    ("prof_item", 'I'),
    ("profile", 'P'),
    ("reset_prof", 'R'),
    ("path_reset", 'p'),
    ("path_reset_all", 'a'),
    ("enable-stats", 'e'),
    ("disable-stats", 'd'),
    ("copy-pair-swap", 's'),
    ("help", 'h'),
    ("version", 'v'),
];

/// Parse tunedasd's arguments (getopt_long, arguments permuted: devices anywhere).
pub(super) fn parse(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut opts: Vec<(char, Option<String>)> = Vec::new();
    let mut devices = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "--" {
            devices.extend(args[i..].iter().map(|s| s.to_string()));
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let Some(&(_, c)) = LONG.iter().find(|(n, _)| *n == name) else {
                // A unique prefix would be accepted by getopt_long: not modelled.
                if LONG.iter().any(|(n, _)| n.starts_with(name)) {
                    return Ok(None);
                }
                return Err(format!("tunedasd: unrecognized option '{a}'\n{TRY}"));
            };
            let val = if WITH_ARG.contains(&c) {
                match val.or_else(|| args.get(i).map(|s| s.to_string())) {
                    Some(v) => {
                        if !a.contains('=') {
                            i += 1;
                        }
                        Some(v)
                    }
                    None => {
                        return Err(format!(
                            "tunedasd: option '--{name}' requires an argument\n{TRY}"
                        ))
                    }
                }
            } else if val.is_some() {
                return Err(format!(
                    "tunedasd: option '--{name}' doesn't allow an argument\n{TRY}"
                ));
            } else {
                None
            };
            opts.push((c, val));
            continue;
        }
        match a.strip_prefix('-').filter(|f| !f.is_empty()) {
            None => devices.push(a.to_string()),
            Some(flags) => {
                for (k, c) in flags.char_indices() {
                    if !SHORT.contains(&c) {
                        return Err(format!("tunedasd: invalid option -- '{c}'\n{TRY}"));
                    }
                    if WITH_ARG.contains(&c) {
                        let rest = &flags[k + c.len_utf8()..];
                        let v = if !rest.is_empty() {
                            rest.to_string()
                        } else if let Some(v) = args.get(i) {
                            i += 1;
                            v.to_string()
                        } else {
                            return Err(format!(
                                "tunedasd: option requires an argument -- '{c}'\n{TRY}"
                            ));
                        };
                        opts.push((c, Some(v)));
                        break;
                    }
                    opts.push((c, None));
                }
            }
        }
    }
    // The option loop: a caching mode, cylinder count or profile item is checked as it is
    // stored, each keyword once.
    let mut given: Vec<char> = Vec::new();
    let (mut item, mut mode, mut cyl) = (None, None, None);
    for (c, v) in opts {
        let v = v.unwrap_or_default();
        match c {
            'I' if !ITEMS.contains(&v.as_str()) => {
                return Err(format!("Error: Invalid profile item '{v}' given"));
            }
            'I' => item = Some(v),
            'c' => match MODES.iter().find(|(n, _)| *n == v) {
                Some((_, m)) => mode = Some(*m),
                None => return Err(format!("Error: Invalid caching mode '{v}' given")),
            },
            'n' => match no_cyl(&v) {
                None => return Err(format!("Error: Invalid number of cylinders given '{v}'")),
                // A negative count fails the store without a message (its -1 is the error
                // code); tunedasd ends with return code 1 and prints nothing.
                Some(n) if n < 0 => return Err(String::new()),
                Some(n) => cyl = Some(n as u32),
            },
            _ => {}
        }
        if given.contains(&c) {
            return Err(format!(
                "Error: Option '{}' specified more than once",
                keyword(c)
            ));
        }
        given.push(c);
    }
    if given.iter().any(|c| !KEYS.contains(c)) || given.is_empty() {
        return Ok(None);
    }
    // The keyword table's row of the first keyword given, in the table's order.
    let first = KEYS
        .iter()
        .position(|k| given.contains(k))
        .expect("one given");
    for (j, state) in TABLE[first].chars().enumerate() {
        let here = given.contains(&KEYS[j]);
        let (a, b) = (keyword(KEYS[first]), keyword(KEYS[j]));
        match state {
            'r' if !here => {
                return Err(format!(
                    "Error: Option '{b}' required when specifying '{a}'"
                ))
            }
            'i' if here => {
                return Err(format!(
                    "Error: Only one of options '{a}' and '{b}' allowed"
                ))
            }
            _ => {}
        }
    }
    let tune = match KEYS[first] {
        'g' => Tune::GetCache,
        'c' => Tune::SetCache(DasdCache {
            mode: mode.expect("checked"),
            cylinders: cyl.unwrap_or(2),
        }),
        'P' => Tune::Profile { item },
        _ => Tune::Reset,
    };
    if devices.is_empty() {
        return Ok(None); // "Error: Missing device" and the usage
    }
    Ok(Some(LinuxCommand::Dasd(DasdQuery::Tunedasd {
        tune,
        devices,
    })))
}

fn keyword(c: char) -> &'static str {
    match c {
        'P' => "profile",
        'I' => "prof_item",
        'R' => "reset_prof",
        'g' => "get_cache",
        'c' => "cache",
        'n' => "no_cyl",
        _ => "<unknown>",
    }
}

/// The block device a device node names: `/dev/dasdX` or a partition of it.
pub fn disk_of(node: &str) -> Option<&str> {
    let name = node.strip_prefix("/dev/")?;
    let disk = name.trim_end_matches(|c: char| c.is_ascii_digit());
    (disk.starts_with("dasd") && disk.len() > 4).then_some(disk)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
        parse(args)
    }

    #[test]
    fn profile_functions_and_the_tools_refusals() {
        let dev = |tune| {
            Ok(Some(LinuxCommand::Dasd(DasdQuery::Tunedasd {
                tune,
                devices: vec!["/dev/dasda".into()],
            })))
        };
        assert_eq!(q(&["-P", "/dev/dasda"]), dev(Tune::Profile { item: None }));
        let reqs = Tune::Profile {
            item: Some("reqs".into()),
        };
        assert_eq!(q(&["/dev/dasda", "-P", "-I", "reqs"]), dev(reqs.clone()));
        assert_eq!(q(&["-PIreqs", "/dev/dasda"]), dev(reqs.clone()));
        assert_eq!(
            q(&["--profile", "--prof_item=reqs", "/dev/dasda"]),
            dev(reqs)
        );
        assert_eq!(q(&["--reset_prof", "/dev/dasda"]), dev(Tune::Reset));
        assert_eq!(
            q(&["-P", "-I", "bogus", "/dev/dasda"]).unwrap_err(),
            "Error: Invalid profile item 'bogus' given"
        );
        assert_eq!(
            q(&["-I", "reqs", "/dev/dasda"]).unwrap_err(),
            "Error: Option 'profile' required when specifying 'prof_item'"
        );
        assert_eq!(
            q(&["-P", "-R", "/dev/dasda"]).unwrap_err(),
            "Error: Only one of options 'profile' and 'reset_prof' allowed"
        );
        assert_eq!(
            q(&["-P", "-P", "/dev/dasda"]).unwrap_err(),
            "Error: Option 'profile' specified more than once"
        );
        assert_eq!(
            q(&["-x", "/dev/dasda"]).unwrap_err(),
            format!("tunedasd: invalid option -- 'x'\n{TRY}")
        );
        assert_eq!(
            q(&["-P", "-I"]).unwrap_err(),
            format!("tunedasd: option requires an argument -- 'I'\n{TRY}")
        );
        assert_eq!(
            q(&["--frob", "/dev/dasda"]).unwrap_err(),
            format!("tunedasd: unrecognized option '--frob'\n{TRY}")
        );
        // Not simulated: other functions, the usage cases.
        assert_eq!(q(&["-S", "/dev/dasda"]), Ok(None));
        assert_eq!(q(&["-P"]), Ok(None));
        assert_eq!(q(&[]), Ok(None));
        assert_eq!(disk_of("/dev/dasdb1"), Some("dasdb"));
        assert_eq!(disk_of("/dev/sda"), None);
    }

    #[test]
    fn cylinder_counts_read_as_strtoul_with_base_0() {
        for (v, want) in [
            ("12", Some(12)),
            ("010", Some(8)),
            ("0x10", Some(16)),
            ("0", Some(0)),
            ("", Some(0)),
            ("-1", Some(-1)),
            ("+5", Some(5)),
            ("+", None),
            ("0x", None),
            ("08", None),
            ("3x", None),
            ("99999999999999999999", None),
        ] {
            assert_eq!(no_cyl(v), want, "{v:?}");
        }
    }
}
