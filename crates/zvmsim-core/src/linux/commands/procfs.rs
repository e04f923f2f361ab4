//! The /proc files the model answers: meminfo, vmstat, swaps, cmdline, loadavg.
//!
//! /proc/meminfo has the fields of the 2.6.27 kernel (SLES 11; fs/proc/meminfo.c), in their
//! order and `%-14s%8lu kB` layout, less those of configurations s390 does not build
//! (HIGHMEM, QUICKLIST); the hugetlb lines follow (mm/hugetlb.c). Figures the model does not
//! keep show what follows from it: no buffer cache, dirty or writeback pages (the database
//! writes are direct), no slab, page tables, NFS or bounce pages apart from the kernel's
//! reserved memory (outside MemTotal), no huge pages.

use super::{LinuxCommand, LinuxView};

/// s390x's vmalloc area: 128 GB (arch/s390/include/asm/pgtable.h of 2.6.27, VMALLOC_END -
/// VMALLOC_START). vmalloc use is not modelled: the whole area is shown free.
const VMALLOC_TOTAL_KB: u64 = 128 << 20;
/// s390's large page: 1 MB (HPAGE_SHIFT 20).
const HUGEPAGE_KB: u64 = 1024;
/// vm.overcommit_ratio's default, 50 (mm/mmap.c): CommitLimit = RAM * 50% + swap.
const OVERCOMMIT_RATIO: u64 = 50;

fn kb(pages: u64) -> u64 {
    pages * 4
}

/// CommitLimit (mm/util.c, vm_commit_limit): RAM at vm.overcommit_ratio plus swap, in kB.
pub(super) fn commit_limit_kb(v: &LinuxView) -> u64 {
    kb(v.total * OVERCOMMIT_RATIO / 100 + v.swap_total)
}

pub(super) fn meminfo(v: &LinuxView) -> Vec<String> {
    let lru = v.anon + v.cached;
    let fields: [(&str, u64); 25] = [
        ("MemTotal", kb(v.total)),
        ("MemFree", kb(v.free)),
        ("Buffers", 0),
        ("Cached", kb(v.cached)),
        ("SwapCached", kb(v.swap_cached)),
        ("Active", kb(v.active.min(lru))),
        ("Inactive", kb(lru - v.active.min(lru))),
        ("SwapTotal", kb(v.swap_total)),
        ("SwapFree", kb(v.swap_total - v.swap_used)),
        ("Dirty", 0),
        ("Writeback", 0),
        ("AnonPages", kb(v.anon)),
        ("Mapped", 0),
        ("Slab", 0),
        ("SReclaimable", 0),
        ("SUnreclaim", 0),
        ("PageTables", 0),
        ("NFS_Unstable", 0),
        ("Bounce", 0),
        ("WritebackTmp", 0),
        ("CommitLimit", commit_limit_kb(v)),
        ("Committed_AS", kb(v.committed)),
        ("VmallocTotal", VMALLOC_TOTAL_KB),
        ("VmallocUsed", 0),
        ("VmallocChunk", VMALLOC_TOTAL_KB),
    ];
    let mut out: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("{:<14}{value:>8} kB", format!("{name}:")))
        .collect();
    for name in [
        "HugePages_Total",
        "HugePages_Free",
        "HugePages_Rsvd",
        "HugePages_Surp",
    ] {
        out.push(format!("{:<18}{:>5}", format!("{name}:"), 0));
    }
    out.push(format!("Hugepagesize:   {HUGEPAGE_KB:>8} kB"));
    out
}

pub(super) fn respond(cmd: &LinuxCommand, v: &LinuxView) -> Vec<String> {
    match cmd {
        LinuxCommand::Meminfo => meminfo(v),
        LinuxCommand::ProcVmstat => vec![
            format!("nr_free_pages {}", v.free),
            format!("nr_file_pages {}", v.cached),
            format!("nr_anon_pages {}", v.anon),
            format!("pswpin {}", v.pswpin),
            format!("pswpout {}", v.pswpout),
            format!("pgmajfault {}", v.pgmajfault),
            format!("pgscan_kswapd {}", v.pgscan_kswapd),
            format!("pgscan_direct {}", v.pgscan_direct),
        ],
        // "%lu.%02lu %lu.%02lu %lu.%02lu %ld/%d %d" (fs/proc/loadavg.c): the running and all
        // tasks, and the last PID handed out (the model's tasks are numbered from 1).
        LinuxCommand::Loadavg => vec![format!(
            "{:.2} {:.2} {:.2} {}/{} {}",
            v.loadavg[0], v.loadavg[1], v.loadavg[2], v.running, v.tasks, v.tasks
        )],
        LinuxCommand::Swaps => {
            let mut out = vec![
                "Filename                                Type            Size    Used    Priority"
                    .to_string(),
            ];
            for (dev, size, used, prio) in &v.swap_devices {
                out.push(format!(
                    "{:<40}partition       {:<8}{:<8}{}",
                    dev,
                    kb(*size),
                    kb(*used),
                    prio
                ));
            }
            out
        }
        // The line as zipl passed it (zvmsim adds nothing of its own to it).
        LinuxCommand::Cmdline => vec![v.cmdline.clone()],
        _ => vec![],
    }
}
