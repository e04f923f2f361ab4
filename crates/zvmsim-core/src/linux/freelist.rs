//! Linux's free pages of one guest. A page never used since boot needs no entry: the free
//! pages are a stack of pages freed (or left free between used ones) over a run of untouched
//! pages at the top of the pool, handed out lowest first once the stack is empty. An idle
//! guest thus costs nothing here for the storage it never touches, where a list of every free
//! page cost 4 bytes per guest page. The order pages are handed out in is that of a single
//! list holding the untouched run beneath the stack.

#[derive(Debug, Clone, Default)]
pub(super) struct FreePages {
    stack: Vec<u32>,
    /// The untouched run [next, end): free pages above every page ever used.
    next: u32,
    end: u32,
}

impl FreePages {
    /// The free pages `ascending` (pool indexes in increasing order), handed out lowest first.
    pub(super) fn from_ascending(ascending: impl Iterator<Item = u32>, pool_len: u32) -> Self {
        let mut stack: Vec<u32> = ascending.collect();
        // The trailing run that ends at the top of the pool needs no entries.
        let mut next = pool_len;
        while stack.last() == Some(&(next.wrapping_sub(1))) && next > 0 {
            stack.pop();
            next -= 1;
        }
        stack.reverse();
        FreePages {
            stack,
            next,
            end: pool_len,
        }
    }

    /// Entries 0..n all free, handed out lowest first.
    pub(super) fn all(n: u32) -> Self {
        FreePages {
            stack: Vec::new(),
            next: 0,
            end: n,
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<u32> {
        if let Some(i) = self.stack.pop() {
            return Some(i);
        }
        (self.next < self.end).then(|| {
            self.next += 1;
            self.next - 1
        })
    }

    #[inline]
    pub(super) fn push(&mut self, i: u32) {
        self.stack.push(i);
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.stack.len() + (self.end - self.next) as usize
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every free entry, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.stack.iter().copied().chain(self.next..self.end)
    }

    pub(super) fn clear(&mut self) {
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
