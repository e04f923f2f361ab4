//! The DASD driver's files: `/proc/dasd/statistics` (its profile, dasdprof.rs) and its
//! attributes in sysfs, `/sys/bus/ccw/devices/0.0.xxxx/<attr>`, read with
//! `cat` and written with `echo`: answered from the guest's online devices. What the driver
//! would refuse gets the shell's own line for the errno (drivers/s390/block/dasd_devmap.c:
//! the flag attributes take 0 or 1, else -EINVAL; drivers/s390/cio/device.c: `online` takes
//! 0, 1 or force, else -EINVAL; kernfs: a file without a store method or one that does not
//! exist cannot be opened for writing, -EACCES). Writes zvmsim would have to act on (setting a
//! base offline, use_diag, readonly, ...) answer `not simulated by zvmsim` (an alias goes
//! offline: system/zdev.rs); writing 1 to `online` of an online device changes nothing and
//! prints nothing, as on Linux.

use super::DasdQuery;
use crate::linux::shell::Redirect;

pub(super) const CCW: &str = "/sys/bus/ccw/devices/";

/// Attributes of an online DASD ccw device that take a 0 or 1 (dasd_devmap.c).
const FLAGS: &[&str] = &["use_diag", "readonly", "erplog", "failfast", "eer_enabled"];
/// Read-only attributes zvmsim answers (uid, alias) or knows exist.
const READ_ONLY: &[&str] = &[
    "uid",
    "alias",
    "vendor",
    "discipline",
    "status",
    "cutype",
    "devtype",
    "availability",
    "host_access_count",
    "hpf",
    "path_masks",
    "modalias",
    "vpm",
];
/// The other read-write attributes of a DASD ccw device in 4.18 (dasd_devmap.c; cmb_enable:
/// cio/cmf.c): real, not simulated.
const READ_WRITE: &[&str] = &[
    "raw_track_access",
    "expires",
    "retries",
    "timeout",
    "reservation_policy",
    "last_known_reservation_state",
    "path_threshold",
    "path_autodisable",
    "path_interval",
    "cmb_enable",
];
/// Write-only ones (mode 0200: kernfs refuses to open them for reading, EACCES).
const WRITE_ONLY: &[&str] = &["safe_offline", "path_reset", "logging"];

/// The DASD driver's profile in procfs (linux/dasdprof.rs).
const STATISTICS: &str = "/proc/dasd/statistics";

/// The DASD driver's directory in debugfs (mounted at /sys/kernel/debug by RHEL 8).
pub(super) const DEBUGFS: &str = "/sys/kernel/debug/dasd/";

/// A read or write of a DASD sysfs attribute, of /proc/dasd/statistics or of a file of the
/// driver's debugfs directory; None: not one.
pub(super) fn parse(cmd: &str, args: &[&str], redirects: &[Redirect]) -> Option<DasdQuery> {
    match (cmd, args, redirects) {
        ("cat", [p], []) if *p == STATISTICS => return Some(DasdQuery::Statistics { write: None }),
        ("echo", values, [r]) if r.stdout() && r.target == STATISTICS => {
            return Some(DasdQuery::Statistics {
                write: Some(values.join(" ")),
            })
        }
        _ => {}
    }
    let debug = match (cmd, args, redirects) {
        ("cat", [p], []) => p.strip_prefix(DEBUGFS).map(|r| (r, None)),
        ("echo", values, [r]) if r.stdout() => r
            .target
            .strip_prefix(DEBUGFS)
            .map(|rest| (rest, Some(values.join(" ")))),
        _ => None,
    };
    if let Some((rest, write)) = debug {
        let (dir, file) = rest.split_once('/')?;
        if dir.is_empty() || file.is_empty() || file.contains('/') {
            return None;
        }
        return Some(DasdQuery::Debugfs {
            dir: dir.to_string(),
            file: file.to_string(),
            write,
        });
    }
    let (path, write) = match (cmd, args, redirects) {
        ("cat", [p], []) if p.starts_with(CCW) => (*p, None),
        ("echo", values, [r]) if r.stdout() && r.target.starts_with(CCW) => {
            let v: Vec<&str> = values
                .iter()
                .copied()
                .skip_while(|a| matches!(*a, "-e" | "-E"))
                .collect();
            (r.target.as_str(), Some(v.join(" ")))
        }
        _ => return None,
    };
    let rest = &path[CCW.len()..];
    let (bus, attr) = rest.split_once('/')?;
    if attr.is_empty() || attr.contains('/') {
        return None;
    }
    Some(DasdQuery::Sysfs {
        bus: bus.to_string(),
        attr: attr.to_string(),
        write,
    })
}

/// The answer for guest device `dev` (None: no such device online): (uid, alias) of it.
pub(super) fn respond(
    bus: &str,
    attr: &str,
    write: Option<&str>,
    dev: Option<(&str, bool)>,
) -> Vec<String> {
    let path = format!("{CCW}{bus}/{attr}");
    let einval = || vec![crate::linux::shell::ECHO_EINVAL.to_string()];
    let not_sim = |w: &str| vec![format!("not simulated by zvmsim: echo {w} > {path}")];
    let Some((uid, alias)) = dev else {
        return vec![crate::linux::shell::no_such_file(&path, write.is_some())];
    };
    let flag = FLAGS.contains(&attr);
    match (attr, write) {
        ("online", None) => vec!["1".into()],
        ("online", Some("1")) => vec![],
        ("online", Some("0" | "force")) => not_sim(write.unwrap_or("")),
        ("online", Some(_)) => einval(),
        ("uid", None) => vec![uid.to_string()],
        ("alias", None) => vec![if alias { "1" } else { "0" }.to_string()],
        (_, None) if flag => vec!["0".into()],
        (_, Some(w @ ("0" | "1"))) if flag => not_sim(w),
        (_, Some(_)) if flag => einval(),
        (_, None) if READ_ONLY.contains(&attr) || READ_WRITE.contains(&attr) => {
            vec![format!("not simulated by zvmsim: cat {path}")]
        }
        (_, None) if WRITE_ONLY.contains(&attr) => vec![format!("cat: {path}: Permission denied")],
        (_, Some(w)) if READ_WRITE.contains(&attr) || WRITE_ONLY.contains(&attr) => not_sim(w),
        (_, Some(_)) => vec![format!("-bash: {path}: Permission denied")],
        (_, None) => vec![format!("cat: {path}: No such file or directory")],
    }
}

#[cfg(test)]
mod tests {
    use super::respond;

    #[test]
    fn real_attributes_not_modelled_say_so() {
        let dev = Some(("IBM.750000000DXP71.5600.d5", false));
        let r = |attr: &str, w: Option<&str>| respond("0.0.b9d5", attr, w, dev);
        let path = "/sys/bus/ccw/devices/0.0.b9d5";
        assert_eq!(
            r("raw_track_access", None),
            vec![format!(
                "not simulated by zvmsim: cat {path}/raw_track_access"
            )]
        );
        assert_eq!(
            r("cmb_enable", Some("1")),
            vec![format!(
                "not simulated by zvmsim: echo 1 > {path}/cmb_enable"
            )]
        );
        assert_eq!(
            r("hpf", None),
            vec![format!("not simulated by zvmsim: cat {path}/hpf")]
        );
        // Mode 0200 and 0444 files: kernfs refuses the other direction (EACCES).
        assert_eq!(
            r("safe_offline", None),
            vec![format!("cat: {path}/safe_offline: Permission denied")]
        );
        assert_eq!(
            r("hpf", Some("1")),
            vec![format!("-bash: {path}/hpf: Permission denied")]
        );
        // An attribute the driver does not have.
        assert_eq!(
            r("no_such_attr", None),
            vec![format!(
                "cat: {path}/no_such_attr: No such file or directory"
            )]
        );
    }
}
