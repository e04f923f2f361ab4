//! The user directory's device statements as users write them (z/VM CP Planning and
//! Administration, "Creating and Updating a User Directory"): MDISK (full-pack by DEVNO, an
//! extent of cylinders on a labelled volume, or a V-DISK in storage), MINIOPT after an MDISK,
//! LINK to another user's minidisk, DEDICATE and COMMAND. Parsing only: where each minidisk
//! lies is `config/directory.rs` (checks) and `system/mdisk.rs` (logon). A directory error is
//! a scenario error in zvmsim's words (DIRECTXA's own messages are not known to zvmsim).

use crate::cp::iocmds::hex4;

/// A user-directory statement zvmsim simulates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirStatement {
    /// `MDISK vdev 3390 DEVNO rdev [mode]`: a full-pack minidisk on real device rdev.
    MdiskDevno { vdev: u16, rdev: u16, mode: String },
    /// `MDISK vdev 3390 start count|END volser [mode]`: `count` cylinders from cylinder
    /// `start` of the volume labelled `volser` (None: to the end of the volume).
    Mdisk {
        vdev: u16,
        start: u32,
        count: Option<u32>,
        volser: String,
        mode: String,
    },
    /// `MDISK vdev FB-512 V-DISK blocks [mode]`: a virtual disk in storage, created at logon.
    Vdisk { vdev: u16, blocks: u64 },
    /// `MINIOPT MDC|NOMDC`: the minidisk of the MDISK statement before it may (or may not)
    /// be cached by CP's minidisk cache.
    Miniopt { mdc: bool },
    /// `LINK userid vdev1 vdev2 mode`: the minidisk `vdev1` of `userid`, as this user's
    /// `vdev2` (the same real extent).
    Link {
        user: String,
        vdev: u16,
        as_vdev: u16,
        mode: String,
    },
    /// `DEDICATE vdev rdev`.
    Dedicate { vdev: u16, rdev: u16 },
    /// `COMMAND cp-command`, run at logon.
    Command(String),
    /// `OPTION NOMEMASSIST`: the user's MEMASSIST setting starts OFF although the machine has
    /// the assist (QUERY MEMASSIST's usage notes, z/VM CP Commands and Utilities Reference).
    /// The other OPTION operands are not simulated.
    Option { nomemassist: bool },
    /// `CLASS classes`: the user's privilege classes (seed 000: "Add class E to the CLASS
    /// string in the CMS user ID's directory", `CLASS z16axcb25ge`). Without it, class G.
    Class(String),
}

impl DirStatement {
    /// A minidisk on a real volume (what MINIOPT may follow and LINK may name).
    pub fn real_mdisk_vdev(&self) -> Option<u16> {
        match self {
            DirStatement::MdiskDevno { vdev, .. } | DirStatement::Mdisk { vdev, .. } => Some(*vdev),
            _ => None,
        }
    }
}

/// An access mode: primary R, W or M, optional alternate R or W, optional suffix V or E
/// (the MDISK and LINK statements' mode operand).
fn mode(w: &str) -> bool {
    let b = w.as_bytes();
    let mut i = 0;
    if !matches!(b.first(), Some(b'R' | b'W' | b'M')) {
        return false;
    }
    i += 1;
    if matches!(b.get(i), Some(b'R' | b'W')) {
        i += 1;
    }
    if matches!(b.get(i), Some(b'V' | b'E')) {
        i += 1;
    }
    i == b.len()
}

/// A directory user ID: 1-8 characters, letters, digits and @ # $ _ -.
fn userid(w: &str) -> bool {
    !w.is_empty()
        && w.len() <= 8
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@#$_-".contains(c))
}

/// Passwords that may follow an MDISK's mode (read, write, multiple: the MDISK statement's
/// syntax); accepted and not used, zvmsim checks no LINK password.
const MDISK_PASSWORDS: usize = 3;

/// Parse one user-directory statement.
pub fn parse_directory(line: &str) -> Result<DirStatement, String> {
    let upper = line.trim().to_ascii_uppercase();
    let w: Vec<&str> = upper.split_whitespace().collect();
    let bad = |why: &str| Err(format!("directory statement `{}`: {why}", line.trim()));
    // The access mode at word `i`, which `passwords` words at most may follow.
    let mode_at = |i: usize, passwords: usize| -> Result<String, String> {
        match (w.get(i), w.len()) {
            (None, _) => Ok("R".into()),
            (Some(m), n) if n <= i + 1 + passwords && mode(m) => Ok(m.to_string()),
            (Some(m), n) if n <= i + 1 + passwords => Err(format!(
                "directory statement `{}`: `{m}` is not an access mode (R, RR, W, WR, M, MR, MW; suffix V or E)",
                line.trim()
            )),
            _ if passwords == 0 => Err(format!(
                "directory statement `{}`: nothing may follow the access mode",
                line.trim()
            )),
            _ => Err(format!(
                "directory statement `{}`: at most three passwords may follow the access mode",
                line.trim()
            )),
        }
    };
    match w.first().copied() {
        Some("MDISK") => {
            let Some(v) = w.get(1).and_then(|x| hex4(x)) else {
                return bad("the virtual device number is missing or not 1-4 hex digits");
            };
            if w.get(2) == Some(&"FB-512") && w.get(3) == Some(&"V-DISK") {
                let Some(b) = w.get(4).and_then(|x| x.parse::<u64>().ok()) else {
                    return bad("V-DISK needs a size in 512-byte blocks");
                };
                if b == 0 || b > crate::cp::vdisk::MAX_BLOCKS {
                    return bad("a V-DISK has 1 to 4194296 blocks");
                }
                return match w.len() {
                    5 | 6 => Ok(DirStatement::Vdisk { vdev: v, blocks: b }),
                    _ => bad("expected at most an access mode after the V-DISK's size"),
                };
            }
            if w.get(2) != Some(&"3390") {
                return bad("zvmsim simulates ECKD minidisks of device type 3390");
            }
            if w.get(3) == Some(&"DEVNO") {
                let Some(r) = w.get(4).and_then(|x| hex4(x)) else {
                    return bad("DEVNO needs a real device number (1-4 hex digits)");
                };
                return Ok(DirStatement::MdiskDevno {
                    vdev: v,
                    rdev: r,
                    mode: mode_at(5, MDISK_PASSWORDS)?,
                });
            }
            let Some(start) = w.get(3).and_then(|x| x.parse::<u32>().ok()) else {
                return bad("expected a start cylinder (a decimal number) or DEVNO rdev");
            };
            let count = match w.get(4) {
                Some(&"END") => None,
                Some(x) => match x.parse::<u32>() {
                    Ok(0) => return bad("a minidisk has at least one cylinder"),
                    Ok(n) => Some(n),
                    Err(_) => return bad("expected a cylinder count (a decimal number) or END"),
                },
                None => return bad("expected a cylinder count (a decimal number) or END"),
            };
            let Some(vol) = w.get(5) else {
                return bad("the volume serial is missing");
            };
            if vol.len() > 6 {
                return bad("a volume serial is 1 to 6 characters");
            }
            Ok(DirStatement::Mdisk {
                vdev: v,
                start,
                count,
                volser: vol.to_string(),
                mode: mode_at(6, MDISK_PASSWORDS)?,
            })
        }
        Some("MINIOPT") => match &w[1..] {
            ["MDC"] => Ok(DirStatement::Miniopt { mdc: true }),
            ["NOMDC"] => Ok(DirStatement::Miniopt { mdc: false }),
            [] => bad("MINIOPT needs an option"),
            _ => bad("zvmsim simulates MINIOPT MDC and MINIOPT NOMDC (one option)"),
        },
        Some("OPTION") => match &w[1..] {
            [] => bad("OPTION needs an option"),
            ops if ops.iter().all(|o| *o == "NOMEMASSIST") => {
                Ok(DirStatement::Option { nomemassist: true })
            }
            _ => bad("zvmsim simulates OPTION NOMEMASSIST only"),
        },
        Some("LINK") => {
            let Some(u) = w.get(1).filter(|u| userid(u)) else {
                return bad("LINK needs a user ID of 1 to 8 characters");
            };
            let (Some(a), Some(b)) = (
                w.get(2).and_then(|x| hex4(x)),
                w.get(3).and_then(|x| hex4(x)),
            ) else {
                return bad("expected LINK userid vdev1 vdev2 mode (1-4 hex digits each)");
            };
            if w.get(4).is_none() {
                return bad("LINK needs an access mode");
            }
            Ok(DirStatement::Link {
                user: u.to_string(),
                vdev: a,
                as_vdev: b,
                mode: mode_at(4, 0)?,
            })
        }
        Some("DEDICATE") => match (
            w.get(1).and_then(|x| hex4(x)),
            w.get(2).and_then(|x| hex4(x)),
        ) {
            (Some(vdev), Some(rdev)) if w.len() == 3 => Ok(DirStatement::Dedicate { vdev, rdev }),
            _ => bad("expected DEDICATE vdev rdev"),
        },
        Some("CLASS") => match &w[1..] {
            [c] if crate::cp::privclass::valid_classes(c) => Ok(DirStatement::Class(c.to_string())),
            [] => bad("CLASS needs the user's privilege classes"),
            [_] => bad("privilege classes are 1 to 32 of A-Z and 1-6"),
            _ => bad("expected CLASS classes (one word)"),
        },
        Some("COMMAND") => {
            let rest = line.trim()[7..].trim();
            if rest.is_empty() {
                return bad("COMMAND needs a CP command");
            }
            Ok(DirStatement::Command(rest.to_string()))
        }
        Some(other) => bad(&format!(
            "`{other}` is not a statement zvmsim simulates (MDISK, MINIOPT, LINK, DEDICATE, COMMAND, OPTION, CLASS)"
        )),
        None => bad("empty statement"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_as_users_write_them() {
        assert_eq!(
            parse_directory("MDISK 0200 3390 DEVNO B9D5 MR").unwrap(),
            DirStatement::MdiskDevno {
                vdev: 0x200,
                rdev: 0xb9d5,
                mode: "MR".into()
            }
        );
        assert_eq!(
            parse_directory("mdisk 0201 3390 1 1000 lx0001 mr").unwrap(),
            DirStatement::Mdisk {
                vdev: 0x201,
                start: 1,
                count: Some(1000),
                volser: "LX0001".into(),
                mode: "MR".into()
            }
        );
        assert!(matches!(
            parse_directory("MDISK 0202 3390 1001 END LX0001").unwrap(),
            DirStatement::Mdisk { count: None, ref mode, .. } if mode == "R"
        ));
        assert_eq!(
            parse_directory("LINK LNX01 0201 0301 RR").unwrap(),
            DirStatement::Link {
                user: "LNX01".into(),
                vdev: 0x201,
                as_vdev: 0x301,
                mode: "RR".into()
            }
        );
        assert_eq!(
            parse_directory("MINIOPT NOMDC").unwrap(),
            DirStatement::Miniopt { mdc: false }
        );
        // Passwords after the mode; OPTION NOMEMASSIST.
        assert!(matches!(
            parse_directory("MDISK 0203 3390 1 10 LX0001 MR ALL WRITE MULT").unwrap(),
            DirStatement::Mdisk { ref mode, .. } if mode == "MR"
        ));
        assert_eq!(
            parse_directory("option nomemassist").unwrap(),
            DirStatement::Option { nomemassist: true }
        );
        for bad in [
            "MDISK 0200 3380 DEVNO B9D5 MR",
            "MDISK 0200 3390 1 0 LX0001 MR",
            "MDISK 0200 3390 1 10 LX0001 QQ",
            "MDISK 0200 3390 1 10 LX0001 MR RPASS WPASS MPASS EXTRA",
            "OPTION",
            "OPTION MAINTCCW",
            "MDISK 0200 3390 X 10 LX0001 MR",
            "MDISK 0200 3390 1 10 TOOLONGVOL MR",
            "MINIOPT",
            "MINIOPT NOCACHE",
            "LINK LNX01 0201",
            "LINK LNX01 0201 0301",
            "LINK LNX01 0201 0301 RR EXTRA",
            "LINK VERYLONGID 0201 0301 RR",
        ] {
            assert!(parse_directory(bad).is_err(), "{bad}");
        }
    }
}
