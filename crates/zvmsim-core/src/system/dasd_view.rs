//! What a guest's DASD commands print (`lsdasd`, `/proc/dasd/devices`, `iostat -x`): its
//! DASD driver's online devices, their UIDs from the real devices behind them, and the block
//! counters of the current monitor interval.

use crate::io::{SubKind, NONE};
use crate::linux::commands::dasdstat::{self, Dasdstat, StatAction};
use crate::linux::commands::tunedasd::{disk_of, Tune};
use crate::linux::commands::{dasd_respond, DasdQuery, DasdRow};
use crate::linux::dasd::{BlockStats, DevPath};
use crate::linux::shell::{no_such_file, ECHO_EINVAL};

use super::Simulation;

/// The storage server's serial in the UIDs: the scenarios do not give one (inference, in
/// the DS8000 form "75" and 12 digits).
const SERIAL: &str = "75000000000001";

impl Simulation {
    /// A DASD command typed in guest `gi`: what it prints.
    pub(super) fn dasd_query(&mut self, gi: usize, q: &DasdQuery) -> Vec<String> {
        if let DasdQuery::Statistics { write } = q {
            let p = &mut self.m.guests[gi].dasd.profile;
            return match write {
                None => p.render(),
                Some(text) if p.write(text) => vec![],
                Some(_) => vec![ECHO_EINVAL.into()],
            };
        }
        if let DasdQuery::Tunedasd { tune, devices } = q {
            return self.tunedasd(gi, tune, devices);
        }
        if let DasdQuery::Debugfs { dir, file, write } = q {
            return self.dasd_debugfs(gi, dir, file, write.as_deref());
        }
        if let DasdQuery::Dasdstat(d) = q {
            return self.dasdstat(gi, d);
        }
        if let DasdQuery::Sysfs { bus, attr, write } = q {
            if let Some(r) = self.ccw_online(gi, bus, attr, write.as_deref()) {
                return r;
            }
        }
        if matches!(q, DasdQuery::ProcDevices) && self.m.guests[gi].userland.kernel24() {
            return self.proc_dasd_devices_24(gi);
        }
        let now = self.m.now;
        let start = self.mon.start.min(now);
        let mut out = dasd_respond(q, &self.dasd_rows(gi, now, None), now - start);
        if let DasdQuery::Lsdasd { all: true, .. } = q {
            // The offline devices (freed from the blacklist and not set online, or set
            // offline) come first.
            let offline = self.online_and_offline(gi).1;
            let at = out.len().min(2);
            out.splice(at..at, crate::linux::commands::offline_lines(offline));
        }
        out
    }

    /// `tunedasd -g`, `-c`, `-P [-I ITEM]` or `-R`: each device in turn (tunedasd/src/disk.c,
    /// 2.9.0). A node that is not an online DASD fails to open (`Error: <node> - ...`); the
    /// profile ioctl (BIODASDPRRD) fails with EIO while the driver's profile is off. The cache
    /// attribute set is what the device's channel programs' Define Extent then carries (its
    /// prestage cylinders widen their extents, `io/extent.rs`); the storage server's cache
    /// does not act on the caching mode itself (as for `dasd_cache` in the scenario).
    fn tunedasd(&mut self, gi: usize, tune: &Tune, devices: &[String]) -> Vec<String> {
        let d = &mut self.m.guests[gi].dasd;
        let on = d.profile.on;
        let mut out = Vec::new();
        for node in devices {
            let dev = disk_of(node)
                .and_then(|disk| d.devs.iter_mut().find(|x| x.name.as_deref() == Some(disk)));
            if let Tune::SetCache(c) = tune {
                // disk_set_cache warns before it opens the device.
                if c.cylinders > 40 {
                    out.push(format!(
                        "WARNING: This is a very large number of cylinders ;) {}",
                        c.cylinders
                    ));
                }
            }
            let Some(x) = dev else {
                out.push(format!("Error: <{node}> - No such file or directory"));
                continue;
            };
            match tune {
                Tune::GetCache => out.push(format!(
                    "{} ({} cyl)",
                    crate::linux::commands::tunedasd::mode_name(x.cache.mode),
                    x.cache.cylinders
                )),
                Tune::SetCache(c) => {
                    out.push(format!("Setting cache mode for device <{node}>..."));
                    x.cache = *c;
                    out.push("Done.".into());
                }
                Tune::Reset => {
                    out.push(format!("Resetting profile info for device <{node}>..."));
                    x.profile.reset();
                    out.push("Done.".into());
                }
                Tune::Profile { .. } if !on => out.push(format!(
                    "Error: Profiling (on device <{node}>) is not active."
                )),
                Tune::Profile { item: None } => out.extend(x.profile.tunedasd_summary()),
                Tune::Profile { item: Some(i) } => out.extend(x.profile.tunedasd_item(i)),
            }
        }
        out
    }

    /// Each device's block counters now: the marks an `iostat` interval report counts from.
    pub(super) fn dasd_counters(&self, gi: usize) -> Vec<BlockStats> {
        let now = self.m.now;
        let devs = &self.m.guests[gi].dasd.devs;
        devs.iter()
            .map(|d| {
                let mut c = d.block;
                c.tick(now);
                c
            })
            .collect()
    }

    /// `q` (an iostat) over the time since `at`, counted from each device's `marks`.
    pub(super) fn iostat_since(
        &self,
        gi: usize,
        q: &DasdQuery,
        marks: &[BlockStats],
        at: u64,
    ) -> Vec<String> {
        let now = self.m.now;
        dasd_respond(q, &self.dasd_rows(gi, now, Some(marks)), now - at)
    }

    /// The online devices' rows, their counters since the monitor interval's marks (or
    /// since `marks`, by device index).
    fn dasd_rows(&self, gi: usize, now: u64, marks: Option<&[BlockStats]>) -> Vec<DasdRow> {
        let d = &self.m.guests[gi].dasd;
        let io = &self.m.io;
        let mut index = 0;
        d.devs
            .iter()
            .enumerate()
            .filter(|(_, dev)| !dev.offline)
            .map(|(k, dev)| {
                let (sub, alias) = match dev.path {
                    DevPath::Dedicated { sub } => (sub, io.sub(sub).is_alias()),
                    DevPath::Minidisk { base, .. } => (base, false),
                    DevPath::VirtualAlias { base } => (base, true),
                };
                let s = io.sub(sub);
                // The uid attribute: vendor.serial.ssid.unit address; a HyperPAV alias has
                // "xx", a static PAV alias its base's unit address (dasd_eckd.c).
                let unit = match (dev.path, s.kind) {
                    (DevPath::VirtualAlias { .. }, _) | (_, SubKind::HyperPavAlias) => {
                        "xx".to_string()
                    }
                    (_, SubKind::PavAlias { base }) => format!("{:02x}", io.sub(base).rdev & 0xff),
                    _ => format!("{:02x}", s.rdev & 0xff),
                };
                let ssid = if s.lcu == NONE || s.lcu == crate::io::FCP {
                    dev.ssid
                } else {
                    io.lcus()[s.lcu as usize].ssid
                };
                let mut cur = dev.block;
                cur.tick(now);
                let m = marks.and_then(|ms| ms.get(k).copied()).unwrap_or(dev.mark);
                let row = DasdRow {
                    vdev: dev.vdev,
                    name: dev.name.clone().filter(|_| !alias),
                    index,
                    blocks: dev.blocks,
                    uid: format!("IBM.{SERIAL}.{ssid:04x}.{unit}"),
                    reads: cur.reads - m.reads,
                    writes: cur.writes - m.writes,
                    read_sectors: cur.read_sectors - m.read_sectors,
                    write_sectors: cur.write_sectors - m.write_sectors,
                    read_ticks_ns: cur.read_ticks_ns - m.read_ticks_ns,
                    write_ticks_ns: cur.write_ticks_ns - m.write_ticks_ns,
                    queue_ns: cur.queue_ns - m.queue_ns,
                    busy_ns: cur.busy_ns - m.busy_ns,
                };
                if row.name.is_some() {
                    index += 1;
                }
                row
            })
            .collect()
    }

    /// A monitor interval starts: the marks `iostat -x` counts from.
    pub(super) fn mark_dasd(&mut self) {
        let now = self.m.now;
        for g in &mut self.m.guests {
            g.dasd.mark(now);
        }
    }
}

impl Simulation {
    /// A file of the DASD driver's debugfs directory in guest `gi` (`linux/dasdstats.rs`):
    /// `statistics` of `global`, of a block device or of a ccw device by bus ID.
    fn dasd_debugfs(
        &mut self,
        gi: usize,
        dir: &str,
        file: &str,
        write: Option<&str>,
    ) -> Vec<String> {
        let path = format!("/sys/kernel/debug/dasd/{dir}/{file}");
        let missing = || vec![no_such_file(&path, write.is_some())];
        let epoch = crate::cp::commands::ipl_unix_s(self.scenario.lpar.zvm_level.as_str());
        let now = self.m.now;
        let d = &mut self.m.guests[gi].dasd;
        // Which profile: (device index, block profile?); None: the global one.
        let target = match dir {
            "global" => None,
            _ => {
                // An offline device has no directory (dasd_profile_exit removed it).
                let i = d.devs.iter().position(|x| {
                    !x.offline
                        && (x.name.as_deref() == Some(dir) || format!("0.0.{:04x}", x.vdev) == dir)
                });
                match i {
                    Some(i) => Some((i as u32, d.devs[i].name.as_deref() == Some(dir))),
                    None => return missing(),
                }
            }
        };
        match (file, target) {
            ("statistics", _) => {}
            // The ECKD discipline's path-group list of a bus-ID directory.
            ("host_access_list", Some((_, false))) => {
                return vec![format!(
                    "not simulated by zvmsim: {}",
                    match write {
                        Some(w) => format!("echo {w} > {path}"),
                        None => format!("cat {path}"),
                    }
                )]
            }
            _ => return missing(),
        }
        let p = match target {
            None => &mut d.debugfs.global,
            Some((i, block)) => d.debugfs.profile(i, block),
        };
        let out = match write {
            None => p.render(epoch),
            Some(w) if p.write(w, now) => vec![],
            Some(_) => vec![ECHO_EINVAL.into()],
        };
        d.debug_on = d.debugfs.any_on();
        out
    }

    /// s390-tools' `dasdstat` in guest `gi` (zconf/dasdstat, v2.9.0): the statistics named,
    /// or every directory of /sys/kernel/debug/dasd in `ls` order, each switched or printed
    /// through its file.
    fn dasdstat(&mut self, gi: usize, d: &Dasdstat) -> Vec<String> {
        match d.action {
            StatAction::Help => return dasdstat::usage(),
            StatAction::Version => return dasdstat::version(),
            _ => {}
        }
        let dasd = &self.m.guests[gi].dasd;
        let mut dirs: Vec<String> = dasd
            .devs
            .iter()
            .filter(|x| !x.offline)
            .map(|x| format!("0.0.{:04x}", x.vdev))
            .chain(dasd.devs.iter().filter_map(|x| x.name.clone()))
            .chain(["global".to_string()])
            .collect();
        dirs.sort();
        let mut out = Vec::new();
        if d.verbose {
            out.push("found debugfs mount point /sys/kernel/debug".into());
        }
        let stats: Vec<String> = if d.stats.is_empty() {
            dirs
        } else {
            let (found, missing): (Vec<&String>, Vec<&String>) =
                d.stats.iter().partition(|f| dirs.contains(f));
            out.extend(
                missing
                    .iter()
                    .map(|f| format!("dasdstat: No statistics found for {f}")),
            );
            found.into_iter().cloned().collect()
        };
        if d.verbose {
            out.push(format!(
                "found the following statistics in directory {}:",
                dasdstat::DIR
            ));
            out.push(stats.iter().map(|f| format!(" {f}")).collect());
        }
        for f in &stats {
            let path = format!("{}/{f}/statistics", dasdstat::DIR);
            let (word, verb) = match d.action {
                StatAction::Enable => ("on", "enable"),
                StatAction::Disable => ("off", "disable"),
                StatAction::Reset => ("reset", "reset"),
                _ => {
                    let lines = self.dasd_debugfs(gi, f, "statistics", None);
                    match dasdstat::table(f, &lines, d) {
                        Some(t) => out.extend(t),
                        None if d.verbose => out.extend([
                            "-".repeat(80),
                            format!("statistics \"{f}\" are disabled"),
                            "-".repeat(80),
                            String::new(),
                        ]),
                        None => {}
                    }
                    continue;
                }
            };
            self.dasd_debugfs(gi, f, "statistics", Some(word));
            out.push(format!("{verb} statistic \"{path}\""));
        }
        out
    }

    /// The `online` attribute where it differs from an online device's answer on SLES
    /// (ccwsysfs.rs): an offline device reads 0 and goes online when 1 (or `force`) is
    /// written; kernel 4.18 refuses to set an online device online again (RHEL 8: EINVAL,
    /// drivers/s390/cio/device.c online_store). None: ccwsysfs.rs answers.
    fn ccw_online(
        &mut self,
        gi: usize,
        bus: &str,
        attr: &str,
        write: Option<&str>,
    ) -> Option<Vec<String>> {
        let v = bus.strip_prefix("0.0.").filter(|h| h.len() == 4)?;
        let v = u16::from_str_radix(v, 16).ok()?;
        if attr != "online" {
            return None;
        }
        let offline = self.is_offline(gi, v);
        let rhel = self.m.guests[gi].userland == crate::linux::distro::Userland::Rhel8;
        let einval = || vec![ECHO_EINVAL.to_string()];
        // kstrtoul(buf, 16): an optional 0x, hex digits; `force` sets online.
        let value = write.map(|w| match w {
            "force" => Some(1),
            w => u64::from_str_radix(w.strip_prefix("0x").unwrap_or(w), 16).ok(),
        });
        match (value, offline) {
            (None, true) => Some(vec!["0".into()]),
            (Some(Some(1)), true) => {
                self.set_online(gi, v);
                Some(vec![])
            }
            (Some(Some(0)), true) if rhel => Some(einval()),
            (Some(Some(0)), true) => Some(vec![]),
            (Some(_), true) => Some(einval()),
            (Some(Some(1)), false) if rhel && self.m.guests[gi].dasd.by_vdev(v).is_some() => {
                Some(einval())
            }
            // An online alias goes offline (a base: ccwsysfs.rs answers not simulated).
            (Some(Some(0)), false) => self.set_offline(gi, v).map(|_| vec![]),
            _ => None,
        }
    }
}
