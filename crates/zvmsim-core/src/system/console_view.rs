//! What the console's commands see of the simulated system: CP's view (storage, paging
//! volumes, the users and their queue states, the rates of the interval so far) and a
//! guest's Linux view (its memory, swap, tasks and counters since IPL).

use crate::config::units::NS_PER_S;
use crate::cp::commands::{CpView, UserState, UserView};
use crate::cp::storage::{SpaceId, NONE};
use crate::linux::commands::{LinuxView, VmstatSample};

use super::Simulation;

impl Simulation {
    /// What CP's commands see. INDICATE LOAD's rates are those of the current monitor
    /// interval so far, the same counts the interval's row will show; early in an interval
    /// (less than a tenth of it elapsed) they are the last completed interval's.
    pub(super) fn cp_view(&self) -> CpView<'_> {
        let lpar = &self.scenario.lpar;
        let st = &self.m.storage;
        let elapsed = self.m.now - self.mon.start;
        let so_far;
        let r = match self.mon.sys_rows.last() {
            Some(r) if elapsed < self.interval_ns / 10 => r,
            _ => {
                so_far = self.system_row(self.m.now, 0, self.m.disp.waiting.value());
                &so_far
            }
        };
        let (avg_proc_pct, paging_per_s, xstor_per_s, migrate_per_s) = (
            r.ifl_utilization_pct,
            r.dasd_to_ms_per_s + r.ms_to_dasd_per_s + r.xs_to_dasd_per_s,
            r.ms_to_xs_per_s + r.xs_to_ms_per_s,
            r.xs_to_dasd_per_s,
        );
        CpView {
            level: lpar.zvm_level.as_str(),
            central_bytes: lpar.central.bytes(),
            xstor_bytes: lpar.expanded.bytes(),
            xstor_used_blocks: st.xstor.used(),
            ifls: lpar.ifls,
            guests: self.m.guests.iter().map(|g| g.name.clone()).collect(),
            slots_total: st.slots_total(),
            slots_used: st.on_dasd(),
            avg_proc_pct,
            paging_per_s,
            xstor_per_s,
            migrate_per_s,
            memassist: self
                .m
                .guests
                .iter()
                .map(|g| (g.name.clone(), g.memassist, g.mem.cmma))
                .collect(),
            memassist_all: self.m.memassist_all,
            agelist: st.agelist(),
            now_s: self.m.now as f64 / NS_PER_S as f64,
            pageable_frames: st.pageable_frames(),
            volumes: st.volume_usage(),
            users: (0..self.m.guests.len())
                .map(|g| self.user_view(g))
                .collect(),
            steals_per_s: r.steals_per_s,
            mdc: {
                let (now, was) = (self.m.mdc.stats, self.mon.mdc);
                let secs = (elapsed.max(1) as f64 / NS_PER_S as f64).max(1e-9);
                let reads = now.reads - was.reads;
                (
                    reads as f64 / secs,
                    (now.writes - was.writes) as f64 / secs,
                    100.0
                        * crate::monitor::summary::ratio(
                            (now.hits - was.hits) as f64,
                            reads as f64,
                        ),
                )
            },
        }
    }

    /// Guest `gi` as CP's user commands see it: its virtual CPUs' states, where its pages
    /// are, its counts since logon.
    fn user_view(&self, gi: usize) -> UserView {
        let g = &self.m.guests[gi];
        let loc = self.m.storage.space_locations(SpaceId(gi as u32));
        let waiting = self.m.disp.waiting_vcpus();
        let vcpus = self
            .m
            .disp
            .vcpus
            .iter()
            .enumerate()
            .filter(|(_, v)| v.guest as usize == gi)
            .map(|(k, v)| {
                if v.blocked {
                    UserState::PageWait
                } else if g.idle_vcpus.contains(&(k as u32)) {
                    UserState::Idle
                } else if waiting.contains(&(k as u32)) {
                    UserState::Dispatchable
                } else {
                    UserState::Running
                }
            })
            .collect();
        let task_in_page_wait = self
            .m
            .tasks
            .iter()
            .any(|t| t.guest as usize == gi && t.in_pagein);
        let mut c = g.ipl.clone();
        c.add(&g.stats);
        UserView {
            name: g.name.clone(),
            storage_bytes: g.mem.pages as u64 * crate::config::units::PAGE_SIZE,
            vcpus,
            task_in_page_wait,
            resident: loc.resident,
            working_set: self.m.storage.projected_working_set(gi),
            xstor: loc.xstor,
            dasd: loc.dasd,
            page_reads: c.page_faults_dasd,
            xstor_reads: c.page_faults_xstor,
            cpu_ns: c.cpu_ns,
            cp_ns: c.cp_ns,
            io: c.db_reads + c.db_writes,
        }
    }

    /// The scenario's Linux settings of guest `gi`.
    fn linux_spec(&self, gi: usize) -> &crate::config::scenario::LinuxSpec {
        let spec = self
            .scenario
            .guest_instances()
            .get(gi)
            .map_or(0, |i| i.spec_index);
        &self.scenario.guests[spec].linux
    }

    /// Guest `gi`'s tasks: all, running or ready, and sleeping for a read (D).
    pub(super) fn task_counts(&self, gi: usize) -> (u64, u64, u64) {
        let g = &self.m.guests[gi];
        let on_cpu = self
            .m
            .disp
            .vcpus
            .iter()
            .filter(|v| v.guest as usize == gi && v.task != NONE)
            .count();
        let (mut all, mut d) = (0, 0);
        for t in self.m.tasks.iter().filter(|t| t.guest as usize == gi) {
            all += 1;
            d += u64::from(t.in_io || t.aio_waiting);
        }
        (all, (on_cpu + g.ready.len()) as u64, d)
    }

    /// Bring guest `gi`'s load averages up to now, the running and uninterruptible tasks
    /// having been as many as now since the last update (updated at each interval's end and
    /// each reading: coarser than the kernel's 5-second samples).
    pub(super) fn load_now(&self, gi: usize) -> [f64; 3] {
        let g = &self.m.guests[gi];
        let (_, r, d) = self.task_counts(gi);
        let dt = (self.m.now - g.loadavg_at) as f64 / NS_PER_S as f64;
        crate::linux::commands::decay_load(g.loadavg, dt, (r + d) as f64)
    }

    /// What Linux's commands in guest `gi` see.
    pub(super) fn linux_view(&self, gi: usize) -> LinuxView {
        let g = &self.m.guests[gi];
        let m = &g.mem;
        let (tasks, running, blocked) = self.task_counts(gi);
        let mut c = g.ipl.clone();
        c.add(&g.stats);
        let now_s = self.m.now as f64 / NS_PER_S as f64;
        LinuxView {
            // MemTotal: the kernel's reserved memory is not part of it.
            total: (m.pages - m.kernel) as u64,
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
            swap_devices: super::swapdev::swap_listing(g),
            cmdline: self.linux_spec(gi).parameters.clone(),
            min_free: m.min as u64,
            committed: m.shm as u64,
            active: m.referenced_file_pages() + m.anon(),
            tasks,
            running,
            blocked,
            uptime_s: now_s,
            // The guests IPL with CP, at midnight of zvmsim's calendar (cp/commands/query.rs).
            time_of_day_s: now_s,
            loadavg: self.load_now(gi),
            sample: VmstatSample {
                t_s: now_s,
                pswpin: m.pswpin,
                pswpout: m.pswpout,
                // Database reads and writes move one 4 KB page each.
                pgpgin_kb: 4 * (c.db_reads + m.pswpin),
                pgpgout_kb: 4 * (c.db_writes + m.pswpout),
                cpu_ns: c.cpu_ns,
            },
            vcpus: self
                .m
                .disp
                .vcpus
                .iter()
                .filter(|v| v.guest as usize == gi)
                .count() as u32,
        }
    }
}
