//! A database whose files are on a file system in a saved segment (`[workloads.W.database]
//! files_on`): once the guest has mounted the ext2 of a dcssblk device at that mount point,
//! a buffer-pool miss reads the block from the segment's pages (a reference through
//! `Storage::touch` on the segment's address space, shared by every guest that loaded it) and
//! copies it into the buffer: no I/O, no page cache (ext2 with -o xip reads the device's memory
//! directly; without xip zvmsim takes the same path, a simplification). Before the mount, the
//! misses read the `database` volumes.

use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::cp::storage::{Access, CpWork, SpaceId, Touch};

use super::machine::Machine;
use super::Simulation;

/// Where guest's database files are: the device's segments (space, pages) in device order and
/// the device page holding the first database block (after ext2's metadata).
#[derive(Debug, Clone)]
pub(crate) struct DbFiles {
    pub segs: Vec<(SpaceId, u32)>,
    pub first: u64,
    pub pages: u64,
}

impl Machine {
    /// `read(2)` of database block `block` from the DCSS file system into anonymous page
    /// `into`. Restartable after a host page fault.
    pub(crate) fn dcss_file_read(
        &mut self,
        g: usize,
        t: u32,
        block: u32,
        into: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        let Some(f) = self.guests[g].db_files.as_ref() else {
            return Ok(());
        };
        let mut p = (f.first + block as u64) % f.pages.max(1);
        let mut at = None;
        for &(s, n) in &f.segs {
            if p < n as u64 {
                at = Some((s, p as u32));
                break;
            }
            p -= n as u64;
        }
        let Some((s, page)) = at else {
            return Ok(());
        };
        let sp = self.storage.space(s);
        let mut cp = CpWork::default();
        let r = self.storage.touch(sp, page, Access::Read, &mut cp);
        w.cp_ns += cp.ns;
        w.cp_system_ns += cp.system_ns;
        match r {
            Touch::OnDasd { group } => {
                self.guests[g].stats.page_faults_dasd += 1;
                return Err(Block::PageIn {
                    group,
                    task: t,
                    sync: true,
                });
            }
            Touch::FromXstor => self.guests[g].stats.page_faults_xstor += 1,
            _ => {}
        }
        self.touch_anon(g, t, into, true, true, w)?;
        w.guest_ns += self.p.linux_page_copy.ns();
        Ok(())
    }
}

impl Simulation {
    /// Guest `gi` mounted device `k` at `dir`: if its database's files are there, buffer-pool
    /// misses read them from the device from now on.
    pub(super) fn mount_db_files(&mut self, gi: usize, dir: &str, k: usize) {
        let spec = self.scenario.guest_instances()[gi].spec_index;
        let on = self.scenario.guests[spec]
            .workload
            .as_ref()
            .and_then(|w| self.scenario.workloads.get(w))
            .and_then(|ws| ws.database.as_ref())
            .and_then(|d| d.files_on.as_deref());
        if on != Some(dir.trim_end_matches('/')) {
            return;
        }
        let dev = &self.dcss.guests[gi].devices[k];
        let seg = &self.dcss.segments;
        let segs: Vec<(SpaceId, u32)> = dev
            .segs
            .iter()
            .filter_map(|u| {
                let shared = seg.by_id(u.file).and_then(|i| seg.files[i].shared);
                u.nonshared.or(shared).map(|s| (s, u.pages))
            })
            .collect();
        let pages = dev.pages();
        self.m.guests[gi].db_files = Some(DbFiles {
            segs,
            first: pages.div_ceil(super::dcss_fs::EXT2_META_STRIDE),
            pages,
        });
    }

    /// Guest `gi` unmounted `dir`: its database reads go back to the volumes.
    pub(super) fn umount_db_files(&mut self, gi: usize, dir: &str) {
        let spec = self.scenario.guest_instances()[gi].spec_index;
        let on = self.scenario.guests[spec]
            .workload
            .as_ref()
            .and_then(|w| self.scenario.workloads.get(w))
            .and_then(|ws| ws.database.as_ref())
            .and_then(|d| d.files_on.clone());
        if on.as_deref() == Some(dir.trim_end_matches('/')) {
            self.m.guests[gi].db_files = None;
        }
    }
}
