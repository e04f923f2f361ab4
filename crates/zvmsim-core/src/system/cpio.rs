//! CP's DASD commands and the directory's device statements, applied to the simulated system:
//! real devices attached to a guest or to SYSTEM, full-pack minidisks, virtual HyperPAV
//! aliases, SET PAGING ALIAS; and Linux setting each new device online in its DASD driver.
//! A refused command changes nothing.

use crate::cp::iocmds::{self, AttachTo, DirStatement, IoCommand};
use crate::io::{SubKind, SubOwner, NONE};
use crate::linux::cio::Hidden;
use crate::linux::dasd::DevPath;

use super::Simulation;

impl Simulation {
    /// A DASD command typed by `user`, if it is one; its response.
    pub(super) fn io_command(&mut self, user: &str, line: &str) -> Option<Vec<String>> {
        let level = self.scenario.lpar.zvm_level.as_str();
        let cmd = match iocmds::parse(line, level)? {
            Ok(c) => c,
            Err(m) => return Some(vec![m]),
        };
        let guest = self.m.guests.iter().position(|g| g.name == user);
        Some(match cmd {
            IoCommand::Attach { first, last, to, vdev } => {
                self.attach(user, guest, first, last, to, vdev)
            }
            IoCommand::DefineHyperpavAlias { vdev, base } => match guest {
                Some(g) => self.define_alias(g, vdev, base),
                None => vec![format!("not simulated by zvmsim: {line} typed by {user}, which is not a simulated guest")],
            },
            IoCommand::QueryPav { rdev } => self.query_pav(rdev),
            IoCommand::QueryVirtualDasd => match guest {
                Some(g) => self.query_virtual_dasd(g),
                None => vec![format!("not simulated by zvmsim: QUERY VIRTUAL DASD of {user}")],
            },
            IoCommand::SetPagingAlias { on } => {
                self.m.paging_alias = on;
                vec![]
            }
            IoCommand::QueryPaging => {
                // Response 1 of QUERY PAGING (IBM z/VM 7.3 CP Commands). HPF: paging I/O on
                // [io] volumes runs in the channels' mode; WARNING: IBM's default, 90 %
                // (SET PAGING WARNING is not simulated).
                let hpf = self.scenario.io.as_ref().is_some_and(|io| io.channels.zhpf);
                let on = |b: bool| if b { "ON" } else { "OFF" };
                vec![format!(
                    "PAGING_ALIAS: {} PAGING_HPF: {} WARNING: 90%",
                    on(self.m.paging_alias),
                    on(hpf)
                )]
            }
            IoCommand::IndicateIo => self.indicate_io(),
            IoCommand::Mdc(c) => self.mdc_command(user, guest, c),
            IoCommand::NotSimulated(c) => vec![format!("not simulated by zvmsim: {c}")],
        })
    }

    fn attach(
        &mut self,
        user: &str,
        guest: Option<usize>,
        first: u16,
        last: u16,
        to: AttachTo,
        vdev: Option<u16>,
    ) -> Vec<String> {
        let target = match &to {
            AttachTo::System => None,
            AttachTo::Me => match guest {
                Some(g) => Some(g),
                None => {
                    return vec![format!(
                        "not simulated by zvmsim: ATTACH to {user}, which is not a simulated guest"
                    )]
                }
            },
            AttachTo::User(u) => match self.m.guests.iter().position(|g| &g.name == u) {
                Some(g) => Some(g),
                None => return vec![format!("HCP045E {u} not logged on")],
            },
        };
        // Check every device first: a refused range attaches none.
        let mut subs = Vec::new();
        for r in first..=last {
            let Some(s) = self.m.io.by_rdev(r) else {
                return vec![format!("HCP040E Device {r:04X} does not exist")];
            };
            if self.m.io.sub(s).owner != SubOwner::Free {
                return vec![format!("not simulated by zvmsim: ATTACH {r:04X} (the device is already attached; CP's message is not modelled)")];
            }
            if let (Some(g), Some(v)) = (target, vdev) {
                if self.virtual_path(g, v).is_some() {
                    return vec![format!("not simulated by zvmsim: ATTACH {r:04X} AS {v:04X} (virtual device {v:04X} exists; CP's message is not modelled)")];
                }
            }
            subs.push(s);
        }
        let mut out = Vec::new();
        for s in subs {
            let rdev = self.m.io.sub(s).rdev;
            match target {
                None => {
                    self.m.io.set_owner(s, SubOwner::System);
                    out.push(format!("DASD {rdev:04X} ATTACHED TO SYSTEM"));
                }
                Some(g) => {
                    self.m.io.set_owner(s, SubOwner::Guest(g as u32));
                    let v = vdev.unwrap_or(rdev);
                    self.online_real(g, v, s);
                    out.push(format!(
                        "DASD {rdev:04X} ATTACHED TO {} {v:04X}",
                        self.m.guests[g].name
                    ));
                }
            }
        }
        out
    }

    /// Linux sets the attached real device `s` online as `vdev`.
    fn online_real(&mut self, g: usize, vdev: u16, s: u32) {
        let sub = self.m.io.sub(s);
        let lcu = sub.lcu;
        let ssid = if lcu == NONE {
            0
        } else {
            self.m.io.lcus()[lcu as usize].ssid
        };
        let (alias, key, volume) = match sub.kind {
            SubKind::Base => (false, (lcu, self.pav_key(s)), s),
            SubKind::HyperPavAlias => (true, (lcu, NONE), s),
            // A 2.4 DASD driver has no PAV support: it takes the alias for a disk of its
            // own, with its base's volume (seed 004: `56bf(ECKD) ... is dasdd`).
            SubKind::PavAlias { base } if self.m.guests[g].userland.kernel24() => {
                (false, (lcu, s), base)
            }
            SubKind::PavAlias { base } => (true, (lcu, base), s),
        };
        let blocks = if alias { 0 } else { self.volume_blocks(volume) };
        self.present_dasd(
            g,
            Hidden {
                vdev,
                path: DevPath::Dedicated { sub: s },
                group_key: Some(key),
                alias,
                blocks,
                ssid,
            },
        );
    }

    /// A base's alias-group key part: NONE for HyperPAV LCUs, the base itself for static PAV.
    fn pav_key(&self, s: u32) -> u32 {
        let lcu = self.m.io.sub(s).lcu;
        if lcu != NONE && !self.m.io.lcus()[lcu as usize].hyperpav {
            s
        } else {
            NONE
        }
    }

    pub(super) fn volume_blocks(&self, s: u32) -> u64 {
        let rdev = self.m.io.sub(s).rdev;
        self.scenario
            .io
            .as_ref()
            .and_then(|io| {
                io.lcus.iter().flat_map(|l| &l.bases).find_map(|b| {
                    let first = crate::config::io::parse_rdev(&b.rdev)?;
                    (rdev >= first && (rdev - first) < b.count as u16).then(|| b.model.pages())
                })
            })
            .unwrap_or(0)
    }

    fn define_alias(&mut self, g: usize, vdev: u16, base: u16) -> Vec<String> {
        let name = self.m.guests[g].name.clone();
        if self.virtual_path(g, vdev).is_some() {
            return vec![format!("not simulated by zvmsim: DEFINE HYPERPAVALIAS {vdev:04X} (virtual device {vdev:04X} exists; CP's message is not modelled)")];
        }
        let Some(path) = self.virtual_path(g, base) else {
            return vec![format!("not simulated by zvmsim: DEFINE HYPERPAVALIAS {vdev:04X} FOR BASE {base:04X} ({base:04X} does not exist; CP's message is not modelled)")];
        };
        let DevPath::Minidisk {
            base: real,
            offset: 0,
            blocks,
        } = path
        else {
            return vec![format!("not simulated by zvmsim: DEFINE HYPERPAVALIAS FOR BASE {base:04X} (not a full-pack minidisk; CP refuses it, its message is not modelled)")];
        };
        if blocks != self.volume_blocks(real) {
            return vec![format!("not simulated by zvmsim: DEFINE HYPERPAVALIAS FOR BASE {base:04X} (not a full-pack minidisk; CP refuses it, its message is not modelled)")];
        }
        let lcu = self.m.io.sub(real).lcu;
        let l = &self.m.io.lcus()[lcu as usize];
        let real_aliases = l
            .aliases
            .iter()
            .filter(|&&a| self.m.io.sub(a).owner == SubOwner::System)
            .count();
        let mine = self.virtual_aliases_of(g, real);
        if !l.hyperpav || mine + 1 > real_aliases {
            return vec![format!(
                "not simulated by zvmsim: DEFINE HYPERPAVALIAS {vdev:04X} FOR BASE {base:04X}: \
                 {name} would have {} virtual aliases, SYSTEM owns {real_aliases} real HyperPAV \
                 aliases in LCU {:04X}; CP refuses the definition",
                mine + 1,
                l.ssid
            )];
        }
        let ssid = l.ssid;
        self.present_dasd(
            g,
            Hidden {
                vdev,
                path: DevPath::VirtualAlias { base: real },
                group_key: Some((lcu, NONE)),
                alias: true,
                blocks: 0,
                ssid,
            },
        );
        vec![format!("DASD {vdev:04X} DEFINED")]
    }

    fn query_pav(&self, rdev: Option<u16>) -> Vec<String> {
        let io = &self.m.io;
        let mut out = Vec::new();
        for l in io.lcus() {
            for &b in &l.bases {
                let s = io.sub(b);
                if rdev.is_some_and(|r| r != s.rdev) || l.aliases.is_empty() {
                    continue;
                }
                if l.hyperpav {
                    out.push(format!(
                        "Device {:04X} is a base HyperPAV volume in pool {:04X}",
                        s.rdev, l.ssid
                    ));
                } else {
                    let mine: Vec<String> = l
                        .aliases
                        .iter()
                        .filter(|&&a| io.sub(a).serves(b, s.lcu))
                        .map(|&a| format!("{:04X}", io.sub(a).rdev))
                        .collect();
                    out.push(format!(
                        "Device {:04X} is a base Parallel Access Volume with the following aliases: {}",
                        s.rdev,
                        mine.join(" ")
                    ));
                }
            }
            for &a in &l.aliases {
                let s = io.sub(a);
                if rdev.is_some_and(|r| r != s.rdev) {
                    continue;
                }
                out.push(match s.kind {
                    SubKind::PavAlias { base } => format!(
                        "Device {:04X} is an alias Parallel Access Volume device whose base device is {:04X}",
                        s.rdev,
                        io.sub(base).rdev
                    ),
                    _ => format!("Device {:04X} is an alias HyperPAV volume in pool {:04X}", s.rdev, l.ssid),
                });
            }
        }
        if out.is_empty() {
            out.push(match rdev {
                Some(r) if io.by_rdev(r).is_none() => format!("HCP040E Device {r:04X} does not exist"),
                Some(r) => format!("not simulated by zvmsim: QUERY PAV {r:04X} (not a PAV device; CP's message is not modelled)"),
                None => "No PAV devices".into(),
            });
        }
        out
    }

    /// QUERY VIRTUAL DASD. A minidisk's line as z/VM consoles show it (e.g. `DASD 0100 3390
    /// JM6013 R/W       2300 CYL ON DASD  6013 SUBCHANNEL = 0001`, in several projects'
    /// captured output): volser, cylinders right-aligned in 10, real device, virtual
    /// subchannel. The virtual subchannels are numbered in the order of the guest's DASD
    /// from 0000 (inference: the consoles show the guest's first minidisk at 0000; CP
    /// numbers its other devices too, which zvmsim does not have). A device without a
    /// volser in `[io]` shows its device number. Dedicated devices and aliases: the layout is
    /// recalled, not sourced. The guest's VDISKs are listed too (QUERY VIRTUAL vdev's line),
    /// all in device-number order as the consoles list them.
    fn query_virtual_dasd(&self, g: usize) -> Vec<String> {
        let io = &self.m.io;
        let volser = |rdev: u16| {
            let v = self.scenario.io.as_ref();
            v.and_then(|v| crate::config::directory::volser(v, rdev))
                .map_or_else(|| format!("{rdev:04X}"), |s| s.to_ascii_uppercase())
        };
        // A minidisk's access: read-only when the MDISK or LINK mode's primary letter is R.
        let spec = self.scenario.guest_instances()[g].spec_index;
        let dir = &self.scenario.guests[spec].directory;
        let access = |vdev: u16| {
            use crate::cp::directory::{parse_directory, DirStatement as D};
            let ro = dir.iter().any(|l| match parse_directory(l) {
                Ok(D::Mdisk { vdev: v, mode, .. } | D::MdiskDevno { vdev: v, mode, .. }) => {
                    v == vdev && mode.starts_with('R')
                }
                Ok(D::Link { as_vdev, mode, .. }) => as_vdev == vdev && mode.starts_with('R'),
                _ => false,
            });
            if ro {
                "R/O"
            } else {
                "R/W"
            }
        };
        let mut out: Vec<(u16, String)> = Vec::new();
        // CP knows the devices Linux's blacklist hides as well.
        for (sch, (vdev, path)) in self.guest_dasds(g).enumerate() {
            let line = match path {
                DevPath::Dedicated { sub } => {
                    let s = io.sub(sub);
                    let what = if s.is_alias() {
                        "ALIAS".to_string()
                    } else {
                        volser(s.rdev)
                    };
                    format!(
                        "DASD {:04X} ON DASD  {:04X} R/W {what} SUBCHANNEL = {sch:04X}",
                        vdev, s.rdev
                    )
                }
                DevPath::Minidisk { base, blocks, .. } => format!(
                    "DASD {:04X} 3390 {:<6} {} {:>10} CYL ON DASD  {:04X} SUBCHANNEL = {sch:04X}",
                    vdev,
                    volser(io.sub(base).rdev),
                    access(vdev),
                    blocks / 180,
                    io.sub(base).rdev
                ),
                DevPath::VirtualAlias { base } => {
                    let b = self.guest_dasds(g).find(
                        |(_, p)| matches!(p, DevPath::Minidisk { base: bb, .. } if *bb == base),
                    );
                    format!(
                        "DASD {:04X} HYPERPAV ALIAS FOR BASE {:04X}",
                        vdev,
                        b.map(|x| x.0).unwrap_or(0)
                    )
                }
            };
            out.push((vdev, line));
        }
        // Its virtual disks in storage are DASD too.
        let vdisks = self.m.vdisk.disks.iter().filter(|d| d.guest as usize == g);
        out.extend(vdisks.map(|d| (d.vdev, d.query_line())));
        if out.is_empty() {
            return vec!["not simulated by zvmsim: QUERY VIRTUAL DASD with no DASD".into()];
        }
        // In device-number order, as consoles show them (their subchannels need not be).
        out.sort_by_key(|x| x.0);
        out.into_iter().map(|x| x.1).collect()
    }

    fn indicate_io(&self) -> Vec<String> {
        let mut out = Vec::new();
        for g in &self.m.guests {
            if g.dasd.in_flight > 0 {
                out.push(format!("{:<8} I/O {} requests", g.name, g.dasd.in_flight));
            }
        }
        if out.is_empty() {
            out.push("No users are in I/O wait".into());
        }
        out
    }

    /// Logon of guest `g`: its directory's device statements (validated with the scenario).
    pub(super) fn logon_devices(&mut self, g: usize, statements: &[String]) {
        let name = self.m.guests[g].name.clone();
        for (i, line) in statements.iter().enumerate() {
            let Ok(st) = iocmds::parse_directory(line) else {
                continue;
            };
            match st {
                DirStatement::MdiskDevno { .. }
                | DirStatement::Mdisk { .. }
                | DirStatement::Link { .. } => self.logon_minidisk(g, statements, i, &st),
                // Applied when the guest was built (its MEMASSIST setting, its classes).
                DirStatement::Miniopt { .. }
                | DirStatement::Option { .. }
                | DirStatement::Class(_) => {}
                DirStatement::Vdisk { vdev, blocks } => {
                    let r = self.define_vdisk(g, vdev, blocks, false);
                    if r.first().is_some_and(|l| !l.ends_with("DEFINED")) {
                        self.console_line(&name, line, r);
                    }
                }
                DirStatement::Dedicate { vdev, rdev } => {
                    let cmd = format!("ATTACH {rdev:04X} TO {name} AS {vdev:04X}");
                    let r = self.io_command("SYSTEM", &cmd).unwrap_or_default();
                    self.console_line(&name, &format!("DEDICATE {vdev:04X} {rdev:04X}"), r);
                }
                DirStatement::Command(c) => {
                    let r = self
                        .cp_refusal(&name, &c)
                        .map(|m| vec![m])
                        .or_else(|| self.io_command(&name, &c))
                        .unwrap_or_else(|| vec![format!("not simulated by zvmsim: {c}")]);
                    self.console_line(&name, &c, r);
                }
            }
        }
    }
}

/// The next DASD block-device name: dasda, dasdb, ...
pub(super) fn next_name(d: &crate::linux::dasd::DasdDriver) -> String {
    let n = d.devs.iter().filter(|x| x.name.is_some()).count() as u32;
    format!("/dev/{}", crate::linux::commands::dasd_name(n)).replace("/dev/", "")
}
