//! Linux shell commands typed in a guest: parsing and the output Linux prints, from the
//! simulated guest's memory state. A real command that zvmsim does not model answers
//! `not simulated by zvmsim: <command>`; an unknown command answers as bash does.

use super::cmm::CmmCommand;
use super::shell::{
    find_command, is_assignment, lex, redirection, split_redirections, Redirect, Word,
};

mod ccwsysfs;
mod cmm;
mod dasdcmds;
pub mod dasdstat;
mod procfs;
mod procps;
pub mod rhel8mem;
mod simulated;
pub mod swapcmds;
mod top;
pub mod tunedasd;
mod zdev;

pub use dasdcmds::{offline_lines, respond as dasd_respond, DasdQuery, DasdRow};
pub use procps::{decay_load, vmstat_line, VmstatSample};
pub use simulated::SIMULATED;
pub use zdev::{config_lines, ignored_lines, list_lines, BusIds, Spec, ZdevCommand, ZdevRow};

use super::distro::Userland;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinuxCommand {
    /// `free` with its unit flag (divisor in KiB) and `-t` (a Total line).
    Free {
        unit_kib: u64,
        total: bool,
    },
    Meminfo,
    /// `free` of procps-ng 3.3.15 (RHEL 8): its unit, `-t` and `-w`.
    FreeNg {
        unit: rhel8mem::FreeUnit,
        total: bool,
        wide: bool,
    },
    /// `cat /proc/meminfo` of kernel 4.18 (RHEL 8).
    Meminfo418,
    /// `cat /proc/vmstat`.
    ProcVmstat,
    /// `vmstat [delay [count]]` (procps 3.2): the first report averages since boot; with a
    /// delay, reports follow every `delay` seconds, `count` in all (without a count, until
    /// the run ends). The simulation samples the later ones.
    Vmstat {
        delay: Option<u32>,
        count: Option<u32>,
        /// procps-ng 3.3.15's header (RHEL 8; `commands/rhel8mem.rs`).
        procps_ng: bool,
    },
    /// `uptime`.
    Uptime,
    /// `top -b -n 1` (and `-bn1`, `-n1 -b`...): one batch frame, summary area and header.
    Top,
    /// `cat /proc/loadavg`.
    Loadavg,
    /// `swapon -s` or `cat /proc/swaps`.
    Swaps,
    /// `mkswap`, `swapon dev`, `swapoff dev`.
    Swap(swapcmds::SwapCommand),
    /// `cat /proc/cmdline`: the kernel parameter line the guest booted with.
    Cmdline,
    /// `sysctl vm.swappiness`, `cat /proc/sys/vm/swappiness`.
    ShowVm {
        tunable: VmTunable,
        sysctl: bool,
    },
    /// `sysctl -w vm.swappiness=N`, `echo N > /proc/sys/vm/swappiness`: the caller sets it.
    SetVm {
        tunable: VmTunable,
        value: u32,
        sysctl: bool,
    },
    /// The cmm module's commands (modprobe, rmmod, its sysctls): the simulation applies them
    /// to the guest's module and answers.
    Cmm(CmmCommand),
    /// The dcssblk driver's commands (saved segments as block devices) and the file-system
    /// commands on them: the simulation runs them.
    Dcss(super::dcssblk::DcssCommand),
    /// LVM1 multipath's `pvpath`: the simulation applies it to the guest's volumes.
    Pvpath(super::lvm::PvpathCommand),
    /// LVM1's tools and `/proc/lvm/global` (SLES 8): the simulation runs them.
    Lvm(super::lvm1::Lvm1Command),
    /// `cat /proc/subchannels` (kernel 2.4's channel subsystem driver).
    Subchannels,
    /// `lsdasd [-u]`, `cat /proc/dasd/devices`, `iostat -x`: the simulation prints them from
    /// the guest's DASD driver ([`dasdcmds::respond`]).
    Dasd(DasdQuery),
    /// s390-tools 2.x's `chzdev`, `lszdev`, `cio_ignore` and `/proc/cio_ignore` (RHEL 8):
    /// the simulation applies and answers them (`system/zdev.rs`).
    Zdev(ZdevCommand),
    /// A real command (see [`super::catalog`]) that zvmsim does not model, as typed.
    NotSimulated {
        command: String,
    },
}

/// The VM tunables the model uses, as sysctl and /proc/sys/vm name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmTunable {
    Swappiness,
    PageCluster,
    /// vm.min_free_kbytes: the zone's minimum free memory; low and high follow.
    MinFreeKbytes,
}

impl VmTunable {
    const ALL: [VmTunable; 3] = [
        VmTunable::Swappiness,
        VmTunable::PageCluster,
        VmTunable::MinFreeKbytes,
    ];

    pub fn key(self) -> &'static str {
        match self {
            VmTunable::Swappiness => "vm.swappiness",
            VmTunable::PageCluster => "vm.page-cluster",
            VmTunable::MinFreeKbytes => "vm.min_free_kbytes",
        }
    }

    fn path(self) -> String {
        format!("/proc/sys/vm/{}", &self.key()[3..])
    }

    /// Values the simulation accepts (Linux bounds swappiness to 0-100; page-cluster is
    /// simulated up to 8, reads of 256 pages).
    fn valid(self, v: u32) -> bool {
        match self {
            VmTunable::Swappiness => v <= 100,
            VmTunable::PageCluster => v <= 8,
            // proc_dointvec_minmax with a minimum of 0 (mm/page_alloc.c): any int.
            VmTunable::MinFreeKbytes => v <= i32::MAX as u32,
        }
    }

    fn by_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }

    fn by_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.path() == path)
    }
}

/// Linux's name of the guest's `i`-th DASD, as the dasd driver forms it (dasd_genhd.c): dasda
/// to dasdz, then dasdaa to dasdzz, dasdaaa to dasdzzz and dasdaaaa on.
pub fn dasd_name(i: u32) -> String {
    let letter = |k: u64| char::from(b'a' + (k % 26) as u8);
    let i = u64::from(i);
    let mut name = String::from("dasd");
    if i > 25 {
        if i > 701 {
            if i > 18_277 {
                name.push(letter((i - 18_278) / 17_576));
            }
            name.push(letter((i - 702) / 676));
        }
        name.push(letter((i - 26) / 26));
    }
    name.push(letter(i));
    name
}

/// The guest memory view these commands print (all in 4 KB pages).
#[derive(Debug, Clone, Default)]
pub struct LinuxView {
    /// MemTotal: the guest's storage less the kernel's reserved memory.
    pub total: u64,
    pub free: u64,
    pub cached: u64,
    pub anon: u64,
    pub kernel: u64,
    pub swap_total: u64,
    pub swap_used: u64,
    pub swap_cached: u64,
    pub pgmajfault: u64,
    pub pgscan_direct: u64,
    pub pgscan_kswapd: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    pub swappiness: u32,
    pub page_cluster: u32,
    /// Active swap partitions: name, size and use in pages, priority.
    pub swap_devices: Vec<(String, u64, u64, i32)>,
    /// The kernel parameter line (zipl.conf `parameters`), for /proc/cmdline.
    pub cmdline: String,
    /// vm.min_free_kbytes, in pages.
    pub min_free: u64,
    /// Anonymous memory the workloads allocated (Committed_AS).
    pub committed: u64,
    /// Page-cache pages with their referenced bit, and anonymous pages (Active).
    pub active: u64,
    /// Tasks: all, running or ready (R), sleeping uninterruptibly for a read (D).
    pub tasks: u64,
    pub running: u64,
    pub blocked: u64,
    /// Seconds since the guest's IPL (the run's start), and the time of day then.
    pub uptime_s: f64,
    pub time_of_day_s: f64,
    /// Load averages over 1, 5 and 15 minutes.
    pub loadavg: [f64; 3],
    /// The counters vmstat reads, now.
    pub sample: VmstatSample,
    pub vcpus: u32,
}

/// Parse one command line typed in a guest. A real command (see [`super::catalog`]) that
/// zvmsim does not model, or a modelled one in a form it does not model (options, pipes,
/// redirections), is [`LinuxCommand::NotSimulated`]; errors are the shell's or the command's.
pub fn parse(line: &str) -> Result<LinuxCommand, String> {
    parse_for(line, Userland::default())
}

/// [`parse`] in a guest of the distribution generation `u`: its shell finds its own commands
/// (`linux/distro.rs`), and a command whose output zvmsim prints in another distribution's
/// layout only is not simulated there.
pub fn parse_for(line: &str, u: Userland) -> Result<LinuxCommand, String> {
    let typed = line.trim_matches(super::shell::BLANKS);
    let parsed = match parse_in(line, u) {
        // A refusal worded as SLES words it, of a command RHEL 8 words otherwise.
        Err(_) if !u.words_errors_of(typed.split_whitespace().next().unwrap_or("")) => {
            return Ok(LinuxCommand::NotSimulated {
                command: typed.to_string(),
            })
        }
        r => r?,
    };
    let c = match (parsed, u) {
        (LinuxCommand::Meminfo, Userland::Rhel8) => LinuxCommand::Meminfo418,
        (c, _) => c,
    };
    Ok(if u.prints(&c) {
        c
    } else {
        LinuxCommand::NotSimulated {
            command: typed.to_string(),
        }
    })
}

/// Commands the parser dispatches by name that a guest of `u` does not have (the zdev tools
/// outside RHEL 8, `pvpath` on it): the shell's answer.
fn find_rhel8(cmd: &str, u: Userland) -> Result<(), String> {
    match (cmd, u.has_command(cmd)) {
        (_, Some(false)) | ("chzdev" | "lszdev", None) => super::shell::not_found(cmd),
        _ => Ok(()),
    }
}

/// The shell's lookup of `cmd` in a guest of `u`.
fn find(cmd: &str, u: Userland) -> Result<(), String> {
    match u.has_command(cmd) {
        Some(true) => Ok(()),
        Some(false) => super::shell::not_found(cmd),
        None => find_command(cmd),
    }
}

fn parse_in(line: &str, u: Userland) -> Result<LinuxCommand, String> {
    let typed = line.trim_matches(super::shell::BLANKS);
    let not_simulated = || LinuxCommand::NotSimulated {
        command: typed.to_string(),
    };
    let lexed = lex(typed)?;
    if lexed.commands.is_empty() {
        return Err("-bash: syntax error: empty command".into());
    }
    let program = |c: &Vec<Word>| {
        c.iter()
            .position(|w| !is_assignment(w) && redirection(w).is_none())
    };
    if lexed.compound || lexed.commands.len() > 1 {
        for c in &lexed.commands {
            if let Some(i) = program(c) {
                find(&c[i].text, u)?;
            }
        }
        return Ok(not_simulated());
    }
    let words = &lexed.commands[0];
    let Some(first) = program(words) else {
        return Ok(not_simulated()); // only variable assignments or redirections
    };
    let (args, redirects) = split_redirections(&words[first..])?;
    let Some((&cmd, args)) = args.split_first() else {
        return Ok(not_simulated());
    };
    find_rhel8(cmd, u)?;
    if u.kernel24() {
        if let Some(c) = super::lvm1::parse(cmd, args)?.map(LinuxCommand::Lvm) {
            return Ok(if first == 0 && redirects.is_empty() {
                c
            } else {
                not_simulated()
            });
        }
    }
    if let Some(c) = cmm::parse(cmd, args, &redirects)? {
        let plain = first == 0 && (redirects.is_empty() || cmd == "echo");
        return Ok(if plain { c } else { not_simulated() });
    }
    if let Some(c) = super::dcssblk::parse(cmd, args, &redirects)? {
        return Ok(if first == 0 {
            LinuxCommand::Dcss(c)
        } else {
            not_simulated()
        });
    }
    if let Some(q) = ccwsysfs::parse(cmd, args, &redirects) {
        match (&q, u) {
            // SLES 10/11's kernels have no DASD statistics in debugfs; 2.4 has no sysfs.
            (DasdQuery::Debugfs { dir, file, write }, Userland::Sles | Userland::Sles8) => {
                let path = format!("{}{dir}/{file}", ccwsysfs::DEBUGFS);
                return Err(super::shell::no_such_file(&path, write.is_some()));
            }
            (DasdQuery::Sysfs { bus, attr, write }, Userland::Sles8) => {
                let path = format!("{}{bus}/{attr}", ccwsysfs::CCW);
                return Err(super::shell::no_such_file(&path, write.is_some()));
            }
            _ => {}
        }
        return Ok(if first == 0 {
            LinuxCommand::Dasd(q)
        } else {
            not_simulated()
        });
    }
    if cmd == "echo" {
        return echo(args, &redirects).map(|c| c.unwrap_or_else(not_simulated));
    }
    let parsed = match cmd {
        "free" if u == Userland::Rhel8 => rhel8mem::free(args)?,
        "vmstat" if u == Userland::Rhel8 => rhel8mem::vmstat(args)?,
        "free" => procps::free(args)?,
        "cat" => cat(args, u)?,
        "vmstat" => procps::vmstat(args)?,
        "uptime" => procps::uptime(args)?,
        "top" => top::parse(args)?,
        "lsdasd" => dasdcmds::lsdasd(args)?,
        "chzdev" => zdev::chzdev(args)?,
        "lszdev" => zdev::lszdev(args)?,
        "cio_ignore" if u == Userland::Rhel8 => zdev::cio_ignore(args)?,
        "chccwdev" if u == Userland::Rhel8 => zdev::chccwdev(args)?,
        "iostat" if u == Userland::Rhel8 => dasdcmds::iostat11(args)?,
        "dasdstat" if u == Userland::Rhel8 => {
            dasdstat::parse(args)?.map(|d| LinuxCommand::Dasd(DasdQuery::Dasdstat(d)))
        }
        "iostat" => dasdcmds::iostat(args)?,
        "tunedasd" => tunedasd::parse(args)?,
        "pvpath" => Some(LinuxCommand::Pvpath(super::lvm::parse(args)?)),
        "swapon" => swapcmds::swapon(args)?,
        "swapoff" => swapcmds::swapoff(args)?,
        "mkswap" => swapcmds::mkswap(args)?,
        "sysctl" => sysctl(args)?,
        _ => {
            find(cmd, u)?;
            None
        }
    };
    // A modelled command whose output goes elsewhere, or with variables set, prints nothing
    // here: not simulated.
    Ok(match parsed {
        Some(c) if redirects.is_empty() && first == 0 => c,
        _ => not_simulated(),
    })
}

/// `cat` (coreutils): one of the modelled files is simulated; other files that exist are not.
fn cat(args: &[&str], u: Userland) -> Result<Option<LinuxCommand>, String> {
    const LONG: [&str; 9] = [
        "show-all",
        "number-nonblank",
        "show-ends",
        "number",
        "squeeze-blank",
        "show-tabs",
        "show-nonprinting",
        "help",
        "version",
    ];
    let mut files = Vec::new();
    let mut options = false;
    for a in args {
        if let Some(long) = a.strip_prefix("--") {
            if !long.is_empty() && !LONG.contains(&long) {
                return Err(format!("cat: unrecognized option '{a}'"));
            }
            options = true;
        } else if a.len() > 1 && a.starts_with('-') {
            if let Some(c) = a[1..].chars().find(|c| !"AbeEnstTuv".contains(*c)) {
                return Err(format!("cat: invalid option -- '{c}'"));
            }
            options = true;
        } else {
            files.push(*a);
        }
    }
    if let ([path], false) = (files.as_slice(), options) {
        match *path {
            "/proc/meminfo" => return Ok(Some(LinuxCommand::Meminfo)),
            "/proc/vmstat" => return Ok(Some(LinuxCommand::ProcVmstat)),
            "/proc/loadavg" => return Ok(Some(LinuxCommand::Loadavg)),
            "/proc/swaps" => return Ok(Some(LinuxCommand::Swaps)),
            "/proc/cmdline" => return Ok(Some(LinuxCommand::Cmdline)),
            "/proc/dasd/devices" => return Ok(Some(LinuxCommand::Dasd(DasdQuery::ProcDevices))),
            "/proc/cio_ignore" => return Ok(Some(LinuxCommand::Zdev(ZdevCommand::ProcList))),
            // Kernel 2.4's files (the catalog has 2.6's, which lack them).
            "/proc/subchannels" if u.kernel24() => return Ok(Some(LinuxCommand::Subchannels)),
            "/proc/lvm/global" if u.kernel24() => {
                return Ok(Some(LinuxCommand::Lvm(
                    super::lvm1::Lvm1Command::ProcGlobal,
                )))
            }
            p => {
                if let Some(tunable) = VmTunable::by_path(p) {
                    return Ok(Some(LinuxCommand::ShowVm {
                        tunable,
                        sysctl: false,
                    }));
                }
            }
        }
    }
    for f in files.iter().filter(|f| **f != "-") {
        match super::catalog::file(f) {
            Some(e) if e.access.readable() => {}
            Some(_) => return Err(format!("cat: {f}: Permission denied")),
            None => return Err(format!("cat: {f}: No such file or directory")),
        }
    }
    Ok(None) // reads standard input, several files, or a file zvmsim does not model
}

/// `sysctl` (procps 3.2): reading or setting vm.swappiness and vm.page-cluster is simulated;
/// other keys that exist, several keys, and -a/-p/-n... are not.
fn sysctl(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut keys = Vec::new();
    let mut other = false;
    let mut write = false;
    for a in args {
        match *a {
            "-w" => write = true,
            "-a" | "-A" | "-X" | "-p" => return Ok(None),
            "-n" | "-N" | "-e" | "-q" => other = true,
            o if o.len() > 1 && o.starts_with('-') => {
                return Err(format!("error: Unknown parameter \"{o}\""))
            }
            k => keys.push(k),
        }
    }
    if keys.is_empty() {
        return if other {
            Ok(None)
        } else {
            Err("sysctl: no variables specified".into())
        };
    }
    let mut simulated = None;
    for kv in &keys {
        let (key, value) = match kv.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (*kv, None),
        };
        // procps 3.2's WriteSetting: -w takes name=value only, and a value.
        match value {
            None if write => return Err(format!("error: \"{kv}\" must be of the form name=value")),
            Some("") => return Err(format!("error: Malformed setting \"{kv}\"")),
            _ => {}
        }
        if let Some(tunable) = VmTunable::by_key(key) {
            simulated = match value.map(|v| v.parse::<u32>()) {
                None => Some(LinuxCommand::ShowVm {
                    tunable,
                    sysctl: true,
                }),
                Some(Ok(value)) if tunable.valid(value) => Some(LinuxCommand::SetVm {
                    tunable,
                    value,
                    sysctl: true,
                }),
                Some(_) => {
                    return Err(format!("error: \"Invalid argument\" setting key \"{key}\""))
                }
            };
            continue;
        }
        match super::catalog::sysctl_file(key) {
            Some(f) if value.is_some() && !f.access.writable() => {
                return Err(format!("error: permission denied on key '{key}'"))
            }
            Some(_) => {}
            None => return Err(format!("error: \"{key}\" is an unknown key")),
        }
    }
    Ok(if keys.len() == 1 && !other {
        simulated
    } else {
        None
    })
}

/// `echo` (the bash builtin): writing a number to /proc/sys/vm/swappiness or page-cluster is
/// simulated; other writes to files that exist are not; printing is not.
fn echo(args: &[&str], redirects: &[Redirect]) -> Result<Option<LinuxCommand>, String> {
    let Some(out) = redirects.iter().rev().find(|r| r.stdout()) else {
        return Ok(None);
    };
    let values: Vec<&str> = args
        .iter()
        .copied()
        .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    let path = out.target.as_str();
    if let Some(tunable) = VmTunable::by_path(path) {
        return match values.as_slice() {
            [value] => match value.parse::<u32>() {
                Ok(v) if tunable.valid(v) => Ok(Some(LinuxCommand::SetVm {
                    tunable,
                    value: v,
                    sysctl: false,
                })),
                _ => Err(super::shell::ECHO_EINVAL.into()),
            },
            _ => Err(super::shell::ECHO_EINVAL.into()),
        };
    }
    match super::catalog::file(path) {
        Some(f) if f.access.writable() => Ok(None),
        Some(_) => Err(format!("-bash: {path}: Permission denied")),
        // Linux's /proc and /sys do not create files.
        None if super::catalog::in_kernel_fs(path) => {
            Err(format!("-bash: {path}: Permission denied"))
        }
        None => Ok(None),
    }
}

pub fn respond(cmd: &LinuxCommand, v: &LinuxView) -> Vec<String> {
    match cmd {
        LinuxCommand::Free { .. } | LinuxCommand::Vmstat { .. } | LinuxCommand::Uptime => {
            procps::respond(cmd, v)
        }
        LinuxCommand::ShowVm { tunable, sysctl } => {
            let value = match tunable {
                VmTunable::Swappiness => v.swappiness as u64,
                VmTunable::PageCluster => v.page_cluster as u64,
                VmTunable::MinFreeKbytes => v.min_free * 4,
            };
            if *sysctl {
                vec![format!("{} = {value}", tunable.key())]
            } else {
                vec![value.to_string()]
            }
        }
        LinuxCommand::SetVm {
            tunable,
            value,
            sysctl: true,
        } => {
            vec![format!("{} = {value}", tunable.key())]
        }
        LinuxCommand::SetVm { sysctl: false, .. } => vec![],
        // Answered by the simulation, which applies it to the guest's module.
        LinuxCommand::Cmm(_) | LinuxCommand::Dcss(_) => vec![],
        // Printed by the simulation from the guest's DASD driver (dasdcmds::respond).
        LinuxCommand::Dasd(_)
        | LinuxCommand::Pvpath(_)
        | LinuxCommand::Lvm(_)
        | LinuxCommand::Subchannels
        | LinuxCommand::Zdev(_) => vec![],
        LinuxCommand::Top => top::respond(v),
        LinuxCommand::FreeNg { unit, total, wide } => rhel8mem::free_lines(v, *unit, *total, *wide),
        LinuxCommand::Meminfo418 => rhel8mem::meminfo(v),
        LinuxCommand::NotSimulated { command } => {
            vec![format!("not simulated by zvmsim: {command}")]
        }
        _ => procfs::respond(cmd, v),
    }
}

#[cfg(test)]
mod tests;
