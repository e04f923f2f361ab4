//! `tunedasd` (s390-tools tunedasd/src/tunedasd.c and disk.c): its profile functions are
//! simulated, `-P` (print the device's profile, or with `-I ITEM` one row of it) and `-R`
//! (reset it), on one or more devices; the caching, reserve/release, path and copy-swap
//! functions and `-h`/`-v` are not. Messages are the tool's own: getopt's for an unknown
//! option or a missing argument, `Error: ...` for a bad profile item, a repeated option or a
//! combination its keyword table refuses. With no function or no device it prints its usage
//! too, which zvmsim does not reproduce: not simulated.

use super::{DasdQuery, LinuxCommand};
use crate::linux::dasdprof::ITEMS;

/// The profile function asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tune {
    /// `-P [-I ITEM]`.
    Profile { item: Option<String> },
    /// `-R`.
    Reset,
}

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
    // The option loop: a profile item is checked as it is stored, each keyword once.
    let mut given: Vec<char> = Vec::new();
    let mut item = None;
    for (c, v) in opts {
        if c == 'I' {
            let v = v.unwrap_or_default();
            if !ITEMS.contains(&v.as_str()) {
                return Err(format!("Error: Invalid profile item '{v}' given"));
            }
            item = Some(v);
        }
        if given.contains(&c) {
            return Err(format!(
                "Error: Option '{}' specified more than once",
                keyword(c)
            ));
        }
        given.push(c);
    }
    if given.iter().any(|c| !matches!(c, 'P' | 'I' | 'R')) || given.is_empty() {
        return Ok(None);
    }
    // The keyword table, from the first keyword given in its order (profile, prof_item,
    // reset_prof).
    let (p, i_, r) = (
        given.contains(&'P'),
        given.contains(&'I'),
        given.contains(&'R'),
    );
    let tune = if p {
        if r {
            return Err("Error: Only one of options 'profile' and 'reset_prof' allowed".into());
        }
        Tune::Profile { item }
    } else if i_ {
        return Err("Error: Option 'profile' required when specifying 'prof_item'".into());
    } else {
        Tune::Reset
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
        assert_eq!(q(&["-g", "/dev/dasda"]), Ok(None));
        assert_eq!(q(&["-P"]), Ok(None));
        assert_eq!(q(&[]), Ok(None));
        assert_eq!(disk_of("/dev/dasdb1"), Some("dasdb"));
        assert_eq!(disk_of("/dev/sda"), None);
    }
}
