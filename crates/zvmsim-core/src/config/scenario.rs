//! The scenario format: one TOML file describing the LPAR, its paging space, the guests (as a
//! user directory would), their workloads, the run control and a console script of CP and Linux
//! commands. This module is the one place the schema lives; `zvmsim schema` prints its JSON
//! Schema. Every table denies unknown keys, and every error names file, line, column and field
//! (located by `config::source`; `--set` overrides are applied by `config::overrides`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::units::{Duration, Size};

pub use crate::config::agelist::{AgelistSettings, AgelistSize, AgelistSpec};
pub use crate::config::level::ZvmLevel;
pub use crate::config::linux::LinuxSpec;
pub use crate::config::source::{blame_override, parse, ScenarioError, Source};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A title for reports.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub lpar: Lpar,
    /// CP-owned paging space (DASD page slots). Required once guests overcommit storage.
    #[serde(default)]
    pub paging: Paging,
    pub run: RunControl,
    /// User directory entries: a name (or a pattern) with a count.
    pub guests: Vec<GuestSpec>,
    /// Workloads by name, referenced from guests.
    #[serde(default)]
    pub workloads: BTreeMap<String, WorkloadSpec>,
    /// Console script: CP and Linux commands in their real syntax, at simulated times.
    #[serde(default)]
    pub console: Vec<ConsoleEntry>,
    /// Global physical parameters of the model (CPU costs, device times). Defaults are
    /// documented in `config/params.rs`; override only for what-if studies.
    #[serde(default)]
    pub model: crate::config::params::ModelParams,
    /// The VM Resource Manager service machine (VMRMSVM): its VMRM CONFIG file and how its
    /// memory-constraint test is set. Absent: VMRMSVM has no configuration and is not started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vmrm: Option<VmrmSpec>,
    /// The real I/O configuration: channels, LCUs with base and alias devices, the storage
    /// server (`config/io.rs`). Absent: volumes with the calibrated fixed service times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<crate::config::io::IoSpec>,
    /// CP's spool volumes, which hold the saved segments' system data files (`[spool]`).
    /// Absent: no spool space for saved segments (SAVESEG of saved pages is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spool: Option<SpoolSpec>,
}

/// The spool volumes (CP-owned, on the storage server, outside `[io]`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpoolSpec {
    pub volumes: Vec<VolumeSet>,
    /// Fraction of spool reads served from the storage server's cache. Default 1: CP reads a
    /// spool file in the order it wrote it, a sequential stream the server prefetches.
    #[serde(default = "default_spool_hit")]
    pub cache_hit: f64,
}

fn default_spool_hit() -> f64 {
    1.0
}

impl SpoolSpec {
    /// 4 KB pages of spool space.
    pub fn pages(&self) -> u64 {
        self.volumes
            .iter()
            .map(|v| v.model.pages() * v.count as u64)
            .sum()
    }
}

/// VMRMSVM's configuration: the text of its VMRM CONFIG file and the settings of its
/// memory-constraint test. IBM does not publish how VMRM-CMM decides that storage is
/// constrained or how it sizes SHRINK; the fields after `config` are the model's documented
/// inference (see cp/vmrm/server.rs), each configurable.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VmrmSpec {
    /// VMRM CONFIG on VMRMSVM's A-disk: ADMIN, GOAL, MANAGE, NOTIFY and WORKLOAD statements.
    pub config: String,
    /// How often VMRM reads the monitor data and acts: the CP monitor sample interval, which
    /// IBM recommends setting to one minute for VMRM (z/VM Performance, "VMRM Tuning
    /// Parameters").
    #[serde(default = "default_vmrm_interval")]
    pub interval: Duration,
    /// DASD paging rate (page reads and writes of paging DASD per second over the interval)
    /// at or above which storage is constrained. Inference.
    #[serde(default = "default_vmrm_constrained")]
    pub constrained_paging: f64,
    /// DASD paging rate below which the constraint has eased and SHRINK targets fall.
    /// Inference.
    #[serde(default = "default_vmrm_relieved")]
    pub relieved_paging: f64,
    /// Share of the SHRINK targets given back in each interval the constraint has eased.
    /// Inference.
    #[serde(default = "default_vmrm_relief_step")]
    pub relief_step: f64,
    /// Largest SHRINK target, as a share of the guest's virtual storage. Inference: a guest
    /// keeps three quarters of its storage; a balloon larger than the guest's page cache and
    /// free pages pushes its allocated memory into Linux swap (docs/vmrm-cmm.md).
    #[serde(default = "default_vmrm_max_shrink")]
    pub max_shrink: f64,
}

fn default_vmrm_interval() -> Duration {
    Duration::from_secs(60)
}
fn default_vmrm_constrained() -> f64 {
    500.0
}
fn default_vmrm_relieved() -> f64 {
    100.0
}
fn default_vmrm_relief_step() -> f64 {
    0.25
}
fn default_vmrm_max_shrink() -> f64 {
    0.25
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Lpar {
    /// Dedicated IFLs of the LPAR.
    pub ifls: u32,
    /// Central storage.
    pub central: Size,
    /// Expanded storage (XSTOR); 0 for none.
    #[serde(default)]
    pub expanded: Size,
    /// z/VM release: "5.2", "5.3", "5.4", "6.4" or "7.1".
    pub zvm_level: ZvmLevel,
    /// z/VM 6.3 and later: the global aging list at IPL (`[lpar.agelist]`, as the STORAGE
    /// AGELIST statement sets it). Left out: IBM's defaults. Refused on earlier releases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agelist: Option<AgelistSpec>,
    /// Threads per IFL core: 2 with simultaneous multithreading (z13 and later, z/VM 6.3
    /// and later, the MULTITHREADING statement), else 1. Left out when 1, so that existing
    /// scenarios keep their hash.
    #[serde(default = "one_thread", skip_serializing_if = "is_one_thread")]
    pub smt: u32,
}

fn one_thread() -> u32 {
    1
}

fn is_one_thread(n: &u32) -> bool {
    *n == 1
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paging {
    /// CP-owned paging volumes.
    #[serde(default)]
    pub volumes: Vec<VolumeSet>,
    /// Total page slots, when known exactly (as `QUERY ALLOC PAGE` shows); otherwise the
    /// slots follow from the volumes' geometry.
    #[serde(default)]
    pub slots: Option<u64>,
    /// Fraction of paging reads served from the storage server's cache (default: the model's
    /// `dasd_read_hit_ratio`).
    #[serde(default)]
    pub cache_hit: Option<f64>,
    /// The storage-server cache that holds the paging volumes' tracks: a page-in hits when its
    /// block is still there (written or read since, io/volume_cache.rs), instead of a fixed
    /// `cache_hit`. The part of the servers' cache that paging data gets, as in `16G`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Size>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum DasdModel {
    #[serde(rename = "3390-3")]
    M3390_3,
    #[serde(rename = "3390-9")]
    M3390_9,
    #[serde(rename = "3390-27")]
    M3390_27,
    #[serde(rename = "3390-54")]
    M3390_54,
}

impl DasdModel {
    /// Cylinders of the model (IBM 3390 reference).
    pub fn cylinders(self) -> u64 {
        match self {
            DasdModel::M3390_3 => 3339,
            DasdModel::M3390_9 => 10017,
            DasdModel::M3390_27 => 32760,
            DasdModel::M3390_54 => 65520,
        }
    }
    /// 4 KB blocks: 15 tracks per cylinder, 12 4 KB records per 3390 track.
    pub fn pages(self) -> u64 {
        self.cylinders() * 15 * 12
    }
    /// The model as the scenario writes it.
    pub fn name(self) -> &'static str {
        match self {
            DasdModel::M3390_3 => "3390-3",
            DasdModel::M3390_9 => "3390-9",
            DasdModel::M3390_27 => "3390-27",
            DasdModel::M3390_54 => "3390-54",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VolumeSet {
    pub model: DasdModel,
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunControl {
    /// Simulated time run before measurement starts; its statistics are discarded.
    #[serde(default)]
    pub priming: Duration,
    /// The measured window.
    pub measure: Duration,
    /// Statistics interval (Performance Toolkit default: 60 s).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Seed of all random streams.
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Steady-state check: a headline figure drifts when its fitted change over the measured
    /// window exceeds this fraction of its mean (and its trend is significant). Default 0.05.
    /// Left out of the serialized scenario at its default, so existing scenarios keep their hash.
    #[serde(
        default = "default_drift_tolerance",
        skip_serializing_if = "is_default_drift_tolerance"
    )]
    pub drift_tolerance: f64,
    /// How the guests' pages are placed before the run: `ordered` (by popularity, coldest
    /// first; the default, on which the studies are calibrated) or `stationary` (the state the
    /// workload and CP settle to after running for hours; system/warm_stationary.rs). Left out
    /// of the serialized scenario at its default, so existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "WarmStart::is_ordered")]
    pub warm_start: WarmStart,
    /// With the stationary warm start: how long the workload has already run at this load
    /// when the run begins (`"30m"`). Pages CP keeps on DASD besides their frame accumulate
    /// with it (a page keeps a slot once it has come back from DASD, and ever hotter pages
    /// get their first long gap as time goes on), so the DASD slots in use depend on it.
    /// Unset: the limit after a long time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_history: Option<Duration>,
}

/// The warm start of a run (`run.warm_start`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WarmStart {
    #[default]
    Ordered,
    Stationary,
}

impl WarmStart {
    fn is_ordered(&self) -> bool {
        *self == WarmStart::Ordered
    }
}

fn default_drift_tolerance() -> f64 {
    crate::monitor::steady::DEFAULT_TOLERANCE
}
fn is_default_drift_tolerance(x: &f64) -> bool {
    *x == crate::monitor::steady::DEFAULT_TOLERANCE
}

fn default_interval() -> Duration {
    Duration::from_secs(60)
}
fn one_u64() -> u64 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestSpec {
    /// z/VM user ID (1-8 characters). With `count` > 1 either a printf-like pattern
    /// (`LNX%02d`) or a name ending in digits (`LNX00080`), which are incremented.
    pub name: String,
    #[serde(default = "one")]
    pub count: u32,
    /// First number of a `%d` pattern.
    #[serde(default = "one")]
    pub first: u32,
    /// Virtual machine storage (directory STORAGE).
    pub storage: Size,
    /// Virtual CPUs.
    #[serde(default = "one")]
    pub vcpus: u32,
    /// Name of an entry in [workloads]; none for an idle guest.
    #[serde(default)]
    pub workload: Option<String>,
    /// Minidisks / dedicated DASD of the guest.
    #[serde(default)]
    pub dasd: Vec<GuestDasd>,
    /// Linux settings of the guest.
    #[serde(default)]
    pub linux: LinuxSpec,
    /// User directory statements for the guest's devices, as in the USER DIRECT file:
    /// `MDISK vdev 3390 DEVNO rdev MR`, `DEDICATE vdev rdev`, `COMMAND cp-command` (run at
    /// logon, e.g. `COMMAND DEFINE HYPERPAVALIAS 0201 FOR BASE 0200`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directory: Vec<String>,
}

impl GuestSpec {
    /// 4 KB pages of the guest's volumes of use `usage`.
    pub fn dasd_pages(&self, usage: DasdUse) -> u64 {
        self.dasd
            .iter()
            .filter(|d| d.usage == usage)
            .map(|d| d.model.pages() * d.count as u64)
            .sum()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestDasd {
    /// What Linux uses the volumes for.
    #[serde(rename = "use")]
    pub usage: DasdUse,
    pub model: DasdModel,
    #[serde(default = "one")]
    pub count: u32,
    /// Fraction of random reads served from the storage server's cache (default: the model's
    /// `dasd_read_hit_ratio`).
    #[serde(default)]
    pub cache_hit: Option<f64>,
    /// The partition Linux uses on each volume (`/dev/dasda2`: 2); default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<u32>,
    /// Shared minidisks: one set of real volumes for every guest of the entry, each guest
    /// LINKing the minidisks read-only (mode RR), so that they read the same data and CP's
    /// minidisk cache holds one copy of it. Without it (the default) each guest has volumes
    /// of its own. A workload that writes to them is refused (config/shared.rs).
    #[serde(default, skip_serializing_if = "is_false")]
    pub shared: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DasdUse {
    /// LVM volume group striped over the volumes, holding the database.
    Database,
    /// Linux swap partition.
    Swap,
    /// Root file system and binaries.
    System,
    /// A file system of files a workload serves (the apache workload's document root).
    Files,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    /// Closed-loop users submitting transactions (CPU, memory references, database I/O).
    Transactional,
    /// The Flexible I/O tester: processes issuing direct I/O to files (`[workloads.x.fio]`).
    Fio,
    /// iozone's sequential write and read tests, one process per disk
    /// (`[workloads.x.iozone]`).
    Iozone,
    /// A Java application server whose requests touch its heap (`[workloads.x.appserver]`).
    Appserver,
    /// Apache servers and their clients serving files (`[workloads.x.apache]`).
    Apache,
    /// dbench's clients running the NetBench loadfile on files in the page cache
    /// (`[workloads.x.dbench]`).
    Dbench,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub kind: WorkloadKind,
    /// Users per guest (closed loop: think, submit, wait for the answer).
    #[serde(default)]
    pub users: Option<u32>,
    /// Alternatively, a user population spread evenly over all guests running this workload
    /// (the first guests get one more when it does not divide).
    #[serde(default)]
    pub users_total: Option<u32>,
    /// Mean think time between a user's transactions (exponential).
    #[serde(default)]
    pub think_time: Duration,
    /// CPU per transaction when no transaction mix is given.
    #[serde(default)]
    pub cpu_per_tx: Option<Duration>,
    /// Distinct database pages a transaction touches when no mix is given.
    #[serde(default)]
    pub db_refs: Option<u32>,
    /// Transaction types with weights (an order-entry mix).
    #[serde(default)]
    pub transactions: Vec<TxType>,
    /// The database the transactions run against; none for a CPU-only workload.
    #[serde(default)]
    pub database: Option<DatabaseSpec>,
    /// fio's options, for `kind = "fio"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fio: Option<crate::config::fio::FioSpec>,
    /// iozone's options, for `kind = "iozone"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iozone: Option<crate::config::iozone::IozoneSpec>,
    /// The application server's options, for `kind = "appserver"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appserver: Option<crate::config::appserver::AppserverSpec>,
    /// Apache's options, for `kind = "apache"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apache: Option<crate::config::apache::ApacheSpec>,
    /// dbench's options, for `kind = "dbench"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dbench: Option<crate::config::dbench::DbenchSpec>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TxType {
    pub name: String,
    /// Relative frequency.
    pub weight: f64,
    /// CPU time of the transaction on an unloaded IFL.
    pub cpu: Duration,
    /// Distinct database pages referenced (buffer-pool gets).
    #[serde(default)]
    pub db_refs: u32,
    /// Fraction of the referenced pages the transaction changes.
    #[serde(default)]
    pub write_fraction: f64,
}

/// The database: its files on the guest's `database` volumes and its buffer pool in shared
/// memory. Writes are asynchronous, as a database's page cleaners make them: a dirty buffer
/// chosen for replacement is copied through the page cache and its write started, and the
/// transaction goes on without waiting for it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSpec {
    /// Size of the database files.
    pub size: Size,
    /// Database buffer pool (cache), in the shared memory segment.
    pub cache: Size,
    /// All database buffers and caches (shared memory); at least `cache`.
    #[serde(default)]
    pub shared_memory: Option<Size>,
    /// Skew of block popularity: Zipf exponent over the database's pages.
    #[serde(default = "default_skew")]
    pub skew: f64,
    /// Popularity is Zipf-Mandelbrot, P(k) ∝ (k + q)^-skew over the database's pages ranked by
    /// popularity, with q = this size in pages: the hottest `flat_head` of the data is accessed
    /// about evenly (0 for plain Zipf).
    #[serde(default)]
    pub flat_head: Size,
    /// LVM stripe size over the database volumes.
    #[serde(default = "default_stripe")]
    pub stripe: Size,
    /// The mount point of a file system holding the database files instead of the `database`
    /// volumes, once it is mounted (`/oradata`: an ext2 on a dcssblk device, mounted by the
    /// console script). Buffer-pool misses read from it then; before, from the volumes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_on: Option<String>,
    /// The time in which the database's page cleaners write every changed buffer once (a
    /// checkpoint spread over that time, as DB2's page cleaners, Oracle's DBWR and
    /// PostgreSQL's checkpointer do). Absent: a changed buffer is written only when the buffer
    /// pool replaces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Duration>,
}

fn default_skew() -> f64 {
    0.9
}
fn default_stripe() -> Size {
    Size(32 << 10)
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsoleEntry {
    /// Simulated time the command is issued (from the start of the run, priming included).
    #[serde(default)]
    pub at: Duration,
    /// Who types it: a CP user (e.g. MAINT) for `cp`, a guest name for `linux` (or a pattern
    /// ending in `*`, as `LNX0008*`, for every guest it matches), VMRMSVM for `cms` (or any
    /// CMS user for the execs SWAPGEN, DEFDCSS and SAVEDCSS). CP checks the user's privilege
    /// classes: MAINT and OPERATOR have A to G, others G, a guest its directory's CLASS.
    #[serde(default = "maint")]
    pub user: String,
    /// A CP command, as typed on a z/VM console.
    #[serde(default)]
    pub cp: Option<String>,
    /// A Linux shell command, as typed in the guest.
    #[serde(default)]
    pub linux: Option<String>,
    /// A CMS command typed on a CMS virtual machine (`HMONITOR` on VMRMSVM; the execs
    /// `SWAPGEN`, `DEFDCSS` and `SAVEDCSS` of seed 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cms: Option<String>,
}

fn maint() -> String {
    "MAINT".into()
}

/// A guest after expanding name patterns.
#[derive(Debug, Clone)]
pub struct GuestInstance {
    pub name: String,
    pub spec_index: usize,
}

impl Scenario {
    /// Expand the directory entries into one guest per user ID.
    pub fn guest_instances(&self) -> Vec<GuestInstance> {
        let mut out = Vec::new();
        for (i, g) in self.guests.iter().enumerate() {
            for k in 0..g.count {
                out.push(GuestInstance {
                    name: expand_name(&g.name, g.first, k, g.count),
                    spec_index: i,
                });
            }
        }
        out
    }

    pub fn end_ns(&self) -> u64 {
        self.run.priming.ns() + self.run.measure.ns()
    }

    /// Stable hash of the normalized scenario (after defaults and overrides).
    pub fn hash(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        let digest = Sha256::digest(json.as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    pub fn paging_slots(&self) -> u64 {
        self.paging.slots.unwrap_or_else(|| {
            self.paging
                .volumes
                .iter()
                .map(|v| v.model.pages() * v.count as u64)
                .sum()
        })
    }
}

pub(crate) use crate::config::names::expand_name;

/// The JSON Schema of the scenario format, for editors.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).unwrap_or_default()
}
