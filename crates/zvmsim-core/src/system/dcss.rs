//! Saved segments in the running system: CP's DEFSEG, SAVESEG, PURGE NSS, QUERY NSS and SET
//! PRIVCLASS typed on a console, CP's spool transfers (events, their channel programs on the
//! spool volumes), and the console's waiting: a command that takes time (SAVESEG, a Linux add
//! or save, filling a device) holds its user's console until it ends, and what that user
//! types meanwhile runs afterwards, in order.

use std::collections::{HashMap, VecDeque};

use crate::cp::segments::{self, query, SegCommand, Segments};
use crate::cp::spool::{Purpose, Spool, Step, Transfer};
use crate::io::{IoEvent, IoRequest, Origin};

use super::dcss_linux::GuestDcss;
use super::{Event, Simulation};

/// A command holding its user's console.
pub(super) struct Running {
    pub user: String,
    pub command: String,
    pub started: u64,
    /// Typed after `time`: bash prints real, user and sys when it ends.
    pub timed: bool,
    /// Guest CPU of the command (the `user` and `sys` lines), ns.
    pub guest_ns: u64,
    /// Lines printed when it ends, before the `time` lines.
    pub lines: Vec<String>,
    /// A dd: its records and bytes, printed with its time and rate when it ends.
    pub dd: Option<crate::linux::ddout::DdEnd>,
}

#[derive(Default)]
pub(super) struct Console {
    pub running: Option<Running>,
    /// Its DEFSEG or SAVESEG waits for CP to end another user's (`nss_waiting`).
    pub delayed: bool,
    pub queue: VecDeque<usize>,
}

/// A DEFSEG or SAVESEG CP delays until the one it processes ends.
pub(super) enum NssWait {
    /// Console entry `i`, typed by its user.
    Console(usize),
    /// Guest `guest`'s dcssblk save of device `device` (its DEFSEG and SAVESEG).
    LinuxSave { guest: usize, device: usize },
}

pub(super) struct DcssSystem {
    pub segments: Segments,
    pub spool: Spool,
    /// Console entries an exec typed (`type_cp`): entry `scenario.console.len() + k` is
    /// `typed[k]`.
    pub typed: Vec<crate::config::scenario::ConsoleEntry>,
    /// Storage of the CMS users that typed DEFINE STORAGE, in bytes.
    pub storage: HashMap<String, u64>,
    pub consoles: HashMap<String, Console>,
    /// DEFSEGs and SAVESEGs waiting, in the order they came, and whether the first of them
    /// is being run now (it does not wait behind the others).
    pub nss_waiting: VecDeque<NssWait>,
    pub nss_resuming: bool,
    /// Each guest's dcssblk driver and file systems on its devices.
    pub guests: Vec<GuestDcss>,
    /// Segment files (ids) saved from a device holding an ext2, and the device pages the
    /// file system had written: the saved pages carry it to whoever loads the segments.
    pub saved_fs: Vec<(u32, u64)>,
}

impl DcssSystem {
    pub(super) fn new(spool_pages: u64, spool_devs: Vec<u32>, guests: Vec<GuestDcss>) -> Self {
        DcssSystem {
            segments: Segments::new(spool_pages),
            spool: Spool::new(spool_devs),
            storage: HashMap::new(),
            typed: Vec::new(),
            consoles: HashMap::new(),
            nss_waiting: VecDeque::new(),
            nss_resuming: false,
            guests,
            saved_fs: Vec::new(),
        }
    }

    pub(super) fn busy(&self, user: &str) -> bool {
        self.consoles
            .get(user)
            .is_some_and(|c| c.running.is_some() || c.delayed)
    }

    /// A DEFSEG or SAVESEG coming now has to wait: one is under way, or others wait already.
    pub(super) fn nss_busy(&self) -> bool {
        self.spool.saving() || (!self.nss_waiting.is_empty() && !self.nss_resuming)
    }
}

impl Simulation {
    /// A console entry of a user whose previous command still runs waits for it.
    pub(super) fn console_waits(&mut self, user: &str, i: usize) -> bool {
        if !self.dcss.busy(user) {
            return false;
        }
        self.dcss
            .consoles
            .entry(user.to_string())
            .or_default()
            .queue
            .push_back(i);
        true
    }

    /// Console entry `i`: the scenario's, then those execs typed.
    pub(super) fn console_entry(&self, i: usize) -> &crate::config::scenario::ConsoleEntry {
        let n = self.scenario.console.len();
        self.scenario
            .console
            .get(i)
            .unwrap_or_else(|| &self.dcss.typed[i - n])
    }

    /// `user`'s console is held by `r` until its transfer ends.
    pub(super) fn hold_console(&mut self, r: Running) {
        let key = r.user.clone();
        self.dcss.consoles.entry(key).or_default().running = Some(r);
    }

    /// An exec typed by `user` types the CP commands `cps`: each runs on the user's console
    /// before anything typed after the exec, in order, and one that holds the console (a
    /// SAVESEG) holds the next.
    pub(super) fn type_cp(&mut self, user: &str, cps: Vec<String>) {
        let at = crate::config::units::Duration(self.m.now);
        let first = self.scenario.console.len() + self.dcss.typed.len();
        for cp in cps {
            self.dcss.typed.push(crate::config::scenario::ConsoleEntry {
                at,
                user: user.to_string(),
                cp: Some(cp),
                linux: None,
                cms: None,
            });
        }
        let end = self.scenario.console.len() + self.dcss.typed.len();
        let queue = &mut self
            .dcss
            .consoles
            .entry(user.to_string())
            .or_default()
            .queue;
        for i in (first..end).rev() {
            queue.push_front(i);
        }
        self.drain_console(user);
    }

    /// The command holding `user`'s console ended: its lines, then what waited.
    fn release_console(&mut self, user: &str, extra: Vec<String>) {
        let Some(r) = self
            .dcss
            .consoles
            .get_mut(user)
            .and_then(|c| c.running.take())
        else {
            return;
        };
        let mut lines = r.lines;
        lines.extend(extra);
        if let Some(d) = r.dd {
            lines.extend(crate::linux::ddout::stats(
                d.rin,
                d.rout,
                d.bytes,
                self.m.now - r.started,
            ));
        }
        if r.timed {
            lines.extend(super::dcss_linux::time_lines(
                self.m.now - r.started,
                r.guest_ns,
            ));
        }
        self.console_line(&r.user, &r.command, lines);
        if let Some(l) = self.console.last_mut() {
            l.t_s = r.started as f64 / crate::config::units::NS_PER_S as f64;
            l.elapsed_s =
                Some((self.m.now - r.started) as f64 / crate::config::units::NS_PER_S as f64);
        }
        self.drain_console(user);
    }

    /// What `user` typed while its console was held runs now, until a command holds it again.
    fn drain_console(&mut self, user: &str) {
        while !self.dcss.busy(user) {
            let Some(i) = self
                .dcss
                .consoles
                .get_mut(user)
                .and_then(|c| c.queue.pop_front())
            else {
                break;
            };
            self.run_console(i);
        }
    }

    /// A saved-segment CP command typed by `user`: None if `cmd` is not one.
    /// `i`: the console entry, which waits when CP is processing another DEFSEG or SAVESEG.
    pub(super) fn segment_command(
        &mut self,
        user: &str,
        cmd: &str,
        i: usize,
    ) -> Option<Vec<String>> {
        // DEFINE STORAGE: the storage a CMS user needs to save a segment.
        if let Some(r) = crate::cp::defstor::parse(cmd) {
            return Some(self.define_storage(user, r));
        }
        let level = self.scenario.lpar.zvm_level.as_str();
        let c = match segments::parse(cmd, level)? {
            Ok(c) => c,
            Err(m) => return Some(vec![m]),
        };
        if matches!(c, SegCommand::Defseg { .. } | SegCommand::Saveseg { .. })
            && self.dcss.nss_busy()
        {
            self.dcss
                .consoles
                .entry(user.to_string())
                .or_default()
                .delayed = true;
            self.dcss.nss_waiting.push_back(NssWait::Console(i));
            return Some(vec![]);
        }
        Some(self.run_segment_command(user, cmd, c))
    }

    /// `DEFINE STORAGE` typed by `user`. A CMS user's storage is kept for its SAVESEGs; a
    /// guest's would reset the guest, which runs Linux for the whole run.
    fn define_storage(&mut self, user: &str, r: Result<u64, String>) -> Vec<String> {
        let b = match r {
            Ok(b) => b,
            Err(m) => return vec![m],
        };
        if self.m.guests.iter().any(|g| g.name == user) {
            return vec![format!("not simulated by zvmsim: DEFINE STORAGE in guest {user} (the system reset would stop its Linux; give the guest's storage in the scenario)")];
        }
        self.dcss.storage.insert(user.to_string(), b);
        crate::cp::defstor::response(b)
    }

    /// A SAVESEG ended: the DEFSEGs and SAVESEGs CP delayed run, in order, until one of them
    /// is a SAVESEG again.
    fn resume_nss(&mut self) {
        while !self.dcss.spool.saving() {
            let Some(w) = self.dcss.nss_waiting.pop_front() else {
                break;
            };
            match w {
                NssWait::Console(i) => {
                    let user = self.console_entry(i).user.to_ascii_uppercase();
                    if let Some(c) = self.dcss.consoles.get_mut(&user) {
                        c.delayed = false;
                    }
                    self.dcss.nss_resuming = true;
                    self.run_console(i);
                    self.dcss.nss_resuming = false;
                    self.drain_console(&user);
                }
                NssWait::LinuxSave { guest, device } => {
                    let name = self.m.guests[guest].name.clone();
                    if let super::dcss_linux::Out::Now(lines) = self.dcss_save_now(guest, device) {
                        self.release_console(&name, lines);
                    }
                }
            }
        }
    }

    fn run_segment_command(&mut self, user: &str, cmd: &str, c: SegCommand) -> Vec<String> {
        let seg = &mut self.dcss.segments;
        match c {
            SegCommand::Defseg {
                name,
                ranges,
                loadnshr,
                rstd,
                space,
            } => {
                let r = seg.define(&name, ranges, loadnshr, rstd, space);
                if r.is_ok() {
                    seg.stamp(&name, user, self.m.now as f64 / 1e9);
                }
                vec![r.unwrap_or_else(|e| e)]
            }
            SegCommand::Saveseg { name } => {
                let Some(i) = seg.skeleton(&name) else {
                    return vec![format!("HCPNSS002E Invalid operand - {name}")];
                };
                // Seed 000: the user "must have storage that maps the highest address
                // specified in the DEFSEG command". Known only once it typed DEFINE STORAGE.
                let top = seg.files[i].ranges.iter().map(|r| r.end as u64 + 1).max();
                if let (Some(&b), Some(top)) = (self.dcss.storage.get(user), top) {
                    if top * 4096 > b {
                        return vec![format!(
                            "not simulated by zvmsim: SAVESEG {name}: its pages end at {}, beyond {user}'s storage ({}); CP's message for it is not modelled",
                            crate::cp::defstor::show(top * 4096),
                            crate::cp::defstor::show(b)
                        )];
                    }
                }
                let pages = match seg.room_for(i) {
                    Ok(p) => p,
                    Err(m) => return vec![m],
                };
                if self.dcss.spool.devs.is_empty() {
                    return vec![format!(
                        "not simulated by zvmsim: {} (the scenario has no [spool] volumes)",
                        cmd.trim()
                    )];
                }
                let file = seg.files[i].id;
                let purpose = Purpose::Saveseg {
                    file,
                    user: user.to_string(),
                };
                self.start_transfer(purpose, true, pages, Vec::new());
                self.hold_console(Running {
                    user: user.to_string(),
                    command: cmd.to_string(),
                    started: self.m.now,
                    timed: false,
                    guest_ns: 0,
                    lines: Vec::new(),
                    dd: None,
                });
                vec![]
            }
            SegCommand::PurgeNss { name, id } => {
                let found = match (&name, id) {
                    (Some(n), _) => seg.active(n).or_else(|| seg.skeleton(n)),
                    (None, Some(id)) => seg.by_id(id),
                    _ => None,
                };
                let Some(i) = found else {
                    let what = name.unwrap_or_else(|| format!("{:04}", id.unwrap_or(0)));
                    return vec![format!("HCP003E Invalid option - {what}")];
                };
                if let Some(s) = seg.purge(i) {
                    self.m.storage.discard_space(s);
                }
                vec![]
            }
            SegCommand::QueryNss { name, map: true } => query::map(seg, name.as_deref()),
            SegCommand::QueryNss { name, map: false } => {
                let level = self.scenario.lpar.zvm_level.as_str();
                query::list(&self.dcss.segments, name.as_deref(), level)
            }
            SegCommand::SetPrivclass {
                user: u,
                op,
                classes,
            } => self.set_privclass(u, op, classes),
        }
    }

    /// Begin a spool transfer: each volume's chain starts after CP's work for its first page.
    pub(super) fn start_transfer(
        &mut self,
        purpose: Purpose,
        write: bool,
        pages: u64,
        load: Vec<(crate::cp::storage::Space, u32, u32)>,
    ) {
        let (op, vols) = self
            .dcss
            .spool
            .begin(purpose, write, pages, load, self.m.now);
        let cp = self.spool_cp_ns(write);
        for v in vols {
            self.m.sys.cp_system_ns += cp;
            self.m
                .q
                .push(self.m.now + cp, Event::SpoolStart { op, vol: v });
        }
    }

    fn spool_cp_ns(&self, write: bool) -> u64 {
        if write {
            self.m.p.cp_spool_write_page.ns()
        } else {
            self.m.p.cp_spool_read_page.ns()
        }
    }

    /// A command that ends `ns` from now (no spool I/O).
    pub(super) fn start_timer(&mut self, purpose: Purpose, ns: u64) {
        let op = self.dcss.spool.timer(purpose, self.m.now);
        self.m.q.push(self.m.now + ns, Event::SpoolTimer { op });
    }

    pub(super) fn spool_start(&mut self, op: u16, vol: u16) {
        let Some(t) = self.dcss.spool.transfer(op) else {
            return;
        };
        let r = IoRequest {
            origin: Origin::Spool { op, vol },
            device: self.dcss.spool.devs[vol as usize],
            pages: 1,
            write: t.write,
            queued_at: self.m.now,
            block: 0,
            aliases: false,
            sub: 0,
            reach: 0,
        };
        if let Some((done, id)) = self.m.io.submit(r, self.m.now) {
            self.m.q.push(done, Event::Io(IoEvent::Complete(id)));
        }
    }

    pub(super) fn spool_io_done(&mut self, op: u16, vol: u16) {
        let write = self.dcss.spool.transfer(op).is_some_and(|t| t.write);
        let cp = self.spool_cp_ns(write);
        let (page, step) = self.dcss.spool.completed(op, vol, cp);
        if let Some((s, p)) = page {
            let mut w = crate::cp::storage::CpWork::default();
            self.m.storage.load_page(s, p, &mut w);
            self.m.sys.cp_system_ns += w.ns + w.system_ns;
        }
        match step {
            Step::Start { vol, cp_ns } => {
                self.m.sys.cp_system_ns += cp_ns;
                self.m
                    .q
                    .push(self.m.now + cp_ns, Event::SpoolStart { op, vol });
            }
            Step::Wait => {}
            Step::Done(t) => self.transfer_done(t),
        }
    }

    pub(super) fn spool_timer(&mut self, op: u16) {
        if let Some(t) = self.dcss.spool.timer_done(op) {
            self.transfer_done(t);
        }
    }

    fn transfer_done(&mut self, t: Transfer) {
        match t.purpose {
            Purpose::Saveseg { file, user } => {
                let seg = &mut self.dcss.segments;
                let msg = match seg.by_id(file) {
                    Some(i) => {
                        let (freed, msg) = seg.saved(i, self.m.now as f64 / 1e9);
                        if let Some(s) = freed {
                            self.m.storage.discard_space(s);
                        }
                        msg
                    }
                    None => format!("HCPNSS002E Invalid operand - {file:04}"),
                };
                self.release_console(&user, vec![msg]);
                self.resume_nss();
            }
            Purpose::Add { guest } | Purpose::Timer { guest } => {
                let name = self.m.guests[guest as usize].name.clone();
                self.release_console(&name, vec![]);
            }
            Purpose::LinuxSave { guest, files } => {
                for file in files {
                    let seg = &mut self.dcss.segments;
                    if let Some(i) = seg.by_id(file) {
                        let (freed, _) = seg.saved(i, self.m.now as f64 / 1e9);
                        if let Some(s) = freed {
                            self.m.storage.discard_space(s);
                        }
                    }
                }
                let name = self.m.guests[guest as usize].name.clone();
                self.release_console(&name, vec![]);
                self.resume_nss();
            }
        }
    }
}
