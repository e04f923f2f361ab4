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
    pub pgmajfault: u64,
    pub pgscan_direct: u64,
    pub pgscan_kswapd: u64,
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
            Some(p) => Err(format!("cat: {p}: No such file or directory")),
            None => Err("cat: reading standard input is not possible here".into()),
        },
        "vmstat" if words.len() == 1 => Ok(LinuxCommand::Vmstat),
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
            format!("AnonPages:    {:>10} kB", kib(v.anon)),
            format!("Slab:         {:>10} kB", kib(v.kernel)),
            format!("SwapTotal:    {:>10} kB", kib(v.swap_total)),
            format!("SwapFree:     {:>10} kB", kib(v.swap_total - v.swap_used)),
        ],
        LinuxCommand::Vmstat => vec![
            format!("nr_free_pages {}", v.free),
            format!("nr_file_pages {}", v.cached),
            format!("nr_anon_pages {}", v.anon),
            format!("pgmajfault {}", v.pgmajfault),
            format!("pgscan_kswapd {}", v.pgscan_kswapd),
            format!("pgscan_direct {}", v.pgscan_direct),
        ],
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
    }
}
