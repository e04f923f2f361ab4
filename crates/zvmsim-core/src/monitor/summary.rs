//! The run's summary: figures over the measured window, typed. Levels are the means of the
//! interval samples (as the Performance Toolkit averages its interval reports); counts are
//! sums over the window.

use serde::Serialize;

use super::rows::SystemRow;
use super::steady::SteadyState;

macro_rules! means {
    ($( $(#[doc = $d:expr])* $f:ident, )*) => {
        /// Means over the measured intervals of the system rows' figures.
        #[derive(Debug, Clone, Default, Serialize)]
        pub struct SystemMeans { $( $(#[doc = $d])* pub $f: f64, )* }
        impl SystemMeans {
            pub fn of(rows: &[SystemRow]) -> Self {
                let n = rows.len().max(1) as f64;
                SystemMeans { $( $f: rows.iter().map(|r| r.$f as f64).sum::<f64>() / n, )* }
            }
        }
    };
}

means! {
    cpu_lpar_pct,
    cpu_guests_pct,
    cpu_cp_pct,
    cpu_cp_system_pct,
    ifl_utilization_pct,
    dispatch_list_avg,
    pages_resident,
    pages_resident_below_2g,
    pages_resident_above_2g,
    pages_xstor,
    pages_dasd,
    pages_not_in_memory,
    real_overcommit_pct,
    ms_to_xs_per_s,
    xs_to_ms_per_s,
    xs_to_dasd_per_s,
    ms_to_dasd_per_s,
    dasd_to_ms_per_s,
    steals_per_s,
    companions_stolen_per_s,
    cmma_reclaimed_per_s,
    frames_deferred_per_s,
    frames_scanned_per_s,
    paging_io_per_s,
    paging_service_ms,
    paging_wait_ms,
    pgmbk_frames,
    below_2g_scans_per_s,
    pgmbk_allocs_per_s,
    pagein_blocks_per_s,
    available_frames,
    available_below_2g,
    vmrm_notifications,
    virtual_io_per_s,
    dasd_io_per_s,
    dasd_avoid_per_s,
    mdc_hit_pct,
    mdc_frames,
}

/// Means over the measured intervals of the aging list's figures (z/VM 6.3 and later).
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgelistMeans {
    pub agelist_target_frames: f64,
    pub agelist_frames: f64,
    pub agelist_invalidated_per_s: f64,
    pub agelist_reclaimed_per_s: f64,
    pub agelist_revalidated_per_s: f64,
    pub agelist_early_writes_per_s: f64,
    pub agelist_slots_released_per_s: f64,
}

impl AgelistMeans {
    /// `None` where the rows have no aging list (releases before 6.3).
    pub fn of(rows: &[SystemRow]) -> Option<Self> {
        if rows.is_empty() || rows.iter().any(|r| r.agelist_frames.is_none()) {
            return None;
        }
        let n = rows.len() as f64;
        let u = |f: fn(&SystemRow) -> Option<u64>| {
            rows.iter().map(|r| f(r).unwrap_or(0) as f64).sum::<f64>() / n
        };
        let r = |f: fn(&SystemRow) -> Option<f64>| {
            rows.iter().map(|r| f(r).unwrap_or(0.0)).sum::<f64>() / n
        };
        Some(AgelistMeans {
            agelist_target_frames: u(|x| x.agelist_target_frames),
            agelist_frames: u(|x| x.agelist_frames),
            agelist_invalidated_per_s: r(|x| x.agelist_invalidated_per_s),
            agelist_reclaimed_per_s: r(|x| x.agelist_reclaimed_per_s),
            agelist_revalidated_per_s: r(|x| x.agelist_revalidated_per_s),
            agelist_early_writes_per_s: r(|x| x.agelist_early_writes_per_s),
            agelist_slots_released_per_s: r(|x| x.agelist_slots_released_per_s),
        })
    }
}

/// One guest over the measured window.
#[derive(Debug, Clone, Serialize)]
pub struct GuestSummary {
    pub name: String,
    pub transactions: u64,
    pub throughput_tx_per_s: f64,
    pub response_ms: f64,
    pub response_max_ms: f64,
    pub cpu_pct: f64,
    pub cp_pct: f64,
    pub resident_pages: u64,
    pub pages_xstor: u64,
    pub pages_dasd: u64,
    pub db_buffer_hit_ratio: Option<f64>,
    /// Database reads and writes the guest issued to its user DASD in the window (a database
    /// writes a buffer when the pool's clock evicts it dirty: none while the clock is still in
    /// its first revolution after the warm start).
    pub db_reads: u64,
    pub db_writes: u64,
    pub page_faults_dasd: u64,
    /// The DASD page faults that stopped the guest's virtual CPU (kernel mode or no pfault):
    /// with pfault only these cost the guest a processor while the page is read.
    pub page_faults_vcpu_stopped: u64,
    pub page_faults_xstor: u64,
    pub pgscan_direct: u64,
    pub pgscan_kswapd: u64,
    pub pgmajfault: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    pub swap_used_pages: u64,
    pub wait_swap_in_ms: f64,
    pub cmma: bool,
    pub discard_faults: u64,
    /// The cmm balloon (static and timed pools), mean over the intervals, in pages.
    pub cmm_pages_mean: f64,
    /// Balloon pages given to CP (DIAGNOSE X'10') over the window.
    pub cmm_diag10_pages: u64,
    /// VMRM's notifications to the guest over the window.
    pub vmrm_notifications: u64,
}

/// A console command that held its user's console, and how long.
#[derive(Debug, Clone, Serialize)]
pub struct TimedCommand {
    pub user: String,
    pub command: String,
    pub elapsed_s: f64,
}

/// The summary of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub version: &'static str,
    pub scenario_hash: String,
    pub seed: u64,
    pub rng: &'static str,
    pub zvm_level: &'static str,
    pub guests_count: usize,
    pub events: u64,
    pub sim_seconds: f64,
    pub measured_seconds: f64,
    pub intervals: usize,
    /// "completed", "stopped early", or why the system stopped (e.g. PGT004).
    pub ended: String,
    /// Console commands that took time (SAVESEG, a DCSS add or save, a fill), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timed_commands: Vec<TimedCommand>,
    pub transactions: u64,
    pub throughput_tx_per_s: f64,
    #[serde(flatten)]
    pub means: SystemMeans,
    /// The aging list's means (z/VM 6.3 and later; left out before).
    #[serde(flatten)]
    pub agelist: Option<AgelistMeans>,
    /// The share of paging reads the storage server's cache served, mean over the intervals
    /// (`paging.cache`; left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging_read_hit_pct: Option<f64>,
    pub frames_central: u64,
    pub pages_guest_virtual: u64,
    pub planned_overcommit_pct: f64,
    pub xstor_blocks: u64,
    pub paging_slots: u64,
    pub response_ms: f64,
    pub wait_db_read_ms_per_tx: f64,
    pub wait_page_fault_ms_per_tx: f64,
    pub wait_swap_in_ms_per_tx: f64,
    pub cpu_ms_per_tx: f64,
    pub guest_pgmajfault: u64,
    pub guest_pswpin: u64,
    pub guest_pswpout: u64,
    pub guest_double_paging: u64,
    pub guest_swap_used_pages: u64,
    pub guest_pgscand: u64,
    pub guest_pgscan_kswapd: u64,
    /// All guests' database writes in the window (`GuestSummary::db_writes`).
    pub guest_db_writes: u64,
    /// CMMA: guests with CMMA in effect; discard faults and ESSA state changes over the window;
    /// pages in the unused, volatile and stable states at the end (stable: CMMA guests only).
    pub cmma_guests: usize,
    pub guest_discard_faults: u64,
    pub guest_essa: u64,
    pub cmma_unused_pages: u64,
    pub cmma_volatile_pages: u64,
    pub cmma_stable_pages: u64,
    pub guests: Vec<GuestSummary>,
    /// The staged I/O path's figures, when the scenario has an `[io]` table.
    #[serde(flatten)]
    pub dasd: Option<DasdSummary>,
    /// Whether the headline figures drifted across the measured intervals (monitor/steady.rs).
    pub steady_state: SteadyState,
    /// The file-serving figures of a run with the apache workload (seed 001's report).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web: Option<WebSummary>,
    /// Where the saved segments' shared pages are, in runs with a spool for them or an
    /// application server's program text as files (seed 000's Figures 18-19; seed 001;
    /// system/text_view.rs).
    #[serde(flatten)]
    pub dcss_pages: Option<DcssPages>,
    /// dbench's figures, in runs of the dbench workload (workload/dbench.rs).
    #[serde(flatten)]
    pub dbench: Option<DbenchSummary>,
}

/// dbench over the measured window, summed over the guests running it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DbenchSummary {
    /// Client processes.
    pub dbench_clients: u32,
    /// dbench's "Throughput N MB/sec": bytes read and written per second (10^6 bytes).
    pub dbench_mb_s: f64,
    /// Loadfile operations per second.
    pub dbench_ops_per_s: f64,
    /// CPU the clients spun waiting for the kernel's global locks, in % of the guests'
    /// virtual CPUs' time.
    pub dbench_lock_spin_pct: f64,
    /// Time the big kernel lock was held, in % of the window (each guest's own; their mean).
    pub dbench_bkl_busy_pct: f64,
}

/// Means of the interval samples of the saved segments' shared pages: loaded (anywhere),
/// resident in central storage, in XSTOR, on paging DASD; and the largest resident sample.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DcssPages {
    pub dcss_loaded_pages: f64,
    pub dcss_resident_pages: f64,
    pub dcss_resident_pages_max: u64,
    pub dcss_xstor_pages: f64,
    pub dcss_dasd_pages: f64,
}

/// The figures seed 001 reports per run, over the measured window (system/web_view.rs).
#[derive(Debug, Clone, Default, Serialize)]
pub struct WebSummary {
    /// CP time (for the guests and CP's own) and guest (emulation) time per transaction.
    pub cp_msec_per_tx: f64,
    pub emul_msec_per_tx: f64,
    /// LPAR busy per processor, %.
    pub total_util_per_proc_pct: f64,
    /// Guests' I/Os to their minidisks (virtual I/O), real DASD I/Os (all volumes, paging
    /// included), reads MDC answered without DASD I/O, and paging I/Os, per second.
    pub virtual_io_per_s: f64,
    pub dasd_io_per_s: f64,
    pub dasd_avoid_per_s: f64,
    pub dasd_paging_per_s: f64,
    /// Share of the measured time the Apache servers' connections waited for reads (file
    /// I/O and host page-ins), mean over the servers, %.
    pub io_wait_pct: f64,
    /// Means of the interval samples: resident pages, pages on DASD, frames of saved
    /// segments' shared copies, the available lists.
    pub resident_pages_total: f64,
    pub resident_pages_dasd: f64,
    pub resident_shared_frames: f64,
    pub avail_list_below_2g: f64,
    pub avail_list_above_2g: f64,
    /// Real DASD (all volumes): mean service time, response time (queue wait plus service)
    /// and I/Os waiting for their volume (time-weighted mean).
    pub dasd_service_ms: f64,
    pub dasd_response_ms: f64,
    pub dasd_queue: f64,
}

/// The DASD I/O path over the measured window (scenarios with `[io]`).
#[derive(Debug, Clone, Serialize)]
pub struct DasdSummary {
    /// Guest DASD throughput (reads + writes), MB/s (10^6 bytes).
    pub dasd_mb_per_s: f64,
    pub dasd_driver_io_per_s: f64,
    /// Mean time from a request's submission in Linux to its completion.
    pub dasd_response_ms: f64,
    /// CPU of the guests and of CP for them, in % of one processor.
    pub io_cpu_pct: f64,
    /// Throughput per CPU: MB/s per processor busy (guest + CP).
    pub mb_per_cpu_s: f64,
    /// Share of channel programs that ran on alias subchannels.
    pub alias_io_pct: f64,
    /// Requests the Linux alias choice kept on the base (the round-robin alias was not less
    /// busy than the base), in % of all requests.
    pub kept_on_base_pct: f64,
    /// Storage server: read hits in % of reads; writes' mean wait for NVS space.
    pub read_hit_pct: f64,
    pub nvs_wait_ms_per_write: f64,
    /// Mean utilization of the ranks' disks.
    pub disk_util_pct: f64,
    /// Mean utilization of the channel links.
    pub chpid_util_pct: f64,
    /// The busiest host adapter's utilization (processor and data path), and the shared NVS
    /// copy path's (ESS 2105), over the whole run.
    pub ha_util_pct: f64,
    pub nvs_copy_util_pct: f64,
    /// Channel programs the control unit held for an extent conflict, in % of all, and
    /// their mean wait.
    pub extent_wait_pct: f64,
    pub extent_wait_ms: f64,
    /// The DASD block tasklets (linux/dasdblock.rs) over the whole run: passes a second, time
    /// running (% of one CPU, summed over block devices), CPU spinning for a pass running
    /// elsewhere (% of one CPU).
    pub block_passes_per_s: f64,
    pub block_tasklet_busy_pct: f64,
    pub block_tasklet_spin_pct: f64,
    /// iozone's "Children see throughput" of its write and read tests, MiB/s (when a
    /// guest runs iozone and every process finished the test).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iozone_write_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iozone_read_mb_s: Option<f64>,
    /// During iozone's write and its read test: utilization of each stage's busiest unit,
    /// channel (link), host adapter, NVS copy path, disk, cluster cache; the highest is the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iozone_write_util_pct: Option<[f64; 5]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iozone_read_util_pct: Option<[f64; 5]>,
}

/// `num / den`, or 0 with nothing to divide by.
pub fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}
