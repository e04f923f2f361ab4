//! A database whose files are on a file system in a saved segment (`[workloads.W.database]
//! files_on`): once the guest has mounted the ext2 of a dcssblk device at that mount point,
//! a buffer-pool miss reads the block from the segment's pages (a reference through
//! `Storage::touch` on the segment's address space, shared by every guest that loaded it) and
//! copies it into the buffer: no I/O, no page cache (ext2 with -o xip reads the device's memory
//! directly; without xip zvmsim takes the same path, a simplification). Before the mount, the
//! misses read the `database` volumes.

use crate::config::scenario::WorkloadSpec;
use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::linux::filemap::DcssMount;

use super::machine::Machine;
use super::Simulation;

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
        let p = (f.first_data() + block as u64) % f.pages().max(1);
        let Some((s, page)) = f.page_at(p) else {
            return Ok(());
        };
        self.segment_touch(g, t, s, page, w)?;
        self.touch_anon(g, t, into, true, true, w)?;
        w.guest_ns += self.p.linux_page_copy.ns();
        Ok(())
    }
}

impl Simulation {
    /// The `[workloads.*]` entry guest `gi` runs, if any.
    fn workload_spec(&self, gi: usize) -> Option<&WorkloadSpec> {
        let spec = self.scenario.guest_instances()[gi].spec_index;
        self.scenario.guests[spec]
            .workload
            .as_ref()
            .and_then(|w| self.scenario.workloads.get(w))
    }

    /// The mount point of guest `gi`'s database files (`files_on`), if any.
    fn files_on(&self, gi: usize) -> Option<&str> {
        self.workload_spec(gi)
            .and_then(|ws| ws.database.as_ref())
            .and_then(|d| d.files_on.as_deref())
    }

    /// The mount point of guest `gi`'s application-server program text (`text.files_on`).
    fn text_on(&self, gi: usize) -> Option<&str> {
        self.workload_spec(gi)
            .and_then(|ws| ws.appserver.as_ref())
            .and_then(|a| a.text.as_ref())
            .and_then(|t| t.files_on.as_deref())
    }

    /// Guest `gi` mounted `mount` at `dir`: if its database's files (or its server's program
    /// text) are there, they are read from the device from now on.
    pub(super) fn mount_db_files(&mut self, gi: usize, dir: &str, mount: DcssMount) {
        let dir = dir.trim_end_matches('/');
        if self.text_on(gi) == Some(dir) {
            self.m.guests[gi].text_files = Some(mount.clone());
        }
        if self.files_on(gi) == Some(dir) {
            self.m.guests[gi].db_files = Some(mount);
        }
    }

    /// Guest `gi` unmounted `dir`: its database reads go back to the volumes (its server's
    /// text is gone: the server waits for the mount again).
    pub(super) fn umount_db_files(&mut self, gi: usize, dir: &str) {
        let dir = dir.trim_end_matches('/');
        if self.text_on(gi) == Some(dir) {
            self.m.guests[gi].text_files = None;
        }
        if self.files_on(gi) == Some(dir) {
            self.m.guests[gi].db_files = None;
        }
    }
}
