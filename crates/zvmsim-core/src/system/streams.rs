//! The run's random stream numbers, all in one place so that no two components share one
//! (engine/rng.rs: a stream is the run's seed and its number). The system's have fixed
//! numbers (1-4, 1995-1999). Guest g's workload and warm start keep their numbers of before,
//! 1000 + g and 2000 + g, wherever those meet no other stream (g below 995 and 1000), so the
//! results of runs with fewer guests stand; above that, and for the OLTP gets, a guest's
//! streams are families of their own, family << 32 | g (the gets: 1 << 40 | g). Until
//! 2026-11-28 guest 995's workload drew what the warm start's block shuffle (1995) drew, and
//! guest 1000's what guest 0's warm start drew.

/// The paging and database volumes' service times (the fixed-time DASD path).
pub(super) const DASD: u64 = 1;
// Stream 2 was the storage server's random cache hits (now its track directory).
/// The storage server's RAID ranks.
pub(super) const RANKS: u64 = 3;
/// The FICON channels.
pub(super) const CHANNELS: u64 = 4;
/// The warm start's shuffle of the DASD blocks (`model.warm_shuffle_blocks`).
pub(super) const WARM_BLOCKS: u64 = 1995;
/// The warm start's shuffle of the resident pages' frames (`model.warm_shuffle_frames`).
pub(super) const WARM_FRAMES: u64 = 1996;
/// The order of the frame-owned lists after the warm start (z/VM 6.3 and later).
pub(super) const WARM_OWNED: u64 = 1997;
/// The stationary start's kept slots.
pub(super) const STATIONARY_KEPT: u64 = 1998;
/// The stationary start's order of the available list.
pub(super) const STATIONARY_FRAMES: u64 = 1999;

/// Guest `g`'s workload: think times, transaction types, write decisions.
pub(super) fn guest(g: usize) -> u64 {
    if g < 995 {
        1000 + g as u64
    } else {
        (1 << 32) | g as u64
    }
}

/// Guest `g`'s warm start.
pub(super) fn warm(g: usize) -> u64 {
    if g < 1000 {
        2000 + g as u64
    } else {
        (2 << 32) | g as u64
    }
}

/// Guest `g`'s OLTP gets (workload/draws.rs).
pub(super) fn gets(g: usize) -> u64 {
    (1 << 40) | g as u64
}

/// Guest `g`'s boot key for hashed kernel addresses (`%p`, linux/kmsg.rs).
pub(super) fn kmsg(g: usize) -> u64 {
    (3 << 32) | g as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the guest count (guests are numbered by u32), no two streams are one.
    #[test]
    fn no_two_components_share_a_stream() {
        let fixed = [
            DASD,
            RANKS,
            CHANNELS,
            WARM_BLOCKS,
            WARM_FRAMES,
            WARM_OWNED,
            STATIONARY_KEPT,
            STATIONARY_FRAMES,
        ];
        let mut all: Vec<u64> = fixed.to_vec();
        for g in (0..1_200).chain([u32::MAX as usize - 1, u32::MAX as usize]) {
            all.extend([guest(g), warm(g), gets(g), kmsg(g)]);
        }
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a stream number is used twice");
    }
}
