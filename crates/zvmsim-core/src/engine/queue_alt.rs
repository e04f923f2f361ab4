//! Event-queue candidates that were measured against the chosen
//! [`EventQueue`] and not retained.
//!
//! They are kept so the comparison can be re-run
//! ([`crate::bench::compare_event_queues`]) and so the tests can check every
//! candidate against the same reference model.  All candidates have the
//! semantics of `EventQueue`: smallest time first, FIFO among equal times,
//! pushed times never earlier than the last popped time.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::queue::EventQueue;

/// Common interface of the candidates (benchmark and tests only).
#[doc(hidden)]
pub trait QueueImpl {
    /// Short name used in benchmark reports.
    const NAME: &'static str;
    fn with_capacity(n: usize) -> Self;
    fn push(&mut self, time: u64, payload: u64);
    fn pop(&mut self) -> Option<(u64, u64)>;
    fn peek_time(&self) -> Option<u64>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn clear(&mut self);
}

impl QueueImpl for EventQueue {
    const NAME: &'static str = "radix64_heap";
    fn with_capacity(n: usize) -> Self {
        EventQueue::with_capacity(n)
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        EventQueue::push(self, time, payload);
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        EventQueue::pop(self)
    }
    #[inline]
    fn peek_time(&self) -> Option<u64> {
        EventQueue::peek_time(self)
    }
    #[inline]
    fn len(&self) -> usize {
        EventQueue::len(self)
    }
    fn clear(&mut self) {
        EventQueue::clear(self);
    }
}

// ---------------------------------------------------------------------------
// Radix heaps with 2^BITS-ary digits.
// ---------------------------------------------------------------------------

/// Monotone radix heap with `2^BITS`-ary digits (`BITS` in 1..=8).
///
/// Let `last` be the last popped time.  An event with time `t` whose
/// `t ^ last` has its most significant bit at level `L = msb / BITS >= 1` is
/// filed in bucket `(L, digit_L(t))` together with its time; the bucket
/// minima are maintained on insertion.  Level 0 (same high part as `last`)
/// is a direct-mapped calendar of `2^BITS` payload FIFOs, one per time value:
/// popping walks it by its occupancy bitmap, and only when it is empty is the
/// lowest non-empty bucket redistributed (around its minimum, into strictly
/// lower levels).  An event moves at most once per level.  As in every bucket
/// the order is insertion order, FIFO among equal times needs no sequence
/// number.
///
/// This is the plain form used to compare digit sizes (`BITS = 1` is the
/// classic binary radix heap).  [`EventQueue`] is the same scheme with
/// `BITS = 6`, fixed-size arrays and bounded memory: here every bucket keeps
/// the largest capacity it ever had (measured: ~140 MB retained for 100k
/// pending events in the hold model), and a level-0 FIFO that keeps receiving
/// events at the current time never releases its popped prefix.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct RadixHeapQueue<const BITS: u32> {
    l0: Vec<Vec<u64>>,
    l0_mask: [u64; 4],
    head: usize,
    buckets: Vec<Vec<(u64, u64)>>,
    bmin: Vec<u64>,
    dmask: Vec<[u64; 4]>,
    level_mask: u64,
    last: u64,
    len: usize,
}

#[inline(always)]
fn lowest_bit(m: &[u64; 4], words: usize) -> Option<usize> {
    for (w, &x) in m.iter().enumerate().take(words) {
        if x != 0 {
            return Some(w * 64 + x.trailing_zeros() as usize);
        }
    }
    None
}

impl<const BITS: u32> RadixHeapQueue<BITS> {
    const D: usize = 1 << BITS;
    const W: usize = Self::D.div_ceil(64);
    const LEVELS: usize = 64usize.div_ceil(BITS as usize);

    #[inline(always)]
    fn file(&mut self, t: u64, p: u64) {
        let x = t ^ self.last;
        if x >> BITS == 0 {
            let d = t as usize & (Self::D - 1);
            self.l0[d].push(p);
            self.l0_mask[d >> 6] |= 1u64 << (d & 63);
        } else {
            let l = ((63 - x.leading_zeros()) / BITS) as usize;
            let d = (t >> (l as u32 * BITS)) as usize & (Self::D - 1);
            let i = l * Self::D + d;
            self.buckets[i].push((t, p));
            self.bmin[i] = self.bmin[i].min(t);
            self.dmask[l][d >> 6] |= 1u64 << (d & 63);
            self.level_mask |= 1u64 << l;
        }
    }

    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let l = self.level_mask.trailing_zeros() as usize;
        let d = lowest_bit(&self.dmask[l], Self::W).unwrap_or(0);
        self.dmask[l][d >> 6] &= !(1u64 << (d & 63));
        if self.dmask[l] == [0; 4] {
            self.level_mask &= !(1u64 << l);
        }
        let i = l * Self::D + d;
        let mut src = std::mem::take(&mut self.buckets[i]);
        self.last = self.bmin[i];
        self.bmin[i] = u64::MAX;
        for &(t, p) in &src {
            self.file(t, p);
        }
        src.clear();
        self.buckets[i] = src;
    }
}

impl<const BITS: u32> Default for RadixHeapQueue<BITS> {
    fn default() -> Self {
        <Self as QueueImpl>::with_capacity(0)
    }
}

impl<const BITS: u32> QueueImpl for RadixHeapQueue<BITS> {
    const NAME: &'static str = match BITS {
        1 => "gen_radix2",
        2 => "gen_radix4",
        3 => "gen_radix8",
        4 => "gen_radix16",
        5 => "gen_radix32",
        6 => "gen_radix64",
        7 => "gen_radix128",
        8 => "gen_radix256",
        _ => panic!("RadixHeapQueue: BITS must be in 1..=8"),
    };
    fn with_capacity(n: usize) -> Self {
        let nb = Self::LEVELS * Self::D;
        let per = n.div_ceil(64).min(1 << 8);
        Self {
            l0: (0..Self::D).map(|_| Vec::with_capacity(per)).collect(),
            l0_mask: [0; 4],
            head: 0,
            buckets: (0..nb).map(|_| Vec::with_capacity(per)).collect(),
            bmin: vec![u64::MAX; nb],
            dmask: vec![[0; 4]; Self::LEVELS],
            level_mask: 0,
            last: 0,
            len: 0,
        }
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        debug_assert!(time >= self.last, "push earlier than last popped time");
        self.len += 1;
        self.file(time, payload);
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        let d = match lowest_bit(&self.l0_mask, Self::W) {
            Some(d) => d,
            None => {
                if self.len == 0 {
                    return None;
                }
                self.refill();
                lowest_bit(&self.l0_mask, Self::W)?
            }
        };
        let t = (self.last & !(Self::D as u64 - 1)) | d as u64;
        self.last = t;
        let b = &mut self.l0[d];
        let p = b[self.head];
        self.head += 1;
        if self.head == b.len() {
            b.clear();
            self.head = 0;
            self.l0_mask[d >> 6] &= !(1u64 << (d & 63));
        }
        self.len -= 1;
        Some((t, p))
    }
    #[inline]
    fn peek_time(&self) -> Option<u64> {
        if let Some(d) = lowest_bit(&self.l0_mask, Self::W) {
            Some((self.last & !(Self::D as u64 - 1)) | d as u64)
        } else if self.level_mask != 0 {
            let l = self.level_mask.trailing_zeros() as usize;
            let d = lowest_bit(&self.dmask[l], Self::W)?;
            Some(self.bmin[l * Self::D + d])
        } else {
            None
        }
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    fn clear(&mut self) {
        for b in &mut self.l0 {
            b.clear();
        }
        self.l0_mask = [0; 4];
        self.head = 0;
        for b in &mut self.buckets {
            b.clear();
        }
        self.bmin.fill(u64::MAX);
        self.dmask.fill([0; 4]);
        self.level_mask = 0;
        self.last = 0;
        self.len = 0;
    }
}

// ---------------------------------------------------------------------------
// Heap entries: (time, seq) is a unique key, seq = insertion counter.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: u64,
    seq: u64,
    payload: u64,
}

impl Entry {
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

/// Reversed order so that `std`'s max-heap yields the smallest key.
#[derive(Debug, Clone, Copy)]
struct MinEntry(Entry);

impl PartialEq for MinEntry {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}
impl Eq for MinEntry {}
impl PartialOrd for MinEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for MinEntry {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.key().cmp(&self.0.key())
    }
}

// ---------------------------------------------------------------------------
// Candidate 1: std BinaryHeap over (time, seq).
// ---------------------------------------------------------------------------

/// `std::collections::BinaryHeap` keyed on `(time, insertion seq)`.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct BinaryHeapQueue {
    heap: BinaryHeap<MinEntry>,
    seq: u64,
    last: u64,
}

impl QueueImpl for BinaryHeapQueue {
    const NAME: &'static str = "binary_heap";
    fn with_capacity(n: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(n),
            seq: 0,
            last: 0,
        }
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        debug_assert!(time >= self.last, "push earlier than last popped time");
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(MinEntry(Entry { time, seq, payload }));
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        let e = self.heap.pop()?.0;
        self.last = e.time;
        Some((e.time, e.payload))
    }
    #[inline]
    fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| e.0.time)
    }
    #[inline]
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn clear(&mut self) {
        self.heap.clear();
        self.seq = 0;
        self.last = 0;
    }
}

// ---------------------------------------------------------------------------
// Candidate 2: 4-ary implicit heap on a Vec.
// ---------------------------------------------------------------------------

const ARITY: usize = 4;

/// Implicit 4-ary min-heap on a `Vec`, keyed on `(time, insertion seq)`,
/// sift with a hole (one move per level instead of a swap).
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct QuaternaryHeapQueue {
    heap: Vec<Entry>,
    seq: u64,
    last: u64,
}

impl QuaternaryHeapQueue {
    #[inline]
    fn sift_up(&mut self, mut i: usize, e: Entry) {
        let k = e.key();
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let pe = self.heap[parent];
            if pe.key() <= k {
                break;
            }
            self.heap[i] = pe;
            i = parent;
        }
        self.heap[i] = e;
    }

    #[inline]
    fn sift_down(&mut self, e: Entry) {
        let n = self.heap.len();
        let k = e.key();
        let mut i = 0;
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let mut m = first;
            let mut mk = self.heap[first].key();
            if first + ARITY <= n {
                // all four children present: fixed-size, branch-light scan
                let c = &self.heap[first..first + ARITY];
                for (j, ce) in c.iter().enumerate().skip(1) {
                    let ck = ce.key();
                    if ck < mk {
                        mk = ck;
                        m = first + j;
                    }
                }
            } else {
                for j in first + 1..n {
                    let ck = self.heap[j].key();
                    if ck < mk {
                        mk = ck;
                        m = j;
                    }
                }
            }
            if k <= mk {
                break;
            }
            self.heap[i] = self.heap[m];
            i = m;
        }
        self.heap[i] = e;
    }
}

impl QueueImpl for QuaternaryHeapQueue {
    const NAME: &'static str = "4ary_heap";
    fn with_capacity(n: usize) -> Self {
        Self {
            heap: Vec::with_capacity(n),
            seq: 0,
            last: 0,
        }
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        debug_assert!(time >= self.last, "push earlier than last popped time");
        let e = Entry {
            time,
            seq: self.seq,
            payload,
        };
        self.seq += 1;
        let i = self.heap.len();
        self.heap.push(e);
        self.sift_up(i, e);
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = self.heap[0];
            self.sift_down(last);
            top
        };
        self.last = top.time;
        Some((top.time, top.payload))
    }
    #[inline]
    fn peek_time(&self) -> Option<u64> {
        self.heap.first().map(|e| e.time)
    }
    #[inline]
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn clear(&mut self) {
        self.heap.clear();
        self.seq = 0;
        self.last = 0;
    }
}

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
#[doc(hidden)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};
    use std::collections::BTreeMap;

    /// Reference model: BTreeMap keyed by (time, insertion index).
    #[derive(Default)]
    struct Reference {
        map: BTreeMap<(u64, u64), u64>,
        seq: u64,
    }

    impl Reference {
        fn push(&mut self, t: u64, p: u64) {
            self.map.insert((t, self.seq), p);
            self.seq += 1;
        }
        fn pop(&mut self) -> Option<(u64, u64)> {
            self.map.pop_first().map(|((t, _), p)| (t, p))
        }
        fn peek_time(&self) -> Option<u64> {
            self.map.first_key_value().map(|(k, _)| k.0)
        }
    }

    #[derive(Debug, Clone, Copy)]
    enum Op {
        /// push at last-popped time + delta
        Push(u64),
        Pop,
        Clear,
    }

    /// Applies `ops` to `Q` and to the reference model, checking every
    /// observable result.
    fn check_against_reference<Q: QueueImpl>(ops: &[Op], cap: usize) {
        let mut q = Q::with_capacity(cap);
        let mut r = Reference::default();
        let mut now = 0u64;
        let mut payload = 0u64;
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Push(d) => {
                    q.push(now.saturating_add(d), payload);
                    r.push(now.saturating_add(d), payload);
                    payload += 1;
                }
                Op::Pop => {
                    let got = q.pop();
                    let want = r.pop();
                    assert_eq!(got, want, "{}: pop mismatch at op {i}", Q::NAME);
                    if let Some((t, _)) = want {
                        now = t;
                    }
                }
                Op::Clear => {
                    q.clear();
                    r = Reference::default();
                    now = 0;
                }
            }
            assert_eq!(q.len(), r.map.len(), "{}: len at op {i}", Q::NAME);
            assert_eq!(q.is_empty(), r.map.is_empty(), "{}: is_empty", Q::NAME);
            assert_eq!(q.peek_time(), r.peek_time(), "{}: peek at op {i}", Q::NAME);
        }
        // drain
        loop {
            let got = q.pop();
            let want = r.pop();
            assert_eq!(got, want, "{}: pop mismatch while draining", Q::NAME);
            if want.is_none() {
                break;
            }
        }
    }

    fn check_all(ops: &[Op], cap: usize) {
        check_against_reference::<EventQueue>(ops, cap);
        check_against_reference::<BinaryHeapQueue>(ops, cap);
        check_against_reference::<QuaternaryHeapQueue>(ops, cap);
        check_against_reference::<CalendarQueue>(ops, cap);
        check_against_reference::<RadixHeapQueue<1>>(ops, cap);
        check_against_reference::<RadixHeapQueue<2>>(ops, cap);
        check_against_reference::<RadixHeapQueue<3>>(ops, cap);
        check_against_reference::<RadixHeapQueue<4>>(ops, cap);
        check_against_reference::<RadixHeapQueue<5>>(ops, cap);
        check_against_reference::<RadixHeapQueue<6>>(ops, cap);
        check_against_reference::<RadixHeapQueue<7>>(ops, cap);
        check_against_reference::<RadixHeapQueue<8>>(ops, cap);
    }

    /// Random monotone workload with many equal times, phases of growth and
    /// shrinkage, and a few far-future events.
    fn random_ops(seed: u64, n: usize) -> Vec<Op> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ops = Vec::with_capacity(n);
        let mut pending = 0usize;
        for i in 0..n {
            let phase = (i / 2000) % 3; // grow, steady, shrink
            let push_pct = match phase {
                0 => 70,
                1 => 50,
                _ => 30,
            };
            let r = rng.next_u64();
            if r % 100 < push_pct || pending == 0 {
                let kind = (r >> 8) % 100;
                let d = match kind {
                    0..=29 => 0,                                    // same time as now
                    30..=49 => rng.next_u64() % 4,                  // near-ties
                    50..=79 => rng.next_u64() % 2000,               // ~µs scale
                    80..=94 => rng.next_u64() % 1_000_000,          // ~ms scale
                    95..=98 => rng.next_u64() % 10_000_000_000_000, // up to 1e13 ns
                    _ => rng.next_u64() >> (rng.next_u64() % 64),   // anything
                };
                ops.push(Op::Push(d));
                pending += 1;
            } else {
                ops.push(Op::Pop);
                pending -= 1;
            }
        }
        ops
    }

    #[test]
    fn all_candidates_match_reference_random() {
        for seed in 0..12 {
            let ops = random_ops(seed, 20_000);
            check_all(&ops, (seed as usize) * 100);
        }
    }

    #[test]
    fn all_candidates_match_reference_many_equal_times() {
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let mut ops = Vec::new();
        for _ in 0..30_000 {
            let r = rng.next_u64();
            if r % 5 < 3 {
                ops.push(Op::Push(rng.next_u64() % 3));
            } else {
                ops.push(Op::Pop);
            }
        }
        check_all(&ops, 16);
    }

    #[test]
    fn all_candidates_fifo_and_clear() {
        let mut ops = Vec::new();
        for _ in 0..100 {
            ops.push(Op::Push(7));
        }
        for _ in 0..100 {
            ops.push(Op::Push(0));
        }
        for _ in 0..50 {
            ops.push(Op::Pop);
        }
        ops.push(Op::Push(0));
        ops.push(Op::Push(u64::MAX));
        for _ in 0..120 {
            ops.push(Op::Pop);
        }
        ops.push(Op::Clear);
        for d in [5, 5, 1, 1, 0, 9, 5] {
            ops.push(Op::Push(d));
        }
        ops.push(Op::Pop);
        ops.push(Op::Clear);
        ops.push(Op::Pop);
        ops.push(Op::Push(3));
        check_all(&ops, 0);
    }

    /// Hold model (as in the benchmark): all candidates produce the same
    /// event sequence.
    #[test]
    fn all_candidates_agree_on_hold_model() {
        fn run<Q: QueueImpl>(pending: usize) -> Vec<(u64, u64)> {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let mut exp = || {
                let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                (-(1.0 - u).ln() * 1000.0) as u64
            };
            let mut q = Q::with_capacity(pending);
            for i in 0..pending as u64 {
                q.push(exp(), i);
            }
            let mut out = Vec::new();
            for i in 0..20_000u64 {
                let (t, p) = q.pop().unwrap_or_default();
                out.push((t, p));
                q.push(t + exp(), p ^ i);
            }
            out
        }
        for pending in [1, 10, 1000, 5000] {
            let a = run::<EventQueue>(pending);
            assert_eq!(a, run::<BinaryHeapQueue>(pending));
            assert_eq!(a, run::<QuaternaryHeapQueue>(pending));
            assert_eq!(a, run::<CalendarQueue>(pending));
            assert_eq!(a, run::<RadixHeapQueue<1>>(pending));
            assert_eq!(a, run::<RadixHeapQueue<4>>(pending));
            assert_eq!(a, run::<RadixHeapQueue<6>>(pending));
            assert_eq!(a, run::<RadixHeapQueue<8>>(pending));
        }
    }

    fn op_strategy() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::Push(0)),
            3 => (0u64..4).prop_map(Op::Push),
            3 => (0u64..100_000).prop_map(Op::Push),
            1 => any::<u64>().prop_map(|x| Op::Push(x >> 20)),
            1 => any::<u64>().prop_map(Op::Push),
            8 => Just(Op::Pop),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn prop_all_candidates_match_reference(
            ops in proptest::collection::vec(op_strategy(), 0..400),
            cap in 0usize..64,
        ) {
            check_all(&ops, cap);
        }
    }
}
