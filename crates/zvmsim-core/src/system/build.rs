//! Assembly: the parts of a Simulation built from its scenario.

use std::collections::VecDeque;

use crate::config::scenario::{DasdUse, Scenario, WarmStart, WorkloadKind};
use crate::cp::dispatcher::Dispatcher;
use crate::cp::pagein::PageIns;
use crate::cp::storage::{Owner, SpaceId, SpaceSpec, Storage, NONE};
use crate::engine::queue::EventQueue;
use crate::engine::rng::Stream;
use crate::io::IoSystem;
use crate::linux::memory::LinuxMemory;
use crate::monitor::counters::{GuestCounters, SysCounters, VmMark};
use crate::monitor::Tally;
use crate::workload::draws::{DrawWorker, GetLaw};
use crate::workload::fio::Fio;
use crate::workload::oltp::{Mix, Oltp};
use crate::workload::Workload;

use super::interval::IntervalState;
use super::machine::{Guest, Machine, Task, TaskKind};
use super::{streams, Event, MonitorEvent, Simulation};

impl Simulation {
    pub fn new(sc: Scenario) -> Self {
        let p = sc.model.clone();
        let seed = sc.run.seed;
        let hash = sc.hash();
        let instances = sc.guest_instances();
        let mut io = IoSystem::new(&p, Stream::new(seed, streams::DASD));
        // Paging volumes, and their slots (explicit total spread by capacity).
        let volume_slots: Vec<u64> = sc.paging_volumes().iter().map(|v| v.slots).collect();
        // Paging volumes on [io] devices (`[io] paging`) are those bases, CP-owned; otherwise
        // fixed-service volumes of their own.
        let on_io = sc.io.as_ref().is_some_and(|io| !io.paging.is_empty());
        let mut paging_dev: Vec<u32> = if on_io {
            Vec::new()
        } else {
            volume_slots
                .iter()
                .map(|&slots| match sc.paging.cache {
                    Some(c) => io.add_cached_device(c.bytes(), slots),
                    None => io.add_device(sc.paging.cache_hit),
                })
                .collect()
        };
        if let Some(spec) = &sc.io {
            // Checked with the scenario (config::validate); a failure leaves no [io] devices.
            let _ = io.configure(
                spec,
                Stream::new(seed, streams::RANKS),
                Stream::new(seed, streams::CHANNELS),
            );
            for r in &spec.paging {
                let s = crate::config::io::parse_rdev(r).and_then(|r| io.by_rdev(r));
                // Validated: every name is a base of [io].
                let s = s.expect("[io] paging device");
                io.set_owner(s, crate::io::SubOwner::System);
                paging_dev.push(s);
            }
        }
        // Spool volumes (saved segments' system data files): CP-owned, outside [io].
        let spool_devs: Vec<u32> = sc
            .spool
            .iter()
            .flat_map(|sp| {
                sp.volumes
                    .iter()
                    .flat_map(|v| std::iter::repeat(sp.cache_hit).take(v.count as usize))
            })
            .collect::<Vec<f64>>()
            .into_iter()
            .map(|h| io.add_device(Some(h)))
            .collect();
        let io_cost = sc.io.as_ref().map(|i| i.cost.clone()).unwrap_or_default();
        let frames = sc.lpar.central.pages() as u32;
        let cp_frames = crate::cp::nucleus::fixed_frames(frames);
        // One address space per guest, in guest order.
        let spaces: Vec<SpaceSpec> = instances
            .iter()
            .enumerate()
            .map(|(g, inst)| SpaceSpec {
                owner: Owner::Guest(g as u32),
                pages: sc.guests[inst.spec_index].storage.pages() as u32,
            })
            .collect();
        let mut storage = Storage::new(
            sc.lpar.zvm_level,
            &p,
            frames,
            cp_frames,
            sc.lpar.expanded.pages() as u32,
            &volume_slots,
            &spaces,
        );
        // z/VM 6.3 and later: the aging list as [lpar.agelist] sets it at IPL.
        if let Some(a) = &sc.lpar.agelist {
            storage.set_agelist(a.settings());
        }
        let groups = storage.slot_groups();
        let mut m = Machine {
            now: 0,
            q: EventQueue::with_capacity(4096),
            disp: Dispatcher::new(sc.lpar.ifls, p.time_slice.ns()).with_threads(sc.lpar.smt),
            p,
            storage,
            io,
            paging_dev,
            pageins: PageIns::new(groups),
            guests: Vec::new(),
            tasks: Vec::new(),
            sys: SysCounters::default(),
            paging_alias: false,
            memassist_all: true,
            io_cost,
            pending_ssch: Vec::with_capacity(64),
            burst_ssch: Vec::new(),
            deferred_ssch: Default::default(),
            deferred_done: Default::default(),
            vdisk: super::vdisk::VdiskSystem::new(&sc.model, sc.lpar.central.pages()),
            burst_at: 0,
            burst_vcpu: 0,
            mq_started: Vec::new(),
            mdc: crate::cp::mdc::Mdc::new(sc.lpar.central.pages()),
            mdc_hits: Default::default(),
            avail_lock_until: 0,
        };
        let mut workloads = Vec::new();
        let stationary = sc.run.warm_start == WarmStart::Stationary;
        let mut warm_ages = Vec::new();
        // Real volumes of shared minidisks: ((entry, dasd, volume), device).
        let mut shared_vols: Vec<((usize, usize, u32), u32)> = Vec::new();
        let (mut warms, mut vols) = (Vec::new(), Vec::new());
        for (gi, inst) in instances.iter().enumerate() {
            let spec = &sc.guests[inst.spec_index];
            let pages = spec.linux.usable_pages(spec.storage.pages()) as u32;
            // mem= above the guest's storage costs the kernel its memory map (saved segments),
            // unless its release maps only the storage it has (LinuxSpec::kernel_pages).
            let kernel = spec.linux.kernel_pages(pages as u64) as u32;
            let wl = spec
                .workload
                .as_ref()
                .and_then(|w| sc.workloads.get(w).map(|ws| (w, ws)));
            let dbspec = wl.and_then(|(_, ws)| ws.database.as_ref());
            let heap = wl.and_then(|(_, ws)| ws.appserver.as_ref());
            let shm = dbspec
                .map(|d| d.shared_memory.unwrap_or(d.cache).pages() as u32)
                .or(heap.map(|a| a.heap.pages() as u32))
                .unwrap_or(0);
            let apache = wl.and_then(|(_, ws)| ws.apache.as_ref());
            let dbench = wl
                .filter(|(_, ws)| ws.kind == WorkloadKind::Dbench)
                .and_then(|(_, ws)| ws.dbench.as_ref());
            let text = heap.and_then(|a| a.text.as_ref());
            let blocks = dbspec
                .map(|d| d.size.pages() as u32)
                .or(apache.map(|a| a.set_pages() as u32))
                .or(text.map(|t| t.size.pages() as u32))
                .or(dbench.map(|d| d.blocks() as u32))
                .unwrap_or(0);
            let mut doc_vols = Vec::new();
            // Guest pages are numbered from 0 in the guest's own address space.
            let mut mem = LinuxMemory::new(
                0,
                pages,
                kernel,
                shm,
                blocks,
                spec.linux.min_free.pages() as u32,
                spec.linux.swap.pages(),
            );
            mem.used = spec.linux.used_pages(pages as u64) as u32;
            mem.swappiness = spec.linux.swappiness;
            mem.page_cluster = spec.linux.page_cluster;
            mem.filesystem = spec.linux.filesystem.unwrap_or_default();
            // The program text's file pages are mapped into the server (its executable and
            // shared libraries), unlike a database's or Apache's file data.
            if sc.model.mapped_text && apache.is_none() && dbspec.is_none() {
                mem.mapped_below = text.map_or(0, |t| t.size.pages() as u32);
            }
            // The guest's volumes in device order (dasda, dasdb, ...): the database's LVM
            // stripes and the swap partitions are simulated devices.
            let (mut db_vols, mut swap_devs, mut swap_names) = (Vec::new(), Vec::new(), Vec::new());
            let mut letter = 0u32;
            for (j, x) in spec.dasd.iter().enumerate() {
                for n in 0..x.count {
                    match x.usage {
                        // Shared minidisks: the entry's first guest defines the real
                        // volumes, the others LINK the same ones.
                        DasdUse::Database | DasdUse::Files
                            if (dbspec.is_some() || apache.is_some() || text.is_some())
                                && x.shared =>
                        {
                            let key = (inst.spec_index, j, n);
                            let dev = match shared_vols.iter().find(|v| v.0 == key) {
                                Some(v) => v.1,
                                None => {
                                    let d = m.io.add_device(x.cache_hit);
                                    m.mdc.set_eligible(d, x.model.pages(), true);
                                    shared_vols.push((key, d));
                                    d
                                }
                            };
                            if x.usage == DasdUse::Files {
                                doc_vols.push(dev);
                            } else {
                                db_vols.push(dev);
                            }
                        }
                        DasdUse::Files => doc_vols.push(m.io.add_device(x.cache_hit)),
                        DasdUse::Database if dbspec.is_some() => {
                            db_vols.push(m.io.add_device(x.cache_hit))
                        }
                        DasdUse::Swap if spec.linux.swap.pages() > 0 => {
                            swap_devs.push(m.io.add_device(x.cache_hit));
                            swap_names.push(format!(
                                "/dev/{}{}",
                                crate::linux::commands::dasd_name(letter),
                                x.partition.unwrap_or(1)
                            ));
                        }
                        _ => {}
                    }
                    letter += 1;
                }
            }
            mem.swap_areas = swap_devs.len().max(1) as u32;
            mem.areas = crate::linux::swap_areas::SwapAreas::with_static(
                mem.swap_pages as u32,
                mem.swap_areas,
            );
            warms.push(super::warm_guests::GuestWarm {
                mem,
                dbspec,
                apache,
                blocks,
                shm,
                db_vols,
                mounts: doc_vols.len() as u32,
                wrng: Stream::new(seed, streams::warm(gi)),
                spread: sc.model.warm_spread_buffers,
                pool_revolutions: sc.model.warm_pool_revolutions,
                pool_write_share: wl.map_or(0.0, |(_, ws)| Mix::new(ws).write_share()),
                db: None,
                ages: None,
            });
            vols.push((doc_vols, swap_devs, swap_names));
        }
        // Each guest's database and Linux memory, on the machine's cores at once (results
        // as built one after another: system/warm_guests.rs).
        // ZVMSIM_BUILD_THREADS fixes the count (a test builds with 1 and with 3 and compares).
        let threads = std::env::var("ZVMSIM_BUILD_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        // Beside them, the kernel clears the memory of the page words the ordered warm start
        // will write (every guest's pages in use), which that start would otherwise wait for.
        let used: Vec<u32> = warms.iter().map(|w| w.mem.used).collect();
        let storage = &m.storage;
        super::warm_guests::warm_guests(&mut warms, stationary, threads, || {
            if !stationary {
                for (gi, &u) in used.iter().enumerate() {
                    storage.populate_words(SpaceId(gi as u32), u);
                }
            }
        });
        let mut draw_worker = None;
        // The kernel's cio_ignore warnings at boot, per guest, for its dmesg.
        let mut cio_warnings: Vec<Vec<crate::linux::kmsg::Kmsg>> = Vec::new();
        for ((gi, inst), (w, (mut doc_vols, swap_devs, swap_names))) in instances
            .iter()
            .enumerate()
            .zip(warms.into_iter().zip(vols))
        {
            let spec = &sc.guests[inst.spec_index];
            let wl = spec
                .workload
                .as_ref()
                .and_then(|w| sc.workloads.get(w).map(|ws| (w, ws)));
            let apache = wl.and_then(|(_, ws)| ws.apache.as_ref());
            let dbench = wl
                .filter(|(_, ws)| ws.kind == WorkloadKind::Dbench)
                .and_then(|(_, ws)| ws.dbench.as_ref());
            let (mem, db) = (w.mem, w.db);
            warm_ages.extend(w.ages);
            let mut idle: Vec<u32> = (0..spec.vcpus)
                .map(|_| m.disp.add_vcpu(gi as u32))
                .collect();
            idle.reverse();
            let kswapd_task = m.tasks.len() as u32;
            m.tasks.push(Task::new(gi as u32, TaskKind::Kswapd));
            let rng = Stream::new(seed, streams::guest(gi));
            workloads.push(match wl {
                Some((_, ws)) => match (&ws.kind, &ws.fio) {
                    (WorkloadKind::Fio, Some(f)) => {
                        Workload::Fio(Box::new(Fio::new(f, m.io_cost.clone(), rng)))
                    }
                    (WorkloadKind::Fio, None) => Workload::None,
                    (WorkloadKind::Iozone, _) => match &ws.iozone {
                        Some(z) => Workload::Iozone(Box::new(
                            crate::workload::iozone::Iozone::new(z, m.io_cost.clone()),
                        )),
                        None => Workload::None,
                    },
                    (WorkloadKind::Appserver, _) => match &ws.appserver {
                        Some(a) => Workload::Appserver(Box::new(
                            crate::workload::appserver::Appserver::new(
                                ws,
                                a,
                                std::mem::take(&mut doc_vols),
                                spec.linux.kernel.pages() as u32,
                                rng,
                            ),
                        )),
                        None => Workload::None,
                    },
                    (WorkloadKind::Apache, _) => match apache {
                        Some(a) => {
                            Workload::Apache(Box::new(crate::workload::apache::Apache::new(
                                a,
                                std::mem::take(&mut doc_vols),
                                spec.linux.kernel.pages() as u32,
                                rng,
                            )))
                        }
                        None => Workload::None,
                    },
                    (WorkloadKind::Dbench, _) => match dbench {
                        Some(d) => {
                            Workload::Dbench(Box::new(crate::workload::dbench::Dbench::new(
                                d,
                                sc.model.linux_page_copy.ns(),
                                sc.run.priming.ns(),
                                rng,
                            )))
                        }
                        None => Workload::None,
                    },
                    (WorkloadKind::Transactional, _) => {
                        let draws = db.as_ref().map(|d| {
                            draw_worker.get_or_insert_with(DrawWorker::new).feed(
                                GetLaw::of(d, mem.kernel),
                                seed,
                                streams::gets(gi),
                            )
                        });
                        Workload::Transactional(Box::new(Oltp::new(ws, db, rng, draws)))
                    }
                },
                None => Workload::None,
            });
            let cio_boot = crate::linux::cio::at_boot(
                &crate::linux::cmdline::params(&spec.linux.parameters),
                spec.linux.userland().dracut(),
            );
            cio_warnings.push(cio_boot.1);
            m.guests.push(Guest {
                name: inst.name.clone(),
                space: m.storage.space(SpaceId(gi as u32)),
                mem,
                ready: VecDeque::new(),
                idle_vcpus: idle,
                pfault: spec.linux.pfault,
                kswapd_task,
                cmm_task: NONE,
                kblockd_task: NONE,
                linux_backlog: 0,
                swap_names,
                swap_devs,
                swap_x: Vec::new(),
                swap_x_names: Vec::new(),
                swap_sigs: Vec::new(),
                vm_mark: VmMark::default(),
                stats: GuestCounters::default(),
                total: GuestCounters::default(),
                ipl: GuestCounters::default(),
                loadavg: [0.0; 3],
                loadavg_at: 0,
                resp: Tally::default(),
                resp_max_ms: 0.0,
                memassist: crate::cp::commands::memassist_initial(
                    sc.lpar.zvm_level,
                    &spec.directory,
                ),
                cmma_requested: spec.linux.cmma(),
                cmma_reclaimed_mark: 0,
                dasd: {
                    let mut d = crate::linux::dasd::DasdDriver::with_cache(spec.linux.dasd_cache)
                        .request_limit(spec.linux.request_limit())
                        .with_block_tasklet(spec.linux.dasd_block_tasklet());
                    // Transport-mode requests where the channels run High Performance FICON.
                    d.debugfs.tpm = sc.io.as_ref().is_some_and(|io| io.channels.zhpf);
                    d
                },
                cio: crate::linux::cio::Cio {
                    blacklist: cio_boot.0,
                    ..Default::default()
                },
                userland: spec.linux.userland(),
                lvm: Default::default(),
                dcss_mount: None,
                db_files: None,
                text_files: None,
                klocks: Default::default(),
            });
        }
        // Linux directly in an LPAR with FCP LUNs (seed 004): zfcp sets every LUN online in
        // the LPAR's Linux (the first guest); each LUN is a SCSI disk sda, sdb, ... whose
        // further command slots have no name.
        if sc.io.as_ref().is_some_and(|i| i.fcp.is_some()) && !m.guests.is_empty() {
            let mut n = 0u8;
            for (sub, first, blocks) in m.io.fcp_slots() {
                let rdev = m.io.sub(sub).rdev;
                m.io.set_owner(sub, crate::io::SubOwner::Guest(0));
                let name = first.then(|| {
                    n += 1;
                    format!("sd{}", (b'a' + (n - 1) % 26) as char)
                });
                m.guests[0].dasd.add(
                    rdev,
                    name,
                    crate::linux::dasd::DevPath::Dedicated { sub },
                    None,
                    false,
                    blocks,
                    0,
                );
            }
        }
        let mut sim = Simulation {
            hash,
            seed,
            end: sc.end_ns(),
            prime_end: sc.run.priming.ns(),
            interval_ns: sc.run.interval.ns(),
            events: 0,
            m,
            workloads,
            mon: IntervalState::default(),
            console: Vec::new(),
            reports: Vec::new(),
            ended: None,
            vmrm: sc
                .vmrm
                .as_ref()
                .map(|v| crate::cp::vmrm::Vmrm::new(v, instances.len())),
            privileges: super::privilege::Privileges::new(&sc),
            dcss: super::dcss::DcssSystem::new(
                sc.spool.as_ref().map_or(0, |s| s.pages()),
                spool_devs,
                instances
                    .iter()
                    .enumerate()
                    .map(|(gi, i)| {
                        let key = Stream::new(seed, streams::kmsg(gi));
                        super::dcss_linux::GuestDcss::new(&sc.guests[i.spec_index], key)
                    })
                    .collect(),
            ),
            scenario: sc,
        };
        // CP commands typed at time 0 configure the system before the guests IPL (SET
        // MEMASSIST must be on when Linux tests for ESSA at boot): SET and ATTACH ... SYSTEM
        // before the guests log on (SYSTEM CONFIG's work), ATTACH to a guest and DEFINE once
        // it has logged on with its directory's devices; the rest of the script runs as events.
        let setup: Vec<Setup> = sim.scenario.console.iter().map(setup_stage).collect();
        for (i, s) in setup.iter().enumerate() {
            if *s == Setup::BeforeLogon {
                sim.run_console(i);
            }
        }
        for (g, w) in cio_warnings.into_iter().enumerate() {
            for m in w {
                sim.dcss.guests[g].log(m);
            }
        }
        for g in 0..sim.m.guests.len() {
            let spec = sim.scenario.guest_instances()[g].spec_index;
            let dir = sim.scenario.guests[spec].directory.clone();
            sim.logon_devices(g, &dir);
        }
        for (i, s) in setup.iter().enumerate() {
            if *s == Setup::AfterLogon {
                sim.run_console(i);
            }
        }
        sim.ipl_guests();
        sim.start_mdc_arbiter();
        sim.warm_start(warm_ages);
        sim.start_users();
        for (i, s) in setup.iter().enumerate() {
            if *s == Setup::Event {
                let at = sim.scenario.console[i].at.ns();
                sim.m.q.push(at, Event::Console { index: i as u32 });
            }
        }
        sim.m
            .q
            .push(sim.prime_end, Event::Monitor(MonitorEvent::PrimingEnd));
        sim
    }

    /// Each guest's users, spread as the workload says; each starts after a think time.
    fn start_users(&mut self) {
        let instances = self.scenario.guest_instances();
        let wl_of: Vec<Option<String>> = instances
            .iter()
            .map(|i| self.scenario.guests[i.spec_index].workload.clone())
            .collect();
        for gi in 0..self.m.guests.len() {
            let Some(wname) = &wl_of[gi] else { continue };
            let w = &self.scenario.workloads[wname];
            let procs = match &self.workloads[gi] {
                Workload::Fio(f) => Some(f.processes()),
                Workload::Iozone(z) => Some(z.processes()),
                Workload::Dbench(d) => Some(d.processes()),
                _ => None,
            };
            if let Some(n) = procs {
                for _ in 0..n {
                    let t = self.m.tasks.len() as u32;
                    self.m.tasks.push(Task::new(gi as u32, TaskKind::User(0)));
                    let u = self.workloads[gi].add_user(t, &mut self.m);
                    self.m.tasks[t as usize].kind = TaskKind::User(u);
                }
                continue;
            }
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
                let t = self.m.tasks.len() as u32;
                self.m.tasks.push(Task::new(gi as u32, TaskKind::User(0)));
                let u = self.workloads[gi].add_user(t, &mut self.m);
                self.m.tasks[t as usize].kind = TaskKind::User(u);
            }
            if let Workload::Transactional(o) = &mut self.workloads[gi] {
                if o.has_cleaner() {
                    let t = self.m.tasks.len() as u32;
                    let u = o.add_cleaner(t, &mut self.m);
                    self.m.tasks.push(Task::new(gi as u32, TaskKind::User(u)));
                }
            }
        }
        crate::workload::apache::connect(&mut self.workloads, &wl_of, &mut self.m);
    }
}

/// A console entry that sets CP up before the guests IPL: a CP `SET` command at time 0.
/// When a console entry runs: CP commands typed at time 0 that configure the system are run
/// while the scenario is built, the rest as events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setup {
    BeforeLogon,
    AfterLogon,
    Event,
}

fn setup_stage(e: &crate::config::scenario::ConsoleEntry) -> Setup {
    const VERBS: [&str; 9] = [
        "SET", "ATTACH", "ATT", "ATTA", "ATTAC", "DEFINE", "DEF", "DEFI", "DEFIN",
    ];
    let Some(c) = e.cp.as_deref().filter(|_| e.at.ns() == 0) else {
        return Setup::Event;
    };
    // The seed types it as `CP SET MEMASSIST ON ALL`: a leading CP is skipped, as CP does.
    let mut words = c.split_whitespace().peekable();
    words.next_if(|w| w.eq_ignore_ascii_case("CP"));
    let Some(verb) = words
        .next()
        .filter(|w| VERBS.iter().any(|v| w.eq_ignore_ascii_case(v)))
    else {
        return Setup::Event;
    };
    let to_system = words.any(|w| w.eq_ignore_ascii_case("SYSTEM"));
    if verb.eq_ignore_ascii_case("SET")
        || (verb.to_ascii_uppercase().starts_with("ATT") && to_system)
    {
        Setup::BeforeLogon
    } else {
        // ATTACH to a guest needs it logged on (its directory's devices come first), as
        // does DEFINE for it.
        Setup::AfterLogon
    }
}
