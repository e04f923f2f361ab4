//! What a Linux 2.4 guest (SLES 8, seed 004) shows of its disks: LVM1's volume groups on
//! them, `pvpath`, and the channel subsystem's `/proc/subchannels`.

use super::Simulation;
use crate::io::SubKind;
use crate::linux::dasd::DevPath;
use crate::linux::lvm1::{Disk, Lvm1Command};

/// 3390 tracks a compatible-disk-layout partition leaves out: the label and VTOC tracks
/// (fdasd's first partition starts on track 2), of 12 blocks of 4 KB each.
const CDL_BLOCKS: u64 = 2 * 12;

impl Simulation {
    /// `pvpath` in guest `gi`: LVM1 multipath on the guest's DASD driver (2.4: major 94, four
    /// minors per disk, the PV is the disk's first partition).
    pub(super) fn pvpath(
        &mut self,
        gi: usize,
        c: &crate::linux::lvm::PvpathCommand,
    ) -> Vec<String> {
        let g = &mut self.m.guests[gi];
        let dasd = &g.dasd;
        let dev = |v: u16| {
            dasd.by_vdev(v)
                .map(|d| (94, 4 * d + 1, dasd.devs[d as usize].count))
        };
        g.lvm.pvpath(c, dev)
    }

    /// An LVM1 tool typed in guest `gi`.
    pub(super) fn lvm_command(&mut self, gi: usize, c: &Lvm1Command) -> Vec<String> {
        let disks = self.lvm_disks(gi);
        let g = &mut self.m.guests[gi];
        g.lvm.run(c, &g.name, &disks)
    }

    /// Guest `gi`'s disks as LVM sees them: each block device's first partition and the
    /// real volume it reaches (a static PAV alias reaches its base's).
    fn lvm_disks(&self, gi: usize) -> Vec<Disk> {
        let io = &self.m.io;
        self.m.guests[gi]
            .dasd
            .devs
            .iter()
            .filter_map(|d| {
                let name = d.name.clone()?;
                let volume = match d.path {
                    DevPath::Dedicated { sub } => match io.sub(sub).kind {
                        SubKind::PavAlias { base } => base as u64,
                        _ => sub as u64,
                    },
                    DevPath::Minidisk { base, offset, .. } => ((base as u64 + 1) << 40) | offset,
                    DevPath::VirtualAlias { base } => base as u64,
                };
                Some(Disk {
                    name,
                    part_kb: d.blocks.saturating_sub(CDL_BLOCKS) * 4,
                    volume,
                    vdev: d.vdev,
                })
            })
            .collect()
    }

    /// `cat /proc/subchannels` in guest `gi` (s390io.c's chan_subch_open): its DASDs, each
    /// claimed by the DASD driver (`in use`), with the path group of its LCU. The guest's
    /// console, reader, punch and printer are not modelled and not listed; subchannel
    /// numbers follow the order CP gave the devices (inference). A guest with a minidisk or
    /// a SCSI LUN is not simulated (what CP and zfcp show there is not modelled).
    pub(super) fn subchannels(&self, gi: usize) -> Vec<String> {
        let io = &self.m.io;
        let Some(spec) = self.scenario.io.as_ref() else {
            return vec!["not simulated by zvmsim: cat /proc/subchannels (no [io] devices)".into()];
        };
        let ch = &spec.channels;
        let paths = ch.count.min(8);
        let pim = (0xFFu32 << (8 - paths)) as u8;
        let chpids: String = (0..8)
            .map(|i| {
                format!(
                    "{:02X}{}",
                    if i < paths { ch.chpid(i) } else { 0 },
                    if i == 3 { " " } else { "" }
                )
            })
            .collect();
        let mut out = vec![
            "Device sch.  Dev Type/Model CU  in use  PIM PAM POM CHPIDs".to_string(),
            "-".repeat(69),
        ];
        for (n, d) in self.m.guests[gi].dasd.devs.iter().enumerate() {
            let DevPath::Dedicated { sub } = d.path else {
                return vec![
                    "not simulated by zvmsim: cat /proc/subchannels in a guest with minidisks"
                        .into(),
                ];
            };
            let s = io.sub(sub);
            if s.lcu == crate::io::FCP {
                return vec![
                    "not simulated by zvmsim: cat /proc/subchannels in a guest with SCSI LUNs"
                        .into(),
                ];
            }
            let base = match s.kind {
                SubKind::PavAlias { base } => base,
                _ => sub,
            };
            out.push(format!(
                "{:04X}   {n:04X}  3390/{:02X}   3990/E9  yes     {pim:02X}  {pim:02X}  FF  {chpids}",
                d.vdev,
                model_byte(self.volume_blocks(base))
            ));
        }
        out
    }

    /// `cat /proc/dasd/devices` of the 2.4 DASD driver (dasd.c's dasd_devices_open): one
    /// line per disk, its minor the device index times 4, no header.
    pub(super) fn proc_dasd_devices_24(&self, gi: usize) -> Vec<String> {
        self.m.guests[gi]
            .dasd
            .devs
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                let name = d.name.as_ref()?;
                Some(format!(
                    "{:04x}(ECKD) at ({:3}:{:3}) is {name:<7}{:4}: active at blocksize: 4096, {} blocks, {} MB",
                    d.vdev,
                    DASD_MAJOR,
                    i * 4,
                    "",
                    d.blocks,
                    (8 * d.blocks) >> 11
                ))
            })
            .collect()
    }
}

/// The DASD driver's block major (94).
const DASD_MAJOR: u32 = 94;

/// The model byte a 3390 reports in its Sense ID: 0A for a 3390-3, 0C for the larger ones
/// (3390-9, -27, -54), as CP's QUERY DASD DETAILS and Linux print them.
fn model_byte(blocks: u64) -> u8 {
    if blocks == crate::config::scenario::DasdModel::M3390_3.pages() {
        0x0A
    } else {
        0x0C
    }
}
