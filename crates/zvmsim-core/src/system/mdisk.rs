//! Logon of the directory's minidisks on real volumes: a full-pack `MDISK ... DEVNO`, an
//! extent of cylinders on a labelled volume, and a `LINK` to another user's minidisk (the
//! same real extent: reads of either user find the tracks the other's reads brought into the
//! minidisk cache). Each minidisk is registered with CP's minidisk cache with its MINIOPT
//! setting (cp/mdcelig.rs decides what is cached). Linux sees each as a DASD of its own.

use crate::config::directory::{extent, find_mdisk, miniopt};
use crate::cp::directory::DirStatement;
use crate::cp::mdcelig::MdiskSetting;
use crate::io::{SubOwner, NONE};
use crate::linux::dasd::DevPath;

use super::Simulation;

impl Simulation {
    /// Statement `i` of guest `g`'s directory `lines`, if it is an MDISK on a real volume or
    /// a LINK: the guest gets the minidisk. Validated with the scenario (config/directory.rs),
    /// so a failed lookup here defines nothing.
    pub(super) fn logon_minidisk(
        &mut self,
        g: usize,
        lines: &[String],
        i: usize,
        st: &DirStatement,
    ) {
        let (vdev, own, setting) = match st {
            DirStatement::MdiskDevno { vdev, .. } | DirStatement::Mdisk { vdev, .. } => {
                (*vdev, st.clone(), miniopt(lines, i))
            }
            DirStatement::Link {
                user,
                vdev,
                as_vdev,
                ..
            } => {
                let owner = self
                    .scenario
                    .guest_instances()
                    .into_iter()
                    .find(|u| &u.name == user);
                let Some(owner) = owner else { return };
                let theirs = &self.scenario.guests[owner.spec_index].directory;
                let Some((mdisk, setting)) = find_mdisk(theirs, *vdev) else {
                    return;
                };
                (*as_vdev, mdisk, setting)
            }
            _ => return,
        };
        self.add_minidisk(g, vdev, &own, setting);
    }

    fn add_minidisk(&mut self, g: usize, vdev: u16, st: &DirStatement, setting: MdiskSetting) {
        let Ok((rdev, offset, blocks)) = extent(self.scenario.io.as_ref(), st) else {
            return;
        };
        let Some(s) = self.m.io.by_rdev(rdev) else {
            return;
        };
        if self.m.io.sub(s).owner == SubOwner::Free {
            self.m.io.set_owner(s, SubOwner::System);
        }
        let lcu = self.m.io.sub(s).lcu;
        let ssid = self.m.io.lcus()[lcu as usize].ssid;
        let vol = self.volume_blocks(s);
        // Only a full-pack minidisk reaches its LCU's aliases from Linux (virtual HyperPAV
        // aliases are defined for full-pack minidisks only: seed 003, chapter 3).
        let group = (offset == 0 && blocks == vol).then_some((lcu, NONE));
        self.m.mdc.add_minidisk(s, vol, offset, blocks, setting);
        let path = DevPath::Minidisk {
            base: s,
            offset,
            blocks,
        };
        self.present_dasd(
            g,
            crate::linux::cio::Hidden {
                vdev,
                path,
                group_key: group,
                alias: false,
                blocks,
                ssid,
            },
        );
    }
}
