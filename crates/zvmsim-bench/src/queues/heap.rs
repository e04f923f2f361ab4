//! Comparison heaps keyed on `(time, insertion seq)`: `std`'s binary heap and
//! an implicit 4-ary heap.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::QueueImpl;

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
