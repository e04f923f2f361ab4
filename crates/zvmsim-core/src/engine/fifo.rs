//! A first-in first-out queue of small records held in fixed chunks. A `VecDeque` doubles its
//! buffer as it grows and never gives the slack back: CP's queue of unreferenced block-read
//! companions reaches millions of entries in the ten-guest large-memory runs, and its
//! doubling alone held 67 MB more than the entries. Here a queue holds at most one partly
//! used chunk at each end beyond its entries, and an emptied chunk is kept for reuse.

use std::collections::VecDeque;

/// Entries per chunk: large enough that the chunk's own allocation is rare, small enough that
/// the slack (at most two chunks) is nothing beside the millions of entries.
const CHUNK: usize = 1 << 14;

#[derive(Debug, Clone, Default)]
pub struct ChunkedFifo<T: Copy> {
    chunks: VecDeque<Vec<T>>,
    /// Entries of the front chunk already taken.
    head: usize,
    len: usize,
    spare: Option<Vec<T>>,
}

impl<T: Copy> ChunkedFifo<T> {
    pub fn new() -> Self {
        ChunkedFifo {
            chunks: VecDeque::new(),
            head: 0,
            len: 0,
            spare: None,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push_back(&mut self, v: T) {
        if self.chunks.back().map_or(true, |c| c.len() == CHUNK) {
            let chunk = self
                .spare
                .take()
                .unwrap_or_else(|| Vec::with_capacity(CHUNK));
            self.chunks.push_back(chunk);
        }
        if let Some(c) = self.chunks.back_mut() {
            c.push(v);
        }
        self.len += 1;
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.chunks.front().and_then(|c| c.get(self.head))
    }

    /// The entry `k` places behind the oldest (`get(0)` is `front()`), to look ahead.
    #[inline]
    pub fn get(&self, k: usize) -> Option<&T> {
        // Every chunk but the last is full: the front one's taken entries count too.
        let i = self.head + k;
        self.chunks.get(i / CHUNK).and_then(|c| c.get(i % CHUNK))
    }

    /// The oldest entry, to change.
    #[inline]
    pub fn front_mut(&mut self) -> Option<&mut T> {
        let head = self.head;
        self.chunks.front_mut().and_then(|c| c.get_mut(head))
    }

    /// The newest entry, to change (e.g. a run's count).
    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        self.chunks.back_mut().and_then(|c| c.last_mut())
    }

    pub fn pop_front(&mut self) -> Option<T> {
        let c = self.chunks.front()?;
        let v = *c.get(self.head)?;
        self.head += 1;
        self.len -= 1;
        if self.head == c.len() && (c.len() == CHUNK || self.len == 0) {
            if let Some(mut done) = self.chunks.pop_front() {
                done.clear();
                self.spare = Some(done);
            }
            self.head = 0;
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same order as a VecDeque through pushes and pops across chunk boundaries, with the
    /// queue emptied and refilled on the way.
    #[test]
    fn behaves_as_a_vecdeque() {
        let mut f = ChunkedFifo::new();
        let mut d = VecDeque::new();
        let mut x = 7u64;
        for step in 0..(CHUNK as u64 * 5) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Pushes outnumber pops in the first half, pops in the second: the queue grows
            // over several chunks, then drains to empty more than once.
            let push = if step < CHUNK as u64 * 3 {
                x >> 62 != 0
            } else {
                x >> 62 == 0
            };
            if push {
                f.push_back(step);
                d.push_back(step);
            } else {
                assert_eq!(f.pop_front(), d.pop_front());
            }
            assert_eq!(f.len(), d.len());
            assert_eq!(f.front(), d.front());
            for k in [0, 1, CHUNK - 1, CHUNK, d.len().saturating_sub(1), d.len()] {
                assert_eq!(f.get(k), d.get(k), "entry {k} behind the front");
            }
        }
        assert!(f.chunks.len() <= 1, "drained chunks are released");
        while let Some(v) = d.pop_front() {
            assert_eq!(f.pop_front(), Some(v));
        }
        assert!(f.is_empty());
        assert_eq!(f.pop_front(), None);
    }
}
