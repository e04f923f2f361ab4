//! Where each anonymous page is (its pool page or none, with the A_* flags) and its swap slot.
//! While every anonymous page sits in the pool page of its own number and none has a slot —
//! the warm start's state whenever shared memory fits, kept until reclaim first considers
//! mapped pages — both are implied and cost no memory: ten 16 GB guests with 9 GB of shared
//! memory each are spared 187 MB. The arrays appear at the first change.

use super::memory::{A_OUT, A_REF};
use crate::cp::storage::NONE;

pub(super) struct AnonPages {
    at: Vec<u32>,
    slot: Vec<u32>,
    n: u32,
    /// Until the arrays exist: every page is in pool page v, referenced (true), or out of
    /// memory without a slot (false, a cold start).
    identity: bool,
}

impl AnonPages {
    /// `n` anonymous pages, none in memory yet.
    pub(super) fn new(n: u32) -> Self {
        AnonPages {
            at: Vec::new(),
            slot: Vec::new(),
            n,
            identity: false,
        }
    }

    /// Every page in the pool page of its own number, referenced (no memory used).
    pub(super) fn set_identity(&mut self) {
        self.at = Vec::new();
        self.slot = Vec::new();
        self.identity = true;
    }

    fn implied(&self, v: u32) -> u32 {
        if self.identity {
            v | A_REF
        } else {
            A_OUT
        }
    }

    /// Page `v`'s word: its pool page (A_OUT: none) and flags.
    #[inline]
    pub(super) fn at(&self, v: u32) -> u32 {
        match self.at.get(v as usize) {
            Some(&a) => a,
            None => self.implied(v),
        }
    }

    /// Page `v`'s swap slot (NONE: none).
    #[inline]
    pub(super) fn slot(&self, v: u32) -> u32 {
        self.slot.get(v as usize).copied().unwrap_or(NONE)
    }

    fn materialize(&mut self) {
        if self.at.is_empty() && self.n > 0 {
            self.at = (0..self.n).map(|v| self.implied(v)).collect();
            self.slot = vec![NONE; self.n as usize];
        }
    }

    /// Page `v`'s word, to change.
    #[inline]
    pub(super) fn at_mut(&mut self, v: u32) -> &mut u32 {
        self.materialize();
        &mut self.at[v as usize]
    }

    pub(super) fn set_slot(&mut self, v: u32, s: u32) {
        self.materialize();
        self.slot[v as usize] = s;
    }

    /// Every page's word, to change all (reclaim's first look at mapped pages).
    pub(super) fn all_mut(&mut self) -> &mut [u32] {
        self.materialize();
        &mut self.at
    }

    /// Pages whose word satisfies `pred`.
    pub(super) fn count(&self, pred: impl Fn(u32) -> bool) -> u64 {
        if self.at.is_empty() {
            return (0..self.n).filter(|&v| pred(self.implied(v))).count() as u64;
        }
        self.at.iter().filter(|&&a| pred(a)).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::memory::A_SLOT;

    #[test]
    fn implied_states_read_as_the_arrays_they_stand_for() {
        let mut a = AnonPages::new(4);
        assert_eq!((a.at(2), a.slot(2)), (A_OUT, NONE));
        a.set_identity();
        assert_eq!((a.at(2), a.slot(2)), (2 | A_REF, NONE));
        assert!(a.at.is_empty(), "identity costs no memory");
        a.set_slot(3, 7);
        *a.at_mut(3) |= A_SLOT;
        assert_eq!(
            (a.at(1), a.at(3), a.slot(3)),
            (1 | A_REF, 3 | A_REF | A_SLOT, 7)
        );
        assert_eq!(a.count(|x| x & A_SLOT != 0), 1);
    }
}
