//! Linux's common I/O layer for the guest's DASD: the device blacklist (`cio_ignore=` on the
//! boot line, `/proc/cio_ignore`) and the devices it hides. A device on the blacklist is not
//! known to Linux: no ccw device, no block device, no alias the DASD driver could use, until it
//! is freed and set online (`chzdev -e` does both, `linux/commands/zdev.rs`).
//!
//! Facts from drivers/s390/cio/blacklist.c (kernels 3.x to 4.18): the value is a comma list
//! handled in order; `!` before an item frees instead of adds; `all` is every device of every
//! subchannel set; `condev` the console device; `ipldev` the device the guest was IPLed from;
//! a device is a hex device number up to ffff (old style, subchannel set 0) or `c.s.dddd`
//! (1-2 hex digits, one digit up to 3, exactly four digits); `a-b` a range. A bad item is
//! skipped with `<item> is not a valid device for the cio_ignore kernel parameter`, a
//! reversed range with `0.s.dddd to 0.s.dddd is not a valid range for cio_ignore` (kernel
//! messages of component cio, `linux/kmsg.rs`).
//! `/proc/cio_ignore` lists the ranges per subchannel set, `0.s.dddd-0.s.dddd` or `0.s.dddd`.
//!
//! zvmsim's guests use subchannel set 0 only. The console of a z/VM guest is its virtual
//! 3215 at 0009 (the user directory's CONSOLE 0009 of IBM's Linux examples; inference, the
//! scenario names no console); `ipldev` is skipped, as zvmsim does not know which device a
//! guest was IPLed from.

use crate::linux::cmdline::Param;
use crate::linux::dasd::DevPath;
use crate::linux::kmsg::{Arg, Kmsg};

/// Device numbers per subchannel set, and the sets (__MAX_SSID 3).
const PER_SET: u32 = 0x1_0000;
const SETS: u32 = 4;
/// The console device number of a z/VM guest (inference, see the module comment).
pub const CONSOLE: u16 = 0x0009;

/// The blacklist: ranges of ssid * 65536 + devno, sorted and disjoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blacklist {
    ranges: Vec<(u32, u32)>,
}

impl Blacklist {
    /// Whether Linux ignores device `devno` of subchannel set 0.
    pub fn ignored(&self, devno: u16) -> bool {
        let d = devno as u32;
        self.ranges.iter().any(|&(lo, hi)| lo <= d && d <= hi)
    }

    /// Adds or frees `lo..=hi`.
    pub fn set(&mut self, lo: u32, hi: u32, ignore: bool) {
        let mut out = Vec::with_capacity(self.ranges.len() + 2);
        for &(a, b) in &self.ranges {
            if b < lo || a > hi {
                out.push((a, b));
                continue;
            }
            // Overlap: keep what lies outside lo..=hi.
            if a < lo {
                out.push((a, lo - 1));
            }
            if b > hi {
                out.push((hi + 1, b));
            }
        }
        if ignore {
            out.push((lo, hi));
        }
        out.sort_unstable();
        // Merge touching ranges, so that the listing prints one line per run.
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(out.len());
        for (a, b) in out {
            match merged.last_mut() {
                Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.ranges = merged;
    }

    /// Handles one `cio_ignore=` value (`add` false: `free` of /proc/cio_ignore); returns the
    /// kernel's warnings for the items it skipped.
    pub fn apply(&mut self, value: &str, add: bool) -> Vec<Kmsg> {
        let mut warnings = Vec::new();
        for item in value.split(',') {
            let (ignore, item) = match item.strip_prefix('!') {
                Some(rest) => (!add, rest),
                None => (add, item),
            };
            let range = match item {
                "all" => Some((0, PER_SET * SETS - 1)),
                "condev" => Some((CONSOLE as u32, CONSOLE as u32)),
                "ipldev" => None,
                _ => {
                    let (from, to) = match item.split_once('-') {
                        Some((f, t)) => (f, Some(t)),
                        None => (item, None),
                    };
                    let mut parse = |s: &str| {
                        let id = busid(s);
                        if id.is_none() {
                            warnings.push(Kmsg::new(
                                "cio",
                                "%s is not a valid device for the cio_ignore kernel parameter\n",
                                vec![Arg::Str(s.to_string())],
                            ));
                        }
                        id
                    };
                    match parse(from) {
                        Some(a) => match to.map(parse) {
                            None => Some((a, a)),
                            Some(Some(b)) if a <= b => Some((a, b)),
                            Some(Some(b)) => {
                                let id = |x: u32| {
                                    [
                                        Arg::Uint((x / PER_SET) as u64),
                                        Arg::Uint((x % PER_SET) as u64),
                                    ]
                                };
                                warnings.push(Kmsg::new(
                                    "cio",
                                    "0.%x.%04x to 0.%x.%04x is not a valid range for cio_ignore\n",
                                    id(a).into_iter().chain(id(b)).collect(),
                                ));
                                None
                            }
                            Some(None) => None,
                        },
                        None => None,
                    }
                }
            };
            if let Some((lo, hi)) = range {
                self.set(lo, hi, ignore);
            }
        }
        warnings
    }

    /// What `cat /proc/cio_ignore` prints.
    pub fn listing(&self) -> Vec<String> {
        let mut out = Vec::new();
        for &(a, b) in &self.ranges {
            // The kernel ends a range at the end of its subchannel set.
            let mut lo = a;
            while lo <= b {
                let hi = b.min((lo / PER_SET + 1) * PER_SET - 1);
                out.push(if lo == hi {
                    show(lo)
                } else {
                    format!("{}-{}", show(lo), show(hi))
                });
                lo = hi + 1;
            }
        }
        out
    }
}

/// `0.s.dddd` of a linear id.
fn show(id: u32) -> String {
    format!("0.{:x}.{:04x}", id / PER_SET, id % PER_SET)
}

/// A bus ID as the kernel's parse_busid takes it: the linear id (ssid * 65536 + devno), None
/// if it is not one.
pub(crate) fn busid(s: &str) -> Option<u32> {
    let hex = |p: &str, min: usize, max: usize| {
        (p.len() >= min && p.len() <= max && p.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(p, 16).ok())
            .flatten()
    };
    if s.is_empty() {
        return None;
    }
    // Old style: simple_strtoul takes an optional 0x and every hex digit after it.
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        let v = digits.trim_start_matches('0');
        return (v.len() <= 4)
            .then(|| u32::from_str_radix(if v.is_empty() { "0" } else { v }, 16).ok())
            .flatten();
    }
    let mut parts = s.split('.');
    let (c, ss, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let _cssid = hex(c, 1, 2)?;
    let ssid = hex(ss, 1, 1).filter(|&v| v < SETS)?;
    let devno = hex(d, 4, 4)?;
    Some(ssid * PER_SET + devno)
}

/// The blacklist a guest boots with: every `cio_ignore=` of its boot line in order, then, on
/// a distribution whose initramfs is dracut's, every `rd.dasd=` device freed (dracut's dasd
/// module sets them online with chzdev, which frees them first). Returns the kernel's warnings.
pub fn at_boot(params: &[Param], dracut: bool) -> (Blacklist, Vec<Kmsg>) {
    let mut bl = Blacklist::default();
    let mut warnings = Vec::new();
    for p in params.iter().filter(|p| p.name == "cio_ignore") {
        warnings.extend(bl.apply(p.value.as_deref().unwrap_or(""), true));
    }
    if dracut {
        for p in params.iter().filter(|p| p.name == "rd.dasd") {
            for item in p.value.as_deref().unwrap_or("").split(',') {
                // dracut's own options (e.g. `0.0.0100(ro)`) are not modelled: the device alone.
                let dev = item.split('(').next().unwrap_or("");
                let (from, to) = dev.split_once('-').unwrap_or((dev, dev));
                if let (Some(a), Some(b)) = (busid(from), busid(to)) {
                    bl.set(a.min(b), a.max(b), false);
                }
            }
        }
    }
    (bl, warnings)
}

/// A device CP gave the guest that the blacklist hides: what the DASD driver needs to set it
/// online once it is freed (the arguments of `DasdDriver::add` but its name).
#[derive(Debug, Clone)]
pub struct Hidden {
    pub vdev: u16,
    pub path: DevPath,
    pub group_key: Option<(u32, u32)>,
    pub alias: bool,
    pub blocks: u64,
    pub ssid: u16,
}

/// The guest's common I/O state.
#[derive(Debug, Clone, Default)]
pub struct Cio {
    pub blacklist: Blacklist,
    /// Devices the guest has that the blacklist hides, in the order CP gave them.
    pub hidden: Vec<Hidden>,
    /// Devices freed from the blacklist (`cio_ignore -r`) that nothing set online yet: Linux
    /// knows them (sysfs, lszdev), the DASD driver does not use them.
    pub offline: Vec<Hidden>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::cmdline::params;

    #[test]
    fn all_but_the_console_and_the_root_disk_as_rhel_installs_it() {
        let p = params("root=/dev/mapper/rhel-root cio_ignore=all,!condev rd.dasd=0.0.b9d5");
        let (bl, warnings) = at_boot(&p, true);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(bl.ignored(0xB9E0) && bl.ignored(0x0000) && bl.ignored(0xFFFF));
        assert!(!bl.ignored(CONSOLE) && !bl.ignored(0xB9D5));
        assert_eq!(
            bl.listing(),
            [
                "0.0.0000-0.0.0008",
                "0.0.000a-0.0.b9d4",
                "0.0.b9d6-0.0.ffff",
                "0.1.0000-0.1.ffff",
                "0.2.0000-0.2.ffff",
                "0.3.0000-0.3.ffff"
            ]
        );
        // Without dracut (SLES) rd.dasd is an unknown parameter: the root disk stays ignored.
        assert!(at_boot(&p, false).0.ignored(0xB9D5));
    }

    #[test]
    fn items_as_the_kernel_parses_them() {
        let mut bl = Blacklist::default();
        assert!(bl.apply("1234-0x1236,0.0.2000,b9e0-b9f3", true).is_empty());
        assert!(bl.ignored(0x1235) && bl.ignored(0x2000) && bl.ignored(0xB9F3));
        assert!(!bl.ignored(0x1237) && !bl.ignored(0xB9F4));
        assert!(bl.apply("!b9e5", true).is_empty());
        assert!(!bl.ignored(0xB9E5) && bl.ignored(0xB9E4));
        // /proc/cio_ignore's free: the same items, inverted.
        assert!(bl.apply("b9e0-b9e1", false).is_empty());
        assert!(!bl.ignored(0xB9E0) && bl.ignored(0xB9E2));
        let warnings: Vec<String> = bl
            .apply("10000,0.0.123,frob,2-1,0.4.0000", true)
            .iter()
            .map(|k| k.line(&Default::default()))
            .collect();
        assert_eq!(
            warnings,
            [
                "cio: 10000 is not a valid device for the cio_ignore kernel parameter",
                "cio: 0.0.123 is not a valid device for the cio_ignore kernel parameter",
                "cio: frob is not a valid device for the cio_ignore kernel parameter",
                "cio: 0.0.0002 to 0.0.0001 is not a valid range for cio_ignore",
                "cio: 0.4.0000 is not a valid device for the cio_ignore kernel parameter",
            ]
        );
        // A bad item changes nothing.
        assert!(!bl.ignored(0x0001) && !bl.ignored(0x0123));
        assert_eq!(bl.listing()[0], "0.0.1234-0.0.1236");
    }
}
