//! Real I/O. A request passes through stages: a subchannel (one channel program at a time; a
//! base device's, or an alias's of the same logical control unit), a FICON channel path, then
//! the storage server (host adapter, cache, NVS, RAID ranks). Its completion is an event
//! carrying its id; the origin it carries says where the completion goes.
//!
//! Who starts a channel program on which subchannel: CP for its own volumes (paging,
//! minidisks) through [`IoSystem::submit`] — the base if idle, else an idle alias it owns when
//! the request may use one, else FIFO on the base; a guest for devices attached to it through
//! [`IoSystem::start_on`] (its own driver chose the subchannel, as Linux's DASD driver does).

pub mod cache;
pub mod channel;
mod check;
pub mod extent;
mod fcp;
mod lcu;
pub mod rank;
pub mod request;
pub mod server;
pub mod subchannel;
#[cfg(test)]
mod tests;
pub mod volume_cache;

pub use check::{Count, TypedFlow};
pub use lcu::Lcu;
pub use request::{IoId, IoRequest, Origin};
pub use subchannel::{DevStats, SubKind, SubOwner};

use channel::Channels;
use request::Requests;
use server::{Data, Staged, StorageServer};
use subchannel::Subchannel;

use crate::config::io::{AliasKind, IoSpec};
use crate::config::params::ModelParams;
use crate::engine::rng::Stream;

/// No LCU / no staged volume.
pub const NONE: u32 = u32::MAX;
/// The "LCU" of an FCP LUN's command slots (no logical control unit: SCSI).
pub const FCP: u32 = u32::MAX - 1;

/// The I/O events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoEvent {
    /// Request `IoId`'s channel program ended.
    Complete(IoId),
    /// A guest's DASD driver starts a channel program (the completion path of the device's
    /// previous request has run): slot of the (guest, request) pair in the machine's table.
    GuestStart(u32),
    /// The DASD block tasklet's pass ended a guest's request: slot of the (guest, task) pair
    /// in the machine's table (the aio completion reaches the process).
    GuestDone(u32),
    /// CP's copy of a minidisk-cache read hit ended: slot of its origin in the machine's table.
    MdcHit(u32),
}

/// Pages in and out, for the conservation check.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flow {
    pub submitted: u64,
    pub completed: u64,
    pub pages_in: u64,
    pub pages_out: u64,
}

/// Devices, the requests in flight on them, the channels and the storage server.
pub struct IoSystem {
    requests: Requests,
    subs: Vec<Subchannel>,
    lcus: Vec<Lcu>,
    server: StorageServer,
    chans: Option<Channels>,
    /// Per subchannel: its volume on the staged server (NONE: fixed-service volume).
    vol_of: Vec<u32>,
    /// Per request slot: the channel path it took (staged volumes).
    path_of: Vec<u32>,
    /// FCP: the FCP channels, and per subchannel its fixed (channel, host adapter) if it is
    /// a LUN's command slot.
    fcp_chans: Option<Channels>,
    fcp_path: Vec<Option<(u32, u32)>>,
    /// Per staged volume: the channel programs running in the control unit with their
    /// Define Extent track ranges (`extent.rs`).
    extents: Vec<extent::Extents>,
    pub flow: Flow,
    /// The same flow per origin kind, in requests and bytes, and when channel programs start.
    pub typed: TypedFlow,
    /// CP's HyperPAV pool: searches for an idle alias, and those that found none.
    pub pool_tries: u64,
    pub pool_fails: u64,
    /// The cache in front of volumes outside `[io]` (`paging.cache`), if any.
    pub volume_cache: Option<volume_cache::VolumeCache>,
}

impl IoSystem {
    pub fn new(params: &ModelParams, rng: Stream) -> Self {
        IoSystem {
            requests: Requests::default(),
            subs: Vec::new(),
            lcus: Vec::new(),
            server: StorageServer::new(params, rng),
            chans: None,
            vol_of: Vec::new(),
            path_of: Vec::new(),
            extents: Vec::new(),
            fcp_chans: None,
            fcp_path: Vec::new(),
            flow: Flow::default(),
            typed: TypedFlow::default(),
            pool_tries: 0,
            pool_fails: 0,
            volume_cache: None,
        }
    }

    /// Add a volume outside `[io]` whose random reads hit the storage-server cache with
    /// `hit_ratio` (None: the model's default); returns its device index.
    pub fn add_device(&mut self, hit_ratio: Option<f64>) -> u32 {
        let h = hit_ratio.unwrap_or(self.server.default_hit_ratio);
        let rdev = 0xE000u16.wrapping_add(self.subs.len() as u16);
        self.subs
            .push(Subchannel::new(rdev, SubKind::Base, NONE, h));
        self.vol_of.push(NONE);
        (self.subs.len() - 1) as u32
    }

    /// Add a volume of `blocks` 4 KB blocks outside `[io]` behind a cache of `cache` bytes
    /// (created with the first such volume; later ones share it).
    pub fn add_cached_device(&mut self, cache: u64, blocks: u64) -> u32 {
        let d = self.add_device(None);
        self.volume_cache
            .get_or_insert_with(|| volume_cache::VolumeCache::new(cache))
            .add(d, blocks);
        d
    }

    /// Build the channels, LCUs and the staged storage server of `[io]`.
    /// `rank_rng` drives the ranks' rotational positions, `chan_rng` the channels' path
    /// choice.
    pub fn configure(
        &mut self,
        spec: &IoSpec,
        rank_rng: Stream,
        chan_rng: Stream,
    ) -> Result<(), String> {
        crate::config::io_check::check(spec)?;
        self.chans = Some(Channels::new(&spec.channels, chan_rng));
        let mut staged = Staged::new(&spec.server, rank_rng);
        for (li, l) in spec.lcus.iter().enumerate() {
            let ssid = crate::config::io::parse_rdev(&l.ssid)
                .ok_or_else(|| format!("io.lcus[{li}].ssid: `{}` is not 4 hex digits", l.ssid))?;
            let lcu = self.lcus.len() as u32;
            // Counted before any volume is allocated: a count of billions is refused here.
            let devices = l.bases.iter().map(|b| b.count as u64).sum::<u64>()
                + l.aliases.as_ref().map_or(0, |a| a.count as u64);
            if devices > 256 {
                return Err(format!(
                    "io.lcus[{li}]: {devices} devices; a logical control unit addresses at most 256"
                ));
            }
            let mut bases = Vec::new();
            for b in &l.bases {
                let first = crate::config::io::parse_rdev(&b.rdev)
                    .ok_or_else(|| format!("io.lcus[{li}].bases: rdev `{}` is not hex", b.rdev))?;
                for k in 0..b.count {
                    let rdev = self.range_rdev(&format!("io.lcus[{li}].bases"), first, k)?;
                    let vol = staged.add_volume(b.model.pages() * 4096);
                    staged.own(vol, li as u32);
                    self.extents.push(extent::Extents::default());
                    let mut s = Subchannel::new(rdev, SubKind::Base, lcu, 0.0);
                    // Not attached until ATTACH or a directory MDISK/DEDICATE uses it.
                    s.owner = SubOwner::Free;
                    self.subs.push(s);
                    self.vol_of.push(vol);
                    bases.push((self.subs.len() - 1) as u32);
                }
            }
            let mut aliases = Vec::new();
            let mut hyperpav = false;
            if let Some(a) = &l.aliases {
                let first = crate::config::io::parse_rdev(&a.rdev).ok_or_else(|| {
                    format!("io.lcus[{li}].aliases: rdev `{}` is not hex", a.rdev)
                })?;
                hyperpav = a.kind == AliasKind::Hyperpav;
                let bound = match &a.base {
                    Some(b) => {
                        let r = crate::config::io::parse_rdev(b).ok_or_else(|| {
                            format!("io.lcus[{li}].aliases.base: `{b}` is not hex")
                        })?;
                        let i = bases
                            .iter()
                            .position(|&s| self.subs[s as usize].rdev == r)
                            .ok_or_else(|| {
                                format!(
                                    "io.lcus[{li}].aliases.base: {r:04X} is not a base of this LCU"
                                )
                            })?;
                        Some(bases[i])
                    }
                    None => None,
                };
                if !hyperpav && bases.is_empty() {
                    return Err(format!(
                        "io.lcus[{li}].aliases: static PAV aliases need a base"
                    ));
                }
                for k in 0..a.count {
                    let rdev = self.range_rdev(&format!("io.lcus[{li}].aliases"), first, k)?;
                    let kind = if hyperpav {
                        SubKind::HyperPavAlias
                    } else {
                        SubKind::PavAlias {
                            base: bound.unwrap_or(bases[k as usize % bases.len()]),
                        }
                    };
                    let mut s = Subchannel::new(rdev, kind, lcu, 0.0);
                    s.owner = SubOwner::Free;
                    self.subs.push(s);
                    self.vol_of.push(NONE);
                    aliases.push((self.subs.len() - 1) as u32);
                }
            }
            self.lcus.push(Lcu {
                ssid,
                bases,
                aliases,
                hyperpav,
            });
        }
        if let Some(f) = &spec.fcp {
            self.configure_fcp(f, &mut staged)?;
        }
        self.fcp_path.resize(self.subs.len(), None);
        self.server.staged = Some(staged);
        Ok(())
    }

    /// Device `k` of the range of real devices from `first` that the scenario's `what` defines:
    /// its number, which may not pass FFFF nor be another device's.
    fn range_rdev(&self, what: &str, first: u16, k: u32) -> Result<u16, String> {
        let rdev = u16::try_from(k)
            .ok()
            .and_then(|k| first.checked_add(k))
            .ok_or_else(|| format!("{what}: range passes FFFF"))?;
        self.unique(rdev).map_err(|e| format!("{what}: {e}"))?;
        Ok(rdev)
    }

    fn unique(&self, rdev: u16) -> Result<(), String> {
        if self.subs.iter().any(|s| s.rdev == rdev && s.lcu != NONE) {
            return Err(format!("real device {rdev:04X} is defined twice in [io]"));
        }
        Ok(())
    }

    /// CP queues a request on its volume: the base if idle, else an idle SYSTEM alias of its
    /// LCU when the request may use one, else FIFO on the base. If a channel program started
    /// now, its completion (time, id) is returned for the caller to schedule.
    #[inline]
    pub fn submit(&mut self, mut r: IoRequest, now: u64) -> Option<(u64, IoId)> {
        let base = r.device;
        self.flow.submitted += 1;
        self.flow.pages_in += r.pages as u64;
        self.typed.submitted[check::kind(&r.origin)].add(r.pages);
        let sub = if self.subs[base as usize].busy.is_none() {
            Some(base)
        } else if r.aliases {
            self.idle_alias(base)
        } else {
            None
        };
        r.sub = sub.unwrap_or(base);
        let id = self.requests.insert(r);
        match sub {
            Some(s) => Some((self.start(id, s, now), id)),
            None => {
                self.subs[base as usize].queue.push_back(id);
                None
            }
        }
    }

    /// An idle alias CP owns that may serve `base` (CP's HyperPAV pool search).
    fn idle_alias(&mut self, base: u32) -> Option<u32> {
        let lcu = self.subs[base as usize].lcu;
        if lcu == NONE {
            return None;
        }
        self.pool_tries += 1;
        let found = self.lcus[lcu as usize].aliases.iter().copied().find(|&a| {
            let s = &self.subs[a as usize];
            s.owner == SubOwner::System && s.busy.is_none() && s.serves(base, lcu)
        });
        self.pool_fails += found.is_none() as u64;
        found
    }

    /// A guest starts a channel program on subchannel `sub` attached to it (idle: its driver
    /// starts one at a time per device). Returns the completion (time, id).
    pub fn start_on(&mut self, sub: u32, mut r: IoRequest, now: u64) -> (u64, IoId) {
        debug_assert!(
            self.subs[sub as usize].busy.is_none(),
            "SSCH on a busy subchannel"
        );
        self.flow.submitted += 1;
        self.flow.pages_in += r.pages as u64;
        self.typed.submitted[check::kind(&r.origin)].add(r.pages);
        r.sub = sub;
        let id = self.requests.insert(r);
        (self.start(id, sub, now), id)
    }

    #[inline]
    fn start(&mut self, id: IoId, sub: u32, now: u64) -> u64 {
        let r = *self.requests.get(id);
        let vol = self.vol_of[r.device as usize];
        let end = if vol == NONE {
            let cached = self.volume_cache.as_mut();
            now + match cached.and_then(|c| c.access(r.device, r.block, r.pages, r.write)) {
                Some(hit) => self.server.timed(hit, r.pages, r.write),
                None => {
                    let h = self.subs[r.device as usize].hit_ratio;
                    self.server.service(h, r.pages, r.write)
                }
            }
        } else {
            self.staged_service(id, vol, &r, now)
        };
        let s = &mut self.subs[sub as usize];
        debug_assert!(s.busy.is_none(), "two channel programs on one subchannel");
        s.busy = Some(id);
        s.stats.busy_ns += end - now;
        s.stats.ios += 1;
        s.stats.pages += r.pages as u64;
        self.typed.started[check::kind(&r.origin)].add(r.pages);
        let b = &mut self.subs[r.device as usize];
        b.stats.wait_ns += now - r.queued_at;
        if sub != r.device {
            b.via_alias += 1;
        }
        self.requests.get_mut(id).sub = sub;
        end
    }

    /// The staged path: channel protocol, host adapter, cache/NVS/ranks, data on the link.
    fn staged_service(&mut self, id: IoId, vol: u32, r: &IoRequest, now: u64) -> u64 {
        if self.path_of.len() <= id.0 as usize {
            self.path_of.resize(id.0 as usize + 1, 0);
        }
        if let Some(fp) = self.fcp_path.get(r.device as usize).copied().flatten() {
            return self.fcp_service(id, vol, r, now, fp);
        }
        let (Some(ch), Some(sv)) = (self.chans.as_mut(), self.server.staged.as_mut()) else {
            return now;
        };
        let p = ch.pick();
        self.path_of[id.0 as usize] = p;
        self.typed.staged.add(r.pages);
        let half = ch.overhead_ns / 2;
        let bytes = r.pages as u64 * 4096;
        // The control unit holds a channel program whose extent conflicts with one running
        // (one of them may write) until that one has ended.
        let granted =
            self.extents[vol as usize].admit(now + half, r.block, r.pages, r.reach, r.write);
        let at_server = sv.adapter(p, granted);
        // The link and the adapter's data path carry the data side by side.
        let flags = Data {
            write: r.write,
            ckd: true,
        };
        let data_end = if r.write {
            // Outbound: the write rate when one is set (none for FICON today: the link's).
            let arrived = ch.transfer_out(p, at_server, bytes);
            let moved = sv.adapter_data(p, vol, at_server, bytes, flags);
            sv.write(vol, r.block, r.pages as u64, arrived.max(moved))
        } else {
            let ready = sv.read(vol, r.block, r.pages as u64, at_server);
            ch.transfer(p, ready, bytes)
                .max(sv.adapter_data(p, vol, ready, bytes, flags))
        };
        // The control unit's part ends with the data in cache (and NVS): the extent is free
        // then; status and interrupt follow.
        self.extents[vol as usize].running(r.block, r.pages, r.reach, r.write, data_end);
        data_end + (ch.overhead_ns - half)
    }

    /// Busy time so far of each stage's busiest unit: channel link (FICON and FCP), host
    /// adapter, NVS copy path, disk, cluster cache. Differences over a test give its stages'
    /// utilizations.
    pub fn stage_busy(&self) -> [u64; 5] {
        let link = |c: Option<&Channels>| {
            c.map_or(0, |c| {
                c.stats().iter().map(|s| s.busy_ns).max().unwrap_or(0)
            })
        };
        let chp = link(self.chans.as_ref()).max(link(self.fcp_chans.as_ref()));
        match self.server.staged.as_ref() {
            Some(s) => [
                chp,
                s.busiest_adapter_ns(),
                s.stats.nvs_copy_ns,
                s.ranks().busiest_disk_ns(),
                s.busiest_cluster_ns(),
            ],
            None => [chp, 0, 0, 0, 0],
        }
    }

    /// Channel programs the control units held for an extent conflict, and their wait.
    pub fn extent_waits(&self) -> (u64, u64) {
        self.extents
            .iter()
            .fold((0, 0), |(n, w), e| (n + e.waits, w + e.wait_ns))
    }

    /// Request `id` ended: returns it, and the next request CP started on its subchannel.
    #[inline]
    pub fn complete(&mut self, id: IoId, now: u64) -> (IoRequest, Option<(u64, IoId)>) {
        let r = self.requests.remove(id);
        self.flow.completed += 1;
        self.flow.pages_out += r.pages as u64;
        self.typed.completed[check::kind(&r.origin)].add(r.pages);
        if self.vol_of[r.device as usize] != NONE {
            let fcp = self
                .fcp_path
                .get(r.device as usize)
                .copied()
                .flatten()
                .is_some();
            let ch = if fcp {
                self.fcp_chans.as_mut()
            } else {
                self.chans.as_mut()
            };
            if let Some(ch) = ch {
                ch.release(self.path_of[id.0 as usize]);
            }
        }
        let sub = r.sub;
        let s = &mut self.subs[sub as usize];
        debug_assert_eq!(s.busy, Some(id), "completion of a request not active");
        s.busy = None;
        if s.owner != SubOwner::System {
            return (r, None);
        }
        let next = if s.is_alias() {
            self.next_for_alias(sub)
        } else {
            s.queue.pop_front()
        };
        let started = next.map(|n| (self.start(n, sub, now), n));
        (r, started)
    }

    /// An idle SYSTEM alias takes the oldest alias-eligible request at the head of a queue of
    /// a base it serves.
    fn next_for_alias(&mut self, alias: u32) -> Option<IoId> {
        let lcu = self.subs[alias as usize].lcu;
        let mut best: Option<(u64, u32)> = None;
        for &b in &self.lcus[lcu as usize].bases {
            if !self.subs[alias as usize].serves(b, lcu) {
                continue;
            }
            if let Some(&h) = self.subs[b as usize].queue.front() {
                let r = self.requests.get(h);
                if r.aliases && best.map_or(true, |(t, _)| r.queued_at < t) {
                    best = Some((r.queued_at, b));
                }
            }
        }
        best.and_then(|(_, b)| self.subs[b as usize].queue.pop_front())
    }

    pub fn stats(&self, dev: u32) -> DevStats {
        self.subs[dev as usize].stats
    }

    pub fn queued(&self, dev: u32) -> usize {
        self.subs[dev as usize].queued()
    }

    pub fn in_flight(&self) -> usize {
        self.requests.in_flight()
    }

    /// The subchannel index of real device `rdev` defined in `[io]`.
    pub fn by_rdev(&self, rdev: u16) -> Option<u32> {
        self.subs
            .iter()
            .position(|s| s.rdev == rdev && s.lcu != NONE && s.lcu != FCP)
            .map(|i| i as u32)
    }

    /// The volume (base subchannel) whose data subchannel `i` reaches: a static PAV alias
    /// reaches its base's.
    pub fn volume_of(&self, i: u32) -> u32 {
        match self.subs[i as usize].kind {
            SubKind::PavAlias { base } => base,
            _ => i,
        }
    }

    pub fn sub(&self, i: u32) -> &Subchannel {
        &self.subs[i as usize]
    }

    pub fn set_owner(&mut self, i: u32, owner: SubOwner) {
        self.subs[i as usize].owner = owner;
    }

    pub fn lcus(&self) -> &[Lcu] {
        &self.lcus
    }

    pub fn subchannels(&self) -> usize {
        self.subs.len()
    }

    /// Data of real volume `sub` already in the storage server's cache at the start (see
    /// [`Staged::preload`]); nothing for a volume outside `[io]`.
    pub fn preload(&mut self, sub: u32, block: u64, blocks: u64) {
        let vol = self.vol_of[sub as usize];
        if let (true, Some(sv)) = (vol != NONE, self.server.staged.as_mut()) {
            sv.preload(vol, block, blocks);
        }
    }

    /// 4 KB blocks of the real volume subchannel `sub` reaches (0 outside `[io]`).
    pub fn volume_blocks(&self, sub: u32) -> u64 {
        let vol = self.vol_of[self.volume_of(sub) as usize];
        match (vol != NONE, self.server.staged.as_ref()) {
            (true, Some(sv)) => sv.volume_blocks(vol),
            _ => 0,
        }
    }

    pub fn server(&self) -> Option<&Staged> {
        self.server.staged.as_ref()
    }

    pub fn channels(&self) -> Option<&Channels> {
        self.chans.as_ref()
    }

    pub fn fcp_channels(&self) -> Option<&Channels> {
        self.fcp_chans.as_ref()
    }
}
