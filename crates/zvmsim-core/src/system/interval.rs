//! The monitor's side of the run: the measured window starts after priming; each interval
//! closes into typed rows built from the components' counters; the summary is built from them.

use crate::config::units::NS_PER_S;
use crate::cp::storage::{Movement, SpaceId};
use crate::engine::rng::RNG_ALGORITHM;
use crate::io::DevStats;
use crate::monitor::counters::{GuestCounters, SysCounters, VmMark};
use crate::monitor::rows::{GuestRow, PagingVolumeRow, SystemRow};
use crate::monitor::summary::{ratio, AgelistMeans, GuestSummary, Summary, SystemMeans};

use super::paging_view::sum_stats;
use super::{Event, MonitorEvent, Simulation};

/// Where the current interval started, and the rows so far.
#[derive(Default)]
pub(super) struct IntervalState {
    pub start: u64,
    pub no: u32,
    /// Page movements at the start of the current interval.
    pub mv: Movement,
    /// Each paging volume's counts at the start of the current interval (paging_view.rs); the
    /// system row's paging figures are their sums.
    pub volumes: Vec<DevStats>,
    /// All real volumes' counts at the start of the interval (web_view.rs).
    pub dasd_all: DevStats,
    /// Real I/Os started and minidisk-cache counts at the start of the current interval.
    pub flow: u64,
    pub mdc: crate::cp::mdc::MdcStats,
    /// Paging reads and those the storage server's cache served, at the interval's start
    /// (`paging.cache`).
    pub paging_cache: (u64, u64),
    pub rows: Vec<GuestRow>,
    pub sys_rows: Vec<SystemRow>,
    pub vol_rows: Vec<PagingVolumeRow>,
}

/// The mean of figures a run either has in every row or in none.
fn mean_of(v: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = v.flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

impl Simulation {
    /// Guest `gi`'s pages in the stable state while it uses CMMA: its storage less its unused
    /// and volatile pages (0 without CMMA, where every page is stable and none is tracked).
    fn cmma_stable(&self, gi: usize) -> u64 {
        if !self.m.guests[gi].mem.cmma {
            return 0;
        }
        let s = SpaceId(gi as u32);
        let c = self.m.storage.cmma_counts(s);
        (self.m.storage.space_pages(s) as u64).saturating_sub(c.unused + c.volatile)
    }

    /// Paging reads and those the storage server's cache served (`paging.cache`), since IPL.
    fn paging_cache_counts(&self) -> (u64, u64) {
        let c = self.m.io.volume_cache.as_ref();
        c.map_or((0, 0), |c| (c.reads, c.read_hits))
    }

    pub(super) fn start_measuring(&mut self) {
        for (gi, g) in self.m.guests.iter_mut().enumerate() {
            g.cmma_reclaimed_mark = self.m.storage.cmma_counts(SpaceId(gi as u32)).reclaimed;
            // Priming's counts stay in the counts since IPL.
            g.ipl.add(&g.stats);
            g.stats = GuestCounters::default();
            g.total = GuestCounters::default();
            g.resp = Default::default();
            g.resp_max_ms = 0.0;
            g.vm_mark = VmMark::of(&g.mem);
        }
        self.m.sys = SysCounters::default();
        let now = self.m.now;
        self.m.disp.waiting.close(now);
        self.mon.start = now;
        self.mark_dasd();
        self.mon.no = 0;
        self.mon.rows.clear();
        self.mon.sys_rows.clear();
        self.mon.vol_rows.clear();
        self.m.q.push(
            now + self.interval_ns,
            Event::Monitor(MonitorEvent::IntervalEnd),
        );
        self.mon.mv = self.m.storage.moved;
        self.mon.volumes = self.paging_volume_stats();
        self.mon.dasd_all = self.all_dasd_stats();
        self.mon.flow = self.m.io.flow.submitted;
        self.mon.mdc = self.m.mdc.stats;
        self.mon.paging_cache = self.paging_cache_counts();
    }

    pub(super) fn close_interval(&mut self) {
        let now = self.m.now;
        let span = (now - self.mon.start).max(1);
        let secs = span as f64 / NS_PER_S as f64;
        let pct = |ns: u64| 100.0 * ns as f64 / span as f64;
        let per_s = |n: u64| n as f64 / secs;
        let t0 = self.mon.start as f64 / NS_PER_S as f64;
        let t1 = now as f64 / NS_PER_S as f64;
        let mut tx_total = 0u64;
        for gi in 0..self.m.guests.len() {
            let loc = self.m.storage.space_locations(SpaceId(gi as u32));
            let stable = self.cmma_stable(gi);
            let server = self.web_server(gi);
            let g = &mut self.m.guests[gi];
            let mut s = std::mem::take(&mut g.stats);
            let cmma = self.m.storage.cmma_counts(SpaceId(gi as u32));
            let vm = VmMark::of(&g.mem);
            vm.since(&g.vm_mark, &mut s);
            g.vm_mark = vm;
            tx_total += s.tx;
            let resp = g.resp.take();
            g.resp_max_ms = g.resp_max_ms.max(resp.max);
            self.mon.rows.push(GuestRow {
                interval: self.mon.no,
                t_start_s: t0,
                t_end_s: t1,
                guest: g.name.clone(),
                tx: s.tx,
                throughput_tx_per_s: s.tx as f64 / secs,
                response_ms: ratio(s.resp_ns as f64, s.tx as f64) / 1e6,
                response_max_ms: resp.max,
                cpu_pct: pct(s.cpu_ns),
                cp_pct: pct(s.cp_ns),
                resident_pages: loc.resident,
                pages_resident_below_2g: loc.below_2g,
                pages_resident_above_2g: loc.resident - loc.below_2g,
                pages_xstor: loc.xstor,
                pages_dasd: loc.dasd,
                linux_free_pages: g.mem.free_pages() as u64,
                linux_cached_pages: g.mem.cached,
                linux_anon_pages: g.mem.anon(),
                linux_swap_used_pages: g.mem.swap_used(),
                db_reads_per_s: per_s(s.db_reads),
                db_writes_per_s: per_s(s.db_writes),
                page_faults_dasd_per_s: per_s(s.page_faults_dasd),
                page_faults_xstor_per_s: per_s(s.page_faults_xstor),
                pgscan_kswapd_per_s: per_s(s.pgscan_kswapd),
                pgscan_direct_per_s: per_s(s.pgscan_direct),
                pgmajfault_per_s: per_s(s.pgmajfault),
                pswpin_per_s: per_s(s.pswpin),
                pswpout_per_s: per_s(s.pswpout),
                double_paging_per_s: per_s(s.double_paging),
                cmma_unused_pages: cmma.unused,
                cmma_volatile_pages: cmma.volatile,
                cmma_stable_pages: stable,
                cmma_reclaimed_per_s: per_s(cmma.reclaimed - g.cmma_reclaimed_mark),
                discard_faults_per_s: per_s(s.discard_faults),
                essa_per_s: per_s(s.essa),
                cmm_pages: g.mem.cmm.static_pages(),
                cmm_timed_pages: g.mem.cmm.timed_pages(),
                cmm_pages_target: g.mem.cmm.pages_target,
                cmm_diag10_pages_per_s: per_s(s.cmm_diag10_pages),
                vmrm_notifications: s.vmrm_notifications,
                io_wait_pct: server.then(|| pct(s.wait_db_ns + s.wait_fault_ns)),
            });
            g.cmma_reclaimed_mark = cmma.reclaimed;
            g.total.add(&s);
            g.ipl.add(&s);
        }
        for gi in 0..self.m.guests.len() {
            let load = self.load_now(gi);
            let g = &mut self.m.guests[gi];
            (g.loadavg, g.loadavg_at) = (load, now);
        }
        let dispatch_list_avg = self.m.disp.waiting.close(now);
        let row = self.system_row(now, tx_total, dispatch_list_avg);
        self.m.sys = SysCounters::default();
        self.mon.sys_rows.push(row);
        // The volumes' counts now: this interval's rows, and the next interval's start.
        let volumes = self.paging_volume_stats();
        let vol_rows = self.build_paging_volume_rows(now, &volumes);
        self.mon.vol_rows.extend(vol_rows);
        self.mon.mv = self.m.storage.moved;
        self.mon.volumes = volumes;
        self.mon.dasd_all = self.all_dasd_stats();
        self.mon.flow = self.m.io.flow.submitted;
        self.mon.mdc = self.m.mdc.stats;
        self.mon.paging_cache = self.paging_cache_counts();
        self.mon.no += 1;
        self.mon.start = now;
        self.mark_dasd();
        if now + self.interval_ns <= self.end {
            self.m.q.push(
                now + self.interval_ns,
                Event::Monitor(MonitorEvent::IntervalEnd),
            );
        }
    }

    /// The system row of the current interval up to `now` (read-only: `close_interval` and
    /// INDICATE LOAD build it the same way).
    pub(super) fn system_row(&self, now: u64, tx_total: u64, dispatch_list_avg: f64) -> SystemRow {
        let span = (now - self.mon.start).max(1);
        let secs = span as f64 / NS_PER_S as f64;
        let ifls = self.scenario.lpar.ifls as f64;
        let pct = |ns: u64| 100.0 * ns as f64 / span as f64;
        let sys = &self.m.sys;
        let mv = self.m.storage.moved;
        let mk = self.mon.mv;
        let rate = |a: u64, b: u64| (a - b) as f64 / secs;
        let st = &self.m.storage;
        let frames = st.frames() as f64;
        let pstats = self.paging_stats();
        let pm = sum_stats(&self.mon.volumes);
        let ios = (pstats.ios - pm.ios).max(1) as f64;
        let age = st.agelist();
        let age_rate = |a: u64, b: u64| age.map(|_| rate(a, b));
        let mut row = SystemRow {
            interval: self.mon.no,
            t_start_s: self.mon.start as f64 / NS_PER_S as f64,
            t_end_s: now as f64 / NS_PER_S as f64,
            throughput_tx_per_s: tx_total as f64 / secs,
            cpu_lpar_pct: pct(sys.guest_ns + sys.cp_ns),
            cpu_guests_pct: pct(sys.guest_ns),
            cpu_cp_pct: pct(sys.cp_ns),
            cpu_cp_system_pct: pct(sys.cp_system_ns),
            ifl_utilization_pct: pct(sys.guest_ns + sys.cp_ns) / ifls,
            dispatch_list_avg,
            pages_resident: st.resident(),
            pages_resident_below_2g: st.resident_below_2g(),
            pages_resident_above_2g: st.resident() - st.resident_below_2g(),
            pages_xstor: st.on_xstor(),
            pages_dasd: st.on_dasd(),
            pages_not_in_memory: st.touched() - st.resident(),
            real_overcommit_pct: 100.0 * (st.resident() + st.on_xstor() + st.on_dasd()) as f64
                / frames
                - 100.0,
            available_frames: st.available(),
            available_below_2g: st.available_below_2g(),
            pgmbk_frames: st.pgmbk_frames(),
            ms_to_xs_per_s: rate(mv.ms_to_xs, mk.ms_to_xs),
            xs_to_ms_per_s: rate(mv.xs_to_ms, mk.xs_to_ms),
            xs_to_dasd_per_s: rate(mv.xs_to_dasd, mk.xs_to_dasd),
            ms_to_dasd_per_s: rate(mv.ms_to_dasd, mk.ms_to_dasd),
            dasd_to_ms_per_s: rate(mv.dasd_to_ms, mk.dasd_to_ms),
            steals_per_s: rate(mv.steals, mk.steals),
            companions_stolen_per_s: rate(mv.companions_stolen, mk.companions_stolen),
            cmma_reclaimed_per_s: rate(mv.cmma_reclaimed, mk.cmma_reclaimed),
            frames_deferred_per_s: rate(mv.frames_deferred, mk.frames_deferred),
            frames_scanned_per_s: rate(mv.scanned, mk.scanned),
            demand_scans: mv.scans - mk.scans,
            below_2g_scans_per_s: rate(mv.below2g_scans, mk.below2g_scans),
            pgmbk_allocs_per_s: rate(mv.pgmbk_allocs, mk.pgmbk_allocs),
            pagein_blocks_per_s: rate(mv.pagein_dasd_blocks, mk.pagein_dasd_blocks),
            paging_io_per_s: rate(pstats.ios, pm.ios),
            paging_service_ms: (pstats.busy_ns - pm.busy_ns) as f64 / ios / 1e6,
            paging_wait_ms: (pstats.wait_ns - pm.wait_ns) as f64 / ios / 1e6,
            vmrm_notifications: sys.vmrm_notifications,
            virtual_io_per_s: sys.virtual_io as f64 / secs,
            dasd_io_per_s: rate(self.m.io.flow.submitted, self.mon.flow),
            dasd_avoid_per_s: rate(self.m.mdc.stats.hits, self.mon.mdc.hits),
            mdc_hit_pct: 100.0
                * ratio(
                    (self.m.mdc.stats.hits - self.mon.mdc.hits) as f64,
                    (self.m.mdc.stats.reads - self.mon.mdc.reads) as f64,
                ),
            mdc_frames: self.m.mdc.frames_used(),
            paging_read_hit_pct: self.m.io.volume_cache.as_ref().map(|c| {
                let (r, h) = self.mon.paging_cache;
                100.0 * ratio((c.read_hits - h) as f64, (c.reads - r) as f64)
            }),
            agelist_target_frames: age.map(|a| a.target_frames),
            agelist_frames: age.map(|a| a.frames),
            agelist_invalidated_per_s: age_rate(mv.agelist_invalidated, mk.agelist_invalidated),
            agelist_reclaimed_per_s: age_rate(mv.agelist_reclaimed, mk.agelist_reclaimed),
            agelist_revalidated_per_s: age_rate(mv.agelist_revalidated, mk.agelist_revalidated),
            agelist_early_writes_per_s: age_rate(mv.agelist_early_writes, mk.agelist_early_writes),
            agelist_slots_released_per_s: age_rate(mv.keepslot_released, mk.keepslot_released),
            ..self.text_row(now)
        };
        self.perfkit_names(&mut row);
        row
    }

    /// The run's figures over the measured window.
    pub fn summary_typed(&self) -> Summary {
        let rows = &self.mon.sys_rows;
        let measured_ns: u64 = rows.len() as u64 * self.interval_ns;
        let measured_s = measured_ns as f64 / NS_PER_S as f64;
        let st = &self.m.storage;
        let frames = st.frames() as u64;
        let virt = st.pages() as u64;
        let guests = &self.m.guests;
        let sum =
            |f: fn(&GuestCounters) -> u64| -> u64 { guests.iter().map(|g| f(&g.total)).sum() };
        let tx = sum(|t| t.tx);
        let resp: u128 = guests.iter().map(|g| g.total.resp_ns).sum();
        let per_tx = |f: fn(&GuestCounters) -> u64| ratio(sum(f) as f64, tx as f64) / 1e6;
        let ended = match &self.ended {
            Some(why) => why.clone(),
            None if self.m.now >= self.end => "completed".into(),
            None => "stopped early".into(),
        };
        let per_guest = guests
            .iter()
            .zip(&self.workloads)
            .enumerate()
            .map(|(gi, (g, wl))| {
                let t = &g.total;
                let loc = st.space_locations(SpaceId(gi as u32));
                GuestSummary {
                    name: g.name.clone(),
                    transactions: t.tx,
                    throughput_tx_per_s: ratio(t.tx as f64, measured_s),
                    response_ms: ratio(t.resp_ns as f64, t.tx as f64) / 1e6,
                    response_max_ms: g.resp_max_ms,
                    cpu_pct: 100.0 * t.cpu_ns as f64 / measured_ns.max(1) as f64,
                    cp_pct: 100.0 * t.cp_ns as f64 / measured_ns.max(1) as f64,
                    resident_pages: loc.resident,
                    pages_xstor: loc.xstor,
                    pages_dasd: loc.dasd,
                    db_buffer_hit_ratio: wl.db_hit_ratio(),
                    db_reads: t.db_reads,
                    db_writes: t.db_writes,
                    page_faults_dasd: t.page_faults_dasd,
                    page_faults_vcpu_stopped: t.page_faults_stopped,
                    page_faults_xstor: t.page_faults_xstor,
                    pgscan_direct: t.pgscan_direct,
                    pgscan_kswapd: t.pgscan_kswapd,
                    pgmajfault: t.pgmajfault,
                    pswpin: t.pswpin,
                    pswpout: t.pswpout,
                    swap_used_pages: g.mem.swap_used(),
                    wait_swap_in_ms: ratio(t.wait_swap_ns as f64, t.tx as f64) / 1e6,
                    cmma: g.mem.cmma,
                    discard_faults: t.discard_faults,
                    cmm_pages_mean: {
                        let mine = self.mon.rows.iter().filter(|r| r.guest == g.name);
                        let (n, sum) = mine.fold((0u64, 0u64), |(n, s), r| {
                            (n + 1, s + r.cmm_pages + r.cmm_timed_pages)
                        });
                        ratio(sum as f64, n as f64)
                    },
                    cmm_diag10_pages: t.cmm_diag10_pages,
                    vmrm_notifications: t.vmrm_notifications,
                }
            })
            .collect();
        Summary {
            version: crate::VERSION,
            scenario_hash: self.hash.clone(),
            seed: self.seed,
            rng: RNG_ALGORITHM,
            zvm_level: self.scenario.lpar.zvm_level.as_str(),
            guests_count: guests.len(),
            events: self.events,
            sim_seconds: self.m.now as f64 / NS_PER_S as f64,
            measured_seconds: measured_s,
            intervals: rows.len(),
            ended,
            timed_commands: self
                .console
                .iter()
                .filter_map(|l| {
                    l.elapsed_s.map(|e| crate::monitor::summary::TimedCommand {
                        user: l.user.clone(),
                        command: l.command.clone(),
                        elapsed_s: e,
                    })
                })
                .collect(),
            transactions: tx,
            throughput_tx_per_s: ratio(tx as f64, measured_s),
            means: SystemMeans::of(rows),
            agelist: AgelistMeans::of(rows),
            paging_read_hit_pct: mean_of(rows.iter().map(|r| r.paging_read_hit_pct)),
            frames_central: frames,
            pages_guest_virtual: virt,
            planned_overcommit_pct: 100.0 * virt as f64 / frames as f64 - 100.0,
            xstor_blocks: st.xstor.capacity(),
            paging_slots: st.slots_total(),
            response_ms: ratio(resp as f64, tx as f64) / 1e6,
            wait_db_read_ms_per_tx: per_tx(|t| t.wait_db_ns),
            wait_page_fault_ms_per_tx: per_tx(|t| t.wait_fault_ns),
            wait_swap_in_ms_per_tx: per_tx(|t| t.wait_swap_ns),
            cpu_ms_per_tx: per_tx(|t| t.cpu_ns),
            guest_pgmajfault: sum(|t| t.pgmajfault),
            guest_pswpin: sum(|t| t.pswpin),
            guest_pswpout: sum(|t| t.pswpout),
            guest_double_paging: sum(|t| t.double_paging),
            guest_swap_used_pages: guests.iter().map(|g| g.mem.swap_used()).sum(),
            guest_pgscand: sum(|t| t.pgscan_direct),
            guest_pgscan_kswapd: sum(|t| t.pgscan_kswapd),
            guest_db_writes: sum(|t| t.db_writes),
            cmma_guests: guests.iter().filter(|g| g.mem.cmma).count(),
            guest_discard_faults: sum(|t| t.discard_faults),
            guest_essa: sum(|t| t.essa),
            cmma_unused_pages: (0..guests.len())
                .map(|gi| st.cmma_counts(SpaceId(gi as u32)).unused)
                .sum(),
            cmma_volatile_pages: (0..guests.len())
                .map(|gi| st.cmma_counts(SpaceId(gi as u32)).volatile)
                .sum(),
            cmma_stable_pages: (0..guests.len()).map(|gi| self.cmma_stable(gi)).sum(),
            guests: per_guest,
            dasd: self.dasd_summary(measured_ns),
            web: self.web_summary(measured_ns),
            dcss_pages: self.dcss_pages(),
            dbench: self.dbench_summary(),
            steady_state: {
                let s =
                    crate::monitor::steady::check(rows, self.scenario.run.drift_tolerance, frames);
                let finite = |w: &crate::workload::Workload| {
                    matches!(w, crate::workload::Workload::Iozone(_))
                };
                let idle =
                    |w: &crate::workload::Workload| matches!(w, crate::workload::Workload::None);
                if self.workloads.iter().any(finite)
                    && self.workloads.iter().all(|w| finite(w) || idle(w))
                {
                    s.finite_job()
                } else {
                    s
                }
            },
        }
    }
}
