//! Reading file pages for a server that sends them (Apache's sendfile), three ways:
//! - a minidisk file system through the page cache: a miss reads the aligned readahead
//!   window around the page with one I/O (2.6's 128 KB window); the task sleeps for it;
//! - ext2 on a dcssblk device mounted `-o xip`: the page is referenced where it is, in the
//!   segment's storage (CP's shared copy): no page-cache page, no copy;
//! - the same file system mounted without xip: dcssblk copies the page from the segment into
//!   a page-cache page of the guest (guest CPU), and later reads hit the page cache.
//!
//! Each call is restartable after a host page fault, as the other system calls are.
//! Simplification: the pages of a readahead window are in the page cache from the moment the
//! read starts (Linux would make a second reader wait on the locked pages).

use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::cp::storage::{Access, CpWork, SpaceId, Touch, NONE};
use crate::system::machine::Machine;

/// A dcssblk file system a guest has mounted read-only: the segments' copies it sees, in
/// device order (space, pages), and whether it is mounted with xip.
#[derive(Debug, Clone)]
pub(crate) struct DcssMount {
    pub runs: Vec<(SpaceId, u32)>,
    pub xip: bool,
}

impl DcssMount {
    /// Pages of the device.
    pub(crate) fn pages(&self) -> u64 {
        self.runs.iter().map(|r| r.1 as u64).sum()
    }

    /// First device page after the blocks mke2fs wrote (one per `EXT2_META_STRIDE`), where
    /// the copy (`dd` in `system/dcss_fs.rs`) put the files, in order.
    pub(crate) fn first_data(&self) -> u64 {
        self.pages()
            .div_ceil(crate::linux::dcssblk::EXT2_META_STRIDE)
    }

    /// The segment copy and page holding device page `p`.
    pub(crate) fn page_at(&self, mut p: u64) -> Option<(SpaceId, u32)> {
        for &(s, n) in &self.runs {
            if p < n as u64 {
                return Some((s, p as u32));
            }
            p -= n as u64;
        }
        None
    }

    /// Device page of file-set page `q`.
    fn place(&self, q: u64) -> Option<(SpaceId, u32)> {
        self.page_at(self.first_data() + q)
    }
}

impl Machine {
    /// Task `t` of guest `g` sends file-set page `block` from the guest's dcssblk mount.
    pub(crate) fn dcss_file_page(
        &mut self,
        g: usize,
        t: u32,
        block: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        self.dcss_fs_page(g, t, false, block, w)
    }

    /// Task `t` of guest `g` runs page `block` of its server's program text on the dcssblk
    /// file system mounted at `text.files_on`: with xip in the segment's shared copy (mapped,
    /// no page-cache page), else through the guest's page cache.
    pub(crate) fn dcss_text_page(
        &mut self,
        g: usize,
        t: u32,
        block: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        self.dcss_fs_page(g, t, true, block, w)
    }

    /// Page `block` of the file set on the read-only mount (`text`: the program text's).
    fn dcss_fs_page(
        &mut self,
        g: usize,
        t: u32,
        text: bool,
        block: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        let gs = &self.guests[g];
        let Some(fs) = (if text { &gs.text_files } else { &gs.dcss_mount }) else {
            return Ok(());
        };
        let (xip, at) = (fs.xip, fs.place(block as u64));
        let Some((space, page)) = at else {
            return Ok(());
        };
        if xip {
            return self.segment_touch(g, t, space, page, w);
        }
        let ti = t as usize;
        if self.tasks[ti].pc_page == NONE {
            if let Some(pc) = self.cached(g, block, w) {
                return self.touch(g, t, pc, false, true, w);
            }
            let page = self.pc_alloc(g, block, w);
            self.tasks[ti].pc_page = page;
        }
        // dcssblk's request: copy the segment's page into the page-cache page.
        let pc = self.tasks[ti].pc_page;
        self.segment_touch(g, t, space, page, w)?;
        self.touch(g, t, pc, true, true, w)?;
        w.guest_ns += self.p.dcssblk_request.ns() + self.p.linux_page_copy.ns();
        // ext2 on dcssblk reads with mpage_readpage: no buffer heads.
        self.pc_page_done(g, t, false, w);
        Ok(())
    }

    /// A kernel-mode reference to page `page` of a segment's copy: a page CP has on DASD
    /// stops the virtual CPU until its block page-in is done.
    pub(crate) fn segment_touch(
        &mut self,
        g: usize,
        t: u32,
        space: SpaceId,
        page: u32,
        w: &mut Work,
    ) -> Result<(), Block> {
        let sp = self.storage.space(space);
        let mut cp = CpWork::default();
        let r = self.storage.touch(sp, page, Access::Read, &mut cp);
        w.cp_ns += cp.ns;
        w.cp_system_ns += cp.system_ns;
        match r {
            Touch::OnDasd { group } => Err(Block::PageIn {
                group,
                task: t,
                sync: true,
            }),
            Touch::FromXstor => {
                self.guests[g].stats.page_faults_xstor += 1;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Task `t` sends page `block` of a file on a minidisk: a page-cache hit, or the read of
    /// the readahead window [`lo`, `lo + n`) (blocks; `at` is `lo`'s block on volume `dev`)
    /// with one I/O, after which the call is made again.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn file_page_ra(
        &mut self,
        g: usize,
        t: u32,
        dev: u32,
        block: u32,
        (lo, n, at): (u32, u32, u32),
        w: &mut Work,
    ) -> Result<(), Block> {
        let ti = t as usize;
        if self.tasks[ti].reading {
            // The window's data arrived: CP had its frames for the channel program.
            for b in lo..lo + n {
                if let Some(pc) = self.guests[g].mem.cached_page(b) {
                    self.touch(g, t, pc, true, true, w)?;
                }
            }
            // The window's pages are clean page-cache pages now: volatile under CMMA unless
            // the file system attached buffer heads (as after any read, `file_read`).
            let buffers = self.guests[g].mem.filesystem.buffers_on_read();
            for b in lo..lo + n {
                if let Some(pc) = self.guests[g].mem.cached_page(b) {
                    self.guests[g].mem.page_cache_clean(pc, buffers);
                }
            }
            self.apply_essa(g, w);
            self.tasks[ti].reading = false;
            self.tasks[ti].pc_page = NONE;
        }
        if self.tasks[ti].pc_page == NONE {
            if let Some(pc) = self.cached(g, block, w) {
                return self.touch(g, t, pc, false, true, w);
            }
            // pc_page marks the window under way (restart after a fault in reclaim).
            self.tasks[ti].pc_page = lo;
            self.tasks[ti].read_pages = 0;
        }
        for b in lo..lo + n {
            if self.guests[g].mem.cached_page(b).is_none() {
                let (_, scanned) = self.guests[g].mem.alloc_for(b);
                self.tasks[ti].read_pages += 1;
                self.after_alloc(g, scanned, w);
            }
        }
        self.tasks[ti].reading = true;
        Err(Block::DbRead {
            vol: dev,
            block: at,
            task: t,
        })
    }
}
