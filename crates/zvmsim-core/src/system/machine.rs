//! The machine the workloads run on: CP (storage, page-ins, dispatcher), the real I/O, and each
//! guest's Linux. Workloads reach it only through the Linux surface (`linux::kernel`).

use std::collections::VecDeque;

use crate::config::params::ModelParams;
use crate::cp::dispatcher::Dispatcher;
use crate::cp::pagein::PageIns;
use crate::cp::storage::{Space, Storage};
use crate::engine::queue::EventQueue;
use crate::io::IoSystem;
use crate::linux::memory::LinuxMemory;
use crate::monitor::counters::{GuestCounters, SysCounters, VmMark};
use crate::monitor::Tally;

use super::Event;

/// A guest: its user ID, its Linux kernel's state, and its counters.
pub(crate) struct Guest {
    pub name: String,
    /// The guest's storage, as CP pages it.
    pub space: Space,
    pub mem: LinuxMemory,
    /// Linux's run queue: tasks ready for a virtual CPU.
    pub ready: VecDeque<u32>,
    pub idle_vcpus: Vec<u32>,
    /// Linux uses pfault handshaking (a host page fault in problem state blocks one task).
    pub pfault: bool,
    pub kswapd_task: u32,
    /// The cmm module's kernel thread (NONE until `modprobe cmm` first loads it).
    pub cmm_task: u32,
    /// The kblockd worker that reruns blk-mq's queues for the DASD driver (NONE until the
    /// driver first refuses a request).
    pub kblockd_task: u32,
    /// Guest CPU done in softirq (the DASD block tasklet and its spin), not yet run: the
    /// guest's next burst runs it first.
    pub linux_backlog: u64,
    /// The swap devices (device indices); slot s is on `swap_devs[s % len]` (equal priorities:
    /// Linux spreads pages round robin).
    pub swap_devs: Vec<u32>,
    /// Their Linux device names, for `swapon -s`.
    pub swap_names: Vec<String>,
    /// The swap areas `swapon` activated (by area of `mem.areas.extra`): where their slots
    /// are, and their device names.
    pub swap_x: Vec<super::swapdev::SwapTarget>,
    pub swap_x_names: Vec<String>,
    /// Block devices with a swap signature written by `mkswap` since IPL.
    pub swap_sigs: Vec<String>,
    pub vm_mark: VmMark,
    pub stats: GuestCounters,
    pub total: GuestCounters,
    /// The counts of the intervals closed since IPL (priming included); with `stats`, the
    /// guest's counts since it logged on (INDICATE USER, vmstat's first report).
    pub ipl: GuestCounters,
    /// Linux's load averages (1, 5 and 15 minutes) and when they were last brought up to
    /// date (`console_view.rs`).
    pub loadavg: [f64; 3],
    pub loadavg_at: u64,
    /// Transaction response times (ms) over the interval, and the longest in the window.
    pub resp: Tally,
    pub resp_max_ms: f64,
    /// CP's SET MEMASSIST setting for this user: the CMMA host assist (ESSA interpreted by
    /// the machine) is available to it while the system's ALL setting is ON too.
    pub memassist: bool,
    /// The guest's boot parameters ask for CMMA (`cmma=on`).
    pub cmma_requested: bool,
    /// Frames CMMA reclaimed for this guest up to the last interval's end.
    pub cmma_reclaimed_mark: u64,
    /// Linux's DASD device driver: online devices, their queues, the alias choice.
    pub dasd: crate::linux::dasd::DasdDriver,
    /// Linux's common I/O layer: the device blacklist and the DASDs it hides.
    pub cio: crate::linux::cio::Cio,
    /// The distribution's user space (which commands its shell has).
    pub userland: crate::linux::distro::Userland,
    /// LVM1 multipath physical volumes (`pvpath`).
    pub lvm: crate::linux::lvm::Lvm,
    /// The dcssblk file system mounted read-only (the apache workload's document root).
    pub dcss_mount: Option<crate::linux::filemap::DcssMount>,
    /// The database's files on a mounted DCSS file system (`files_on`), once mounted.
    pub db_files: Option<crate::linux::filemap::DcssMount>,
    /// The application server's program text on a mounted DCSS file system (`text.files_on`).
    pub text_files: Option<crate::linux::filemap::DcssMount>,
    /// The kernel's global spin locks (the dbench workload takes them).
    pub klocks: crate::linux::spinlock::KernelLocks,
}

/// What a Linux task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskKind {
    /// The guest's kswapd kernel thread.
    Kswapd,
    /// The cmm module's balloon thread (cmmthread).
    Cmm,
    /// A kblockd worker running blk-mq's hardware queues (`linux/blkmq.rs`).
    Kblockd,
    /// A workload's user (its index in the guest's workload).
    User(u32),
}

/// A Linux task, as the kernel keeps it.
pub(crate) struct Task {
    pub guest: u32,
    pub kind: TaskKind,
    /// When the current request (transaction) started.
    pub start: u64,
    /// When the task last blocked (for the response-time breakdown).
    pub blocked_at: u64,
    /// Pages read ahead with the task's pending swap read.
    pub swap_ahead: u32,
    /// The page-cache page a read or write system call of the task holds (NONE: none).
    pub pc_page: u32,
    /// The task's read into `pc_page` was started (it sleeps until the data is there).
    pub reading: bool,
    /// Pages of that read (a readahead window; 0: one).
    pub read_pages: u32,
    /// Asynchronous I/Os completed and not yet reaped (its aio completion ring).
    pub aio_done: u32,
    /// The task sleeps in io_getevents.
    pub aio_waiting: bool,
    /// The task sleeps uninterruptibly for a read (database, swap, or a host page-in with
    /// pfault): Linux's D state, which vmstat's `b` and the load average count.
    pub in_io: bool,
    /// Of those, a host page-in (CP counts the guest in page wait).
    pub in_pagein: bool,
}

impl Task {
    /// The workload's user index of a user task (0 for kernel threads).
    pub(crate) fn kind_user(&self) -> u32 {
        match self.kind {
            TaskKind::User(u) => u,
            _ => 0,
        }
    }

    pub(crate) fn new(guest: u32, kind: TaskKind) -> Self {
        Task {
            guest,
            kind,
            start: 0,
            blocked_at: 0,
            swap_ahead: 0,
            pc_page: crate::cp::storage::NONE,
            reading: false,
            read_pages: 0,
            aio_done: 0,
            aio_waiting: false,
            in_io: false,
            in_pagein: false,
        }
    }
}

pub(crate) struct Machine {
    pub now: u64,
    pub q: EventQueue<Event>,
    pub p: ModelParams,
    pub storage: Storage,
    pub io: IoSystem,
    /// The paging volumes' device indices, by paging volume.
    pub paging_dev: Vec<u32>,
    pub pageins: PageIns,
    pub disp: Dispatcher,
    pub guests: Vec<Guest>,
    pub tasks: Vec<Task>,
    pub sys: SysCounters,
    /// CP's SET PAGING ALIAS setting: paging I/O may run on SYSTEM HyperPAV aliases.
    pub paging_alias: bool,
    /// CP's SET MEMASSIST ... FOR ALL switch, ON at CP's IPL (QUERY MEMASSIST's usage
    /// notes): a guest has the assist at its IPL only if this and its own setting are ON.
    pub memassist_all: bool,
    /// CPU per I/O of Linux and CP (`[io.cost]`, its defaults without `[io]`).
    pub io_cost: crate::config::io::IoCost,
    /// Channel programs (guest, DASD request) the running burst's io_submit built; when the
    /// burst has run they move to its virtual CPU's list in `burst_ssch`.
    pub pending_ssch: Vec<(u32, u32, bool)>,
    /// Per virtual CPU, the channel programs its current burst built, started when that burst
    /// ends: the SSCH comes after the CPU that built it, not at another virtual CPU's end.
    pub burst_ssch: Vec<Vec<(u32, u32, bool)>>,
    /// Channel-program starts (guest, request) waiting for their device's completion path.
    pub deferred_ssch: Slots<(u32, u32)>,
    /// aio completions (guest, task) waiting for the block tasklet's pass.
    pub deferred_done: Slots<(u32, u32, u32, u32, u32)>,
    /// Virtual disks in storage, their limits and the lock their I/O passes.
    pub vdisk: super::vdisk::VdiskSystem,
    /// When the running burst's current step started (the burst's start plus the IFL time
    /// its earlier steps used): the time a VDISK I/O asks for the lock.
    pub burst_at: u64,
    /// The virtual CPU of the running burst (blk-mq's hardware context of an io_submit).
    pub burst_vcpu: u32,
    /// Scratch list of the channel programs a dispatch built on idle devices.
    pub mq_started: Vec<(u32, u32)>,
    /// CP's minidisk cache (cp/mdc.rs), and the origins of the reads it answered whose
    /// completion is due after CP's copy.
    pub mdc: crate::cp::mdc::Mdc,
    pub mdc_hits: Slots<crate::io::Origin>,
    /// z/VM 5.2 with `avail_walk_serialized`: until when a block page-in's walk of the
    /// available list holds the list's lock.
    pub avail_lock_until: u64,
}

/// A small slab: values parked under a slot number an event carries (events stay 8 bytes).
#[derive(Default)]
pub(crate) struct Slots<T: Copy + Default> {
    vals: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy + Default> Slots<T> {
    pub(crate) fn put(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.vals[i as usize] = v;
                i
            }
            None => {
                self.vals.push(v);
                (self.vals.len() - 1) as u32
            }
        }
    }

    pub(crate) fn take(&mut self, i: u32) -> T {
        self.free.push(i);
        self.vals[i as usize]
    }

    /// The values held (for checks: not fast).
    pub(crate) fn live(&self) -> Vec<T> {
        let mut free = vec![false; self.vals.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        (self.vals.iter().zip(free).filter(|(_, f)| !f))
            .map(|(v, _)| *v)
            .collect()
    }
}
