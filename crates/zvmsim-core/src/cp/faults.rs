//! CP's side of a guest's memory reference and of the I/O it starts: host page faults resolved
//! at once (first use, XSTOR) or by a block page-in from DASD, the page-outs demand scan starts,
//! and CP time charged to the guest it was spent for.

use crate::cp::dispatcher::Block;
use crate::cp::pagein::Waiter;
use crate::cp::storage::{Access, CpWork, Touch};
use crate::io::{IoEvent, IoRequest, Origin};
use crate::system::machine::Machine;
use crate::system::Event;

/// CPU a step of a task used: in the guest, in CP on the guest's behalf, and in CP's own
/// system work the step set off.
#[derive(Default)]
pub(crate) struct Work {
    pub guest_ns: u64,
    pub cp_ns: u64,
    pub cp_system_ns: u64,
}

impl Machine {
    /// Charge CPU to guest `g` (its virtual CPU time and CP time spent for it).
    #[inline]
    pub(crate) fn charge(&mut self, g: usize, guest_ns: u64, cp_ns: u64) {
        let s = &mut self.guests[g].stats;
        s.cpu_ns += guest_ns;
        s.cp_ns += cp_ns;
        self.sys.guest_ns += guest_ns;
        self.sys.cp_ns += cp_ns;
    }

    /// Charge a step's work to guest `g` and to CP's system time; returns the IFL time used.
    #[inline]
    pub(crate) fn charge_work(&mut self, g: usize, w: &Work) -> u64 {
        self.charge(g, w.guest_ns, w.cp_ns);
        self.sys.cp_ns += w.cp_system_ns;
        self.sys.cp_system_ns += w.cp_system_ns;
        w.guest_ns + w.cp_ns + w.cp_system_ns
    }

    /// CP's side of a reference to guest `g`'s `page`: its CP time goes to `w`, and a
    /// synchronous page-in from XSTOR is counted as the guest's fault.
    #[inline]
    pub(crate) fn host_touch(&mut self, g: usize, page: u32, write: bool, w: &mut Work) -> Touch {
        let mut cp = CpWork::default();
        let space = self.guests[g].space;
        let r = self
            .storage
            .touch(space, page, Access::write(write), &mut cp);
        w.cp_ns += cp.ns;
        w.cp_system_ns += cp.system_ns;
        if r == Touch::FromXstor {
            self.guests[g].stats.page_faults_xstor += 1;
        }
        r
    }

    /// A reference by task `t` of guest `g` to guest page `page`. Linux asks CP for pfault
    /// handshaking only in problem state (pfault_init's select mask is the PSW problem-state
    /// bit): a host page fault in kernel mode (kernel text, page cache, copies to and from user
    /// buffers) stops the whole virtual CPU until the page is back.
    #[inline]
    pub(crate) fn touch(
        &mut self,
        g: usize,
        t: u32,
        page: u32,
        write: bool,
        kernel: bool,
        w: &mut Work,
    ) -> Result<(), Block> {
        match self.host_touch(g, page, write, w) {
            Touch::Resident
            | Touch::FirstUse
            | Touch::FromXstor
            | Touch::FromSpool
            | Touch::Revalidated => Ok(()),
            Touch::OnDasd { group } => {
                // The fault unwinds to the dispatcher before `start_pagein` reads these.
                self.pageins.prefetch(group);
                self.storage.prefetch_group(group);
                Err(Block::PageIn {
                    group,
                    task: t,
                    sync: kernel || !self.guests[g].pfault,
                })
            }
        }
    }

    /// Queue an I/O; schedule its completion if its device was idle.
    pub(crate) fn submit_io(&mut self, device: u32, origin: Origin, pages: u32, write: bool) {
        self.submit_io_at(device, origin, pages, write, 0);
    }

    /// `submit_io` of data at 4 KB block `block` of the volume (CP's paging blocks, for the
    /// storage server's cache).
    pub(crate) fn submit_io_at(
        &mut self,
        device: u32,
        origin: Origin,
        pages: u32,
        write: bool,
        block: u64,
    ) {
        // The guest's own I/O is a virtual I/O (CP's paging and spool I/O are not); a write
        // goes through the minidisk cache to the volume.
        if matches!(
            origin,
            Origin::DbWrite | Origin::SwapRead { .. } | Origin::SwapWrite
        ) {
            self.sys.virtual_io += 1;
            if write {
                self.mdc.write(device);
            }
        }
        let r = IoRequest {
            origin,
            device,
            pages,
            write,
            queued_at: self.now,
            block,
            aliases: self.paging_alias && matches!(origin, Origin::PageIn { .. } | Origin::PageOut),
            sub: 0,
            reach: 0,
        };
        if let Some((done, id)) = self.io.submit(r, self.now) {
            self.q.push(done, Event::Io(IoEvent::Complete(id)));
        }
    }

    /// `waiter` (of guest `g`) needs slot group `group` read: join the read under way or start
    /// a block page-in on its paging volume.
    pub(crate) fn start_pagein(&mut self, group: u32, g: u32, waiter: Waiter) {
        if let Some(id) = self.pageins.join(group, g, waiter) {
            let (v, at) = self.storage.group_place(group);
            let pages = self.storage.group_live(group).max(1);
            let dev = self.paging_dev[v as usize];
            self.submit_io_at(dev, Origin::PageIn { pagein: id }, pages, false, at);
        }
    }

    /// Block page-outs CP started: each is a write on its paging volume.
    pub(crate) fn flush_page_writes(&mut self) {
        if self.storage.writes.is_empty() {
            return;
        }
        let mut writes = std::mem::take(&mut self.storage.writes);
        for w in &writes {
            let dev = self.paging_dev[w.volume as usize];
            self.submit_io_at(dev, Origin::PageOut, w.pages, true, w.block);
        }
        writes.clear();
        self.storage.writes = writes;
    }

    /// z/VM 5.2 with `avail_walk_serialized`: while another block's walk holds the available
    /// list's lock, block page-in `pagein`'s frame requests wait for it (deferred; its users
    /// stay in page wait) and ask again when it is released. Returns whether they wait.
    /// `deferred`: they waited already, and were counted then.
    pub(crate) fn defer_frames(&mut self, pagein: u32, now: u64, deferred: bool) -> bool {
        if !self.p.avail_walk_serialized || self.avail_lock_until <= now {
            return false;
        }
        if !deferred {
            self.storage.moved.frames_deferred += 1;
        }
        self.q
            .push(self.avail_lock_until, Event::FramesDeferred { pagein });
        true
    }

    /// A block page-in completed: CP validates the block's pages (its work runs on the next
    /// IFL dispatched, charged to the guest whose fault started it) and wakes the waiters.
    /// Returns the waiters for the caller to resume; give them back to `pageins.recycle`.
    pub(crate) fn pagein_done(&mut self, id: u32) -> Vec<Waiter> {
        let (group, guest) = self.pageins.group_of(id);
        let mut cp = CpWork::default();
        self.storage.complete_pagein(group, &mut cp);
        if self.p.avail_walk_serialized && cp.walk_ns > 0 {
            // The block's walks hold the available list's lock (the caller waited for it).
            self.avail_lock_until = self.now.max(self.avail_lock_until) + cp.walk_ns;
        }
        self.disp.defer_cp(Some(guest), cp.ns);
        if cp.system_ns > 0 {
            self.disp.defer_cp(None, cp.system_ns);
        }
        self.flush_page_writes();
        self.pageins.finish(id)
    }
}
