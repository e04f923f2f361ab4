//! Linux shell commands typed in a guest: parsing and the output Linux prints, from the
//! simulated guest's memory state. An unknown command answers as bash does.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinuxCommand {
    /// `free` with its unit flag (divisor in KiB).
    Free {
        unit_kib: u64,
    },
    Meminfo,
    Vmstat,
    /// `swapon -s` or `cat /proc/swaps`.
    Swaps,
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
}

/// The VM tunables the model uses, as sysctl and /proc/sys/vm name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmTunable {
    Swappiness,
    PageCluster,
}

impl VmTunable {
    const ALL: [VmTunable; 2] = [VmTunable::Swappiness, VmTunable::PageCluster];

    pub fn key(self) -> &'static str {
        match self {
            VmTunable::Swappiness => "vm.swappiness",
            VmTunable::PageCluster => "vm.page-cluster",
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
        }
    }

    fn by_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }

    fn by_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.path() == path)
    }
}

/// Linux's name of the guest's `i`-th DASD (0: dasda, 25: dasdz, 26: dasdaa).
pub fn dasd_name(i: u32) -> String {
    let letter = |k: u32| char::from(b'a' + k as u8);
    if i < 26 {
        format!("dasd{}", letter(i))
    } else {
        format!("dasd{}{}", letter(i / 26 - 1), letter(i % 26))
    }
}

/// The guest memory view these commands print (all in 4 KB pages).
pub struct LinuxView {
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
    /// Swap partitions and their size and use in pages (slots are spread round robin).
    pub swap_devices: Vec<String>,
}

pub fn parse(line: &str) -> Result<LinuxCommand, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&cmd) = words.first() else {
        return Err("-bash: syntax error: empty command".into());
    };
    match cmd {
        "free" => {
            let mut unit_kib = 1;
            for w in &words[1..] {
                unit_kib = match *w {
                    "-k" => 1,
                    "-m" => 1024,
                    "-g" => 1024 * 1024,
                    other => {
                        return Err(format!(
                            "free: invalid option -- '{}'",
                            other.trim_start_matches('-')
                        ))
                    }
                };
            }
            Ok(LinuxCommand::Free { unit_kib })
        }
        "cat" => match words.get(1) {
            Some(&"/proc/meminfo") if words.len() == 2 => Ok(LinuxCommand::Meminfo),
            Some(&"/proc/vmstat") if words.len() == 2 => Ok(LinuxCommand::Vmstat),
            Some(&"/proc/swaps") if words.len() == 2 => Ok(LinuxCommand::Swaps),
            Some(p) if words.len() == 2 && VmTunable::by_path(p).is_some() => {
                Ok(LinuxCommand::ShowVm {
                    tunable: VmTunable::by_path(p).expect("checked"),
                    sysctl: false,
                })
            }
            Some(p) => Err(format!("cat: {p}: No such file or directory")),
            None => Err("cat: reading standard input is not possible here".into()),
        },
        "vmstat" if words.len() == 1 => Ok(LinuxCommand::Vmstat),
        "swapon" => match &words[1..] {
            ["-s"] | ["--summary"] => Ok(LinuxCommand::Swaps),
            _ => Err("swapon: only `swapon -s` is simulated; swap devices are set up by the scenario (guests.linux.swap)".into()),
        },
        "sysctl" => {
            let args: Vec<&str> = words[1..].iter().copied().filter(|w| *w != "-w").collect();
            match args.as_slice() {
                [kv] => {
                    let (key, value) = match kv.split_once('=') {
                        Some((k, v)) => (k, Some(v)),
                        None => (*kv, None),
                    };
                    let Some(tunable) = VmTunable::by_key(key) else {
                        return Err(format!("error: \"{key}\" is an unknown key"));
                    };
                    match value.map(|v| v.parse::<u32>()) {
                        None => Ok(LinuxCommand::ShowVm { tunable, sysctl: true }),
                        Some(Ok(value)) if tunable.valid(value) => {
                            Ok(LinuxCommand::SetVm { tunable, value, sysctl: true })
                        }
                        Some(_) => Err(format!(
                            "error: \"Invalid argument\" setting key \"{key}\""
                        )),
                    }
                }
                [_, _, ..] => Err("sysctl: give one key at a time here".into()),
                [] => Err("sysctl: no variables specified".into()),
            }
        }
        "echo" => match &words[1..] {
            [value, ">", path] if VmTunable::by_path(path).is_some() => {
                let tunable = VmTunable::by_path(path).expect("checked");
                match value.parse::<u32>() {
                    Ok(v) if tunable.valid(v) => Ok(LinuxCommand::SetVm {
                        tunable,
                        value: v,
                        sysctl: false,
                    }),
                    _ => Err("-bash: echo: write error: Invalid argument".into()),
                }
            }
            [_, ">", path] => Err(format!("-bash: {path}: Permission denied")),
            _ => Err(
                "echo: only `echo N > /proc/sys/vm/swappiness` (or page-cluster) is simulated"
                    .into(),
            ),
        },
        _ => Err(format!("-bash: {cmd}: command not found")),
    }
}

pub fn respond(cmd: &LinuxCommand, v: &LinuxView) -> Vec<String> {
    let kib = |pages: u64| pages * 4;
    match cmd {
        LinuxCommand::Free { unit_kib } => {
            let u = |p: u64| kib(p) / unit_kib;
            let used = v.total - v.free;
            vec![
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
            ]
        }
        LinuxCommand::Meminfo => vec![
            format!("MemTotal:     {:>10} kB", kib(v.total)),
            format!("MemFree:      {:>10} kB", kib(v.free)),
            format!("Cached:       {:>10} kB", kib(v.cached)),
            format!("SwapCached:   {:>10} kB", kib(v.swap_cached)),
            format!("AnonPages:    {:>10} kB", kib(v.anon)),
            format!("Slab:         {:>10} kB", kib(v.kernel)),
            format!("SwapTotal:    {:>10} kB", kib(v.swap_total)),
            format!("SwapFree:     {:>10} kB", kib(v.swap_total - v.swap_used)),
        ],
        LinuxCommand::Vmstat => vec![
            format!("nr_free_pages {}", v.free),
            format!("nr_file_pages {}", v.cached),
            format!("nr_anon_pages {}", v.anon),
            format!("pswpin {}", v.pswpin),
            format!("pswpout {}", v.pswpout),
            format!("pgmajfault {}", v.pgmajfault),
            format!("pgscan_kswapd {}", v.pgscan_kswapd),
            format!("pgscan_direct {}", v.pgscan_direct),
        ],
        LinuxCommand::Swaps => {
            let mut out = vec![
                "Filename                                Type            Size    Used    Priority"
                    .to_string(),
            ];
            let n = v.swap_devices.len().max(1) as u64;
            for (k, dev) in v.swap_devices.iter().enumerate() {
                // Slots are spread round robin: device k has every n-th one.
                let share = |total: u64| total / n + u64::from((k as u64) < total % n);
                out.push(format!(
                    "{:<40}partition       {:<8}{:<8}-{}",
                    dev,
                    kib(share(v.swap_total)),
                    kib(share(v.swap_used)),
                    k + 1
                ));
            }
            out
        }
        LinuxCommand::ShowVm { tunable, sysctl } => {
            let value = match tunable {
                VmTunable::Swappiness => v.swappiness,
                VmTunable::PageCluster => v.page_cluster,
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(
            parse("free -m").unwrap(),
            LinuxCommand::Free { unit_kib: 1024 }
        );
        assert_eq!(parse("cat /proc/meminfo").unwrap(), LinuxCommand::Meminfo);
        assert_eq!(parse("frob").unwrap_err(), "-bash: frob: command not found");
        assert!(parse("free -z").unwrap_err().contains("invalid option"));
        assert!(parse("cat /proc/nothing")
            .unwrap_err()
            .contains("No such file"));
        assert_eq!(
            parse("sysctl -w vm.swappiness=10").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::Swappiness,
                value: 10,
                sysctl: true
            }
        );
        assert_eq!(
            parse("echo 0 > /proc/sys/vm/swappiness").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::Swappiness,
                value: 0,
                sysctl: false
            }
        );
        assert!(parse("sysctl vm.swappiness=101")
            .unwrap_err()
            .contains("Invalid argument"));
        assert!(parse("echo x > /proc/sys/vm/swappiness")
            .unwrap_err()
            .contains("write error"));
        assert!(parse("sysctl vm.nosuch=1")
            .unwrap_err()
            .contains("unknown key"));
        assert_eq!(parse("swapon -s").unwrap(), LinuxCommand::Swaps);
        assert_eq!(
            parse("sysctl vm.page-cluster=0").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::PageCluster,
                value: 0,
                sysctl: true
            }
        );
        assert_eq!(
            parse("cat /proc/sys/vm/page-cluster").unwrap(),
            LinuxCommand::ShowVm {
                tunable: VmTunable::PageCluster,
                sysctl: false
            }
        );
        assert!(parse("sysctl vm.page-cluster=9")
            .unwrap_err()
            .contains("Invalid argument"));
        assert_eq!(dasd_name(0), "dasda");
        assert_eq!(dasd_name(8), "dasdi");
        assert_eq!(dasd_name(27), "dasdab");
    }
}
