//! Routing of guest DASD I/O between Linux's DASD driver, CP's virtual devices and the real
//! I/O: a channel program the driver starts on a device goes, by the device's path, straight
//! to the attached real subchannel, or through CP's queue of the real volume (minidisks and
//! virtual HyperPAV aliases, which CP runs on the base or on a real alias it owns). Its
//! completion frees the request in the driver, which starts the device's next one, and wakes
//! the process waiting in io_getevents.

use crate::io::{IoEvent, IoRequest, Origin, SubOwner};
use crate::linux::dasd::DevPath;

use super::machine::Machine;
use super::{Event, Simulation};

impl Machine {
    /// CP CPU for a guest SSCH of `pages` on device `d` of guest `g` (charged with the
    /// guest's burst).
    pub(crate) fn ssch_cost(&self, g: usize, d: u32, pages: u32) -> u64 {
        let c = &self.io_cost;
        let base = c.cp_dedicated.ns() + c.cp_per_page.ns() * pages as u64;
        match self.guests[g].dasd.devs[d as usize].path {
            DevPath::Dedicated { .. } => base,
            DevPath::Minidisk { .. } => base + c.cp_minidisk.ns(),
            DevPath::VirtualAlias { .. } => base + c.cp_minidisk.ns() + c.cp_virtual_alias.ns(),
        }
    }

    /// The blocks `block..block + blocks` of guest `g`'s DASD `d` were written just before the
    /// run (a workload's preparation): the storage server's cache holds them.
    pub(crate) fn preload_dasd(&mut self, g: usize, d: u32, block: u64, blocks: u64) {
        let (volume, offset) = match self.guests[g].dasd.devs[d as usize].path {
            DevPath::Dedicated { sub } => (self.io.volume_of(sub), 0),
            DevPath::Minidisk { base, offset, .. } => (base, offset),
            DevPath::VirtualAlias { base } => (base, 0),
        };
        self.io.preload(volume, offset + block, blocks);
    }

    /// The channel programs the burst of virtual CPU `v` built wait for that burst's end.
    pub(crate) fn keep_burst_ssch(&mut self, v: usize) {
        if self.pending_ssch.is_empty() {
            return;
        }
        if self.burst_ssch.len() <= v {
            self.burst_ssch.resize_with(v + 1, Vec::new);
        }
        self.burst_ssch[v].append(&mut self.pending_ssch);
    }

    /// A kblockd worker of guest `g` runs blk-mq's hardware queues that hold requests the
    /// DASD driver refused: the oldest of each is built if its device has room. Returns the
    /// CPU used (the SSCHs of those built on idle devices follow at the burst's end).
    pub(crate) fn kblockd_run(&mut self, g: usize) -> u64 {
        let mut started = std::mem::take(&mut self.mq_started);
        let (runs, attempts) = self.guests[g].dasd.mq_run(self.now, &mut started);
        let c = &self.io_cost;
        let guest_ns = runs as u64 * c.blk_mq_run.ns() + attempts as u64 * c.blk_mq_dispatch.ns();
        guest_ns + self.start_built(g, started, guest_ns)
    }

    /// Requests blk-mq got built (`started`, the buffer taken from `mq_started`, which it
    /// returns emptied): each waits for its SSCH at the burst's end. Charges guest `g` its
    /// `guest_ns` and CP's cost of those SSCHs; returns the latter.
    pub(crate) fn start_built(
        &mut self,
        g: usize,
        mut started: Vec<(u32, u32)>,
        guest_ns: u64,
    ) -> u64 {
        let mut cp_ns = 0;
        for &(req, d) in &started {
            let pages = self.guests[g].dasd.req(req).pages;
            cp_ns += self.ssch_cost(g, d, pages);
            self.pending_ssch.push((g as u32, req, true));
        }
        // With the block tasklet every request built passes it, also those that wait on a
        // busy device (the interrupt of its current request starts them).
        let mut built = std::mem::take(&mut self.guests[g].dasd.built);
        for &req in &built {
            if !started.iter().any(|&(r, _)| r == req) {
                self.pending_ssch.push((g as u32, req, false));
            }
        }
        built.clear();
        self.guests[g].dasd.built = built;
        started.clear();
        self.mq_started = started;
        self.charge(g, guest_ns, cp_ns);
        cp_ns
    }

    /// DASD request `req` of guest `g` passes its block device's tasklet (`start`: to be
    /// handed to its device; else: ended). Returns when that pass has done it; None when the
    /// guest's kernel has no block tasklet (no release, or before 2.6.25). The pass's CPU,
    /// and the spin of a CPU waiting for a pass running elsewhere or for the queue lock, run
    /// in the guest's softirq (its backlog). A request built on a busy device is started by
    /// its device's interrupt whether or not its start pass has run (approximation).
    pub(crate) fn block_pass(&mut self, g: usize, req: u32, start: bool) -> Option<u64> {
        use crate::linux::dasdblock::Work;
        let c = &self.io_cost;
        let dasd = &mut self.guests[g].dasd;
        if !dasd.block_tasklet {
            return None;
        }
        let work = if start {
            Work::Start(c.blk_tasklet_start.ns())
        } else {
            Work::End(c.blk_tasklet_end.ns())
        };
        let base = dasd.req(req).base as usize;
        let queued = dasd.devs[base].block.in_flight as u64;
        let pass = c.blk_tasklet_pass.ns() + 2 * queued * c.blk_tasklet_entry.ns();
        // SMT: the pass runs on a thread whose core's other thread may run another of the
        // guest's virtual CPUs: it takes longer (the CPU charged is stretched when the
        // guest's next burst runs it, so it is charged here unstretched).
        let slow = self.disp.guest_slowdown(g as u32);
        let stretch = |ns: u64| (ns as f64 * slow) as u64;
        let work = match work {
            Work::Start(w) => Work::Start(stretch(w)),
            Work::End(w) => Work::End(stretch(w)),
        };
        let s = dasd.devs[base]
            .tasklet
            .schedule(self.now, stretch(pass), work);
        self.guests[g].linux_backlog += (s.cpu_ns as f64 / slow) as u64;
        Some(s.done)
    }

    /// Start DASD request `req` of guest `g` on the device the driver chose.
    pub(crate) fn guest_ssch(&mut self, g: u32, req: u32) {
        self.guests[g as usize].dasd.started(req, self.now);
        let dasd = &self.guests[g as usize].dasd;
        let r = dasd.req(req);
        let base_path = dasd.devs[r.base as usize].path;
        let dev_path = dasd.devs[r.dev as usize].path;
        let (volume, offset) = match base_path {
            // A static PAV alias a 2.4 kernel sees as a disk of its own reaches its base.
            DevPath::Dedicated { sub } => (self.io.volume_of(sub), 0),
            DevPath::Minidisk { base, offset, .. } => (base, offset),
            DevPath::VirtualAlias { base } => (base, 0),
        };
        let reach = dasd.extent_reach(req, self.io.volume_blocks(volume));
        let mut io = IoRequest {
            origin: Origin::Dasd { guest: g, req },
            device: volume,
            pages: r.pages,
            write: r.write,
            queued_at: self.now,
            block: offset + r.block,
            aliases: false,
            sub: 0,
            reach,
        };
        let started = match dev_path {
            DevPath::Dedicated { sub } => {
                self.sys.virtual_io += 1;
                Some(self.io.start_on(sub, io, self.now))
            }
            // A read of a minidisk goes through CP's minidisk cache.
            DevPath::Minidisk { .. } if !io.write => {
                io.aliases = true;
                self.minidisk_read(g, io);
                None
            }
            DevPath::Minidisk { .. } | DevPath::VirtualAlias { .. } => {
                self.sys.virtual_io += 1;
                if io.write {
                    self.mdc.write(volume);
                }
                io.aliases = true;
                self.io.submit(io, self.now)
            }
        };
        if let Some((t, id)) = started {
            self.q.push(t, Event::Io(IoEvent::Complete(id)));
        }
    }
}

impl Simulation {
    /// Guest `g`'s iozone workload, if it runs one.
    pub fn iozone(&self, g: usize) -> Option<&crate::workload::iozone::Iozone> {
        match self.workloads.get(g)? {
            crate::workload::Workload::Iozone(z) => Some(z),
            _ => None,
        }
    }

    /// Virtual CPU `v`'s burst ended: start the channel programs it built (its io_submit
    /// calls; the SSCHs follow the CPU time that built them).
    pub(super) fn start_burst_ssch(&mut self, v: usize) {
        let Some(list) = self.m.burst_ssch.get_mut(v) else {
            return;
        };
        if list.is_empty() {
            return;
        }
        let mut built = std::mem::take(list);
        for &(g, req, start) in &built {
            match self.m.block_pass(g as usize, req, true) {
                // The block tasklet hands it to its device, whose tasklet starts it if idle.
                Some(at) if start => {
                    let slot = self.m.deferred_ssch.put((g, req));
                    self.m.q.push(at, Event::Io(IoEvent::GuestStart(slot)));
                }
                Some(_) => {}
                None if start => self.m.guest_ssch(g, req),
                None => {}
            }
        }
        built.clear();
        self.m.burst_ssch[v] = built;
    }

    /// The burst that ended ran io_submit (its channel programs have started): the process
    /// sleeps unless completions already wait in its ring.
    pub(super) fn aio_burst_end(&mut self, task: u32) {
        let t = &mut self.m.tasks[task as usize];
        if t.aio_waiting && t.aio_done > 0 {
            t.aio_waiting = false;
            self.make_ready(task);
        }
    }

    /// DASD request `req` of guest `g` completed.
    pub(super) fn dasd_done(&mut self, g: u32, req: u32) {
        let now = self.m.now;
        let gi = g as usize;
        let (r, next) = self.m.guests[gi].dasd.complete(req, now);
        if let Some(n) = next {
            // The DASD tasklet starts the device's next request from the interrupt: the
            // device stays idle while CP reflects the interrupt, Linux handles it and builds
            // the start, and CP intercepts and translates the SSCH (for a minidisk also its
            // relocation and queueing on the real volume).
            let d = self.m.guests[gi].dasd.req(n).dev;
            let pages = self.m.guests[gi].dasd.req(n).pages;
            let cp = self.m.ssch_cost(gi, d, pages);
            self.m.disp.defer_cp(Some(g), cp);
            let turnaround = self.m.io_cost.linux_complete.ns() + cp;
            let slot = self.m.deferred_ssch.put((g, n));
            self.m
                .q
                .push(now + turnaround, Event::Io(IoEvent::GuestStart(slot)));
        }
        let st = &mut self.m.guests[gi].stats;
        st.tx += 1;
        st.resp_ns += (now - r.queued_at) as u128;
        st.dasd_bytes += r.pages as u64 * 4096;
        if let Some(at) = self.m.block_pass(gi, req, false) {
            let slot = self
                .m
                .deferred_done
                .put((g, r.task, r.dev, r.base, r.pages));
            self.m.q.push(at, Event::Io(IoEvent::GuestDone(slot)));
            return;
        }
        self.rerun_hw_queues(gi, r.base);
        self.aio_complete(gi, r.task, r.pages);
    }

    /// The block tasklet's pass ended a request of guest `g` that ran on device `dev` of block
    /// device `base`: its channel program is freed (the device's count drops), blk-mq reruns
    /// the device's queues (`dasd_request_done`), and the aio completion reaches the task.
    pub(super) fn block_done(&mut self, g: u32, task: u32, dev: u32, base: u32, pages: u32) {
        let gi = g as usize;
        self.m.guests[gi].dasd.freed(dev);
        self.rerun_hw_queues(gi, base);
        self.aio_complete(gi, task, pages);
    }

    /// The aio completion of a DASD request reaches task `task` of guest `g`: it is in its
    /// ring, and the task wakes if it sleeps in io_getevents.
    pub(super) fn aio_complete(&mut self, gi: usize, task: u32, pages: u32) {
        let g = gi as u32;
        self.m.guests[gi].dasd.delivered(pages);
        let t = &mut self.m.tasks[task as usize];
        t.aio_done += 1;
        if t.aio_waiting {
            t.aio_waiting = false;
            if !self.m.guests[gi].idle_vcpus.is_empty() {
                // The process's wake-up needs a virtual CPU that is in its wait state.
                let w = self.m.io_cost.vcpu_wake.ns();
                self.m.disp.defer_cp(Some(g), w);
            }
            self.make_ready(task);
        }
    }

    /// dasd_request_done: blk_mq_run_hw_queues(req->q, true) for the queue of block device
    /// `base`. Each of its hardware contexts holding refused requests gets a kblockd run on
    /// one of its CPUs, waking it if it waits (CP's wake of a virtual CPU, at most as many as
    /// wait); one worker task of the guest does the runs. A run already queued is only
    /// re-armed (it runs this device's queue too).
    fn rerun_hw_queues(&mut self, g: usize, base: u32) {
        let gs = &mut self.m.guests[g];
        let Some(hctxs) = gs.dasd.mq.rerun(base) else {
            return;
        };
        let wakes = (hctxs as usize).min(gs.idle_vcpus.len()) as u64;
        if wakes > 0 {
            let w = self.m.io_cost.vcpu_wake.ns();
            self.m.disp.defer_cp(Some(g as u32), wakes * w);
        }
        if gs.kblockd_task == crate::linux::dasd::NONE {
            gs.kblockd_task = self.m.tasks.len() as u32;
            let t = super::machine::Task::new(g as u32, super::machine::TaskKind::Kblockd);
            self.m.tasks.push(t);
        }
        let t = self.m.guests[g].kblockd_task;
        self.make_ready(t);
    }

    /// For tests: the I/O invariants (real subchannels and every guest's DASD driver).
    pub fn check_io(&self) -> Result<(), String> {
        self.m.io.check()?;
        for g in &self.m.guests {
            g.dasd.check().map_err(|e| format!("{}: {e}", g.name))?;
        }
        self.check_io_flow()?;
        // A dedicated subchannel runs only its owner's requests.
        for i in 0..self.m.io.subchannels() as u32 {
            let s = self.m.io.sub(i);
            if let (SubOwner::Guest(g), Some(_)) = (s.owner, s.busy) {
                if g as usize >= self.m.guests.len() {
                    return Err(format!("{:04X} attached to no guest", s.rdev));
                }
            }
        }
        Ok(())
    }
}

impl Simulation {
    /// The DASD path's figures over the measured window, for scenarios with `[io]`.
    pub(super) fn dasd_summary(
        &self,
        measured_ns: u64,
    ) -> Option<crate::monitor::summary::DasdSummary> {
        self.scenario.io.as_ref()?;
        let ratio = crate::monitor::summary::ratio;
        let secs = measured_ns.max(1) as f64 / 1e9;
        let gs = &self.m.guests;
        let bytes: u64 = gs.iter().map(|g| g.total.dasd_bytes).sum();
        let ios: u64 = gs.iter().map(|g| g.total.tx).sum();
        let resp: u128 = gs.iter().map(|g| g.total.resp_ns).sum();
        let cpu_ns: u64 = gs
            .iter()
            .map(|g| g.total.cpu_ns + g.total.cp_ns)
            .sum::<u64>();
        let cpus = cpu_ns as f64 / measured_ns.max(1) as f64;
        let mb_s = bytes as f64 / 1e6 / secs;
        let (alias, all) = (0..self.m.io.subchannels() as u32).fold((0u64, 0u64), |(a, n), i| {
            let s = self.m.io.sub(i);
            if s.is_alias() {
                (a + s.stats.ios, n + s.stats.ios)
            } else {
                (a, n + s.stats.ios)
            }
        });
        let (to_alias, kept) = gs.iter().fold((0u64, 0u64), |(a, k), g| {
            (a + g.dasd.to_alias, k + g.dasd.kept_on_base)
        });
        let sv = self.m.io.server();
        let (hit, nvs, disk) = match sv {
            Some(s) => (
                100.0 * ratio(s.stats.read_hits as f64, s.stats.reads as f64),
                ratio(s.stats.nvs_wait_ns as f64, s.stats.writes as f64) / 1e6,
                100.0 * s.ranks().stats().busy_ns as f64
                    / (self.m.now.max(1) as f64 * s.ranks().disk_count() as f64),
            ),
            None => (0.0, 0.0, 0.0),
        };
        let chp = self.m.io.channels().map_or(0.0, |c| {
            let st = c.stats();
            100.0 * st.iter().map(|s| s.busy_ns).sum::<u64>() as f64
                / (self.m.now.max(1) as f64 * st.len() as f64)
        });
        let run = self.m.now.max(1) as f64;
        let (ha, nvs_copy) = sv.map_or((0.0, 0.0), |s| {
            (
                100.0 * s.busiest_adapter_ns() as f64 / run,
                100.0 * s.stats.nvs_copy_ns as f64 / run,
            )
        });
        let (waits, wait_ns) = self.m.io.extent_waits();
        let tasklets =
            gs.iter()
                .flat_map(|g| g.dasd.devs.iter())
                .fold((0u64, 0u64, 0u64), |(p, b, s), d| {
                    (
                        p + d.tasklet.passes,
                        b + d.tasklet.busy_ns,
                        s + d.tasklet.spin_ns,
                    )
                });
        let all_ios = self.m.io.flow.submitted.max(1) as f64;
        let mut iozone = (None::<f64>, None::<f64>);
        let mut util = [None, None];
        for g in 0..gs.len() {
            if let Some(z) = self.iozone(g) {
                let (w, r) = z.throughput();
                let add = |a: Option<f64>, b: Option<f64>| match (a, b) {
                    (Some(x), Some(y)) => Some(x + y),
                    (None, y) => y,
                    (x, None) => x,
                };
                iozone = (add(iozone.0, w), add(iozone.1, r));
                util = z.util;
            }
        }
        Some(crate::monitor::summary::DasdSummary {
            dasd_mb_per_s: mb_s,
            dasd_driver_io_per_s: ios as f64 / secs,
            dasd_response_ms: ratio(resp as f64, ios as f64) / 1e6,
            io_cpu_pct: 100.0 * cpus,
            mb_per_cpu_s: ratio(mb_s, cpus),
            alias_io_pct: 100.0 * ratio(alias as f64, all as f64),
            kept_on_base_pct: 100.0 * ratio(kept as f64, (to_alias + kept) as f64),
            read_hit_pct: hit,
            nvs_wait_ms_per_write: nvs,
            disk_util_pct: disk,
            chpid_util_pct: chp,
            ha_util_pct: ha,
            nvs_copy_util_pct: nvs_copy,
            extent_wait_pct: 100.0 * waits as f64 / all_ios,
            extent_wait_ms: ratio(wait_ns as f64, waits as f64) / 1e6,
            block_passes_per_s: tasklets.0 as f64 / (run / 1e9),
            block_tasklet_busy_pct: 100.0 * tasklets.1 as f64 / run,
            block_tasklet_spin_pct: 100.0 * tasklets.2 as f64 / run,
            iozone_write_mb_s: iozone.0,
            iozone_read_mb_s: iozone.1,
            iozone_write_util_pct: util[0],
            iozone_read_util_pct: util[1],
        })
    }
}
