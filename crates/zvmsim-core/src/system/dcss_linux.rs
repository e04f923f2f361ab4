//! Linux's side of saved segments in the running system: the dcssblk driver's devices in each
//! guest (extmem's loads through CP), ext2 on them, and the commands of `linux::dcssblk`.
//! Errors are the errno values and kernel messages of drivers/s390/block/dcssblk.c and
//! arch/s390/mm/extmem.c (../shared/reference/interfaces.md); a refused command changes
//! nothing. Filling a device runs as one step whose time is the guest's copy of each page
//! plus CP's faults for it (a nonshared copy's page costs `cp_nonshared_page`); the
//! guest's virtual CPU is not dispatched meanwhile (a simplification: the studies fill idle
//! guests).

use crate::config::units::NS_PER_S;
use crate::cp::segments::NssFile;
use crate::cp::spool::Purpose;
use crate::cp::storage::{Owner, Space, SpaceId, SpaceSpec};
use crate::engine::rng::Stream;
use crate::linux::dcssblk::{self as d, DcssCommand};
use crate::linux::kmsg::{Arg, Kmsg, Style};

use super::dcss::Running;
use super::Simulation;

/// One segment of a device, and the copy this guest uses.
#[derive(Debug, Clone)]
pub(super) struct SegUse {
    pub file: u32,
    pub name: String,
    /// First page (MB-rounded) and pages of its extent.
    pub beg: u32,
    pub pages: u32,
    /// The guest's own copy (exclusive types, or `shared` set to 0).
    pub nonshared: Option<SpaceId>,
}

#[derive(Debug, Clone)]
pub(super) struct Device {
    pub name: String,
    pub minor: u32,
    /// In address order (the device's pages), and the names as typed (`seglist`).
    pub segs: Vec<SegUse>,
    pub seglist: Vec<String>,
    pub shared: bool,
    pub save_pending: bool,
    /// Openers (mounts).
    pub open: u32,
    pub formatted: bool,
    /// Pages of the device written so far by mke2fs and fills.
    pub used: u64,
}

impl Device {
    pub(super) fn pages(&self) -> u64 {
        self.segs.iter().map(|s| s.pages as u64).sum()
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct GuestDcss {
    pub loaded: bool,
    pub nodes: Vec<u32>,
    pub devices: Vec<Device>,
    /// Mount point -> (device minor, read-only).
    pub mounts: Vec<(String, u32, bool)>,
    /// Highest page the kernel maps (mem=, else the guest's storage), and the storage size.
    pub limit: u64,
    pub storage: u64,
    pub dmesg: Vec<String>,
    /// How its kernel prints messages (`linux/kmsg.rs`).
    pub kmsg: Style,
}

impl GuestDcss {
    /// A guest of `spec` as it boots; `key` draws its kernel's boot key for `%p`.
    pub(super) fn new(spec: &crate::config::scenario::GuestSpec, mut key: Stream) -> Self {
        let storage = spec.storage.pages();
        let key = (key.next_u64(), key.next_u64());
        GuestDcss {
            kmsg: Style::of(spec.linux.userland(), key),
            limit: crate::linux::cmdline::mem_pages(&spec.linux.parameters)
                .unwrap_or(storage)
                .max(storage),
            storage,
            ..Default::default()
        }
    }

    /// The kernel logs `m`.
    pub(super) fn log(&mut self, m: Kmsg) {
        self.dmesg.push(m.line(&self.kmsg));
    }

    /// The kernel logs `component`'s message `fmt`, whose one argument is the name `s`.
    pub(super) fn log_name(&mut self, component: &'static str, fmt: &'static str, s: &str) {
        self.log(Kmsg::new(component, fmt, vec![Arg::Str(s.to_string())]));
    }
}

/// bash's `time` lines.
pub(super) fn time_lines(real_ns: u64, sys_ns: u64) -> Vec<String> {
    let f = |ns: u64| {
        let s = ns as f64 / NS_PER_S as f64;
        format!("{}m{:.3}s", (s / 60.0).floor(), s % 60.0)
    };
    vec![
        format!("real\t{}", f(real_ns)),
        "user\t0m0.000s".into(),
        format!("sys\t{}", f(sys_ns)),
    ]
}

pub(super) enum Out {
    Now(Vec<String>),
    /// The command holds the console until its transfer or timer ends.
    Held {
        lines: Vec<String>,
        guest_ns: u64,
        /// A dd: what it prints when it ends.
        dd: Option<crate::linux::ddout::DdEnd>,
    },
}

impl Simulation {
    /// Guest `gi`'s dcssblk command waits while CP reads the segment copies of `load` from
    /// spool; with none to read, it is answered at once.
    pub(super) fn load_segments(
        &mut self,
        gi: usize,
        load: Vec<(Space, u32, u32)>,
    ) -> Result<Out, i32> {
        if load.is_empty() {
            return Ok(Out::Now(vec![]));
        }
        let pages = load.iter().map(|l| l.2 as u64).sum();
        self.start_transfer(Purpose::Add { guest: gi as u32 }, false, pages, load);
        Ok(Out::Held {
            lines: vec![],
            guest_ns: 0,
            dd: None,
        })
    }

    /// Segment file `i`'s shared copy, created by its first user; its first load queues the
    /// saved page ranges to be read from spool into `load`.
    pub(super) fn shared_copy(&mut self, i: usize, u: &SegUse, load: &mut Vec<(Space, u32, u32)>) {
        let f = &mut self.dcss.segments.files[i];
        let s = match f.shared {
            Some(s) => s,
            None => {
                let spec = SpaceSpec {
                    owner: Owner::Segment(f.id),
                    pages: u.pages,
                };
                let s = self.m.storage.add_space(spec, f.read_only());
                f.shared = Some(s);
                s
            }
        };
        if !f.loaded {
            f.loaded = true;
            let sp = self.m.storage.space(s);
            for r in f.ranges.iter().filter(|r| r.ty.saved()) {
                load.push((sp, r.beg - u.beg, r.pages()));
            }
        }
    }

    /// A dcssblk command in guest `gi`: its lines, or None while it runs on.
    pub(super) fn dcss_command(
        &mut self,
        gi: usize,
        c: &DcssCommand,
        typed: &str,
    ) -> Option<Vec<String>> {
        let (c, timed) = match c {
            DcssCommand::Time(inner) => (inner.as_ref(), true),
            c => (c, false),
        };
        match self.dcss_exec(gi, c) {
            Out::Now(mut l) => {
                if timed {
                    l.extend(time_lines(0, 0));
                }
                Some(l)
            }
            Out::Held {
                lines,
                guest_ns,
                dd,
            } => {
                self.hold_console(Running {
                    user: self.m.guests[gi].name.clone(),
                    command: typed.to_string(),
                    started: self.m.now,
                    timed,
                    guest_ns,
                    lines,
                    dd,
                });
                None
            }
        }
    }

    fn dcss_exec(&mut self, gi: usize, c: &DcssCommand) -> Out {
        let g = &mut self.dcss.guests[gi];
        let sysfs_missing =
            |p: &str| Out::Now(vec![format!("-bash: {p}: No such file or directory")]);
        match c {
            DcssCommand::Modprobe => {
                g.loaded = true;
                Out::Now(vec![])
            }
            DcssCommand::ProcDevices => {
                let mut l = vec!["Block devices:".to_string(), " 94 dasd".to_string()];
                if g.loaded {
                    l.push(format!("{} dcssblk", d::MAJOR));
                }
                Out::Now(l)
            }
            DcssCommand::Dmesg => Out::Now(g.dmesg.clone()),
            DcssCommand::Mknod { minor, major } => {
                if g.nodes.contains(minor) {
                    return Out::Now(vec![format!("mknod: `/dev/dcssblk{minor}': File exists")]);
                }
                if *major == d::MAJOR {
                    g.nodes.push(*minor);
                }
                Out::Now(vec![])
            }
            DcssCommand::Add(text) if g.loaded => match self.dcss_add(gi, text) {
                Ok(o) => o,
                Err(e) => Out::Now(vec![d::write_error(e)]),
            },
            DcssCommand::Remove(text) if g.loaded => Out::Now(match self.dcss_remove(gi, text) {
                Ok(()) => vec![],
                Err(e) => vec![d::write_error(e)],
            }),
            DcssCommand::Add(_) => sysfs_missing(&format!("{}/add", d::SYSFS)),
            DcssCommand::Remove(_) => sysfs_missing(&format!("{}/remove", d::SYSFS)),
            DcssCommand::Write { dev, attr, value } => {
                let Some(k) = g.devices.iter().position(|x| &x.name == dev) else {
                    return sysfs_missing(&format!("{}/{dev}/{attr}", d::SYSFS));
                };
                let r = match attr.as_str() {
                    "shared" => self.dcss_set_shared(gi, k, value.trim()),
                    "save" => self.dcss_set_save(gi, k, value.trim()),
                    // Mode 0400, no store: kernfs refuses to open it for writing (EACCES).
                    "seglist" => {
                        let p = format!("{}/{dev}/{attr}", d::SYSFS);
                        return Out::Now(vec![format!("-bash: {p}: Permission denied")]);
                    }
                    _ => Err(d::EINVAL),
                };
                match r {
                    Ok(o) => o,
                    Err(e) => Out::Now(vec![d::write_error(e)]),
                }
            }
            DcssCommand::Read { dev, attr } => {
                let Some(x) = g.devices.iter().find(|x| &x.name == dev) else {
                    return Out::Now(vec![format!(
                        "cat: {}/{dev}/{attr}: No such file or directory",
                        d::SYSFS
                    )]);
                };
                Out::Now(match attr.as_str() {
                    "shared" => vec![(x.shared as u8).to_string()],
                    "save" => vec![(x.save_pending as u8).to_string()],
                    "seglist" => x.seglist.clone(),
                    _ => vec![format!(
                        "not simulated by zvmsim: cat {}/{dev}/{attr}",
                        d::SYSFS
                    )],
                })
            }
            DcssCommand::Ls { path, long } => Out::Now(self.dcss_ls(gi, path, *long)),
            DcssCommand::Mke2fs { dev, b4096 } => self.dcss_mke2fs(gi, dev, *b4096),
            DcssCommand::Mount { dev, dir, xip, ro } => {
                Out::Now(self.dcss_mount(gi, dev, dir, (*ro, *xip)))
            }
            DcssCommand::Umount { dir } => self.dcss_umount(gi, dir),
            DcssCommand::Fill { target, bytes, bs } => self.dcss_fill(gi, target, *bytes, *bs),
            DcssCommand::Time(inner) => self.dcss_exec(gi, inner),
        }
    }

    fn log(&mut self, gi: usize, fmt: &'static str, args: Vec<Arg>) {
        self.dcss.guests[gi].log(Kmsg::new("extmem", fmt, args));
    }

    /// dcssblk's add (4.18 dcssblk.c, `dcssblk_add_store`): each named segment is queried and
    /// loaded in the order typed (extmem.c, `segment_load`), then the list, sorted by address,
    /// must be contiguous and of compatible types. Each refusal logs the kernel's lines.
    fn dcss_add(&mut self, gi: usize, text: &str) -> Result<Out, i32> {
        let names = d::segment_names(text)?;
        let g = &self.dcss.guests[gi];
        let seg = &self.dcss.segments;
        let mut uses: Vec<(usize, SegUse)> = Vec::new();
        for n in &names {
            if g.devices
                .iter()
                .any(|x| x.segs.iter().any(|s| &s.name == n))
            {
                return Err(d::EEXIST);
            }
            // DIAGNOSE X'64' FINDSEG: return code 44, no such segment.
            let Some(i) = seg.active(n) else {
                self.log(
                    gi,
                    "Querying a DCSS type failed with rc=%ld\n",
                    vec![Arg::Int(44)],
                );
                let n = vec![Arg::Str(n.clone())];
                self.log(gi, "DCSS %s cannot be loaded or queried\n", n);
                return Err(d::ENOENT);
            };
            let f = &seg.files[i];
            // More than one range: at most 6, contiguous, all EW or EN.
            let contiguous = f.ranges.windows(2).all(|w| w[0].end + 1 == w[1].beg);
            if f.load_type().is_none() || f.ranges.len() > 6 || !contiguous {
                let m = "DCSS %s has multiple page ranges and cannot be loaded or queried\n";
                self.log(gi, m, vec![Arg::Str(n.clone())]);
                return Err(d::EOPNOTSUPP);
            }
            let (beg, pages) = f.extent();
            // Another loaded DCSS in the same megabytes (`segment_overlaps_others`).
            let mb = |b: u32, p: u32| (b >> 8, (b + p - 1) >> 8);
            let (lo, hi) = mb(beg, pages);
            let overlaps = |b: u32, p: u32| {
                let (l, h) = mb(b, p);
                l <= hi && lo <= h
            };
            let busy = g
                .devices
                .iter()
                .flat_map(|x| &x.segs)
                .any(|s| overlaps(s.beg, s.pages))
                || uses.iter().any(|(_, s)| overlaps(s.beg, s.pages));
            if busy {
                let m = "%s needs used memory resources and cannot be loaded or queried\n";
                self.log(gi, m, vec![Arg::Str(n.clone())]);
                return Err(d::EBUSY);
            }
            // The kernel's mapping of the range (vmem.c, `insert_memory_segment`).
            if (beg + pages) as u64 > g.limit {
                let m = "DCSS %s exceeds the kernel mapping range (%lu) and cannot be loaded\n";
                let args = vec![Arg::Str(n.clone()), Arg::Uint(g.limit * 4096)];
                self.log(gi, m, args);
                return Err(d::ERANGE);
            }
            if (beg as u64) < g.storage {
                let m = "DCSS %s overlaps with used storage and cannot be loaded\n";
                self.log(gi, m, vec![Arg::Str(n.clone())]);
                return Err(d::ENOSPC);
            }
            uses.push((
                i,
                SegUse {
                    file: f.id,
                    name: n.clone(),
                    beg,
                    pages,
                    nonshared: None,
                },
            ));
        }
        // The device maps the segments in address order (`dcssblk_is_continuous`): EN and EW
        // may be mixed, other types only with their own kind, ER with nothing else.
        uses.sort_by_key(|(_, u)| u.beg);
        for w in uses.windows(2) {
            let ((pi, p), (ci, c)) = (&w[0], &w[1]);
            if p.beg + p.pages != c.beg {
                let m = Kmsg::new(
                    "dcssblk",
                    "Adjacent DCSSs %s and %s are not contiguous\n",
                    vec![Arg::Str(p.name.clone()), Arg::Str(c.name.clone())],
                );
                self.dcss.guests[gi].log(m);
                return Err(d::EINVAL);
            }
            let (pf, cf) = (&seg.files[*pi], &seg.files[*ci]);
            let ty = |f: &NssFile| f.load_type();
            let exclusive = |f: &NssFile| f.exclusive() && ty(f) != Some("ER");
            if ty(pf) != ty(cf) && !(exclusive(pf) && exclusive(cf)) {
                let m = Kmsg::new(
                    "dcssblk",
                    "DCSS %s and DCSS %s have incompatible types\n",
                    vec![Arg::Str(p.name.clone()), Arg::Str(c.name.clone())],
                );
                self.dcss.guests[gi].log(m);
                return Err(d::EINVAL);
            }
        }
        // CP loads each segment: a nonshared copy, or the shared one (read from spool by
        // its first load).
        let mut load = Vec::new();
        let mut loaded = Vec::new();
        for (i, u) in uses.iter_mut() {
            let f = &mut self.dcss.segments.files[*i];
            let ty = f.load_type().unwrap_or("SN");
            let spec = |owner| SpaceSpec {
                owner,
                pages: u.pages,
            };
            if f.exclusive() {
                let owner = Owner::Nonshared {
                    guest: gi as u32,
                    segment: f.id,
                };
                u.nonshared = Some(self.m.storage.add_space(spec(owner), false));
            } else {
                self.shared_copy(*i, u, &mut load);
            }
            let f = &mut self.dcss.segments.files[*i];
            f.users.push(gi as u32);
            // dcssblk loads every segment with LOADSHR (SEGMENT_SHARED), whatever its type;
            // CP gives an exclusive type a copy of the user's own all the same.
            let m = Kmsg::new(
                "extmem",
                "DCSS %s of range %p to %p and type %s loaded in shared access mode\n",
                vec![
                    Arg::Str(u.name.clone()),
                    Arg::Ptr(u.beg as u64 * 4096),
                    Arg::Ptr((u.beg + u.pages) as u64 * 4096 - 1),
                    Arg::Str(ty.to_string()),
                ],
            );
            loaded.push((u.name.clone(), m));
        }
        // The kernel loads (and logs) them in the order typed, then the device.
        for n in &names {
            if let Some((_, m)) = loaded.iter().find(|(x, _)| x == n) {
                self.dcss.guests[gi].log(m.clone());
            }
        }
        let bytes: u64 = uses.iter().map(|(_, u)| u.pages as u64 * 4096).sum();
        let m = Kmsg::new(
            "dcssblk",
            "Loaded %s with total size %lu bytes and capacity %lu sectors\n",
            vec![
                Arg::Str(text.trim_end_matches('\n').to_string()),
                Arg::Uint(bytes),
                Arg::Uint(bytes >> 9),
            ],
        );
        self.dcss.guests[gi].log(m);
        let g = &mut self.dcss.guests[gi];
        let minor = (0..)
            .find(|m| !g.devices.iter().any(|x| x.minor == *m))
            .unwrap_or(0);
        g.devices.push(Device {
            name: names[0].clone(),
            minor,
            segs: uses.into_iter().map(|(_, u)| u).collect(),
            seglist: names.clone(),
            // `is_shared` is 1 after every add.
            shared: true,
            save_pending: false,
            open: 0,
            formatted: false,
            used: 0,
        });
        self.load_segments(gi, load)
    }

    /// Guest `gi` gives up its use of the segments of device `k`'s list from `segs`.
    pub(super) fn release_segs(&mut self, gi: usize, segs: &[SegUse]) {
        for u in segs {
            if let Some(s) = u.nonshared {
                self.m.storage.discard_space(s);
            }
            if let Some(i) = self.dcss.segments.by_id(u.file) {
                if let Some(s) = self.dcss.segments.release(i, gi as u32) {
                    self.m.storage.discard_space(s);
                }
            }
        }
    }

    fn dcss_remove(&mut self, gi: usize, text: &str) -> Result<(), i32> {
        let names = d::segment_names(text)?;
        let g = &self.dcss.guests[gi];
        let Some(k) = g.devices.iter().position(|x| x.name == names[0]) else {
            return Err(d::ENODEV);
        };
        if g.devices[k].open > 0 {
            return Err(d::EBUSY);
        }
        let dev = self.dcss.guests[gi].devices.remove(k);
        self.release_segs(gi, &dev.segs);
        Ok(())
    }
}
