//! The iozone workload (`kind = "iozone"`): its sequential write test, then its read test
//! (`-i 0 -i 1`), each process on its own file on its own disk, the processes starting each
//! test together (throughput mode, `-t`). Buffered, a write() copies a record into the page
//! cache; the dirty data is written back in requests of the block layer's largest size as
//! soon as a request's worth is there, and a writer whose dirty data reaches the dirty limit
//! waits for writeback (2.4's balance_dirty: the writer itself starts the writeback). The
//! write test ends when its data is on disk (iozone `-e`, fsync included). A read() copies a
//! record out of the page cache; read-ahead issues the next chunk when the reader enters the
//! last one (2.4's generic_file_readahead). With `-I` (O_DIRECT) each record is one
//! synchronous I/O. Requests of a physical volume with several LVM1 paths take the paths in
//! turn (`linux::lvm`); the file is far larger than the guest's page cache, so the read test
//! finds nothing of it cached.
//!
//! Completions are reaped in the order the requests were issued (a request done ahead of an
//! older one counts when the older one is done).

use std::collections::VecDeque;

use crate::config::io::IoCost;
use crate::config::iozone::{IozonePages, IozoneSpec};
use crate::cp::dispatcher::Block;
use crate::linux::dasd::NONE;
use crate::system::machine::Machine;
use crate::system::Event;

use super::{Outcome, WorkloadEvent};

/// Files start after the volume's label and VTOC track, rounded to 1 MB.
const FIRST_BLOCK: u64 = 256;
/// The block layer's request slots per queue (2.4: 128).
const MAX_REQUESTS: usize = 128;
/// Guest CPU to copy one 4 KB page between the user buffer and the page cache (memcpy at
/// about 2 GB/s on a z900 IFL: inference).
const COPY_NS_PER_PAGE: u64 = 2_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Write,
    /// Done writing, waiting for the other processes (iozone's barrier between tests).
    Barrier,
    Read,
    Done,
}

struct Proc {
    vdev: u16,
    dev: u32,
    /// Index of its disk's LVM1 multipath volume in the guest's LVM (NONE: a plain disk).
    pv: u32,
    /// The device's command slots (a SCSI LUN's queue depth; one for a DASD).
    slots: Vec<u32>,
    next_slot: usize,
    phase: Phase,
    task: u32,
    start: u64,
    /// Pages copied by the process (write) or consumed (read).
    pos: u64,
    /// Pages handed to the block layer, and completed (in issue order).
    issued: u64,
    done: u64,
    reqs: VecDeque<u32>,
    /// First page of the last read-ahead chunk issued (2.4's f_raend - f_ralen).
    ra_mark: u64,
}

/// One test's result: bytes and the process's elapsed time.
#[derive(Debug, Clone, Copy, Default)]
pub struct IozoneResult {
    pub write_ns: u64,
    pub read_ns: u64,
}

/// Utilization (%) of each I/O stage's busiest unit during a test: channel, host adapter,
/// NVS copy, disk, cluster cache (`IoSystem::stage_busy`).
pub type StageUtil = [f64; 5];

pub struct Iozone {
    p: IozonePages,
    direct: bool,
    procs: Vec<Proc>,
    cost: IoCost,
    /// Per process, its tests' elapsed times (0: not finished).
    pub results: Vec<IozoneResult>,
    pub failed: Option<String>,
    added: u32,
    /// Stage busy times and the time when the current test started, and each test's stage
    /// utilizations once it ended (write, read).
    mark: ([u64; 5], u64),
    pub util: [Option<StageUtil>; 2],
    /// Requests (and bytes) its processes handed to the block layer, and completions they
    /// reaped (for the I/O conservation check).
    pub issued: crate::io::Count,
    pub reaped: u64,
}

impl Iozone {
    pub fn new(spec: &IozoneSpec, cost: IoCost) -> Self {
        let p = spec.pages().unwrap_or(IozonePages {
            record: 16,
            file: 16,
            request: 32,
            readahead: 256,
            dirty: 10240,
        });
        let procs = spec
            .devices
            .iter()
            .map(|d| Proc {
                vdev: crate::config::io::parse_rdev(d).unwrap_or(0),
                dev: NONE,
                pv: NONE,
                slots: Vec::new(),
                next_slot: 0,
                phase: Phase::Write,
                task: NONE,
                start: 0,
                pos: 0,
                issued: 0,
                done: 0,
                reqs: VecDeque::new(),
                ra_mark: 0,
            })
            .collect::<Vec<_>>();
        Iozone {
            p,
            direct: spec.direct,
            results: vec![IozoneResult::default(); procs.len()],
            procs,
            cost,
            failed: None,
            added: 0,
            mark: ([0; 5], 0),
            util: [None, None],
            issued: Default::default(),
            reaped: 0,
        }
    }

    pub fn add_process(&mut self, task: u32) -> u32 {
        self.added += 1;
        self.procs[(self.added - 1) as usize].task = task;
        self.added - 1
    }

    pub fn processes(&self) -> u32 {
        self.procs.len() as u32
    }

    /// iozone's "Children see throughput" of each test: the sum over processes of file size
    /// over elapsed time, MiB/s (None until every process has finished the test).
    pub fn throughput(&self) -> (Option<f64>, Option<f64>) {
        let mib = (self.p.file * 4096) as f64 / (1u64 << 20) as f64;
        let sum = |f: fn(&IozoneResult) -> u64| {
            self.results
                .iter()
                .map(|r| (f(r) > 0).then(|| mib / (f(r) as f64 / 1e9)))
                .sum::<Option<f64>>()
        };
        (sum(|r| r.write_ns), sum(|r| r.read_ns))
    }

    fn resolve(&mut self, i: usize, g: usize, k: &mut Machine) -> bool {
        let pr = &mut self.procs[i];
        match k.guests[g].dasd.by_vdev(pr.vdev) {
            Some(d) if !k.guests[g].dasd.is_alias(d) => pr.dev = d,
            _ => {
                self.failed = Some(format!(
                    "iozone: device 0.0.{:04x} is not an online DASD of this guest",
                    pr.vdev
                ));
                return false;
            }
        }
        let blocks = k.guests[g].dasd.devs[pr.dev as usize].blocks;
        if FIRST_BLOCK + self.p.file > blocks {
            self.failed = Some(format!(
                "iozone: the file needs {} MB, the device holds {} MB: No space left on device",
                self.p.file / 256,
                blocks / 256
            ));
            pr.dev = NONE;
            return false;
        }
        // A SCSI LUN's further command slots follow it, unnamed (zfcp queue depth).
        let dasd = &k.guests[g].dasd;
        pr.slots = vec![pr.dev];
        while let Some(d) = dasd.by_vdev(pr.vdev.wrapping_add(pr.slots.len() as u16)) {
            if !dasd.is_alias(d) || dasd.devs[d as usize].group != NONE {
                break;
            }
            pr.slots.push(d);
        }
        pr.pv = k.guests[g]
            .lvm
            .pvs
            .iter()
            .position(|v| v.vdevs.first() == Some(&pr.vdev))
            .map_or(NONE, |x| x as u32);
        true
    }

    /// Hand `pages` at page `at` of process `i`'s file to the block layer: LVM picks the
    /// path, the DASD driver queues it. Returns the CPU (guest, CP) it took.
    #[allow(clippy::too_many_arguments)]
    fn issue(
        &mut self,
        i: usize,
        t: u32,
        g: usize,
        at: u64,
        pages: u32,
        write: bool,
        k: &mut Machine,
    ) -> (u64, u64) {
        let pr = &mut self.procs[i];
        let block = FIRST_BLOCK + at;
        let (req, start) = if pr.slots.len() > 1 {
            pr.next_slot = (pr.next_slot + 1) % pr.slots.len();
            let d = pr.slots[pr.next_slot];
            k.guests[g].dasd.submit_to(t, d, block, pages, write, k.now)
        } else if pr.pv == NONE {
            k.guests[g]
                .dasd
                .submit(t, pr.dev, block, pages, write, k.now)
        } else {
            let gs = &mut k.guests[g];
            let mp = &mut gs.lvm.pvs[pr.pv as usize];
            let path = mp.pick();
            let d = gs.dasd.by_vdev(mp.vdevs[path]).unwrap_or(pr.dev);
            gs.dasd.submit_to(t, d, block, pages, write, k.now)
        };
        let cp = match start {
            Some(d) => {
                k.pending_ssch.push((g as u32, req, true));
                k.ssch_cost(g, d, pages)
            }
            None => 0,
        };
        pr.reqs.push_back(pages);
        pr.issued += pages as u64;
        self.issued.add(pages);
        (self.cost.linux_submit.ns(), cp)
    }

    /// Process `p` (task `t` of guest `g`) runs for up to `budget` ns.
    pub(crate) fn run(
        &mut self,
        t: u32,
        p: u32,
        g: usize,
        budget: u64,
        k: &mut Machine,
    ) -> (u64, Outcome) {
        let i = p as usize;
        if self.procs[i].dev == NONE {
            if !self.resolve(i, g, k) {
                return (0, Outcome::Done);
            }
            self.procs[i].start = k.now;
            if i == 0 {
                self.mark = (k.io.stage_busy(), k.now);
            }
        }
        let mut guest = 0u64;
        let mut cp = 0u64;
        let reaped = std::mem::take(&mut k.tasks[t as usize].aio_done);
        self.reaped += reaped as u64;
        for _ in 0..reaped {
            let pr = &mut self.procs[i];
            if let Some(n) = pr.reqs.pop_front() {
                pr.done += n as u64;
            }
            guest += self.cost.linux_complete.ns();
        }
        let (file, rec, req) = (self.p.file, self.p.record as u64, self.p.request as u64);
        let outcome = loop {
            if guest + cp >= budget {
                break Outcome::SliceEnd;
            }
            let pr = &self.procs[i];
            match pr.phase {
                Phase::Write | Phase::Read => {}
                Phase::Barrier => break Outcome::Blocked(Block::None),
                Phase::Done => break Outcome::Done,
            }
            let write = pr.phase == Phase::Write;
            if pr.pos >= file && pr.done >= file {
                self.end_test(i, k);
                continue;
            }
            if self.direct {
                // One synchronous I/O per record, in requests of at most max_request.
                if pr.reqs.is_empty() && pr.pos < file {
                    let n = rec.min(file - pr.pos);
                    let from = pr.pos;
                    let mut off = 0;
                    while off < n {
                        let m = (n - off).min(req) as u32;
                        let (gn, cn) = self.issue(i, t, g, from + off, m, write, k);
                        guest += gn;
                        cp += cn;
                        off += m as u64;
                    }
                    self.procs[i].pos += n;
                    guest += self.cost.app_per_io.ns();
                }
                break Outcome::Blocked(Block::Aio { task: t });
            }
            // Writeback of whole requests (the last one may be short), or read-ahead up to
            // the window ahead of the reader.
            if !write {
                let pr = &mut self.procs[i];
                while pr.pos >= pr.ra_mark + self.p.readahead {
                    pr.ra_mark += self.p.readahead;
                }
            }
            let mut wrote = false;
            loop {
                let pr = &self.procs[i];
                if pr.reqs.len() >= MAX_REQUESTS {
                    break;
                }
                let n = if write {
                    let ready = pr.pos - pr.issued;
                    if ready >= req || (pr.pos >= file && ready > 0) {
                        ready.min(req)
                    } else {
                        0
                    }
                } else if pr.issued < file && pr.issued < pr.ra_mark + 2 * self.p.readahead {
                    // 2.4's generic_file_readahead: when the reader enters the last chunk read
                    // ahead, the next chunk (f_ramax + 1 pages) is read ahead at once; so one to
                    // two chunks are in flight, not a sliding window.
                    req.min(pr.ra_mark + 2 * self.p.readahead - pr.issued)
                        .min(file - pr.issued)
                } else {
                    0
                };
                if n == 0 {
                    break;
                }
                let at = pr.issued;
                let (gn, cn) = self.issue(i, t, g, at, n as u32, write, k);
                guest += gn;
                cp += cn;
                wrote = true;
            }
            let pr = &self.procs[i];
            let can_copy = if write {
                pr.pos < file && pr.pos + rec - pr.done <= self.p.dirty.max(rec + req)
            } else {
                pr.pos < file && pr.done >= (pr.pos + rec).min(file)
            };
            if !can_copy {
                if pr.reqs.is_empty() && !wrote {
                    continue; // nothing in flight: the test's end is checked above
                }
                break Outcome::Blocked(Block::Aio { task: t });
            }
            let n = rec.min(file - pr.pos);
            self.procs[i].pos += n;
            guest += n * COPY_NS_PER_PAGE + self.cost.app_per_io.ns();
        };
        k.charge(g, guest, cp);
        if let Outcome::Blocked(Block::Aio { .. }) = outcome {
            k.tasks[t as usize].aio_waiting = true;
        }
        (guest + cp, outcome)
    }

    /// The stages' utilizations since the mark; the mark moves to now.
    fn test_util(&mut self, k: &Machine) -> StageUtil {
        let now = k.io.stage_busy();
        let dt = k.now.saturating_sub(self.mark.1).max(1) as f64;
        let mut u = [0.0; 5];
        for s in 0..5 {
            u[s] = 100.0 * now[s].saturating_sub(self.mark.0[s]) as f64 / dt;
        }
        self.mark = (now, k.now);
        u
    }

    /// Process `i` finished its current test: its time counts; after the write test it
    /// waits for the others, the last one starts them all on the read test.
    fn end_test(&mut self, i: usize, k: &mut Machine) {
        let el = (k.now - self.procs[i].start).max(1);
        let pr = &mut self.procs[i];
        pr.pos = 0;
        pr.issued = 0;
        pr.done = 0;
        pr.ra_mark = 0;
        if pr.phase == Phase::Write {
            self.results[i].write_ns = el;
            pr.phase = Phase::Barrier;
            if self.procs.iter().all(|q| q.phase == Phase::Barrier) {
                self.util[0] = Some(self.test_util(k));
                for (j, q) in self.procs.iter_mut().enumerate() {
                    q.phase = Phase::Read;
                    q.start = k.now;
                    if j != i {
                        k.q.push(
                            k.now,
                            Event::Workload(WorkloadEvent::Submit { task: q.task }),
                        );
                    }
                }
            }
        } else {
            self.results[i].read_ns = el;
            pr.phase = Phase::Done;
            if self.procs.iter().all(|q| q.phase == Phase::Done) {
                self.util[1] = Some(self.test_util(k));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::system::Simulation;

    /// The read test reads ahead in whole chunks, as 2.4's generic_file_readahead does: the
    /// next chunk goes out when the reader enters the last one, so what has been issued is
    /// always a whole number of chunks, and up to two chunks are in flight.
    #[test]
    fn read_ahead_goes_out_in_whole_chunks() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/disk-io/pav-iozone.toml");
        let text = std::fs::read_to_string(&path).expect("scenario file");
        let mut s = Simulation::from_toml(&text, "pav-iozone.toml", Some(1), &[]).expect("valid");
        let (mut seen, mut most, mut t) = (0u64, 0u64, 0u64);
        while t < s.end_ns() {
            t += 1_000_000;
            s.step_until(t);
            let z = s.iozone(0).expect("iozone");
            let (ra, file) = (z.p.readahead, z.p.file);
            let pr = &z.procs[0];
            if pr.phase != super::Phase::Read || pr.issued == 0 {
                continue;
            }
            assert!(
                pr.issued % ra == 0 || pr.issued == file,
                "{} pages issued, chunks of {ra}",
                pr.issued
            );
            assert!(pr.issued - pr.done <= 2 * ra);
            most = most.max(pr.issued - pr.done);
            seen += 1;
        }
        assert!(seen > 100, "{seen} samples in the read test");
        assert!(most > ra_of(&s), "two chunks in flight at times: {most}");
    }

    /// The PAV scenario's write throughput with `paths` LVM1 paths enabled and the DASD
    /// driver's cache attribute `cache` (TOML inline table), and the share of I/Os that waited
    /// for an extent conflict.
    fn pav_write(paths: usize, cache: &str) -> (f64, f64) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/disk-io/pav-iozone.toml");
        let text = std::fs::read_to_string(&path).expect("scenario file");
        // `pvpath -pK` is console[K + 4] (after the ATTACHes, pvcreate, vgcreate and
        // lvcreate); a plain query replaces those not wanted.
        let mut ov: Vec<String> = (paths..8)
            .map(|k| format!("console[{}].linux=\"pvpath -qa\"", k + 4))
            .collect();
        ov.push(format!("guests[0].linux.dasd_cache={cache}"));
        let mut s = Simulation::from_toml(&text, "pav-iozone.toml", Some(1), &ov).expect("valid");
        let mut t = 0;
        while s.iozone(0).expect("iozone").throughput().0.is_none() {
            t += 1_000_000_000;
            assert!(t < s.end_ns(), "write test ends within the run");
            s.step_until(t);
            // One channel program per subchannel, aliases within their base's LCU, requests
            // and pages conserved, while every write waits on another.
            s.check_io().expect("I/O invariants");
        }
        let waits = s
            .summary_typed()
            .dasd
            .expect("dasd summary")
            .extent_wait_pct;
        (
            s.iozone(0).expect("iozone").throughput().0.expect("write"),
            waits / 100.0,
        )
    }

    /// Linux 2.4's sequential-access Define Extent reaches two cylinders past each write, so
    /// every write in flight through the paths conflicts with the next and they pass the
    /// control unit one at a time: the write rate is the same through 3 and 8 paths. With
    /// the extent of the data's own tracks (current kernels' default) the paths drift apart
    /// and 8 paths write far faster.
    #[test]
    fn sequential_extents_level_the_pav_writes_off() {
        let seq = "{ mode = \"sequential\", cylinders = 2 }";
        let (w3, wait3) = pav_write(3, seq);
        let (w8, wait8) = pav_write(8, seq);
        assert!(
            (w8 / w3 - 1.0).abs() < 0.03,
            "3 paths {w3:.1}, 8 paths {w8:.1} MiB/s"
        );
        assert!(wait3 > 0.3 && wait8 > 0.3, "waits {wait3:.2} {wait8:.2}");
        let (n8, _) = pav_write(8, "{ mode = \"normal\", cylinders = 0 }");
        assert!(
            n8 > 1.5 * w8,
            "normal 8 paths {n8:.1} against {w8:.1} MiB/s"
        );
    }

    fn ra_of(s: &Simulation) -> u64 {
        s.iozone(0).expect("iozone").p.readahead
    }
}
