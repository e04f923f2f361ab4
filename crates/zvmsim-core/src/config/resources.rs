//! The memory a run will need, estimated from the scenario before anything is allocated, and
//! the check of that estimate against what the machine (or `--max-memory`) allows. The model's
//! state is flat arrays sized by the scenario: CP's per-page, per-frame, per-block and per-slot
//! tables, each guest's Linux page pool and database maps, and the statistics rows of each
//! interval; everything else is small beside them or bounded (event queue, I/O queues).
//! `tests/test_resources.py` checks the estimate against the peak resident memory measured on
//! the shipped scenarios (within a factor of 2); `tests/hardening/resources.rs` its drivers.

use crate::config::scenario::{Scenario, ScenarioError, Source, WorkloadKind};
use crate::config::units::Size;
use crate::monitor::rows::{GuestRow, SystemRow};

/// Bytes per guest page in CP's tables: the page word (frame or XSTOR block, DASD slot, flags;
/// a page on the aging list keeps its frame in it), plus its share of the segment tables.
const CP_PER_PAGE: u64 = 9;
/// z/VM 6.3 and later (cp/storage/agelist.rs): per frame its list links (two u32) and
/// early-write bit.
const AGING_PER_FRAME: u64 = 8;
/// Bytes per real frame (owning page), per XSTOR block (owner, age) and per paging slot (its
/// page, 4, and its group's share of a free-list entry once freed after use, 0.5 with blocks
/// of 8; a group's live slots are counted from its pages; the slots of groups never handed out
/// are never written and cost nothing, but a long run may reach them all).
const CP_PER_FRAME: u64 = 4;
const CP_PER_XSTOR_BLOCK: u64 = 8;
const CP_PER_SLOT: u64 = 5;
/// Linux: per pool page its state (u32) and referenced bit, in eighths of a byte; free pages
/// above every page ever used need no free-list entry (engine/freelist.rs), and those below are
/// few beside the pool; per page the page cache can hold (the pool less the shared memory, at
/// most the database) an index slot (u32) at a load of at most 0.7 (linux/pcindex.rs); per
/// buffer its slot in the buffer pool's table of blocks (u32 at a load of at most 0.7,
/// workload/database.rs); per shared-memory page its buffer's block (u32), and its place and swap slot
/// (linux/anon.rs: implied while every page sits in the pool page of its number, but counted,
/// as reclaim may end that during the run); per swap slot its owner and free-list entry (the
/// latter only for slots freed after use: counted, as a swap-bound run frees them all); per
/// pool page a buffer-heads bit (held from the first page a file write gives them).
const LINUX_PER_POOL_PAGE_EIGHTHS: u64 = 34;
/// A guest without a workload never uses its pool pages: their words are zeroed memory never
/// written (linux/pool.rs), and only the referenced bit is held.
const IDLE_POOL_PAGE_EIGHTHS: u64 = 1;
/// Page-cache index bytes per cacheable page: 4 bytes at 7 entries per 10 slots.
const PC_INDEX_NUM: u64 = 40;
const PC_INDEX_DEN: u64 = 7;
const PER_DB_BUFFER: u64 = 6;
const PER_SHM_PAGE: u64 = 12;
const PER_SWAP_SLOT: u64 = 8;
/// Each statistics row is held as a row, copied into columns, and handed to Python as Arrow
/// buffers and a data frame: four copies at the peak (inference from the path in
/// crates/zvmsim-py and python/zvmsim/results.py).
const ROW_COPIES: u64 = 4;
/// Heap of a guest row beyond its struct: the guest's name.
const ROW_HEAP: u64 = 32;
/// The process itself: Python with polars, pyarrow and duckdb loaded (about 85 MB), the
/// buffers of the results writers (about 55 MB) and the model's small structures. Measured with
/// `zvmsim run` on the quickstart (peak RSS before the build and after saving): 140 MB, taken
/// as 200 MB for other versions of those libraries.
pub const BASE_BYTES: u64 = 200 << 20;

/// What a run needs, and which fields drive it.
#[derive(Debug, Clone)]
pub struct Estimate {
    pub bytes: u64,
    /// (field, bytes), largest first.
    pub drivers: Vec<(String, u64)>,
}

impl Estimate {
    /// The estimate rounded up to a whole MiB, for messages.
    pub fn size(&self) -> Size {
        Size(round_mib(self.bytes))
    }
}

pub fn estimate(s: &Scenario) -> Estimate {
    let mut drivers: Vec<(String, u64)> = Vec::new();
    let mut add = |field: String, bytes: u64| {
        if let Some(d) = drivers.iter_mut().find(|d| d.0 == field) {
            d.1 = d.1.saturating_add(bytes);
        } else {
            drivers.push((field, bytes));
        }
    };
    // Frames and slots are handed out lowest first and reused once freed, so their tables
    // are written no further than the most ever in use: at most the guest pages ever used,
    // unless CP may also fill frames with data of its own (minidisk cache, saved segments,
    // VDISK), which the scenario may ask for.
    let touched: u64 = s
        .guests
        .iter()
        .map(|g| u64::from(g.count).saturating_mul(guest_pages_bound(g)))
        .fold(0, u64::saturating_add);
    let bound = if cp_may_own_frames(s) {
        u64::MAX
    } else {
        touched
    };
    let aging = s.lpar.zvm_level.has_agelist();
    let per_frame = CP_PER_FRAME + if aging { AGING_PER_FRAME } else { 0 };
    add(
        "lpar.central".into(),
        s.lpar.central.pages().min(bound) * per_frame,
    );
    add(
        "lpar.expanded".into(),
        s.lpar.expanded.pages().min(bound) * CP_PER_XSTOR_BLOCK,
    );
    let slots_field = if s.paging.slots.is_some() {
        "paging.slots"
    } else {
        "paging.volumes"
    };
    add(
        slots_field.into(),
        s.paging_slots().min(bound).saturating_mul(CP_PER_SLOT),
    );
    let mut guests: u64 = 0;
    for (i, g) in s.guests.iter().enumerate() {
        let n = u64::from(g.count);
        guests += n;
        let pages = g.storage.pages();
        let pool = pages.saturating_sub(g.linux.kernel.pages());
        let pool_eighths = if g.workload.is_some() {
            LINUX_PER_POOL_PAGE_EIGHTHS
        } else {
            IDLE_POOL_PAGE_EIGHTHS
        };
        // The page words of storage never used are never written, but only in whole host
        // pages of words (2 MB with transparent huge pages): a used part is rounded up to
        // whole runs, plus one where it does not start on a run's boundary.
        let used = guest_pages_bound(g);
        let words = if used < pages {
            (used.div_ceil(WORDS_PER_RUN) + 1)
                .saturating_mul(WORDS_PER_RUN)
                .min(pages)
        } else {
            pages
        };
        add(
            format!("guests[{i}].storage"),
            n.saturating_mul(words * CP_PER_PAGE + pool * pool_eighths / 8),
        );
        add(
            format!("guests[{i}].linux.swap"),
            n.saturating_mul(g.linux.swap.pages() * PER_SWAP_SLOT),
        );
        let db = g
            .workload
            .as_ref()
            .and_then(|w| s.workloads.get(w).map(|ws| (w, ws)))
            .and_then(|(w, ws)| ws.database.as_ref().map(|d| (w, d)));
        if let Some((w, d)) = db {
            let shm = d.shared_memory.unwrap_or(d.cache).pages();
            let cacheable = pool.saturating_sub(shm).min(d.size.pages());
            add(
                format!("workloads.{w}.database.size"),
                n.saturating_mul(cacheable * PC_INDEX_NUM / PC_INDEX_DEN),
            );
            add(
                format!("workloads.{w}.database.cache"),
                n.saturating_mul(d.cache.pages().min(d.size.pages()) * PER_DB_BUFFER),
            );
            add(
                format!("workloads.{w}.database.shared_memory"),
                n.saturating_mul(shm * PER_SHM_PAGE),
            );
        }
    }
    let intervals = s.run.measure.ns() / s.run.interval.ns().max(1) + 1;
    let row = (std::mem::size_of::<GuestRow>() as u64 + ROW_HEAP) * guests
        + std::mem::size_of::<SystemRow>() as u64;
    add(
        "run.interval".into(),
        intervals.saturating_mul(row).saturating_mul(ROW_COPIES),
    );
    drivers.retain(|d| d.1 > 0);
    drivers.sort_by_key(|d| std::cmp::Reverse(d.1));
    let bytes = drivers
        .iter()
        .fold(BASE_BYTES, |acc, d| acc.saturating_add(d.1));
    Estimate { bytes, drivers }
}

/// Page words in a 2 MB host page (engine/huge.rs maps the page-word array with them).
const WORDS_PER_RUN: u64 = (2 << 20) / 8;

/// The guest pages a guest of `g` may use in the run: all of its storage when it runs a
/// workload (it may go on to fill its memory with page cache), else what it had used at the
/// start (`[guests.linux] used`), which an idle guest never leaves.
fn guest_pages_bound(g: &crate::config::scenario::GuestSpec) -> u64 {
    let pages = g.storage.pages();
    match g.workload {
        Some(_) => pages,
        None => g.linux.used_pages(pages),
    }
}

/// Whether the scenario may have CP hold data of its own in frames beside guest pages: shared
/// minidisks (minidisk cache), directory statements (minidisks, saved segments), a spool
/// (saved segments), or a console command other than a query.
fn cp_may_own_frames(s: &Scenario) -> bool {
    let query = |c: &str| {
        let verb = c
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        [
            "Q", "QU", "QUE", "QUER", "QUERY", "IND", "INDI", "INDIC", "INDICA", "INDICAT",
            "INDICATE",
        ]
        .contains(&verb.as_str())
    };
    s.spool.is_some()
        || s.guests
            .iter()
            .any(|g| !g.directory.is_empty() || g.dasd.iter().any(|d| d.shared))
        || s.console.iter().any(|c| {
            c.linux.is_some() || c.cms.is_some() || c.cp.as_deref().is_some_and(|x| !query(x))
        })
}

/// Memory this machine can give a run: MemAvailable of /proc/meminfo (None elsewhere).
pub fn machine_available() -> Option<Size> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(Size(kb * 1024))
}

/// Refuses a run whose estimate exceeds `limit` (from `--max-memory`, or the machine's
/// available memory), located at the field that drives it most.
pub fn check(
    s: &Scenario,
    src: &Source,
    limit: Size,
    limit_from: &str,
) -> Result<Estimate, ScenarioError> {
    let e = estimate(s);
    if e.bytes <= limit.bytes() {
        return Ok(e);
    }
    let top = e
        .drivers
        .first()
        .map(|d| d.0.clone())
        .unwrap_or_else(|| "guests".into());
    let drivers: Vec<String> = e
        .drivers
        .iter()
        .take(3)
        .map(|(f, b)| format!("{f} {}", Size(round_mib(*b))))
        .collect();
    Err(src.error(
        &top,
        format!(
            "this run would need about {} of memory, more than {limit_from} ({}); it is driven by {}",
            Size(round_mib(e.bytes)),
            Size(round_mib(limit.bytes())),
            drivers.join(", ")
        ),
    ))
}

fn round_mib(b: u64) -> u64 {
    b.div_ceil(1 << 20) << 20
}

/// Largest number of events a run may plan: about three hours of wall time at the simulator's
/// usual million events a second (zvmsim's bound, an inference: a study is several runs).
pub const MAX_EVENTS: u64 = 10_000_000_000;

/// Events per I/O of an fio or iozone process, at most: the guest's start of the channel
/// program (`IoEvent::GuestStart`), its end (`IoEvent::Complete`) and the wake and run of the
/// process that waits for it (a dispatch), plus one to spare. Measured (25-s runs of the
/// seed-003 and seed-004 scenarios): 2.0 (one fio job, 20 aliases), 2.9 (four jobs, 20
/// aliases), 3.0 (four jobs, minidisk, no alias), 2.7 (iozone through PAV, per request).
const EVENTS_PER_IO: f64 = 4.0;

/// The I/Os a second an fio or iozone workload can make at most: every I/O costs its process
/// the guest CPU of its submission and completion (`[io.cost]` linux_submit, linux_complete;
/// fio adds app_per_io per I/O, iozone's records are not I/Os), run on the virtual CPUs of
/// the guests running it, which never get more than the LPAR's IFLs. Seed 003, four fio jobs:
/// 8 virtual CPUs / 22 us = 364,000 I/Os a second, where the model reaches 50,000 (the
/// storage server's host-adapter cards limit it).
fn io_rate(s: &Scenario, w: &crate::config::scenario::WorkloadSpec, cpus: f64) -> f64 {
    let cost = s.io.as_ref().map(|io| io.cost.clone()).unwrap_or_default();
    let mut per_io = cost.linux_submit.secs_f64() + cost.linux_complete.secs_f64();
    if w.kind == WorkloadKind::Fio {
        per_io += cost.app_per_io.secs_f64();
    }
    cpus.min(f64::from(s.lpar.ifls)) / per_io.max(1e-6)
}

/// An upper bound on a run's events: each workload's transactions at the rate its CPU or its
/// users allow at most (closed loop: users / think time; CPU: IFLs / CPU per transaction), a
/// handful of events per transaction plus some per database reference (faults, I/O), and the
/// dispatcher's time slices on every IFL. The quickstart (45 simulated minutes) plans 57 million
/// and runs 8.4 million; over its former 90 s, 1.8 and 0.4. An fio or iozone workload has
/// neither users nor CPU per transaction: its I/Os at the rate its guests' CPU allows
/// ([`io_rate`]), [`EVENTS_PER_IO`] each (seed 003, four fio jobs: 1.5 million a second
/// planned, 147,000 run; before, the 1-us floor of CPU per transaction planned 64 million and
/// refused a run longer than 156 s).
pub fn estimate_events(s: &Scenario) -> u64 {
    let secs = s.end_ns() as f64 / 1e9;
    let ifls = f64::from(s.lpar.ifls);
    let mut rate = 0.0;
    for (name, w) in &s.workloads {
        let mine = || {
            s.guests
                .iter()
                .filter(|g| g.workload.as_deref() == Some(name.as_str()))
        };
        let guests: u64 = mine().map(|g| u64::from(g.count)).sum();
        if let (WorkloadKind::Dbench, Some(d)) = (w.kind, &w.dbench) {
            // One operation per burst: its start, its end and the burst's end, plus one to
            // spare, at the rate the clients' CPU allows (each costs at least per_op).
            let vcpus: f64 = mine()
                .map(|g| f64::from(g.count) * f64::from(g.vcpus))
                .sum();
            // A nanosecond floor (validation refuses 0): a coarser one would plan too few
            // events for a cost under it, and pass a run of hours.
            let per_op = d.cost.per_op.secs_f64().max(1e-9);
            rate += vcpus.min(ifls) / per_op * 4.0;
            continue;
        }
        if matches!(w.kind, WorkloadKind::Fio | WorkloadKind::Iozone) {
            let vcpus: f64 = mine()
                .map(|g| f64::from(g.count) * f64::from(g.vcpus))
                .sum();
            rate += io_rate(s, w, vcpus) * EVENTS_PER_IO;
            continue;
        }
        let users = match (w.users, w.users_total) {
            (Some(u), _) => f64::from(u) * guests as f64,
            (_, Some(t)) => f64::from(t),
            _ => 0.0,
        };
        let weights: f64 = w.transactions.iter().map(|t| t.weight).sum();
        let mean = |f: &dyn Fn(&crate::config::scenario::TxType) -> f64| {
            if weights > 0.0 {
                w.transactions.iter().map(|t| t.weight * f(t)).sum::<f64>() / weights
            } else {
                0.0
            }
        };
        let mut cpu = w
            .cpu_per_tx
            .map(|c| c.secs_f64())
            .unwrap_or_else(|| mean(&|t| t.cpu.secs_f64()))
            .max(1e-6);
        let mut refs = w
            .db_refs
            .map(f64::from)
            .unwrap_or_else(|| mean(&|t| f64::from(t.db_refs)));
        if let Some(a) = &w.apache {
            // A file: the server's, client's and CP's CPU per MB; an I/O per readahead window.
            let mb = a.file_size.bytes() as f64 / f64::from(1 << 20);
            let per_mb = a.server_cpu_per_mb.secs_f64()
                + a.client_cpu_per_mb.secs_f64()
                + a.cp_network_per_mb.secs_f64();
            cpu = (per_mb * mb).max(1e-6);
            refs = 4.0 * f64::from(a.file_pages() / a.window());
        }
        if let Some(a) = &w.appserver {
            // A request: its CPU, and its heap and program-text references (each may fault).
            // Without them a request planned no work at all, and refs_per_request = 2^32 - 1
            // passed as a run that never ends.
            cpu = a.cpu_per_request.secs_f64().max(1e-6);
            refs = f64::from(a.refs_per_request)
                + a.text
                    .as_ref()
                    .map_or(0.0, |t| f64::from(t.refs_per_request));
        }
        let think = w.think_time.secs_f64();
        let by_users = if think > 0.0 {
            users / think
        } else {
            f64::INFINITY
        };
        let tx_rate = by_users.min(ifls / cpu);
        rate += tx_rate * (4.0 + refs / 4.0);
    }
    rate += ifls / s.model.time_slice.secs_f64().max(1e-3);
    let events = rate * secs;
    if events.is_finite() {
        events as u64
    } else {
        u64::MAX
    }
}

/// Refuses a run planning more than [`MAX_EVENTS`], at its measured window.
pub fn check_events(s: &Scenario, src: &Source) -> Result<u64, ScenarioError> {
    let events = estimate_events(s);
    if events <= MAX_EVENTS {
        return Ok(events);
    }
    Err(src.error(
        "run.measure",
        format!(
            "this run could take up to {:.1e} events, over zvmsim's bound of {MAX_EVENTS:.0e} (hours of wall time at a million events a second): shorten run.priming or run.measure ({} in all)",
            events as f64,
            crate::config::units::Duration(s.end_ns())
        ),
    ))
}
