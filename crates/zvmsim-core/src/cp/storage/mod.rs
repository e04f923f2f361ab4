//! Host real storage management (CP): frames of central storage below and above 2 GB, the
//! available lists and demand scan, page management blocks (PGMBKs), expanded storage and DASD
//! page slots with block paging.
//!
//! CP pages address spaces: a guest's storage today; a saved segment shared by several guests
//! or a CP-owned space (VDISK, minidisk cache) next. Each space is a range of one dense page
//! index, and every reference goes through `touch(space, page, access)`, whose result says what
//! CP did. Every page is in one place: never touched, a frame, an XSTOR block, or a DASD slot, plus the allowed frame-and-slot copy: a page read
//! back from DASD keeps its slot, so stealing it again needs no write while it is unchanged;
//! once changed, the slot stays assigned (stale) until the page is written again elsewhere.
//!
//! Release differences (see ../shared/reference/storage-management.md):
//! * z/VM 5.2 keeps PGMBKs below 2 GB (two contiguous frames per 1 MB segment with resident
//!   pages); a shortage of such pairs triggers demand scan among the frames below 2 GB even when
//!   frames above are free, and searching the list for a contiguous pair costs CP time. Frames
//!   for DASD paging I/O (block page-ins) are found by a walk of the available list, which costs
//!   CP time in proportion to its length (`ModelParams::avail_search_frames`).
//! * z/VM 5.3 places PGMBKs anywhere and finds frames in constant time.

use crate::config::params::{AvailSearch, ModelParams};
use crate::config::scenario::ZvmLevel;
use crate::cp::xstor::Xstor;

pub const NONE: u32 = u32::MAX;
/// A frame CP owns (nucleus, control blocks, PGMBKs).
const CP_OWNED: u32 = u32::MAX - 1;
/// Frames below the 2 GB line.
pub const FRAMES_BELOW_2G: u32 = 524_288;
/// Pages of a 1 MB segment (one PGMBK maps one segment).
pub const SEG_PAGES: u32 = 256;

// Page state word: the frame number in the low 28 bits (FRAME_NONE when not resident) and
// flags above it, so that a reference costs one memory access. The reference bit of a frame is
// kept with its page, as the hardware keeps it in the frame's storage key. Whether a page was
// ever used needs no bit: a used page always has a place (frame, XSTOR block or slot).
const FMASK: u32 = 0x0FFF_FFFF;
const FRAME_NONE: u32 = FMASK;
const REF: u32 = 1 << 28;
/// Changed since the copy on its slot was written.
const CHANGED: u32 = 1 << 29;
/// Reserved for the guest's page state under CMMA (stable, unused, potentially volatile,
/// volatile: the two bits the ESSA instruction sets; z/VM's CMMA support). Not used yet.
#[allow(dead_code)]
const GUEST_STATE: u32 = 0b11 << 30;
/// Largest central storage the page-state word can address (1 TB).
pub const MAX_FRAMES: u32 = FMASK;

/// An address space CP pages (index into the spaces given to `Storage::new`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpaceId(pub u32);

/// Who an address space belongs to, for the per-user page counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A guest's virtual storage (the guest's index).
    Guest(u32),
}

/// An address space to create: its owner and size in pages (a multiple of 256, whole segments).
#[derive(Debug, Clone, Copy)]
pub struct SpaceSpec {
    pub owner: Owner,
    pub pages: u32,
}

/// How a page is referenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    /// The reference changes the page (its DASD copy, if any, goes stale).
    Write,
}

impl Access {
    #[inline]
    pub fn write(write: bool) -> Self {
        if write {
            Access::Write
        } else {
            Access::Read
        }
    }
}

/// What a reference found, and what CP did about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// Already in central storage.
    Resident,
    /// First use: CP supplied a cleared frame.
    FirstUse,
    /// Brought back from expanded storage synchronously (a page fault CP resolved at once).
    FromXstor,
    /// On DASD: a block read of paging group `group` must complete first; the caller starts
    /// it (or joins one under way) and retries the reference afterwards.
    OnDasd { group: u32 },
}

impl Touch {
    /// The page is in a frame now.
    #[inline]
    pub fn is_resident(self) -> bool {
        !matches!(self, Touch::OnDasd { .. })
    }
}

/// Where an address space's pages are (the Performance Toolkit's per-user page counts).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PageLocations {
    pub resident: u64,
    pub below_2g: u64,
    pub xstor: u64,
    /// DASD slots held (including frame-and-slot copies).
    pub dasd: u64,
}

/// CP work done on behalf of a reference: CPU nanoseconds to charge.
#[derive(Debug, Default, Clone, Copy)]
pub struct CpWork {
    pub ns: u64,
}

/// A paging write CP started (block page-out); the device model times it.
#[derive(Debug, Clone, Copy)]
pub struct PageWrite {
    pub volume: u32,
    pub pages: u32,
}

/// Counters of page movement (Performance Toolkit's storage and paging screens).
#[derive(Debug, Default, Clone, Copy)]
pub struct Movement {
    pub ms_to_xs: u64,
    pub xs_to_ms: u64,
    pub xs_to_dasd: u64,
    pub ms_to_dasd: u64,
    pub dasd_to_ms: u64,
    pub pagein_dasd_blocks: u64,
    pub steals: u64,
    pub scanned: u64,
    pub scans: u64,
    pub below2g_scans: u64,
    pub first_touch: u64,
    pub pgmbk_allocs: u64,
}

pub struct Storage {
    level: ZvmLevel,
    p: ModelParams,
    // --- pages (guest virtual storage, all guests) ---
    pg: Vec<u32>,
    pg_xstor: Vec<u32>,
    pg_slot: Vec<u32>,
    /// First page of each address space, and the end of the last (ascending).
    space_base: Vec<u32>,
    // --- frames ---
    fr_page: Vec<u32>,
    avail_lo: Vec<u32>,
    /// Exact count of free frames below 2 GB (`avail_lo` may hold stale entries).
    lo_free_count: u64,
    avail_hi: Vec<u32>,
    /// Free below-2 GB frames as a bitmap, for contiguous-pair search (5.2 PGMBKs).
    lo_free: Vec<u64>,
    lo_cursor: u32,
    hand: u32,
    hand_lo: u32,
    low_mark: u32,
    high_mark: u32,
    pageable: u32,
    // --- segments and PGMBKs ---
    seg_resident: Vec<u16>,
    /// The two frames of each segment's PGMBK (NONE when it has none).
    seg_pgmbk: Vec<[u32; 2]>,
    /// Segments whose last resident page left (candidates for PGMBK page-out; may be stale).
    empty_segs: Vec<u32>,
    pgmbk_frames: u64,
    // --- expanded storage ---
    pub xstor: Xstor,
    // --- DASD paging space ---
    slot_page: Vec<u32>,
    block: u32,
    grp_live: Vec<u8>,
    vol_group_base: Vec<u32>,
    vol_free_groups: Vec<Vec<u32>>,
    next_vol: usize,
    free_groups: u64,
    /// Slot groups kept back so that CP can finish the page-outs under way when it detects
    /// that paging space is full (the run then ends as z/VM does, with abend PGT004).
    reserve_groups: u64,
    /// Pending page-outs not yet written as a block (no-XSTOR systems).
    open_block: Vec<u32>,
    pub writes: Vec<PageWrite>,
    // --- accounting ---
    pub moved: Movement,
    resident: u64,
    resident_below: u64,
    on_xstor: u64,
    on_slot: u64,
    slots_total: u64,
    pub paging_full: bool,
    touched: u64,
    /// Per address space: pages where they are (the Performance Toolkit's per-user counts).
    space_resident: Vec<u64>,
    space_below: Vec<u64>,
    space_xstor: Vec<u64>,
    space_slots: Vec<u64>,
}

impl Storage {
    /// `spaces`: the address spaces, each a multiple of 256 pages. `volume_slots`: slots per
    /// paging volume.
    pub fn new(
        level: ZvmLevel,
        params: &ModelParams,
        frames: u32,
        cp_frames: u32,
        xstor_blocks: u32,
        volume_slots: &[u64],
        spaces: &[SpaceSpec],
    ) -> Self {
        let total_pages: u64 = spaces.iter().map(|s| s.pages as u64).sum();
        let total_pages = total_pages as usize;
        let mut space_base = Vec::with_capacity(spaces.len() + 1);
        let mut acc = 0u32;
        for s in spaces {
            space_base.push(acc);
            acc += s.pages;
        }
        space_base.push(acc);
        let n_spaces = spaces.len();
        let block = params.paging_block.clamp(1, 64);
        let mut vol_group_base = vec![0u32];
        let mut vol_free_groups = Vec::new();
        for &s in volume_slots {
            let groups = (s / block as u64) as u32;
            let base = *vol_group_base.last().unwrap_or(&0);
            // Highest group first so that pop() hands out low slot numbers first.
            vol_free_groups.push((base..base + groups).rev().collect::<Vec<u32>>());
            vol_group_base.push(base + groups);
        }
        let groups_total = *vol_group_base.last().unwrap_or(&0) as usize;
        let mut st = Storage {
            level,
            p: params.clone(),
            pg: vec![FRAME_NONE; total_pages],
            pg_xstor: vec![NONE; total_pages],
            pg_slot: vec![NONE; total_pages],
            space_base,
            fr_page: vec![NONE; frames as usize],
            avail_lo: Vec::new(),
            lo_free_count: 0,
            avail_hi: Vec::new(),
            lo_free: vec![0; (FRAMES_BELOW_2G as usize).div_ceil(64)],
            lo_cursor: 0,
            hand: 0,
            hand_lo: 0,
            low_mark: 0,
            high_mark: 0,
            pageable: 0,
            seg_resident: vec![0; total_pages.div_ceil(SEG_PAGES as usize)],
            empty_segs: Vec::new(),
            seg_pgmbk: vec![[NONE, NONE]; total_pages.div_ceil(SEG_PAGES as usize)],
            pgmbk_frames: 0,
            xstor: Xstor::new(xstor_blocks),
            slot_page: vec![NONE; groups_total * block as usize],
            block,
            grp_live: vec![0; groups_total],
            vol_group_base,
            vol_free_groups,
            next_vol: 0,
            free_groups: groups_total as u64,
            reserve_groups: 0,
            open_block: Vec::new(),
            writes: Vec::new(),
            moved: Movement::default(),
            resident: 0,
            resident_below: 0,
            on_xstor: 0,
            on_slot: 0,
            slots_total: groups_total as u64 * block as u64,
            paging_full: false,
            touched: 0,
            space_resident: vec![0; n_spaces],
            space_below: vec![0; n_spaces],
            space_xstor: vec![0; n_spaces],
            space_slots: vec![0; n_spaces],
        };
        // CP's nucleus and fixed control blocks occupy the lowest frames.
        let cp = cp_frames.min(frames / 2);
        for f in 0..cp {
            st.fr_page[f as usize] = CP_OWNED;
        }
        for f in (cp..frames).rev() {
            st.free_frame(f);
        }
        st.pageable = frames - cp;
        st.low_mark = ((st.pageable as f64 * params.avail_low_fraction) as u32).max(64);
        st.high_mark =
            ((st.pageable as f64 * params.avail_high_fraction) as u32).max(st.low_mark + 64);
        st.reserve_groups = (4 * st.high_mark as u64 / block as u64 + 256).min(st.free_groups / 4);
        st
    }

    // ------------------------------------------------------------------ queries

    pub fn pages(&self) -> usize {
        self.pg.len()
    }
    pub fn frames(&self) -> usize {
        self.fr_page.len()
    }
    pub fn resident(&self) -> u64 {
        self.resident
    }
    pub fn resident_below_2g(&self) -> u64 {
        self.resident_below
    }
    pub fn on_xstor(&self) -> u64 {
        self.on_xstor
    }
    /// Pages with a copy on DASD (slots in use), including frame-and-slot copies.
    pub fn on_dasd(&self) -> u64 {
        self.on_slot
    }
    pub fn slots_total(&self) -> u64 {
        self.slots_total
    }
    /// Pages ever referenced.
    pub fn touched(&self) -> u64 {
        self.touched
    }
    pub fn pgmbk_frames(&self) -> u64 {
        self.pgmbk_frames
    }
    /// Free frames below 2 GB.
    pub fn available_below_2g(&self) -> u64 {
        self.lo_free_count
    }
    pub fn available(&self) -> u64 {
        self.avail_free()
    }
    /// Where space `s`'s pages are.
    pub fn space_locations(&self, s: SpaceId) -> PageLocations {
        let i = s.0 as usize;
        PageLocations {
            resident: self.space_resident[i],
            below_2g: self.space_below[i],
            xstor: self.space_xstor[i],
            dasd: self.space_slots[i],
        }
    }
    #[inline]
    fn global(&self, s: SpaceId, page: u32) -> u32 {
        self.space_base[s.0 as usize] + page
    }
    pub fn is_resident(&self, s: SpaceId, page: u32) -> bool {
        self.pg[self.global(s, page) as usize] & FMASK != FRAME_NONE
    }
    /// Ever referenced: a used page always has a place.
    pub fn was_touched(&self, s: SpaceId, page: u32) -> bool {
        let i = self.global(s, page) as usize;
        self.pg[i] & FMASK != FRAME_NONE || self.pg_xstor[i] != NONE || self.pg_slot[i] != NONE
    }
    pub fn page_in_xstor(&self, s: SpaceId, page: u32) -> bool {
        self.pg_xstor[self.global(s, page) as usize] != NONE
    }
    pub fn page_slot(&self, s: SpaceId, page: u32) -> u32 {
        self.pg_slot[self.global(s, page) as usize]
    }
    /// Paging volume holding a slot group.
    pub fn volume_of_group(&self, group: u32) -> u32 {
        (self.vol_group_base.partition_point(|&b| b <= group) - 1) as u32
    }
    /// Pages of a slot group that a block read brings in.
    pub fn group_live(&self, group: u32) -> u32 {
        self.grp_live[group as usize] as u32
    }

    /// The address space of a global page (for the per-space counters, on page movements only).
    fn space_of(&self, page: u32) -> usize {
        self.space_base.partition_point(|&b| b <= page) - 1
    }

    // ------------------------------------------------------------------ references

    /// A reference to `page` of address space `s`. Resolves what CP resolves synchronously
    /// (first use, XSTOR) and reports a DASD page-in to start otherwise.
    #[inline]
    pub fn touch(&mut self, s: SpaceId, page: u32, access: Access, cp: &mut CpWork) -> Touch {
        let page = self.global(s, page);
        let write = access == Access::Write;
        let i = page as usize;
        let st = self.pg[i];
        if st & FMASK != FRAME_NONE {
            if write && st & CHANGED == 0 {
                self.mark_changed(page);
            }
            self.pg[i] |= REF;
            return Touch::Resident;
        }
        self.touch_slow(page, write, cp)
    }

    #[cold]
    fn touch_slow(&mut self, page: u32, write: bool, cp: &mut CpWork) -> Touch {
        let i = page as usize;
        let xb = self.pg_xstor[i];
        if xb != NONE {
            // Synchronous page-in from expanded storage: the block is released.
            self.xstor.release(xb);
            self.pg_xstor[i] = NONE;
            self.on_xstor -= 1;
            let g = self.space_of(page);
            self.space_xstor[g] -= 1;
            self.moved.xs_to_ms += 1;
            cp.ns += self.p.cp_pagein_xstor.ns();
            self.make_resident(page, false, cp);
            // No DASD copy exists: the page must be written if stolen again.
            self.pg[i] |= CHANGED;
            if write {
                self.mark_changed(page);
            }
            Touch::FromXstor
        } else if self.pg_slot[i] != NONE {
            Touch::OnDasd {
                group: self.pg_slot[i] / self.block,
            }
        } else {
            // First reference: CP supplies a cleared frame.
            self.moved.first_touch += 1;
            self.touched += 1;
            self.pg[i] |= CHANGED;
            self.make_resident(page, false, cp);
            if write {
                self.mark_changed(page);
            }
            Touch::FirstUse
        }
    }

    /// The page is changed: a copy on DASD is stale from now on. CP keeps the slot assigned
    /// until it writes the page again (to a new block) or releases it, so stale slots still
    /// occupy paging space (IBM: keep DASD paging space below 50 % used).
    #[inline]
    fn mark_changed(&mut self, page: u32) {
        let i = page as usize;
        self.pg[i] |= CHANGED;
        if !self.p.keep_stale_slots && self.pg_slot[i] != NONE {
            let s = self.pg_slot[i];
            self.release_slot(page, s);
        }
    }

    /// A block read of `group` completed: every page of the group not in central storage is
    /// made resident; each keeps its slot (unchanged copy). Returns the pages validated.
    pub fn complete_pagein(&mut self, group: u32, cp: &mut CpWork) -> u32 {
        let b = self.block as usize;
        let base = group as usize * b;
        let mut n = 0;
        cp.ns += self.p.cp_pagein_dasd.ns();
        self.moved.pagein_dasd_blocks += 1;
        for s in base..base + b {
            let page = self.slot_page[s];
            if page != NONE && self.pg[page as usize] & FMASK == FRAME_NONE {
                self.make_resident(page, true, cp);
                // Block-read pages are not referenced yet, except the one that faulted, which
                // the caller touches again.
                self.pg[page as usize] &= !REF;
                self.moved.dasd_to_ms += 1;
                n += 1;
            }
        }
        n
    }

    fn make_resident(&mut self, page: u32, paging_io: bool, cp: &mut CpWork) {
        let f = self.alloc_frame(paging_io, cp);
        let i = page as usize;
        self.pg[i] = (self.pg[i] & !FMASK) | f | REF;
        self.fr_page[f as usize] = page;
        self.resident += 1;
        let g = self.space_of(page);
        self.space_resident[g] += 1;
        if f < FRAMES_BELOW_2G {
            self.resident_below += 1;
            self.space_below[g] += 1;
        }
        let seg = i / SEG_PAGES as usize;
        if self.seg_resident[seg] == 0 && self.seg_pgmbk[seg][0] == NONE {
            self.alloc_pgmbk(seg, cp);
        }
        self.seg_resident[seg] += 1;
    }

    // ------------------------------------------------------------------ frames

    fn free_frame(&mut self, f: u32) {
        self.fr_page[f as usize] = NONE;
        if f < FRAMES_BELOW_2G {
            self.avail_lo.push(f);
            self.lo_free[(f / 64) as usize] |= 1 << (f % 64);
            self.lo_free_count += 1;
        } else {
            self.avail_hi.push(f);
        }
    }

    fn take_lo(&mut self) -> Option<u32> {
        while let Some(f) = self.avail_lo.pop() {
            // Entries taken by a contiguous-pair allocation are skipped (lazy removal).
            if self.lo_free[(f / 64) as usize] & (1 << (f % 64)) != 0 {
                self.lo_free[(f / 64) as usize] &= !(1 << (f % 64));
                self.lo_free_count -= 1;
                return Some(f);
            }
        }
        None
    }

    /// A frame for a guest page: above 2 GB first (CP keeps frames below 2 GB for what must
    /// live there), demand scan when the available list runs low.
    fn alloc_frame(&mut self, paging_io: bool, cp: &mut CpWork) -> u32 {
        // Taking a frame off the available list: constant time on z/VM 5.3 ("fast available
        // list searching"); on 5.2 a walk of the list for a frame of the wanted kind, on
        // average half its length, for the requests `avail_search_frames` names (by default
        // the frames of DASD block page-ins; a synchronous XSTOR page-in or a first reference
        // takes the head of the list).
        let walks = match self.p.avail_search_frames {
            AvailSearch::All => true,
            AvailSearch::Paging | AvailSearch::PagingMigration => paging_io,
        };
        let search = match self.level {
            ZvmLevel::V5R2 if walks => self.avail_search_ns(),
            _ => 0,
        };
        cp.ns += self.p.cp_alloc_frame.ns() + search;
        if self.avail_free() < self.low_mark as u64 {
            self.demand_scan(cp);
        }
        if let Some(f) = self.avail_hi.pop() {
            return f;
        }
        if let Some(f) = self.take_lo() {
            return f;
        }
        // Emergency: steal until a frame is free.
        self.demand_scan(cp);
        self.avail_hi
            .pop()
            .or_else(|| self.take_lo())
            .expect("demand scan freed no frame")
    }

    /// z/VM 5.2: CP time of one walk of the available list (half its length on average).
    fn avail_search_ns(&self) -> u64 {
        self.p.cp_avail_search.ns() * self.avail_free() / 2
    }

    fn avail_free(&self) -> u64 {
        self.avail_hi.len() as u64 + self.lo_free_count
    }

    /// A PGMBK for segment `seg`: two contiguous frames, below 2 GB on z/VM 5.2.
    fn alloc_pgmbk(&mut self, seg: usize, cp: &mut CpWork) {
        self.moved.pgmbk_allocs += 1;
        let pair = match self.level {
            ZvmLevel::V5R2 => self.alloc_lo_pair(cp),
            // Anywhere: 5.3's contiguous-frame management finds a pair at no extra cost.
            ZvmLevel::V5R3 => [self.alloc_frame(false, cp), self.alloc_frame(false, cp)],
        };
        for f in pair {
            self.fr_page[f as usize] = CP_OWNED;
        }
        self.seg_pgmbk[seg] = pair;
        self.pgmbk_frames += 2;
    }

    fn release_pgmbk(&mut self, seg: usize) {
        let pair = self.seg_pgmbk[seg];
        if pair[0] == NONE {
            return;
        }
        self.seg_pgmbk[seg] = [NONE, NONE];
        self.pgmbk_frames -= 2;
        for f in pair {
            self.free_frame(f);
        }
    }

    /// z/VM 5.2: search the below-2 GB frames for a free contiguous pair (CP time per frame
    /// examined); when none is free, demand scan steals below 2 GB, even with frames above
    /// 2 GB free.
    fn alloc_lo_pair(&mut self, cp: &mut CpWork) -> [u32; 2] {
        for attempt in 0..4 {
            if let Some(f) = self.find_lo_pair(cp) {
                self.lo_free[(f / 64) as usize] &= !(1 << (f % 64));
                self.lo_free[((f + 1) / 64) as usize] &= !(1 << ((f + 1) % 64));
                self.lo_free_count -= 2;
                return [f, f + 1];
            }
            self.scan_below_2g(cp, attempt >= 2);
        }
        // Below 2 GB is exhausted by CP's own blocks: take any two frames so the run goes on
        // (the counters show the condition).
        [self.alloc_frame(false, cp), self.alloc_frame(false, cp)]
    }

    /// Walk the free frames below 2 GB for two adjacent ones; CP pays for each free-list entry
    /// it visits (the bitmap stands for the list, in address order from a roving cursor).
    fn find_lo_pair(&mut self, cp: &mut CpWork) -> Option<u32> {
        let words = self.lo_free.len() as u32;
        let mut visited = 0u64;
        let mut found = None;
        for k in 0..words {
            let w = (self.lo_cursor + k) % words;
            let bits = self.lo_free[w as usize];
            if bits == 0 {
                continue;
            }
            let pairs = bits & (bits >> 1) & 0x5555_5555_5555_5555;
            if pairs != 0 {
                let bit = pairs.trailing_zeros();
                visited += (bits & ((1u64 << bit) - 1)).count_ones() as u64 + 1;
                self.lo_cursor = w;
                found = Some(w * 64 + bit);
                break;
            }
            visited += bits.count_ones() as u64;
        }
        cp.ns += visited * self.p.cp_avail_search.ns();
        found
    }

    // ------------------------------------------------------------------ demand scan

    /// Steal frames until the available list reaches its high threshold. The clock hand
    /// approximates CP's passes over the frame-owned lists: a referenced frame has its
    /// reference bit reset (it ages), an unreferenced one is stolen.
    fn demand_scan(&mut self, cp: &mut CpWork) {
        self.moved.scans += 1;
        let want = (self.high_mark as u64).saturating_sub(self.avail_free());
        self.release_empty_pgmbks(want, false, cp);
        let n = self.fr_page.len() as u32;
        let mut examined: u64 = 0;
        let limit = 3 * n as u64;
        while self.avail_free() < self.high_mark as u64 && examined < limit {
            let f = self.hand;
            self.hand = if self.hand + 1 == n { 0 } else { self.hand + 1 };
            let page = self.fr_page[f as usize];
            if page >= CP_OWNED {
                continue;
            }
            examined += 1;
            if self.pg[page as usize] & REF != 0 && examined < 2 * n as u64 {
                self.pg[page as usize] &= !REF;
                continue;
            }
            self.steal(f, cp);
        }
        self.moved.scanned += examined;
        cp.ns += examined * self.p.cp_scan_frame.ns();
        self.flush_open_block();
        self.xstor.compact_if_needed();
    }

    /// z/VM 5.2: demand scan for frames below 2 GB. It walks the users' frame lists, so it
    /// examines frames above 2 GB too (resetting their reference bits) to find the few below.
    fn scan_below_2g(&mut self, cp: &mut CpWork, emergency: bool) {
        self.moved.below2g_scans += 1;
        let ratio = (self.fr_page.len() as u64 / FRAMES_BELOW_2G as u64).max(1);
        let want =
            (self.high_mark as u64 * FRAMES_BELOW_2G as u64 / self.fr_page.len() as u64).max(64);
        let mut got = self.release_empty_pgmbks(want, true, cp);
        let mut examined = 0u64;
        let n = self.fr_page.len() as u32;
        // One pass examines a bounded share of the frames below 2 GB, as a demand-scan pass does.
        while got < want && examined < 16 * want {
            let f = self.hand_lo;
            self.hand_lo = if self.hand_lo + 1 >= FRAMES_BELOW_2G.min(n) {
                0
            } else {
                self.hand_lo + 1
            };
            let page = self.fr_page[f as usize];
            if page >= CP_OWNED {
                continue;
            }
            examined += 1;
            if self.pg[page as usize] & REF != 0 && !emergency {
                self.pg[page as usize] &= !REF;
                continue;
            }
            self.steal(f, cp);
            got += 1;
        }
        // Frames above 2 GB visited on the way: examined and aged.
        let passed = examined * (ratio - 1);
        for _ in 0..passed.min(n as u64) {
            let f = self.hand;
            self.hand = if self.hand + 1 == n { 0 } else { self.hand + 1 };
            let page = self.fr_page[f as usize];
            if page < CP_OWNED {
                self.pg[page as usize] &= !REF;
            }
        }
        let total = examined + passed;
        self.moved.scanned += total;
        cp.ns += total * self.p.cp_scan_frame.ns();
        self.flush_open_block();
        self.xstor.compact_if_needed();
    }

    /// Take frame `f` from its page: an unchanged page with a DASD copy is simply dropped;
    /// otherwise it is paged out to XSTOR (or, with no XSTOR, into a DASD block).
    fn steal(&mut self, f: u32, cp: &mut CpWork) {
        let page = self.fr_page[f as usize];
        let i = page as usize;
        self.moved.steals += 1;
        cp.ns += self.p.cp_steal.ns();
        let keep_slot = self.pg_slot[i] != NONE && self.pg[i] & CHANGED == 0;
        if !keep_slot {
            if self.pg_slot[i] != NONE {
                let s = self.pg_slot[i];
                self.release_slot(page, s);
            }
            if self.xstor.capacity() > 0 {
                if self.xstor.free() == 0 {
                    self.migrate(cp);
                }
                if let Some(b) = self.xstor.store(page) {
                    self.pg_xstor[i] = b;
                    self.on_xstor += 1;
                    let g = self.space_of(page);
                    self.space_xstor[g] += 1;
                    self.moved.ms_to_xs += 1;
                    cp.ns += self.p.cp_pageout_xstor.ns();
                } else {
                    self.page_out_to_dasd(page);
                }
            } else {
                self.page_out_to_dasd(page);
            }
        }
        self.pg[i] = (self.pg[i] | FRAME_NONE) & !REF;
        self.resident -= 1;
        let g = self.space_of(page);
        self.space_resident[g] -= 1;
        if f < FRAMES_BELOW_2G {
            self.resident_below -= 1;
            self.space_below[g] -= 1;
        }
        let seg = i / SEG_PAGES as usize;
        self.seg_resident[seg] -= 1;
        self.free_frame(f);
        if self.seg_resident[seg] == 0 {
            // The PGMBK stays until demand scan pages it out: a segment refilled soon keeps it.
            self.empty_segs.push(seg as u32);
            if self.empty_segs.len() > 2 * self.seg_pgmbk.len() {
                // Bounded memory: drop stale entries and duplicates.
                let (res, pg) = (&self.seg_resident, &self.seg_pgmbk);
                self.empty_segs
                    .retain(|&x| res[x as usize] == 0 && pg[x as usize][0] != NONE);
                self.empty_segs.sort_unstable();
                self.empty_segs.dedup();
            }
        }
    }

    /// Page out the PGMBKs of segments with no resident page (demand scan takes them first:
    /// they free frames without paging any guest page). `below_2g_only` for 5.2's scan for
    /// frames below 2 GB. Returns the frames freed.
    fn release_empty_pgmbks(&mut self, want: u64, below_2g_only: bool, cp: &mut CpWork) -> u64 {
        let mut freed = 0;
        let mut keep = Vec::new();
        while freed < want {
            let Some(seg) = self.empty_segs.pop() else {
                break;
            };
            let seg = seg as usize;
            let pair = self.seg_pgmbk[seg];
            if self.seg_resident[seg] != 0 || pair[0] == NONE {
                continue;
            }
            if below_2g_only && pair[0] >= FRAMES_BELOW_2G {
                keep.push(seg as u32);
                continue;
            }
            self.release_pgmbk(seg);
            cp.ns += self.p.cp_steal.ns();
            freed += 2;
        }
        self.empty_segs.extend(keep);
        freed
    }

    fn page_out_to_dasd(&mut self, page: u32) {
        self.open_block.push(page);
        self.moved.ms_to_dasd += 1;
        if self.open_block.len() as u32 >= self.block {
            self.flush_open_block();
        }
    }

    /// Write the pages collected for one block to a free slot group.
    fn flush_open_block(&mut self) {
        if self.open_block.is_empty() {
            return;
        }
        let pages = std::mem::take(&mut self.open_block);
        self.write_block(&pages);
        self.open_block = pages;
        self.open_block.clear();
    }

    fn write_block(&mut self, pages: &[u32]) {
        let Some((vol, group)) = self.alloc_group() else {
            // Past the reserve: cannot happen within the one event that follows detection.
            self.paging_full = true;
            return;
        };
        if self.free_groups <= self.reserve_groups {
            self.paging_full = true;
        }
        let base = group as usize * self.block as usize;
        for (k, &page) in pages.iter().enumerate() {
            let s = (base + k) as u32;
            self.slot_page[s as usize] = page;
            self.pg_slot[page as usize] = s;
            self.pg[page as usize] &= !CHANGED;
            self.on_slot += 1;
            let g = self.space_of(page);
            self.space_slots[g] += 1;
        }
        self.grp_live[group as usize] = pages.len() as u8;
        self.writes.push(PageWrite {
            volume: vol,
            pages: pages.len() as u32,
        });
    }

    /// A free slot group, taking volumes in turn so block writes spread over all of them.
    fn alloc_group(&mut self) -> Option<(u32, u32)> {
        let nv = self.vol_free_groups.len();
        for k in 0..nv {
            let v = (self.next_vol + k) % nv;
            if let Some(g) = self.vol_free_groups[v].pop() {
                self.next_vol = (v + 1) % nv;
                self.free_groups -= 1;
                return Some((v as u32, g));
            }
        }
        None
    }

    fn release_slot(&mut self, page: u32, s: u32) {
        self.slot_page[s as usize] = NONE;
        self.pg_slot[page as usize] = NONE;
        self.on_slot -= 1;
        let g = self.space_of(page);
        self.space_slots[g] -= 1;
        let g = s / self.block;
        self.grp_live[g as usize] -= 1;
        if self.grp_live[g as usize] == 0 {
            // The whole group is free again: a block write can reuse it.
            let v = self.volume_of_group(g) as usize;
            self.vol_free_groups[v].push(g);
            self.free_groups += 1;
        }
    }

    // ------------------------------------------------------------------ XSTOR migration

    /// XSTOR full: migrate its oldest pages to DASD in blocks (XSTOR keeps exact ages, so
    /// this is true LRU among XSTOR pages).
    fn migrate(&mut self, cp: &mut CpWork) {
        // A few blocks at a time, as CP migrates when XSTOR is full.
        let want = (self.block as usize) * 4;
        let mut batch: Vec<u32> = Vec::with_capacity(self.block as usize);
        let mut moved = 0usize;
        while moved < want {
            let Some(page) = self.xstor.evict_oldest() else {
                break;
            };
            self.pg_xstor[page as usize] = NONE;
            self.on_xstor -= 1;
            let g = self.space_of(page);
            self.space_xstor[g] -= 1;
            batch.push(page);
            moved += 1;
            if batch.len() as u32 == self.block {
                self.write_block(&batch);
                batch.clear();
            }
        }
        if !batch.is_empty() {
            self.write_block(&batch);
        }
        self.moved.xs_to_dasd += moved as u64;
        cp.ns += moved as u64 * self.p.cp_migrate.ns();
        if self.level == ZvmLevel::V5R2
            && self.p.avail_search_frames == AvailSearch::PagingMigration
        {
            // Each page passes through a central-storage frame taken off the list.
            cp.ns += moved as u64 * self.avail_search_ns();
        }
    }

    // ------------------------------------------------------------------ invariants

    /// Checks that every page is in exactly one place (plus the allowed frame-and-slot copy)
    /// and that the counters equal the sums over pages. For tests; O(pages + frames).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut res = 0u64;
        let mut xs = 0u64;
        let mut sl = 0u64;
        let ng = self.space_resident.len();
        let mut per = vec![[0u64; 4]; ng];
        for i in 0..self.pg.len() {
            let f = match self.pg[i] & FMASK {
                FRAME_NONE => NONE,
                f => f,
            };
            let (x, s) = (self.pg_xstor[i], self.pg_slot[i]);
            let places = (f != NONE) as u32 + (x != NONE) as u32 + (s != NONE) as u32;
            if places > 1 && !(places == 2 && f != NONE && s != NONE) {
                return Err(format!(
                    "page {i} in {places} places (frame {f}, xstor {x}, slot {s})"
                ));
            }
            let stale_ok = self.p.keep_stale_slots && f != NONE;
            if s != NONE && self.pg[i] & CHANGED != 0 && !stale_ok {
                return Err(format!("page {i} is changed and keeps slot {s} while out of storage or with stale slots off"));
            }
            if f != NONE {
                res += 1;
                if self.fr_page[f as usize] != i as u32 {
                    return Err(format!("frame {f} does not point back to page {i}"));
                }
            }
            if x != NONE {
                xs += 1;
                if self.xstor.owner(x) != i as u32 {
                    return Err(format!("xstor block {x} does not point back to page {i}"));
                }
            }
            if s != NONE {
                sl += 1;
                if self.slot_page[s as usize] != i as u32 {
                    return Err(format!("slot {s} does not point back to page {i}"));
                }
            }
            let c = &mut per[self.space_of(i as u32)];
            c[0] += (f != NONE) as u64;
            c[1] += (f != NONE && f < FRAMES_BELOW_2G) as u64;
            c[2] += (x != NONE) as u64;
            c[3] += (s != NONE) as u64;
        }
        for (g, c) in per.iter().enumerate() {
            let kept = [
                self.space_resident[g],
                self.space_below[g],
                self.space_xstor[g],
                self.space_slots[g],
            ];
            if *c != kept {
                return Err(format!(
                    "space {g}: resident, below 2 GB, XSTOR, slots counted {kept:?}, summed over pages {c:?}"
                ));
            }
        }
        if res != self.resident || xs != self.on_xstor || sl != self.on_slot {
            return Err(format!(
                "counters: resident {}/{res}, xstor {}/{xs}, slots {}/{sl}",
                self.resident, self.on_xstor, self.on_slot
            ));
        }
        let owned = self.fr_page.iter().filter(|&&p| p < CP_OWNED).count() as u64;
        if owned != res {
            return Err(format!(
                "frames owned by pages {owned} != resident pages {res}"
            ));
        }
        let free = self.fr_page.iter().filter(|&&p| p == NONE).count() as u64;
        let cp = self.fr_page.iter().filter(|&&p| p == CP_OWNED).count() as u64;
        if free + cp + owned != self.fr_page.len() as u64 {
            return Err("frames not conserved".into());
        }
        let live: u64 = self.grp_live.iter().map(|&x| x as u64).sum();
        if live != sl {
            return Err(format!("group live counts {live} != slots in use {sl}"));
        }
        let lo: u64 = self.lo_free.iter().map(|w| w.count_ones() as u64).sum();
        if lo != self.lo_free_count {
            return Err(format!(
                "free frames below 2 GB: counter {} != bitmap {lo}",
                self.lo_free_count
            ));
        }
        if self.xstor.used() != xs {
            return Err(format!(
                "xstor used {} != pages in xstor {xs}",
                self.xstor.used()
            ));
        }
        Ok(())
    }
}
