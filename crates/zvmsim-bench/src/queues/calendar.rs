//! Calendar queue (Brown 1988) with power-of-two buckets and width.

use std::collections::VecDeque;

use super::QueueImpl;

// ---------------------------------------------------------------------------
// Candidate 3: calendar queue (Brown 1988) with power-of-two buckets/width.
// ---------------------------------------------------------------------------

/// Calendar queue: `nb` (power of two) buckets of width `2^shift` ns; "day"
/// `d = time >> shift` lives in bucket `d & (nb - 1)`.  Each bucket is a
/// `VecDeque` sorted by time, FIFO among equal times (so the common insertion,
/// the latest event of its bucket, is a `push_back`, and the earliest is
/// popped from the front).  The number of buckets doubles/halves with the
/// population, and the width is re-estimated then from the mean separation
/// of the events (inter-decile range, robust to far-future outliers).  No
/// re-estimation happens while the size is stable, which is the classic
/// weakness of calendar queues on non-stationary workloads.
#[derive(Debug, Clone)]
pub struct CalendarQueue {
    buckets: Vec<VecDeque<(u64, u64)>>,
    shift: u32,
    /// Current day (time >> shift) of the dequeue scan; never later than the
    /// day of the earliest pending event.
    day: u64,
    len: usize,
    last: u64,
}

impl Default for CalendarQueue {
    fn default() -> Self {
        <Self as QueueImpl>::with_capacity(0)
    }
}

const CAL_MIN_BUCKETS: usize = 2;

impl CalendarQueue {
    #[inline]
    fn mask(&self) -> u64 {
        (self.buckets.len() - 1) as u64
    }

    #[inline]
    fn insert(&mut self, time: u64, payload: u64) {
        let b = ((time >> self.shift) & self.mask()) as usize;
        let v = &mut self.buckets[b];
        // The new event is the newest of its time: it goes after every event
        // with time <= its time.
        if v.back().map_or(true, |&(t, _)| t <= time) {
            v.push_back((time, payload));
        } else {
            let pos = v.partition_point(|&(t, _)| t <= time);
            v.insert(pos, (time, payload));
        }
    }

    /// Rebuilds with `nb` buckets and a width estimated from the events.
    fn resize(&mut self, nb: usize) {
        // All events in pop order: each bucket is in pop order, and equal
        // times always share a bucket, so a stable sort by time keeps FIFO
        // among equal times.
        let mut all: Vec<(u64, u64)> = Vec::with_capacity(self.len);
        for b in &mut self.buckets {
            all.extend(b.drain(..));
        }
        all.sort_by_key(|&(t, _)| t);
        self.shift = Self::estimate_shift(&all);
        let nb = nb.max(CAL_MIN_BUCKETS).next_power_of_two();
        self.buckets.resize_with(nb, VecDeque::new);
        self.buckets.truncate(nb);
        self.day = self.last >> self.shift;
        for &(t, p) in &all {
            let b = ((t >> self.shift) & self.mask()) as usize;
            self.buckets[b].push_back((t, p));
        }
    }

    /// Bucket width ~ 3x the mean separation of the events between the first
    /// and the ninth decile, rounded to a power of two (at least 1 ns).
    fn estimate_shift(sorted: &[(u64, u64)]) -> u32 {
        let n = sorted.len();
        if n < 2 {
            return 0;
        }
        let lo = n / 10;
        let hi = (n - 1 - n / 10).max(lo + 1);
        let sep = (sorted[hi].0 - sorted[lo].0) as f64 / (hi - lo) as f64;
        let width = (3.0 * sep).max(1.0);
        width.log2().round().clamp(0.0, 63.0) as u32
    }

    /// Direct search for the earliest event when a whole "year" is empty.
    fn jump_to_min(&mut self) {
        let mut best = u64::MAX;
        for b in &self.buckets {
            if let Some(&(t, _)) = b.front() {
                best = best.min(t);
            }
        }
        self.day = best >> self.shift;
    }
}

impl QueueImpl for CalendarQueue {
    const NAME: &'static str = "calendar";
    fn with_capacity(n: usize) -> Self {
        // Start small: the bucket count (and with it the width estimate)
        // follows the population through `resize`.
        let _ = n;
        Self {
            buckets: (0..CAL_MIN_BUCKETS).map(|_| VecDeque::new()).collect(),
            shift: 10,
            day: 0,
            len: 0,
            last: 0,
        }
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        debug_assert!(time >= self.last, "push earlier than last popped time");
        self.insert(time, payload);
        self.len += 1;
        if self.len > 2 * self.buckets.len() {
            self.resize(self.buckets.len() * 2);
        }
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        if self.len == 0 {
            return None;
        }
        let mask = self.mask();
        let mut steps = 0usize;
        loop {
            let b = (self.day & mask) as usize;
            if let Some(&(t, p)) = self.buckets[b].front() {
                if t >> self.shift == self.day {
                    self.buckets[b].pop_front();
                    self.len -= 1;
                    self.last = t;
                    if self.buckets.len() > CAL_MIN_BUCKETS && self.len < self.buckets.len() / 2 {
                        self.resize(self.buckets.len() / 2);
                    }
                    return Some((t, p));
                }
            }
            steps += 1;
            if steps >= self.buckets.len() {
                self.jump_to_min();
                steps = 0;
            } else {
                self.day = self.day.wrapping_add(1);
            }
        }
    }
    fn peek_time(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let mask = self.mask();
        let mut day = self.day;
        for _ in 0..self.buckets.len() {
            if let Some(&(t, _)) = self.buckets[(day & mask) as usize].front() {
                if t >> self.shift == day {
                    return Some(t);
                }
            }
            day = day.wrapping_add(1);
        }
        self.buckets
            .iter()
            .filter_map(|b| b.front().map(|e| e.0))
            .min()
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    fn clear(&mut self) {
        for b in &mut self.buckets {
            b.clear();
        }
        self.day = 0;
        self.len = 0;
        self.last = 0;
    }
}
