//! Pending-event set of the simulation engine.
//!
//! [`EventQueue`] is a *monotone radix heap* keyed on the integer event time
//! (nanoseconds).  It was chosen by measurement against a binary heap, a
//! 4-ary heap and a calendar queue (kept in [`super::queue_alt`]); see
//! `docs/engine-queue.md` and [`crate::bench::compare_event_queues`].
//!
//! Contract:
//! * `pop` returns the event with the smallest time; events with equal time
//!   come out in insertion order (FIFO), which keeps runs bit-identical.
//! * Pushed times are never earlier than the last popped time (the usual
//!   discrete-event monotonicity).  This is checked with `debug_assert!`.
//!
//! How it works: let `last` be the time of the last popped event.  An event
//! with time `t >= last` is filed in bucket `msb(t ^ last)`; events with
//! `t == last` go to a separate FIFO (`b0`).  All times in a lower bucket are
//! smaller than all times in a higher bucket.  When `b0` runs dry, the lowest
//! non-empty bucket is emptied: its minimum becomes the new `last` and its
//! events are spread over strictly lower buckets (each event moves at most 64
//! times over its life, usually only a few).  Every bucket stays sorted by
//! insertion order (a bucket is only refilled from empty by one
//! redistribution, in source order, then appended to by pushes, which are
//! always the newest events), so equal times leave `b0` in FIFO order without
//! any sequence number.  The global minimum is cached so `peek_time` is O(1)
//! and `&self`.

/// Number of radix buckets besides `b0`: one per bit of a `u64` time.
const BUCKETS: usize = 64;

/// Monotone priority queue of `(time, payload)` events, smallest time first,
/// FIFO among equal times.
#[derive(Debug, Clone)]
pub struct EventQueue {
    /// Payloads of the events whose time equals `last`, in insertion order;
    /// entries before `head` have already been popped.
    b0: Vec<u64>,
    head: usize,
    /// `buckets[h]` holds `(time, payload)` with `msb(time ^ last) == h`.
    buckets: [Vec<(u64, u64)>; BUCKETS],
    /// Bit `h` set iff `buckets[h]` is non-empty.
    mask: u64,
    /// Time of the last popped event (0 before the first pop): the radix base
    /// and the monotonicity floor.
    last: u64,
    /// Smallest pending time (meaningful only when `len > 0`).
    min: u64,
    len: usize,
}

impl EventQueue {
    /// Empty queue.
    pub fn new() -> Self {
        Self {
            b0: Vec::new(),
            head: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            mask: 0,
            last: 0,
            min: 0,
            len: 0,
        }
    }

    /// Empty queue sized for about `n` pending events.
    ///
    /// How a radix heap spreads its events over the buckets depends on the
    /// workload, so this is only a hint: `b0` and every bucket get a modest
    /// share of `n`; buckets grow on demand and keep their capacity afterwards
    /// (a redistributed bucket gives its buffer back).
    pub fn with_capacity(n: usize) -> Self {
        let mut q = Self::new();
        let per = n.div_ceil(8).min(1 << 12);
        q.b0.reserve(per);
        for b in &mut q.buckets {
            b.reserve(per);
        }
        q
    }

    /// Schedules `payload` at `time` (integer ns).  `time` must not be earlier
    /// than the time of the last popped event.
    #[inline]
    pub fn push(&mut self, time: u64, payload: u64) {
        debug_assert!(
            time >= self.last,
            "EventQueue::push: time {time} is earlier than the last popped time {}",
            self.last
        );
        if self.len == 0 || time < self.min {
            self.min = time;
        }
        self.len += 1;
        let x = time ^ self.last;
        if x == 0 {
            self.b0.push(payload);
        } else {
            let h = (63 - x.leading_zeros()) as usize;
            self.buckets[h].push((time, payload));
            self.mask |= 1u64 << h;
        }
    }

    /// Removes and returns the earliest event (FIFO among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, u64)> {
        if self.head == self.b0.len() {
            if self.len == 0 {
                return None;
            }
            self.refill();
        }
        let payload = self.b0[self.head];
        self.head += 1;
        self.len -= 1;
        if self.head == self.b0.len() {
            self.b0.clear();
            self.head = 0;
            if self.mask != 0 {
                self.min = self.bucket_min(self.mask.trailing_zeros() as usize);
            }
        }
        Some((self.last, payload))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        if self.len == 0 {
            None
        } else {
            Some(self.min)
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
    /// (the queue can be reused for a new run).  Capacity is kept.
    pub fn clear(&mut self) {
        self.b0.clear();
        self.head = 0;
        for b in &mut self.buckets {
            b.clear();
        }
        self.mask = 0;
        self.last = 0;
        self.min = 0;
        self.len = 0;
    }

    /// Smallest time in `buckets[h]` (non-empty).
    #[inline]
    fn bucket_min(&self, h: usize) -> u64 {
        let mut m = u64::MAX;
        for &(t, _) in &self.buckets[h] {
            m = m.min(t);
        }
        m
    }

    /// `b0` is empty and events are pending: empty the lowest non-empty bucket
    /// into strictly lower buckets around its minimum (`self.min`).
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        debug_assert!(self.mask != 0 && self.b0.is_empty());
        let h = self.mask.trailing_zeros() as usize;
        let mut src = std::mem::take(&mut self.buckets[h]);
        self.mask &= !(1u64 << h);
        let base = self.min;
        self.last = base;
        for &(t, p) in &src {
            let x = t ^ base;
            if x == 0 {
                self.b0.push(p);
            } else {
                let nh = (63 - x.leading_zeros()) as usize;
                self.buckets[nh].push((t, p));
                self.mask |= 1u64 << nh;
            }
        }
        src.clear();
        // Give the (empty) vector back so its capacity is reused.
        self.buckets[h] = src;
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        let mut q = EventQueue::new();
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(), None);
        let q2 = EventQueue::default();
        assert!(q2.is_empty());
    }

    #[test]
    fn fifo_equal_times() {
        let mut q = EventQueue::with_capacity(16);
        for p in 0..10 {
            q.push(5, p);
        }
        q.push(3, 100);
        for p in 10..20 {
            q.push(5, p);
        }
        assert_eq!(q.pop(), Some((3, 100)));
        // pushes at the current time go behind the already pending ones
        q.push(5, 20);
        q.push(3, 101);
        assert_eq!(q.pop(), Some((3, 101)));
        for p in 0..=20 {
            assert_eq!(q.pop(), Some((5, p)));
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn peek_len_clear() {
        let mut q = EventQueue::new();
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
        assert_eq!(q.pop(), Some((0, 9)));
        assert_eq!(q.peek_time(), Some(u64::MAX));
        assert_eq!(q.pop(), Some((u64::MAX, 10)));
        assert_eq!(q.pop(), None);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "earlier than the last popped time")]
    fn non_monotone_push_panics_in_debug() {
        let mut q = EventQueue::new();
        q.push(10, 0);
        q.pop();
        q.push(9, 1);
    }
}
