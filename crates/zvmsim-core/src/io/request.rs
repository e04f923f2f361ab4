//! An I/O request: an id, a typed origin that its completion is routed back to, and what it
//! transfers. Requests live in a slab while in flight, so several may be in flight per volume.

/// The id of a request in flight (its slab index; reused after completion).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IoId(pub u32);

/// Who started a request, and so what its completion does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A Linux task reads a database block into a page-cache page and waits for it.
    DbRead { task: u32 },
    /// A database write through the page cache (asynchronous, as page cleaners write).
    DbWrite,
    /// CP's block page-in from DASD (`pagein` indexes the page-ins in flight).
    PageIn { pagein: u32 },
    /// CP's block page-out to DASD.
    PageOut,
    /// A Linux major fault: the task waits for its swap read (and the pages read ahead).
    SwapRead { task: u32 },
    /// Linux writes a page reclaim swapped out.
    SwapWrite,
    /// A guest's DASD driver request `req` (linux::dasd), started on one of the guest's
    /// virtual devices; its completion goes back to that guest's driver.
    Dasd { guest: u32, req: u32 },
    /// CP's spool transfer `op` (cp::spool), one page on spool volume `vol`.
    Spool { op: u16, vol: u16 },
}

impl Default for Origin {
    /// A placeholder for parked origins (`Slots`); never routed as such.
    fn default() -> Self {
        Origin::DbWrite
    }
}

#[derive(Debug, Clone, Copy)]
pub struct IoRequest {
    pub origin: Origin,
    /// The real device (subchannel) it runs on.
    pub device: u32,
    /// 4 KB pages moved by the channel program.
    pub pages: u32,
    pub write: bool,
    pub queued_at: u64,
    /// First 4 KB block on the volume (where the storage server finds the data).
    pub block: u64,
    /// CP may run it on a SYSTEM-owned alias of the volume's LCU when the base is busy
    /// (minidisk I/O, and CP paging with `SET PAGING ALIAS ON`).
    pub aliases: bool,
    /// The subchannel that runs it (set when it starts).
    pub sub: u32,
    /// Tracks its Define Extent reaches past the last track of its data (Linux's DASD driver
    /// in sequential-access caching mode: `tunedasd -n` cylinders); 0 for CP's own I/O.
    pub reach: u32,
}

/// Requests in flight, indexed by `IoId`.
#[derive(Default)]
pub struct Requests {
    slots: Vec<IoRequest>,
    free: Vec<u32>,
    in_flight: usize,
}

impl Requests {
    #[inline]
    pub fn insert(&mut self, r: IoRequest) -> IoId {
        self.in_flight += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = r;
                IoId(i)
            }
            None => {
                self.slots.push(r);
                IoId((self.slots.len() - 1) as u32)
            }
        }
    }

    #[inline]
    pub fn get(&self, id: IoId) -> &IoRequest {
        &self.slots[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: IoId) -> &mut IoRequest {
        &mut self.slots[id.0 as usize]
    }

    /// The request completed: its id may be reused.
    #[inline]
    pub fn remove(&mut self, id: IoId) -> IoRequest {
        self.in_flight -= 1;
        self.free.push(id.0);
        self.slots[id.0 as usize]
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }
}
