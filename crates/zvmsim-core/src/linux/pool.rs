//! The word of each pool page (FREE, a file block, ANON | an anonymous page, BALLOON), held as
//! its difference (XOR) from the word the page is expected to have, so that a page whose word
//! is the expected one costs nothing: the array is zeroed memory the kernel supplies on first
//! write, and a word that stays as expected is never written.
//!
//! * Expected is FREE: a guest's pages Linux never uses (an idle guest's, nearly all) cost
//!   nothing here, where they cost 4 bytes each (1.9 GB for the 900 idle guests of
//!   `scenarios/scale/1000guests.toml`).
//! * Once the warm start places every anonymous (shared-memory) page v in pool page v, the
//!   expected word of those pages is ANON | v: a database's buffer pool, half a guest's pages
//!   in the large-memory study, is never written here (87 MB of its 1.1 GB).

use super::memory::{ANON, FREE};

pub(super) struct PoolWords {
    diff: Vec<u32>,
    /// Pool pages below this are expected to hold the anonymous page of their own number.
    identity: u32,
    /// No difference at or above this index has ever been written: those words are the
    /// expected ones, known without reading memory. (Reading memory never written maps the
    /// kernel's shared zero page, and a write after it copies that page: a second fault and
    /// a TLB flush on every core running the process. The warm start reads each free pool
    /// page's word before giving the page to the cache.)
    unwritten_from: u32,
}

impl PoolWords {
    /// `n` pool pages, all free.
    pub(super) fn free(n: usize) -> Self {
        PoolWords {
            diff: vec![0; n],
            identity: 0,
            unwritten_from: 0,
        }
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.diff.len()
    }

    #[inline]
    fn expected(&self, i: u32) -> u32 {
        if i < self.identity {
            ANON | i
        } else {
            FREE
        }
    }

    /// Pool page `i`'s word.
    #[inline]
    pub(super) fn at(&self, i: u32) -> u32 {
        if i >= self.unwritten_from {
            return self.expected(i);
        }
        self.diff[i as usize] ^ self.expected(i)
    }

    /// A word equal to the expected one is not written (its memory may never have been).
    /// Any other is written without reading the old difference first (`unwritten_from`).
    #[inline]
    pub(super) fn set(&mut self, i: u32, word: u32) {
        let d = word ^ self.expected(i);
        if d != 0 {
            self.diff[i as usize] = d;
            self.unwritten_from = self.unwritten_from.max(i + 1);
        } else if i < self.unwritten_from && self.diff[i as usize] != 0 {
            self.diff[i as usize] = 0;
        }
    }

    /// The warm start is about to place anonymous page v in pool page v for every v below
    /// `pages`: expect it there. Every pool page below `pages` must be free and unwritten.
    pub(super) fn expect_identity(&mut self, pages: u32) {
        let pages = pages.min(self.diff.len() as u32);
        debug_assert!(self.identity == 0 && self.diff[..pages as usize].iter().all(|&d| d == 0));
        self.identity = pages;
    }

    /// The warm start could not place every anonymous page in the pool page of its number:
    /// the pages it placed (`placed`) hold theirs, the others below the old bound that were
    /// never set are free. Every word is written out against the FREE expectation.
    pub(super) fn drop_identity(&mut self, placed: &fixedbitset::FixedBitSet) {
        let old = std::mem::replace(&mut self.identity, 0);
        for i in 0..old {
            let d = if i < self.unwritten_from {
                self.diff[i as usize]
            } else {
                0
            };
            let word = if d != 0 || placed.contains(i as usize) {
                d ^ (ANON | i)
            } else {
                FREE
            };
            self.set(i, word);
        }
    }

    /// Every pool page's word, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.diff
            .iter()
            .enumerate()
            .map(|(i, d)| d ^ self.expected(i as u32))
    }

    /// Ask for the cache line of pool page `i`'s word.
    #[inline]
    pub(super) fn prefetch(&self, i: u32) {
        crate::engine::prefetch::prefetch(&self.diff, i as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_words_are_never_written_and_dropping_the_expectation_keeps_every_word() {
        let mut p = PoolWords::free(16);
        p.expect_identity(8);
        for v in [3u32, 0, 5] {
            p.set(v, ANON | v);
        }
        // A file block where shared memory was expected; shared memory past the range.
        p.set(6, 1234);
        p.set(12, ANON | 2);
        // Words equal to the expected ones left the memory as it was.
        assert!(p.diff[..6].iter().all(|&d| d == 0));
        assert_eq!(p.at(6), 1234);
        assert_eq!(p.at(12), ANON | 2);
        let mut placed = fixedbitset::FixedBitSet::with_capacity(8);
        for v in [3, 0, 5] {
            placed.insert(v);
        }
        p.drop_identity(&placed);
        let words: Vec<u32> = p.iter().collect();
        let mut want = vec![FREE; 16];
        for v in [3u32, 0, 5] {
            want[v as usize] = ANON | v;
        }
        want[6] = 1234;
        want[12] = ANON | 2;
        assert_eq!(words, want);
        // Free pages are zero again (the FREE expectation).
        assert_eq!(p.diff[1], 0);
        assert_eq!(p.diff[7], 0);
    }

    #[test]
    fn words_above_the_highest_written_are_known_without_reading_memory() {
        let mut p = PoolWords::free(16);
        assert_eq!(p.unwritten_from, 0);
        p.set(9, FREE);
        assert_eq!(p.unwritten_from, 0, "an expected word is not a write");
        p.set(5, 77);
        p.set(2, 78);
        assert_eq!(p.unwritten_from, 6);
        // A difference planted above the mark is not read: the mark stands for "never
        // written", which only `set` may end.
        p.diff[10] = 1;
        assert_eq!(p.at(10), FREE);
        assert_eq!((p.at(5), p.at(2)), (77, 78));
        // Back to the expected word: the memory is zeroed again, the mark stays.
        p.set(5, FREE);
        assert_eq!((p.diff[5], p.at(5), p.unwritten_from), (0, FREE, 6));
    }
}
