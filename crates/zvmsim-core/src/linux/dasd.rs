//! The Linux DASD device driver (drivers/s390/block/dasd*.c) of one guest: its online devices
//! (bases with a block device dasdX, and PAV/HyperPAV aliases, which have none), each with
//! its request queue (the device's ccw_queue: the head runs on the subchannel, one channel
//! program at a time), and the alias choice of dasd_alias.c.
//!
//! The alias choice, as `dasd_alias_get_start_dev` makes it when a request's channel program
//! is built: the base's alias group (its LCU for HyperPAV, its own aliases for static PAV)
//! hands out its aliases round robin, one per request; the request goes to that alias only if
//! the alias has fewer requests outstanding than the base, otherwise it stays on the base.
//! "Outstanding" is the device's count of requests built for it and not yet freed (queued or
//! running). So a busy round-robin pick sends the request to the base's queue even when other
//! aliases are idle — fewer such misses the more aliases there are.

use std::collections::VecDeque;

use crate::config::linux::DasdCache;

pub const NONE: u32 = u32::MAX;

/// `DASD_ECKD_CHANQ_MAX_SIZE` (drivers/s390/block/dasd_eckd.c): the requests a device (base
/// or alias) may have built and not yet freed; `dasd_eckd_build_alias_cp` refuses more
/// (-EBUSY) and blk-mq holds the request (`linux/blkmq.rs`).
pub const CHANQ_MAX: u32 = 4;

/// How the guest's device reaches real I/O (CP's view of the virtual device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevPath {
    /// A real device attached (dedicated) to the guest: subchannel index.
    Dedicated { sub: u32 },
    /// A minidisk on real volume `base` (subchannel index), starting at block `offset`.
    Minidisk { base: u32, offset: u64, blocks: u64 },
    /// A virtual HyperPAV alias of a full-pack minidisk on real volume `base`: CP runs its
    /// I/O on a real alias it owns.
    VirtualAlias { base: u32 },
}

/// /proc/diskstats-style counters of a block device (what iostat reads).
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockStats {
    pub reads: u64,
    pub writes: u64,
    pub read_sectors: u64,
    pub write_sectors: u64,
    pub read_ticks_ns: u64,
    pub write_ticks_ns: u64,
    /// Sum over time of requests in flight (for avgqu-sz), ns.
    pub queue_ns: u128,
    /// Time with at least one request in flight (for %util), ns.
    pub busy_ns: u64,
    pub in_flight: u32,
    pub last_change: u64,
}

impl BlockStats {
    /// Bring the time integrals up to `now`.
    pub fn tick(&mut self, now: u64) {
        let dt = now.saturating_sub(self.last_change);
        self.queue_ns += dt as u128 * self.in_flight as u128;
        if self.in_flight > 0 {
            self.busy_ns += dt;
        }
        self.last_change = now;
    }
}

pub struct LDev {
    /// Bus ID 0.0.<vdev>.
    pub vdev: u16,
    /// dasda, dasdb, ... for bases; None for aliases.
    pub name: Option<String>,
    pub path: DevPath,
    /// The alias group of the device (NONE: no aliases, e.g. a partial minidisk).
    pub group: u32,
    /// Requests built for this device and not yet freed (dasd_eckd_private.count).
    pub count: u32,
    /// Of those, requests whose channel program ended and that wait for the block tasklet to
    /// free them (`free_cp` decrements the count there, not at the interrupt).
    pub ending: u32,
    pub active: u32,
    pub queue: VecDeque<u32>,
    /// Channel programs this device ran.
    pub started: u64,
    /// Bases: their block device's counters.
    pub block: BlockStats,
    /// `block` at the start of the current monitor interval (what `iostat -x` reports from).
    pub mark: BlockStats,
    /// 4 KB blocks of the device (bases).
    pub blocks: u64,
    /// Real LCU's subsystem ID, for `lsdasd -u`.
    pub ssid: u16,
    /// Bases: the device's own profile (`tunedasd -P`), counted while the driver's profile
    /// is on, kept when it is switched off (only BIODASDPRRST, `tunedasd -R`, clears it).
    pub profile: crate::linux::dasdprof::DasdProfile,
    /// Bases: the cache attribute its channel programs' Define Extent carries (set from the
    /// driver's default when the device comes online; BIODASDSATTR changes it).
    pub cache: DasdCache,
    /// Bases: the block device's tasklet (`linux/dasdblock.rs`).
    pub tasklet: crate::linux::dasdblock::BlockTasklet,
    /// An alias set offline (chzdev -d, chccwdev -d, `online` 0): out of its group, so the
    /// alias choice no longer takes it; its requests under way still end. It keeps its
    /// place here, as the requests and the workloads know devices by index.
    pub offline: bool,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct LReq {
    pub task: u32,
    /// The block device (base LDev) it addresses.
    pub base: u32,
    /// The device it was started on (base or alias).
    pub dev: u32,
    pub block: u64,
    pub pages: u32,
    pub write: bool,
    pub queued_at: u64,
    /// When its channel program was started (SSCH), for the driver's profile.
    pub started_at: u64,
}

struct Group {
    aliases: Vec<u32>,
    next: usize,
}

#[derive(Default)]
pub struct DasdDriver {
    pub devs: Vec<LDev>,
    groups: Vec<Group>,
    /// Group key per group: (real LCU index, base for static PAV or NONE).
    keys: Vec<(u32, u32)>,
    reqs: Vec<LReq>,
    free: Vec<u32>,
    pub in_flight: u32,
    /// Requests the alias choice sent to an alias, and those it kept on the base.
    pub to_alias: u64,
    pub kept_on_base: u64,
    /// The driver's profile (/proc/dasd/statistics): off at boot.
    pub profile: crate::linux::dasdprof::DasdProfile,
    /// Its profiles in debugfs (kernels from 3.x; `linux/dasdstats.rs`): off at boot.
    pub debugfs: crate::linux::dasdstats::DebugFs,
    /// The cache attribute a device gets when it comes online (the kernel level's default).
    pub default_cache: DasdCache,
    /// blk-mq's dispatch lists of the requests the driver refused (`linux/blkmq.rs`).
    pub mq: crate::linux::blkmq::HwQueues,
    /// Requests a device may have built (`CHANQ_MAX` for the 4.18 ECKD discipline; 0: no
    /// limit, `[guests.linux] dasd_request_limit`).
    pub chanq_max: u32,
    /// Requests pass the block device's tasklet to start and to end (`linux/dasdblock.rs`;
    /// kernels from 2.6.25, where `struct dasd_block` came with HyperPAV support).
    pub block_tasklet: bool,
    /// With the tasklet: the requests built since the machine last took them (each passes
    /// the tasklet to be handed to its device).
    pub built: Vec<u32>,
    /// Requests and bytes at each step (`linux/dasdflow.rs`).
    pub flow: super::dasdflow::DasdFlow,
    /// A debugfs profile is on (`debugfs.any_on()`, kept so the hot path tests one flag).
    pub debug_on: bool,
}

impl DasdDriver {
    /// A driver whose devices come online with cache attribute `cache`.
    pub fn with_cache(cache: DasdCache) -> Self {
        DasdDriver {
            default_cache: cache,
            ..Default::default()
        }
    }

    /// The driver builds at most `n` requests per device (0: no limit).
    pub fn request_limit(mut self, n: u32) -> Self {
        self.chanq_max = n;
        self
    }

    /// Requests pass the block device's tasklet (`linux/dasdblock.rs`).
    pub fn with_block_tasklet(mut self, on: bool) -> Self {
        self.block_tasklet = on;
        self
    }

    /// Set a device online. `group_key` (real LCU, static-PAV base or NONE) says which alias
    /// group it joins; `alias` devices are handed out by their group.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        vdev: u16,
        name: Option<String>,
        path: DevPath,
        group_key: Option<(u32, u32)>,
        alias: bool,
        blocks: u64,
        ssid: u16,
    ) -> u32 {
        let idx = self.devs.len() as u32;
        let group = match group_key {
            Some(k) => match self.keys.iter().position(|&x| x == k) {
                Some(gi) => gi as u32,
                None => {
                    self.keys.push(k);
                    self.groups.push(Group {
                        aliases: Vec::new(),
                        next: 0,
                    });
                    (self.groups.len() - 1) as u32
                }
            },
            None => NONE,
        };
        if alias && group != NONE {
            self.groups[group as usize].aliases.push(idx);
        }
        self.devs.push(LDev {
            vdev,
            name,
            path,
            group,
            count: 0,
            ending: 0,
            active: NONE,
            queue: VecDeque::new(),
            started: 0,
            block: BlockStats::default(),
            mark: BlockStats::default(),
            blocks,
            ssid,
            profile: crate::linux::dasdprof::DasdProfile::counting(),
            cache: self.default_cache,
            tasklet: Default::default(),
            offline: false,
        });
        idx
    }

    /// Alias `d` goes offline (true) or comes back online (false): it leaves its group's
    /// alias list or rejoins it, and its debugfs profile goes (dasd_profile_exit) either way.
    pub fn set_alias_offline(&mut self, d: u32, offline: bool) {
        let dev = &mut self.devs[d as usize];
        dev.offline = offline;
        let g = dev.group;
        if g != NONE {
            let grp = &mut self.groups[g as usize];
            grp.aliases.retain(|&a| a != d);
            if !offline {
                grp.aliases.push(d);
            }
            grp.next = if grp.aliases.is_empty() {
                0
            } else {
                grp.next % grp.aliases.len()
            };
        }
        if (d as usize) < self.debugfs.device.len() {
            self.debugfs.device[d as usize] = Default::default();
        }
        self.debug_on = self.debugfs.any_on();
    }

    /// A monitor interval starts at `now`: the block counters' marks for `iostat -x`.
    pub fn mark(&mut self, now: u64) {
        for d in &mut self.devs {
            d.block.tick(now);
            d.mark = d.block;
        }
    }

    pub fn is_alias(&self, d: u32) -> bool {
        self.devs[d as usize].name.is_none()
    }

    pub fn by_vdev(&self, vdev: u16) -> Option<u32> {
        self.devs
            .iter()
            .position(|d| d.vdev == vdev)
            .map(|i| i as u32)
    }

    /// Aliases in the group of base `b`.
    pub fn aliases_of(&self, b: u32) -> usize {
        let g = self.devs[b as usize].group;
        if g == NONE {
            0
        } else {
            self.groups[g as usize].aliases.len()
        }
    }

    /// dasd_alias_get_start_dev: the device a request for base `b` starts on.
    fn start_dev(&mut self, b: u32) -> u32 {
        let g = self.devs[b as usize].group;
        if g == NONE || self.groups[g as usize].aliases.is_empty() {
            return b;
        }
        let grp = &mut self.groups[g as usize];
        let a = grp.aliases[grp.next];
        grp.next = (grp.next + 1) % grp.aliases.len();
        if self.devs[a as usize].count < self.devs[b as usize].count {
            self.to_alias += 1;
            a
        } else {
            self.kept_on_base += 1;
            b
        }
    }

    /// A request of task `task` for base `b` is built: it joins the chosen device's queue.
    /// Returns (request, device) when the device was idle: the caller starts its channel
    /// program (SSCH) now.
    pub fn submit(
        &mut self,
        task: u32,
        b: u32,
        block: u64,
        pages: u32,
        write: bool,
        now: u64,
    ) -> (u32, Option<u32>) {
        self.flow.entered.add(pages);
        let dev = self.start_dev(b);
        self.enqueue(task, b, dev, block, pages, write, now)
    }

    /// dasd_eckd_build_alias_cp: the alias choice, then the chosen device's limit. None
    /// (-EBUSY) when that device already has `chanq_max` requests built; the request was
    /// submitted at `at` (its latency counts from there).
    #[allow(clippy::too_many_arguments)]
    pub fn try_submit(
        &mut self,
        task: u32,
        b: u32,
        block: u64,
        pages: u32,
        write: bool,
        at: u64,
        now: u64,
    ) -> Option<(u32, Option<u32>)> {
        // The counts of the alias choice are of requests built: a refused try moves the
        // round robin on (as the driver's does) but is not a request kept on the base.
        let counted = (self.to_alias, self.kept_on_base);
        let dev = self.start_dev(b);
        if self.chanq_max > 0 && self.devs[dev as usize].count >= self.chanq_max {
            (self.to_alias, self.kept_on_base) = counted;
            return None;
        }
        let (id, started) = self.enqueue(task, b, dev, block, pages, write, now);
        self.reqs[id as usize].queued_at = at;
        Some((id, started))
    }

    /// A request for device `d` that runs on `d` itself, without the alias choice (a Linux
    /// 2.4 driver: no PAV support; an alias z/VM gives it is a disk of its own).
    pub fn submit_to(
        &mut self,
        task: u32,
        d: u32,
        block: u64,
        pages: u32,
        write: bool,
        now: u64,
    ) -> (u32, Option<u32>) {
        self.flow.entered.add(pages);
        self.enqueue(task, d, d, block, pages, write, now)
    }

    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &mut self,
        task: u32,
        b: u32,
        dev: u32,
        block: u64,
        pages: u32,
        write: bool,
        now: u64,
    ) -> (u32, Option<u32>) {
        let r = LReq {
            task,
            base: b,
            dev,
            block,
            pages,
            write,
            queued_at: now,
            started_at: 0,
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        };
        self.in_flight += 1;
        self.flow.built.add(pages);
        let bs = &mut self.devs[b as usize].block;
        bs.tick(now);
        // The requests already on the block device's queue (built, not yet ended).
        let queued = bs.in_flight;
        bs.in_flight += 1;
        if self.profile.on {
            self.profile.start(queued);
            self.devs[b as usize].profile.start(queued);
        }
        if self.debug_on {
            let d = &self.devs[dev as usize];
            let on_dev = (d.active != NONE) as u32 + d.queue.len() as u32;
            self.debugfs.start(b, dev, queued + 1, on_dev, !write);
        }
        if self.block_tasklet {
            self.built.push(id);
        }
        let d = &mut self.devs[dev as usize];
        d.count += 1;
        if d.active == NONE {
            d.active = id;
            d.started += 1;
            (id, Some(dev))
        } else {
            d.queue.push_back(id);
            (id, None)
        }
    }

    pub fn req(&self, id: u32) -> LReq {
        self.reqs[id as usize]
    }

    /// Tracks the Define Extent of request `id` reaches past its data's last track: its
    /// block device's cache attribute, on a device of `blocks / 180` cylinders (3390: 12
    /// blocks of 4 KB a track, 15 tracks a cylinder). A device without blocks of its own (a
    /// static PAV alias a 2.4 kernel uses as a disk) has its volume's geometry, `volume`.
    pub fn extent_reach(&self, id: u32, volume: u64) -> u32 {
        let r = &self.reqs[id as usize];
        let d = &self.devs[r.base as usize];
        let blocks = if d.blocks > 0 { d.blocks } else { volume };
        let last = (r.block + r.pages.max(1) as u64 - 1) / 12;
        (d.cache.extent_end(last, blocks / 180) - last) as u32
    }

    /// Request `id`'s channel program is started (SSCH) at `now`.
    pub fn started(&mut self, id: u32, now: u64) {
        self.reqs[id as usize].started_at = now;
        self.flow.started.add(self.reqs[id as usize].pages);
    }

    /// Request `id`'s channel program ended: it is freed; returns it and the next request the
    /// device starts (its queue's head), if any.
    pub fn complete(&mut self, id: u32, now: u64) -> (LReq, Option<u32>) {
        let r = self.reqs[id as usize];
        self.free.push(id);
        self.in_flight -= 1;
        self.flow.ended.add(r.pages);
        let bs = &mut self.devs[r.base as usize].block;
        bs.tick(now);
        bs.in_flight -= 1;
        let lat = now - r.queued_at;
        let sectors = r.pages as u64 * 8;
        // Its interrupt is handled and it ends in the same pass (no bottom half modelled).
        if r.write {
            bs.writes += 1;
            bs.write_sectors += sectors;
            bs.write_ticks_ns += lat;
        } else {
            bs.reads += 1;
            bs.read_sectors += sectors;
            bs.read_ticks_ns += lat;
        }
        if self.profile.on {
            self.profile
                .end(sectors, r.queued_at, r.started_at, now, now);
            let p = &mut self.devs[r.base as usize].profile;
            p.end(sectors, r.queued_at, r.started_at, now, now);
        }
        if self.debug_on {
            let e = crate::linux::dasdstats::Ended {
                sectors,
                alias: r.dev != r.base,
                tpm: self.debugfs.tpm,
                read: !r.write,
                build: r.queued_at,
                start: r.started_at,
                stop: now,
                end: now,
            };
            self.debugfs.end(r.base, r.dev, &e);
        }
        let d = &mut self.devs[r.dev as usize];
        debug_assert_eq!(
            d.active, id,
            "completion of a request not running on its device"
        );
        if self.block_tasklet {
            d.ending += 1;
        } else {
            d.count -= 1;
        }
        d.active = NONE;
        let next = d.queue.pop_front();
        if let Some(n) = next {
            d.active = n;
            d.started += 1;
        }
        (r, next)
    }

    /// The block tasklet ended a request that ran on device `dev`: `free_cp` frees its
    /// channel program, and the device's count (the alias choice's measure) drops.
    pub fn freed(&mut self, dev: u32) {
        let d = &mut self.devs[dev as usize];
        d.ending -= 1;
        d.count -= 1;
    }

    /// Invariants: a device runs at most one request, which is its own; counts match the
    /// queues; aliases only take requests of bases in their group.
    pub fn check(&self) -> Result<(), String> {
        let mut total = 0u32;
        for (i, d) in self.devs.iter().enumerate() {
            let n = d.queue.len() as u32 + (d.active != NONE) as u32 + d.ending;
            if n != d.count {
                return Err(format!(
                    "0.0.{:04x}: count {} but {n} requests",
                    d.vdev, d.count
                ));
            }
            total += n - d.ending;
            for &q in d
                .queue
                .iter()
                .chain((d.active != NONE).then_some(&d.active))
            {
                let r = &self.reqs[q as usize];
                if r.dev as usize != i {
                    return Err(format!(
                        "0.0.{:04x}: holds another device's request",
                        d.vdev
                    ));
                }
                if r.base as usize != i && self.devs[r.base as usize].group != d.group {
                    return Err(format!(
                        "alias 0.0.{:04x} took a base of another group",
                        d.vdev
                    ));
                }
            }
        }
        if total != self.in_flight {
            return Err(format!(
                "{total} requests on devices, {} in flight",
                self.in_flight
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "dasd_tests.rs"]
pub(crate) mod tests;
