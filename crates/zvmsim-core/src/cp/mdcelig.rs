//! Which reads CP's minidisk cache may keep: settings per real device (SET MDCACHE RDEV) and
//! per minidisk extent (the directory's MINIOPT MDC|NOMDC, SET MDCACHE MDISK), and IBM's
//! size rule. The cache itself (cp/mdc.rs) is keyed by real device and track; a minidisk is
//! an extent of blocks of its real device, one per MDISK statement, whatever the number of
//! users LINKed to it (CP's MDISK block counts the links to its extent).
//!
//! A read is cacheable when its blocks lie in an extent that is:
//! - at most 32767 cylinders (IBM, z/VM performance tip "Minidisk Cache",
//!   vm.ibm.com/perf/tips/prgmdcar.html: "Minidisks greater than 32767 cylinders are not
//!   eligible for MDC"; seed 003's full-pack 3390-54 minidisks, 65520 cylinders, are not);
//! - on a real device not set OFF, and either set ON for the minidisk or left at the
//!   device's default (DFLTON, the default at IPL, caches; DFLTOFF does not). The three
//!   device settings and the minidisk's override are z/VM's as zvmsim's authors know SET
//!   MDCACHE; no source in the stored corpora confirms them (inference).

/// SET MDCACHE RDEV rdev DFLTON|DFLTOFF|OFF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RdevSetting {
    /// Minidisks on the device are cached unless set off (z/VM's default).
    #[default]
    DfltOn,
    /// Minidisks on the device are cached only when set on.
    DfltOff,
    /// Nothing on the device is cached.
    Off,
}

/// A minidisk's own setting: MINIOPT MDC|NOMDC, SET MDCACHE MDISK vdev ON|OFF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MdiskSetting {
    /// As the real device's default.
    #[default]
    Default,
    On,
    Off,
}

/// One minidisk: blocks `start..end` (4 KB) of its real device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub start: u64,
    pub end: u64,
    pub setting: MdiskSetting,
}

/// 4 KB blocks of a 3390 cylinder (15 tracks of 12 records).
const CYL_BLOCKS: u64 = 180;

impl Extent {
    fn cacheable(&self, rdev: RdevSetting) -> bool {
        (self.end - self.start) <= crate::cp::mdc::MAX_CYLINDERS * CYL_BLOCKS
            && match (rdev, self.setting) {
                (RdevSetting::Off, _) | (_, MdiskSetting::Off) => false,
                (_, MdiskSetting::On) | (RdevSetting::DfltOn, MdiskSetting::Default) => true,
                (RdevSetting::DfltOff, MdiskSetting::Default) => false,
            }
    }
}

/// Per real device (index: the I/O system's device number).
#[derive(Debug, Default, Clone)]
pub struct Eligibility {
    rdev: Vec<RdevSetting>,
    extents: Vec<Vec<Extent>>,
}

impl Eligibility {
    fn grow(&mut self, dev: usize) {
        if self.rdev.len() <= dev {
            self.rdev.resize(dev + 1, RdevSetting::DfltOn);
            self.extents.resize(dev + 1, Vec::new());
        }
    }

    /// A minidisk of `blocks` from `start` on `dev`. A second MDISK or LINK of the same
    /// extent is the same minidisk: the first registration's setting stands.
    pub fn add(&mut self, dev: u32, start: u64, blocks: u64, setting: MdiskSetting) {
        let d = dev as usize;
        self.grow(d);
        let end = start + blocks;
        if !self.extents[d]
            .iter()
            .any(|e| e.start == start && e.end == end)
        {
            self.extents[d].push(Extent {
                start,
                end,
                setting,
            });
        }
    }

    /// SET MDCACHE RDEV: false when `dev` holds no minidisk.
    pub fn set_rdev(&mut self, dev: u32, s: RdevSetting) -> bool {
        let d = dev as usize;
        if d >= self.rdev.len() || self.extents[d].is_empty() {
            return false;
        }
        self.rdev[d] = s;
        true
    }

    /// SET MDCACHE MDISK: the minidisk at exactly `start..start + blocks` of `dev`.
    pub fn set_mdisk(&mut self, dev: u32, start: u64, blocks: u64, s: MdiskSetting) -> bool {
        let Some(ex) = self.extents.get_mut(dev as usize) else {
            return false;
        };
        match ex
            .iter_mut()
            .find(|e| e.start == start && e.end == start + blocks)
        {
            Some(e) => {
                e.setting = s;
                true
            }
            None => false,
        }
    }

    pub fn rdev_setting(&self, dev: u32) -> RdevSetting {
        self.rdev.get(dev as usize).copied().unwrap_or_default()
    }

    pub fn extents(&self, dev: u32) -> &[Extent] {
        self.extents.get(dev as usize).map_or(&[], |v| v.as_slice())
    }

    /// Some minidisk of `dev` may be cached.
    pub fn device(&self, dev: u32) -> bool {
        let r = self.rdev_setting(dev);
        self.extents(dev).iter().any(|e| e.cacheable(r))
    }

    /// The read of `blocks..blocks + pages` of `dev` lies in a cacheable minidisk.
    pub fn read(&self, dev: u32, block: u64, pages: u64) -> bool {
        let r = self.rdev_setting(dev);
        let end = block + pages.max(1);
        self.extents(dev)
            .iter()
            .any(|e| e.start <= block && end <= e.end && e.cacheable(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_the_size_rule() {
        let mut e = Eligibility::default();
        // Device 0: two minidisks, the second NOMDC. Device 1: a full-pack 3390-54.
        e.add(0, 180, 1800, MdiskSetting::Default);
        e.add(0, 1980, 1800, MdiskSetting::Off);
        e.add(1, 0, 65520 * 180, MdiskSetting::Default);
        assert!(e.read(0, 180, 12) && e.read(0, 1968, 12));
        assert!(!e.read(0, 1980, 12), "MINIOPT NOMDC");
        assert!(!e.read(0, 1968, 24), "straddles two minidisks");
        assert!(!e.read(0, 0, 12), "outside every minidisk");
        assert!(!e.device(1) && !e.read(1, 0, 12), "over 32767 cylinders");
        // A LINK of the first extent is the same minidisk.
        e.add(0, 180, 1800, MdiskSetting::Off);
        assert!(e.read(0, 180, 12));
        assert!(e.set_rdev(0, RdevSetting::DfltOff));
        assert!(!e.read(0, 180, 12) && !e.device(0));
        assert!(e.set_mdisk(0, 180, 1800, MdiskSetting::On));
        assert!(e.read(0, 180, 12));
        assert!(e.set_rdev(0, RdevSetting::Off));
        assert!(!e.read(0, 180, 12));
        assert!(!e.set_rdev(7, RdevSetting::Off), "no minidisk on it");
        assert!(!e.set_mdisk(0, 0, 180, MdiskSetting::On), "no such extent");
    }
}
