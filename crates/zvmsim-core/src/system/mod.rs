//! The `Simulation`: built from a scenario, stepped with `step_until(t)`. The IFLs dispatch the
//! guests' virtual CPUs (FIFO dispatch list, CP time slice); a virtual CPU runs Linux tasks
//! (transactions, kswapd) in bursts that end when the task finishes, blocks (a database read,
//! or a host page fault resolved from DASD) or the slice ends. Memory references are made by
//! the tasks as they run and go through the guest's Linux memory and CP's real storage.

use std::collections::VecDeque;

use serde_json::{json, Map, Value};

use crate::io::dasd::{Dasd, IoReq};
use crate::engine::queue::EventQueue;
use crate::engine::rng::{Stream, Zipf, RNG_ALGORITHM};
use crate::linux::memory::{Anon, LinuxMemory};
use crate::config::params::ModelParams;
use crate::config::scenario::{self, DasdUse, Scenario, ScenarioError};
use crate::cp::storage::{Access, CpWork, Owner, SpaceId, SpaceSpec, Storage, Touch, NONE};
use crate::config::units::NS_PER_S;
use crate::workload::database::{Database, Mix};

// Event kinds (top byte of the payload).
const EV_SUBMIT: u64 = 1;
const EV_BURST_END: u64 = 2;
const EV_IO_DONE: u64 = 3;
const EV_INTERVAL: u64 = 4;
const EV_CONSOLE: u64 = 5;
const EV_PRIMING_END: u64 = 6;

// I/O completion tokens (top byte).
const IO_DB_READ: u64 = 1;
const IO_DB_WRITE: u64 = 2;
const IO_PAGE_IN: u64 = 3;
const IO_PAGE_OUT: u64 = 4;
const IO_SWAP_READ: u64 = 5;
const IO_SWAP_WRITE: u64 = 6;

/// Waiter on a page-in that is a blocked virtual CPU (no pfault) rather than a task.
const VCPU_WAITER: u32 = 1 << 31;
/// Waiter on a page-in that is a Linux swap write (the low bits: its device): CP must bring
/// the page in before the channel program can read it (double paging).
const SWAPW_WAITER: u32 = 1 << 30;

// Random stream numbers, one per component.
const STREAM_DASD: u64 = 1;
const STREAM_GUEST: u64 = 1000;

#[inline]
fn ev(kind: u64, idx: u64) -> u64 {
    (kind << 56) | idx
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    None,
    DbRead {
        vol: u32,
        task: u32,
    },
    /// `sync`: the fault happened in kernel mode (or pfault is off): the virtual CPU waits.
    PageIn {
        group: u32,
        task: u32,
        sync: bool,
    },
    /// A Linux major fault: the task waits for the read from its swap device.
    SwapIn {
        dev: u32,
        task: u32,
    },
}

struct Task {
    guest: u32,
    kswapd: bool,
    kind: u8,
    refs_left: u32,
    cpu_left: u64,
    phase: u8,
    block: u32,
    buf: u32,
    old_block: u32,
    pc_page: u32,
    start: u64,
    /// When the task last blocked (for the response-time breakdown).
    blocked_at: u64,
    /// Pages read ahead with the task's pending swap read.
    swap_ahead: u32,
}

struct Vcpu {
    guest: u32,
    task: u32,
    pending: Block,
    /// Blocked in a host page fault without pfault: not dispatchable.
    blocked: bool,
    slice_used: u64,
}

#[derive(Default, Clone)]
struct GuestStats {
    tx: u64,
    resp_ns: u128,
    cpu_ns: u64,
    cp_ns: u64,
    db_reads: u64,
    db_writes: u64,
    page_faults_dasd: u64,
    page_faults_xstor: u64,
    /// Time transactions spent waiting for database reads and for host page-ins.
    wait_db_ns: u64,
    wait_fault_ns: u64,
    wait_swap_ns: u64,
    /// Linux swap-outs of pages CP had paged out and must bring back first.
    double_paging: u64,
    /// Linux counters over the interval (/proc/vmstat differences).
    pgmajfault: u64,
    pswpin: u64,
    pswpout: u64,
    pgscan_direct: u64,
    pgscan_kswapd: u64,
}

impl GuestStats {
    fn add(&mut self, s: &GuestStats) {
        self.tx += s.tx;
        self.resp_ns += s.resp_ns;
        self.cpu_ns += s.cpu_ns;
        self.cp_ns += s.cp_ns;
        self.db_reads += s.db_reads;
        self.db_writes += s.db_writes;
        self.page_faults_dasd += s.page_faults_dasd;
        self.page_faults_xstor += s.page_faults_xstor;
        self.wait_db_ns += s.wait_db_ns;
        self.wait_fault_ns += s.wait_fault_ns;
        self.wait_swap_ns += s.wait_swap_ns;
        self.double_paging += s.double_paging;
        self.pgmajfault += s.pgmajfault;
        self.pswpin += s.pswpin;
        self.pswpout += s.pswpout;
        self.pgscan_direct += s.pgscan_direct;
        self.pgscan_kswapd += s.pgscan_kswapd;
    }
}

/// Cumulative Linux counters at the last interval boundary.
#[derive(Default, Clone, Copy)]
struct VmMark {
    pgmajfault: u64,
    pswpin: u64,
    pswpout: u64,
    pgscan_direct: u64,
    pgscan_kswapd: u64,
}

impl VmMark {
    fn of(m: &LinuxMemory) -> Self {
        VmMark {
            pgmajfault: m.pgmajfault,
            pswpin: m.pswpin,
            pswpout: m.pswpout,
            pgscan_direct: m.pgscan_direct,
            pgscan_kswapd: m.pgscan_kswapd,
        }
    }
}

struct GuestRt {
    name: String,
    mem: LinuxMemory,
    db: Option<Database>,
    mix: Option<usize>,
    ready: VecDeque<u32>,
    idle_vcpus: Vec<u32>,
    think_ns: u64,
    pfault: bool,
    rng: Stream,
    kswapd_task: u32,
    /// The swap devices (dasd indices); slot s is on `swap_devs[s % len]` (equal priorities:
    /// Linux spreads pages round robin).
    swap_devs: Vec<u32>,
    /// Their Linux device names, for `swapon -s`.
    swap_names: Vec<String>,
    vm_mark: VmMark,
    stats: GuestStats,
    total: GuestStats,
}

struct PageIn {
    group: u32,
    waiters: Vec<u32>,
}

#[derive(Default, Clone)]
struct SysStats {
    cp_ns: u64,
    guest_ns: u64,
}

pub struct Simulation {
    pub scenario: Scenario,
    hash: String,
    seed: u64,
    now: u64,
    end: u64,
    prime_end: u64,
    interval_ns: u64,
    q: EventQueue,
    events: u64,
    p: ModelParams,
    storage: Storage,
    dasd: Dasd,
    paging_dev: Vec<u32>,
    guests: Vec<GuestRt>,
    vcpus: Vec<Vcpu>,
    tasks: Vec<Task>,
    mixes: Vec<Mix>,
    ifl_free: u32,
    dispatch: VecDeque<u32>,
    pageins: Vec<PageIn>,
    pagein_free: Vec<u32>,
    grp_inflight: Vec<u32>,
    cp_backlog_ns: u64,
    sys: SysStats,
    interval_start: u64,
    interval_no: u32,
    mv_mark: crate::cp::storage::Movement,
    rows: Vec<Map<String, Value>>,
    sys_rows: Vec<Map<String, Value>>,
    console: Vec<Value>,
    ended: Option<String>,
    interval_mv: crate::cp::storage::Movement,
    interval_paging: crate::io::dasd::DevStats,
}

impl Simulation {
    /// Parse, validate and build. `seed` overrides the scenario's run.seed.
    pub fn from_toml(
        text: &str,
        file: &str,
        seed: Option<u64>,
        overrides: &[String],
    ) -> Result<Self, ScenarioError> {
        let (mut sc, _src) = scenario::parse(text, file, overrides)?;
        if let Some(s) = seed {
            sc.run.seed = s;
        }
        Ok(Self::new(sc))
    }

    pub fn new(sc: Scenario) -> Self {
        let p = sc.model.clone();
        let seed = sc.run.seed;
        let hash = sc.hash();
        let instances = sc.guest_instances();
        let guest_pages: Vec<u32> = instances
            .iter()
            .map(|g| sc.guests[g.spec_index].storage.pages() as u32)
            .collect();
        let mut dasd = Dasd::new(&p, Stream::new(seed, STREAM_DASD));
        // Paging volumes, and their slots (explicit total spread by capacity).
        let caps: Vec<u64> = sc
            .paging
            .volumes
            .iter()
            .flat_map(|v| std::iter::repeat(v.model.pages()).take(v.count as usize))
            .collect();
        let cap_total: u64 = caps.iter().sum();
        let slots_total = sc.paging_slots();
        let volume_slots: Vec<u64> = if caps.is_empty() {
            if slots_total > 0 {
                vec![slots_total]
            } else {
                vec![]
            }
        } else {
            caps.iter()
                .map(|c| (*c as u128 * slots_total as u128 / cap_total.max(1) as u128) as u64)
                .collect()
        };
        let paging_dev: Vec<u32> = volume_slots
            .iter()
            .map(|_| dasd.add(sc.paging.cache_hit))
            .collect();
        let frames = sc.lpar.central.pages() as u32;
        // CP nucleus and fixed control blocks: 128 MB (z/VM 5.x order of magnitude).
        let cp_frames = (32_768u32).min(frames / 8);
        let storage = Storage::new(
            sc.lpar.zvm_level,
            &p,
            frames,
            cp_frames,
            sc.lpar.expanded.pages() as u32,
            &volume_slots,
            &guest_pages
                .iter()
                .enumerate()
                .map(|(g, &pages)| SpaceSpec {
                    owner: Owner::Guest(g as u32),
                    pages,
                })
                .collect::<Vec<_>>(),
        );
        let mut mixes = Vec::new();
        let mut mix_of = std::collections::BTreeMap::new();
        for (name, w) in &sc.workloads {
            mix_of.insert(name.clone(), mixes.len());
            mixes.push(Mix::new(w));
        }
        let mut guests = Vec::new();
        let mut vcpus = Vec::new();
        let mut tasks = Vec::new();
        let mut base = 0u32;
        for (gi, inst) in instances.iter().enumerate() {
            let spec = &sc.guests[inst.spec_index];
            let pages = spec.storage.pages() as u32;
            let kernel = spec.linux.kernel.pages() as u32;
            let wl = spec
                .workload
                .as_ref()
                .and_then(|w| sc.workloads.get(w).map(|ws| (w, ws)));
            let dbspec = wl.and_then(|(_, ws)| ws.database.as_ref());
            let shm = dbspec
                .map(|d| d.shared_memory.unwrap_or(d.cache).pages() as u32)
                .unwrap_or(0);
            let blocks = dbspec.map(|d| d.size.pages() as u32).unwrap_or(0);
            let mut mem = LinuxMemory::new(
                base,
                pages,
                kernel,
                shm,
                blocks,
                spec.linux.min_free.pages() as u32,
                spec.linux.swap.pages(),
            );
            mem.swappiness = spec.linux.swappiness;
            mem.page_cluster = spec.linux.page_cluster;
            // The guest's volumes in device order (dasda, dasdb, ...): the database's LVM
            // stripes and the swap partitions are simulated devices.
            let (mut db_vols, mut swap_devs, mut swap_names) = (Vec::new(), Vec::new(), Vec::new());
            let mut letter = 0u32;
            for x in &spec.dasd {
                for _ in 0..x.count {
                    match x.usage {
                        DasdUse::Database if dbspec.is_some() => {
                            db_vols.push(dasd.add(x.cache_hit))
                        }
                        DasdUse::Swap if spec.linux.swap.pages() > 0 => {
                            swap_devs.push(dasd.add(x.cache_hit));
                            swap_names.push(format!("/dev/{}1", crate::linux::commands::dasd_name(letter)));
                        }
                        _ => {}
                    }
                    letter += 1;
                }
            }
            mem.swap_areas = swap_devs.len().max(1) as u32;
            let db = dbspec.map(|d| {
                let buffers = d.cache.pages() as u32;
                // Buffers and the other shared memory are anonymous pages 0.. of the guest.
                Database::new(
                    blocks,
                    0,
                    buffers,
                    shm - buffers.min(shm),
                    Zipf::with_offset(blocks as u64, d.skew, d.flat_head.pages() as f64),
                    (d.stripe.pages() as u32).max(1),
                    std::mem::take(&mut db_vols),
                )
            });
            // Anonymous memory hottest first: the other shared memory (lock list, catalog and
            // package caches, used by every transaction), then the buffers (buffer i holds the
            // i-th hottest block); what does not fit starts on swap.
            if let Some(db) = &db {
                // The page cache holds the blocks just below the buffer pool in popularity.
                let start = db.buffers as u64;
                let heat = (db.other_start..db.other_start + db.other).chain(0..db.buffers);
                mem.warm(heat, |i| {
                    db.block_of_rank((start + i as u64) % db.blocks.max(1) as u64)
                });
            } else {
                mem.warm(0..shm, |_| NONE);
            }
            let mut idle = Vec::new();
            for _ in 0..spec.vcpus {
                idle.push(vcpus.len() as u32);
                vcpus.push(Vcpu {
                    guest: gi as u32,
                    task: NONE,
                    pending: Block::None,
                    blocked: false,
                    slice_used: 0,
                });
            }
            idle.reverse();
            let kswapd_task = tasks.len() as u32;
            tasks.push(Task::new(gi as u32, true));
            let (mix, think_ns) = match wl {
                Some((name, ws)) => (Some(mix_of[name]), ws.think_time.ns()),
                None => (None, 0),
            };
            guests.push(GuestRt {
                name: inst.name.clone(),
                mem,
                db,
                mix,
                ready: VecDeque::new(),
                idle_vcpus: idle,
                think_ns,
                pfault: spec.linux.pfault,
                rng: Stream::new(seed, STREAM_GUEST + gi as u64),
                kswapd_task,
                swap_names,
                swap_devs,
                vm_mark: VmMark::default(),
                stats: GuestStats::default(),
                total: GuestStats::default(),
            });
            base += pages;
        }
        let groups = (storage.slots_total() / p.paging_block.clamp(1, 64) as u64) as usize;
        let mut sim = Simulation {
            hash,
            seed,
            now: 0,
            end: sc.end_ns(),
            prime_end: sc.run.priming.ns(),
            interval_ns: sc.run.interval.ns(),
            q: EventQueue::with_capacity(4096),
            events: 0,
            p,
            storage,
            dasd,
            paging_dev,
            guests,
            vcpus,
            tasks,
            mixes,
            ifl_free: sc.lpar.ifls,
            dispatch: VecDeque::new(),
            pageins: Vec::new(),
            pagein_free: Vec::new(),
            grp_inflight: vec![NONE; groups],
            cp_backlog_ns: 0,
            sys: SysStats::default(),
            interval_start: 0,
            interval_no: 0,
            mv_mark: Default::default(),
            rows: Vec::new(),
            sys_rows: Vec::new(),
            console: Vec::new(),
            ended: None,
            interval_mv: Default::default(),
            interval_paging: Default::default(),
            scenario: sc,
        };
        sim.warm_start();
        sim.start_users();
        for (i, c) in sim.scenario.console.iter().enumerate() {
            sim.q.push(c.at.ns(), ev(EV_CONSOLE, i as u64));
        }
        sim.q.push(sim.prime_end, ev(EV_PRIMING_END, 0));
        sim
    }

    /// Guests have run for a while before measurement: every page has been used once. Pages
    /// are referenced coldest first (page cache, other shared memory, buffer pool from cold to
    /// hot, kernel), interleaved across guests by segment, so that CP pages out what is
    /// coldest. The priming period then lets the mechanisms settle.
    fn warm_start(&mut self) {
        /// A run of pages to touch: guest pages [lo, hi), or with `anon` the resident pages of
        /// anonymous pages [lo, hi); `rev` walks it from hi down.
        #[derive(Clone, Copy)]
        struct Seg {
            lo: u32,
            hi: u32,
            anon: bool,
            rev: bool,
        }
        let mut orders: Vec<Vec<Seg>> = Vec::new();
        for g in &self.guests {
            let m = &g.mem;
            let pool = m.base + m.kernel;
            let plain = |lo, hi| Seg {
                lo,
                hi,
                anon: false,
                rev: false,
            };
            // Page cache and free pages, then the other shared memory, the buffer pool from
            // cold to hot (buffer i holds the i-th hottest block), and the kernel.
            let mut segs: Vec<Seg> = m
                .file_or_free_runs()
                .into_iter()
                .map(|(lo, hi)| plain(pool + lo, pool + hi))
                .collect();
            if let Some(db) = &g.db {
                segs.push(Seg {
                    lo: db.other_start,
                    hi: db.other_start + db.other,
                    anon: true,
                    rev: false,
                });
                segs.push(Seg {
                    lo: db.buf_start,
                    hi: db.buf_start + db.buffers,
                    anon: true,
                    rev: true,
                });
            } else {
                segs.push(Seg {
                    lo: 0,
                    hi: m.shm,
                    anon: true,
                    rev: false,
                });
            }
            segs.push(plain(m.base, m.base + m.kernel));
            segs.retain(|r| r.lo < r.hi);
            orders.push(segs);
        }
        let chunk = 256u32;
        let mut cursors: Vec<(usize, u32)> = orders
            .iter()
            .map(|r| (0usize, r.first().map(|x| x.lo).unwrap_or(0)))
            .collect();
        let mut cp = CpWork::default();
        loop {
            let mut any = false;
            for (gi, segs) in orders.iter().enumerate() {
                let (si, pos) = &mut cursors[gi];
                if *si >= segs.len() {
                    continue;
                }
                any = true;
                let sg = segs[*si];
                let stop = (*pos + chunk).min(sg.hi);
                for k in *pos..stop {
                    let at = if sg.rev { sg.lo + (sg.hi - 1 - k) } else { k };
                    let page = if sg.anon {
                        match self.guests[gi].mem.anon_page(at) {
                            Some(p) => p,
                            None => continue,
                        }
                    } else {
                        at
                    };
                    let base = self.guests[gi].mem.base;
                    self.storage
                        .touch(SpaceId(gi as u32), page - base, Access::Write, &mut cp);
                }
                *pos = stop;
                if stop >= sg.hi {
                    *si += 1;
                    if *si < segs.len() {
                        *pos = segs[*si].lo;
                    }
                }
            }
            if !any {
                break;
            }
            self.storage.writes.clear();
        }
        self.storage.writes.clear();
        self.storage.moved = Default::default();
    }

    fn start_users(&mut self) {
        let instances = self.scenario.guest_instances();
        let wl_of: Vec<Option<String>> = instances
            .iter()
            .map(|i| self.scenario.guests[i.spec_index].workload.clone())
            .collect();
        for gi in 0..self.guests.len() {
            let Some(wname) = &wl_of[gi] else { continue };
            let w = &self.scenario.workloads[wname];
            let users = match (w.users, w.users_total) {
                (Some(u), _) => u,
                (None, Some(total)) => {
                    // Spread evenly over the guests running this workload.
                    let peers: Vec<usize> = (0..wl_of.len())
                        .filter(|&j| wl_of[j].as_ref() == Some(wname))
                        .collect();
                    let n = peers.len() as u32;
                    let rank = peers.iter().position(|&j| j == gi).unwrap_or(0) as u32;
                    total / n + u32::from(rank < total % n)
                }
                (None, None) => 0,
            };
            for _ in 0..users {
                let t = self.tasks.len() as u32;
                self.tasks.push(Task::new(gi as u32, false));
                let think = self.guests[gi].think_ns;
                let delay = self.guests[gi].rng.exp_ns(think);
                self.q.push(delay, ev(EV_SUBMIT, t as u64));
            }
        }
    }

    // ------------------------------------------------------------------ stepping

    pub fn now_ns(&self) -> u64 {
        self.now
    }
    pub fn end_ns(&self) -> u64 {
        self.end
    }
    pub fn events(&self) -> u64 {
        self.events
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn scenario_hash(&self) -> &str {
        &self.hash
    }
    pub fn finished(&self) -> bool {
        self.now >= self.end || self.ended.is_some()
    }

    /// Process every event up to simulated time `t` (ns). Returns events processed.
    pub fn step_until(&mut self, t: u64) -> u64 {
        let t = t.min(self.end);
        let start = self.events;
        while self.ended.is_none() {
            match self.q.peek_time() {
                Some(et) if et <= t => {}
                _ => break,
            }
            let Some((et, payload)) = self.q.pop() else {
                break;
            };
            self.now = et;
            self.events += 1;
            self.dispatch_event(payload);
            if self.storage.paging_full && self.ended.is_none() {
                self.console_line("SYSTEM", "", vec![
                    "HCPPGT004 ABEND: all DASD paging space is in use; z/VM stops (abend PGT004)".to_string(),
                ]);
                self.ended = Some("PGT004: paging space full".into());
            }
        }
        if self.ended.is_none() {
            self.now = self.now.max(t);
        }
        self.events - start
    }

    pub fn run(&mut self) {
        let end = self.end;
        self.step_until(end);
    }

    fn dispatch_event(&mut self, payload: u64) {
        let kind = payload >> 56;
        let idx = payload & ((1 << 56) - 1);
        match kind {
            EV_SUBMIT => self.submit_tx(idx as u32),
            EV_BURST_END => self.burst_end(idx as u32),
            EV_IO_DONE => self.io_done(idx as u32),
            EV_INTERVAL => self.close_interval(),
            EV_CONSOLE => self.run_console(idx as usize),
            EV_PRIMING_END => self.start_measuring(),
            _ => {}
        }
    }

    // ------------------------------------------------------------------ dispatching

    fn submit_tx(&mut self, t: u32) {
        let g = self.tasks[t as usize].guest as usize;
        let mix = &self.mixes[self.guests[g].mix.unwrap_or(0)];
        let kind = mix.pick(&mut self.guests[g].rng);
        let k = &mix.kinds[kind as usize];
        let task = &mut self.tasks[t as usize];
        task.kind = kind;
        task.refs_left = k.db_refs;
        task.cpu_left = k.cpu_ns;
        task.phase = 0;
        task.start = self.now;
        self.make_ready(t);
    }

    /// A task becomes ready in its guest; an idle virtual CPU of the guest is dispatched.
    fn make_ready(&mut self, t: u32) {
        let g = self.tasks[t as usize].guest as usize;
        self.guests[g].ready.push_back(t);
        if let Some(v) = self.guests[g].idle_vcpus.pop() {
            self.vcpu_runnable(v);
        }
    }

    fn vcpu_runnable(&mut self, v: u32) {
        if self.ifl_free > 0 {
            self.ifl_free -= 1;
            self.vcpus[v as usize].slice_used = 0;
            self.run_burst(v);
        } else {
            self.dispatch.push_back(v);
        }
    }

    /// The virtual CPU `v` holds an IFL from `now`: run its Linux tasks until one blocks, the
    /// slice ends or it has no work; schedule the end of the burst.
    fn run_burst(&mut self, v: u32) {
        let slice = self.p.time_slice.ns();
        let g = self.vcpus[v as usize].guest as usize;
        // CP work left over from I/O interrupts runs first on this IFL.
        let mut t = std::mem::take(&mut self.cp_backlog_ns);
        self.sys.cp_ns += t;
        loop {
            if self.vcpus[v as usize].task == NONE {
                match self.guests[g].ready.pop_front() {
                    Some(task) => self.vcpus[v as usize].task = task,
                    None => break,
                }
            }
            let task = self.vcpus[v as usize].task;
            let budget = slice.saturating_sub(self.vcpus[v as usize].slice_used + t);
            let (used, outcome) = self.exec(task, budget.max(1));
            t += used;
            match outcome {
                Outcome::Done => {
                    self.finish_task(task, self.now + t);
                    self.vcpus[v as usize].task = NONE;
                }
                Outcome::Blocked(b) => {
                    self.vcpus[v as usize].pending = b;
                    let keeps = matches!(b, Block::PageIn { sync: true, .. });
                    if keeps {
                        self.vcpus[v as usize].blocked = true;
                    } else {
                        self.vcpus[v as usize].task = NONE;
                    }
                    break;
                }
                Outcome::SliceEnd => break,
            }
            if self.vcpus[v as usize].slice_used + t >= slice {
                break;
            }
        }
        self.vcpus[v as usize].slice_used += t;
        self.q.push(self.now + t, ev(EV_BURST_END, v as u64));
    }

    fn burst_end(&mut self, v: u32) {
        let pending = std::mem::replace(&mut self.vcpus[v as usize].pending, Block::None);
        let g = self.vcpus[v as usize].guest as usize;
        match pending {
            Block::None => {}
            Block::DbRead { vol, task } => {
                self.submit_page_io(vol, (IO_DB_READ << 56) | task as u64, false);
                self.guests[g].stats.db_reads += 1;
                self.tasks[task as usize].blocked_at = self.now;
            }
            Block::PageIn { group, task, .. } => {
                let waiter = if self.vcpus[v as usize].blocked {
                    v | VCPU_WAITER
                } else {
                    task
                };
                self.start_pagein(group, waiter);
                self.guests[g].stats.page_faults_dasd += 1;
                self.tasks[task as usize].blocked_at = self.now;
            }
            Block::SwapIn { dev, task } => {
                // One I/O reads the faulting page and those read ahead with it.
                let ahead = std::mem::take(&mut self.tasks[task as usize].swap_ahead);
                let req = IoReq {
                    token: (IO_SWAP_READ << 56) | task as u64,
                    pages: 1 + ahead,
                    write: false,
                    queued_at: self.now,
                };
                self.submit_io(dev, req);
                self.tasks[task as usize].blocked_at = self.now;
            }
        }
        if self.vcpus[v as usize].blocked {
            self.release_ifl();
            return;
        }
        let has_work = self.vcpus[v as usize].task != NONE || !self.guests[g].ready.is_empty();
        if has_work {
            if self.vcpus[v as usize].slice_used >= self.p.time_slice.ns() {
                if let Some(next) = self.dispatch.pop_front() {
                    self.dispatch.push_back(v);
                    self.vcpus[next as usize].slice_used = 0;
                    self.run_burst(next);
                    return;
                }
                self.vcpus[v as usize].slice_used = 0;
            }
            self.run_burst(v);
        } else {
            self.guests[g].idle_vcpus.push(v);
            self.release_ifl();
        }
    }

    fn release_ifl(&mut self) {
        if let Some(next) = self.dispatch.pop_front() {
            self.vcpus[next as usize].slice_used = 0;
            self.run_burst(next);
        } else {
            self.ifl_free += 1;
        }
    }

    /// A one-page I/O on `dev`; `token` says what its completion does.
    fn submit_page_io(&mut self, dev: u32, token: u64, write: bool) {
        let req = IoReq {
            token,
            pages: 1,
            write,
            queued_at: self.now,
        };
        self.submit_io(dev, req);
    }

    fn submit_io(&mut self, dev: u32, req: IoReq) {
        if let Some(done) = self.dasd.submit(dev, req, self.now) {
            self.q.push(done, ev(EV_IO_DONE, dev as u64));
        }
    }

    fn start_pagein(&mut self, group: u32, waiter: u32) {
        let cur = self.grp_inflight[group as usize];
        if cur != NONE {
            self.pageins[cur as usize].waiters.push(waiter);
            return;
        }
        let id = match self.pagein_free.pop() {
            Some(id) => {
                self.pageins[id as usize].group = group;
                self.pageins[id as usize].waiters.push(waiter);
                id
            }
            None => {
                self.pageins.push(PageIn {
                    group,
                    waiters: vec![waiter],
                });
                (self.pageins.len() - 1) as u32
            }
        };
        self.grp_inflight[group as usize] = id;
        let vol = self.paging_dev[self.storage.volume_of_group(group) as usize];
        let pages = self.storage.group_live(group).max(1);
        let req = IoReq {
            token: (IO_PAGE_IN << 56) | id as u64,
            pages,
            write: false,
            queued_at: self.now,
        };
        self.submit_io(vol, req);
    }

    fn io_done(&mut self, dev: u32) {
        let (req, next) = self.dasd.complete(dev, self.now);
        if let Some(t) = next {
            self.q.push(t, ev(EV_IO_DONE, dev as u64));
        }
        let idx = (req.token & ((1 << 56) - 1)) as u32;
        match req.token >> 56 {
            kind @ (IO_DB_READ | IO_SWAP_READ) => {
                let task = &self.tasks[idx as usize];
                let waited = self.now - task.blocked_at;
                let st = &mut self.guests[task.guest as usize].stats;
                if kind == IO_DB_READ {
                    st.wait_db_ns += waited;
                } else {
                    st.wait_swap_ns += waited;
                }
                self.make_ready(idx);
            }
            IO_PAGE_IN => {
                let group = self.pageins[idx as usize].group;
                let mut cp = CpWork::default();
                self.storage.complete_pagein(group, &mut cp);
                self.cp_backlog_ns += cp.ns;
                self.flush_page_writes();
                self.grp_inflight[group as usize] = NONE;
                let waiters = std::mem::take(&mut self.pageins[idx as usize].waiters);
                for &w in &waiters {
                    if w & VCPU_WAITER == 0 && w & SWAPW_WAITER != 0 {
                        self.submit_swap_write(w & !SWAPW_WAITER);
                        continue;
                    }
                    let task = if w & VCPU_WAITER != 0 {
                        self.vcpus[(w & !VCPU_WAITER) as usize].task
                    } else {
                        w
                    };
                    if task != NONE {
                        let t = &self.tasks[task as usize];
                        let waited = self.now - t.blocked_at;
                        self.guests[t.guest as usize].stats.wait_fault_ns += waited;
                    }
                    if w & VCPU_WAITER != 0 {
                        let v = w & !VCPU_WAITER;
                        self.vcpus[v as usize].blocked = false;
                        self.vcpu_runnable(v);
                    } else {
                        self.make_ready(w);
                    }
                }
                let mut waiters = waiters;
                waiters.clear();
                self.pageins[idx as usize].waiters = waiters;
                self.pagein_free.push(idx);
            }
            _ => {}
        }
    }

    /// Block page-outs CP started: each is a write on its paging volume.
    fn flush_page_writes(&mut self) {
        if self.storage.writes.is_empty() {
            return;
        }
        let writes = std::mem::take(&mut self.storage.writes);
        for w in &writes {
            let dev = self.paging_dev[w.volume as usize];
            let req = IoReq {
                token: IO_PAGE_OUT << 56,
                pages: w.pages,
                write: true,
                queued_at: self.now,
            };
            self.submit_io(dev, req);
        }
        let mut writes = writes;
        writes.clear();
        self.storage.writes = writes;
    }

    fn finish_task(&mut self, t: u32, at: u64) {
        let task = &self.tasks[t as usize];
        if task.kswapd {
            return;
        }
        let g = task.guest as usize;
        let resp = at - task.start;
        let gs = &mut self.guests[g];
        gs.stats.tx += 1;
        gs.stats.resp_ns += resp as u128;
        let think = gs.rng.exp_ns(gs.think_ns);
        self.q.push(at + think, ev(EV_SUBMIT, t as u64));
    }
}

enum Outcome {
    Done,
    Blocked(Block),
    SliceEnd,
}

impl Task {
    fn new(guest: u32, kswapd: bool) -> Self {
        Task {
            guest,
            kswapd,
            kind: 0,
            refs_left: 0,
            cpu_left: 0,
            phase: 0,
            block: NONE,
            buf: NONE,
            old_block: NONE,
            pc_page: NONE,
            start: 0,
            blocked_at: 0,
            swap_ahead: 0,
        }
    }
}

#[derive(Default)]
struct StepWork {
    guest_ns: u64,
    cp_ns: u64,
}

impl Simulation {
    /// Run task `t` for up to `budget` ns of IFL time; returns the time used and why it stopped.
    fn exec(&mut self, t: u32, budget: u64) -> (u64, Outcome) {
        let ti = t as usize;
        let g = self.tasks[ti].guest as usize;
        if self.tasks[ti].kswapd {
            let scanned = self.guests[g].mem.kswapd();
            let mut w = StepWork {
                guest_ns: scanned * self.p.linux_scan_page.ns(),
                cp_ns: 0,
            };
            self.start_swap_writes(g, &mut w);
            self.charge(g, w.guest_ns, w.cp_ns);
            return (w.guest_ns + w.cp_ns, Outcome::Done);
        }
        if self.tasks[ti].refs_left == 0 {
            let run = self.tasks[ti].cpu_left.min(budget);
            self.tasks[ti].cpu_left -= run;
            self.charge(g, run, 0);
            let out = if self.tasks[ti].cpu_left == 0 {
                Outcome::Done
            } else {
                Outcome::SliceEnd
            };
            return (run, out);
        }
        let (step_cpu, wf) = {
            let k =
                &self.mixes[self.guests[g].mix.unwrap_or(0)].kinds[self.tasks[ti].kind as usize];
            (k.cpu_ns / k.db_refs.max(1) as u64, k.write_fraction)
        };
        let mut used = 0;
        loop {
            let mut w = StepWork::default();
            let r = self.db_step(t, g, wf, &mut w);
            used += w.guest_ns + w.cp_ns;
            self.charge(g, w.guest_ns, w.cp_ns);
            self.flush_page_writes();
            if let Err(b) = r {
                return (used, Outcome::Blocked(b));
            }
            used += step_cpu;
            self.charge(g, step_cpu, 0);
            let task = &mut self.tasks[ti];
            task.refs_left -= 1;
            if task.refs_left == 0 {
                return (used, Outcome::Done);
            }
            if used >= budget {
                return (used, Outcome::SliceEnd);
            }
        }
    }

    #[inline]
    fn charge(&mut self, g: usize, guest_ns: u64, cp_ns: u64) {
        let s = &mut self.guests[g].stats;
        s.cpu_ns += guest_ns;
        s.cp_ns += cp_ns;
        self.sys.guest_ns += guest_ns;
        self.sys.cp_ns += cp_ns;
    }

    /// A reference by task `t` of guest `g` to global page `page`. Linux asks CP for pfault
    /// handshaking only in problem state (pfault_init's select mask is the PSW problem-state
    /// bit): a host page fault in kernel mode (kernel text, page cache, copies to and from user
    /// buffers) stops the whole virtual CPU until the page is back.
    #[inline]
    fn touch(
        &mut self,
        g: usize,
        t: u32,
        page: u32,
        write: bool,
        kernel: bool,
        w: &mut StepWork,
    ) -> Result<(), Block> {
        match self.host_touch(g, page, write, w) {
            Touch::Resident | Touch::FirstUse | Touch::FromXstor => Ok(()),
            Touch::OnDasd { group } => Err(Block::PageIn {
                group,
                task: t,
                sync: kernel || !self.guests[g].pfault,
            }),
        }
    }

    /// CP's side of a reference to guest `g`'s `page`: its CP time goes to `w`, and a
    /// synchronous page-in from XSTOR is counted as the guest's fault.
    #[inline]
    fn host_touch(&mut self, g: usize, page: u32, write: bool, w: &mut StepWork) -> Touch {
        let mut cp = CpWork::default();
        let base = self.guests[g].mem.base;
        let r = self
            .storage
            .touch(SpaceId(g as u32), page - base, Access::write(write), &mut cp);
        w.cp_ns += cp.ns;
        if r == Touch::FromXstor {
            self.guests[g].stats.page_faults_xstor += 1;
        }
        r
    }

    /// Allocate a page-cache page for `block` (reclaiming as Linux does); returns its global page.
    fn pc_alloc(&mut self, g: usize, block: u32, w: &mut StepWork) -> u32 {
        let (i, scanned) = self.guests[g].mem.alloc_for(block);
        self.after_alloc(g, scanned, w);
        i
    }

    /// After a Linux allocation: charge direct reclaim, wake kswapd below the low watermark,
    /// and start the swap writes reclaim decided on.
    fn after_alloc(&mut self, g: usize, scanned: u64, w: &mut StepWork) {
        w.guest_ns += scanned * self.p.linux_scan_page.ns();
        let gs = &mut self.guests[g];
        if gs.mem.needs_kswapd() {
            gs.mem.kswapd_queued = true;
            let kt = gs.kswapd_task;
            gs.ready.push_back(kt);
        }
        self.start_swap_writes(g, w);
    }

    /// Linux writes the pages reclaim swapped out. The channel program reads each page, so CP
    /// must have it in a frame: from XSTOR at once, from DASD by a page-in that the write then
    /// waits for (double paging).
    fn start_swap_writes(&mut self, g: usize, w: &mut StepWork) {
        if self.guests[g].mem.swap_out.is_empty() {
            return;
        }
        let outs = std::mem::take(&mut self.guests[g].mem.swap_out);
        for o in &outs {
            let devs = &self.guests[g].swap_devs;
            let dev = devs[o.slot as usize % devs.len()];
            let r = self.host_touch(g, o.page, false, w);
            if r == Touch::FromXstor {
                self.guests[g].stats.double_paging += 1;
            }
            match r {
                Touch::Resident | Touch::FirstUse | Touch::FromXstor => self.submit_swap_write(dev),
                Touch::OnDasd { group } => {
                    self.guests[g].stats.page_faults_dasd += 1;
                    self.guests[g].stats.double_paging += 1;
                    self.start_pagein(group, SWAPW_WAITER | dev);
                }
            }
        }
        let mut outs = outs;
        outs.clear();
        self.guests[g].mem.swap_out = outs;
        self.flush_page_writes();
    }

    fn submit_swap_write(&mut self, dev: u32) {
        self.submit_page_io(dev, IO_SWAP_WRITE << 56, true);
    }

    /// The pages a major fault reads ahead are targets of the same I/O, so CP must have them
    /// in frames; one CP has paged out is left on swap instead (a simplification: CP would
    /// page it in before starting the read). Returns the pages read ahead.
    fn check_readahead(&mut self, g: usize, w: &mut StepWork) -> u32 {
        let ra = std::mem::take(&mut self.guests[g].mem.readahead);
        let mut n = 0;
        for &(anon, page) in &ra {
            if self.guests[g].mem.anon_page(anon) != Some(page) {
                continue;
            }
            let base = self.guests[g].mem.base;
            if self.storage.is_resident(SpaceId(g as u32), page - base) {
                self.host_touch(g, page, true, w);
                n += 1;
            } else {
                self.guests[g].mem.cancel_readahead(anon, page);
            }
        }
        let mut ra = ra;
        ra.clear();
        self.guests[g].mem.readahead = ra;
        n
    }

    /// A reference by task `t` to anonymous page `v` of guest `g`. A page Linux swapped out is
    /// a major fault: a page is allocated, CP must have it resident to start the read into it,
    /// and the task sleeps until the read is done (its virtual CPU runs other tasks).
    fn anon_touch(
        &mut self,
        g: usize,
        t: u32,
        v: u32,
        write: bool,
        kernel: bool,
        w: &mut StepWork,
    ) -> Result<(), Block> {
        let (a, scanned) = self.guests[g].mem.anon_ref(v, write);
        if !self.guests[g].mem.readahead.is_empty() {
            self.tasks[t as usize].swap_ahead = self.check_readahead(g, w);
        }
        if scanned > 0 || !self.guests[g].mem.swap_out.is_empty() {
            self.after_alloc(g, scanned, w);
        }
        match a {
            Anon::Resident(page) => self.touch(g, t, page, write, kernel, w),
            Anon::SwapIn { page, slot } => {
                self.touch(g, t, page, true, true, w)?;
                self.guests[g].mem.swapin_started(v);
                let devs = &self.guests[g].swap_devs;
                let dev = devs[slot as usize % devs.len()];
                Err(Block::SwapIn { dev, task: t })
            }
        }
    }

    /// One buffer-pool get of a transaction, as a restartable state machine: a host page
    /// fault returns early and the same phase runs again once the page is back.
    fn db_step(&mut self, t: u32, g: usize, wf: f64, w: &mut StepWork) -> Result<(), Block> {
        let ti = t as usize;
        let base = self.guests[g].mem.base;
        let copy = self.p.linux_page_copy.ns();
        loop {
            match self.tasks[ti].phase {
                0 => {
                    // Kernel and program text, and the database's other shared memory.
                    let gs = &mut self.guests[g];
                    let kpage = base + gs.rng.below(gs.mem.kernel as u64) as u32;
                    let db = gs.db.as_ref().expect("db workload");
                    let opage = if db.other > 0 {
                        Some(db.other_start + gs.rng.below(db.other as u64) as u32)
                    } else {
                        None
                    };
                    let block = db.sample_block(&mut gs.rng);
                    self.touch(g, t, kpage, false, true, w)?;
                    if let Some(op) = opage {
                        self.anon_touch(g, t, op, true, false, w)?;
                    }
                    self.tasks[ti].block = block;
                    self.tasks[ti].phase = 1;
                }
                1 => {
                    let block = self.tasks[ti].block;
                    let gs = &mut self.guests[g];
                    let db = gs.db.as_mut().expect("db workload");
                    if let Some(buf) = db.lookup(block) {
                        let v = db.buf_start + buf;
                        let write = gs.rng.chance(wf);
                        self.anon_touch(g, t, v, write, false, w)?;
                        let db = self.guests[g].db.as_mut().expect("db workload");
                        db.hits += 1;
                        if write {
                            db.set_dirty(block);
                        }
                        self.tasks[ti].phase = 0;
                        return Ok(());
                    }
                    db.misses += 1;
                    let (buf, old) = db.replace(block);
                    let task = &mut self.tasks[ti];
                    task.buf = buf;
                    task.old_block = old.unwrap_or(NONE);
                    task.pc_page = NONE;
                    task.phase = if old.is_some() { 2 } else { 3 };
                }
                2 => {
                    // The victim buffer is dirty: write its old block through the page cache.
                    let (buf, old) = (self.tasks[ti].buf, self.tasks[ti].old_block);
                    let buf_start = self.guests[g].db.as_ref().expect("db").buf_start;
                    self.anon_touch(g, t, buf_start + buf, false, true, w)?;
                    if self.tasks[ti].pc_page == NONE {
                        let i = self.pc_alloc(g, old, w);
                        self.tasks[ti].pc_page = self.guests[g].mem.pool_global(i);
                        w.guest_ns += copy;
                    }
                    let pc = self.tasks[ti].pc_page;
                    self.touch(g, t, pc, true, true, w)?;
                    let vol = self.guests[g].db.as_ref().expect("db").volume_of(old);
                    self.submit_page_io(vol, IO_DB_WRITE << 56, true);
                    self.guests[g].stats.db_writes += 1;
                    self.tasks[ti].pc_page = NONE;
                    self.tasks[ti].phase = 3;
                }
                3 => {
                    let (block, buf) = (self.tasks[ti].block, self.tasks[ti].buf);
                    let gs = &mut self.guests[g];
                    let db = gs.db.as_ref().expect("db");
                    let (buf_start, vol) = (db.buf_start, db.volume_of(block));
                    if self.tasks[ti].pc_page == NONE {
                        if let Some(i) = gs.mem.lookup(block) {
                            // Page-cache hit: copy into the buffer.
                            let pc = gs.mem.pool_global(i);
                            self.touch(g, t, pc, false, true, w)?;
                            self.anon_touch(g, t, buf_start + buf, true, true, w)?;
                            w.guest_ns += copy;
                            self.tasks[ti].phase = 0;
                            return Ok(());
                        }
                        // Linux allocates the page-cache page and starts the read into it.
                        let i = self.pc_alloc(g, block, w);
                        self.tasks[ti].pc_page = self.guests[g].mem.pool_global(i);
                    }
                    // CP must have the target page resident to translate the channel program.
                    let pc = self.tasks[ti].pc_page;
                    self.touch(g, t, pc, true, true, w)?;
                    self.tasks[ti].phase = 4;
                    return Err(Block::DbRead { vol, task: t });
                }
                _ => {
                    // The read completed into the page-cache page: copy it into the buffer.
                    let buf = self.tasks[ti].buf;
                    let pc = self.tasks[ti].pc_page;
                    self.touch(g, t, pc, false, true, w)?;
                    let buf_start = self.guests[g].db.as_ref().expect("db").buf_start;
                    self.anon_touch(g, t, buf_start + buf, true, true, w)?;
                    w.guest_ns += copy;
                    self.tasks[ti].pc_page = NONE;
                    self.tasks[ti].phase = 0;
                    return Ok(());
                }
            }
        }
    }

    // ------------------------------------------------------------------ console

    fn console_line(&mut self, user: &str, command: &str, response: Vec<String>) {
        self.console.push(json!({
            "t_s": self.now as f64 / NS_PER_S as f64,
            "user": user,
            "command": command,
            "response": response,
        }));
    }

    fn run_console(&mut self, i: usize) {
        let entry = self.scenario.console[i].clone();
        if let Some(cmd) = &entry.cp {
            let response = match crate::cp::commands::parse(cmd) {
                Ok(c) => {
                    let secs = (self.now - self.interval_start).max(1) as f64;
                    let view = crate::cp::commands::CpView {
                        level: self.scenario.lpar.zvm_level.as_str(),
                        central_bytes: self.scenario.lpar.central.bytes(),
                        xstor_bytes: self.scenario.lpar.expanded.bytes(),
                        xstor_used_blocks: self.storage.xstor.used(),
                        ifls: self.scenario.lpar.ifls,
                        guests: self.guests.iter().map(|g| g.name.clone()).collect(),
                        slots_total: self.storage.slots_total(),
                        slots_used: self.storage.on_dasd(),
                        avg_proc_pct: 100.0 * (self.sys.cp_ns + self.sys.guest_ns) as f64
                            / (secs * self.scenario.lpar.ifls as f64),
                        paging_per_s: (self.storage.moved.dasd_to_ms
                            + self.storage.moved.xs_to_dasd
                            - self.mv_mark.dasd_to_ms
                            - self.mv_mark.xs_to_dasd) as f64
                            * NS_PER_S as f64
                            / secs,
                        xstor_per_s: (self.storage.moved.ms_to_xs + self.storage.moved.xs_to_ms
                            - self.mv_mark.ms_to_xs
                            - self.mv_mark.xs_to_ms) as f64
                            * NS_PER_S as f64
                            / secs,
                        migrate_per_s: (self.storage.moved.xs_to_dasd - self.mv_mark.xs_to_dasd)
                            as f64
                            * NS_PER_S as f64
                            / secs,
                    };
                    crate::cp::commands::respond(&c, &view)
                }
                Err(m) => vec![m],
            };
            self.console_line(&entry.user.to_ascii_uppercase(), cmd, response);
        } else if let Some(cmd) = &entry.linux {
            let user = entry.user.to_ascii_uppercase();
            let response = match (
                crate::linux::commands::parse(cmd),
                self.guests.iter().position(|g| g.name == user),
            ) {
                (Ok(c), Some(gi)) => {
                    if let crate::linux::commands::LinuxCommand::SetVm { tunable, value, .. } = c {
                        let m = &mut self.guests[gi].mem;
                        match tunable {
                            crate::linux::commands::VmTunable::Swappiness => m.swappiness = value,
                            crate::linux::commands::VmTunable::PageCluster => m.page_cluster = value,
                        }
                    }
                    let m = &self.guests[gi].mem;
                    let view = crate::linux::commands::LinuxView {
                        total: m.pages as u64,
                        free: m.free_pages() as u64,
                        cached: m.cached,
                        anon: m.anon(),
                        kernel: m.kernel as u64,
                        swap_total: m.swap_pages,
                        swap_used: m.swap_used(),
                        swap_cached: m.swap_cached(),
                        pgmajfault: m.pgmajfault,
                        pgscan_direct: m.pgscan_direct,
                        pgscan_kswapd: m.pgscan_kswapd,
                        pswpin: m.pswpin,
                        pswpout: m.pswpout,
                        swappiness: m.swappiness,
                        page_cluster: m.page_cluster,
                        swap_devices: self.guests[gi].swap_names.clone(),
                    };
                    crate::linux::commands::respond(&c, &view)
                }
                (Err(m), _) => vec![m],
                (_, None) => vec![format!("{user}: no such guest")],
            };
            self.console_line(&user, cmd, response);
        }
    }

    // ------------------------------------------------------------------ monitoring

    fn start_measuring(&mut self) {
        for g in &mut self.guests {
            g.stats = GuestStats::default();
            g.total = GuestStats::default();
            g.vm_mark = VmMark::of(&g.mem);
        }
        self.sys = SysStats::default();
        self.mv_mark = self.storage.moved;
        self.interval_start = self.now;
        self.interval_no = 0;
        self.rows.clear();
        self.sys_rows.clear();
        self.q.push(self.now + self.interval_ns, ev(EV_INTERVAL, 0));
        self.interval_mv = self.storage.moved;
        self.interval_paging = self.paging_stats();
    }

    fn paging_stats(&self) -> crate::io::dasd::DevStats {
        let mut s = crate::io::dasd::DevStats::default();
        for &d in &self.paging_dev {
            let x = self.dasd.stats(d);
            s.ios += x.ios;
            s.pages += x.pages;
            s.busy_ns += x.busy_ns;
            s.wait_ns += x.wait_ns;
        }
        s
    }

    fn close_interval(&mut self) {
        let span = (self.now - self.interval_start).max(1);
        let secs = span as f64 / NS_PER_S as f64;
        let ifls = self.scenario.lpar.ifls as f64;
        let pct = |ns: u64| 100.0 * ns as f64 / span as f64;
        let t0 = self.interval_start as f64 / NS_PER_S as f64;
        let t1 = self.now as f64 / NS_PER_S as f64;
        let mut tx_total = 0u64;
        for gi in 0..self.guests.len() {
            let loc = self.storage.space_locations(SpaceId(gi as u32));
            let (resident, below, xstor, slots) = (loc.resident, loc.below_2g, loc.xstor, loc.dasd);
            let g = &mut self.guests[gi];
            let mut s = std::mem::take(&mut g.stats);
            let vm = VmMark::of(&g.mem);
            s.pgmajfault = vm.pgmajfault - g.vm_mark.pgmajfault;
            s.pswpin = vm.pswpin - g.vm_mark.pswpin;
            s.pswpout = vm.pswpout - g.vm_mark.pswpout;
            s.pgscan_direct = vm.pgscan_direct - g.vm_mark.pgscan_direct;
            s.pgscan_kswapd = vm.pgscan_kswapd - g.vm_mark.pgscan_kswapd;
            g.vm_mark = vm;
            tx_total += s.tx;
            let mut row = Map::new();
            row.insert("interval".into(), json!(self.interval_no));
            row.insert("t_start_s".into(), json!(t0));
            row.insert("t_end_s".into(), json!(t1));
            row.insert("guest".into(), json!(g.name));
            row.insert("tx".into(), json!(s.tx));
            row.insert("throughput_tx_per_s".into(), json!(s.tx as f64 / secs));
            row.insert(
                "response_ms".into(),
                json!(if s.tx > 0 {
                    s.resp_ns as f64 / s.tx as f64 / 1e6
                } else {
                    0.0
                }),
            );
            row.insert("cpu_pct".into(), json!(pct(s.cpu_ns)));
            row.insert("cp_pct".into(), json!(pct(s.cp_ns)));
            row.insert("resident_pages".into(), json!(resident));
            row.insert("pages_resident_below_2g".into(), json!(below));
            row.insert("pages_resident_above_2g".into(), json!(resident - below));
            row.insert("pages_xstor".into(), json!(xstor));
            row.insert("pages_dasd".into(), json!(slots));
            row.insert("linux_free_pages".into(), json!(g.mem.free_pages()));
            row.insert("linux_cached_pages".into(), json!(g.mem.cached));
            row.insert("linux_anon_pages".into(), json!(g.mem.anon()));
            row.insert("linux_swap_used_pages".into(), json!(g.mem.swap_used()));
            // Counts over the interval, as rates.
            for (k, n) in [
                ("db_reads_per_s", s.db_reads),
                ("db_writes_per_s", s.db_writes),
                ("page_faults_dasd_per_s", s.page_faults_dasd),
                ("page_faults_xstor_per_s", s.page_faults_xstor),
                ("pgscan_kswapd_per_s", s.pgscan_kswapd),
                ("pgscan_direct_per_s", s.pgscan_direct),
                ("pgmajfault_per_s", s.pgmajfault),
                ("pswpin_per_s", s.pswpin),
                ("pswpout_per_s", s.pswpout),
                ("double_paging_per_s", s.double_paging),
            ] {
                row.insert(k.into(), json!(n as f64 / secs));
            }
            self.rows.push(row);
            g.total.add(&s);
        }
        let sys = std::mem::take(&mut self.sys);
        let mv = self.storage.moved;
        let mk = self.interval_mv;
        let rate = |a: u64, b: u64| (a - b) as f64 / secs;
        let frames = self.storage.frames() as f64;
        let st = &self.storage;
        let pstats = self.paging_stats();
        let pm = self.interval_paging;
        let mut row = Map::new();
        row.insert("interval".into(), json!(self.interval_no));
        row.insert("t_start_s".into(), json!(t0));
        row.insert("t_end_s".into(), json!(t1));
        row.insert("throughput_tx_per_s".into(), json!(tx_total as f64 / secs));
        row.insert("cpu_lpar_pct".into(), json!(pct(sys.guest_ns + sys.cp_ns)));
        row.insert("cpu_guests_pct".into(), json!(pct(sys.guest_ns)));
        row.insert("cpu_cp_pct".into(), json!(pct(sys.cp_ns)));
        row.insert(
            "ifl_utilization_pct".into(),
            json!(pct(sys.guest_ns + sys.cp_ns) / ifls),
        );
        row.insert("pages_resident".into(), json!(st.resident()));
        row.insert(
            "pages_resident_below_2g".into(),
            json!(st.resident_below_2g()),
        );
        row.insert(
            "pages_resident_above_2g".into(),
            json!(st.resident() - st.resident_below_2g()),
        );
        row.insert("pages_xstor".into(), json!(st.on_xstor()));
        row.insert("pages_dasd".into(), json!(st.on_dasd()));
        row.insert(
            "pages_not_in_memory".into(),
            json!(st.touched() - st.resident()),
        );
        row.insert(
            "real_overcommit_pct".into(),
            json!(100.0 * (st.resident() + st.on_xstor() + st.on_dasd()) as f64 / frames - 100.0),
        );
        row.insert("available_frames".into(), json!(st.available()));
        row.insert("available_below_2g".into(), json!(st.available_below_2g()));
        row.insert("pgmbk_frames".into(), json!(st.pgmbk_frames()));
        for (k, now, mark) in [
            ("ms_to_xs_per_s", mv.ms_to_xs, mk.ms_to_xs),
            ("xs_to_ms_per_s", mv.xs_to_ms, mk.xs_to_ms),
            ("xs_to_dasd_per_s", mv.xs_to_dasd, mk.xs_to_dasd),
            ("ms_to_dasd_per_s", mv.ms_to_dasd, mk.ms_to_dasd),
            ("dasd_to_ms_per_s", mv.dasd_to_ms, mk.dasd_to_ms),
        ] {
            row.insert(k.into(), json!(rate(now, mark)));
        }
        row.insert("steals_per_s".into(), json!(rate(mv.steals, mk.steals)));
        row.insert(
            "frames_scanned_per_s".into(),
            json!(rate(mv.scanned, mk.scanned)),
        );
        row.insert("demand_scans".into(), json!(mv.scans - mk.scans));
        row.insert(
            "below_2g_scans_per_s".into(),
            json!(rate(mv.below2g_scans, mk.below2g_scans)),
        );
        row.insert(
            "pgmbk_allocs_per_s".into(),
            json!(rate(mv.pgmbk_allocs, mk.pgmbk_allocs)),
        );
        row.insert(
            "pagein_blocks_per_s".into(),
            json!(rate(mv.pagein_dasd_blocks, mk.pagein_dasd_blocks)),
        );
        row.insert("paging_io_per_s".into(), json!(rate(pstats.ios, pm.ios)));
        let ios = (pstats.ios - pm.ios).max(1) as f64;
        row.insert(
            "paging_service_ms".into(),
            json!((pstats.busy_ns - pm.busy_ns) as f64 / ios / 1e6),
        );
        row.insert(
            "paging_wait_ms".into(),
            json!((pstats.wait_ns - pm.wait_ns) as f64 / ios / 1e6),
        );
        self.sys_rows.push(row);
        self.interval_mv = mv;
        self.interval_paging = pstats;
        self.interval_no += 1;
        self.interval_start = self.now;
        if self.now + self.interval_ns <= self.end {
            self.q.push(self.now + self.interval_ns, ev(EV_INTERVAL, 0));
        }
    }

    /// Per-interval rows, one per (interval, guest), as columns.
    pub fn intervals(&self) -> Vec<Map<String, Value>> {
        self.rows.clone()
    }

    pub fn system_intervals(&self) -> Vec<Map<String, Value>> {
        self.sys_rows.clone()
    }

    pub fn console(&self) -> Vec<Value> {
        self.console.clone()
    }

    /// The run's figures over the measured window (levels: mean of the interval samples).
    pub fn summary(&self) -> Map<String, Value> {
        let mut s = Map::new();
        let n = self.sys_rows.len().max(1) as f64;
        let mean = |k: &str| {
            self.sys_rows
                .iter()
                .map(|r| r.get(k).and_then(Value::as_f64).unwrap_or(0.0))
                .sum::<f64>()
                / n
        };
        let measured_ns: u64 = self.sys_rows.len() as u64 * self.interval_ns;
        let measured_s = measured_ns as f64 / NS_PER_S as f64;
        let frames = self.storage.frames() as u64;
        let virt = self.storage.pages() as u64;
        s.insert("version".into(), json!(crate::VERSION));
        s.insert("scenario_hash".into(), json!(self.hash));
        s.insert("seed".into(), json!(self.seed));
        s.insert("rng".into(), json!(RNG_ALGORITHM));
        s.insert(
            "zvm_level".into(),
            json!(self.scenario.lpar.zvm_level.as_str()),
        );
        s.insert("guests_count".into(), json!(self.guests.len()));
        s.insert("events".into(), json!(self.events));
        s.insert(
            "sim_seconds".into(),
            json!(self.now as f64 / NS_PER_S as f64),
        );
        s.insert("measured_seconds".into(), json!(measured_s));
        s.insert("intervals".into(), json!(self.sys_rows.len()));
        let ended = match &self.ended {
            Some(why) => why.clone(),
            None if self.now >= self.end => "completed".into(),
            None => "stopped early".into(),
        };
        s.insert("ended".into(), json!(ended));
        let tx: u64 = self.guests.iter().map(|g| g.total.tx).sum();
        s.insert("transactions".into(), json!(tx));
        s.insert(
            "throughput_tx_per_s".into(),
            json!(if measured_s > 0.0 {
                tx as f64 / measured_s
            } else {
                0.0
            }),
        );
        for k in [
            "cpu_lpar_pct",
            "cpu_guests_pct",
            "cpu_cp_pct",
            "ifl_utilization_pct",
            "pages_resident",
            "pages_resident_below_2g",
            "pages_resident_above_2g",
            "pages_xstor",
            "pages_dasd",
            "pages_not_in_memory",
            "real_overcommit_pct",
            "ms_to_xs_per_s",
            "xs_to_ms_per_s",
            "xs_to_dasd_per_s",
            "ms_to_dasd_per_s",
            "dasd_to_ms_per_s",
            "steals_per_s",
            "frames_scanned_per_s",
            "paging_io_per_s",
            "paging_service_ms",
            "paging_wait_ms",
            "pgmbk_frames",
            "below_2g_scans_per_s",
            "pgmbk_allocs_per_s",
            "pagein_blocks_per_s",
            "available_frames",
            "available_below_2g",
        ] {
            s.insert(k.into(), json!(mean(k)));
        }
        s.insert("frames_central".into(), json!(frames));
        s.insert("pages_guest_virtual".into(), json!(virt));
        s.insert(
            "planned_overcommit_pct".into(),
            json!(100.0 * virt as f64 / frames as f64 - 100.0),
        );
        s.insert("xstor_blocks".into(), json!(self.storage.xstor.capacity()));
        s.insert("paging_slots".into(), json!(self.storage.slots_total()));
        let resp: u128 = self.guests.iter().map(|g| g.total.resp_ns).sum();
        s.insert(
            "response_ms".into(),
            json!(if tx > 0 {
                resp as f64 / tx as f64 / 1e6
            } else {
                0.0
            }),
        );
        let sum =
            |f: fn(&GuestStats) -> u64| -> u64 { self.guests.iter().map(|g| f(&g.total)).sum() };
        let majflt = sum(|t| t.pgmajfault);
        let pgscand = sum(|t| t.pgscan_direct);
        let kswapd = sum(|t| t.pgscan_kswapd);
        let per_tx = |f: fn(&GuestStats) -> u64| {
            let ns: u64 = self.guests.iter().map(|g| f(&g.total)).sum();
            if tx > 0 {
                ns as f64 / tx as f64 / 1e6
            } else {
                0.0
            }
        };
        s.insert(
            "wait_db_read_ms_per_tx".into(),
            json!(per_tx(|t| t.wait_db_ns)),
        );
        s.insert(
            "wait_page_fault_ms_per_tx".into(),
            json!(per_tx(|t| t.wait_fault_ns)),
        );
        s.insert(
            "wait_swap_in_ms_per_tx".into(),
            json!(per_tx(|t| t.wait_swap_ns)),
        );
        s.insert("cpu_ms_per_tx".into(), json!(per_tx(|t| t.cpu_ns)));
        s.insert("guest_pgmajfault".into(), json!(majflt));
        s.insert("guest_pswpin".into(), json!(sum(|t| t.pswpin)));
        s.insert("guest_pswpout".into(), json!(sum(|t| t.pswpout)));
        s.insert(
            "guest_double_paging".into(),
            json!(sum(|t| t.double_paging)),
        );
        let swap_used: u64 = self.guests.iter().map(|g| g.mem.swap_used()).sum();
        s.insert("guest_swap_used_pages".into(), json!(swap_used));
        s.insert("guest_pgscand".into(), json!(pgscand));
        s.insert("guest_pgscan_kswapd".into(), json!(kswapd));
        let guests: Vec<Value> = self
            .guests
            .iter()
            .enumerate()
            .map(|(gi, g)| {
                let t = &g.total;
                let hit = g.db.as_ref().map(|d| d.hits as f64 / (d.hits + d.misses).max(1) as f64);
                json!({
                    "name": g.name,
                    "transactions": t.tx,
                    "throughput_tx_per_s": if measured_s > 0.0 { t.tx as f64 / measured_s } else { 0.0 },
                    "response_ms": if t.tx > 0 { t.resp_ns as f64 / t.tx as f64 / 1e6 } else { 0.0 },
                    "cpu_pct": 100.0 * t.cpu_ns as f64 / measured_ns.max(1) as f64,
                    "cp_pct": 100.0 * t.cp_ns as f64 / measured_ns.max(1) as f64,
                    "resident_pages": self.storage.space_locations(SpaceId(gi as u32)).resident,
                    "pages_xstor": self.storage.space_locations(SpaceId(gi as u32)).xstor,
                    "pages_dasd": self.storage.space_locations(SpaceId(gi as u32)).dasd,
                    "db_buffer_hit_ratio": hit,
                    "page_faults_dasd": t.page_faults_dasd,
                    "page_faults_xstor": t.page_faults_xstor,
                    "pgscan_direct": t.pgscan_direct,
                    "pgscan_kswapd": t.pgscan_kswapd,
                    "pgmajfault": t.pgmajfault,
                    "pswpin": t.pswpin,
                    "pswpout": t.pswpout,
                    "swap_used_pages": g.mem.swap_used(),
                    "wait_swap_in_ms": if t.tx > 0 { t.wait_swap_ns as f64 / t.tx as f64 / 1e6 } else { 0.0 },
                })
            })
            .collect();
        s.insert("guests".into(), Value::Array(guests));
        s
    }

    /// For tests: the storage model's invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.storage.check_invariants()?;
        for g in &self.guests {
            g.mem.check().map_err(|e| format!("{}: {e}", g.name))?;
        }
        Ok(())
    }
}
