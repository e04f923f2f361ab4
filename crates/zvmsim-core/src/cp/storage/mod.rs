//! Host real storage management (CP): frames of central storage below and above 2 GB, the
//! available lists and demand scan, page management blocks (PGMBKs), expanded storage and DASD
//! page slots with block paging.
//!
//! CP pages address spaces: a guest's storage today; a saved segment shared by several guests
//! or a CP-owned space (VDISK, minidisk cache) next. Each space is a range of one dense page
//! index, and every reference goes through `touch(space, page, access)`, whose result says what
//! CP did. Every page is in one place: never touched, a frame, an XSTOR block, or a DASD slot,
//! plus the allowed frame-and-slot copy: a page read back from DASD keeps its slot, so stealing
//! it again needs no write while it is unchanged; once changed, the slot stays assigned (stale)
//! until the page is written again elsewhere.
//!
//! One file per mechanism: `frames` (available lists), `pgmbk` (page management blocks),
//! `demand_scan` (stealing frames), `agelist` (z/VM 6.3 and later: the global aging list in
//! place of demand scan), `slots` (DASD paging space and block page-out), `migrate` (XSTOR to
//! DASD), `release` (DIAGNOSE X'10'), `invariants` (the checks the tests run).
//! docs/storage.md describes the model and lists its constants with their sources.
//!
//! Release differences (IBM z/VM performance reports "64-bit" and "z/VM 5.3 storage
//! management"; the large-memory study, seed 002):
//! * z/VM 5.2 keeps PGMBKs below 2 GB (two contiguous frames per 1 MB segment with resident
//!   pages); a shortage of such pairs triggers demand scan among the frames below 2 GB even when
//!   frames above are free, and searching the list for a contiguous pair costs CP time. Frames
//!   for DASD paging I/O (block page-ins) are found by a walk of the available list, which costs
//!   CP time in proportion to its length (`ModelParams::avail_search_frames`).
//! * z/VM 5.3 places PGMBKs anywhere and finds frames in constant time; 5.4 manages real
//!   storage as 5.3 does.
//! * z/VM 6.4 and 7.1 (storage management of 6.3): frames leave the guests' frame-owned lists
//!   for a global aging list, invalid but still resident; a reference there revalidates the
//!   page without I/O, and frames are reclaimed from the list's head (`agelist`). No XSTOR.

use crate::config::params::ModelParams;
use crate::config::scenario::ZvmLevel;
use crate::cp::xstor::Xstor;
pub use agelist::AgelistState;
pub use cmma::{CmmaCounts, GuestState};
use pgmbk::PGMBK_FRAMES;

mod agelist;
mod blocks;
mod cmma;
mod counts;
pub use counts::{CpWork, Movement, PageLocations, PageWrite};
mod demand_scan;
mod frame_order;
mod frame_table;
mod frames;
mod invariants;
mod migrate;
mod pgmbk;
mod release;
mod shared_list;
mod slots;
pub use slots::VolumeUsage;
mod spaces;
pub use spaces::SegmentCounts;
#[cfg(test)]
mod test_util;
mod touch;
mod word;
mod working_set;

pub const NONE: u32 = u32::MAX;
/// A frame CP owns (nucleus, control blocks, PGMBKs).
const CP_OWNED: u32 = u32::MAX - 1;
/// Frames below the 2 GB line.
pub const FRAMES_BELOW_2G: u32 = 524_288;
/// Pages of a 1 MB segment (one PGMBK maps one segment).
pub const SEG_PAGES: u32 = 256;
/// Page words (8 bytes) in a 2 MB huge page: the unit first uses clear ahead (spaces.rs).
const CHUNK_WORDS: usize = 1 << 18;
/// CP's fixed frames take at most this share (1/n) of central storage, so that a toy LPAR keeps
/// pageable frames (inference: z/VM needs far less than half of any real LPAR; cp/nucleus.rs).
const CP_FRAMES_MAX_DIVISOR: u32 = 2;

// Page word, 64 bits, so that a reference and a fault each read one word: the place in the
// low 30 bits — the page's frame (below the frame count), its XSTOR block (frame count + block:
// a page in expanded storage has no frame) or FRAME_NONE — then two flags, then the page's DASD
// slot in 31 bits, and on top whether the page waits on the aging list. The reference bit of a
// frame is kept with its page, as the hardware keeps it in the frame's storage key. Whether a
// page was ever used needs no bit: a used page always has a place (frame, XSTOR block or slot).
const FMASK: u32 = 0x3FFF_FFFF;
const FRAME_NONE: u32 = FMASK;
const PLACE: u64 = FMASK as u64;
const REF: u64 = 1 << 30;
/// Changed since the copy on its slot was written.
const CHANGED: u64 = 1 << 31;
/// The slot field (bits 32-62); all ones is no slot. A page read back from DASD keeps its slot
/// beside its frame (KEEPSLOT), so both fields can be set.
const SLOT_SHIFT: u32 = 32;
const SLOT_FIELD: u64 = 0x7FFF_FFFF;
/// Paging slots a page word can name: slot numbers 0 to 2^31 - 2, 8 TB of paging space.
pub const MAX_SLOTS: u64 = SLOT_FIELD;
/// On the global aging list (z/VM 6.3 and later): the page is invalid, and its place still
/// names the frame it keeps there (no second array of kept frames: 4 bytes a page less).
const AGED: u64 = 1 << 63;
/// A page never used: no place, no slot. The array stores each word XOR this value
/// (`Storage::word`), so a page never used is a zero in memory never written.
const WORD_NONE: u64 = PLACE | (SLOT_FIELD << SLOT_SHIFT);
/// Largest central storage the model holds: the 2^30 frames of z/VM 7.3's 4 TB. The page word
/// names frames 0 to 2^30 - 2 (the last number is FRAME_NONE), so CP keeps the top frame of a
/// 4 TB LPAR. The guest's CMMA page state is not in the word but in a byte per page beside it
/// (cmma.rs), allocated only once a guest sets a page unused or volatile.
pub const MAX_FRAMES: u32 = FMASK + 1;

/// An address space CP pages (index into the spaces given to `Storage::new`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpaceId(pub u32);

/// A handle on an address space for references: its id and where its pages start in the
/// dense page index, so that a reference costs no lookup. Get it from `Storage::space`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    pub id: SpaceId,
    base: u32,
}

/// Who an address space belongs to, for the per-user page counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A guest's virtual storage (the guest's index).
    Guest(u32),
    /// A saved segment's shared pages (its system data file's index): one copy for all users.
    Segment(u32),
    /// A guest's nonshared copy of a saved segment (exclusive types, or LOADNSHR).
    Nonshared { guest: u32, segment: u32 },
    /// A virtual disk in storage (guest index, virtual device number), CP-owned.
    Vdisk { guest: u32, vdev: u32 },
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
    /// On the global aging list (z/VM 6.3 and later): CP revalidated the page in its frame, a
    /// fault resolved without I/O.
    Revalidated,
    /// A read-only saved segment's page dropped under pressure: CP read it again from the
    /// segment's spool file (resolved as one step; see spaces.rs).
    FromSpool,
}

impl Touch {
    /// The page is in a frame now.
    #[inline]
    pub fn is_resident(self) -> bool {
        !matches!(self, Touch::OnDasd { .. })
    }
}

pub struct Storage {
    level: ZvmLevel,
    p: ModelParams,
    // --- pages (guest virtual storage, all guests) ---
    pg: crate::engine::huge::HugeArray<u64>,
    /// Chunks of page words asked to be cleared ahead of first use (spaces.rs).
    pg_ahead: fixedbitset::FixedBitSet,
    /// Place numbers from here on in the page word are XSTOR blocks: the number of frames.
    xs_base: u32,
    /// First page of each address space, and the end of the last (ascending).
    space_base: Vec<u32>,
    // --- frames ---
    fr_page: frame_table::FrameTable,
    avail_lo: Vec<u32>,
    /// Exact count of free frames below 2 GB (`avail_lo` may hold stale entries).
    lo_free_count: u64,
    avail_hi: crate::engine::freelist::FreePages,
    /// Free below-2 GB frames as a bitmap, for contiguous-pair search (5.2 PGMBKs).
    lo_free: Vec<u64>,
    lo_cursor: u32,
    hand: u32,
    hand_lo: u32,
    /// Demand scan's hand over the saved segments' shared pages (shared_list.rs).
    shared_hand: u32,
    low_mark: u32,
    high_mark: u32,
    pageable: u32,
    // --- segments and PGMBKs ---
    seg_resident: Vec<u16>,
    /// The two frames of each segment's PGMBK (NONE when it has none).
    seg_pgmbk: Vec<[u32; PGMBK_FRAMES]>,
    /// Segments whose last resident page left (candidates for PGMBK page-out; may be stale).
    empty_segs: Vec<u32>,
    pgmbk_frames: u64,
    // --- expanded storage ---
    pub xstor: Xstor,
    // --- DASD paging space ---
    /// The page on each slot, complemented (`!page`; 0 is a free slot), so that the array is
    /// zeroed memory the kernel supplies lazily: slots never handed out cost nothing. A
    /// group's live slots are its nonzero entries, counted where they are read (one cache
    /// line, which a separate count per group was not).
    slot_page: Vec<u32>,
    block: u32,
    /// Per paging volume, its slots in use (QUERY ALLOC PAGE's USED).
    vol_used: Vec<u64>,
    vol_group_base: Vec<u32>,
    /// Per volume its free slot groups, lowest first (the never-used tail needs no entries).
    vol_free_groups: Vec<crate::engine::freelist::FreePages>,
    /// Per paging volume, one past the highest slot ever handed out (QUERY ALLOC PAGE's
    /// HIGH PAGE).
    vol_high: Vec<u32>,
    /// Per volume, the group where the search for free slots in used groups goes on (a block
    /// write once whole groups run short, `slots.rs` `write_into_holes`).
    hole_cursor: Vec<u32>,
    next_vol: usize,
    free_groups: u64,
    /// Slot groups kept back so that CP can finish the page-outs under way when it detects
    /// that paging space is full (the run then ends as z/VM does, with abend PGT004).
    reserve_groups: u64,
    /// Per address space, the page-outs waiting for a full block (blocks.rs), and the
    /// spaces with any.
    open_blocks: Vec<Vec<u32>>,
    open_spaces: Vec<u32>,
    /// Pages a block read made resident unreferenced: (page, frame, due clock travel).
    companions: blocks::Companions,
    /// Pages written to DASD blocks since IPL.
    moved_to_blocks: u64,
    /// Frames the demand-scan clock hand has passed since IPL.
    clock_travel: u64,
    /// Clock travel after which an unreferenced companion is taken (0: never).
    companion_window: u64,
    /// The companions' window in simulated ns (`block_companion_period`; 0: by travel).
    companion_ns: u64,
    /// Simulated time (ns), kept by the machine as it routes each event.
    pub(crate) now_ns: u64,
    pub writes: Vec<PageWrite>,
    // --- accounting ---
    pub moved: Movement,
    resident: u64,
    resident_below: u64,
    on_xstor: u64,
    on_slot: u64,
    slots_total: u64,
    pub paging_full: bool,
    /// Pages left between two places by a PGT004 abend without any paging space (slots.rs).
    lost_at_abend: u64,
    touched: u64,
    /// Page references made through `touch` (for `zvmsim bench`).
    references: u64,
    /// Per address space: pages where they are (the Performance Toolkit's per-user counts).
    space_resident: Vec<u64>,
    space_below: Vec<u64>,
    space_xstor: Vec<u64>,
    space_slots: Vec<u64>,
    /// Per address space: CMMA page states and what CP did with them.
    cmma: Vec<CmmaCounts>,
    /// Frames whose page became unused or volatile, oldest first: demand scan takes them
    /// before it runs its clock. Entries may be stale; checked when taken.
    cmma_first: std::collections::VecDeque<u32>,
    /// The guest's CMMA state of each page (cmma.rs), empty until a guest first sets a page
    /// unused or volatile: systems without CMMA pay nothing for it.
    gstate: Vec<u8>,
    /// z/VM 6.3 and later: the frame-owned lists and the global aging list (`agelist`).
    aging: Option<agelist::Aging>,
    /// A page read back by a block page-in keeps its slot (KEEPSLOT on 6.3 and later,
    /// `ModelParams::keep_slot_on_pagein` before).
    keep_slot: bool,
    /// ... but only until demand scan finds the page referenced (`slot_until_referenced`).
    slot_until_ref: bool,
    /// A stale slot goes when demand scan sees the page changed (`stale_slot_scan_release`).
    stale_scan_release: bool,
    /// Saved segments and nonshared copies added at run time (spaces.rs).
    pub(super) kinds: spaces::SpaceKinds,
    /// Before 6.3, with `working_set_steal`: the users' projected working sets.
    ws: working_set::WorkingSets,
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
        let block = slots::block_pages(params.paging_block);
        let mut vol_group_base = vec![0u32];
        let mut vol_free_groups = Vec::new();
        for &s in volume_slots {
            let groups = (s / block as u64) as u32;
            let base = *vol_group_base.last().unwrap_or(&0);
            // Low slot numbers are handed out first.
            vol_free_groups.push(crate::engine::freelist::FreePages::range(
                base,
                base + groups,
            ));
            vol_group_base.push(base + groups);
        }
        let groups_total = *vol_group_base.last().unwrap_or(&0) as usize;
        let mut st = Storage {
            level,
            p: params.clone(),
            pg: crate::engine::huge::HugeArray::filled(total_pages, 0),
            pg_ahead: fixedbitset::FixedBitSet::with_capacity(total_pages.div_ceil(CHUNK_WORDS)),
            xs_base: frames.min(FMASK),
            space_base,
            fr_page: frame_table::FrameTable::new(frames as usize),
            avail_lo: Vec::new(),
            lo_free_count: 0,
            avail_hi: crate::engine::freelist::FreePages::default(),
            lo_free: vec![0; (FRAMES_BELOW_2G as usize).div_ceil(64)],
            lo_cursor: 0,
            hand: 0,
            hand_lo: 0,
            shared_hand: 0,
            low_mark: 0,
            high_mark: 0,
            pageable: 0,
            seg_resident: vec![0; total_pages.div_ceil(SEG_PAGES as usize)],
            empty_segs: Vec::new(),
            seg_pgmbk: vec![[NONE; PGMBK_FRAMES]; total_pages.div_ceil(SEG_PAGES as usize)],
            pgmbk_frames: 0,
            xstor: Xstor::new(xstor_blocks),
            slot_page: vec![0; groups_total * block as usize],
            block,
            vol_used: vec![0; volume_slots.len()],
            vol_group_base,
            vol_high: vec![0; volume_slots.len()],
            hole_cursor: vec![0; volume_slots.len()],
            vol_free_groups,
            next_vol: 0,
            free_groups: groups_total as u64,
            reserve_groups: 0,
            open_blocks: vec![Vec::new(); n_spaces],
            open_spaces: Vec::new(),
            companions: blocks::Companions::default(),
            clock_travel: 0,
            moved_to_blocks: 0,
            companion_window: blocks::companion_window(params.block_companion_window, frames),
            companion_ns: params.block_companion_period.ns(),
            now_ns: 0,
            writes: Vec::new(),
            moved: Movement::default(),
            resident: 0,
            resident_below: 0,
            on_xstor: 0,
            on_slot: 0,
            slots_total: groups_total as u64 * block as u64,
            paging_full: false,
            lost_at_abend: 0,
            touched: 0,
            references: 0,
            space_resident: vec![0; n_spaces],
            space_below: vec![0; n_spaces],
            space_xstor: vec![0; n_spaces],
            space_slots: vec![0; n_spaces],
            cmma: vec![CmmaCounts::default(); n_spaces],
            cmma_first: std::collections::VecDeque::new(),
            gstate: Vec::new(),
            aging: None,
            keep_slot: params.keep_slot_on_pagein,
            slot_until_ref: params.keep_slot_on_pagein && params.slot_until_referenced,
            stale_scan_release: params.keep_stale_slots && params.stale_slot_scan_release,
            kinds: spaces::SpaceKinds::new(n_spaces),
            ws: Default::default(),
        };
        // CP's nucleus and fixed control blocks occupy the lowest frames.
        let cp = cp_frames.min(frames / CP_FRAMES_MAX_DIVISOR);
        for f in 0..cp {
            st.fr_page.set(f, CP_OWNED);
        }
        // The page word cannot name frame 2^30 - 1 (its FRAME_NONE): in a 4 TB LPAR CP keeps
        // that one frame for itself, a 4 KB difference no figure shows.
        let top = frames.min(FMASK);
        // XSTOR blocks are numbered after the frames in the page word's place field: z/VM has
        // expanded storage only up to 6.2 (at most 256 GB central), far below the field's end.
        assert!(
            top as u64 + xstor_blocks as u64 <= FRAME_NONE as u64,
            "central and expanded storage exceed the page word"
        );
        // Slot numbers must stay below the word's "no slot" value (config::bounds checks the
        // scenario; this guards direct callers).
        assert!(
            volume_slots.iter().sum::<u64>() <= MAX_SLOTS,
            "paging space exceeds the page word's slot field"
        );
        for f in top..frames {
            st.fr_page.set(f, CP_OWNED);
        }
        // Frames above 2 GB start as the available list's untouched run (no entries).
        let hi_start = cp.max(FRAMES_BELOW_2G).min(top);
        st.avail_hi = crate::engine::freelist::FreePages::range(hi_start, top);
        for f in (cp..hi_start).rev() {
            st.free_frame(f);
        }
        st.pageable = top - cp;
        (st.low_mark, st.high_mark) = frames::thresholds(st.pageable, params);
        st.reserve_groups = slots::reserve_groups(st.high_mark, block, st.free_groups);
        if level.has_agelist() {
            st.aging = Some(agelist::Aging::new(
                frames as usize,
                n_spaces,
                st.pageable as u64,
            ));
            st.keep_slot = crate::config::agelist::AgelistSettings::default().keep_slot;
            st.slot_until_ref = false;
            st.stale_scan_release = false;
            // Demand scan's taking of unreferenced block-read companions (`blocks.rs`) has no
            // clock to run on here: they come in IBR on the aging list (`park_companion`).
            st.companion_window = 0;
            st.companion_ns = 0;
        }
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
    /// Whether a page read back from DASD keeps its slot (KEEPSLOT) and whether a changed
    /// page keeps its stale one until it is written elsewhere.
    pub fn slot_retention(&self) -> (bool, bool) {
        // Slots held only until the next look at the page are not a stationary population.
        (
            self.keep_slot && !self.slot_until_ref,
            self.p.keep_stale_slots && !self.stale_scan_release,
        )
    }
    pub fn on_dasd(&self) -> u64 {
        self.on_slot
    }
    pub fn slots_total(&self) -> u64 {
        self.slots_total
    }
    /// Slot groups (paging blocks) of the paging space.
    pub fn slot_groups(&self) -> usize {
        (self.slots_total / self.block as u64) as usize
    }
    /// Pages ever referenced.
    pub fn touched(&self) -> u64 {
        self.touched
    }
    pub fn references(&self) -> u64 {
        self.references
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
    /// The handle `touch` takes for space `s`.
    pub fn space(&self, s: SpaceId) -> Space {
        Space {
            id: s,
            base: self.space_base[s.0 as usize],
        }
    }
    #[inline]
    fn global(&self, s: SpaceId, page: u32) -> u32 {
        self.space_base[s.0 as usize] + page
    }
    /// In a frame: valid, or invalid but resident on the global aging list.
    pub fn is_resident(&self, s: SpaceId, page: u32) -> bool {
        self.held_frame(self.global(s, page) as usize).is_some()
    }
    /// Ever referenced: a used page always has a place.
    pub fn was_touched(&self, s: SpaceId, page: u32) -> bool {
        let i = self.global(s, page) as usize;
        self.held_frame(i).is_some() || self.xstor_block(i) != NONE || self.slot(i) != NONE
    }
    pub fn page_in_xstor(&self, s: SpaceId, page: u32) -> bool {
        self.xstor_block(self.global(s, page) as usize) != NONE
    }
    pub fn page_slot(&self, s: SpaceId, page: u32) -> u32 {
        self.slot(self.global(s, page) as usize)
    }
    /// Paging volume holding a slot group.
    pub fn volume_of_group(&self, group: u32) -> u32 {
        (self.vol_group_base.partition_point(|&b| b <= group) - 1) as u32
    }
    /// The paging volume holding a slot group, and the group's first slot counted from the
    /// volume's first slot.
    pub fn group_place(&self, group: u32) -> (u32, u64) {
        let v = self.volume_of_group(group);
        (v, self.offset_on(v, group))
    }
    /// Slot group `group`'s first slot on its volume `vol`.
    pub(super) fn offset_on(&self, vol: u32, group: u32) -> u64 {
        (group - self.vol_group_base[vol as usize]) as u64 * self.block as u64
    }
    // ------------------------------------------------------------------ references

    /// Ask for the cache line of `page`'s word ahead of a reference to it.
    #[inline]
    pub fn prefetch(&self, s: Space, page: u32) {
        crate::engine::prefetch::prefetch(&self.pg, (s.base + page) as usize);
    }

    /// A reference to `page` of address space `s`. Resolves what CP resolves synchronously
    /// (first use, XSTOR) and reports a DASD page-in to start otherwise.
    #[inline]
    pub fn touch(&mut self, s: Space, page: u32, access: Access, cp: &mut CpWork) -> Touch {
        let page = s.base + page;
        let write = access == Access::Write;
        let i = page as usize;
        self.references += 1;
        let st = self.word(i);
        // One compare: a page on the aging list has its top bit set.
        if st & (AGED | PLACE) < self.xs_base as u64 {
            if write && st & CHANGED == 0 {
                self.mark_changed(page);
            }
            self.pg[i] |= REF;
            return Touch::Resident;
        }
        self.touch_slow(page, write, cp)
    }

    /// The page is changed: a copy on DASD is stale from now on. CP keeps the slot assigned
    /// until it writes the page again (to a new block) or releases it, so stale slots still
    /// occupy paging space (IBM: keep DASD paging space below 50 % used).
    #[inline]
    fn mark_changed(&mut self, page: u32) {
        let i = page as usize;
        self.note_write(page);
        self.pg[i] |= CHANGED;
        if !self.p.keep_stale_slots && self.slot(i) != NONE {
            let s = self.slot(i);
            self.release_slot(page, s);
        }
    }
}
