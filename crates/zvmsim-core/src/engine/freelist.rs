//! A free list of numbered things (Linux's free pages of a guest, its swap slots, CP's
//! available frames above 2 GB) whose untouched tail needs no entries: a stack of those freed
//! (or left free between used ones) over a run never used, handed out lowest first once the
//! stack is empty. An idle guest thus costs nothing here for the storage it never touches, and
//! CP's available list no longer holds an entry for every frame of central storage at IPL
//! (84 MB at 80 GB, 134 MB with the doubling of its growth). The order things are handed out
//! in is that of a single list holding the untouched run beneath the stack.

/// Free pages gathered in increasing order, as runs [lo, hi), for [`FreePages::from_runs`].
#[derive(Debug, Default)]
pub(crate) struct FreeRuns(Vec<(u32, u32)>);

impl FreeRuns {
    /// Page `i`, above every page pushed so far, is free.
    #[inline]
    pub(crate) fn push(&mut self, i: u32) {
        match self.0.last_mut() {
            Some(r) if r.1 == i => r.1 = i + 1,
            _ => self.0.push((i, i + 1)),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct FreePages {
    stack: Vec<u32>,
    /// The untouched run [next, end): free pages above every page ever used.
    next: u32,
    end: u32,
}

impl FreePages {
    /// The free pages `ascending` (pool indexes in increasing order), handed out lowest first.
    #[cfg(test)]
    pub(crate) fn from_ascending(ascending: impl Iterator<Item = u32>, pool_len: u32) -> Self {
        let mut runs = FreeRuns::default();
        ascending.for_each(|i| runs.push(i));
        Self::from_runs(runs, pool_len)
    }

    /// The free pages of `runs`, handed out lowest first. A run that ends at the top of the
    /// pool needs no entries: an idle guest's free list is one run, and collecting its pages
    /// one by one wrote 4 bytes a pool page that were dropped at once (set-up time: the host
    /// clears each page of such a buffer on first touch).
    pub(crate) fn from_runs(runs: FreeRuns, pool_len: u32) -> Self {
        let mut runs = runs.0;
        let next = match runs.last() {
            Some(&(lo, hi)) if hi == pool_len => {
                runs.pop();
                lo
            }
            _ => pool_len,
        };
        let n: usize = runs.iter().map(|r| (r.1 - r.0) as usize).sum();
        let mut stack = Vec::with_capacity(n);
        for &(lo, hi) in runs.iter().rev() {
            stack.extend((lo..hi).rev());
        }
        FreePages {
            stack,
            next,
            end: pool_len,
        }
    }

    /// Entries 0..n all free, handed out lowest first.
    pub(crate) fn all(n: u32) -> Self {
        Self::range(0, n)
    }

    /// Entries start..end all free, handed out lowest first.
    pub(crate) fn range(start: u32, end: u32) -> Self {
        FreePages {
            stack: Vec::new(),
            next: start,
            end: end.max(start),
        }
    }

    /// Every free entry as one stack (the last entry is handed out first), for a caller that
    /// reorders them: the untouched run takes entries from here on.
    pub(crate) fn entries_mut(&mut self) -> &mut [u32] {
        if self.next < self.end {
            let run = self.next..self.end;
            let mut below = Vec::with_capacity(self.stack.len() + run.len());
            below.extend(run.rev());
            below.append(&mut self.stack);
            self.stack = below;
            self.next = self.end;
        }
        &mut self.stack
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<u32> {
        if let Some(i) = self.stack.pop() {
            return Some(i);
        }
        (self.next < self.end).then(|| {
            self.next += 1;
            self.next - 1
        })
    }

    /// The entry `pop` would hand out next.
    #[cfg(test)]
    pub(crate) fn peek(&self) -> Option<u32> {
        self.stack
            .last()
            .copied()
            .or((self.next < self.end).then_some(self.next))
    }

    #[inline]
    pub(crate) fn push(&mut self, i: u32) {
        self.stack.push(i);
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.stack.len() + (self.end - self.next) as usize
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every free entry, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.stack.iter().copied().chain(self.next..self.end)
    }

    pub(crate) fn clear(&mut self) {
        self.stack.clear();
        self.next = self.end;
    }
}

#[cfg(test)]
mod tests {
    use super::FreePages;

    /// Same order as one list holding every free page (lowest first, freed pages on top).
    #[test]
    fn hands_out_pages_as_a_full_list_would() {
        let free = [2u32, 3, 7, 8, 9];
        let mut f = FreePages::from_ascending(free.iter().copied(), 10);
        let mut list: Vec<u32> = free.iter().rev().copied().collect();
        assert_eq!(f.len(), 5);
        assert_eq!(f.stack.len(), 2, "the run 7..10 needs no entries");
        for step in 0..12u32 {
            if step % 3 == 2 {
                f.push(step);
                list.push(step);
            } else {
                assert_eq!(f.pop(), list.pop());
            }
            assert_eq!(f.len(), list.len());
        }
        while let Some(i) = list.pop() {
            assert_eq!(f.pop(), Some(i));
        }
        assert_eq!(f.pop(), None);
    }
}
