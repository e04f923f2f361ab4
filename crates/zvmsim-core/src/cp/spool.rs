//! The spool volumes that hold saved segments' system data files, and CP's transfers of a
//! segment's pages to and from them. CP moves one page per channel program (a spool record is
//! a 4 KB page) and keeps one channel program going per spool volume; before each it does its
//! own per-page work (`cp_spool_write_page`, `cp_spool_read_page`), serial with that volume's
//! I/O. A transfer of n pages over v volumes therefore takes about n / v times (CP work + one
//! page's I/O): SAVESEG, the first load of a saved segment and the save dcssblk requests take
//! the time their page counts and the spool bandwidth give. The channel programs pass the
//! I/O stages (`io::IoSystem`) as any CP I/O does.

use crate::cp::storage::Space;

/// What a transfer is for, and what its end does (the simulation finishes it).
#[derive(Debug, Clone)]
pub enum Purpose {
    /// SAVESEG of file `file` (its ID) typed by `user`.
    Saveseg { file: u32, user: String },
    /// A Linux guest's add of a segment (dcssblk): its shared copies' pages read in.
    Add { guest: u32 },
    /// A Linux guest's save (dcssblk) of a device: the new files (one per segment) written.
    LinuxSave { guest: u32, files: Vec<u32> },
    /// A command whose time is known when it starts (filling a device): it ends then.
    Timer { guest: u32 },
}

/// One transfer under way.
#[derive(Debug, Clone)]
pub struct Transfer {
    pub purpose: Purpose,
    pub write: bool,
    /// Pages not yet started, and channel programs in flight.
    left: u64,
    in_flight: u32,
    /// Read transfers: the pages to load, in order (space, first page, pages), and where the
    /// next completed read goes.
    pub load: Vec<(Space, u32, u32)>,
    next: (usize, u32),
    pub started: u64,
    pub pages: u64,
}

/// The spool: its volumes (I/O device indices) and the transfers under way.
#[derive(Default)]
pub struct Spool {
    pub devs: Vec<u32>,
    ops: Vec<Option<Transfer>>,
    pub pages_written: u64,
    pub pages_read: u64,
}

/// What the simulation does next for a transfer.
pub enum Step {
    /// Start a one-page channel program on spool volume `vol` after `cp_ns` of CP work.
    Start { vol: u16, cp_ns: u64 },
    /// Nothing now (other channel programs still run).
    Wait,
    /// All pages moved: finish it.
    Done(Transfer),
}

impl Spool {
    pub fn new(devs: Vec<u32>) -> Self {
        Spool {
            devs,
            ..Default::default()
        }
    }

    /// Begin a transfer of `pages` pages; returns its id and the volumes to start on (each
    /// chain starts with CP's work for its first page).
    pub fn begin(
        &mut self,
        purpose: Purpose,
        write: bool,
        pages: u64,
        load: Vec<(Space, u32, u32)>,
        now: u64,
    ) -> (u16, Vec<u16>) {
        let t = Transfer {
            purpose,
            write,
            left: pages,
            in_flight: 0,
            load,
            next: (0, 0),
            started: now,
            pages,
        };
        let id = match self.ops.iter().position(|o| o.is_none()) {
            Some(i) => {
                self.ops[i] = Some(t);
                i
            }
            None => {
                self.ops.push(Some(t));
                self.ops.len() - 1
            }
        };
        let chains = (self.devs.len() as u64).min(pages) as u16;
        let op = self.ops[id].as_mut().expect("just placed");
        op.left -= chains as u64;
        op.in_flight += chains as u32;
        (id as u16, (0..chains).collect())
    }

    /// A timer transfer (no I/O): ends when its event comes.
    pub fn timer(&mut self, purpose: Purpose, now: u64) -> u16 {
        self.begin(purpose, false, 0, Vec::new(), now).0
    }

    /// A SAVESEG (typed, or a Linux guest's save) is under way: CP processes one DEFSEG or
    /// SAVESEG at a time and delays the next (DEFSEG's usage notes, CP Commands and Utilities
    /// Reference).
    pub fn saving(&self) -> bool {
        self.ops.iter().flatten().any(|t| {
            matches!(
                t.purpose,
                Purpose::Saveseg { .. } | Purpose::LinuxSave { .. }
            )
        })
    }

    pub fn transfer(&self, op: u16) -> Option<&Transfer> {
        self.ops.get(op as usize).and_then(|o| o.as_ref())
    }

    /// A timer's event came.
    pub fn timer_done(&mut self, op: u16) -> Option<Transfer> {
        self.ops.get_mut(op as usize).and_then(|o| o.take())
    }

    /// A page's channel program of transfer `op` ended on volume `vol`: the page read goes
    /// to its place (returned for the caller to load), and the chain goes on or the transfer
    /// ends.
    pub fn completed(&mut self, op: u16, vol: u16, cp_ns: u64) -> (Option<(Space, u32)>, Step) {
        let Some(t) = self.ops.get_mut(op as usize).and_then(|o| o.as_mut()) else {
            return (None, Step::Wait);
        };
        let mut page = None;
        if t.write {
            self.pages_written += 1;
        } else {
            self.pages_read += 1;
            if let Some(&(s, first, n)) = t.load.get(t.next.0) {
                page = Some((s, first + t.next.1));
                t.next.1 += 1;
                if t.next.1 == n {
                    t.next = (t.next.0 + 1, 0);
                }
            }
        }
        t.in_flight -= 1;
        if t.left > 0 {
            t.left -= 1;
            t.in_flight += 1;
            return (page, Step::Start { vol, cp_ns });
        }
        if t.in_flight > 0 {
            return (page, Step::Wait);
        }
        let done = self.ops[op as usize].take().expect("present");
        (page, Step::Done(done))
    }
}
