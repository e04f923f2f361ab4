//! s390-tools' `dasdstat` (zconf/dasdstat of v2.9.0, the s390utils of RHEL 8.1): switches
//! the DASD driver's debugfs statistics on, off or back to zero, and prints them as tables
//! (`linux/dasdstats.rs` keeps the profiles). The script reads each statistics file as
//! `name values...` lines, so the tables here are built from the file's own lines.

use std::collections::HashMap;

use crate::linux::dasdstats::{IO, READ};

/// What `dasdstat` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatAction {
    Print,
    Enable,
    Disable,
    Reset,
    Help,
    Version,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dasdstat {
    pub action: StatAction,
    /// `-l`: the read and write sections too.
    pub long: bool,
    /// `-c N`: values per table row (16).
    pub columns: usize,
    /// `-w N`: the columns' least width.
    pub width: Option<usize>,
    /// `-V`.
    pub verbose: bool,
    /// The statistics named (directories of /sys/kernel/debug/dasd); none: all.
    pub stats: Vec<String>,
}

/// The widest `-c` and `-w` simulated.
const WIDEST: usize = 4096;

/// Where the script finds the statistics: debugfs, mounted at /sys/kernel/debug on RHEL 8.
pub const DIR: &str = "/sys/kernel/debug/dasd";

/// The script's option loop: each option in turn; `-h` and `-v` answer at once.
pub fn parse(args: &[&str]) -> Result<Option<Dasdstat>, String> {
    let mut d = Dasdstat {
        action: StatAction::Print,
        long: false,
        columns: 16,
        width: None,
        verbose: false,
        stats: Vec::new(),
    };
    let positive = |v: Option<&&str>| -> Result<usize, String> {
        let v = v.copied().unwrap_or("");
        match v.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("dasdstat: {v} is not a positive integer number")),
        }
    };
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-h" | "--help" => {
                d.action = StatAction::Help;
                return Ok(Some(d));
            }
            "-v" | "--version" => {
                d.action = StatAction::Version;
                return Ok(Some(d));
            }
            "-e" | "--enable" => d.action = StatAction::Enable,
            "-d" | "--disable" => d.action = StatAction::Disable,
            "-r" | "--reset" => d.action = StatAction::Reset,
            "-l" | "--long" => d.long = true,
            "-V" | "--verbose" => d.verbose = true,
            "-c" | "--columns" => {
                d.columns = positive(args.get(i + 1))?;
                i += 1;
            }
            "-w" | "--column-width" => {
                d.width = Some(positive(args.get(i + 1))?);
                i += 1;
            }
            "-i" | "--directory" => {
                // Another directory than debugfs's dasd is the guest's file system, which
                // zvmsim does not model.
                match args.get(i + 1).map(|p| p.trim_end_matches('/')) {
                    Some(DIR) => i += 1,
                    _ => return Ok(None),
                }
            }
            o if o.starts_with('-') => {
                return Err(format!(
                    "dasdstat: Invalid option {o}\nTry 'dasdstat --help' for more information."
                ))
            }
            s => d.stats.push(s.to_string()),
        }
        i += 1;
    }
    // Tables thousands of columns wide are not simulated (they would fill memory).
    if d.columns > WIDEST || d.width.is_some_and(|w| w > WIDEST) {
        return Ok(None);
    }
    Ok(Some(d))
}

/// `dasdstat -h`: the script's usage text.
pub fn usage() -> Vec<String> {
    let text = "Usage: dasdstat <options> [<statistic>]

<options> ::=
        -e|--enable
                Enable the statistics.
        -d|--disable
                Disable the statistics.
        -r|--reset
                Reset the statistics.
        -i|--directory <directory>
                Specify the directory in which the statistics can be found.
        -h|--help
                Print this text and exit.
        -l|--long
                Print more detailed information, e.g differentiate between
                read and write requests.
        -c|--columns <number>
                Format the output in a table with the given number of columns.
        -w|--column-width <width>
                Set the minimum width of the columns in the output table.
        -V|--verbose
                Print more verbose information.
        -v|--version
                Show tools and command version.

<statistic>
        Limit operation to one or more statistic.";
    text.lines().map(String::from).collect()
}

/// `dasdstat -v` (RHEL 8.1's s390utils 2.9.0: inference from its release date).
pub fn version() -> Vec<String> {
    vec![
        "dasdstat: version 2.9.0".into(),
        "Copyright IBM Corp. 2011, 2017".into(),
    ]
}

/// The histograms' column headings: powers of two (sizes and times), then 0 to 31 (queue).
const EXP: [&str; 32] = [
    "__<4", "___8", "__16", "__32", "__64", "_128", "_256", "_512", "__1k", "__2k", "__4k", "__8k",
    "_16k", "_32k", "_64k", "128k", "_256", "_512", "__1M", "__2M", "__4M", "__8M", "_16M", "_32M",
    "_64M", "128M", "256M", "512M", "__1G", "__2G", "__4G", "_>4G",
];
const LIN: [&str; 32] = [
    "___0", "___1", "___2", "___3", "___4", "___5", "___6", "___7", "___8", "___9", "__10", "__11",
    "__12", "__13", "__14", "__15", "__16", "__17", "__18", "__19", "__20", "__21", "__22", "__23",
    "__24", "__25", "__26", "__27", "__28", "__29", "__30", "__31",
];

/// A section's names in the file: the four totals, then its histograms as the driver names
/// them (`linux/dasdstats.rs`); the weighted ones are not printed.
struct Section {
    totals: [&'static str; 4],
    hists: &'static [&'static str],
}

const ALL: Section = Section {
    totals: ["total_requests", "total_sectors", "total_pav", "total_hpf"],
    hists: &IO,
};
const READS: Section = Section {
    totals: [
        "total_read_requests",
        "total_read_sectors",
        "total_read_pav",
        "total_read_hpf",
    ],
    hists: &READ,
};
const TITLES: [&str; 5] = [
    "Histogram of sizes (512B secs)",
    "Histogram of I/O times (microseconds)",
    "Histogram of I/O time till ssch",
    "Histogram of I/O time between ssch and irq",
    "Histogram of I/O time between irq and end",
];

/// `print_array`: each element right-aligned in `width`, `per` to a row.
fn rows<T: std::fmt::Display>(out: &mut Vec<String>, width: usize, per: usize, v: &[T]) {
    for chunk in v.chunks(per.max(1)) {
        out.push(chunk.iter().map(|x| format!("{x:>width$}")).collect());
    }
}

/// The date as coreutils' `date` prints it in RHEL's default locale and UTC:
/// `%a %b %e %H:%M:%S %Z %Y` (days to the civil date: H. Hinnant's civil_from_days).
pub fn date(unix_s: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = (unix_s / 86_400) as i64;
    let s = unix_s % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{} {} {d:>2} {:02}:{:02}:{:02} UTC {y}",
        DAYS[(days % 7) as usize],
        MONTHS[(m - 1) as usize],
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// One statistic as `print_format_standard` prints it, from its file's `lines`, then the
/// empty line `print_stat` adds; None while the statistic is off (the file says `disabled`).
pub fn table(name: &str, lines: &[String], d: &Dasdstat) -> Option<Vec<String>> {
    let vars: HashMap<&str, Vec<u64>> = lines
        .iter()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let k = w.next()?;
            Some((
                k,
                w.filter_map(|v| v.split('.').next()?.parse().ok())
                    .collect(),
            ))
        })
        .collect();
    let one = |k: &str| vars.get(k).and_then(|v| v.first().copied()).unwrap_or(0);
    let arr = |k: &str| vars.get(k).cloned().unwrap_or_default();
    let total = vars.get("total_requests")?.first().copied()?;
    let width = (total.to_string().len() + 1)
        .max(5)
        .max(d.width.unwrap_or(0));
    let per = d.columns;
    let line = "-".repeat(width * per);
    let mut out = vec![
        line.clone(),
        format!("statistics data for statistic: {name}"),
        format!("start time of data collection: {}", date(one("start_time"))),
        String::new(),
    ];
    // A section: its totals and histograms (write = all less read, as the script subtracts).
    let section = |out: &mut Vec<String>, kind: &str, t: [u64; 4], h: Vec<Vec<u64>>| {
        out.push(format!("{} dasd I/O {kind}requests", t[0]));
        out.push(format!("with {} sectors(512B each)", t[1]));
        out.push(format!("{} requests used a PAV alias device", t[2]));
        out.push(format!("{} requests used HPF", t[3]));
        rows(out, width, per, &EXP);
        for (title, v) in TITLES.iter().zip(&h) {
            out.push((*title).to_string());
            rows(out, width, per, v);
        }
        out.push("# of req in chanq at enqueuing (0..31) ".into());
        rows(out, width, per, &LIN);
        rows(out, width, per, &h[5]);
    };
    let of = |s: &Section| -> ([u64; 4], Vec<Vec<u64>>) {
        let shown = s.hists.iter().filter(|k| !k.ends_with("_weighted"));
        (s.totals.map(one), shown.map(|k| arr(k)).collect())
    };
    let (t, h) = of(&ALL);
    section(&mut out, "", t, h.clone());
    if d.long {
        let (rt, rh) = of(&READS);
        out.push(String::new());
        section(&mut out, "read ", rt, rh.clone());
        let wt = [0, 1, 2, 3].map(|i| t[i].wrapping_sub(rt[i]));
        let wh = h
            .iter()
            .zip(&rh)
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x.wrapping_sub(*y)).collect())
            .collect();
        out.push(String::new());
        section(&mut out, "write ", wt, wh);
    }
    out.push(line);
    out.push(String::new());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_as_the_script_takes_them() {
        let d = parse(&["-e", "dasda"]).unwrap().unwrap();
        assert_eq!(
            (d.action, d.stats.as_slice()),
            (StatAction::Enable, &["dasda".to_string()][..])
        );
        assert_eq!(parse(&["-l", "-c", "8"]).unwrap().unwrap().columns, 8);
        assert_eq!(
            parse(&["-x"]).unwrap_err(),
            "dasdstat: Invalid option -x\nTry 'dasdstat --help' for more information."
        );
        assert_eq!(
            parse(&["-c", "0"]).unwrap_err(),
            "dasdstat: 0 is not a positive integer number"
        );
        // -h answers before a later bad option; another directory is not simulated.
        assert_eq!(
            parse(&["-h", "-x"]).unwrap().unwrap().action,
            StatAction::Help
        );
        assert_eq!(parse(&["-i", "/tmp"]), Ok(None));
        assert_eq!(parse(&["-w", "9999999999", "dasda"]), Ok(None));
        assert!(parse(&["-i", "/sys/kernel/debug/dasd/"]).unwrap().is_some());
    }

    #[test]
    fn dates_as_date_prints_them() {
        assert_eq!(date(0), "Thu Jan  1 00:00:00 UTC 1970");
        assert_eq!(date(1_574_985_600 + 3_725), "Fri Nov 29 01:02:05 UTC 2019");
    }

    #[test]
    fn a_table_from_the_files_lines() {
        let mut lines = vec![
            "start_time 1574985600.000000000".to_string(),
            "total_requests 1234".into(),
            "total_sectors 9872".into(),
            "total_pav 300".into(),
            "total_hpf 1234".into(),
            "total_read_requests 1000".into(),
        ];
        for k in ALL.hists.iter().chain(READS.hists.iter()) {
            lines.push(format!("{k} {}", "1 ".repeat(32)));
        }
        let d = parse(&[]).unwrap().unwrap();
        let t = table("dasda", &lines, &d).expect("enabled");
        assert_eq!(t[0].len(), 5 * 16);
        assert_eq!(t[4], "1234 dasd I/O requests");
        assert_eq!(t[6], "300 requests used a PAV alias device");
        assert_eq!(
            t[8],
            " __<4 ___8 __16 __32 __64 _128 _256 _512 __1k __2k __4k __8k _16k _32k _64k 128k"
        );
        assert_eq!(t.len(), 4 + 4 + 2 + 5 * 3 + 1 + 2 + 2 + 2);
        assert!(table("dasda", &["disabled".into()], &d).is_none());
        let long = table("dasda", &lines, &Dasdstat { long: true, ..d }).unwrap();
        assert!(long.contains(&"234 dasd I/O write requests".to_string()));
        assert!(long.contains(&"1000 dasd I/O read requests".to_string()));
    }
}
