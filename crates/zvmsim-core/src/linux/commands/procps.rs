//! procps 3.2.7 (SLES 11) tools: free, vmstat, uptime; the load average they print.
//!
//! Layouts from procps 3.2.7: vmstat's two header lines and its row
//! `%2u %2u %6lu %6lu %6lu %6lu %4u %4u %5u %5u %4u %4u %2u %2u %2u %2u %2u` (with the steal
//! column s390 brought in), free's `%-7s %10Lu` columns, uptime's
//! ` hh:mm:ss up [n days, ]hh:mm|n min,  n user(s),  load average: a, b, c` (whattime.c).
//! Real outputs of those versions confirm them (docs/console.md).

use super::{LinuxCommand, LinuxView};

/// Time constants of Linux's load averages (kernel/sched.c: EXP_1, EXP_5, EXP_15 are
/// e^(-5s/1min), e^(-5s/5min), e^(-5s/15min)).
const LOAD_TAU_S: [f64; 3] = [60.0, 300.0, 900.0];

/// The load averages `dt_s` later, the number of running and uninterruptible tasks having
/// been `n` (the kernel's calc_load, `load = load * e + n * (1 - e)`).
pub fn decay_load(load: [f64; 3], dt_s: f64, n: f64) -> [f64; 3] {
    let mut out = load;
    for (k, tau) in LOAD_TAU_S.iter().enumerate() {
        let e = (-dt_s.max(0.0) / tau).exp();
        out[k] = load[k] * e + n * (1.0 - e);
    }
    out
}

/// The counters vmstat reads (since IPL), at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct VmstatSample {
    pub t_s: f64,
    pub pswpin: u64,
    pub pswpout: u64,
    /// KB read from and written to block devices (database and swap I/O).
    pub pgpgin_kb: u64,
    pub pgpgout_kb: u64,
    /// Virtual CPU time of the guest.
    pub cpu_ns: u64,
}

const HEAD1: &str =
    "procs -----------memory---------- ---swap-- -----io---- -system-- -----cpu------";
/// procps-ng 3.3.15's first header line (its cpu group one dash further left).
const HEAD1_NG: &str =
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----";
const HEAD2: &str =
    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st";

/// One vmstat row: the state of `v` now, the rates between `from` and `v.sample` (from IPL
/// for the first report). Interrupts, context switches, system time, I/O wait and steal are
/// not modelled (0): all the guest's CPU time shows as user time.
pub fn vmstat_line(v: &LinuxView, from: &VmstatSample) -> String {
    let now = &v.sample;
    let secs = (now.t_s - from.t_s).max(1e-9);
    let rate = |a: u64, b: u64| ((a - b) as f64 / secs) as u64;
    let cpu_s = (now.cpu_ns - from.cpu_ns) as f64 / 1e9;
    let us = (100.0 * cpu_s / (secs * v.vcpus.max(1) as f64))
        .round()
        .min(100.0) as u64;
    format!(
        "{:>2} {:>2} {:>6} {:>6} {:>6} {:>6} {:>4} {:>4} {:>5} {:>5} {:>4} {:>4} {:>2} {:>2} {:>2} {:>2} {:>2}",
        v.running,
        v.blocked,
        v.swap_used * 4,
        v.free * 4,
        0,
        v.cached * 4,
        rate(now.pswpin * 4, from.pswpin * 4),
        rate(now.pswpout * 4, from.pswpout * 4),
        rate(now.pgpgin_kb, from.pgpgin_kb),
        rate(now.pgpgout_kb, from.pgpgout_kb),
        0,
        0,
        us,
        0,
        100 - us,
        0,
        0
    )
}

/// `vmstat [delay [count]]`; other options are real but not simulated.
pub(super) fn vmstat(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut nums = Vec::new();
    for a in args {
        if a.starts_with('-') && a.len() > 1 {
            // -a -n -s -d -p -S -m -V...: real options zvmsim does not model.
            return if a[1..].chars().all(|c| "anmsdDpSVf".contains(c)) {
                Ok(None)
            } else {
                Err("usage: vmstat [-V] [-n] [delay [count]]".into())
            };
        }
        // procps reads the numbers with strtol and takes what parses (inference: garbage
        // gives the usage line).
        match a.parse::<u32>() {
            Ok(n) => nums.push(n),
            Err(_) => return Err("usage: vmstat [-V] [-n] [delay [count]]".into()),
        }
    }
    Ok(match nums.as_slice() {
        [] => Some(LinuxCommand::Vmstat {
            delay: None,
            count: None,
            procps_ng: false,
        }),
        // A delay of 0 is taken as one report (procps: "delay 0" means no repetition).
        [0] => Some(LinuxCommand::Vmstat {
            delay: None,
            count: None,
            procps_ng: false,
        }),
        [d] => Some(LinuxCommand::Vmstat {
            delay: Some(*d),
            count: None,
            procps_ng: false,
        }),
        [d, c] => Some(LinuxCommand::Vmstat {
            delay: (*d > 0).then_some(*d),
            count: Some(*c),
            procps_ng: false,
        }),
        _ => return Err("usage: vmstat [-V] [-n] [delay [count]]".into()),
    })
}

/// `uptime` takes no operands but -V.
pub(super) fn uptime(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    match args {
        [] => Ok(Some(LinuxCommand::Uptime)),
        ["-V"] => Ok(None),
        _ => Err("usage: uptime [-V]\n    -V    display version".into()),
    }
}

/// uptime's line (procps whattime.c). One user: the session typing the command.
pub(super) fn uptime_line(v: &LinuxView) -> String {
    let tod = v.time_of_day_s as u64;
    let mut s = format!(
        " {:02}:{:02}:{:02} up ",
        (tod / 3600) % 24,
        (tod / 60) % 60,
        tod % 60
    );
    let up = v.uptime_s as u64;
    let days = up / 86_400;
    if days > 0 {
        s += &format!("{days} day{}, ", if days == 1 { "" } else { "s" });
    }
    let (hours, minutes) = ((up / 3600) % 24, (up / 60) % 60);
    if hours > 0 {
        s += &format!("{hours:2}:{minutes:02}, ");
    } else {
        s += &format!("{minutes} min, ");
    }
    s += &format!("{:2} user,  load average: ", 1);
    s += &format!(
        "{:.2}, {:.2}, {:.2}",
        v.loadavg[0], v.loadavg[1], v.loadavg[2]
    );
    s
}

pub(super) fn respond(cmd: &LinuxCommand, v: &LinuxView) -> Vec<String> {
    let kib = |pages: u64| pages * 4;
    match cmd {
        LinuxCommand::Free { unit_kib, total } => {
            let u = |p: u64| kib(p) / unit_kib;
            let used = v.total - v.free;
            let mut out = vec![
                "             total       used       free     shared    buffers     cached".into(),
                format!(
                    "Mem:    {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                    u(v.total),
                    u(used),
                    u(v.free),
                    0,
                    0,
                    u(v.cached)
                ),
                format!(
                    "-/+ buffers/cache: {:>10} {:>10}",
                    u(used - v.cached),
                    u(v.free + v.cached)
                ),
                format!(
                    "Swap:   {:>10} {:>10} {:>10}",
                    u(v.swap_total),
                    u(v.swap_used),
                    u(v.swap_total - v.swap_used)
                ),
            ];
            if *total {
                out.push(format!(
                    "Total:  {:>10} {:>10} {:>10}",
                    u(v.total + v.swap_total),
                    u(used + v.swap_used),
                    u(v.free + v.swap_total - v.swap_used)
                ));
            }
            out
        }
        LinuxCommand::Vmstat { procps_ng, .. } => vec![
            if *procps_ng { HEAD1_NG } else { HEAD1 }.into(),
            HEAD2.into(),
            vmstat_line(v, &VmstatSample::default()),
        ],
        LinuxCommand::Uptime => vec![uptime_line(v)],
        _ => vec![],
    }
}

/// `free` (procps 3.2): -k, -m, -g are simulated; -b, -l, -o, -t, -s N, -V are not.
pub(super) fn free(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut unit_kib = 1;
    let mut total = false;
    let mut other = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(flags) = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !f.starts_with('-'))
        else {
            return Err(format!(
                "free: invalid option -- '{}'",
                a.trim_start_matches('-')
            ));
        };
        for (i, c) in flags.char_indices() {
            match c {
                'k' => unit_kib = 1,
                'm' => unit_kib = 1024,
                'g' => unit_kib = 1024 * 1024,
                't' => total = true,
                'b' | 'l' | 'o' | 'V' => other = true,
                's' => {
                    other = true;
                    if i + 1 == flags.len() && it.next().is_none() {
                        return Err("free: option requires an argument -- 's'".into());
                    }
                    break; // the rest of the word is the delay
                }
                c => return Err(format!("free: invalid option -- '{c}'")),
            }
        }
    }
    Ok((!other).then_some(LinuxCommand::Free { unit_kib, total }))
}
