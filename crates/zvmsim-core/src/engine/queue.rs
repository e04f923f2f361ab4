//! Pending-event set of the simulation engine.
//!
//! [`EventQueue`] is a *monotone radix heap with 64-ary digits* keyed on the
//! integer event time (ns).  It was chosen by measurement against a binary
//! heap, a 4-ary heap, a calendar queue and radix heaps of other digit sizes
//! (kept in the dev-only crate `zvmsim-bench`, module `zvmsim_bench::queues`);
//! see `docs/engine-queue.md` and `zvmsim_bench::compare_event_queues`.
//!
//! Contract:
//! * `pop` returns the event with the smallest time; events with equal time
//!   come out in insertion order (FIFO), which keeps runs bit-identical.
//! * Pushed times are never earlier than the last popped time (the usual
//!   discrete-event monotonicity), checked with `debug_assert!`.
//!
//! How it works.  Let `last` be the last popped time and split times into
//! 6-bit digits.  An event with time `t` is filed by the highest digit in
//! which `t` differs from `last`:
//! * *level 0* (`t` differs from `last` only in the lowest digit): a
//!   direct-mapped calendar of 64 payload FIFOs, one per time value
//!   `(last & !63) | digit`, with an occupancy bitmap.  Pops are served from
//!   here: lowest set bit, front of that FIFO.
//! * *level L = 1..=10*: bucket `(L, digit L of t)` holding `(time, payload)`,
//!   with the bucket minimum maintained on insertion and one occupancy bitmap
//!   per level.  Every time in a lower level (or a lower digit of the same
//!   level) is smaller than every time in a higher one.
//!
//! When level 0 is empty, the lowest non-empty bucket is emptied: its
//! minimum becomes `last` and its events are re-filed, which sends each of
//! them to a strictly lower level.  So an event moves at most once per level
//! (in practice 1 or 2 times), and `peek_time` is O(1) on `&self`.
//!
//! FIFO among equal times needs no sequence number: a bucket is only ever
//! refilled from empty by one redistribution (performed in the source's
//! order; all lower levels are empty at that point), and afterwards only
//! appended to by pushes, which are the newest events.  By induction every
//! bucket, and in particular every level-0 FIFO, is in insertion order.
//!
//! Memory: a bucket only grows between its creation and its redistribution,
//! when it is emptied at once.  Its buffer is then kept in place if small,
//! put in a bounded pool of spare buffers (reused by the next bucket that
//! becomes non-empty) if medium, or freed if large.  An occupied bucket thus
//! holds at most max(64 KiB, twice its events), the pool at most 2 MiB, and
//! nothing accumulates to (number of buckets) x (largest bucket ever); in the
//! hold model the whole queue retains ~2.3 MB for 100k pending events
//! (1.6 MB live), against ~140 MB without these rules.

use std::collections::VecDeque;

/// Bits per digit.
const BITS: u32 = 6;
/// Digits per level (buckets per level).
const DIGITS: usize = 1 << BITS;
/// Levels above level 0: 64 bits = 6 * 10 + 4.
const LEVELS: usize = 10;
/// Level-0 FIFOs keep at most this capacity (payloads) when they run empty.
const L0_KEEP: usize = 1024;
/// Emptied bucket buffers up to this capacity (events) stay in their bucket.
const KEEP_IN_PLACE: usize = 64;
/// Emptied bucket buffers up to this capacity go to the spare pool...
const SPARE_CAP: usize = 4096;
/// ...which holds at most this many buffers.
const SPARE_MAX: usize = 32;

type Bucket<T> = Vec<(u64, T)>;
type Fifo<T> = VecDeque<T>;

/// Monotone priority queue of `(time, payload)` events, smallest time first,
/// FIFO among equal times.
#[derive(Debug, Clone)]
pub struct EventQueue<T: Copy = u64> {
    /// Level 0: payload FIFO per time value `(last & !63) | d`.
    l0: Box<[Fifo<T>; DIGITS]>,
    /// Bit `d` set iff `l0[d]` is non-empty.
    l0_mask: u64,
    /// `buckets[L - 1][d]`: events whose highest digit differing from `last`
    /// is digit `L`, and whose digit `L` is `d`.
    buckets: Box<[[Bucket<T>; DIGITS]; LEVELS]>,
    /// Smallest time of each bucket (`u64::MAX` if empty).
    bmin: Box<[[u64; DIGITS]; LEVELS]>,
    /// Occupancy bitmap of the buckets of each level.
    dmask: [u64; LEVELS],
    /// Bit `L - 1` set iff level `L` has a non-empty bucket.
    level_mask: u32,
    /// Empty buffers from redistributed buckets, reused by empty buckets.
    spare: Vec<Bucket<T>>,
    /// Time of the last popped event (0 before the first pop): radix base
    /// and monotonicity floor.
    last: u64,
    len: usize,
}

impl<T: Copy> EventQueue<T> {
    /// Empty queue.
    pub fn new() -> Self {
        Self {
            l0: Box::new(std::array::from_fn(|_| VecDeque::new())),
            l0_mask: 0,
            buckets: Box::new(std::array::from_fn(|_| std::array::from_fn(|_| Vec::new()))),
            bmin: Box::new([[u64::MAX; DIGITS]; LEVELS]),
            dmask: [0; LEVELS],
            level_mask: 0,
            spare: Vec::new(),
            last: 0,
            len: 0,
        }
    }

    /// Empty queue with some buffers pre-allocated for about `n` pending
    /// events (a hint: buckets grow on demand anyway).
    pub fn with_capacity(n: usize) -> Self {
        let mut q = Self::new();
        let per = n.div_ceil(4).clamp(KEEP_IN_PLACE + 1, SPARE_CAP);
        let count = n.div_ceil(per).min(SPARE_MAX);
        for _ in 0..count {
            q.spare.push(Vec::with_capacity(per));
        }
        q
    }

    /// Schedules `payload` at `time` (integer ns).  `time` must not be earlier
    /// than the time of the last popped event.
    #[inline]
    pub fn push(&mut self, time: u64, payload: T) {
        debug_assert!(
            time >= self.last,
            "EventQueue::push: time {time} is earlier than the last popped time {}",
            self.last
        );
        self.len += 1;
        self.file(self.last, time, payload);
    }

    /// Removes and returns the earliest event (FIFO among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, T)> {
        if self.l0_mask == 0 {
            if self.len == 0 {
                return None;
            }
            self.refill();
        }
        let d = self.l0_mask.trailing_zeros() as usize;
        let t = (self.last & !(DIGITS as u64 - 1)) | d as u64;
        self.last = t;
        let fifo = &mut self.l0[d];
        let payload = fifo.pop_front()?;
        if fifo.is_empty() {
            if fifo.capacity() > L0_KEEP {
                *fifo = VecDeque::new();
            }
            self.l0_mask &= !(1u64 << d);
        }
        self.len -= 1;
        Some((t, payload))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        if self.l0_mask != 0 {
            Some((self.last & !(DIGITS as u64 - 1)) | self.l0_mask.trailing_zeros() as u64)
        } else if self.level_mask != 0 {
            let li = self.level_mask.trailing_zeros() as usize;
            let d = self.dmask[li].trailing_zeros() as usize;
            Some(self.bmin[li][d])
        } else {
            None
        }
    }

    /// Number of pending events.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Drops all pending events and resets the monotonicity floor to time 0
    /// (the queue can be reused for a new run).  Buffers are kept.
    pub fn clear(&mut self) {
        for fifo in self.l0.iter_mut() {
            fifo.clear();
        }
        self.l0_mask = 0;
        for level in self.buckets.iter_mut() {
            for b in level.iter_mut() {
                b.clear();
            }
        }
        *self.bmin = [[u64::MAX; DIGITS]; LEVELS];
        self.dmask = [0; LEVELS];
        self.level_mask = 0;
        self.last = 0;
        self.len = 0;
    }

    /// Files an event relative to `base` (= `last`; does not touch `len`).
    #[inline(always)]
    fn file(&mut self, base: u64, t: u64, p: T) {
        let x = t ^ base;
        if x < DIGITS as u64 {
            let d = (t & (DIGITS as u64 - 1)) as usize;
            self.l0[d].push_back(p);
            self.l0_mask |= 1u64 << d;
        } else {
            // level in 1..=LEVELS
            let level = (63 - x.leading_zeros()) / BITS;
            let li = level as usize - 1;
            let d = ((t >> (level * BITS)) & (DIGITS as u64 - 1)) as usize;
            let b = &mut self.buckets[li][d];
            if b.capacity() == 0 {
                if let Some(buf) = self.spare.pop() {
                    *b = buf;
                }
            }
            b.push((t, p));
            let m = &mut self.bmin[li][d];
            *m = (*m).min(t);
            self.dmask[li] |= 1u64 << d;
            self.level_mask |= 1u32 << li;
        }
    }

    /// Level 0 is empty and events are pending: empties the lowest non-empty
    /// bucket, re-filing its events relative to its minimum (the new `last`).
    #[inline(never)]
    fn refill(&mut self) {
        debug_assert!(self.l0_mask == 0 && self.level_mask != 0);
        let li = self.level_mask.trailing_zeros() as usize;
        let d = self.dmask[li].trailing_zeros() as usize;
        self.dmask[li] &= !(1u64 << d);
        if self.dmask[li] == 0 {
            self.level_mask &= !(1u32 << li);
        }
        let mut src = std::mem::take(&mut self.buckets[li][d]);
        let base = self.bmin[li][d];
        self.bmin[li][d] = u64::MAX;
        self.last = base;
        for &(t, p) in &src {
            self.file(base, t, p);
        }
        src.clear();
        let cap = src.capacity();
        if cap <= KEEP_IN_PLACE {
            self.buckets[li][d] = src;
        } else if cap <= SPARE_CAP && self.spare.len() < SPARE_MAX {
            self.spare.push(src);
        }
    }
}

impl<T: Copy> Default for EventQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        let mut q: EventQueue = EventQueue::new();
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(), None);
        let q2: EventQueue = EventQueue::default();
        assert!(q2.is_empty());
    }

    #[test]
    fn fifo_equal_times() {
        let mut q = EventQueue::with_capacity(16);
        for p in 0..10 {
            q.push(5000, p);
        }
        q.push(3, 100);
        for p in 10..20 {
            q.push(5000, p);
        }
        assert_eq!(q.pop(), Some((3, 100)));
        // pushes at the current time go behind the already pending ones
        q.push(5000, 20);
        q.push(3, 101);
        assert_eq!(q.pop(), Some((3, 101)));
        for p in 0..=20 {
            assert_eq!(q.pop(), Some((5000, p)));
            q.push(5000, 100 + p);
        }
        for p in 0..=20 {
            assert_eq!(q.pop(), Some((5000, 100 + p)));
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn peek_len_clear() {
        let mut q: EventQueue = EventQueue::new();
        q.push(40, 1);
        q.push(10, 2);
        q.push(1 << 40, 3);
        q.push(10, 4);
        assert_eq!(q.len(), 4);
        assert_eq!(q.peek_time(), Some(10));
        assert_eq!(q.pop(), Some((10, 2)));
        assert_eq!(q.peek_time(), Some(10));
        assert_eq!(q.pop(), Some((10, 4)));
        assert_eq!(q.peek_time(), Some(40));
        q.push(20, 5);
        assert_eq!(q.peek_time(), Some(20));
        assert_eq!(q.len(), 3);
        q.clear();
        assert!(q.is_empty());
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(), None);
        // after clear the floor is back to 0
        q.push(0, 9);
        q.push(u64::MAX, 10);
        q.push(u64::MAX - 1, 11);
        assert_eq!(q.pop(), Some((0, 9)));
        assert_eq!(q.peek_time(), Some(u64::MAX - 1));
        assert_eq!(q.pop(), Some((u64::MAX - 1, 11)));
        assert_eq!(q.pop(), Some((u64::MAX, 10)));
        assert_eq!(q.pop(), None);
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn far_apart_times_all_levels() {
        let mut q: EventQueue = EventQueue::new();
        let mut times: Vec<u64> = (0..64).map(|b| 1u64 << b).collect();
        times.extend((0..64).map(|b| (1u64 << b) - 1));
        times.push(u64::MAX);
        for (i, &t) in times.iter().enumerate().rev() {
            q.push(t, i as u64);
        }
        let mut sorted: Vec<(u64, u64)> = times
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, i as u64))
            .collect();
        sorted.sort_by_key(|&(t, i)| (t, std::cmp::Reverse(i)));
        for want in sorted {
            assert_eq!(q.peek_time(), Some(want.0));
            assert_eq!(q.pop(), Some(want));
        }
        assert!(q.is_empty());
    }

    /// Bytes held by the buffers (capacity, not length).
    fn retained_bytes(q: &EventQueue) -> usize {
        let l0: usize = q.l0.iter().map(|f| f.capacity() * 8).sum();
        let up: usize = q.buckets.iter().flatten().map(|b| b.capacity() * 16).sum();
        let spare: usize = q.spare.iter().map(|b| b.capacity() * 16).sum();
        l0 + up + spare
    }

    #[test]
    fn zero_delay_chain_does_not_grow() {
        let mut q: EventQueue = EventQueue::new();
        for p in 0..10 {
            q.push(7, p);
        }
        for i in 0..200_000u64 {
            let (t, p) = q.pop().unwrap_or_default();
            assert_eq!((t, p), (7, i));
            q.push(7, i + 10);
        }
        assert_eq!(q.len(), 10);
        assert!(retained_bytes(&q) < 4096, "{}", retained_bytes(&q));
    }

    #[test]
    fn memory_stays_proportional_in_hold_model() {
        // hold model with a cheap deterministic generator (xorshift), wide and
        // narrow increments mixed
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let pending = 20_000u64;
        let mut q = EventQueue::with_capacity(pending as usize);
        for i in 0..pending {
            q.push(next() % 20_000, i);
        }
        let mut last = 0;
        for i in 0..2_000_000u64 {
            let (t, p) = q.pop().unwrap_or_default();
            assert!(t >= last);
            last = t;
            let r = next();
            let d = if r % 16 == 0 {
                r % 10_000_000
            } else {
                r % 2_000
            };
            q.push(t + d, p ^ i);
        }
        let live = pending as usize * 16;
        let held = retained_bytes(&q);
        assert!(
            held < 4 * live + (3 << 20),
            "held {held} B for {live} B live"
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "earlier than the last popped time")]
    fn non_monotone_push_panics_in_debug() {
        let mut q: EventQueue = EventQueue::new();
        q.push(10, 0);
        q.pop();
        q.push(9, 1);
    }
}
