//! Event-queue candidates that were measured against the chosen
//! [`EventQueue`] (in `zvmsim-core`) and not retained.
//!
//! They are kept so the comparison can be re-run
//! ([`crate::compare_event_queues`]) and so the tests can check every
//! candidate against the same reference model.  All candidates have the
//! semantics of `EventQueue`: smallest time first, FIFO among equal times,
//! pushed times never earlier than the last popped time.
//!
//! * [`radix`]    — radix heaps with `2^BITS`-ary digits (`gen_radix*`)
//! * [`heap`]     — `std`'s binary heap and an implicit 4-ary heap
//! * [`calendar`] — a calendar queue

use zvmsim_core::engine::queue::EventQueue;

pub mod calendar;
pub mod heap;
pub mod radix;
#[cfg(test)]
mod tests;

pub use calendar::CalendarQueue;
pub use heap::{BinaryHeapQueue, QuaternaryHeapQueue};
pub use radix::RadixHeapQueue;

/// Common interface of the candidates (benchmark and tests only).
pub trait QueueImpl {
    /// Short name used in benchmark reports.
    const NAME: &'static str;
    fn with_capacity(n: usize) -> Self;
    fn push(&mut self, time: u64, payload: u64);
    fn pop(&mut self) -> Option<(u64, u64)>;
    fn peek_time(&self) -> Option<u64>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn clear(&mut self);
}

impl QueueImpl for EventQueue {
    const NAME: &'static str = "radix64_heap";
    fn with_capacity(n: usize) -> Self {
        EventQueue::with_capacity(n)
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        EventQueue::push(self, time, payload);
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        EventQueue::pop(self)
    }
    #[inline]
    fn peek_time(&self) -> Option<u64> {
        EventQueue::peek_time(self)
    }
    #[inline]
    fn len(&self) -> usize {
        EventQueue::len(self)
    }
    fn clear(&mut self) {
        EventQueue::clear(self);
    }
}
