//! Virtual disks in storage in the running system: `DEFINE VFB-512`, the directory's
//! `MDISK vdev FB-512 V-DISK blocks`, `SET VDISK SYSLIM|USERLIM`, `QUERY VDISK`, `QUERY
//! VIRTUAL vdev`, renumbering (`DEFINE vdev vdev2`) and the SWAPGEN exec of seed 000. Each
//! VDISK is an address space CP owns (`Owner::Vdisk`), empty until written, paged like guest
//! storage; Linux sees it as its next DASD (`/dev/dasdX1`, the FBA driver's one partition).
//! A refused command answers with CP's message (or, where zvmsim does not know CP's message,
//! says so) and changes nothing.

use crate::config::params::ModelParams;
use crate::cp::storage::{Owner, SpaceId, SpaceSpec};
use crate::cp::vdisk::{self as v, Limit, VdiskCommand, VdiskLock};

use super::Simulation;

pub(crate) struct Vdisk {
    pub guest: u32,
    pub vdev: u16,
    pub blocks: u64,
    pub space: SpaceId,
    /// Defined by DEFINE (counts against USERLIM), not by the directory.
    pub defined: bool,
    /// Linux's name for its partition (`/dev/dasdc1`).
    pub linux: String,
    pub subchannel: u16,
}

impl Vdisk {
    /// Its line of QUERY VIRTUAL DASD (and of QUERY VIRTUAL vdev).
    pub(super) fn query_line(&self) -> String {
        format!(
            "DASD {:04X} 9336 (VDSK) R/W {:>12} BLK ON DASD  VDSK SUBCHANNEL = {:04X}",
            self.vdev, self.blocks, self.subchannel
        )
    }

    /// Pages of the Linux partition: the FBA driver's partition starts one page in.
    pub(crate) fn partition_pages(&self) -> u32 {
        (self.blocks / v::BLOCKS_PER_PAGE).saturating_sub(1) as u32
    }
}

pub(crate) struct VdiskSystem {
    pub disks: Vec<Vdisk>,
    pub lock: VdiskLock,
    pub syslim: Limit,
    pub userlim: Limit,
}

impl VdiskSystem {
    pub(crate) fn new(p: &ModelParams, central_pages: u64) -> Self {
        VdiskSystem {
            disks: Vec::new(),
            lock: VdiskLock {
                hold_ns: p.vdisk_lock_hold.ns(),
                hold_page_ns: p.vdisk_lock_hold_page.ns(),
                ..Default::default()
            },
            syslim: Limit::Blocks(central_pages / 4 * v::BLOCKS_PER_PAGE),
            userlim: Limit::Blocks(v::DEFAULT_USERLIM),
        }
    }

    fn in_use(&self) -> u64 {
        self.disks.iter().map(|d| d.blocks).sum()
    }

    pub(crate) fn by_vdev(&self, guest: usize, vdev: u16) -> Option<usize> {
        self.disks
            .iter()
            .position(|d| d.guest as usize == guest && d.vdev == vdev)
    }
}

impl Simulation {
    /// A VDISK command typed by `user`, if it is one; its response.
    pub(super) fn vdisk_command(&mut self, user: &str, line: &str) -> Option<Vec<String>> {
        let cmd = match v::parse(line)? {
            Ok(c) => c,
            Err(m) => return Some(vec![m]),
        };
        let guest = self.m.guests.iter().position(|g| g.name == user);
        let not_guest = || {
            vec![format!(
                "not simulated by zvmsim: {} typed by {user}, which is not a simulated guest",
                line.trim()
            )]
        };
        Some(match cmd {
            VdiskCommand::Define { vdev, blocks } => match guest {
                Some(g) => self.define_vdisk(g, vdev, blocks, true),
                None => not_guest(),
            },
            VdiskCommand::Renumber { from, to } => {
                let g = guest?;
                let k = self.m.vdisk.by_vdev(g, from)?;
                if self.m.vdisk.by_vdev(g, to).is_some() || self.m.guests[g].dasd.by_vdev(to).is_some() {
                    return Some(vec![format!("not simulated by zvmsim: DEFINE {from:04X} {to:04X} (virtual device {to:04X} exists; CP's message is not modelled)")]);
                }
                self.m.vdisk.disks[k].vdev = to;
                vec![format!("DASD {to:04X} DEFINED")]
            }
            VdiskCommand::SetSyslim(l) => {
                self.m.vdisk.syslim = l;
                vec![]
            }
            VdiskCommand::SetUserlim(l) => {
                self.m.vdisk.userlim = l;
                vec![]
            }
            VdiskCommand::Query => self
                .m
                .vdisk
                .disks
                .iter()
                .map(|d| {
                    format!(
                        "VDISK {:<8} {:04X} {:>8} BLK",
                        self.m.guests[d.guest as usize].name, d.vdev, d.blocks
                    )
                })
                .collect(),
            VdiskCommand::QuerySyslim => vec![format!(
                "not simulated by zvmsim: QUERY VDISK SYSLIM's response layout (the limit is {}, {} BLK in use)",
                self.m.vdisk.syslim.text(),
                self.m.vdisk.in_use()
            )],
            VdiskCommand::QueryUserlim => vec![format!(
                "not simulated by zvmsim: QUERY VDISK USERLIM's response layout (the limit is {})",
                self.m.vdisk.userlim.text()
            )],
            VdiskCommand::QueryVirtual { vdev } => {
                let g = guest?;
                vec![self.m.vdisk.disks[self.m.vdisk.by_vdev(g, vdev)?].query_line()]
            }
        })
    }

    /// Create a VDISK of `blocks` at `vdev` for guest `g` (`defined`: by DEFINE, subject to
    /// USERLIM); its response.
    pub(super) fn define_vdisk(
        &mut self,
        g: usize,
        vdev: u16,
        blocks: u64,
        defined: bool,
    ) -> Vec<String> {
        let vd = &self.m.vdisk;
        if vd.by_vdev(g, vdev).is_some() || self.m.guests[g].dasd.by_vdev(vdev).is_some() {
            return vec![format!("not simulated by zvmsim: DEFINE VFB-512 AS {vdev:04X} (virtual device {vdev:04X} exists; CP's message is not modelled)")];
        }
        let total = vd.in_use() + blocks;
        if !vd.syslim.allows(total) {
            return vec![format!(
                "not simulated by zvmsim: DEFINE VFB-512 AS {vdev:04X} BLK {blocks}: the system limit for virtual disks in storage ({}) would be exceeded ({} BLK in use); CP refuses it, its message is not modelled",
                vd.syslim.text(),
                vd.in_use()
            )];
        }
        let mine: u64 = vd
            .disks
            .iter()
            .filter(|d| d.guest as usize == g && d.defined)
            .map(|d| d.blocks)
            .sum();
        if defined && !vd.userlim.allows(mine + blocks) {
            return vec![format!(
                "not simulated by zvmsim: DEFINE VFB-512 AS {vdev:04X} BLK {blocks}: the user limit for virtual disks in storage ({}) would be exceeded; CP refuses it, its message is not modelled",
                vd.userlim.text()
            )];
        }
        let pages = blocks.div_ceil(v::BLOCKS_PER_PAGE) as u32;
        let space = self.m.storage.add_space(
            SpaceSpec {
                owner: Owner::Vdisk {
                    guest: g as u32,
                    vdev: vdev as u32,
                },
                pages,
            },
            false,
        );
        // Linux's next DASD name after the guest's volumes, its DASD driver's devices and its
        // other VDISKs.
        let statics: u32 = self.linux_spec_dasd_count(g);
        let named = self.m.guests[g]
            .dasd
            .devs
            .iter()
            .filter(|x| x.name.is_some())
            .count() as u32;
        let mine = self
            .m
            .vdisk
            .disks
            .iter()
            .filter(|d| d.guest as usize == g)
            .count() as u32;
        let linux = format!(
            "/dev/{}1",
            crate::linux::commands::dasd_name(statics + named + mine)
        );
        let subchannel = (self.m.vdisk.disks.len() as u16).wrapping_add(0x10 + statics as u16);
        self.m.vdisk.disks.push(Vdisk {
            guest: g as u32,
            vdev,
            blocks,
            space,
            defined,
            linux,
            subchannel,
        });
        vec![format!("DASD {vdev:04X} DEFINED")]
    }

    /// The guest's DASD volumes from the scenario (dasda, dasdb, ...).
    pub(super) fn linux_spec_dasd_count(&self, g: usize) -> u32 {
        let spec = self
            .scenario
            .guest_instances()
            .get(g)
            .map_or(0, |i| i.spec_index);
        self.scenario.guests[spec]
            .dasd
            .iter()
            .map(|x| x.count)
            .sum()
    }

    /// `SWAPGEN vdev #blocks [( options]` typed in CMS by guest `user`: the exec defines the
    /// VDISK and writes a swap signature on it (Linux's `mkswap`).
    pub(super) fn swapgen(&mut self, user: &str, args: &str) -> Vec<String> {
        let Some(g) = self.m.guests.iter().position(|x| x.name == user) else {
            return vec![format!(
                "not simulated by zvmsim: SWAPGEN typed by {user}, which is not a simulated guest"
            )];
        };
        let (vdev, blocks, reuse) = match v::swapgen(args) {
            Ok(x) => x,
            Err(m) => return vec![m],
        };
        let mut out = Vec::new();
        match (self.m.vdisk.by_vdev(g, vdev), reuse) {
            (Some(_), true) => {}
            (Some(_), false) => {
                return vec![format!("not simulated by zvmsim: SWAPGEN {vdev:04X}: the device exists (SWAPGEN's message without REUSE is not modelled)")]
            }
            (None, _) => {
                let r = self.define_vdisk(g, vdev, blocks, true);
                if !r.first().is_some_and(|l| l.ends_with("DEFINED")) {
                    return r;
                }
                out.extend(r);
            }
        }
        let k = self.m.vdisk.by_vdev(g, vdev).expect("defined above");
        let name = self.m.vdisk.disks[k].linux.clone();
        let sigs = &mut self.m.guests[g].swap_sigs;
        if !sigs.contains(&name) {
            sigs.push(name);
        }
        out
    }
}
