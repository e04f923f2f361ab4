//! `mkswap`, `swapon` and `swapoff` (util-linux of SLES 11) as typed in a guest: parsing, and
//! the messages for the errno values the kernel's sys_swapon/sys_swapoff return. The
//! simulation (system/swapdev.rs) runs them against the guest's block devices.

use super::LinuxCommand;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwapCommand {
    Mkswap {
        dev: String,
    },
    /// `swapon [-p prio] dev`.
    Swapon {
        dev: String,
        prio: Option<i32>,
    },
    Swapoff {
        dev: String,
    },
}

// swapon(2) and swapoff(2) return ENOENT, ENOMEM, EBUSY or EINVAL.
pub use crate::linux::errno::{strerror, EBUSY, EINVAL, ENOENT, ENOMEM};

/// swapon's or swapoff's line for a failed system call.
pub fn failed(cmd: &str, dev: &str, errno: i32) -> String {
    if errno == ENOENT {
        return format!("{cmd}: {dev}: stat failed: {}", strerror(errno));
    }
    format!("{cmd}: {dev}: {cmd} failed: {}", strerror(errno))
}

fn device(cmd: &str, devs: &[&str]) -> Result<String, String> {
    match devs {
        [d] => Ok(d.to_string()),
        [] => Err(format!(
            "Usage: {cmd} [-v] [-p priority] special|LABEL=volume_name ..."
        )),
        _ => Ok(String::new()), // several devices: not simulated
    }
}

/// `swapon`: `-s` lists; `[-p N] dev` activates; -a, -e, labels and several devices are not
/// simulated (Ok(None)).
pub(super) fn swapon(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    if let ["-s"] | ["--summary"] = args {
        return Ok(Some(LinuxCommand::Swaps));
    }
    const LONG: [&str; 6] = ["all", "help", "ifexists", "summary", "verbose", "version"];
    let mut it = args.iter();
    let (mut prio, mut devs, mut other) = (None, Vec::new(), false);
    while let Some(a) = it.next() {
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = long.split_once('=').unwrap_or((long, ""));
            if name == "priority" {
                let v = if val.is_empty() {
                    it.next().copied()
                } else {
                    Some(val)
                };
                prio = Some(
                    v.and_then(|x| x.parse::<i32>().ok())
                        .ok_or("swapon: option requires an argument -- 'p'")?,
                );
                continue;
            }
            if !LONG.contains(&name) {
                return Err(format!("swapon: unrecognized option '{a}'"));
            }
            other = true;
        } else if a.len() > 1 && a.starts_with('-') {
            for (i, c) in a.char_indices().skip(1) {
                match c {
                    'a' | 'e' | 'h' | 's' | 'v' | 'V' => other |= c != 'v',
                    'p' | 'L' | 'U' => {
                        let rest = &a[i + 1..];
                        let v = if rest.is_empty() {
                            it.next().copied()
                        } else {
                            Some(rest)
                        };
                        let Some(v) = v else {
                            return Err(format!("swapon: option requires an argument -- '{c}'"));
                        };
                        if c == 'p' {
                            prio = Some(
                                v.parse::<i32>()
                                    .map_err(|_| format!("swapon: invalid priority: '{v}'"))?,
                            );
                        } else {
                            other = true;
                        }
                        break;
                    }
                    c => return Err(format!("swapon: invalid option -- '{c}'")),
                }
            }
        } else {
            devs.push(*a);
        }
    }
    if other || devs.len() > 1 {
        return Ok(None);
    }
    let dev = device("swapon", &devs)?;
    Ok(Some(LinuxCommand::Swap(SwapCommand::Swapon { dev, prio })))
}

/// `swapoff dev` (one device; -a is not simulated).
pub(super) fn swapoff(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut devs = Vec::new();
    for a in args {
        match *a {
            "-v" | "--verbose" => {}
            "-a" | "--all" | "-h" | "--help" | "-V" | "--version" => return Ok(None),
            x if x.starts_with('-') && x.len() > 1 => {
                return Err(format!("swapoff: invalid option -- '{}'", &x[1..2]))
            }
            x => devs.push(x),
        }
    }
    if devs.len() > 1 {
        return Ok(None);
    }
    let dev = device("swapoff", &devs)?;
    Ok(Some(LinuxCommand::Swap(SwapCommand::Swapoff { dev })))
}

/// `mkswap dev` (options -c, -L, -p, -v1 and a size are not simulated).
pub(super) fn mkswap(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    match args {
        [d] if !d.starts_with('-') => Ok(Some(LinuxCommand::Swap(SwapCommand::Mkswap {
            dev: d.to_string(),
        }))),
        [] => Err("Usage: mkswap [-c] [-pPAGESZ] [-L label] [-U UUID] /dev/name [blocks]".into()),
        _ => Ok(None),
    }
}

/// mkswap's report for a device of `pages` 4 KB pages: its size (all but the header page)
/// and a UUID drawn from `seed` (deterministic).
pub fn mkswap_lines(pages: u64, seed: u64) -> Vec<String> {
    let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (a, b) = (next(), next());
    vec![
        format!(
            "Setting up swapspace version 1, size = {} KiB",
            pages.saturating_sub(1) * 4
        ),
        format!(
            "no label, UUID={:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    #[test]
    fn seed_forms_and_errors() {
        let sw = |c: &str| match parse(c) {
            Ok(LinuxCommand::Swap(s)) => s,
            other => panic!("{c}: {other:?}"),
        };
        assert_eq!(
            sw("mkswap /dev/dasdw1"),
            SwapCommand::Mkswap {
                dev: "/dev/dasdw1".into()
            }
        );
        assert_eq!(
            sw("swapon /dev/dcssblk0"),
            SwapCommand::Swapon {
                dev: "/dev/dcssblk0".into(),
                prio: None
            }
        );
        assert_eq!(
            sw("swapon -p 5 /dev/dasdw1"),
            SwapCommand::Swapon {
                dev: "/dev/dasdw1".into(),
                prio: Some(5)
            }
        );
        assert_eq!(
            sw("swapoff /dev/dasda2"),
            SwapCommand::Swapoff {
                dev: "/dev/dasda2".into()
            }
        );
        assert_eq!(parse("swapon -s").unwrap(), LinuxCommand::Swaps);
        assert!(parse("swapon -x /dev/a")
            .unwrap_err()
            .contains("invalid option"));
        assert!(parse("swapon -p")
            .unwrap_err()
            .contains("requires an argument"));
        assert!(parse("swapon -p x /dev/a")
            .unwrap_err()
            .contains("invalid priority"));
        assert!(parse("swapoff").unwrap_err().starts_with("Usage"));
        assert!(parse("mkswap").unwrap_err().starts_with("Usage"));
        let l = mkswap_lines(262_143, 7);
        assert_eq!(l[0], "Setting up swapspace version 1, size = 1048568 KiB");
        assert_eq!(
            l[1].len(),
            "no label, UUID=78381348-4148-42be-83f4-8363eeef6234".len()
        );
        assert_eq!(
            failed("swapon", "/dev/x", EBUSY),
            "swapon: /dev/x: swapon failed: Device or resource busy"
        );
    }
}
