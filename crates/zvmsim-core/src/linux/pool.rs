//! The word of each pool page (FREE, a file block, ANON | an anonymous page, BALLOON), held
//! complemented so that a free page's word is zero: the array is zeroed memory the kernel
//! supplies on first write, and a guest's pages Linux never uses (an idle guest's, nearly all)
//! cost nothing here, where they cost 4 bytes each (1.9 GB for the 900 idle guests of
//! `scenarios/scale/1000guests.toml`).

use super::memory::FREE;

pub(super) struct PoolWords(Vec<u32>);

// FREE is all ones, so its complement is the zero the allocation starts with.
const _: () = assert!(!FREE == 0);

impl PoolWords {
    /// `n` pool pages, all free.
    pub(super) fn free(n: usize) -> Self {
        PoolWords(vec![0; n])
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Pool page `i`'s word.
    #[inline]
    pub(super) fn at(&self, i: u32) -> u32 {
        !self.0[i as usize]
    }

    #[inline]
    pub(super) fn set(&mut self, i: u32, word: u32) {
        self.0[i as usize] = !word;
    }

    /// Every pool page's word, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().map(|w| !w)
    }

    /// Ask for the cache line of pool page `i`'s word.
    #[inline]
    pub(super) fn prefetch(&self, i: u32) {
        crate::engine::prefetch::prefetch(&self.0, i as usize);
    }
}
