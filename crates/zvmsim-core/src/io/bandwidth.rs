//! A data path several transfers share at once (an ESS cluster's cache, the copy into the other
//! cluster's NVS): each moves its bytes at its own pace (its host adapter's) as long as the
//! path has room, and slower when the transfers together would exceed the path's rate. The
//! transfers' times are computed when their I/Os start, not in the order they use the path,
//! so the path keeps the work booked per time slot: a transfer takes, slot by slot, what the
//! transfers booked before it left.
//!
//! (Booked as whole busy intervals instead, a transfer could not use a gap shorter than
//! itself, so two adapters whose transfers each left gaps a little too short alternated in long
//! runs; and forgetting intervals by the booking's own future time let a later booking with
//! an earlier time use the same interval twice. Issue 10 review.)

use std::collections::VecDeque;

/// Width of a slot of booked work, ns: fine against a transfer (about 1-2 ms for 124 KB at
/// 65-125 MB/s), so a transfer's end is placed within a few percent.
const SLOT_NS: u64 = 20_000;

#[derive(Default)]
pub struct Shared {
    /// Slot number of `used[0]`.
    first: u64,
    /// Per slot from `first` on, the path's time (ns of work at its full rate) booked in it.
    used: VecDeque<u64>,
}

impl Shared {
    /// A transfer starting at `start` needs `work` ns of the path at its full rate and alone
    /// would take `dur` (its own pace: at most `work / dur` of the path in any slot); it takes
    /// in each slot what earlier bookings left. Returns when its work is done. Slots ended
    /// before `now` (the simulation's time: no transfer starts earlier) are forgotten.
    pub fn flow(&mut self, start: u64, work: u64, dur: u64, now: u64) -> u64 {
        let dur = dur.max(work);
        if work == 0 {
            return start + dur;
        }
        let now_slot = now / SLOT_NS;
        while self.first < now_slot && !self.used.is_empty() {
            self.used.pop_front();
            self.first += 1;
        }
        if self.used.is_empty() {
            self.first = self.first.max(now_slot);
        }
        let mut t = start.max(self.first * SLOT_NS);
        let mut left = work;
        loop {
            let slot = t / SLOT_NS;
            let i = (slot - self.first) as usize;
            if self.used.len() <= i {
                self.used.resize(i + 1, 0);
            }
            let slot_end = (slot + 1) * SLOT_NS;
            let span = slot_end - t;
            let room = (SLOT_NS - self.used[i]).min(span);
            let take = (span * work / dur).min(room);
            if take >= left {
                self.used[i] += left;
                // Within the slot the transfer runs at the pace it took there.
                return t + (left * span).div_ceil(take);
            }
            self.used[i] += take;
            left -= take;
            t = slot_end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Alone, a transfer runs at its own pace; two that together ask more than the path's
    /// rate share it, both ending later, the path's work conserved.
    #[test]
    fn transfers_share_the_path_only_beyond_its_rate() {
        let mut p = Shared::default();
        // 1 ms of the path's work at half its rate: 2 ms.
        assert_eq!(p.flow(0, 1_000_000, 2_000_000, 0), 2_000_000);
        // A second at the same pace over the same time fits beside it.
        assert_eq!(p.flow(0, 1_000_000, 2_000_000, 0), 2_000_000);
        // A third finds the path full until 2 ms and then runs at its own pace.
        assert_eq!(p.flow(0, 1_000_000, 2_000_000, 0), 4_000_000);
        // Two at full pace from 10 ms: the first takes 10-11 ms, the second 11-12 ms.
        let mut q = Shared::default();
        assert_eq!(q.flow(10_000_000, 1_000_000, 1_000_000, 0), 11_000_000);
        assert_eq!(q.flow(10_000_000, 1_000_000, 1_000_000, 0), 12_000_000);
        // Booked later but earlier in time: it fills the room before them.
        assert_eq!(q.flow(8_000_000, 1_000_000, 1_000_000, 0), 9_000_000);
    }

    /// Slots that ended before the simulation's time are forgotten; later ones are kept.
    #[test]
    fn past_slots_are_forgotten_future_ones_kept() {
        let mut p = Shared::default();
        p.flow(0, 1_000_000, 1_000_000, 0);
        p.flow(5_000_000, 1_000_000, 1_000_000, 0);
        // At 2 ms the first booking is gone, the one at 5 ms still holds its slots.
        assert_eq!(
            p.flow(5_000_000, 1_000_000, 1_000_000, 2_000_000),
            7_000_000
        );
        assert_eq!(p.first, 2_000_000 / SLOT_NS);
    }
}
