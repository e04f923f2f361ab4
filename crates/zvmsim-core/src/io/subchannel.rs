//! A real device's subchannel: it runs one channel program at a time. A base device is a
//! volume; an alias device (PAV or HyperPAV) is another subchannel of the same logical control
//! unit that reaches a base's data. Requests CP queues for a busy base wait FIFO on the base.

use std::collections::VecDeque;

use super::request::IoId;

#[derive(Debug, Clone, Copy, Default)]
pub struct DevStats {
    pub ios: u64,
    pub pages: u64,
    pub busy_ns: u64,
    pub wait_ns: u64,
}

/// What the subchannel is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubKind {
    /// A volume (base device).
    Base,
    /// A static PAV alias, bound to one base (subchannel index).
    PavAlias { base: u32 },
    /// A HyperPAV alias: any base of its LCU, chosen per I/O.
    HyperPavAlias,
}

/// Who may start channel programs on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubOwner {
    /// Nobody yet (free, not attached).
    Free,
    /// CP: paging volumes, minidisk volumes, aliases attached to SYSTEM.
    System,
    /// Attached (dedicated) to guest `g`: the guest's own driver starts its I/O.
    Guest(u32),
}

pub struct Subchannel {
    /// The real device number (rdev), as CP and Linux print it.
    pub rdev: u16,
    pub kind: SubKind,
    pub owner: SubOwner,
    /// Its logical control unit (index), or `u32::MAX` for a volume outside [io] (calibrated
    /// fixed-service storage).
    pub lcu: u32,
    /// Fraction of random reads the storage server's cache serves for this volume.
    pub hit_ratio: f64,
    pub busy: Option<IoId>,
    /// Requests CP queued for this base (FIFO).
    pub queue: VecDeque<IoId>,
    pub stats: DevStats,
    /// Requests of this volume that ran on an alias subchannel.
    pub via_alias: u64,
}

impl Subchannel {
    pub fn new(rdev: u16, kind: SubKind, lcu: u32, hit_ratio: f64) -> Self {
        Subchannel {
            rdev,
            kind,
            owner: SubOwner::System,
            lcu,
            hit_ratio,
            busy: None,
            queue: VecDeque::new(),
            stats: DevStats::default(),
            via_alias: 0,
        }
    }

    /// Requests queued or active.
    pub fn queued(&self) -> usize {
        self.queue.len() + self.busy.is_some() as usize
    }

    pub fn is_alias(&self) -> bool {
        !matches!(self.kind, SubKind::Base)
    }

    /// Whether this alias may run a channel program for base `base` of LCU `lcu`.
    pub fn serves(&self, base: u32, lcu: u32) -> bool {
        match self.kind {
            SubKind::Base => false,
            SubKind::PavAlias { base: b } => b == base,
            SubKind::HyperPavAlias => self.lcu == lcu,
        }
    }
}
