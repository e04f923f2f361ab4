//! dcssblk's per-device attributes (`shared`, `save`), its sysfs listing, and ext2 on a
//! device: mke2fs, mount, umount and filling it (see dcss_linux.rs).

use crate::cp::segments::PageType;
use crate::cp::spool::Purpose;
use crate::cp::storage::{Access, CpWork, Owner, SpaceSpec, Touch};
use crate::linux::dcssblk::{self as d, EXT2_META_STRIDE};
use crate::linux::kmsg::{Arg, Kmsg};

use super::dcss_linux::{Out, SegUse};
use super::Simulation;

impl Simulation {
    /// dcssblk's `shared` (4.18 dcssblk.c, `dcssblk_shared_store`): each segment is reloaded
    /// in the mode asked for (extmem.c, `segment_modify_shared`). An exclusive type is a
    /// copy of the guest's own in either mode, so only the mode changes. A reload CP refuses
    /// (a nonshared copy of a segment without LOADNSHR: inference, as before) unloads the
    /// segments and removes the device; the write fails with EIO, extmem's translation of
    /// any DIAGNOSE X'64' return code but 44 (CP's code, which extmem also logs, is not known
    /// to zvmsim and is left out).
    pub(super) fn dcss_set_shared(&mut self, gi: usize, k: usize, v: &str) -> Result<Out, i32> {
        let want = match v {
            "0" => false,
            "1" => true,
            _ => return Err(d::EINVAL),
        };
        let dev = &self.dcss.guests[gi].devices[k];
        if dev.open > 0 {
            return Err(d::EBUSY);
        }
        let seg = &self.dcss.segments;
        let file = |u: &SegUse| seg.by_id(u.file).map(|i| &seg.files[i]);
        let sc =
            |u: &SegUse| file(u).is_some_and(|f| f.ranges.iter().any(|r| r.ty == PageType::Sc));
        if !want && dev.segs.first().is_some_and(sc) {
            let m = "DCSS %s is of type SC and cannot be loaded as exclusive-writable\n";
            let name = dev.name.clone();
            self.dcss.guests[gi].log_name("dcssblk", m, &name);
            return Err(d::EINVAL);
        }
        if dev.shared == want {
            let names: Vec<String> = dev.segs.iter().map(|u| u.name.clone()).collect();
            for n in names {
                let m = "DCSS %s is already in the requested access mode\n";
                self.dcss.guests[gi].log_name("extmem", m, &n);
            }
            return Ok(Out::Now(vec![]));
        }
        let refused = !want
            && dev
                .segs
                .iter()
                .any(|u| file(u).is_some_and(|f| !f.exclusive() && !f.loadnshr));
        if refused {
            let gone = self.dcss.guests[gi].devices.remove(k);
            self.release_segs(gi, &gone.segs);
            let m = "DCSS device %s is removed after a failed access mode change\n";
            self.dcss.guests[gi].log_name("dcssblk", m, &gone.name);
            return Err(d::EIO);
        }
        let segs = dev.segs.clone();
        let mut new = Vec::new();
        let mut load = Vec::new();
        for u in &segs {
            let i = self.dcss.segments.by_id(u.file).ok_or(d::ENODEV)?;
            if self.dcss.segments.files[i].exclusive() {
                new.push(u.clone());
            } else if want {
                if let Some(s) = u.nonshared {
                    self.m.storage.discard_space(s);
                }
                self.shared_copy(i, u, &mut load);
                new.push(SegUse {
                    nonshared: None,
                    ..u.clone()
                });
            } else {
                if let Some(s) = self.dcss.segments.release(i, gi as u32) {
                    self.m.storage.discard_space(s);
                }
                self.dcss.segments.files[i].users.push(gi as u32);
                let owner = Owner::Nonshared {
                    guest: gi as u32,
                    segment: u.file,
                };
                let s = self.m.storage.add_space(
                    SpaceSpec {
                        owner,
                        pages: u.pages,
                    },
                    false,
                );
                new.push(SegUse {
                    nonshared: Some(s),
                    ..u.clone()
                });
            }
        }
        let dev = &mut self.dcss.guests[gi].devices[k];
        dev.segs = new;
        dev.shared = want;
        self.load_segments(gi, load)
    }

    pub(super) fn dcss_set_save(&mut self, gi: usize, k: usize, v: &str) -> Result<Out, i32> {
        let dev = &mut self.dcss.guests[gi].devices[k];
        match v {
            "0" => {
                dev.save_pending = false;
                Ok(Out::Now(vec![]))
            }
            "1" if dev.open > 0 => {
                dev.save_pending = true;
                let (m, name) = (
                    "Device %s is in use, its DCSSs will be saved when it becomes idle\n",
                    dev.name.clone(),
                );
                self.dcss.guests[gi].log_name("dcssblk", m, &name);
                Ok(Out::Now(vec![]))
            }
            "1" => Ok(self.dcss_save(gi, k)),
            _ => Err(d::EINVAL),
        }
    }

    /// The driver saves each segment of device `k`: CP's DEFSEG with the segment's ranges
    /// and types only, then SAVESEG of the pages this guest sees. While CP processes another
    /// DEFSEG or SAVESEG, the guest's (synchronous) DEFSEG waits, and with it the command.
    pub(super) fn dcss_save(&mut self, gi: usize, k: usize) -> Out {
        if self.dcss.nss_busy() {
            let w = super::dcss::NssWait::LinuxSave {
                guest: gi,
                device: k,
            };
            self.dcss.nss_waiting.push_back(w);
            return Out::Held {
                lines: vec![],
                guest_ns: 0,
                dd: None,
            };
        }
        self.dcss_save_now(gi, k)
    }

    pub(super) fn dcss_save_now(&mut self, gi: usize, k: usize) -> Out {
        let segs = self.dcss.guests[gi].devices[k].segs.clone();
        let (mut files, mut pages) = (Vec::new(), 0u64);
        for u in &segs {
            let seg = &mut self.dcss.segments;
            let Some(i) = seg.by_id(u.file) else { continue };
            let f = seg.files[i].clone();
            if f.ranges.iter().all(|r| !r.ty.saved()) {
                let m = "DCSS %s is of type SN or EN and cannot be saved\n";
                self.dcss.guests[gi].log_name("dcssblk", m, &f.name);
                continue;
            }
            // DEFSEG is a class E command: from a guest without it CP answers HCPCMD001E,
            // whose return code (1, the message number, as vmcp shows it) the kernel logs; it
            // then saves nothing (extmem.c, segment_save).
            if !self.classes(&self.m.guests[gi].name).contains('E') {
                let m = Kmsg::new(
                    "extmem",
                    "Saving a DCSS failed with DEFSEG response code %i\n",
                    vec![Arg::Int(1)],
                );
                self.dcss.guests[gi].log(m);
                continue;
            }
            let seg = &mut self.dcss.segments;
            // extmem.c's segment_save types `DEFSEG name start-end type ...` with the
            // ranges alone: the new file has no LOADNSHR, RSTD or SPACE option, whatever the
            // file it replaces had.
            let _ = seg.define(&f.name, f.ranges.clone(), false, false, None);
            seg.stamp(&f.name, &self.m.guests[gi].name, self.m.now as f64 / 1e9);
            let Some(s) = seg.skeleton(&f.name) else {
                continue;
            };
            match seg.room_for(s) {
                Ok(p) => pages += p,
                Err(m) => {
                    self.dcss.guests[gi].dmesg.push(m);
                    seg.remove(s);
                    continue;
                }
            }
            files.push(seg.files[s].id);
        }
        self.dcss.guests[gi].devices[k].save_pending = false;
        let dev = &self.dcss.guests[gi].devices[k];
        if dev.formatted {
            let used = dev.used;
            self.dcss.saved_fs.extend(files.iter().map(|&f| (f, used)));
        }
        if files.is_empty() || self.dcss.spool.devs.is_empty() {
            return Out::Now(vec![]);
        }
        let purpose = Purpose::LinuxSave {
            guest: gi as u32,
            files,
        };
        self.start_transfer(purpose, true, pages, Vec::new());
        Out::Held {
            lines: vec![],
            guest_ns: 0,
            dd: None,
        }
    }

    pub(super) fn dcss_ls(&self, gi: usize, path: &str, long: bool) -> Vec<String> {
        let g = &self.dcss.guests[gi];
        let rest = path[d::SYSFS.len()..].trim_start_matches('/');
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        let missing = || {
            vec![format!(
                "ls: cannot access {path}: No such file or directory"
            )]
        };
        if !g.loaded {
            return missing();
        }
        let stamp = {
            let m = self.m.now / crate::config::units::NS_PER_S / 60;
            format!("Jan  1 {:02}:{:02}", (m / 60) % 24, m % 60)
        };
        match parts.as_slice() {
            [] => {
                let mut l: Vec<String> = g.devices.iter().map(|x| x.name.clone()).collect();
                l.extend(["add".into(), "remove".into(), "uevent".into()]);
                l.sort();
                vec![l.join("  ")]
            }
            [dev] if g.devices.iter().any(|x| &x.name == dev) => {
                if !long {
                    return vec!["block  save  seglist  shared  uevent".into()];
                }
                vec![
                    "total 0".into(),
                    format!("drwxr-xr-x 3 root root    0 {stamp} block"),
                    format!("-rw------- 1 root root 4096 {stamp} save"),
                    format!("-r-------- 1 root root 4096 {stamp} seglist"),
                    format!("-rw------- 1 root root 4096 {stamp} shared"),
                    format!("-rw-r--r-- 1 root root 4096 {stamp} uevent"),
                ]
            }
            [dev, "block", b]
                if g.devices
                    .iter()
                    .any(|x| &x.name == dev && *b == format!("dcssblk{}", x.minor)) =>
            {
                vec![
                    "bdi         dev     holders  removable  size    stat       uevent".into(),
                    "capability  device  range    ro         slaves  subsystem".into(),
                ]
            }
            _ => missing(),
        }
    }

    /// Device `/dev/dcssblkN` (its index), if its node exists and it is added.
    fn dcss_node(&self, gi: usize, dev: &str) -> Option<usize> {
        let g = &self.dcss.guests[gi];
        let minor: u32 = dev.strip_prefix("/dev/dcssblk")?.parse().ok()?;
        if !g.nodes.contains(&minor) {
            return None;
        }
        g.devices.iter().position(|x| x.minor == minor)
    }

    /// The device's pages are read-only to this guest (a shared SR, ER or SC segment).
    pub(super) fn dcss_read_only(&self, gi: usize, k: usize) -> bool {
        let seg = &self.dcss.segments;
        self.dcss.guests[gi].devices[k].segs.iter().any(|u| {
            u.nonshared.is_none() && seg.by_id(u.file).is_some_and(|i| seg.files[i].read_only())
        })
    }

    /// Guest `gi` writes page `p` of device `k`: CP's work (and a nonshared copy's first
    /// reference) in ns.
    fn dcss_write_page(&mut self, gi: usize, k: usize, p: u64) -> u64 {
        let dev = &self.dcss.guests[gi].devices[k];
        let mut off = p;
        let Some(u) = dev.segs.iter().find(|u| {
            let hit = off < u.pages as u64;
            if !hit {
                off -= u.pages as u64;
            }
            hit
        }) else {
            return 0;
        };
        let seg = &self.dcss.segments;
        let Some(f) = seg.by_id(u.file).map(|i| &seg.files[i]) else {
            return 0;
        };
        let id = match (u.nonshared, f.shared) {
            (Some(s), _) | (None, Some(s)) => s,
            _ => return 0,
        };
        let page = off as u32;
        let abs = u.beg + page;
        let saved = f
            .ranges
            .iter()
            .any(|r| r.beg <= abs && abs <= r.end && r.ty.saved());
        let mut cp = CpWork::default();
        if u.nonshared.is_some() && saved && !self.m.storage.was_touched(id, page) {
            cp.ns += self.m.p.cp_nonshared_page.ns();
        }
        let sp = self.m.storage.space(id);
        if let Touch::OnDasd { group } = self.m.storage.touch(sp, page, Access::Write, &mut cp) {
            // Resolved in one step (see the module's note).
            self.m.storage.complete_pagein(group, &mut cp);
            self.m.storage.touch(sp, page, Access::Write, &mut cp);
        }
        cp.ns + cp.system_ns
    }

    pub(super) fn dcss_mke2fs(&mut self, gi: usize, dev: &str, b4096: bool) -> Out {
        let Some(k) = self.dcss_node(gi, dev) else {
            return Out::Now(vec![format!(
                "mke2fs: No such file or directory while trying to determine filesystem size"
            )]);
        };
        if self.dcss.guests[gi].devices[k].open > 0 {
            return Out::Now(vec![format!(
                "{dev} is mounted; will not make a filesystem here!"
            )]);
        }
        if self.dcss_read_only(gi, k) {
            return Out::Now(vec![
                "mke2fs: Read-only file system while setting up superblock".into(),
            ]);
        }
        let pages = self.dcss.guests[gi].devices[k].pages();
        if !b4096 && pages < 512 * 256 {
            return Out::Now(vec![format!(
                "not simulated by zvmsim: mke2fs {dev} (under 512 MB mke2fs makes 1 KB blocks; zvmsim's ext2 has 4 KB blocks: give -b 4096)"
            )]);
        }
        let mut cp_ns = 0;
        let mut p = 0;
        while p < pages {
            cp_ns += self.dcss_write_page(gi, k, p);
            p += EXT2_META_STRIDE;
        }
        let meta = pages.div_ceil(EXT2_META_STRIDE);
        let guest_ns = meta * self.m.p.linux_page_copy.ns();
        // The UUID's jitter on the mounts between checks: random in mke2fs, here drawn from
        // the run's seed, the guest and the device, so that runs repeat.
        let x = &mut self.dcss.guests[gi].devices[k];
        // Wrapping: a user's seed may be any u64 (the same values as before for the others).
        let seed = self.scenario.run.seed;
        let jitter = seed
            .wrapping_mul(31)
            .wrapping_add(gi as u64 * 7 + x.minor as u64)
            % 20;
        let Some(lines) = crate::linux::mke2fs::output(pages, jitter) else {
            return Out::Now(vec![format!(
                "{dev}: Not enough space to build proposed filesystem while setting up superblock"
            )]);
        };
        x.formatted = true;
        x.used = meta;
        self.start_timer(Purpose::Timer { guest: gi as u32 }, guest_ns + cp_ns);
        Out::Held {
            lines,
            guest_ns,
            dd: None,
        }
    }

    pub(super) fn dcss_mount(
        &mut self,
        gi: usize,
        dev: &str,
        dir: &str,
        (ro, xip): (bool, bool),
    ) -> Vec<String> {
        let Some(k) = self.dcss_node(gi, dev) else {
            return vec![format!("mount: special device {dev} does not exist")];
        };
        let g = &self.dcss.guests[gi];
        if g.mounts.iter().any(|m| m.0 == dir) {
            return vec![format!("mount: {dev} already mounted or {dir} busy")];
        }
        if !g.devices[k].formatted {
            // The file system another guest made in the same shared segments is in them.
            let Some(used) = self.shared_fs(gi, k) else {
                return vec![format!(
                    "mount: wrong fs type, bad option, bad superblock on {dev},"
                )];
            };
            let x = &mut self.dcss.guests[gi].devices[k];
            (x.formatted, x.used) = (true, used);
        }
        let mut out = vec![];
        let mut ro = ro;
        if !ro && self.dcss_read_only(gi, k) {
            out.push(format!(
                "mount: block device {dev} is write-protected, mounting read-only"
            ));
            ro = true;
        }
        let mount = self.device_mount(gi, k, xip);
        if ro {
            // A read-only mount is what a server reads its files from (linux/filemap.rs).
            self.m.guests[gi].dcss_mount = Some(mount.clone());
        }
        let g = &mut self.dcss.guests[gi];
        let minor = g.devices[k].minor;
        g.devices[k].open += 1;
        g.mounts.push((dir.to_string(), minor, ro));
        self.mount_db_files(gi, dir, mount);
        out
    }

    /// The segment copies device `k` of guest `gi` is made of, in device order.
    fn device_mount(&self, gi: usize, k: usize, xip: bool) -> crate::linux::filemap::DcssMount {
        let seg = &self.dcss.segments;
        let runs = self.dcss.guests[gi].devices[k]
            .segs
            .iter()
            .filter_map(|u| {
                let shared = seg.by_id(u.file).and_then(|i| seg.files[i].shared);
                u.nonshared.or(shared).map(|s| (s, u.pages))
            })
            .collect();
        crate::linux::filemap::DcssMount { runs, xip }
    }

    /// Device `k` of guest `gi` is made of shared copies of segments in which another guest's
    /// device over the same segments has an ext2: the pages it wrote (mke2fs, fills).
    fn shared_fs(&self, gi: usize, k: usize) -> Option<u64> {
        let files = |d: &super::dcss_linux::Device| -> Option<Vec<u32>> {
            d.segs
                .iter()
                .map(|u| u.nonshared.is_none().then_some(u.file))
                .collect()
        };
        let mine = files(&self.dcss.guests[gi].devices[k])?;
        // Saved from a device with an ext2: the segments' spool copies hold it.
        let saved = |f: &u32| self.dcss.saved_fs.iter().find(|s| s.0 == *f).map(|s| s.1);
        if let Some(used) = mine.iter().map(saved).collect::<Option<Vec<u64>>>() {
            return used.into_iter().max();
        }
        self.dcss
            .guests
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != gi)
            .flat_map(|(_, g)| &g.devices)
            .filter(|d| d.formatted && files(d).as_ref() == Some(&mine))
            .map(|d| d.used)
            .max()
    }

    pub(super) fn dcss_umount(&mut self, gi: usize, dir: &str) -> Out {
        let g = &mut self.dcss.guests[gi];
        let Some(m) = g.mounts.iter().position(|m| m.0 == dir) else {
            return Out::Now(vec![format!("umount: {dir}: not mounted")]);
        };
        let (_, minor, ro) = g.mounts.remove(m);
        if ro {
            self.m.guests[gi].dcss_mount = None;
        }
        self.umount_db_files(gi, dir);
        let g = &mut self.dcss.guests[gi];
        let Some(k) = g.devices.iter().position(|x| x.minor == minor) else {
            return Out::Now(vec![]);
        };
        g.devices[k].open -= 1;
        if g.devices[k].open == 0 && g.devices[k].save_pending {
            let name = g.devices[k].name.clone();
            g.log_name(
                "dcssblk",
                "Device %s has become idle and is being saved now\n",
                &name,
            );
            return self.dcss_save(gi, k);
        }
        Out::Now(vec![])
    }

    /// `dd` onto a device, or onto a file of a file system mounted from one (messages and
    /// statistics as coreutils 6.12 prints them, `linux/ddout.rs`). `bytes`: what count and bs
    /// ask for (None: until the target is full); `bs`: the block size, for the record counts.
    pub(super) fn dcss_fill(
        &mut self,
        gi: usize,
        target: &str,
        bytes: Option<u64>,
        bs: u64,
    ) -> Out {
        use crate::linux::ddout::{quote, DdEnd};
        let g = &self.dcss.guests[gi];
        let (k, ro) = if target.starts_with("/dev/dcssblk") {
            match self.dcss_node(gi, target) {
                Some(k) => (k, false),
                None => {
                    return Out::Now(vec![format!(
                        "dd: opening {}: No such file or directory",
                        quote(target)
                    )])
                }
            }
        } else {
            let Some(&(_, minor, ro)) = g
                .mounts
                .iter()
                .filter(|m| target.starts_with(&format!("{}/", m.0)))
                .max_by_key(|m| m.0.len())
            else {
                return Out::Now(vec![format!(
                    "not simulated by zvmsim: dd of={target} (not on a DCSS file system)"
                )]);
            };
            let k = g.devices.iter().position(|x| x.minor == minor).unwrap_or(0);
            (k, ro)
        };
        if ro {
            // open(O_CREAT|O_WRONLY) on a read-only mount.
            return Out::Now(vec![format!(
                "dd: opening {}: Read-only file system",
                quote(target)
            )]);
        }
        if self.dcss_read_only(gi, k) {
            // A read-only disk opens; its first write fails (blkdev_write_iter: EPERM).
            let end = DdEnd {
                rin: (1, 0),
                rout: (0, 0),
                bytes: 0,
            };
            self.start_timer(Purpose::Timer { guest: gi as u32 }, 0);
            return Out::Held {
                lines: vec![format!(
                    "dd: writing {}: Operation not permitted",
                    quote(target)
                )],
                guest_ns: 0,
                dd: Some(end),
            };
        }
        let dev = &self.dcss.guests[gi].devices[k];
        let free = dev.pages() - dev.used.min(dev.pages());
        let want = bytes.map_or(free, |b| b.div_ceil(4096));
        let n = want.min(free);
        let first = dev.used;
        let mut cp_ns = 0;
        for p in first..first + n {
            cp_ns += self.dcss_write_page(gi, k, p);
        }
        self.dcss.guests[gi].devices[k].used += n;
        // The source's page-cache copy read, then the copy into the device.
        let guest_ns = 2 * n * self.m.p.linux_page_copy.ns();
        let mut lines = Vec::new();
        let bs = bs.max(1);
        let end = match bytes {
            Some(b) if want <= free => {
                let r = (b / bs, u64::from(b % bs != 0));
                DdEnd {
                    rin: r,
                    rout: r,
                    bytes: b,
                }
            }
            // The write that found the device full fails whole: its record was read and
            // not written (dd.c: w_full counts only complete writes).
            _ => {
                lines.push(format!(
                    "dd: writing {}: No space left on device",
                    quote(target)
                ));
                let written = n * 4096;
                DdEnd {
                    rin: (written / bs + 1, 0),
                    rout: (written / bs, 0),
                    bytes: written,
                }
            }
        };
        self.start_timer(Purpose::Timer { guest: gi as u32 }, guest_ns + cp_ns);
        Out::Held {
            lines,
            guest_ns,
            dd: Some(end),
        }
    }
}
