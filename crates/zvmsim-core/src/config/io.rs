//! The `[io]` table: the real I/O configuration as the IOCDS and the storage server define it
//! (FICON channels, logical control units with their base and alias devices, the storage
//! server's adapters, cache, NVS and RAID ranks), and the CPU Linux and CP spend per I/O.
//! Without it, volumes live on a storage server described only by the calibrated fixed service
//! times of `[model]` (the large-memory calibration), one I/O at a time per volume.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::scenario::DasdModel;
use crate::config::units::{Duration, Size};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IoSpec {
    /// The FICON channel paths (CHPIDs) to the storage server.
    #[serde(default)]
    pub channels: ChannelSpec,
    /// The storage server (a DS8000-class box).
    #[serde(default)]
    pub server: ServerSpec,
    /// Logical control units (LSS/SSID) with their base and alias devices.
    #[serde(default)]
    pub lcus: Vec<LcuSpec>,
    /// SCSI LUNs reached over FCP channels (zfcp), fixed-block volumes of the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcp: Option<FcpSpec>,
    /// CPU that Linux and CP spend per I/O.
    #[serde(default)]
    pub cost: IoCost,
    /// Base devices of `lcus` that hold CP's paging volumes, one per `[paging]` volume in
    /// order (CP-owned). Empty: the paging volumes are outside [io], with the calibrated
    /// fixed service times of `[model]`, and SET PAGING ALIAS finds no alias for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paging: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelSpec {
    /// CHPIDs in the path group of every device (seed 003: 8 FICON Express16S+).
    pub count: u32,
    /// Link speed in Gbit/s (FICON Express16S+: 16). Data rate taken as 100 MB/s per Gbit/s
    /// (the 8b/10b and 64b/66b line codes of 8G/16G FC both give about that).
    pub speed: u32,
    /// High Performance FICON (zHPF, transport mode): one exchange per I/O instead of a CCW
    /// chain's command/response round trips (seed 003: enabled on all paths).
    pub zhpf: bool,
    /// Concurrent I/Os (open exchanges) per channel: 64 for command-mode FICON on
    /// FICON Express16S (IBM channel documentation); zHPF allows more.
    pub exchanges: u32,
    /// Channel and control-unit protocol time of one command-mode FICON I/O (CCW chain),
    /// besides the data transfer. Calibrated (docs/calibration-io.md).
    pub ficon_overhead: Duration,
    /// The same for one zHPF I/O. Calibrated (docs/calibration-io.md).
    pub zhpf_overhead: Duration,
    /// How the channel subsystem picks a path of the device's path group for an I/O:
    /// `least-busy` (the path with the fewest open exchanges: Dynamic Channel Path
    /// Management's balancing) or `uncoordinated` (any path of the group, without regard to
    /// the other devices' I/O on it: a z900's channel subsystem without DCM).
    pub path_choice: PathChoice,
    /// The channel paths' CHPIDs (two hex digits each, `count` of them), as a 2.4 guest's
    /// `/proc/subchannels` lists them (seed 004: C6 C7 C8 CA CB C9). Empty: 00, 01, ...
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chpids: Vec<String>,
}

impl ChannelSpec {
    /// The CHPID of channel path `i`.
    pub fn chpid(&self, i: u32) -> u8 {
        self.chpids
            .get(i as usize)
            .and_then(|c| u8::from_str_radix(c, 16).ok())
            .unwrap_or(i as u8)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PathChoice {
    #[default]
    LeastBusy,
    Uncoordinated,
}

impl Default for ChannelSpec {
    fn default() -> Self {
        ChannelSpec {
            count: 8,
            speed: 16,
            zhpf: true,
            exchanges: 64,
            ficon_overhead: Duration(90_000),
            zhpf_overhead: Duration(60_000),
            path_choice: PathChoice::LeastBusy,
            chpids: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ServerSpec {
    /// Model name, for reports.
    pub model: String,
    /// Host-adapter ports the channels connect to, channel `i` to port `i` (modulo).
    pub host_adapters: u32,
    /// Ports on one host-adapter card; a card's ports share its processor (`ha_io`). 1: a
    /// processor per port (the ESS 2105's one-port FICON and FCP adapters). A DS8880's 16 Gb
    /// FICON/FCP host adapters have 4 ports (IBM ATS, "DS8000 Host Adapter Configuration
    /// Guidelines", 2015, which also warns that one adapter does not give every port full
    /// line rate at once).
    #[serde(skip_serializing_if = "is_one")]
    pub ports_per_adapter: u32,
    /// Host-adapter processor time per I/O (command decode, cache directory lookup).
    /// Calibrated (docs/calibration-io.md).
    pub ha_io: Duration,
    /// Data rate through one host adapter, per second (ESS 2105: the adapter moves the data
    /// itself). None: not a limit (the DS8000 adapters of seed 003). Calibrated for the
    /// ESS F20 (docs/calibration-io.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ha_rate: Option<Size>,
    /// Rate of the copy of written data into the other cluster's NVS, per second, shared by
    /// all host adapters (ESS 2105). None: not a limit. Calibrated (docs/calibration-io.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvs_rate: Option<Size>,
    /// Rate at which the host adapter writes CKD records into the cache's fixed-block track
    /// images, per second (ESS 2105 CKD emulation; FB volumes and FCP writes do not pay
    /// it). None: not a limit. Calibrated (docs/calibration-io.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ckd_write_rate: Option<Size>,
    /// Data rate of one cluster's cache, per second: every read of a volume's data from the
    /// cache crosses the cache of the cluster that owns the volume's logical subsystem (ESS
    /// 2105: two clusters, each its own memory and cache; a volume's data goes through its
    /// cluster whatever host adapter carries it). Writes pay `nvs_rate` instead. None: not a
    /// limit. Sourced for the ESS F20 (docs/calibration-io.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_rate: Option<Size>,
    /// Read cache.
    pub cache: Size,
    /// Non-volatile storage holding written data until it is destaged.
    pub nvs: Size,
    /// Sequential prefetch: a read that continues a stream stages this much ahead.
    pub prefetch: Size,
    /// RAID-5 ranks in the extent pool the volumes are striped over (storage pool striping).
    pub ranks: u32,
    /// Disks per rank (DS8000 RAID-5 arrays: 7+P, 8 disks).
    pub disks_per_rank: u32,
    /// Disk rotation speed (15000 rpm: 4 ms per revolution).
    pub rpm: u32,
    /// Average seek (a third of the full stroke), as the disk's data sheet gives it.
    pub avg_seek: Duration,
    /// Track-to-track seek.
    pub track_to_track: Duration,
    /// Media data rate of one disk, per second.
    pub disk_rate: Size,
    /// Capacity of one disk.
    pub disk_size: Size,
    /// RAID strip (the data one disk holds before the next disk of the rank).
    pub strip: Size,
    /// Extent size of storage pool striping (DS8000 CKD: 1113 cylinders, about 1 GiB).
    pub extent: Size,
    /// Order in which NVS destages a rank's modified strips (see `Destage`).
    pub destage: Destage,
}

/// How NVS orders its destages on a rank's disks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Destage {
    /// By disk address (DS8000 Intelligent Write Caching, microcode R4.2 on: the modified
    /// strips of a rank are destaged in a circular sweep over their location, CSCAN), so a
    /// sequential stream's strips on one disk go down back to back: one positioning per run.
    #[default]
    Address,
    /// In the order the strips filled (ESS 2105 and DS8000 before IWC): every strip destage
    /// positions the arm anew unless it happens to follow the disk's previous operation.
    Arrival,
}

impl Default for ServerSpec {
    fn default() -> Self {
        ServerSpec {
            model: "DS8000".into(),
            host_adapters: 8,
            ports_per_adapter: 1,
            ha_io: Duration(40_000),
            ha_rate: None,
            nvs_rate: None,
            ckd_write_rate: None,
            cluster_rate: None,
            cache: Size(256 << 30),
            nvs: Size(8 << 30),
            prefetch: Size(1 << 20),
            ranks: 8,
            disks_per_rank: 8,
            rpm: 15_000,
            avg_seek: Duration(3_400_000),
            track_to_track: Duration(200_000),
            disk_rate: Size(150 << 20),
            disk_size: Size(300 << 30),
            strip: Size(256 << 10),
            extent: Size(1 << 30),
            destage: Destage::Address,
        }
    }
}

/// FCP: channels in FCP mode (IOCDS type FCP) through a switch to the server's FCP host
/// adapter ports, and the LUNs behind them. Each LUN is one path: a channel, a host adapter
/// and the rank holding it, as the zfcp configuration (device, WWPN, LUN) names them.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FcpSpec {
    /// FCP channels (CHPIDs).
    pub chpids: u32,
    /// Link speed, Gbit/s (seed 004: FCP 2 Gbps, 2109-F16 switch).
    #[serde(default = "two")]
    pub speed: u32,
    /// Data rate one FCP channel sustains (its adapter's processor and QDIO queues), per
    /// second; the link's rate when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_rate: Option<Size>,
    /// Data rate of the channel's writes (outbound: data the channel fetches from central
    /// storage and sends), per second; `channel_rate` when not given. A FICON channel has
    /// a capacity per direction (RMF and OMEGAMON report its read and write units against a
    /// maximum of each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_rate: Option<Size>,
    /// Protocol time of one SCSI command besides its data (QDIO, zfcp, switch, the adapter's
    /// FCP exchange).
    pub overhead: Duration,
    /// SCSI commands the zfcp driver keeps in flight per LUN.
    #[serde(default = "one")]
    pub queue_depth: u32,
    pub luns: Vec<LunRange>,
}

/// LUNs on one path: `count` LUNs of `size`, the first one's device number `rdev` (each LUN
/// takes `queue_depth` consecutive numbers: its command slots).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LunRange {
    pub rdev: String,
    #[serde(default = "one")]
    pub count: u32,
    pub size: Size,
    /// Indices (from 0) of the channel, the host adapter and the rank.
    pub chpid: u32,
    pub host_adapter: u32,
    pub rank: u32,
}

fn two() -> u32 {
    2
}

/// How the aliases of an LCU work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AliasKind {
    /// HyperPAV: an alias serves any base of its LCU, per I/O.
    Hyperpav,
    /// Static PAV: each alias is bound to one base (assigned round robin over the bases).
    Pav,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LcuSpec {
    /// Subsystem ID (4 hex digits), as `QUERY DASD DETAILS` and `lsdasd -u` show it.
    pub ssid: String,
    /// Base devices: the first real device number (hex) and how many follow it.
    pub bases: Vec<DeviceRange>,
    /// Alias devices.
    #[serde(default)]
    pub aliases: Option<AliasRange>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceRange {
    /// First real device number (1-4 hex digits).
    pub rdev: String,
    #[serde(default = "one")]
    pub count: u32,
    pub model: DasdModel,
    /// The volume labels (volsers, 1-6 characters) CPFMTXA wrote on the range's volumes, in
    /// device order (at most `count`): what a directory `MDISK vdev 3390 start count volser`
    /// names. None: the volumes are reached by device number only (`DEVNO`, `DEDICATE`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volsers: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AliasRange {
    /// First real device number (1-4 hex digits).
    pub rdev: String,
    pub count: u32,
    pub kind: AliasKind,
    /// Static PAV: the base (real device number) all these aliases are bound to, as the
    /// storage server's configuration assigns them; without it they go round robin over the
    /// LCU's bases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// CPU per I/O. Inference from the path lengths of the Linux block and DASD layers and of CP's
/// I/O simulation (no published per-I/O figure for these releases); see docs/calibration-io.md.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IoCost {
    /// Guest CPU to submit one asynchronous direct I/O: io_submit, the block layer, the DASD
    /// driver building its channel program (alias choice included), the SSCH.
    pub linux_submit: Duration,
    /// Guest CPU to complete one: the I/O interrupt, the DASD tasklet, the aio completion and
    /// the reap in io_getevents.
    pub linux_complete: Duration,
    /// Guest CPU of the application (fio) per I/O: choosing offset and size, accounting.
    pub app_per_io: Duration,
    /// CP CPU for a guest SSCH to a dedicated device: the SIE interception, the channel
    /// program's translation and the pinning of its pages, and the interrupt's reflection.
    pub cp_dedicated: Duration,
    /// CP CPU per 4 KB page of a guest channel program it translates (address translation
    /// and pinning of each data page).
    pub cp_per_page: Duration,
    /// Additional CP CPU for an I/O to a minidisk: the extent check and relocation, CP's
    /// queueing on the real device and its own I/O interrupt.
    pub cp_minidisk: Duration,
    /// Additional CP CPU to dispatch an I/O of a virtual HyperPAV alias on a real alias
    /// (the search of the LCU's pool).
    pub cp_virtual_alias: Duration,
    /// CP CPU to start one of its own paging or minidisk I/Os on a real device.
    pub cp_real_io: Duration,
    /// CPU to wake a virtual CPU that waits (enabled wait) when an I/O completion makes one
    /// of its processes runnable: CP takes the interrupt for the waiting virtual CPU and
    /// dispatches it again (SIE entry), Linux leaves its idle loop. Paid once per wake, so
    /// per I/O it falls as the guest gets busier and completions find a virtual CPU running.
    pub vcpu_wake: Duration,
    /// Guest CPU of a kblockd worker's run of a blk-mq hardware queue for the DASD driver
    /// (the worker's wake-up and schedule, the queue run's entry and exit), without its
    /// dispatch attempts (`linux/blkmq.rs`).
    pub blk_mq_run: Duration,
    /// Guest CPU of one dispatch attempt beyond a request's first (blk-mq hands it to the
    /// DASD driver again, which builds its channel program or refuses it: -EBUSY, back on
    /// the dispatch list).
    pub blk_mq_dispatch: Duration,
    /// Guest CPU of a pass of the DASD block tasklet (`linux/dasdblock.rs`, kernels from
    /// 2.6.25): its fixed part (the softirq's call, two takes of the block's queue lock, the
    /// device reference). Inference: a few hundred instructions and two lock cache lines.
    pub blk_tasklet_pass: Duration,
    /// Per request on the block's `ccw_queue`, per walk (a pass walks the queue twice under
    /// the lock: finished requests, then filled ones). Inference: a list step and a status
    /// read of a request another CPU's interrupt wrote, a cache miss across chips.
    pub blk_tasklet_entry: Duration,
    /// Per request the pass hands to its start device (`dasd_add_request_tail`: that
    /// device's lock, its queue, its tasklet scheduled). Inference.
    pub blk_tasklet_start: Duration,
    /// Per request the pass ends (`__dasd_cleanup_cqr`: the hardware queue's lock,
    /// `free_cp` with the start device's lock and count, `blk_mq_complete_request`, which
    /// sends the completion to the submitting CPU with an IPI, a SIGP CP intercepts under
    /// z/VM, unless it is that CPU). Inference.
    pub blk_tasklet_end: Duration,
}

impl Default for IoCost {
    fn default() -> Self {
        IoCost {
            linux_submit: Duration(9_000),
            linux_complete: Duration(7_000),
            app_per_io: Duration(6_000),
            cp_dedicated: Duration(6_000),
            cp_per_page: Duration(150),
            cp_minidisk: Duration(1_600),
            cp_virtual_alias: Duration(800),
            cp_real_io: Duration(2_000),
            vcpu_wake: Duration(10_000),
            blk_mq_run: Duration(3_000),
            blk_mq_dispatch: Duration(2_000),
            blk_tasklet_pass: Duration(1_000),
            blk_tasklet_entry: Duration(100),
            blk_tasklet_start: Duration(1_500),
            blk_tasklet_end: Duration(4_000),
        }
    }
}

/// A real device number as typed: 1 to 4 hex digits.
pub fn parse_rdev(s: &str) -> Option<u16> {
    let t = s.trim();
    if t.is_empty() || t.len() > 4 {
        return None;
    }
    u16::from_str_radix(t, 16).ok()
}
