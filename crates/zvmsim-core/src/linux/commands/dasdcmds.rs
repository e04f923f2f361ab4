//! The DASD commands of a guest: `lsdasd [-u]` (s390-tools 1.8, zconf/lsdasd's "new" and uid
//! layouts), `cat /proc/dasd/devices` (drivers/s390/block/dasd_proc.c) and `iostat -x [-k]`
//! (sysstat 8's extended device report), printed from the guest's DASD driver.
//!
//! Device numbers are the guest's virtual ones (bus ID 0.0.vdev), block devices dasda, dasdb,
//! ... in the order they came online, major 94 and minor 4 per device (dasd_genhd.c reserves
//! 4 minors: the disk and 3 partitions). Blocks are 4 KB (the block size dasdfmt uses).

use super::LinuxCommand;

/// The DASD driver's major number (DASD_MAJOR).
const DASD_MAJOR: u32 = 94;
/// Minors per DASD: the disk and its three partitions (DASD_PARTN_BITS 2).
const MINORS_PER_DISK: u32 = 4;
const BLOCK_SIZE: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DasdQuery {
    /// `lsdasd`, or `lsdasd -u` (uid: the uid listing).
    Lsdasd { uid: bool, all: bool },
    /// `cat /proc/dasd/devices`.
    ProcDevices,
    /// `iostat -x [interval [count]]`: sectors per second, or with `-k` kilobytes per
    /// second (sysstat 8); `sysstat11`: sysstat 11.7's extended report (RHEL 8), always in
    /// kB. With an interval, a further report every `interval` seconds over that interval,
    /// `count` reports in all (the first included; None: until the run ends).
    Iostat {
        kb: bool,
        sysstat11: bool,
        every: Option<(u32, Option<u32>)>,
    },
    /// `cat /proc/dasd/statistics`, or `echo TEXT >` it (the driver's profile).
    Statistics { write: Option<String> },
    /// `tunedasd -P [-I ITEM]` or `-R` on device nodes (tunedasd.rs).
    Tunedasd {
        tune: super::tunedasd::Tune,
        devices: Vec<String>,
    },
    /// `cat` or `echo VALUE >` a file of the DASD driver's debugfs directory (RHEL 8):
    /// `dir` is `global`, a block device (dasda) or a bus ID; `file` its file.
    Debugfs {
        dir: String,
        file: String,
        write: Option<String>,
    },
    /// s390-tools' `dasdstat` on the debugfs profiles (RHEL 8; dasdstat.rs).
    Dasdstat(super::dasdstat::Dasdstat),
    /// `cat` or `echo VALUE >` a DASD attribute in sysfs (ccwsysfs.rs).
    Sysfs {
        bus: String,
        attr: String,
        write: Option<String>,
    },
}

/// One online device of the guest, as the commands print it.
#[derive(Debug, Clone, Default)]
pub struct DasdRow {
    pub vdev: u16,
    /// dasda, ...; None for a PAV or HyperPAV alias (no block device).
    pub name: Option<String>,
    /// The index of the block device (minor / 4).
    pub index: u32,
    pub blocks: u64,
    /// The sysfs uid attribute (vendor.serial.ssid.unit address).
    pub uid: String,
    /// The block device's counters over the report's span (bases).
    pub reads: u64,
    pub writes: u64,
    pub read_sectors: u64,
    pub write_sectors: u64,
    /// Summed latency of the completed reads and writes, ns.
    pub read_ticks_ns: u64,
    pub write_ticks_ns: u64,
    /// Requests in flight integrated over time, ns.
    pub queue_ns: u128,
    pub busy_ns: u64,
}

/// lsdasd's options (zconf/lsdasd's option loop): -u and none are simulated; -a, -b, -s, -c,
/// -l, -v and device lists are not; -l with -u, an unknown option or a bad bus ID is refused
/// with the script's own lines.
pub(super) fn lsdasd(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let (mut uid, mut long, mut all, mut other) = (false, false, false, false);
    for a in args {
        match *a {
            "-u" | "--uid" => uid = true,
            "-l" | "--long" => long = true,
            "-a" | "--offline" => all = true,
            "-b" | "--base" | "-s" | "--short" | "-c" | "--compat" | "-v" | "--verbose" => {
                other = true
            }
            "-h" | "--help" | "--version" => return Ok(None),
            o if o.starts_with('-') => {
                return Err(format!(
                    "lsdasd: Invalid option {o}\nTry 'lsdasd --help' for more information."
                ))
            }
            dev => {
                if !bus_id(dev) {
                    return Err(format!("lsdasd: ERROR: {dev} no device format"));
                }
                other = true;
            }
        }
        if long && uid {
            return Err("lsdasd: ERROR: invalid options specified".into());
        }
    }
    // -a with -u: the offline devices' uid rows are not modelled.
    let other = other || (all && uid);
    Ok((!other && !long).then_some(LinuxCommand::Dasd(DasdQuery::Lsdasd { uid, all })))
}

/// A device as lsdasd takes it: 1-4 hex digits, or css.ssid.devno (1-2, 1-2, 1-4 hex digits).
fn bus_id(s: &str) -> bool {
    let hex = |p: &str, n: usize| {
        !p.is_empty() && p.len() <= n && p.chars().all(|c| c.is_ascii_hexdigit())
    };
    match s.split('.').collect::<Vec<_>>().as_slice() {
        [d] => hex(d, 4),
        [c, g, d] => hex(c, 2) && hex(g, 2) && hex(d, 4),
        _ => false,
    }
}

/// sysstat 8's usage text, printed for an option iostat does not know.
const IOSTAT_USAGE: &str = "Usage: iostat [ options ] [ <interval> [ <count> ] ]\n\
Options are:\n\
[ -c ] [ -d ] [ -N ] [ -k | -m ] [ -t ] [ -V ] [ -x ]\n\
[ <device> [ <device> ... ] | ALL ] [ -p [ <device> | ALL ] ]";

/// iostat's trailing `interval [count]` (sysstat: numbers after the options and devices; an
/// interval of 0 is a single report, as none is). None: some other word (a device), or not
/// one or two positive numbers.
fn interval(words: &[&str]) -> Option<Option<(u32, Option<u32>)>> {
    let n: Vec<u32> = words
        .iter()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    match n.as_slice() {
        [] | [0] => Some(None),
        [i] => Some(Some((*i, None))),
        [i, c] if *i > 0 && *c > 0 => Some(Some((*i, Some(*c)))),
        _ => None,
    }
}

/// iostat: `-x` with `-d`, `-k` and `interval [count]` is simulated; devices, -c, -m, -N,
/// -p, -t are not; an unknown option prints the usage.
pub(super) fn iostat(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let (mut x, mut kb, mut other) = (false, false, false);
    let mut words = Vec::new();
    for a in args {
        if let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) {
            for c in flags.chars() {
                match c {
                    'x' => x = true,
                    'k' => kb = true,
                    'd' => {}
                    'c' | 'm' | 'N' | 't' | 'V' | 'p' | 'n' | 'h' => other = true,
                    _ => return Err(IOSTAT_USAGE.into()),
                }
            }
        } else {
            words.push(*a); // an interval, a count or a device
        }
    }
    let every = interval(&words);
    Ok((x && !other && every.is_some()).then(|| {
        LinuxCommand::Dasd(DasdQuery::Iostat {
            kb,
            sysstat11: false,
            every: every.flatten(),
        })
    }))
}

/// sysstat 11.7.3's usage text (iostat.c usage()), printed for an option it does not know.
const IOSTAT11_USAGE: &str = "Usage: iostat [ options ] [ <interval> [ <count> ] ]\n\
Options are:\n\
[ -c ] [ -d ] [ -h ] [ -k | -m ] [ -N ] [ -s ] [ -t ] [ -V ] [ -x ] [ -y ] [ -z ]\n\
[ -j { ID | LABEL | PATH | UUID | ... } ] [ --human ] [ -o JSON ]\n\
[ [ -H ] -g <group_name> ] [ -p [ <device> [,...] | ALL ] ]\n\
[ <device> [...] | ALL ]";

/// iostat of sysstat 11.7 (RHEL 8): `-x` with `-d`, `-k` and `interval [count]` is
/// simulated (kB is the default unit there); the other options it has and devices are not;
/// an unknown option letter, or -k with -m, prints the usage.
pub(super) fn iostat11(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let (mut x, mut k, mut m, mut other) = (false, false, false, false);
    let mut words = Vec::new();
    for a in args {
        match *a {
            "-p" | "-g" | "--human" | "-j" | "-o" => other = true,
            w if w.starts_with('-') && w.len() > 1 => {
                for c in w[1..].chars() {
                    match c {
                        'x' => x = true,
                        'k' => k = true,
                        'm' => m = true,
                        'd' => {}
                        'c' | 'H' | 'h' | 'N' | 'p' | 's' | 't' | 'y' | 'z' | 'V' => other = true,
                        _ => return Err(IOSTAT11_USAGE.into()),
                    }
                }
            }
            w => words.push(w), // an interval, a count or a device
        }
    }
    if k && m {
        return Err(IOSTAT11_USAGE.into());
    }
    let every = interval(&words);
    Ok((x && !m && !other && every.is_some()).then(|| {
        LinuxCommand::Dasd(DasdQuery::Iostat {
            kb: true,
            sysstat11: true,
            every: every.flatten(),
        })
    }))
}

fn bus(vdev: u16) -> String {
    format!("0.0.{vdev:04x}")
}

/// Bases sorted as lsdasd sorts them: by name length, then name; aliases (sort key "a")
/// first.
fn by_name(rows: &[DasdRow]) -> Vec<&DasdRow> {
    let mut v: Vec<&DasdRow> = rows.iter().collect();
    v.sort_by_key(|r| match &r.name {
        Some(n) => (n.len(), n.clone(), r.vdev),
        None => (1, "a".into(), r.vdev),
    });
    v
}

/// `lsdasd -a`'s rows of offline devices (zconf/lsdasd, s390-tools 2.9: `%-8s   offline`),
/// which sort before every online one (their sort key is empty), by bus ID.
pub fn offline_lines(mut vdevs: Vec<u16>) -> Vec<String> {
    vdevs.sort_unstable();
    vdevs
        .into_iter()
        .map(|v| format!("{:<8}   offline", bus(v)))
        .collect()
}

const RULE: &str = "==============================================================================";

pub fn respond(q: &DasdQuery, rows: &[DasdRow], span_ns: u64) -> Vec<String> {
    match q {
        DasdQuery::Sysfs { bus: b, attr, write } => {
            let dev = rows
                .iter()
                .find(|r| bus(r.vdev) == *b)
                .map(|r| (r.uid.as_str(), r.name.is_none()));
            super::ccwsysfs::respond(b, attr, write.as_deref(), dev)
        }
        // The driver's profiles: answered by the simulation (system/dasd_view.rs).
        DasdQuery::Statistics { .. }
        | DasdQuery::Tunedasd { .. }
        | DasdQuery::Debugfs { .. }
        | DasdQuery::Dasdstat(_) => vec![],
        DasdQuery::Lsdasd { uid: false, .. } => {
            let mut out = vec![
                "Bus-ID     Status      Name      Device  Type  BlkSz  Size      Blocks".into(),
                RULE.into(),
            ];
            for r in by_name(rows) {
                out.push(match &r.name {
                    None => format!("{:<8}   alias {:>28}", bus(r.vdev), "ECKD"),
                    Some(n) => format!(
                        "{:<8}   {:<6}{:<4}  {n:<8}  {:<2}:{:<2}   {:<4}  {:<4}   {:<8}  {}",
                        bus(r.vdev),
                        "active",
                        "",
                        DASD_MAJOR,
                        r.index * MINORS_PER_DISK,
                        "ECKD",
                        BLOCK_SIZE,
                        format!("{}MB", (r.blocks * BLOCK_SIZE) >> 20),
                        r.blocks
                    ),
                });
            }
            out
        }
        DasdQuery::Lsdasd { uid: true, .. } => {
            let mut v: Vec<&DasdRow> = rows.iter().collect();
            v.sort_by(|a, b| (a.uid.len(), &a.uid).cmp(&(b.uid.len(), &b.uid)));
            let mut out = vec!["Bus-ID    Name      UID".into(), RULE.into()];
            for r in v {
                let name = r.name.as_deref().unwrap_or("alias");
                out.push(format!("{:<8}  {name:<8}  {}", bus(r.vdev), r.uid));
            }
            out
        }
        DasdQuery::ProcDevices => rows
            .iter()
            .filter_map(|r| {
                // Aliases have no block device; zvmsim lists the bases (see the catalog note).
                let n = r.name.as_ref()?;
                Some(format!(
                    "{}(ECKD) at ({:>3}:{:>6}) is {n:<8}    : active at blocksize: {}, {} blocks, {} MB",
                    bus(r.vdev),
                    DASD_MAJOR,
                    r.index * MINORS_PER_DISK,
                    BLOCK_SIZE,
                    r.blocks,
                    (r.blocks * BLOCK_SIZE) >> 20
                ))
            })
            .collect(),
        DasdQuery::Iostat {
            sysstat11: true, ..
        } => iostat11_report(rows, span_ns),
        DasdQuery::Iostat { kb, .. } => iostat_report(rows, span_ns, *kb),
    }
}

/// sysstat 8's extended device report (`%-13s` and the `%8.2f`/`%7.2f`/`%6.2f` columns):
/// merges are not modelled (rrqm/s and wrqm/s 0).
fn iostat_report(rows: &[DasdRow], span_ns: u64, kb: bool) -> Vec<String> {
    let (rcol, wcol, div) = if kb {
        ("rkB/s", "wkB/s", 2.0)
    } else {
        ("rsec/s", "wsec/s", 1.0)
    };
    let mut out = vec![format!(
        "{:<13} {:>8} {:>8} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>7} {:>6} {:>6}",
        "Device:",
        "rrqm/s",
        "wrqm/s",
        "r/s",
        "w/s",
        rcol,
        wcol,
        "avgrq-sz",
        "avgqu-sz",
        "await",
        "svctm",
        "%util"
    )];
    let secs = span_ns.max(1) as f64 / 1e9;
    for r in rows.iter().filter(|r| r.name.is_some()) {
        let ios = (r.reads + r.writes) as f64;
        let per_io = |x: f64| if ios > 0.0 { x / ios } else { 0.0 };
        out.push(format!(
            "{:<13} {:>8.2} {:>8.2} {:>7.2} {:>7.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7.2} {:>6.2} {:>6.2}",
            r.name.as_deref().unwrap_or(""),
            0.0,
            0.0,
            r.reads as f64 / secs,
            r.writes as f64 / secs,
            r.read_sectors as f64 / div / secs,
            r.write_sectors as f64 / div / secs,
            per_io((r.read_sectors + r.write_sectors) as f64),
            r.queue_ns as f64 / span_ns.max(1) as f64,
            per_io((r.read_ticks_ns + r.write_ticks_ns) as f64 / 1e6),
            per_io(r.busy_ns as f64 / 1e6),
            (100.0 * r.busy_ns as f64 / span_ns.max(1) as f64).min(100.0),
        ));
    }
    out
}

/// sysstat 11.7.3's extended device report (write_disk_stat_header, write_plain_ext_stat:
/// `%-13s` and `" %W.2f"` columns; kB; every zero divisor gives 0.00; %util not capped).
/// Merges are not modelled (rrqm/s, wrqm/s, %rrqm, %wrqm 0).
fn iostat11_report(rows: &[DasdRow], span_ns: u64) -> Vec<String> {
    let mut out = vec![
        "Device            r/s     w/s     rkB/s     wkB/s   rrqm/s   wrqm/s  %rrqm  %wrqm r_await w_await aqu-sz rareq-sz wareq-sz  svctm  %util".to_string(),
    ];
    let secs = span_ns.max(1) as f64 / 1e9;
    let per = |x: f64, n: u64| if n > 0 { x / n as f64 } else { 0.0 };
    for r in rows.iter().filter(|r| r.name.is_some()) {
        let ios = r.reads + r.writes;
        let ms = |ns: u64| ns as f64 / 1e6;
        out.push(format!(
            "{:<13} {:>7.2} {:>7.2} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>6.2} {:>6.2} {:>7.2} {:>7.2} {:>6.2} {:>8.2} {:>8.2} {:>6.2} {:>6.2}",
            r.name.as_deref().unwrap_or(""),
            r.reads as f64 / secs,
            r.writes as f64 / secs,
            r.read_sectors as f64 / 2.0 / secs,
            r.write_sectors as f64 / 2.0 / secs,
            0.0,
            0.0,
            0.0,
            0.0,
            per(ms(r.read_ticks_ns), r.reads),
            per(ms(r.write_ticks_ns), r.writes),
            r.queue_ns as f64 / span_ns.max(1) as f64,
            per(r.read_sectors as f64, r.reads) / 2.0,
            per(r.write_sectors as f64, r.writes) / 2.0,
            per(ms(r.busy_ns), ios),
            100.0 * r.busy_ns as f64 / span_ns.max(1) as f64,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<DasdRow> {
        vec![
            DasdRow {
                vdev: 0x100,
                name: Some("dasda".into()),
                index: 0,
                blocks: 600_840,
                uid: "IBM.75000000000001.b900.00".into(),
                reads: 100,
                writes: 50,
                read_sectors: 800,
                write_sectors: 1600,
                read_ticks_ns: 100_000_000,
                write_ticks_ns: 200_000_000,
                queue_ns: 500_000_000,
                busy_ns: 250_000_000,
            },
            DasdRow {
                vdev: 0xb9e0,
                name: None,
                uid: "IBM.75000000000001.b900.xx".into(),
                ..Default::default()
            },
            DasdRow {
                vdev: 0x101,
                name: Some("dasdb".into()),
                index: 1,
                blocks: 288_000,
                uid: "IBM.75000000000001.b900.01".into(),
                ..Default::default()
            },
        ]
    }

    #[test]
    fn lsdasd_layout_as_s390_tools_prints_it() {
        let out = respond(
            &DasdQuery::Lsdasd {
                uid: false,
                all: false,
            },
            &rows(),
            1,
        );
        assert_eq!(
            out[0],
            "Bus-ID     Status      Name      Device  Type  BlkSz  Size      Blocks"
        );
        assert_eq!(out[2], "0.0.b9e0   alias                         ECKD");
        assert_eq!(
            out[3],
            "0.0.0100   active      dasda     94:0    ECKD  4096   2347MB    600840"
        );
        assert_eq!(
            out[4],
            "0.0.0101   active      dasdb     94:4    ECKD  4096   1125MB    288000"
        );
        let u = respond(
            &DasdQuery::Lsdasd {
                uid: true,
                all: false,
            },
            &rows(),
            1,
        );
        assert_eq!(u[2], "0.0.0100  dasda     IBM.75000000000001.b900.00");
        assert_eq!(u[4], "0.0.b9e0  alias     IBM.75000000000001.b900.xx");
    }

    #[test]
    fn proc_dasd_devices_line() {
        let out = respond(&DasdQuery::ProcDevices, &rows(), 1);
        assert_eq!(
            out,
            vec![
                "0.0.0100(ECKD) at ( 94:     0) is dasda       : active at blocksize: 4096, 600840 blocks, 2347 MB",
                "0.0.0101(ECKD) at ( 94:     4) is dasdb       : active at blocksize: 4096, 288000 blocks, 1125 MB",
            ]
        );
    }

    #[test]
    fn iostat_rates_over_the_span() {
        let out = respond(
            &DasdQuery::Iostat {
                kb: true,
                sysstat11: false,
                every: None,
            },
            &rows(),
            1_000_000_000,
        );
        assert_eq!(
            out[0],
            "Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await  svctm  %util"
        );
        assert_eq!(
            out[1],
            "dasda             0.00     0.00  100.00   50.00   400.00   800.00    16.00     0.50    2.00   1.67  25.00"
        );
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn bad_options_answer_as_the_tools_do() {
        assert_eq!(
            lsdasd(&["-x"]).unwrap_err(),
            "lsdasd: Invalid option -x\nTry 'lsdasd --help' for more information."
        );
        assert_eq!(
            lsdasd(&["0.0.zz00"]).unwrap_err(),
            "lsdasd: ERROR: 0.0.zz00 no device format"
        );
        assert_eq!(
            lsdasd(&["-l", "-u"]).unwrap_err(),
            "lsdasd: ERROR: invalid options specified"
        );
        assert!(iostat(&["-q"]).unwrap_err().starts_with("Usage: iostat"));
        let every = |a: &[&str]| match iostat(a).unwrap() {
            Some(LinuxCommand::Dasd(DasdQuery::Iostat { every, .. })) => Some(every),
            _ => None,
        };
        assert_eq!(every(&["-x", "5"]), Some(Some((5, None))));
        assert_eq!(every(&["-x", "-k", "10", "3"]), Some(Some((10, Some(3)))));
        assert_eq!(every(&["-x", "0"]), Some(None));
        // A device, a count without interval's sense, three numbers: not simulated.
        for a in [
            &["-x", "dasda"][..],
            &["-x", "5", "0"],
            &["-x", "1", "2", "3"],
        ] {
            assert_eq!(iostat(a).unwrap(), None, "{a:?}");
        }
        assert_eq!(
            iostat(&["-xk"]).unwrap(),
            Some(LinuxCommand::Dasd(DasdQuery::Iostat {
                kb: true,
                sysstat11: false,
                every: None,
            }))
        );
        // sysstat 11.7: kB by default, -m not simulated, -k with -m and an unknown letter
        // print its usage.
        let x11 = Some(LinuxCommand::Dasd(DasdQuery::Iostat {
            kb: true,
            sysstat11: true,
            every: None,
        }));
        assert_eq!(iostat11(&["-x"]).unwrap(), x11);
        assert_eq!(iostat11(&["-dxk"]).unwrap(), x11);
        assert_eq!(iostat11(&["-xm"]).unwrap(), None);
        assert_eq!(iostat11(&["-x", "-p", "ALL"]).unwrap(), None);
        for bad in [&["-xkm"][..], &["-q"]] {
            let e = iostat11(bad).unwrap_err();
            assert!(
                e.starts_with("Usage: iostat") && e.contains("[ -y ] [ -z ]"),
                "{e}"
            );
        }
    }

    #[test]
    fn iostat_of_sysstat_11_7_lines_up_under_its_header() {
        let q = DasdQuery::Iostat {
            kb: true,
            sysstat11: true,
            every: None,
        };
        let out = respond(&q, &rows(), 1_000_000_000);
        assert_eq!(
            out[1],
            "dasda          100.00   50.00    400.00    800.00     0.00     0.00   0.00   0.00    1.00    4.00   0.50     4.00    16.00   1.67  25.00"
        );
        // Every value ends where its heading ends (both 136 characters).
        let ends = |s: &str| {
            let b = s.as_bytes();
            (1..=b.len())
                .filter(|&i| b[i - 1] != b' ' && (i == b.len() || b[i] == b' '))
                .collect::<Vec<_>>()
        };
        assert_eq!(ends(&out[0])[1..], ends(&out[1])[1..]);
        assert_eq!(out.len(), 3);
    }
}
