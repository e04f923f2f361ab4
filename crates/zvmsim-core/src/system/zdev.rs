//! The guest's DASDs between CP and Linux's DASD driver: a device CP gives the guest (ATTACH,
//! a directory MDISK, DEFINE HYPERPAVALIAS) comes online in Linux unless the boot line's
//! cio_ignore= hides it (`linux/cio.rs`); `chzdev -e` frees and sets online what it hides
//! (`linux/commands/zdev.rs`). CP knows the hidden devices all the same (QUERY VIRTUAL DASD,
//! the checks of ATTACH and DEFINE).
//!
//! zvmsim sets a device that is not hidden online when CP gives it, and takes it to be in the
//! persistent configuration (a udev rule, as the distribution's installer or chzdev writes
//! them): `chzdev -e` on it answers `already configured`. Setting a device offline is not
//! modelled.

use super::cpio::next_name;
use super::Simulation;
use crate::linux::cio::Hidden;
use crate::linux::commands::{
    config_lines, ignored_lines, list_lines, BusIds, ZdevCommand, ZdevRow,
};
use crate::linux::dasd::DevPath;

impl Simulation {
    /// CP gives guest `g` the DASD `h`: Linux sets it online, unless its blacklist hides it.
    pub(super) fn present_dasd(&mut self, g: usize, h: Hidden) {
        let guest = &mut self.m.guests[g];
        if guest.cio.blacklist.ignored(h.vdev) {
            guest.cio.hidden.push(h);
            return;
        }
        let d = &mut guest.dasd;
        let name = (!h.alias).then(|| next_name(d));
        d.add(h.vdev, name, h.path, h.group_key, h.alias, h.blocks, h.ssid);
    }

    /// Every DASD CP gave guest `g`, as (vdev, path): those online in Linux's driver, then
    /// those its blacklist hides, then those freed but offline.
    pub(super) fn guest_dasds(&self, g: usize) -> impl Iterator<Item = (u16, DevPath)> + '_ {
        let guest = &self.m.guests[g];
        let cio = &guest.cio;
        guest.dasd.devs.iter().map(|x| (x.vdev, x.path)).chain(
            cio.hidden
                .iter()
                .chain(&cio.offline)
                .map(|h| (h.vdev, h.path)),
        )
    }

    /// How CP reaches guest `g`'s virtual device `vdev`, whether Linux knows it or not.
    pub(super) fn virtual_path(&self, g: usize, vdev: u16) -> Option<DevPath> {
        self.guest_dasds(g).find(|d| d.0 == vdev).map(|d| d.1)
    }

    /// Guest `g`'s virtual HyperPAV aliases of the real volume `real`.
    pub(super) fn virtual_aliases_of(&self, g: usize, real: u32) -> usize {
        self.guest_dasds(g)
            .filter(|(_, p)| matches!(p, DevPath::VirtualAlias { base } if *base == real))
            .count()
    }

    /// Frees `from..=to` from guest `g`'s blacklist: the hidden devices there come up offline.
    fn unblacklist(&mut self, g: usize, from: u16, to: u16) {
        let cio = &mut self.m.guests[g].cio;
        cio.blacklist.set(from as u32, to as u32, false);
        let hidden = std::mem::take(&mut cio.hidden);
        let (freed, kept): (Vec<Hidden>, Vec<Hidden>) = hidden
            .into_iter()
            .partition(|h| (from..=to).contains(&h.vdev));
        cio.hidden = kept;
        cio.offline.extend(freed);
    }

    /// Sets guest `g`'s offline device `vdev` online; false if it is not an offline device.
    pub(super) fn set_online(&mut self, g: usize, vdev: u16) -> bool {
        if let Some(d) = self.offline_alias(g, vdev) {
            self.m.guests[g].dasd.set_alias_offline(d, false);
            return true;
        }
        let cio = &mut self.m.guests[g].cio;
        let Some(i) = cio.offline.iter().position(|h| h.vdev == vdev) else {
            return false;
        };
        let h = cio.offline.remove(i);
        self.present_dasd(g, h);
        true
    }

    /// Sets guest `g`'s online alias `vdev` offline: Some(true); Some(false) if it is
    /// offline already; None for a base or a device that is not there (not modelled: the
    /// kernel's in-use check of a block device).
    pub(super) fn set_offline(&mut self, g: usize, vdev: u16) -> Option<bool> {
        if self.is_offline(g, vdev) {
            return Some(false);
        }
        let d = self.m.guests[g].dasd.by_vdev(vdev)?;
        let dasd = &mut self.m.guests[g].dasd;
        dasd.is_alias(d).then(|| dasd.set_alias_offline(d, true))?;
        Some(true)
    }

    /// Guest `g`'s alias `vdev`, if it was set offline.
    fn offline_alias(&self, g: usize, vdev: u16) -> Option<u32> {
        let dasd = &self.m.guests[g].dasd;
        dasd.by_vdev(vdev)
            .filter(|&d| dasd.devs[d as usize].offline)
    }

    /// Whether guest `g` has `vdev` offline (freed from the blacklist, or set offline).
    pub(super) fn is_offline(&self, g: usize, vdev: u16) -> bool {
        self.m.guests[g].cio.offline.iter().any(|h| h.vdev == vdev)
            || self.offline_alias(g, vdev).is_some()
    }

    /// Guest `g`'s devices online in its DASD driver, and those it knows offline.
    pub(super) fn online_and_offline(
        &self,
        g: usize,
    ) -> (Vec<&crate::linux::dasd::LDev>, Vec<u16>) {
        let guest = &self.m.guests[g];
        let (off, on): (Vec<_>, Vec<_>) = guest.dasd.devs.iter().partition(|x| x.offline);
        let offline = guest.cio.offline.iter().map(|h| h.vdev);
        (on, offline.chain(off.iter().map(|x| x.vdev)).collect())
    }

    /// A zdev command or `/proc/cio_ignore` in guest `g`: what it changes and what it prints.
    pub(super) fn zdev_command(&mut self, g: usize, c: &ZdevCommand) -> Vec<String> {
        match c {
            ZdevCommand::ProcList => self.m.guests[g].cio.blacklist.listing(),
            ZdevCommand::IgnoredList => ignored_lines(self.m.guests[g].cio.blacklist.listing()),
            ZdevCommand::List(specs) => {
                let wanted =
                    |v: u16| specs.is_empty() || specs.iter().any(|s| (s.from..=s.to).contains(&v));
                let (on, off) = self.online_and_offline(g);
                let online = on.iter().map(|x| ZdevRow {
                    vdev: x.vdev,
                    name: x.name.clone(),
                    online: true,
                });
                let offline = off.iter().map(|&vdev| ZdevRow {
                    vdev,
                    name: None,
                    online: false,
                });
                let mut rows: Vec<ZdevRow> =
                    online.chain(offline).filter(|r| wanted(r.vdev)).collect();
                rows.sort_by_key(|r| r.vdev);
                list_lines(&rows)
            }
            ZdevCommand::CioRemove(specs) => {
                for s in specs {
                    self.unblacklist(g, s.from, s.to);
                }
                vec![]
            }
            ZdevCommand::Chccwdev { parts, online } => self.chccwdev(g, parts, *online),
            ZdevCommand::Enable(specs) => {
                // chzdev frees every spec from the blacklist first, whether a device is there
                // or not, then selects the devices that exist.
                for s in specs {
                    self.unblacklist(g, s.from, s.to);
                }
                let within = |v: &u16| specs.iter().any(|s| (s.from..=s.to).contains(v));
                let (on, off) = self.online_and_offline(g);
                let mut configured: Vec<u16> = off.into_iter().filter(within).collect();
                configured.sort_unstable();
                let already: Vec<u16> = on.iter().map(|x| x.vdev).filter(within).collect();
                // Set online in the order of their IDs, as chzdev configures them (dasda, ...).
                for &v in &configured {
                    self.set_online(g, v);
                }
                config_lines("configure", &configured, &already, specs)
            }
            ZdevCommand::Disable(specs) => self.chzdev_disable(g, specs),
        }
    }

    /// `chzdev dasd SPEC... -d`: the online aliases in the specs go offline, the offline
    /// devices are deconfigured already (offline devices are taken to have no persistent
    /// configuration, as those cio_ignore -r freed); -d leaves the blacklist alone.
    fn chzdev_disable(&mut self, g: usize, specs: &[crate::linux::commands::Spec]) -> Vec<String> {
        let within = |v: &u16| specs.iter().any(|s| (s.from..=s.to).contains(v));
        let (on, off) = self.online_and_offline(g);
        if let Some(b) = on.iter().find(|x| x.name.is_some() && within(&x.vdev)) {
            return vec![base_offline("chzdev -d", b.vdev)];
        }
        let mut done: Vec<u16> = on.iter().map(|x| x.vdev).filter(within).collect();
        let already: Vec<u16> = off.into_iter().filter(within).collect();
        done.sort_unstable();
        for &v in &done {
            self.set_offline(g, v);
        }
        config_lines("deconfigure", &done, &already, specs)
    }

    /// `chccwdev -e|-d` (zconf/chccwdev, s390-tools v2.9.0): each device in turn; a device
    /// not there (absent, or on the blacklist: chccwdev does not free it) stops it.
    fn chccwdev(&mut self, g: usize, parts: &[BusIds], online: bool) -> Vec<String> {
        let visible =
            |s: &Self, v: u16| s.is_offline(g, v) || s.m.guests[g].dasd.by_vdev(v).is_some();
        // The list is expanded first: a range to the devices there, none there is an error.
        let mut ids = Vec::new();
        for p in parts {
            match *p {
                BusIds::One(v) => ids.push(v),
                BusIds::Range { ref text, from, to } => {
                    let there: Vec<u16> = (from..=to).filter(|&v| visible(self, v)).collect();
                    if there.is_empty() {
                        return vec![
                            format!("No Device in range ({text}) found"),
                            "ERROR: Evaluation of bus IDs failed!".into(),
                            String::new(),
                        ];
                    }
                    ids.extend(there);
                }
            }
        }
        let dasd = &self.m.guests[g].dasd;
        let base = ids.iter().find(|&&v| {
            dasd.by_vdev(v)
                .is_some_and(|d| !dasd.is_alias(d) && !online)
        });
        if let Some(&b) = base {
            return vec![base_offline("chccwdev -d", b)];
        }
        let mut out = Vec::new();
        for v in ids {
            let changed = if online {
                self.set_online(g, v)
            } else {
                self.set_offline(g, v) == Some(true)
            };
            if changed {
                let state = if online { "online" } else { "offline" };
                out.push(format!("Setting device 0.0.{v:04x} {state}"));
            } else if visible(self, v) && online {
                out.push(format!("WARNING: Device[0.0.{v:04x}] is already  online"));
            } else if visible(self, v) {
                out.push("Device is already offline".into());
            } else {
                out.push(format!("Device 0.0.{v:04x} not found"));
                return out;
            }
            out.push("Done".into());
        }
        out
    }
}

/// A base device set offline: the kernel refuses while its block device is in use and the
/// tools warn or prompt, which zvmsim does not model.
pub(super) fn base_offline(tool: &str, vdev: u16) -> String {
    format!(
        "not simulated by zvmsim: {tool} of base device 0.0.{vdev:04x} (setting a block device \
         offline: its in-use check is not modelled)"
    )
}
