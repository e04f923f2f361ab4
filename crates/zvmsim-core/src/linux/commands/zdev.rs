//! s390-tools 2.x's device configuration commands on a RHEL 8 guest (`linux/distro.rs`):
//! `chzdev dasd ID|RANGE... -e`, `lszdev dasd [ID|RANGE...]`, `cio_ignore -l|-r`,
//! `chccwdev -e` and the kernel's `/proc/cio_ignore`. Facts from s390-tools v2.9.0
//! (zdev/src/chzdev.c, lszdev.c, ccw.c, misc.c, opts.c; zconf/cio_ignore, zconf/chccwdev):
//! the lines printed and the order of the checks. The
//! simulation applies them (`system/zdev.rs`); what it would have to model further (disabling
//! a device, attribute settings, the persistent configuration alone) answers `not simulated by
//! zvmsim`.

use super::LinuxCommand;

/// Device types zdev knows (zdev/src/devtype.c and its subtypes): a word naming one of these
/// is a type, not an ID.
const TYPES: &[&str] = &[
    "dasd",
    "dasd-eckd",
    "dasd-fba",
    "zfcp",
    "zfcp-host",
    "zfcp-lun",
    "qeth",
    "ctc",
    "lcs",
    "generic-ccw",
];

const CHZDEV_USE: &str = "Use 'chzdev --help' for more information";
const LSZDEV_USE: &str = "Use 'lszdev --help' for more information";

/// Devices a command names: one ID or a range, with the text as typed (failure lines echo it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub text: String,
    pub from: u16,
    pub to: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZdevCommand {
    /// `chzdev dasd SPEC... -e`: free the devices from the blacklist and set them online, in
    /// the active and the persistent configuration.
    Enable(Vec<Spec>),
    /// `lszdev dasd [SPEC...]`: the DASDs Linux knows (none given: all).
    List(Vec<Spec>),
    /// `cio_ignore -l`: the blacklist with the tool's heading.
    IgnoredList,
    /// `cat /proc/cio_ignore`.
    ProcList,
    /// `cio_ignore -r LIST`: free the devices from the blacklist (they come up offline).
    CioRemove(Vec<Spec>),
    /// `chzdev dasd SPEC... -d`: set the devices offline, in the active and the persistent
    /// configuration (aliases only: a base's in-use check and prompt are not modelled).
    Disable(Vec<Spec>),
    /// `chccwdev -e|-d LIST`: set each device online (or offline), in order (s390-tools'
    /// zconf/chccwdev).
    Chccwdev { parts: Vec<BusIds>, online: bool },
}

/// One part of chccwdev's bus-ID list: a device, or a range whose missing devices it skips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusIds {
    One(u16),
    Range { text: String, from: u16, to: u16 },
}

/// A CCW device ID as zdev's ccw_parse_devid takes it (`%x` or `%x.%x.%x`, with bounds),
/// or its error line; Ok(None): a device of another channel subsystem or subchannel set,
/// which no guest of zvmsim has.
fn devid(tool: &str, s: &str) -> Result<Option<u16>, String> {
    let err = |why: &str| format!("{tool}: Error in CCW device ID format: {why}: {s}");
    let num = |p: &str| {
        let h = p.strip_prefix("0x").unwrap_or(p);
        (!h.is_empty() && h.len() <= 8 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(h, 16).ok())
            .flatten()
    };
    let parts: Vec<&str> = s.split('.').collect();
    let devno = match parts.as_slice() {
        [d] => num(d).ok_or_else(|| err("Invalid format"))?,
        [c, ss, d] => {
            let (c, ss, d) = match (num(c), num(ss), num(d)) {
                (Some(c), Some(ss), Some(d)) => (c, ss, d),
                _ => return Err(err("Invalid format")),
            };
            if c > 255 {
                return Err(err("CSSID out of bounds"));
            }
            if ss > 3 {
                return Err(err("SSID out of bounds"));
            }
            if c != 0 || ss != 0 {
                return Ok(None);
            }
            d
        }
        _ => return Err(err("Invalid format")),
    };
    u16::try_from(devno)
        .map(Some)
        .map_err(|_| err("DEVNO out of bounds"))
}

/// One ID or range `FROM-TO` (Ok(None): see `devid`).
fn spec(tool: &str, s: &str) -> Result<Option<Spec>, String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let (Some(from), Some(to)) = (devid(tool, a)?, devid(tool, b)?) else {
        return Ok(None);
    };
    Ok(Some(Spec {
        text: s.to_string(),
        from: from.min(to),
        to: from.max(to),
    }))
}

/// The zdev tools' `TYPE ID...` words: the specs, for a type zvmsim models; Ok(None) for an
/// ID without a type (it selects across every type: not modelled) or an ID zvmsim does not
/// model; `unknown` (the tool's line) for a word that is neither a type nor an ID.
fn typed_specs(
    tool: &str,
    kind: &str,
    ids: &[&str],
    unknown: String,
) -> Result<Option<Vec<Spec>>, String> {
    if !TYPES.contains(&kind) {
        return match spec(tool, kind) {
            Ok(_) => Ok(None),
            Err(_) => Err(unknown),
        };
    }
    specs(tool, ids)
}

/// The devices of `args` after the type word; Ok(None): a form zvmsim does not model (another
/// subchannel set).
fn specs(tool: &str, ids: &[&str]) -> Result<Option<Vec<Spec>>, String> {
    let mut out = Vec::new();
    for id in ids {
        match spec(tool, id)? {
            Some(s) => out.push(s),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// `chzdev`: Ok(None) for the forms not modelled.
pub(super) fn chzdev(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut action: Option<&str> = None;
    let mut words = Vec::new();
    let mut other = false;
    for a in args {
        let act = match *a {
            "-e" | "--enable" => Some("enable"),
            "-d" | "--disable" => Some("disable"),
            "-y" | "--yes" | "-q" | "--quiet" => None,
            "-h" | "--help" | "-v" | "--version" => return Ok(None),
            o if o.starts_with("--") => {
                other = true; // long options: scopes, attributes, export/import...
                None
            }
            o if o.starts_with('-') && o.len() > 1 => {
                let c = o.chars().nth(1).unwrap_or('-');
                if !"apfVlLHtTsFRc".contains(c) {
                    return Err(format!("chzdev: Unrecognized option '-{c}'\n{CHZDEV_USE}"));
                }
                other = true;
                None
            }
            w => {
                words.push(w);
                None
            }
        };
        if let Some(act) = act {
            match action {
                Some(prev) if prev != act => {
                    return Err(format!(
                        "chzdev: Cannot specify '--{act}' together with '--{prev}'"
                    ))
                }
                _ => action = Some(act),
            }
        }
    }
    let Some((&kind, ids)) = words.split_first() else {
        return match action {
            None if !other => Err(format!("chzdev: Please specify an action\n{CHZDEV_USE}")),
            _ => Ok(None),
        };
    };
    let unknown = format!("chzdev: Unknown device type or device ID format: {kind}\n{CHZDEV_USE}");
    let Some(ids) = typed_specs("chzdev", kind, ids, unknown)? else {
        return Ok(None);
    };
    let Some(act) = action else {
        return Err(format!("chzdev: Please specify an action\n{CHZDEV_USE}"));
    };
    if ids.is_empty() {
        let verb = if act == "enable" {
            "configure"
        } else {
            "deconfigure"
        };
        return Err(format!(
            "chzdev: Please specify a device to {verb}\n{CHZDEV_USE}"
        ));
    }
    let modelled = matches!(kind, "dasd" | "dasd-eckd") && !other;
    Ok(modelled.then(|| {
        LinuxCommand::Zdev(if act == "enable" {
            ZdevCommand::Enable(ids)
        } else {
            ZdevCommand::Disable(ids)
        })
    }))
}

/// `lszdev`: Ok(None) for the forms not modelled (other types, columns, -a and the rest).
pub(super) fn lszdev(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut words = Vec::new();
    for a in args {
        match *a {
            "-h" | "--help" | "-v" | "--version" => return Ok(None),
            o if o.starts_with('-') && o.len() > 1 => return Ok(None),
            w => words.push(w),
        }
    }
    let Some((&kind, ids)) = words.split_first() else {
        return Ok(None); // every type: qeth and the rest are not modelled
    };
    let unknown =
        format!("lszdev: Unknown device type or device ID specification: {kind}\n{LSZDEV_USE}");
    let Some(ids) = typed_specs("lszdev", kind, ids, unknown)? else {
        return Ok(None);
    };
    Ok(matches!(kind, "dasd" | "dasd-eckd").then_some(LinuxCommand::Zdev(ZdevCommand::List(ids))))
}

/// `cio_ignore` (zconf/cio_ignore): `-l` and `-r` are modelled; the other changes (-a, -A,
/// -R) and queries (-L, -i, -k, -u, -p) are not.
pub(super) fn cio_ignore(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    const NEED: &str = "cio_ignore: Need one of options -a, -A, -r, -R, -l, -L, -i, -k, -u or -p\nUse 'cio_ignore --help' to get usage information.";
    match args {
        [] => Err(NEED.into()),
        ["-l" | "--list"] => Ok(Some(LinuxCommand::Zdev(ZdevCommand::IgnoredList))),
        ["-r" | "--remove", list @ ..] if !list.is_empty() => {
            Ok(cio_remove(&list.join(",")).map(|s| LinuxCommand::Zdev(ZdevCommand::CioRemove(s))))
        }
        ["-r" | "--remove"] => Err("cio_ignore: --remove requires an argument".into()),
        [o, ..] if o.starts_with('-') && !KNOWN_CIO.contains(o) => Err(format!(
            "cio_ignore: invalid option '{o}'\nUse 'cio_ignore --help' to get usage information."
        )),
        _ => Ok(None),
    }
}

/// `cio_ignore -r LIST`'s devices as the kernel parses them (Ok(None): an ID zvmsim does not
/// answer with the tool's own message).
fn cio_remove(list: &str) -> Option<Vec<Spec>> {
    let mut out = Vec::new();
    for item in list.split(',') {
        let (a, b) = item.split_once('-').unwrap_or((item, item));
        let (a, b) = (crate::linux::cio::busid(a)?, crate::linux::cio::busid(b)?);
        if a > b || a > 0xFFFF || b > 0xFFFF {
            return None; // another subchannel set, or a reversed range
        }
        out.push(Spec {
            text: item.to_string(),
            from: a as u16,
            to: b as u16,
        });
    }
    Some(out)
}

/// chccwdev's usage-free errors (zconf/chccwdev, s390-tools v2.9.0).
const CHCCWDEV_TRY: &str = "Try 'chccwdev --help' for more information.";
const BUS_IDS_FAILED: &str = "ERROR: Evaluation of bus IDs failed!\n";

/// A bus ID as chccwdev normalizes it: `1234` and `0.1234` are `0.0.1234`; css and ssid
/// 0-255, the device number up to four hex digits. Ok(None): one of another subchannel set.
fn chccwdev_id(s: &str) -> Result<Option<u16>, String> {
    let parts: Vec<&str> = s.split('.').collect();
    let (c, ss, d) = match parts.as_slice() {
        [d] => ("0", "0", *d),
        [ss, d] => ("0", *ss, *d),
        [c, ss, d] => (*c, *ss, *d),
        _ => ("", "", ""),
    };
    let small = |x: &str| x.parse::<u32>().ok().filter(|&v| v <= 255);
    let shown = format!("{c}.{ss}.{d:0>4}");
    let hex = d.len() <= 4 && !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit());
    match (small(c), small(ss), hex) {
        (Some(0), Some(0), true) => Ok(u16::from_str_radix(d, 16).ok()),
        (Some(_), Some(_), true) => Ok(None),
        _ => Err(format!("{shown} is not a valid bus ID.\n{BUS_IDS_FAILED}")),
    }
}

/// `chccwdev`: `-e`, `-d` and `-s` with a bus-ID list are modelled; `-f`, `-a` and the
/// usage cases (no action, no bus ID) are not.
pub(super) fn chccwdev(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let (mut online, mut offline, mut other, mut ids) = (false, false, false, Vec::new());
    for a in args {
        match *a {
            "-e" | "--online" => online = true,
            // A safe offline waits for the device's requests under way, as the model's
            // offline does anyway.
            "-d" | "--offline" | "-s" | "--safeoffline" => offline = true,
            "-f" | "--forceonline" => other = true,
            "-h" | "--help" | "-v" | "--version" => return Ok(None),
            o if o.starts_with("-a") || o == "--attribute" => other = true,
            o if o.starts_with('-') => {
                return Err(format!("chccwdev: Invalid option {o}\n{CHCCWDEV_TRY}"))
            }
            w => ids.push(w.to_ascii_lowercase()),
        }
    }
    if online && offline {
        return Err(format!(
            "chccwdev: Incompatible argument list.\n{CHCCWDEV_TRY}"
        ));
    }
    let list = ids.join(",");
    let mut parts = Vec::new();
    for p in list.split(',').filter(|_| !list.is_empty()) {
        parts.push(match p.split_once('-') {
            None => match chccwdev_id(p)? {
                Some(v) => BusIds::One(v),
                None => return Ok(None),
            },
            Some((a, b)) => match (chccwdev_id(a)?, chccwdev_id(b)?) {
                (Some(x), Some(y)) if x <= y => BusIds::Range {
                    text: format!("0.0.{x:04x}-0.0.{y:04x}"),
                    from: x,
                    to: y,
                },
                (Some(_), Some(_)) => return Err(format!("Invalid range order\n{BUS_IDS_FAILED}")),
                _ => return Ok(None),
            },
        });
    }
    Ok(((online || offline) && !other && !parts.is_empty())
        .then_some(LinuxCommand::Zdev(ZdevCommand::Chccwdev { parts, online })))
}

/// zconf/cio_ignore's options.
const KNOWN_CIO: &[&str] = &[
    "-a",
    "--add",
    "-A",
    "--add-all",
    "-r",
    "--remove",
    "-R",
    "--remove-all",
    "-l",
    "--list",
    "-L",
    "--list-not-blacklisted",
    "-i",
    "--is-ignored",
    "-k",
    "--kernel-param",
    "-u",
    "--unused",
    "-p",
    "--purge",
    "-h",
    "--help",
    "-v",
    "--version",
];

/// One DASD as lszdev prints it.
pub struct ZdevRow {
    pub vdev: u16,
    /// The block device (bases); aliases and offline devices have none.
    pub name: Option<String>,
    /// Online (and so, in zvmsim, persistently configured).
    pub online: bool,
}

/// chzdev's lines for `verb` (`configure` for -e, `deconfigure` for -d): one per device in
/// `configured` (changed now) and `already` (in that state before), sorted by ID, then a
/// failure for each of `specs` that matched none of them (s390-tools: "configure failed",
/// "Error: Device not found").
pub fn config_lines(
    verb: &str,
    configured: &[u16],
    already: &[u16],
    specs: &[Spec],
) -> Vec<String> {
    let mut devs: Vec<(u16, bool)> = configured.iter().map(|&v| (v, true)).collect();
    devs.extend(already.iter().map(|&v| (v, false)));
    devs.sort_unstable();
    let unmatched: Vec<&Spec> = specs
        .iter()
        .filter(|s| !devs.iter().any(|&(v, _)| (s.from..=s.to).contains(&v)))
        .collect();
    let mut out: Vec<String> = devs
        .into_iter()
        .map(|(v, new)| {
            let already = if new { "" } else { "already " };
            format!("ECKD DASD 0.0.{v:04x} {already}{verb}d")
        })
        .collect();
    for s in unmatched {
        out.push(format!("DASD {} {verb} failed", s.text));
        out.push("    Error: Device not found".into());
    }
    out
}

/// lszdev's table (non-terminal output: two blanks between columns, each as wide as its
/// widest entry, the last not padded).
pub fn list_lines(rows: &[ZdevRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec!["lszdev: No device was selected!".into()];
    }
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                "dasd-eckd".into(),
                format!("0.0.{:04x}", r.vdev),
                if r.online { "yes" } else { "no" }.into(),
                if r.online { "yes" } else { "no" }.into(),
                r.name.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let head = ["TYPE", "ID", "ON", "PERS", "NAMES"];
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].len())
            .chain([head[i].len()])
            .max()
            .unwrap_or(0)
    };
    let line = |c: [&str; 5]| {
        let mut s = String::new();
        for (i, cell) in c.iter().enumerate() {
            if i < 4 {
                s.push_str(&format!("{cell:<w$}  ", w = width(i)));
            } else {
                s.push_str(cell);
            }
        }
        s
    };
    let mut out = vec![line(head)];
    for c in &cells {
        out.push(line([&c[0], &c[1], &c[2], &c[3], &c[4]]));
    }
    out
}

/// `cio_ignore -l`.
pub fn ignored_lines(listing: Vec<String>) -> Vec<String> {
    let mut out = vec!["Ignored devices:".to_string(), "=".repeat(17)];
    out.extend(listing);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enable(s: &str) -> Result<Option<LinuxCommand>, String> {
        chzdev(&s.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn chzdev_forms_and_errors_as_s390_tools_2_9_prints_them() {
        let Ok(Some(LinuxCommand::Zdev(ZdevCommand::Enable(v)))) = enable("dasd B9E0-B9F3 -e")
        else {
            panic!("a range")
        };
        assert_eq!(
            (v[0].from, v[0].to, v[0].text.as_str()),
            (0xB9E0, 0xB9F3, "B9E0-B9F3")
        );
        assert!(matches!(enable("-e dasd 0.0.1000"), Ok(Some(_))));
        assert!(matches!(enable("dasd-eckd 1000 --enable -y"), Ok(Some(_))));
        assert!(matches!(
            enable("dasd 1000 -d"),
            Ok(Some(LinuxCommand::Zdev(ZdevCommand::Disable(_))))
        ));
        // Modelled no further: another type, an ID without a type, a scope.
        for s in [
            "dasd 1000 -d -p",
            "zfcp-host 1000 -e",
            "1000 -e",
            "dasd 1000 -e -p",
            "dasd 0.1.1000 -e",
        ] {
            assert_eq!(enable(s), Ok(None), "{s}");
        }
        let cases = [
            ("dasd 1000", "chzdev: Please specify an action\nUse 'chzdev --help' for more information"),
            ("dasd -e", "chzdev: Please specify a device to configure\nUse 'chzdev --help' for more information"),
            ("dasd 1000 -e -d", "chzdev: Cannot specify '--disable' together with '--enable'"),
            ("dasd 1000 -d -e", "chzdev: Cannot specify '--enable' together with '--disable'"),
            ("frob 1000 -e", "chzdev: Unknown device type or device ID format: frob\nUse 'chzdev --help' for more information"),
            ("dasd 10000 -e", "chzdev: Error in CCW device ID format: DEVNO out of bounds: 10000"),
            ("dasd xyz -e", "chzdev: Error in CCW device ID format: Invalid format: xyz"),
            ("dasd 1000-xyz -e", "chzdev: Error in CCW device ID format: Invalid format: xyz"),
            ("dasd 0.9.1000 -e", "chzdev: Error in CCW device ID format: SSID out of bounds: 0.9.1000"),
            ("dasd 1000 -e -x", "chzdev: Unrecognized option '-x'\nUse 'chzdev --help' for more information"),
        ];
        for (s, e) in cases {
            assert_eq!(enable(s), Err(e.to_string()), "{s}");
        }
    }

    #[test]
    fn lines_of_chzdev_lszdev_and_cio_ignore() {
        let s = spec("chzdev", "C000").unwrap().unwrap();
        assert_eq!(
            config_lines("configure", &[0xB9E1, 0xB9E0], &[0xB9D5], &[s]),
            [
                "ECKD DASD 0.0.b9d5 already configured",
                "ECKD DASD 0.0.b9e0 configured",
                "ECKD DASD 0.0.b9e1 configured",
                "DASD C000 configure failed",
                "    Error: Device not found",
            ]
        );
        let rows = [
            ZdevRow {
                vdev: 0xB9D5,
                name: Some("dasda".into()),
                online: true,
            },
            ZdevRow {
                vdev: 0xB9E0,
                name: None,
                online: false,
            },
        ];
        assert_eq!(
            list_lines(&rows),
            [
                "TYPE       ID        ON   PERS  NAMES",
                "dasd-eckd  0.0.b9d5  yes  yes   dasda",
                "dasd-eckd  0.0.b9e0  no   no    ",
            ]
        );
        assert_eq!(list_lines(&[]), ["lszdev: No device was selected!"]);
        assert_eq!(
            ignored_lines(vec!["0.0.b9e0".into()])[1],
            "================="
        );
        assert!(cio_ignore(&[])
            .unwrap_err()
            .starts_with("cio_ignore: Need one of options"));
        let Ok(Some(LinuxCommand::Zdev(ZdevCommand::CioRemove(v)))) =
            cio_ignore(&["-r", "1000,0.0.2000-0.0.2001"])
        else {
            panic!("cio_ignore -r")
        };
        assert_eq!(
            v.iter().map(|s| (s.from, s.to)).collect::<Vec<_>>(),
            [(0x1000, 0x1000), (0x2000, 0x2001)]
        );
        // An ID whose error line zvmsim does not know, and -A: not simulated.
        assert_eq!(cio_ignore(&["-r", "10000"]), Ok(None));
        assert_eq!(cio_ignore(&["-A"]), Ok(None));
        assert!(cio_ignore(&["-z"])
            .unwrap_err()
            .starts_with("cio_ignore: invalid option '-z'"));
    }
}
