//! Glue of CP's minidisk cache (cp/mdc.rs) into the running system: the one function every
//! guest read of a minidisk goes through (`Machine::minidisk_read`: the database's buffer-pool
//! misses, the guest DASD driver's channel programs, any other workload reading blocks of a
//! minidisk), the fill when a widened read ends, the arbiter's period and the console's
//! SET/QUERY MDCACHE.

use crate::cp::mdc::Lookup;
use crate::cp::mdccmds::MdcCommand;
use crate::cp::mdcelig::{MdiskSetting, RdevSetting};
use crate::cp::storage::CpWork;
use crate::io::{IoEvent, IoRequest, Origin};
use crate::linux::dasd::DevPath;

use super::machine::Machine;
use super::{Event, Simulation};

impl Machine {
    /// Guest `g` reads `io.pages` blocks from `io.block` of the real volume `io.device` through
    /// a minidisk (a virtual I/O). A minidisk-cache hit completes after CP's copy (CP time
    /// charged to the guest, no real I/O); a miss reads the whole tracks from the volume and
    /// fills the cache when it ends (`mdc_fill`); otherwise the read goes to the volume as
    /// given. The completion goes back by `io.origin`, as a real I/O's does.
    pub(crate) fn minidisk_read(&mut self, g: u32, mut io: IoRequest) {
        self.sys.virtual_io += 1;
        match self.mdc.lookup(io.device, io.block, io.pages) {
            Lookup::Hit => {
                let ns = self.p.mdc_hit.ns() + self.p.mdc_hit_page.ns() * io.pages as u64;
                self.disp.defer_cp(Some(g), ns);
                let slot = self.mdc_hits.put(io.origin);
                self.q.push(self.now + ns, Event::Io(IoEvent::MdcHit(slot)));
                return;
            }
            Lookup::Miss { block, pages } => {
                io.block = block;
                io.pages = pages;
            }
            Lookup::Bypass => {}
        }
        io.queued_at = self.now;
        if let Some((t, id)) = self.io.submit(io, self.now) {
            self.q.push(t, Event::Io(IoEvent::Complete(id)));
        }
    }

    /// A read `r` of a real volume ended: the minidisk cache keeps its tracks (when MDC is on
    /// and the volume eligible). Any guest read counts, whatever its origin (a workload added
    /// later reads through `minidisk_read` with an origin of its own); CP's own paging and
    /// spool I/O never does. CP's frame requests may run demand scan.
    pub(crate) fn mdc_fill(&mut self, r: &IoRequest) {
        let cp_own = matches!(
            r.origin,
            Origin::PageIn { .. } | Origin::PageOut | Origin::Spool { .. }
        );
        if r.write || cp_own {
            return;
        }
        if !self.mdc.on || !self.mdc.eligible(r.device) {
            return;
        }
        let mut cp = CpWork::default();
        self.mdc
            .insert(r.device, r.block, r.pages, &mut self.storage, &mut cp);
        self.disp.defer_cp(None, cp.ns + cp.system_ns);
        self.flush_page_writes();
    }
}

impl Simulation {
    /// A minidisk-cache hit's CP copy ended: complete the read as its I/O would have.
    pub(super) fn mdc_hit_done(&mut self, slot: u32) {
        let origin = self.m.mdc_hits.take(slot);
        self.origin_done(origin, self.m.now);
    }

    /// Start the arbiter's period when some volume is cacheable.
    pub(super) fn start_mdc_arbiter(&mut self) {
        if !self.m.mdc.arbiter_running && self.m.mdc.any_eligible() {
            self.m.mdc.arbiter_running = true;
            let p = self.m.p.mdc_arbiter_period.ns().max(1);
            self.m.q.push(self.m.now + p, Event::MdcArbiter);
        }
    }

    pub(super) fn mdc_arbiter(&mut self) {
        let share = self.m.p.mdc_arbiter_return;
        self.m.mdc.arbiter(&mut self.m.storage, share);
        let p = self.m.p.mdc_arbiter_period.ns().max(1);
        self.m.q.push(self.m.now + p, Event::MdcArbiter);
    }

    /// SET/QUERY MDCACHE: the response (a refused form changes nothing: the parser refused it).
    pub(super) fn mdc_command(
        &mut self,
        user: &str,
        guest: Option<usize>,
        c: MdcCommand,
    ) -> Vec<String> {
        match c {
            MdcCommand::Rdev {
                first,
                last,
                setting,
            } => return self.mdc_rdev(first, last, setting),
            MdcCommand::Mdisk { user: u, vdev, on } => {
                let g = match &u {
                    Some(name) => match self.m.guests.iter().position(|x| &x.name == name) {
                        Some(g) => g,
                        None => return vec![format!("HCP045E {name} not logged on")],
                    },
                    None => match guest {
                        Some(g) => g,
                        None => {
                            return vec![format!(
                                "not simulated by zvmsim: SET MDCACHE MDISK typed by {user}, which is not a simulated guest"
                            )]
                        }
                    },
                };
                return self.mdc_mdisk(g, vdev, on);
            }
            _ => {}
        }
        let st = &mut self.m.storage;
        let mdc = &mut self.m.mdc;
        match c {
            MdcCommand::System { on } => {
                if !on {
                    mdc.flush(None, st);
                }
                mdc.on = on;
                vec![]
            }
            MdcCommand::Storage { min, max } => {
                let central = self.scenario.lpar.central.bytes();
                if max > central {
                    // Inference: CP caps the maximum at real storage (its message for a
                    // larger one is not known to zvmsim).
                    return vec![format!(
                        "not simulated by zvmsim: SET MDCACHE STORAGE with a maximum above real storage ({} MB)",
                        central >> 20
                    )];
                }
                mdc.set_storage(min / 4096, max / 4096, st);
                vec![]
            }
            MdcCommand::Bias(b) => {
                mdc.bias = b;
                vec![]
            }
            MdcCommand::Query => {
                let mb = |frames: u64| format!("{}M", frames * 4096 >> 20);
                let usage = 100.0 * mdc.frames_used() as f64 / mdc.max_frames.max(1) as f64;
                vec![
                    format!(
                        "Minidisk cache {} for system",
                        if mdc.on { "ON" } else { "OFF" }
                    ),
                    format!(
                        "Storage MDC min={} max={}, usage={:.0}%, bias={:.2}",
                        mb(mdc.min_frames),
                        mb(mdc.max_frames),
                        usage,
                        mdc.bias
                    ),
                ]
            }
            MdcCommand::NotSimulated(typed) => vec![format!("not simulated by zvmsim: {typed}")],
            MdcCommand::Rdev { .. } | MdcCommand::Mdisk { .. } => unreachable!("handled above"),
        }
    }

    /// SET MDCACHE RDEV: every device of the range must exist and hold minidisks, or
    /// nothing changes.
    fn mdc_rdev(&mut self, first: u16, last: u16, setting: RdevSetting) -> Vec<String> {
        let mut devs = Vec::new();
        for r in first..=last {
            let Some(d) = self.m.io.by_rdev(r) else {
                return vec![format!("HCP040E Device {r:04X} does not exist")];
            };
            if self.m.mdc.elig.extents(d).is_empty() {
                return vec![format!(
                    "not simulated by zvmsim: SET MDCACHE RDEV {r:04X} (no minidisk on the device; CP's response is not modelled)"
                )];
            }
            devs.push(d);
        }
        for d in devs {
            self.m.mdc.elig.set_rdev(d, setting);
            self.m.mdc.refresh(d);
            self.m.mdc.drop_ineligible(d, &mut self.m.storage);
        }
        self.start_mdc_arbiter();
        vec![]
    }

    /// SET MDCACHE MDISK: guest `g`'s minidisk `vdev` (its extent, whoever else links it).
    fn mdc_mdisk(&mut self, g: usize, vdev: u16, on: bool) -> Vec<String> {
        let d = &self.m.guests[g].dasd;
        let path = d.by_vdev(vdev).map(|i| d.devs[i as usize].path);
        let Some(DevPath::Minidisk {
            base,
            offset,
            blocks,
        }) = path
        else {
            return vec![format!(
                "not simulated by zvmsim: SET MDCACHE MDISK {vdev:04X} of {} (not a minidisk on a real volume; CP's message is not modelled)",
                self.m.guests[g].name
            )];
        };
        let s = if on {
            MdiskSetting::On
        } else {
            MdiskSetting::Off
        };
        self.m.mdc.elig.set_mdisk(base, offset, blocks, s);
        self.m.mdc.refresh(base);
        self.m.mdc.drop_ineligible(base, &mut self.m.storage);
        self.start_mdc_arbiter();
        vec![]
    }
}
