//! What the storage model reports: where a space's pages are, the CP work a reference cost,
//! the paging writes CP started and the page-movement counters.

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
    /// Done for the guest whose reference or I/O it serves.
    pub ns: u64,
    /// CP's own system work, for no guest in particular (XSTOR-to-DASD migration).
    pub system_ns: u64,
    /// Of `ns`, z/VM 5.2's walks of the available list for paging frames (made under the
    /// list's lock with `avail_walk_serialized`).
    pub walk_ns: u64,
}

/// A paging write CP started (block page-out); the device model times it.
#[derive(Debug, Clone, Copy)]
pub struct PageWrite {
    pub volume: u32,
    pub pages: u32,
    /// First slot of the block on its volume (where the storage server finds it).
    pub block: u64,
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
    /// Frames and XSTOR blocks reclaimed without a page-out (CMMA unused or volatile pages).
    pub cmma_reclaimed: u64,
    /// Pages released by DIAGNOSE X'10' (they had a frame, an XSTOR block or a slot).
    pub released: u64,
    /// Global aging list (z/VM 6.3 and later): frames trial-invalidated onto it, frames
    /// reclaimed from its head, pages revalidated on it (faults resolved without I/O), and
    /// changed pages written early from its head.
    pub agelist_invalidated: u64,
    pub agelist_reclaimed: u64,
    pub agelist_revalidated: u64,
    pub agelist_early_writes: u64,
    /// Pages read back that gave up their slot under KEEPSLOT YES because paging space was
    /// past `ModelParams::keepslot_release_full`.
    pub keepslot_released: u64,
    /// Frames of block-read pages taken back unreferenced after their window (blocks.rs).
    pub companions_stolen: u64,
    /// Stale slots freed when demand scan saw their pages changed (`stale_slot_scan_release`).
    pub stale_slots_released: u64,
    /// z/VM 5.2: block page-ins whose frame requests waited for the available list's lock
    /// (`avail_walk_serialized`), each counted once.
    pub frames_deferred: u64,
}
