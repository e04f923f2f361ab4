//! The fio workload (`kind = "fio"`): `jobs` × `numjobs` processes, each with its `nrfiles`
//! files laid out one after another on the guest's DASD, doing direct I/O with the libaio
//! engine: it keeps `iodepth` I/Os in flight (io_submit), then sleeps in io_getevents until
//! at least one completes, reaps what completed and submits again. Block sizes follow
//! `bssplit`, reads and writes `rwmixread`; with file_service_type's default (roundrobin)
//! each I/O goes to the process's next file, sequentially within each file for rw/read/write.

use crate::config::fio::{FioSpec, Pattern};
use crate::config::io::IoCost;
use crate::cp::dispatcher::Block;
use crate::engine::rng::Stream;
use crate::linux::dasd::NONE;
use crate::system::machine::Machine;

use super::Outcome;

/// Files start after the volume's label and VTOC track (cylinder 0), rounded to 1 MB.
const FIRST_BLOCK: u64 = 256;

#[derive(Clone, Copy)]
struct File {
    start: u64,
    blocks: u64,
    /// Next block (sequential patterns).
    pos: u64,
}

struct Proc {
    /// First file of the process in `files`.
    first: u32,
    next_file: u32,
    inflight: u32,
}

pub struct Fio {
    pattern: Pattern,
    depth: u32,
    /// (pages, cumulative percentage).
    sizes: Vec<(u32, u32)>,
    nrfiles: u32,
    files: Vec<File>,
    procs: Vec<Proc>,
    vdev: u16,
    /// The block device (LDev) the files are on, once found.
    dev: u32,
    cost: IoCost,
    rng: Stream,
    /// Blocks the files need.
    pub footprint: u64,
    pub failed: Option<String>,
    added: u32,
    /// Requests (and bytes) its processes handed to the block layer, and completions they
    /// reaped (for the I/O conservation check).
    pub issued: crate::io::Count,
    pub reaped: u64,
}

impl Fio {
    pub fn new(spec: &FioSpec, cost: IoCost, mut rng: Stream) -> Self {
        let sizes = spec
            .block_sizes()
            .unwrap_or_else(|_| vec![(4096, 100)])
            .into_iter()
            .map(|(b, c)| (b / 4096, c))
            .collect();
        let (lo, hi) = spec.file_sizes().unwrap_or((4096, 4096));
        let nprocs = spec.jobs * spec.numjobs;
        let mut files = Vec::new();
        let mut at = FIRST_BLOCK;
        for _ in 0..nprocs * spec.nrfiles {
            let bytes = lo + rng.below(hi - lo + 1);
            let blocks = bytes.div_ceil(4096).max(1);
            files.push(File {
                start: at,
                blocks,
                pos: 0,
            });
            at += blocks;
        }
        let procs = (0..nprocs)
            .map(|p| Proc {
                first: p * spec.nrfiles,
                next_file: 0,
                inflight: 0,
            })
            .collect();
        Fio {
            pattern: spec.pattern().unwrap_or(Pattern {
                sequential: true,
                read_pct: 100,
            }),
            depth: spec.depth(),
            sizes,
            nrfiles: spec.nrfiles,
            files,
            procs,
            vdev: crate::config::io::parse_rdev(&spec.device).unwrap_or(0),
            dev: NONE,
            cost,
            rng,
            footprint: at,
            failed: None,
            added: 0,
            issued: Default::default(),
            reaped: 0,
        }
    }

    /// The next process's index (its task was just created).
    pub fn add_process(&mut self) -> u32 {
        self.added += 1;
        self.added - 1
    }

    pub fn processes(&self) -> u32 {
        self.procs.len() as u32
    }

    /// Process `p` (task `t` of guest `g`) runs: reap completed I/Os, submit up to iodepth,
    /// then wait in io_getevents.
    pub(crate) fn run(&mut self, t: u32, p: u32, g: usize, k: &mut Machine) -> (u64, Outcome) {
        if self.dev == NONE {
            match k.guests[g].dasd.by_vdev(self.vdev) {
                Some(d) if !k.guests[g].dasd.is_alias(d) => self.dev = d,
                _ => {
                    self.failed = Some(format!(
                        "fio: device 0.0.{:04x} is not an online DASD of this guest",
                        self.vdev
                    ));
                    return (0, Outcome::Done);
                }
            }
            let blocks = k.guests[g].dasd.devs[self.dev as usize].blocks;
            if self.footprint > blocks {
                self.failed = Some(format!(
                    "fio: the files need {} MB, the device holds {} MB: No space left on device",
                    self.footprint / 256,
                    blocks / 256
                ));
                self.dev = NONE;
                return (0, Outcome::Done);
            }
            // fio lays its files out before the run ("Laying out IO file"), writing each one
            // through; the storage server's cache keeps what fits of what was written.
            k.preload_dasd(g, self.dev, FIRST_BLOCK, self.footprint - FIRST_BLOCK);
        }
        let c = self.cost.clone();
        let task = &mut k.tasks[t as usize];
        let reaped = std::mem::take(&mut task.aio_done);
        let pi = p as usize;
        self.procs[pi].inflight -= reaped;
        self.reaped += reaped as u64;
        let mut guest_ns = reaped as u64 * c.linux_complete.ns();
        let mut started = std::mem::take(&mut k.mq_started);
        while self.procs[pi].inflight < self.depth {
            let (block, pages, write) = self.next_io(pi);
            // blk-mq dispatches its hardware context's list: requests the driver refused
            // before this one go first (each try beyond this request's own costs a dispatch).
            let tries = k.guests[g].dasd.mq_submit(
                t,
                self.dev,
                block,
                pages,
                write,
                k.burst_vcpu,
                k.now,
                &mut started,
            );
            guest_ns += c.linux_submit.ns()
                + c.app_per_io.ns()
                + tries.saturating_sub(1) as u64 * c.blk_mq_dispatch.ns();
            self.procs[pi].inflight += 1;
            self.issued.add(pages);
        }
        let used = guest_ns + k.start_built(g, started, guest_ns);
        k.tasks[t as usize].aio_waiting = true;
        (used, Outcome::Blocked(Block::Aio { task: t }))
    }

    fn next_io(&mut self, p: usize) -> (u64, u32, bool) {
        let u = self.rng.below(100) as u32;
        let pages = self
            .sizes
            .iter()
            .find(|&&(_, c)| u < c)
            .map(|&(s, _)| s)
            .unwrap_or(1);
        let write = (self.rng.below(100) as u32) >= self.pattern.read_pct;
        let pr = &mut self.procs[p];
        let fi = (pr.first + pr.next_file) as usize;
        pr.next_file = (pr.next_file + 1) % self.nrfiles;
        let f = &mut self.files[fi];
        let n = (pages as u64).min(f.blocks) as u32;
        let off = if self.pattern.sequential {
            if f.pos + n as u64 > f.blocks {
                f.pos = 0;
            }
            let o = f.pos;
            f.pos += n as u64;
            o
        } else {
            self.rng.below(f.blocks - n as u64 + 1)
        };
        (f.start + off, n, write)
    }
}
