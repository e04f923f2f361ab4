//! The page word's fields (their layout is beside the constants in mod.rs): a page's place —
//! valid frame, XSTOR block, or the frame it keeps on the aging list — and its DASD slot, read
//! and written here only, so that every mechanism sees one meaning of each bit.

use super::{Storage, AGED, FMASK, FRAME_NONE, NONE, PLACE, SLOT_FIELD, SLOT_SHIFT};

impl Storage {
    /// The XSTOR block holding page index `i` (NONE: none, or no expanded storage at all).
    #[inline]
    pub(super) fn xstor_block(&self, i: usize) -> u32 {
        match self.place(i) {
            FRAME_NONE => NONE,
            f if f >= self.xs_base => f - self.xs_base,
            _ => NONE,
        }
    }

    /// Page index `i`, not resident, is now in XSTOR block `b` (NONE: in none).
    #[inline]
    pub(super) fn set_xstor_block(&mut self, i: usize, b: u32) {
        let place = if b == NONE {
            FRAME_NONE
        } else {
            self.xs_base + b
        };
        self.set_place(i, place);
    }

    /// Page index `i`'s place as the page table sees it: its valid frame, its XSTOR block (past
    /// `xs_base`) or FRAME_NONE (not resident, or invalid on the aging list).
    #[inline]
    pub(super) fn place(&self, i: usize) -> u32 {
        let w = self.pg[i];
        if w & AGED != 0 {
            FRAME_NONE
        } else {
            w as u32 & FMASK
        }
    }

    /// Page index `i` is now at `place`; its flags and slot stay.
    #[inline]
    pub(super) fn set_place(&mut self, i: usize, place: u32) {
        self.pg[i] = (self.pg[i] & !PLACE) | place as u64;
    }

    /// Page index `i`'s DASD slot (NONE: none).
    #[inline]
    pub(super) fn slot(&self, i: usize) -> u32 {
        match (self.pg[i] >> SLOT_SHIFT) & SLOT_FIELD {
            SLOT_FIELD => NONE,
            s => s as u32,
        }
    }

    /// Page index `i` now holds slot `s` (NONE: none).
    #[inline]
    pub(super) fn set_slot(&mut self, i: usize, s: u32) {
        let v = if s == NONE { SLOT_FIELD } else { s as u64 };
        self.pg[i] = (self.pg[i] & !(SLOT_FIELD << SLOT_SHIFT)) | (v << SLOT_SHIFT);
    }

    /// The frame page `i` holds: its valid frame, or the one it keeps on the aging list.
    #[inline]
    pub(super) fn held_frame(&self, i: usize) -> Option<u32> {
        match self.pg[i] as u32 & FMASK {
            f if f < self.xs_base => Some(f),
            _ => None,
        }
    }

    /// The frame page `i` keeps on the aging list, if it is on it.
    #[inline]
    pub(super) fn aged_frame(&self, i: usize) -> Option<u32> {
        (self.pg[i] & AGED != 0).then_some(self.pg[i] as u32 & FMASK)
    }
}
