//! The Linux surface workloads use, as system calls: reference program text and anonymous
//! memory, read and write file blocks through the page cache. Behind it, the guest's memory
//! management (allocation with direct reclaim, kswapd, swap-out and major faults with readahead)
//! and CP's side of every reference. A workload never sees page-pool indexes.

use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::cp::pagein::Waiter;
use crate::cp::storage::{Touch, NONE};
use crate::io::Origin;
use crate::linux::memory::Anon;
use crate::system::machine::Machine;
use crate::system::swapdev::Place;

impl Machine {
    /// Pages of kernel and program text of guest `g`.
    pub(crate) fn text_pages(&self, g: usize) -> u32 {
        self.guests[g].mem.kernel
    }

    /// Ask for the host page word of text page `off` ahead of its reference.
    #[inline]
    pub(crate) fn prefetch_text(&self, g: usize, off: u32) {
        let mem = &self.guests[g].mem;
        self.storage.prefetch(self.guests[g].space, mem.base + off);
    }

    /// Ask for the host page word of anonymous page `v` ahead of its reference, when where
    /// it is costs no load itself.
    #[inline]
    pub(crate) fn prefetch_anon(&self, g: usize, v: u32) {
        if let Some(page) = self.guests[g].mem.anon_page_hint(v) {
            self.storage.prefetch(self.guests[g].space, page);
        }
    }

    /// Ask for what a read of file block `block` will look at first: with `page` false its
    /// page-cache entry, with `page` true the host page word of the page caching it (whose
    /// entry was asked for earlier).
    #[inline]
    pub(crate) fn prefetch_file_block(&self, g: usize, block: u32, page: bool) {
        let mem = &self.guests[g].mem;
        if !page {
            mem.prefetch_block(block);
        } else if let Some(pc) = mem.prefetch_cached(block) {
            self.storage.prefetch(self.guests[g].space, pc);
        }
    }

    /// Task `t` executes text page `off` (kernel mode).
    pub(crate) fn exec_text(
        &mut self,
        g: usize,
        t: u32,
        off: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        let page = self.guests[g].mem.base + off;
        self.touch(g, t, page, false, true, w)
    }

    /// Task `t` references anonymous page `v` (shared memory). A page Linux swapped out is a
    /// major fault: a page is allocated, CP must have it resident to start the read into it,
    /// and the task sleeps until the read is done (its virtual CPU runs other tasks).
    pub(crate) fn touch_anon(
        &mut self,
        g: usize,
        t: u32,
        v: u32,
        write: bool,
        kernel: bool,
        w: &mut Work,
    ) -> Result<(), Block> {
        let (a, scanned) = self.guests[g].mem.anon_ref(v, write);
        if !self.guests[g].mem.readahead.is_empty() {
            self.tasks[t as usize].swap_ahead = self.check_readahead(g, w);
        }
        if scanned > 0 || !self.guests[g].mem.swap_out.is_empty() {
            self.after_alloc(g, scanned, w);
        }
        match a {
            Anon::Resident(page) => self.touch(g, t, page, write, kernel, w),
            Anon::SwapIn { page, slot } => {
                let stops = self.p.ccw_page_in_stops_vcpu;
                self.touch(g, t, page, true, stops, w)?;
                match self.swap_place(g, slot) {
                    Place::Dasd(dev) => {
                        self.guests[g].mem.swapin_started(v);
                        Err(Block::SwapIn { dev, task: t })
                    }
                    Place::Mem(target, dpage) => {
                        // A memory-backed device: the read is done in this burst.
                        let ahead = self.tasks[t as usize].swap_ahead;
                        self.mem_swap_read(g, t, target, dpage, 1 + ahead, w)?;
                        self.tasks[t as usize].swap_ahead = 0;
                        self.guests[g].mem.swapin_started(v);
                        Ok(())
                    }
                }
            }
        }
    }

    /// `write(2)` of file block `block` on device `dev` from anonymous page `from`: the data
    /// is copied into a page-cache page and written (asynchronously). Restartable: after a
    /// host page fault the call is made again and goes on where it stopped.
    pub(crate) fn file_write(
        &mut self,
        g: usize,
        t: u32,
        dev: u32,
        block: u32,
        from: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        self.touch_anon(g, t, from, false, true, w)?;
        if self.tasks[t as usize].pc_page == NONE {
            let page = self.pc_alloc(g, block, w);
            self.tasks[t as usize].pc_page = page;
            w.guest_ns += self.p.linux_page_copy.ns();
        }
        let pc = self.tasks[t as usize].pc_page;
        self.touch(g, t, pc, true, true, w)?;
        self.submit_io(dev, Origin::DbWrite, 1, true);
        self.guests[g].stats.db_writes += 1;
        let buffers = self.guests[g].mem.filesystem.buffers_on_write();
        self.pc_page_done(g, t, buffers, w);
        Ok(())
    }

    /// `read(2)` of file block `block` (block `at` of device `dev`) into anonymous page `into`: from the
    /// page cache when the block is there; otherwise Linux allocates a page-cache page, starts
    /// the read into it (CP must have the page resident to translate the channel program) and
    /// the task sleeps; called again after the read, it copies the data. Restartable.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn file_read(
        &mut self,
        g: usize,
        t: u32,
        dev: u32,
        block: u32,
        at: u32,
        into: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        let copy = self.p.linux_page_copy.ns();
        let ti = t as usize;
        if !self.tasks[ti].reading {
            if self.tasks[ti].pc_page == NONE {
                if let Some(pc) = self.cached(g, block, w) {
                    // Page-cache hit: copy into the buffer.
                    self.touch(g, t, pc, false, true, w)?;
                    self.touch_anon(g, t, into, true, true, w)?;
                    w.guest_ns += copy;
                    return Ok(());
                }
                let page = self.pc_alloc(g, block, w);
                self.tasks[ti].pc_page = page;
            }
            let pc = self.tasks[ti].pc_page;
            let stops = self.p.ccw_page_in_stops_vcpu;
            self.touch(g, t, pc, true, stops, w)?;
            self.tasks[ti].reading = true;
            return Err(Block::DbRead {
                vol: dev,
                block: at,
                task: t,
            });
        }
        // The read completed into the page-cache page: copy it into the buffer.
        let pc = self.tasks[ti].pc_page;
        self.touch(g, t, pc, false, true, w)?;
        self.touch_anon(g, t, into, true, true, w)?;
        w.guest_ns += copy;
        self.tasks[ti].reading = false;
        let buffers = self.guests[g].mem.filesystem.buffers_on_read();
        self.pc_page_done(g, t, buffers, w);
        Ok(())
    }

    /// `write(2)` of file block `block` of a file that lives in the page cache (dbench's: its
    /// pages are deleted before writeback would write them): the page caching the block, or a
    /// new one allocated for it, is written. Restartable after a host page fault. The copy's
    /// CPU is the caller's (it knows the bytes).
    pub(crate) fn cache_write(
        &mut self,
        g: usize,
        t: u32,
        block: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        let ti = t as usize;
        if self.tasks[ti].pc_page == NONE {
            let m = &mut self.guests[g].mem;
            let page = match m.lookup(block) {
                Some(i) => m.pool_global(i),
                None => self.pc_alloc(g, block, w),
            };
            self.tasks[ti].pc_page = page;
        }
        let pc = self.tasks[ti].pc_page;
        self.touch(g, t, pc, true, true, w)?;
        self.tasks[ti].pc_page = NONE;
        Ok(())
    }

    /// `read(2)` of file block `block` of such a file: Ok(true) on a page-cache hit. A block
    /// not cached (reclaim took it, which validation rules out by keeping the files within
    /// memory) gets a page and Ok(false): the model has no disk copy of these files.
    pub(crate) fn cache_read(
        &mut self,
        g: usize,
        t: u32,
        block: u32,
        w: &mut Work,
    ) -> Result<bool, Block> {
        let ti = t as usize;
        let mut hit = true;
        if self.tasks[ti].pc_page == NONE {
            let m = &mut self.guests[g].mem;
            let page = match m.lookup(block) {
                Some(i) => m.pool_global(i),
                None => {
                    hit = false;
                    self.pc_alloc(g, block, w)
                }
            };
            self.tasks[ti].pc_page = page;
        }
        let pc = self.tasks[ti].pc_page;
        self.touch(g, t, pc, false, true, w)?;
        self.tasks[ti].pc_page = NONE;
        Ok(hit)
    }

    /// kswapd runs once: reclaim to the high watermark, start the swap writes it decided on.
    pub(crate) fn kswapd_run(&mut self, g: usize) -> u64 {
        let scanned = self.guests[g].mem.kswapd();
        let mut w = Work {
            guest_ns: scanned * self.p.linux_scan_page.ns(),
            ..Work::default()
        };
        self.apply_essa(g, &mut w);
        self.start_swap_writes(g, &mut w);
        self.charge_work(g, &w)
    }

    /// The ESSA state changes Linux made (CMMA): the machine interprets each (guest CPU), and
    /// CP learns the page states. A page Linux makes stable again that CP had discarded has lost
    /// its content; only a page-cache page being rewritten is made stable so, and the write
    /// fills it anew.
    pub(crate) fn apply_essa(&mut self, g: usize, w: &mut Work) {
        if self.guests[g].mem.essa.is_empty() {
            return;
        }
        let mut changes = std::mem::take(&mut self.guests[g].mem.essa);
        let space = self.guests[g].space;
        let base = self.guests[g].mem.base;
        for &(page, state) in &changes {
            self.storage.set_guest_state(space, page - base, state);
        }
        w.guest_ns += changes.len() as u64 * self.p.essa.ns();
        self.guests[g].stats.essa += changes.len() as u64;
        changes.clear();
        self.guests[g].mem.essa = changes;
    }

    /// A page-cache lookup of `block`: the page caching it, unless there is none or CP
    /// discarded it (a volatile page under CMMA). That is a discard fault: Linux drops the
    /// page from its page cache (it becomes unused) and the caller reads the block again.
    pub(super) fn cached(&mut self, g: usize, block: u32, w: &mut Work) -> Option<u32> {
        let m = &mut self.guests[g].mem;
        let i = m.lookup(block)?;
        let pc = m.pool_global(i);
        if !(m.cmma && self.storage.is_discarded(self.guests[g].space, pc)) {
            return Some(pc);
        }
        self.guests[g].mem.discard_cached(block);
        self.guests[g].stats.discard_faults += 1;
        w.guest_ns += self.p.linux_discard_fault.ns();
        self.apply_essa(g, w);
        None
    }

    /// Task `t` is done with its page-cache page, which now holds what the device holds (the
    /// read was copied out, or the write of it started): it lets the page go, clean, with
    /// buffer heads if the file system attached them (`buffers`).
    pub(super) fn pc_page_done(&mut self, g: usize, t: u32, buffers: bool, w: &mut Work) {
        let ti = t as usize;
        let pc = self.tasks[ti].pc_page;
        self.tasks[ti].pc_page = NONE;
        self.guests[g].mem.page_cache_clean(pc, buffers);
        self.apply_essa(g, w);
    }

    /// Allocate a page-cache page for `block` (reclaiming as Linux does); returns its page.
    pub(super) fn pc_alloc(&mut self, g: usize, block: u32, w: &mut Work) -> u32 {
        let (i, scanned) = self.guests[g].mem.alloc_for(block);
        self.after_alloc(g, scanned, w);
        self.guests[g].mem.pool_global(i)
    }

    /// After a Linux allocation: charge direct reclaim, wake kswapd below the low watermark,
    /// and start the swap writes reclaim decided on.
    pub(super) fn after_alloc(&mut self, g: usize, scanned: u64, w: &mut Work) {
        w.guest_ns += scanned * self.p.linux_scan_page.ns();
        self.apply_essa(g, w);
        let gs = &mut self.guests[g];
        if gs.mem.needs_kswapd() {
            gs.mem.kswapd_queued = true;
            let kt = gs.kswapd_task;
            gs.ready.push_back(kt);
        }
        self.start_swap_writes(g, w);
    }

    /// Linux writes the pages reclaim swapped out. The channel program reads each page, so CP
    /// must have it in a frame: from XSTOR at once, from DASD by a page-in that the write then
    /// waits for (double paging).
    fn start_swap_writes(&mut self, g: usize, w: &mut Work) {
        if self.guests[g].mem.swap_out.is_empty() {
            return;
        }
        let mut outs = std::mem::take(&mut self.guests[g].mem.swap_out);
        for o in &outs {
            let dev = match self.swap_place(g, o.slot) {
                Place::Dasd(dev) => dev,
                Place::Mem(target, dpage) => {
                    self.mem_swap_write(g, o.page, target, dpage, w);
                    continue;
                }
            };
            match self.host_touch(g, o.page, false, w) {
                Touch::OnDasd { group } => {
                    self.guests[g].stats.page_faults_dasd += 1;
                    self.guests[g].stats.double_paging += 1;
                    self.start_pagein(group, g as u32, Waiter::SwapWrite { dev });
                }
                r => {
                    if r == Touch::FromXstor {
                        self.guests[g].stats.double_paging += 1;
                    }
                    self.submit_io(dev, Origin::SwapWrite, 1, true);
                }
            }
        }
        outs.clear();
        self.guests[g].mem.swap_out = outs;
        self.flush_page_writes();
    }

    /// The pages a major fault reads ahead are targets of the same I/O, so CP must have them
    /// in frames; one CP has paged out is left on swap instead (a simplification: CP would
    /// page it in before starting the read). Returns the pages read ahead.
    fn check_readahead(&mut self, g: usize, w: &mut Work) -> u32 {
        let mut ra = std::mem::take(&mut self.guests[g].mem.readahead);
        let mut n = 0;
        for &(anon, page) in &ra {
            if self.guests[g].mem.anon_page(anon) != Some(page) {
                continue;
            }
            if self
                .storage
                .is_resident(crate::cp::storage::SpaceId(g as u32), page)
            {
                self.host_touch(g, page, true, w);
                n += 1;
            } else {
                self.guests[g].mem.cancel_readahead(anon, page);
            }
        }
        ra.clear();
        self.guests[g].mem.readahead = ra;
        n
    }
}
