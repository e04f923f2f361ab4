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
use crate::linux::commands::{enable_lines, ignored_lines, list_lines, ZdevCommand, ZdevRow};
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

    /// How CP reaches guest `g`'s virtual device `vdev`, whether Linux knows it or not.
    pub(super) fn virtual_path(&self, g: usize, vdev: u16) -> Option<DevPath> {
        let guest = &self.m.guests[g];
        match guest.dasd.by_vdev(vdev) {
            Some(i) => Some(guest.dasd.devs[i as usize].path),
            None => guest
                .cio
                .hidden
                .iter()
                .find(|h| h.vdev == vdev)
                .map(|h| h.path),
        }
    }

    /// Guest `g`'s virtual HyperPAV aliases of the real volume `real`.
    pub(super) fn virtual_aliases_of(&self, g: usize, real: u32) -> usize {
        let guest = &self.m.guests[g];
        let of = |p: &DevPath| matches!(p, DevPath::VirtualAlias { base } if *base == real);
        guest.dasd.devs.iter().filter(|d| of(&d.path)).count()
            + guest.cio.hidden.iter().filter(|h| of(&h.path)).count()
    }

    /// A zdev command or `/proc/cio_ignore` in guest `g`: what it changes and what it prints.
    pub(super) fn zdev_command(&mut self, g: usize, c: &ZdevCommand) -> Vec<String> {
        match c {
            ZdevCommand::ProcList => self.m.guests[g].cio.blacklist.listing(),
            ZdevCommand::IgnoredList => ignored_lines(self.m.guests[g].cio.blacklist.listing()),
            ZdevCommand::List(specs) => {
                let d = &self.m.guests[g].dasd;
                let mut rows: Vec<ZdevRow> = d
                    .devs
                    .iter()
                    .filter(|x| {
                        specs.is_empty() || specs.iter().any(|s| (s.from..=s.to).contains(&x.vdev))
                    })
                    .map(|x| ZdevRow {
                        vdev: x.vdev,
                        name: x.name.clone(),
                    })
                    .collect();
                rows.sort_by_key(|r| r.vdev);
                list_lines(&rows)
            }
            ZdevCommand::Enable(specs) => {
                // chzdev frees every spec from the blacklist first, whether a device is there
                // or not, then selects the devices that exist.
                for s in specs {
                    self.m.guests[g]
                        .cio
                        .blacklist
                        .set(s.from as u32, s.to as u32, false);
                }
                let within = |v: u16| specs.iter().any(|s| (s.from..=s.to).contains(&v));
                let hidden = std::mem::take(&mut self.m.guests[g].cio.hidden);
                let (freed, kept): (Vec<Hidden>, Vec<Hidden>) =
                    hidden.into_iter().partition(|h| within(h.vdev));
                self.m.guests[g].cio.hidden = kept;
                let configured: Vec<u16> = freed.iter().map(|h| h.vdev).collect();
                let already: Vec<u16> = self.m.guests[g]
                    .dasd
                    .devs
                    .iter()
                    .map(|x| x.vdev)
                    .filter(|&v| within(v))
                    .collect();
                // Set online in the order of their IDs, as chzdev configures them (dasda, ...).
                let mut freed = freed;
                freed.sort_by_key(|h| h.vdev);
                for h in freed {
                    self.present_dasd(g, h);
                }
                let unmatched: Vec<_> = specs
                    .iter()
                    .filter(|s| {
                        !configured
                            .iter()
                            .chain(&already)
                            .any(|&v| (s.from..=s.to).contains(&v))
                    })
                    .collect();
                enable_lines(&configured, &already, &unmatched)
            }
        }
    }
}
