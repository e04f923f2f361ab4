//! A device's subchannel: one channel program at a time (no PAV yet); further requests queue
//! FIFO on it, as CP queues I/O for a busy device.

use std::collections::VecDeque;

use super::request::IoId;

#[derive(Debug, Clone, Copy, Default)]
pub struct DevStats {
    pub ios: u64,
    pub pages: u64,
    pub busy_ns: u64,
    pub wait_ns: u64,
}

pub struct Subchannel {
    /// Fraction of random reads the storage server's cache serves for this volume.
    pub hit_ratio: f64,
    pub busy: Option<IoId>,
    pub queue: VecDeque<IoId>,
    pub stats: DevStats,
}

impl Subchannel {
    pub fn new(hit_ratio: f64) -> Self {
        Subchannel {
            hit_ratio,
            busy: None,
            queue: VecDeque::new(),
            stats: DevStats::default(),
        }
    }

    /// Requests queued or active.
    pub fn queued(&self) -> usize {
        self.queue.len() + self.busy.is_some() as usize
    }
}
