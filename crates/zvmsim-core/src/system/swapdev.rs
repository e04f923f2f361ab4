//! Linux swap on memory-backed devices, and `mkswap`/`swapon`/`swapoff` in the running system.
//!
//! A swap area on a VDISK or a DCSS (dcssblk) keeps its slots in pages of an address space
//! (the VDISK's, CP-owned; the segment's copy the guest loaded): slot at offset `off` of its
//! area is device page `off + 1` (page 0 holds the swap signature). Its I/O moves pages
//! within storage on the IFL, in the burst of the task that swaps, and never reaches a real
//! device:
//! - dcssblk: the guest copies the pages itself (it stays in SIE, seed 000), `dcssblk_request`
//!   plus `swap_page_copy` per page of guest CPU; a DCSS page CP has moved out is a host
//!   page fault like any other.
//! - VDISK: Linux's DASD driver starts the I/O (`io.cost.linux_submit` and `linux_complete`);
//!   CP intercepts it (`cp_dedicated`, `cp_per_page`), takes the VDISK lock (spinning while
//!   another IFL holds it: `cp::vdisk`), and moves the pages under it. A VDISK page CP moved
//!   out is brought back by CP before the move.
//!
//! Simplifications: only the faulting slot's backing page is touched for a read with
//! readahead (the others are counted in the copies); a backing or guest page CP has on DASD
//! during a swap write is paged in without the write waiting for it.

use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::cp::pagein::Waiter;
use crate::cp::storage::{Access, CpWork, SpaceId, Touch};
use crate::linux::commands::swapcmds::{self as sc, SwapCommand};
use crate::linux::swap_areas::AreaOf;

use super::machine::{Guest, Machine};
use super::Simulation;

/// Where an area activated by `swapon` keeps its slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SwapTarget {
    /// A guest DASD (a static partition re-activated is not modelled): its device index.
    Vdisk {
        vd: u32,
    },
    Dcss {
        space: SpaceId,
        minor: u32,
    },
}

/// Where a swap slot of a guest is.
pub(crate) enum Place {
    /// On DASD volume (device index).
    Dasd(u32),
    /// In page `page` of a memory-backed device.
    Mem(SwapTarget, u32),
}

/// `swapon -s`'s lines: name, size and use in pages, priority.
pub(super) fn swap_listing(g: &Guest) -> Vec<(String, u64, u64, i32)> {
    let m = &g.mem;
    let mut out = Vec::new();
    if m.areas.static_on {
        let n = g.swap_names.len().max(1) as u64;
        let (total, used) = (m.areas.static_slots as u64, m.area_used(None));
        for (k, dev) in g.swap_names.iter().enumerate() {
            // Slots are spread round robin: volume k has every n-th one.
            let share = |t: u64| t / n + u64::from((k as u64) < t % n);
            out.push((
                dev.clone(),
                share(total),
                share(used),
                m.areas.static_prio - k as i32,
            ));
        }
    }
    for (i, a) in m.areas.extra.iter().enumerate().filter(|(_, a)| a.on) {
        out.push((
            g.swap_x_names[i].clone(),
            a.pages as u64,
            m.area_used(Some(i)),
            a.prio,
        ));
    }
    out.sort_by_key(|x| std::cmp::Reverse(x.3));
    out
}

impl Machine {
    pub(crate) fn swap_place(&self, g: usize, slot: u32) -> Place {
        let gs = &self.guests[g];
        match gs.mem.area_of(slot) {
            AreaOf::Static => Place::Dasd(gs.swap_devs[slot as usize % gs.swap_devs.len()]),
            AreaOf::Extra { i, off } => Place::Mem(gs.swap_x[i], off + 1),
        }
    }

    /// The backing space and page of device page `page` of `target`.
    fn backing(&self, target: SwapTarget, page: u32) -> (SpaceId, u32) {
        match target {
            // The FBA partition starts one page into the VDISK.
            SwapTarget::Vdisk { vd } => (self.vdisk.disks[vd as usize].space, page + 1),
            SwapTarget::Dcss { space, .. } => (space, page),
        }
    }

    /// Touch a backing page for CP; its CP time goes to `w`.
    fn touch_backing(&mut self, target: SwapTarget, page: u32, write: bool, w: &mut Work) -> Touch {
        let (s, p) = self.backing(target, page);
        let sp = self.storage.space(s);
        let mut cp = CpWork::default();
        let r = self.storage.touch(sp, p, Access::write(write), &mut cp);
        w.cp_ns += cp.ns;
        w.cp_system_ns += cp.system_ns;
        r
    }

    /// The CPU of moving `pages` pages to or from `target` for guest `g`.
    fn mem_swap_cost(&mut self, g: usize, target: SwapTarget, pages: u32, w: &mut Work) {
        let copy = self.p.swap_page_copy.ns() * pages as u64;
        match target {
            SwapTarget::Dcss { .. } => {
                w.guest_ns += self.p.dcssblk_request.ns() + copy;
                self.guests[g].stats.dcss_swap_io += 1;
            }
            SwapTarget::Vdisk { .. } => {
                let c = &self.io_cost;
                w.guest_ns += c.linux_submit.ns() + c.linux_complete.ns();
                w.cp_ns += c.cp_dedicated.ns() + c.cp_per_page.ns() * pages as u64;
                let at = self.burst_at + w.guest_ns + w.cp_ns + w.cp_system_ns;
                let (spin, hold) = self.vdisk.lock.acquire(self.now, at, pages);
                w.cp_ns += spin + hold;
                self.sys.virtual_io += 1;
                let st = &mut self.guests[g].stats;
                st.vdisk_io += 1;
                st.vdisk_spin_ns += spin;
            }
        }
    }

    /// A major fault's read of `pages` pages from a memory-backed device: done at once in
    /// the burst, or Err when CP must first bring the backing page in from DASD.
    pub(crate) fn mem_swap_read(
        &mut self,
        g: usize,
        t: u32,
        target: SwapTarget,
        page: u32,
        pages: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        if let Touch::OnDasd { group } = self.touch_backing(target, page, false, w) {
            return Err(Block::PageIn {
                group,
                task: t,
                sync: true,
            });
        }
        self.mem_swap_cost(g, target, pages, w);
        Ok(())
    }

    /// A swap write of guest page `from` to a memory-backed device.
    pub(crate) fn mem_swap_write(
        &mut self,
        g: usize,
        from: u32,
        target: SwapTarget,
        page: u32,
        w: &mut Work,
    ) {
        if let Touch::OnDasd { group } = self.host_touch(g, from, false, w) {
            self.guests[g].stats.double_paging += 1;
            self.start_pagein(group, g as u32, Waiter::Nothing);
        }
        if let Touch::OnDasd { group } = self.touch_backing(target, page, true, w) {
            self.start_pagein(group, g as u32, Waiter::Nothing);
        }
        self.mem_swap_cost(g, target, 1, w);
    }
}

/// A guest block device as swap commands see it.
enum Bdev {
    /// Swap volume k of the scenario (its static partition).
    Static,
    /// Another device in use (a database volume, a device of the DASD driver).
    Busy,
    Vdisk(usize),
    /// dcssblk device index; `mounted`.
    Dcss(usize, bool),
    /// A dcssblk node without a device behind it.
    NoDevice,
}

impl Simulation {
    fn bdev(&self, gi: usize, name: &str) -> Option<Bdev> {
        let g = &self.m.guests[gi];
        if g.swap_names.iter().any(|n| n == name) {
            return Some(Bdev::Static);
        }
        if let Some(k) = self
            .m
            .vdisk
            .disks
            .iter()
            .position(|d| d.guest as usize == gi && d.linux == name)
        {
            return Some(Bdev::Vdisk(k));
        }
        if let Some(m) = name
            .strip_prefix("/dev/dcssblk")
            .and_then(|m| m.parse::<u32>().ok())
        {
            let d = &self.dcss.guests[gi];
            if !d.nodes.contains(&m) {
                return None;
            }
            return Some(match d.devices.iter().position(|x| x.minor == m) {
                Some(k) => Bdev::Dcss(k, d.mounts.iter().any(|x| x.1 == m)),
                None => Bdev::NoDevice,
            });
        }
        let dasd = name.strip_prefix("/dev/")?;
        let statics = self.linux_spec_dasd_count(gi);
        let named = g.dasd.devs.iter().filter(|x| x.name.is_some()).count() as u32;
        (0..statics + named)
            .map(crate::linux::commands::dasd_name)
            .any(|d| dasd == d || dasd.strip_suffix('1') == Some(d.as_str()))
            .then_some(Bdev::Busy)
    }

    /// Pages of the device, its swap target, and whether the guest may write it.
    fn swap_geometry(&self, gi: usize, b: &Bdev) -> Option<(u64, SwapTarget, bool)> {
        match *b {
            Bdev::Vdisk(k) => {
                let d = &self.m.vdisk.disks[k];
                Some((
                    d.partition_pages() as u64,
                    SwapTarget::Vdisk { vd: k as u32 },
                    true,
                ))
            }
            Bdev::Dcss(k, _) => {
                let dev = &self.dcss.guests[gi].devices[k];
                let u = dev.segs.first()?;
                let space = match u.nonshared {
                    Some(s) => s,
                    None => self.dcss.segments.files[self.dcss.segments.by_id(u.file)?].shared?,
                };
                let ro = self.dcss_read_only(gi, k);
                Some((
                    dev.pages(),
                    SwapTarget::Dcss {
                        space,
                        minor: dev.minor,
                    },
                    !ro,
                ))
            }
            _ => None,
        }
    }

    fn swap_active(&self, gi: usize, name: &str) -> bool {
        swap_listing(&self.m.guests[gi]).iter().any(|x| x.0 == name)
    }

    /// `mkswap`, `swapon dev`, `swapoff dev` in guest `gi`.
    pub(super) fn swap_command(&mut self, gi: usize, c: &SwapCommand) -> Vec<String> {
        match c {
            SwapCommand::Mkswap { dev } => self.mkswap(gi, dev),
            SwapCommand::Swapon { dev, prio } => self.swapon(gi, dev, *prio),
            SwapCommand::Swapoff { dev } => self.swapoff(gi, dev),
        }
    }

    fn mkswap(&mut self, gi: usize, dev: &str) -> Vec<String> {
        let Some(b) = self.bdev(gi, dev) else {
            return vec![format!("{dev}: {}", sc::strerror(sc::ENOENT))];
        };
        let busy = matches!(b, Bdev::Busy | Bdev::Static | Bdev::Dcss(_, true))
            || self.swap_active(gi, dev);
        if busy {
            return vec![format!(
                "mkswap: will not try to make swapdevice on '{dev}'"
            )];
        }
        let Some((pages, target, writable)) = self.swap_geometry(gi, &b) else {
            return vec![format!("{dev}: No such device or address")];
        };
        if !writable {
            return vec![format!("{dev}: Read-only file system")];
        }
        // The signature page is written.
        let mut w = Work::default();
        self.m.touch_backing(target, 0, true, &mut w);
        self.m.flush_page_writes();
        let sigs = &mut self.m.guests[gi].swap_sigs;
        if !sigs.iter().any(|s| s == dev) {
            sigs.push(dev.to_string());
        }
        let seed = dev
            .bytes()
            .chain(self.m.guests[gi].name.bytes())
            .fold(self.seed, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
        sc::mkswap_lines(pages, seed)
    }

    fn swapon(&mut self, gi: usize, dev: &str, prio: Option<i32>) -> Vec<String> {
        let fail = |e| vec![sc::failed("swapon", dev, e)];
        let Some(b) = self.bdev(gi, dev) else {
            return fail(sc::ENOENT);
        };
        if self.swap_active(gi, dev) || matches!(b, Bdev::Busy | Bdev::Dcss(_, true)) {
            return fail(sc::EBUSY);
        }
        if let Bdev::Static = b {
            return vec![format!("not simulated by zvmsim: swapon {dev} again after swapoff (the scenario's swap partitions are activated at IPL)")];
        }
        let Some((pages, target, _)) = self.swap_geometry(gi, &b) else {
            return vec![format!(
                "swapon: {dev}: swapon failed: No such device or address"
            )];
        };
        if !self.m.guests[gi].swap_sigs.iter().any(|s| s == dev) {
            return fail(sc::EINVAL);
        }
        let slots = pages.saturating_sub(2) as u32;
        let g = &mut self.m.guests[gi];
        let i = g.mem.swapon_area(slots, prio);
        debug_assert_eq!(i, g.swap_x.len());
        g.swap_x.push(target);
        g.swap_x_names.push(dev.to_string());
        if let Bdev::Dcss(k, _) = b {
            self.dcss.guests[gi].devices[k].open += 1;
        }
        vec![]
    }

    fn swapoff(&mut self, gi: usize, dev: &str) -> Vec<String> {
        let fail = |e| vec![sc::failed("swapoff", dev, e)];
        if self.bdev(gi, dev).is_none() {
            return fail(sc::ENOENT);
        }
        let g = &self.m.guests[gi];
        let area = if g.mem.areas.static_on && g.swap_names.iter().any(|n| n == dev) {
            if g.swap_names.len() > 1 {
                return vec![format!("not simulated by zvmsim: swapoff of one of {} swap partitions of equal priority", g.swap_names.len())];
            }
            None
        } else {
            match (0..g.swap_x.len()).find(|&i| g.swap_x_names[i] == dev && g.mem.areas.extra[i].on)
            {
                Some(i) => Some(i),
                None => return fail(sc::EINVAL),
            }
        };
        let moved = match self.m.guests[gi].mem.swapoff_area(area) {
            Ok(m) => m,
            Err(e) => return fail(e),
        };
        // The moved pages are written to their new slots (CP supplies the frames).
        let mut w = Work::default();
        for s in moved {
            if let Place::Mem(t, p) = self.m.swap_place(gi, s) {
                self.m.touch_backing(t, p, true, &mut w);
            }
        }
        self.m.flush_page_writes();
        if let Some(i) = area {
            if let SwapTarget::Dcss { minor, .. } = self.m.guests[gi].swap_x[i] {
                if let Some(d) = self.dcss.guests[gi]
                    .devices
                    .iter_mut()
                    .find(|d| d.minor == minor)
                {
                    d.open = d.open.saturating_sub(1);
                }
            }
        }
        vec![]
    }
}
