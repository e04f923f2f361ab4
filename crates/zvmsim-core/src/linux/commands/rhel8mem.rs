//! A RHEL 8 guest's memory commands: procps-ng 3.3.15's `free` and kernel 4.18's
//! `/proc/meminfo` (RHEL 8.1: 4.18.0-147). Facts read in procps-ng v3.3.15 (free.c,
//! proc/sysinfo.c) and in RHEL 8.1's kernel tree (fs/proc/meminfo.c, mm/page_alloc.c
//! si_mem_available and the watermark setup, mm/hugetlb.c, arch/s390/mm/pageattr.c).
//!
//! The figures come from the same memory view as SLES's (`procfs.rs`): no buffer cache, slab,
//! dirty pages or shared memory of its own, the kernel's memory outside MemTotal. MemAvailable
//! is the kernel's estimate: free pages less the zones' reserves, plus the page cache less
//! what the low watermarks keep. The zones of s390x are DMA (below 2 GB) and Normal.
//! Inferences: the kernel maps its storage with 1 MB frames (EDAT-1, DirectMap1M), and the
//! guest has the large-page facility (the hugetlb lines show).

use super::{LinuxCommand, LinuxView};

/// s390x's vmalloc area at 4.18's default: 128 GB less 2 GB of modules and 2 GB below
/// (arch/s390/kernel/setup.c), in kB.
const VMALLOC_TOTAL_KB: u64 = 130_023_424;
/// ZONE_DMA of s390x: the first 2 GB, in pages.
const DMA_PAGES: u64 = 1 << 19;
/// sysctl_lowmem_reserve_ratio for ZONE_DMA (256) and watermark_scale_factor (10 / 10000).
const LOWMEM_RESERVE_RATIO: u64 = 256;
const WATERMARK_SCALE: u64 = 10;

/// free's unit: the divisor of a kB value, or bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreeUnit {
    Bytes,
    Kib(u64),
}

const USAGE: &str = "
Usage:
 free [options]

Options:
 -b, --bytes         show output in bytes
     --kilo          show output in kilobytes
     --mega          show output in megabytes
     --giga          show output in gigabytes
     --tera          show output in terabytes
     --peta          show output in petabytes
 -k, --kibi          show output in kibibytes
 -m, --mebi          show output in mebibytes
 -g, --gibi          show output in gibibytes
     --tebi          show output in tebibytes
     --pebi          show output in pebibytes
 -h, --human         show human-readable output
     --si            use powers of 1000 not 1024
 -l, --lohi          show detailed low and high memory statistics
 -t, --total         show total for RAM + swap
 -s N, --seconds N   repeat printing every N seconds
 -c N, --count N     repeat printing N times, then exit
 -w, --wide          wide output

     --help     display this help and exit
 -V, --version  output version information and exit

For more details see free(1).";

/// procps-ng 3.3.15's `free`: -b, -k, -m, -g, -t and -w are simulated; the other options it
/// has are not; an unknown option prints getopt's line and the usage; two unit options are
/// refused with its own line.
pub(super) fn free(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let (mut unit, mut units, mut total, mut wide, mut other) =
        (FreeUnit::Kib(1), 0, false, false, false);
    // A long option as the short one it stands for ('U': a unit zvmsim does not print, 'X':
    // another option zvmsim does not simulate).
    let short = |long: &str| match long {
        "bytes" => Some('b'),
        "kibi" => Some('k'),
        "mebi" => Some('m'),
        "gibi" => Some('g'),
        "total" => Some('t'),
        "wide" => Some('w'),
        "seconds" => Some('s'),
        "count" => Some('c'),
        "kilo" | "mega" | "giga" | "tera" | "peta" | "tebi" | "pebi" => Some('U'),
        "human" | "si" | "lohi" | "help" | "version" => Some('X'),
        _ => None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (letters, long): (Vec<char>, Option<&str>) = match a.strip_prefix("--") {
            Some(l) => match short(l) {
                Some(c) => (vec![c], Some(l)),
                None => return Err(format!("free: unrecognized option '{a}'\n{USAGE}")),
            },
            None => match a.strip_prefix('-').filter(|f| !f.is_empty()) {
                Some(f) => (f.chars().collect(), None),
                None => continue, // free ignores other arguments
            },
        };
        for (i, &c) in letters.iter().enumerate() {
            let new_unit = match c {
                'b' => Some(FreeUnit::Bytes),
                'k' => Some(FreeUnit::Kib(1)),
                'm' => Some(FreeUnit::Kib(1 << 10)),
                'g' => Some(FreeUnit::Kib(1 << 20)),
                _ => None,
            };
            if let Some(u) = new_unit {
                (unit, units) = (u, units + 1);
                continue;
            }
            match c {
                'U' => (other, units) = (true, units + 1),
                't' => total = true,
                'w' => wide = true,
                'h' | 'l' | 'V' | 'X' => other = true,
                's' | 'c' => {
                    other = true;
                    // The rest of the word is the value; else the next argument.
                    if i + 1 == letters.len() && it.next().is_none() {
                        return Err(match long {
                            Some(l) => {
                                format!("free: option '--{l}' requires an argument\n{USAGE}")
                            }
                            None => format!("free: option requires an argument -- '{c}'\n{USAGE}"),
                        });
                    }
                    break;
                }
                c => return Err(format!("free: invalid option -- '{c}'\n{USAGE}")),
            }
        }
    }
    if units > 1 {
        return Err("free: Multiple unit options doesn't make sense.".into());
    }
    Ok((!other).then_some(LinuxCommand::FreeNg { unit, total, wide }))
}

/// procps-ng 3.3.15's vmstat usage (include/c.h USAGE_* and vmstat.c usage()).
const VMSTAT_USAGE: &str = "
Usage:
 vmstat [options] [delay [count]]

Options:
 -a, --active           active/inactive memory
 -f, --forks            number of forks since boot
 -m, --slabs            slabinfo
 -n, --one-header       do not redisplay header
 -s, --stats            event counter statistics
 -d, --disk             disk statistics
 -D, --disk-sum         summarize disk statistics
 -p, --partition <dev>  partition specific statistics
 -S, --unit <char>      define display unit
 -w, --wide             wide output
 -t, --timestamp        show timestamp

 -h, --help     display this help and exit
 -V, --version  output version information and exit

For more details see vmstat(8).";

/// procps-ng 3.3.15's `vmstat [delay [count]]` (getopt "afmnsdDp:S:wthV"): its options are
/// real but not simulated; an unknown one prints getopt's line and the usage; the numbers are
/// read with strtol_or_err, a delay below 1 is refused, a third number prints the usage. Its
/// rows are laid out as 3.2.7's with SUSE's `st` (procps.rs); cache would add SReclaimable,
/// which the model does not have.
pub(super) fn vmstat(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut nums: Vec<u32> = Vec::new();
    for a in args {
        if let Some(long) = a.strip_prefix("--") {
            let known = [
                "active",
                "forks",
                "slabs",
                "one-header",
                "stats",
                "disk",
                "disk-sum",
                "partition",
                "unit",
                "wide",
                "timestamp",
                "help",
                "version",
            ];
            if !known.contains(&long) {
                return Err(format!("vmstat: unrecognized option '{a}'\n{VMSTAT_USAGE}"));
            }
            return Ok(None);
        }
        if let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) {
            if let Some(c) = flags.chars().find(|c| !"afmnsdDpSwthV".contains(*c)) {
                return Err(format!("vmstat: invalid option -- '{c}'\n{VMSTAT_USAGE}"));
            }
            return Ok(None);
        }
        let n: i64 = a
            .parse()
            .map_err(|_| format!("vmstat: failed to parse argument: '{a}'"))?;
        if nums.is_empty() && n < 1 {
            return Err("vmstat: delay must be positive integer".into());
        }
        if nums.len() == 2 {
            return Err(VMSTAT_USAGE.trim_start_matches('\n').into());
        }
        nums.push(u32::try_from(n).map_err(|_| "vmstat: too large delay value".to_string())?);
    }
    Ok(Some(LinuxCommand::Vmstat {
        delay: nums.first().copied(),
        count: nums.get(1).copied(),
        procps_ng: true,
    }))
}

/// The zones' low watermarks summed, and totalreserve_pages (mm/page_alloc.c,
/// __setup_per_zone_wmarks and calculate_totalreserve_pages), for `managed` pages and
/// vm.min_free_kbytes of `min_free` pages.
fn watermarks(managed: u64, min_free: u64) -> (u64, u64) {
    let dma = managed.min(DMA_PAGES);
    let normal = managed - dma;
    let (mut low, mut reserve) = (0, 0);
    for (z, lowmem_reserve) in [(dma, normal / LOWMEM_RESERVE_RATIO), (normal, 0)] {
        if z == 0 {
            continue;
        }
        let min = min_free * z / managed.max(1);
        let tmp = (min >> 2).max(z * WATERMARK_SCALE / 10_000);
        low += min + tmp;
        reserve += (lowmem_reserve + min + 2 * tmp).min(z);
    }
    (low, reserve)
}

/// MemAvailable in pages (si_mem_available: no reclaimable slab in the model).
pub fn mem_available(v: &LinuxView) -> u64 {
    let (low, reserve) = watermarks(v.total, v.min_free);
    let pagecache = v.cached - (v.cached / 2).min(low);
    (v.free + pagecache).saturating_sub(reserve)
}

fn kb(pages: u64) -> u64 {
    pages * 4
}

/// Kernel 4.18's /proc/meminfo on s390x (`%-16s%8lu kB`, the hugetlb lines `%5lu`).
pub fn meminfo(v: &LinuxView) -> Vec<String> {
    let active_file = v.active.saturating_sub(v.anon).min(v.cached);
    let huge_free = 0;
    let fields: [(&str, u64); 40] = [
        ("MemTotal", kb(v.total)),
        ("MemFree", kb(v.free)),
        ("MemAvailable", kb(mem_available(v))),
        ("Buffers", 0),
        ("Cached", kb(v.cached)),
        ("SwapCached", kb(v.swap_cached)),
        ("Active", kb(v.anon + active_file)),
        ("Inactive", kb(v.cached - active_file)),
        ("Active(anon)", kb(v.anon)),
        ("Inactive(anon)", 0),
        ("Active(file)", kb(active_file)),
        ("Inactive(file)", kb(v.cached - active_file)),
        ("Unevictable", 0),
        ("Mlocked", 0),
        ("SwapTotal", kb(v.swap_total)),
        ("SwapFree", kb(v.swap_total - v.swap_used)),
        ("Dirty", 0),
        ("Writeback", 0),
        ("AnonPages", kb(v.anon)),
        ("Mapped", 0),
        ("Shmem", 0),
        ("KReclaimable", 0),
        ("Slab", 0),
        ("SReclaimable", 0),
        ("SUnreclaim", 0),
        ("KernelStack", 0),
        ("PageTables", 0),
        ("NFS_Unstable", 0),
        ("Bounce", 0),
        ("WritebackTmp", 0),
        ("CommitLimit", super::procfs::commit_limit_kb(v)),
        ("Committed_AS", kb(v.committed)),
        ("VmallocTotal", VMALLOC_TOTAL_KB),
        ("VmallocUsed", 0),
        ("VmallocChunk", 0),
        ("AnonHugePages", 0),
        ("ShmemHugePages", 0),
        ("ShmemPmdMapped", 0),
        ("CmaTotal", 0),
        ("CmaFree", 0),
    ];
    let line = |name: &str, value: u64| format!("{:<16}{value:>8} kB", format!("{name}:"));
    let mut out: Vec<String> = fields.iter().map(|&(n, x)| line(n, x)).collect();
    for name in [
        "HugePages_Total",
        "HugePages_Free",
        "HugePages_Rsvd",
        "HugePages_Surp",
    ] {
        out.push(format!("{:<19}{huge_free:>5}", format!("{name}:")));
    }
    out.push(line("Hugepagesize", 1024));
    out.push(line("Hugetlb", 0));
    // The identity map: the guest's storage (MemTotal and the kernel's own) in 1 MB frames.
    let storage_kb = kb(v.total + v.kernel);
    out.push(line("DirectMap4k", 0));
    out.push(line("DirectMap1M", storage_kb / 1024 * 1024));
    out.push(line("DirectMap2G", 0));
    out
}

/// procps-ng 3.3.15's free (`%-7s` labels, ` %11s` values).
pub fn free_lines(v: &LinuxView, unit: FreeUnit, total: bool, wide: bool) -> Vec<String> {
    let show = |pages: u64| match unit {
        FreeUnit::Bytes => (kb(pages) * 1024).to_string(),
        FreeUnit::Kib(d) => (kb(pages) / d).to_string(),
    };
    let row = |label: &str, cells: &[u64]| {
        let mut s = format!("{label:<7}");
        for &c in cells {
            s.push_str(&format!(" {:>11}", show(c)));
        }
        s
    };
    let used = v.total - v.free - v.cached;
    let avail = mem_available(v);
    let swap_free = v.swap_total - v.swap_used;
    let mut out = if wide {
        vec![
            "              total        used        free      shared     buffers       cache   available".to_string(),
            row("Mem:", &[v.total, used, v.free, 0, 0, v.cached, avail]),
        ]
    } else {
        vec![
            "              total        used        free      shared  buff/cache   available"
                .to_string(),
            row("Mem:", &[v.total, used, v.free, 0, v.cached, avail]),
        ]
    };
    out.push(row("Swap:", &[v.swap_total, v.swap_used, swap_free]));
    if total {
        out.push(row(
            "Total:",
            &[
                v.total + v.swap_total,
                used + v.swap_used,
                v.free + swap_free,
            ],
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> LinuxView {
        // An 8 GB guest: 2,000,000 pages, 1,200,000 cached, 500,000 anonymous, 16 MB min_free.
        LinuxView {
            total: 2_000_000,
            free: 300_000,
            cached: 1_200_000,
            anon: 500_000,
            active: 900_000,
            kernel: 97_152,
            min_free: 4096,
            swap_total: 524_288,
            swap_used: 1_000,
            ..Default::default()
        }
    }

    #[test]
    fn free_as_procps_ng_3_3_15_prints_it() {
        let v = view();
        let (low, reserve) = watermarks(v.total, v.min_free);
        // DMA: 524,288 pages, min 1,073, tmp 524; Normal: 1,475,712 pages, min 3,022, tmp 1,475.
        assert_eq!(
            (low, reserve),
            (1_073 + 524 + 3_022 + 1_475, 5_764 + 2_121 + 5_972)
        );
        let avail = 300_000 + 1_200_000 - low - reserve;
        assert_eq!(mem_available(&v), avail);
        let out = free_lines(&v, FreeUnit::Kib(1), true, false);
        assert_eq!(
            out[0],
            "              total        used        free      shared  buff/cache   available"
        );
        assert_eq!(
            out[1],
            format!(
                "Mem:        8000000     2000000     1200000           0     4800000 {:>11}",
                avail * 4
            )
        );
        assert_eq!(out[2], "Swap:       2097152        4000     2093152");
        assert_eq!(out[3], "Total:     10097152     2004000     3293152");
        assert_eq!(
            free_lines(&v, FreeUnit::Kib(1 << 20), false, true)[1]
                .split_whitespace()
                .nth(1),
            Some("7")
        );
        assert_eq!(
            free(&["-m", "-t"]).unwrap(),
            Some(LinuxCommand::FreeNg {
                unit: FreeUnit::Kib(1024),
                total: true,
                wide: false
            })
        );
        assert_eq!(free(&["-h"]).unwrap(), None);
        assert_eq!(
            free(&["-m", "-g"]).unwrap_err(),
            "free: Multiple unit options doesn't make sense."
        );
        let e = free(&["-x"]).unwrap_err();
        assert!(
            e.starts_with("free: invalid option -- 'x'\n\nUsage:\n free [options]"),
            "{e}"
        );
        assert!(e.ends_with("For more details see free(1)."));
        assert!(free(&["-s"])
            .unwrap_err()
            .starts_with("free: option requires an argument -- 's'"));
    }

    #[test]
    fn vmstat_forms_and_errors_of_procps_ng_3_3_15() {
        let vm = |d, c| {
            Some(LinuxCommand::Vmstat {
                delay: d,
                count: c,
                procps_ng: true,
            })
        };
        assert_eq!(vmstat(&[]).unwrap(), vm(None, None));
        assert_eq!(vmstat(&["5", "3"]).unwrap(), vm(Some(5), Some(3)));
        assert_eq!(vmstat(&["-w"]).unwrap(), None);
        assert_eq!(
            vmstat(&["0"]).unwrap_err(),
            "vmstat: delay must be positive integer"
        );
        assert_eq!(
            vmstat(&["abc"]).unwrap_err(),
            "vmstat: failed to parse argument: 'abc'"
        );
        let e = vmstat(&["-x"]).unwrap_err();
        assert!(
            e.starts_with("vmstat: invalid option -- 'x'\n\nUsage:\n vmstat [options]"),
            "{e}"
        );
        assert!(vmstat(&["1", "2", "3"]).unwrap_err().starts_with("Usage:"));
    }

    #[test]
    fn meminfo_of_4_18_on_s390x() {
        let m = meminfo(&view());
        assert_eq!(m[0], "MemTotal:        8000000 kB");
        assert!(m[2].starts_with("MemAvailable:    ") && m[2].ends_with(" kB"));
        assert_eq!(m[8], "Active(anon):    2000000 kB");
        assert_eq!(m[10], "Active(file):    1600000 kB");
        assert_eq!(m[11], "Inactive(file):  3200000 kB");
        assert_eq!(m[32], "VmallocTotal:   130023424 kB");
        assert_eq!(m[40], "HugePages_Total:       0");
        assert_eq!(m[44], "Hugepagesize:       1024 kB");
        assert_eq!(m.last().unwrap(), "DirectMap2G:           0 kB");
        assert_eq!(m.len(), 40 + 4 + 2 + 3);
        // Every kB line is 16 + 8 + 3 wide unless the value needs more.
        assert!(m
            .iter()
            .filter(|l| l.ends_with(" kB"))
            .all(|l| l.len() >= 27));
    }
}
