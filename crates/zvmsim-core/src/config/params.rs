//! Global physical parameters of the model. Each is a physical or configured quantity with its
//! source; none is tuned per scenario. Parameters marked "calibrated" were set once against the
//! large-memory study (seed 002, Tables 5 and 6) and serve every scenario; see docs/calibration.md.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::Duration;

/// The frame requests for which z/VM 5.2 walks its available list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AvailSearch {
    /// Every frame taken.
    All,
    /// Frames for DASD paging I/O: block page-ins.
    Paging,
    /// Block page-ins and the frames XSTOR-to-DASD migration passes pages through.
    PagingMigration,
}

macro_rules! params {
    ($( $(#[$meta:meta])* $name:ident : $ty:ty = $default:expr ;)*) => {
        #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields, default)]
        pub struct ModelParams {
            $( $(#[$meta])* pub $name: $ty, )*
        }
        impl Default for ModelParams {
            fn default() -> Self {
                ModelParams { $( $name: $default, )* }
            }
        }
    };
}

const fn us(x: u64) -> Duration {
    Duration(x * 1_000)
}
const fn ns(x: u64) -> Duration {
    Duration(x)
}

params! {
    /// CP dispatcher minor time slice (z/VM default DSPSLICE: 5 ms).
    time_slice: Duration = us(5_000);

    /// CP CPU to resolve a page fault from expanded storage: fault interrupt, PGIN of the
    /// block, table updates (z/VM performance reports: a few microseconds on z9-class IFLs).
    /// Calibrated.
    cp_pagein_xstor: Duration = us(8);
    /// CP CPU to resolve a page fault from DASD: fault, block read start, I/O interrupt,
    /// validation of the block's pages. Calibrated.
    cp_pagein_dasd: Duration = us(40);
    /// CP CPU per frame examined by demand scan (reference bit test and reset).
    cp_scan_frame: Duration = ns(150);
    /// CP CPU per frame stolen (invalidate the page table entry, put the frame on the
    /// available list). Calibrated.
    cp_steal: Duration = us(3);
    /// CP CPU per page written to expanded storage (PGOUT).
    cp_pageout_xstor: Duration = us(4);
    /// CP CPU per page migrated from expanded storage to DASD (PGIN to a work frame, block
    /// write). Calibrated.
    cp_migrate: Duration = us(12);
    /// CP CPU to take a frame off the available list (z/VM 5.3: constant time).
    cp_alloc_frame: Duration = ns(500);
    /// CP CPU per available-list entry examined while searching for a frame of the wanted kind
    /// (z/VM 5.2: frames for paging I/O, contiguous pairs below 2 GB; 5.3's "fast available
    /// list searching" removed the walk). Calibrated on the 5.2 throughput curve (Table 5, six
    /// to ten guests), with `avail_walk_serialized`: 14 ns (75 ns when the walks ran side by
    /// side, docs/calibration.md).
    cp_avail_search: Duration = ns(14);
    /// Which single-frame requests walk the available list on z/VM 5.2 (see `AvailSearch`;
    /// the PGMBK pair search below 2 GB always walks). Inference.
    avail_search_frames: AvailSearch = AvailSearch::Paging;
    /// z/VM 5.2: the walks of the available list for a block page-in's frames are made one at
    /// a time, under the list's lock; a block read that completes while another's walk holds
    /// the lock waits for it (CP defers the frame request: RSMBK's deferred frame request
    /// queue), its faulting user in page wait, using no CPU. False: walks run side by side,
    /// CPU only. Inference: the study's 5.2 could not use its CPUs ("we were not able to
    /// achieve higher percentages of total CPU utilization"); no source gives the lock.
    #[serde(skip_serializing_if = "is_true")]
    avail_walk_serialized: bool = true;

    /// Available-list low threshold, as a fraction of pageable frames: demand scan starts
    /// below it. CP computes its thresholds dynamically; this is the order of magnitude its
    /// monitor records show for large LPARs.
    avail_low_fraction: f64 = 0.0005;
    /// Available-list high threshold: demand scan steals until it is reached.
    avail_high_fraction: f64 = 0.001;
    /// A changed page keeps its (now stale) DASD slot until CP writes it again elsewhere
    /// (inference from IBM's paging-space guidance; false releases the slot on the change).
    keep_stale_slots: bool = true;
    /// Before z/VM 6.3, with `keep_stale_slots`: a stale slot is released when CP next looks
    /// at the page's storage key and finds it changed, that is when demand scan resets the
    /// reference bit (RESET REFERENCE BIT EXTENDED returns the change bit in its condition
    /// code; z/Architecture Principles of Operation) or checks a block-read companion, not
    /// only when the page is written elsewhere. Inference: IBM built the same in z/OS
    /// (OS/390 2.10's slot scavenger freed the slots of pages changed in real storage during
    /// its reference-bit scan; IBM's Jim Mulder on IBM-MAIN); no stored source says when z/VM
    /// 5.x frees a stale slot. Off by default: it makes the long runs' DASD pages stationary
    /// but moves z/VM 5.2 at six guests out of tolerance in the 3-minute window
    /// (docs/steady-state.md, "Stale slots").
    #[serde(skip_serializing_if = "is_false")]
    stale_slot_scan_release: bool = false;
    /// A page read back by a block page-in keeps its DASD slot, so stealing it again while
    /// unchanged needs no write (KEEPSLOT YES of z/VM 6.3's SET AGELIST; the large-memory
    /// study saw such pages on z/VM 5.3). False releases the slots of the block as it is read.
    keep_slot_on_pagein: bool = true;
    /// Before z/VM 6.3, with `keep_slot_on_pagein`: a block-read page keeps its slot only
    /// until demand scan, reaching its due point (`block_companion_window`), finds it
    /// referenced; the page then counts as changed and its next steal writes it into a new
    /// block with the pages referenced in the same period, as block paging forms its blocks.
    /// Unreferenced companions are still dropped without a write. Inference: the study's
    /// "pages in memory as well as in page space to avoid bouncing pages" in "some cases";
    /// no IBM source says when 5.x gives the slot up. False keeps it until the page changes.
    /// On by default since 2026-11-28: kept for good, the slots grew through every long run
    /// (ten guests on 5.3: 24 M to 31 M pages on DASD in 45 minutes, real overcommitment
    /// 116 % to 152 %, the study 25.0 M and 124 %); given up when referenced, they hold
    /// 23.3-24.1 M and 114-118 % (docs/steady-state.md, "Slots until referenced").
    #[serde(skip_serializing_if = "is_true")]
    slot_until_referenced: bool = true;
    /// Before z/VM 6.3: each demand scan first walks the saved segments' shared pages (pass 1
    /// visits the shared frame-owned list before the dispatch list: CA MICS demand-scan record
    /// description), stealing the unreferenced ones (cp/storage/shared_list.rs). Off by
    /// default: without CP's per-user working-set selection, which would take the guests' own
    /// cold pages in the same pass, it starves a DCSS whose hot set is large (seed 001's
    /// servers: 1,081 -> 92 tx/s); see docs/dcss-text.md.
    #[serde(skip_serializing_if = "is_false")]
    shared_list_first: bool = false;
    /// Before z/VM 6.3: demand scan's first pass takes a user's unreferenced frames only while
    /// the user has more resident than its projected working set (the pages the clock found
    /// referenced during its last revolution); the second pass takes any unreferenced frame,
    /// the emergency pass any frame (cp/storage/working_set.rs; IBM's z/VM 6.3 report on the
    /// scan it replaced: pass 2 "based on an inaccurate working-set estimate"; the projection
    /// and the pass boundaries are inferences). Off by default: it helps none of the figures
    /// it was meant for (seed 000's DCSS residency, seed 001 with `shared_list_first`) and
    /// changes no within count; see docs/dcss-text.md.
    #[serde(skip_serializing_if = "is_false")]
    working_set_steal: bool = false;
    /// Linux: the appserver's program text read from a file system is mapped into the server
    /// (execve and the dynamic loader map executables and shared libraries), so reclaim
    /// treats its page-cache pages as mapped pages, taken only with the swap tendency, as
    /// anonymous memory is (2.6.16 `refill_inactive_zone` tests `page_mapped`). Off by
    /// default: with the memory-saving scenarios' text inference (20 pages a request over a
    /// Zipf law on 2 GB) the text's working set outgrows the guests and the minidisk runs
    /// swap (1,414 -> 153 tx/s at 768 MB); see docs/dcss-text.md.
    #[serde(skip_serializing_if = "is_false")]
    mapped_text: bool = false;
    /// CP CPU to reclaim the frame of a CMMA unused or volatile page (invalidate, no
    /// page-out). Inference: the steal without the PGOUT; z/VM does not publish it.
    cp_cmma_reclaim: Duration = ns(300);
    /// CMMA: demand scan takes the frames of volatile (clean page-cache) pages first, as it
    /// does those of unused (released) pages, before its clock. False: only unused pages are
    /// taken first; a volatile page waits for the clock like any page and, when stolen, is
    /// dropped without a page-out. Seed 002 gives the priority to released storage only (CP
    /// "can select those pages for removal at a higher priority"), and for clean disk cache
    /// pages only the bypassed page-out "when reclaiming the backing frames".
    #[serde(skip_serializing_if = "is_true")]
    cmma_volatile_first: bool = true;
    /// Guest CPU per ESSA state change, interpreted by the machine with SET MEMASSIST ON (a
    /// privileged instruction executed on every page allocation and free). Inference: the
    /// order of a storage-key instruction.
    essa: Duration = ns(150);
    /// Guest CPU to handle a discard fault: the program interrupt, removing the page from
    /// the page cache (the read that rebuilds it is charged as any read). Inference.
    linux_discard_fault: Duration = us(5);
    /// Pages written together as one paging block (block paging since VM/ESA; z/VM forms
    /// blocks of pages referenced in the same period).
    paging_block: u32 = 8;
    /// With `block_companion_period` 0: a companion still unreferenced after the demand-scan
    /// clock has travelled this many revolutions is taken first. Inference; 0 turns it off
    /// (they wait a whole revolution).
    block_companion_window: f64 = 0.25;
    /// A page a block read brought in besides the faulting one, still unreferenced this much
    /// simulated time after the read, is taken first (IBM's block paging patent US 4,967,353:
    /// frames reallocated "based upon non-usage within a time period ... after being
    /// allocated"; such pages are made available again on their own). A window on the clock's
    /// travel instead feeds back, since each companion taken moves the clock on and brings the
    /// next ones due: the page-out rate then swings in cycles of minutes (docs/storage.md,
    /// "Companions due by time"). Calibrated: no source gives the period; 180 s keeps Tables
    /// 5 and 6 as the travel window did, 60 s does not (docs/calibration.md). 0 falls back to
    /// `block_companion_window`.
    #[serde(skip_serializing_if = "default_companion_period")]
    block_companion_period: Duration = us(180_000_000);

    // The global aging list (z/VM 6.3 and later, cp/storage/agelist.rs). Left out of the
    // serialized scenario at their defaults, so that the scenarios written before them keep
    // their hash.
    /// CP CPU to trial-invalidate a frame: invalidate its page table entry and move it from
    /// its owner's frame-owned list to the tail of the global aging list. Inference: twice a
    /// demand-scan examination (`cp_scan_frame`), for the invalidation and the list move.
    #[serde(skip_serializing_if = "default_trial_invalidate")]
    cp_trial_invalidate: Duration = ns(300);
    /// CP CPU to revalidate a page found on the aging list: the page fault, the page table
    /// entry made valid again and the frame put back on its owner's list; no I/O, no data
    /// moved. Inference: a quarter of a page-in from XSTOR (`cp_pagein_xstor`), which also
    /// moves 4 KB and releases the XSTOR block.
    #[serde(skip_serializing_if = "default_revalidate")]
    cp_agelist_revalidate: Duration = us(2);
    /// EARLYWRITES YES: the share of the aging list, from its head, that CP keeps written
    /// (changed pages paged out ahead of need, so that reclaim finds them clean). Inference:
    /// IBM describes the writes as done ahead of need near the head, without a figure.
    #[serde(skip_serializing_if = "default_early_write_share")]
    agelist_early_write_share: f64 = 0.25;
    /// KEEPSLOT YES while paging space has room (z/VM 6.3 and later): once this share of the
    /// paging space's slot groups is in use, a block read gives up its whole group (the pages
    /// read and the group's pages still resident lose their slots, as under KEEPSLOT NO) until
    /// use falls below it again. A kept slot only saves the write of an unchanged page; the
    /// frame holds the data. Inference: no IBM source found says when z/VM 6.3 and later
    /// stop keeping slots; 0.9 is the level at which CP counts paging space 90 % full
    /// (monitor field SYTASG_CAL90FUL, SALBK's 90 % warning, message 401). 1 keeps slots
    /// until paging space is full (PGT004).
    #[serde(skip_serializing_if = "default_keepslot_release_full")]
    keepslot_release_full: f64 = 0.9;
    /// z/VM 6.3 and later: the pages a block read brings in besides those whose faults it
    /// serves come in invalid but resident (IBR) at the tail of the global aging list, where
    /// a reference revalidates them without I/O and reclaim takes them, slot kept, if none
    /// comes (cp/storage/agelist.rs). Inference: no stored IBM text says where 6.3 puts them;
    /// IBM's PGAUX names an IBR state (PGSIBR) apart from being on the aging list (PGSAGING),
    /// and the block paging patent (US 4,967,353) makes pages a block read brought in and
    /// nobody referenced available again on their own, which under 6.3 only an invalid page
    /// can show (a fault is CP's only sign of use: no reference bits are read). False joins
    /// them, valid, to their owner's frame-owned list's tail (they age a whole round).
    #[serde(skip_serializing_if = "is_true")]
    agelist_block_read_ibr: bool = true;
    /// Before z/VM 6.3, after the ordered warm start: the resident pages are put in random
    /// frames (cp/storage/frame_order.rs), since the warm start leaves them in the order demand
    /// scan's clock will meet them, coldest first. Inference, as the 6.3 frame-owned lists'
    /// shuffle. Off by default (an experiment: docs/steady-state.md, "What decays").
    #[serde(skip_serializing_if = "is_false")]
    warm_shuffle_frames: bool = false;
    /// After the ordered warm start: each guest's pages on DASD are put in random slots of
    /// those it holds (frame_order.rs), since the warm start writes blocks of pages of
    /// neighbouring popularity. Inference, as above. Off by default (an experiment).
    #[serde(skip_serializing_if = "is_false")]
    warm_shuffle_blocks: bool = false;
    /// The ordered warm start puts the hottest blocks in buffers spread over the database's
    /// pool instead of buffer i holding the i-th hottest (workload/database.rs `spread_pool`),
    /// since the pool's clock would otherwise meet them hottest first for hours. Inference.
    #[serde(skip_serializing_if = "is_false")]
    warm_spread_buffers: bool = false;
    /// After the warm start (either), the database's buffer-pool clock runs alone on gets drawn
    /// from the workload's law until its hand has gone round this many times
    /// (workload/database/steady.rs `settle_clock`); 0: not at all. From either start the
    /// first revolution is a transient of about 50 simulated minutes in the ten-guest study,
    /// and the misses swing for two hours after it (docs/settled-state.md). Off by default.
    #[serde(skip_serializing_if = "is_zero")]
    warm_pool_revolutions: u32 = 0;

    /// 3390 on DS8300, 15k rpm DDMs: service of a random read that misses the storage-server
    /// cache (seek + rotation + transfer).
    dasd_read_miss: Duration = us(5_500);
    /// Service of a read that hits the storage-server cache.
    dasd_read_hit: Duration = us(350);
    /// Service of a write (fast write to NVS).
    dasd_write: Duration = us(400);
    /// FICON transfer per additional 4 KB page of a multi-page channel program.
    dasd_per_page: Duration = us(25);
    /// Fraction of random reads that hit the storage-server cache.
    dasd_read_hit_ratio: f64 = 0.15;

    /// A guest's channel program whose data page CP has on DASD (a page-cache page or a swap-in
    /// page Linux has just taken for a read, often one CP paged out while it was free): CP
    /// brings the page in to translate the program. True: the virtual CPU that started the
    /// I/O waits for that page-in, as for any fault in kernel mode. False: only the I/O waits
    /// (the task sleeps on it as on the read), the virtual CPU runs on. Inference: no stored
    /// source says which; docs/settled-state.md shows what it changes.
    #[serde(skip_serializing_if = "is_true")]
    ccw_page_in_stops_vcpu: bool = true;

    /// Guest CPU for Linux to allocate a page-cache page and copy 4 KB (read/write system call
    /// path, page reclaim bookkeeping).
    linux_page_copy: Duration = us(3);
    /// Guest CPU per page scanned by Linux reclaim (kswapd or direct).
    linux_scan_page: Duration = ns(200);

    /// Guest CPU of the cmm balloon thread per page it takes from or gives back to the page
    /// allocator (one __get_free_page or free_page and its page-array entry,
    /// arch/s390/mm/cmm.c). Inference: the allocator's fast path, below `linux_page_copy`,
    /// which also copies 4 KB.
    linux_cmm_page: Duration = ns(1_000);
    /// Guest CPU to issue DIAGNOSE X'10' for one page (the instruction; CP's handling is
    /// `cp_diag10_page`). Inference.
    linux_diag10: Duration = ns(200);
    /// CP CPU to release one page for DIAGNOSE X'10': the SIE interception and the release of
    /// the page's frame, XSTOR block and DASD slot. Inference: the order of a steal
    /// (`cp_steal`) plus an interception.
    cp_diag10_page: Duration = us(4);

    // Saved segments and the spool (cp/segments, cp/spool.rs). Left out of the serialized
    // scenario at their defaults, so that earlier scenarios keep their hash.
    /// CP's processing of one saved-segment page written to its spool file (SAVESEG, and the
    /// save dcssblk asks for): spool page allocation, the page's copy into a spool buffer, its
    /// record in the file's page map; serial with the page's channel program on its spool
    /// volume. Calibrated (seed 000: SR SAVESEG 81 s per GB with two spool volumes).
    #[serde(skip_serializing_if = "default_spool_write")]
    cp_spool_write_page: Duration = us(218);
    /// CP's processing of one saved-segment page read from its spool file (the first load of
    /// a segment, a page dropped under pressure read again). Calibrated (seed 000: first
    /// add of an SR DCSS 63 s per GB with two spool volumes).
    #[serde(skip_serializing_if = "default_spool_read")]
    cp_spool_read_page: Duration = us(130);
    /// CP's fault for the first reference to a saved page of a guest's nonshared copy of a
    /// saved segment, which gives the guest a frame of its own with the page's saved
    /// contents. Where CP takes them from is not modelled: in seed 000's runs the shared copy
    /// has left storage by then (its only user reloaded nonshared), and a spool read per page
    /// would cost the first add's rate, over five times the measured fill (inference).
    /// Calibrated (seed 000: filling an SR DCSS loaded exclusive, 11 s per GB above an SN
    /// fill).
    #[serde(skip_serializing_if = "default_nonshared_page")]
    cp_nonshared_page: Duration = us(36);

    // Memory-backed swap devices (system/swapdev.rs, cp/vdisk.rs); left out of the serialized
    // scenario at their defaults, as above.
    /// CPU to copy one 4 KB page within storage (MVCL/MVC loop), done by the guest for a
    /// dcssblk request and by CP for a VDISK request. Inference: z10 memory bandwidth of a few
    /// GB/s per IFL.
    #[serde(skip_serializing_if = "default_swap_page_copy")]
    swap_page_copy: Duration = us(1);
    /// Guest CPU per dcssblk request besides the copies: the block layer's bio and the
    /// driver's make_request, with no channel program and no interrupt (the guest stays in
    /// SIE, seed 000). Inference.
    #[serde(skip_serializing_if = "default_dcssblk_request")]
    dcssblk_request: Duration = us(2);
    /// How long one VDISK I/O holds CP's VDISK lock, besides its pages (the request's block
    /// map lookup and the pages' translation). Inference: seed 000 names lock contention as
    /// the reason VDISK swap stops scaling at four guests and gives no figure; calibrated
    /// on that statement, four servers gaining nothing over two (docs/calibration.md).
    #[serde(skip_serializing_if = "default_vdisk_hold")]
    vdisk_lock_hold: Duration = us(170);
    /// The lock's hold per 4 KB page moved (its copy under the lock). Inference, as above.
    #[serde(skip_serializing_if = "default_vdisk_hold_page")]
    vdisk_lock_hold_page: Duration = us(2);

    // CP's minidisk cache (cp/mdc.rs, docs/mdc.md); left out of the serialized scenario at
    // their defaults, as above.
    /// CP CPU of a minidisk-cache read hit besides its pages: the SSCH interception, the
    /// cache lookup and the interrupt's reflection without a real I/O. Inference.
    #[serde(skip_serializing_if = "default_mdc_hit")]
    mdc_hit: Duration = us(3);
    /// CP CPU per 4 KB page a hit copies from the cache into the guest's buffer. Inference
    /// (a storage-to-storage copy, as `swap_page_copy`).
    #[serde(skip_serializing_if = "default_mdc_hit_page")]
    mdc_hit_page: Duration = us(1);
    /// How often the minidisk cache's arbiter weighs the cache against guest paging.
    /// Inference (IBM gives no period).
    #[serde(skip_serializing_if = "default_mdc_period")]
    mdc_arbiter_period: Duration = us(1_000_000);
    /// Frames the arbiter gives back per guest frame demand scan stole since its last pass,
    /// before SET MDCACHE STORAGE BIAS divides it. Inference.
    #[serde(skip_serializing_if = "default_mdc_return")]
    mdc_arbiter_return: f64 = 1.0;
}

fn default_mdc_hit(d: &Duration) -> bool {
    *d == ModelParams::default().mdc_hit
}
fn default_mdc_hit_page(d: &Duration) -> bool {
    *d == ModelParams::default().mdc_hit_page
}
fn default_mdc_period(d: &Duration) -> bool {
    *d == ModelParams::default().mdc_arbiter_period
}
fn default_mdc_return(x: &f64) -> bool {
    *x == ModelParams::default().mdc_arbiter_return
}

fn default_swap_page_copy(d: &Duration) -> bool {
    *d == ModelParams::default().swap_page_copy
}
fn default_dcssblk_request(d: &Duration) -> bool {
    *d == ModelParams::default().dcssblk_request
}
fn default_vdisk_hold(d: &Duration) -> bool {
    *d == ModelParams::default().vdisk_lock_hold
}
fn default_vdisk_hold_page(d: &Duration) -> bool {
    *d == ModelParams::default().vdisk_lock_hold_page
}

fn default_spool_write(d: &Duration) -> bool {
    *d == ModelParams::default().cp_spool_write_page
}
fn default_spool_read(d: &Duration) -> bool {
    *d == ModelParams::default().cp_spool_read_page
}
fn default_nonshared_page(d: &Duration) -> bool {
    *d == ModelParams::default().cp_nonshared_page
}

fn default_companion_period(d: &Duration) -> bool {
    d.0 == ModelParams::default().block_companion_period.0
}
fn is_zero(x: &u32) -> bool {
    *x == 0
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn default_trial_invalidate(d: &Duration) -> bool {
    *d == ModelParams::default().cp_trial_invalidate
}
fn default_revalidate(d: &Duration) -> bool {
    *d == ModelParams::default().cp_agelist_revalidate
}
fn default_early_write_share(x: &f64) -> bool {
    *x == ModelParams::default().agelist_early_write_share
}
fn default_keepslot_release_full(x: &f64) -> bool {
    *x == ModelParams::default().keepslot_release_full
}
