//! A 32-bit entry per frame whose empty value is NONE: the frame table (the page each frame
//! holds; NONE free, CP_OWNED CP's own) and the aging list's links. Entries are held
//! complemented, so that a frame never used since IPL is a zero in memory the kernel has not
//! yet handed out: an LPAR's frames cost host memory only once CP uses them.

/// A u32 per frame, complemented.
pub(super) struct FrameTable(Vec<u32>);

impl FrameTable {
    /// `frames` entries, all NONE (all-zero memory, mapped lazily).
    pub(super) fn new(frames: usize) -> Self {
        FrameTable(vec![0; frames])
    }

    /// Frame `f`'s entry.
    #[inline]
    pub(super) fn get(&self, f: u32) -> u32 {
        !self.0[f as usize]
    }

    /// Frame `f`'s entry, or None past the last frame.
    #[inline]
    pub(super) fn try_get(&self, f: u32) -> Option<u32> {
        self.0.get(f as usize).map(|&w| !w)
    }

    /// Ask for frame `f`'s cache line ahead of a read (a hint; nothing past the last frame).
    #[inline]
    pub(super) fn prefetch(&self, f: u32) {
        crate::engine::prefetch::prefetch(&self.0, f as usize);
    }

    /// Frame `f`'s entry is now `page`.
    #[inline]
    pub(super) fn set(&mut self, f: u32, page: u32) {
        self.0[f as usize] = !page;
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Each frame's entry, in frame order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().map(|&w| !w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cp::storage::{CP_OWNED, NONE};

    #[test]
    fn a_new_table_is_free_frames_in_zeroed_memory() {
        let mut t = FrameTable::new(4);
        assert!(t.0.iter().all(|&w| w == 0));
        assert!(t.iter().all(|p| p == NONE));
        t.set(1, 7);
        t.set(2, CP_OWNED);
        assert_eq!(t.iter().collect::<Vec<_>>(), [NONE, 7, CP_OWNED, NONE]);
        assert_eq!(t.try_get(3), Some(NONE));
        assert_eq!(t.try_get(4), None);
        t.set(1, NONE);
        assert_eq!(t.0[1], 0, "a freed frame is zero again");
    }
}
