//! Expanded storage (XSTOR): 4 KB blocks that CP pages to synchronously. CP keeps an exact age
//! per block, so migration to DASD takes the oldest blocks first; a FIFO of arrivals gives that
//! order (a page leaving XSTOR leaves a stale entry, skipped by sequence number).

use std::collections::VecDeque;

use crate::cp::storage::NONE;

/// The FIFO of arrivals is pruned of stale entries when it holds more than this many entries
/// per block, plus `FIFO_COMPACT_SLACK`. A memory bound only: `evict_oldest` skips stale
/// entries anyway, so the bound does not change which page migrates. Inference.
const FIFO_COMPACT_FACTOR: usize = 4;
const FIFO_COMPACT_SLACK: usize = 1024;

pub struct Xstor {
    owner: Vec<u32>,
    seq: Vec<u32>,
    free: Vec<u32>,
    fifo: VecDeque<(u32, u32)>,
    next_seq: u32,
}

impl Xstor {
    pub fn new(blocks: u32) -> Self {
        Xstor {
            owner: vec![NONE; blocks as usize],
            seq: vec![0; blocks as usize],
            free: (0..blocks).rev().collect(),
            fifo: VecDeque::new(),
            next_seq: 0,
        }
    }
    pub fn capacity(&self) -> u64 {
        self.owner.len() as u64
    }
    pub fn free(&self) -> u64 {
        self.free.len() as u64
    }
    pub fn used(&self) -> u64 {
        self.capacity() - self.free()
    }
    pub fn owner(&self, block: u32) -> u32 {
        self.owner[block as usize]
    }

    /// Page-out of `page`: the block it got, or None when XSTOR is full.
    pub fn store(&mut self, page: u32) -> Option<u32> {
        let b = self.assign(page)?;
        self.fifo.push_back((b, self.next_seq));
        Some(b)
    }

    /// A free block for `page`, with a new sequence number (not yet in the FIFO).
    fn assign(&mut self, page: u32) -> Option<u32> {
        let b = self.free.pop()?;
        self.owner[b as usize] = page;
        self.next_seq = self.next_seq.wrapping_add(1);
        self.seq[b as usize] = self.next_seq;
        Some(b)
    }

    /// The page in `block` went back to central storage.
    pub fn release(&mut self, block: u32) {
        self.owner[block as usize] = NONE;
        self.free.push(block);
    }

    /// Remove and return the page that has been in XSTOR longest.
    pub fn evict_oldest(&mut self) -> Option<u32> {
        while let Some((b, s)) = self.fifo.pop_front() {
            let page = self.owner[b as usize];
            if page != NONE && self.seq[b as usize] == s {
                self.release(b);
                return Some(page);
            }
        }
        None
    }

    /// Put `page` back as the oldest page (a migration batch that could not place it in a
    /// full block returns it). The block it got, or None when XSTOR is full.
    pub fn return_oldest(&mut self, page: u32) -> Option<u32> {
        let b = self.assign(page)?;
        self.fifo.push_front((b, self.next_seq));
        Some(b)
    }

    /// Drop stale FIFO entries when they outnumber the blocks (bounded memory).
    pub fn compact_if_needed(&mut self) {
        if self.fifo.len() > FIFO_COMPACT_FACTOR * self.owner.len() + FIFO_COMPACT_SLACK {
            let (owner, seq) = (&self.owner, &self.seq);
            self.fifo
                .retain(|&(b, s)| owner[b as usize] != NONE && seq[b as usize] == s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_first_and_stale_entries_skipped() {
        let mut x = Xstor::new(3);
        let a = x.store(10).unwrap();
        x.store(11).unwrap();
        x.store(12).unwrap();
        assert!(x.store(13).is_none());
        x.release(a); // page 10 paged back in
        x.store(14).unwrap();
        assert_eq!(x.evict_oldest(), Some(11));
        assert_eq!(x.evict_oldest(), Some(12));
        assert_eq!(x.evict_oldest(), Some(14));
        assert_eq!(x.evict_oldest(), None);
        assert_eq!(x.used(), 0);
    }

    #[test]
    fn a_returned_page_is_again_the_oldest() {
        let mut x = Xstor::new(3);
        x.store(10).unwrap();
        x.store(11).unwrap();
        assert_eq!(x.evict_oldest(), Some(10));
        x.store(12).unwrap();
        x.return_oldest(10).unwrap();
        assert!(x.return_oldest(13).is_none());
        assert_eq!(x.evict_oldest(), Some(10));
        assert_eq!(x.evict_oldest(), Some(11));
        assert_eq!(x.evict_oldest(), Some(12));
    }
}
