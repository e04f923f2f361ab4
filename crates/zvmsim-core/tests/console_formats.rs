//! The console's figures against the simulated counters they come from: vmstat's si/so and
//! bi against the guest's interval rows, QUERY ALLOC PAGE's pages in use against the guests'
//! pages on DASD, /proc/meminfo against the guest's configuration.

mod common;

use common::swapping;
use zvmsim_core::system::Simulation;

/// SMALL with guests that swap (as tests/linux_swap.rs), and the commands under test.
fn scenario() -> String {
    swapping()
        + r#"
[[console]]
at = "10s"
user = "LNX02"
linux = "vmstat 5 3"

[[console]]
at = "15s"
cp = "QUERY ALLOC PAGE"

[[console]]
at = "15s"
user = "LNX02"
linux = "cat /proc/meminfo"

[[console]]
at = "15s"
user = "LNX02"
linux = "free -t"

[[console]]
at = "15s"
user = "LNX02"
linux = "sysctl vm.min_free_kbytes"

[[console]]
at = "15s"
user = "LNX02"
linux = "uptime"

[[console]]
at = "15s"
user = "LNX02"
linux = "top -bn1"

[[console]]
at = "15s"
user = "LNX02"
linux = "cat /proc/loadavg"
"#
}

fn response(sim: &Simulation, command: &str) -> Vec<String> {
    let c = sim.console();
    let line = c
        .iter()
        .find(|l| l["command"] == command)
        .unwrap_or_else(|| panic!("{command} in the console log"));
    line["response"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn figures_come_from_the_simulated_counters() {
    let mut sim = Simulation::from_toml(&scenario(), "t.toml", None, &[]).expect("valid");
    sim.run();
    // vmstat 5 3 at 10 s: the headers, the report since boot, then [10 s, 15 s] and
    // [15 s, 20 s], the measured intervals 0 and 1 (priming ends at 5 s).
    let vm = response(&sim, "vmstat 5 3");
    assert_eq!(vm.len(), 5, "{vm:?}");
    assert_eq!(
        vm[0],
        "procs -----------memory---------- ---swap-- -----io---- -system-- -----cpu------"
    );
    assert_eq!(
        vm[1],
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
    );
    let rows: Vec<_> = sim
        .guest_rows()
        .iter()
        .filter(|r| r.guest == "LNX02")
        .collect();
    let mut swapped = 0.0;
    for (k, line) in vm[3..].iter().enumerate() {
        let f: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(f.len(), 17, "{line}");
        let row = rows[k + 1];
        assert_eq!(row.t_end_s, 15.0 + 5.0 * k as f64);
        let close = |got: u64, want: f64| (got as f64 - want).abs() <= 1.0;
        assert!(close(f[6], row.pswpin_per_s * 4.0), "si {line} {row:?}");
        assert!(close(f[7], row.pswpout_per_s * 4.0), "so {line} {row:?}");
        // bi: database reads (one page each) and swap reads, in KB.
        assert!(
            close(f[8], (row.db_reads_per_s + row.pswpin_per_s) * 4.0),
            "bi {line}"
        );
        // us + id = 100: the guest's CPU against its two virtual CPUs.
        assert_eq!(f[12] + f[14], 100, "{line}");
        assert!(close(f[12], row.cpu_pct / 2.0), "us {line} {}", row.cpu_pct);
        swapped += row.pswpin_per_s + row.pswpout_per_s;
    }
    assert!(swapped > 0.0, "the guest swaps in these intervals");
    // QUERY ALLOC PAGE at 15 s: the two 3390-3 volumes, the pages in use those the guests
    // have on DASD at the same moment (the interval row ending at 15 s).
    let q = response(&sim, "QUERY ALLOC PAGE");
    assert_eq!(q.len(), 8, "{q:?}");
    assert!(
        q[3].starts_with("PAG001 0300          0       3338 "),
        "{}",
        q[3]
    );
    let used = |l: &str| -> u64 { l.split_whitespace().nth(5).unwrap().parse().unwrap() };
    let on_dasd: u64 = sim
        .guest_rows()
        .iter()
        .filter(|r| r.t_end_s == 15.0)
        .map(|r| r.pages_dasd)
        .sum();
    assert_eq!(used(&q[3]) + used(&q[4]), on_dasd);
    let summary: u64 = q[6].split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(summary, on_dasd);
    assert_eq!(q[6].replace("SUMMARY", "USABLE "), q[7]);
    // /proc/meminfo: MemTotal is the guest's 128 MB less the kernel's 8 MB; 30 fields of
    // the 2.6.27 kernel in order.
    let mi = response(&sim, "cat /proc/meminfo");
    assert_eq!(mi.len(), 30);
    assert_eq!(mi[0], "MemTotal:       122880 kB");
    let names: Vec<&str> = mi.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(
        names[..8],
        [
            "MemTotal",
            "MemFree",
            "Buffers",
            "Cached",
            "SwapCached",
            "Active",
            "Inactive",
            "SwapTotal"
        ]
    );
    assert_eq!(names[24], "VmallocChunk");
    assert_eq!(mi[29], "Hugepagesize:       1024 kB");
    assert_eq!(mi[7], "SwapTotal:       32768 kB");
    // free -t: its Total line adds swap to memory.
    let fr = response(&sim, "free -t");
    assert_eq!(fr.len(), 5);
    let nums = |l: &str| -> Vec<u64> {
        l.split_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let (mem, swap, total) = (nums(&fr[1]), nums(&fr[3]), nums(&fr[4]));
    assert!(fr[4].starts_with("Total:  "));
    assert_eq!(mem[0], 122_880);
    for k in 0..3 {
        assert_eq!(total[k], mem[k] + swap[k]);
    }
    assert_eq!(
        response(&sim, "sysctl vm.min_free_kbytes"),
        ["vm.min_free_kbytes = 2048"]
    );
    let up = &response(&sim, "uptime")[0];
    assert!(
        up.starts_with(" 00:00:15 up 0 min,  1 user,  load average: "),
        "{up}"
    );
    // top -bn1 at the same moment: uptime's line, the tasks /proc/loadavg counts, the memory
    // free shows, then the blank line and the column header (no per-process rows).
    let top = response(&sim, "top -bn1");
    assert_eq!(top.len(), 7, "{top:?}");
    assert_eq!(top[0], format!("top -{up}"));
    let la = &response(&sim, "cat /proc/loadavg")[0];
    let (running, all) = la
        .split_whitespace()
        .nth(3)
        .unwrap()
        .split_once('/')
        .unwrap();
    assert!(
        top[1].starts_with(&format!("Tasks: {all:>3} total, {running:>3} running, ")),
        "{} / {la}",
        top[1]
    );
    assert!(
        top[2].starts_with("Cpu(s):") && top[2].ends_with("%st"),
        "{}",
        top[2]
    );
    assert_eq!(
        top[3],
        format!(
            "Mem:  {:>8}k total, {:>8}k used, {:>8}k free,        0k buffers",
            mem[0], mem[1], mem[2]
        )
    );
    assert!(top[4].starts_with("Swap:    32768k total, "), "{}", top[4]);
    assert_eq!(top[5], "");
    assert!(
        top[6].starts_with("  PID USER      PR  NI  VIRT  RES  SHR S %CPU %MEM    TIME+  COMMAND")
    );
}
