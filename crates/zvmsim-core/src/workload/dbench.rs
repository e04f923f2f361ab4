//! The dbench workload (`kind = "dbench"`): `dbench N` starts N client processes, each
//! running the loadfile's operations (the NetBench trace of a Windows client: open or create,
//! read, append, delete, rename, stat, directory listings) in a closed loop, no think time, in
//! a directory of its own. The files live in the guest's page cache: a WriteX copies into
//! page-cache pages (a new page gets an ext2 block), a ReadX copies out of them, an unlink
//! drops them. Nothing is written back during the run: the loadfile deletes its files within
//! seconds, before 2.4's bdflush would write them (30 s), and validation keeps every
//! client's files within the guest's memory, as seed 004's 2 GB held them.
//!
//! Each operation is one burst of its process: the loadfile line's CPU, the global kernel
//! locks it takes (`linux::spinlock`: a processor waiting spins), and per page its page-cache
//! reference and copy. dbench's figure is the bytes read and written per second
//! ("Throughput N MB/sec", 10^6 bytes).

use crate::config::dbench::{DbenchCost, DbenchSpec};
use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::engine::rng::Stream;
use crate::system::machine::Machine;

use super::Outcome;

/// The loadfile's operations, in the order of `DbenchMix::weights`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    NtCreateX,
    Close,
    ReadX,
    WriteX,
    Unlink,
    Rename,
    QPathInfo,
    QFileInfo,
    QFsInfo,
    SFileInfo,
    Find,
    Flush,
}

const OPS: [Op; 12] = [
    Op::NtCreateX,
    Op::Close,
    Op::ReadX,
    Op::WriteX,
    Op::Unlink,
    Op::Rename,
    Op::QPathInfo,
    Op::QFileInfo,
    Op::QFsInfo,
    Op::SFileInfo,
    Op::Find,
    Op::Flush,
];

/// A client's file: its length in bytes, and whether it exists.
#[derive(Debug, Clone, Copy, Default)]
struct File {
    len: u64,
    exists: bool,
}

/// The operation a client is in: its kind, the file it works on, the pages it copies or
/// drops (`first`.. `first + pages`, `done` of them so far), the bytes it moves and the
/// first new page of a write (pages from it get a block).
#[derive(Debug, Clone, Copy)]
struct Current {
    op: Op,
    file: u32,
    first: u32,
    pages: u32,
    done: u32,
    offset: u64,
    bytes: u64,
    new_from: u32,
    start: u64,
    /// Its fixed part (CPU, locks) is charged; the pages follow.
    fixed: bool,
}

struct Client {
    task: u32,
    /// The file the last NtCreateX opened (reads and writes go to it).
    open: u32,
    cur: Option<Current>,
}

pub struct Dbench {
    spec: DbenchSpec,
    cost: DbenchCost,
    /// Cumulative shares of the operations.
    cum: [f64; 12],
    /// Guest CPU to copy one 4 KB page (the model's linux_page_copy).
    copy_page_ns: u64,
    rng: Stream,
    clients: Vec<Client>,
    files: Vec<File>,
    /// Operations and bytes from this time on are dbench's measured figures.
    measure_from: u64,
    /// Over the measured window: bytes read and written, operations, CPU spun on the kernel's
    /// locks, time the big kernel lock was held.
    pub bytes: u64,
    pub ops: u64,
    pub spin_ns: u64,
    pub bkl_held_ns: u64,
    /// Over the whole run: bytes written and read, pages a read found missing from the page
    /// cache (0 while the files fit in memory), operations by kind.
    pub written: u64,
    pub read: u64,
    pub misses: u64,
    pub by_op: [u64; 12],
}

impl Dbench {
    pub fn new(spec: &DbenchSpec, copy_page_ns: u64, measure_from: u64, rng: Stream) -> Self {
        let mut cum = [0.0; 12];
        let mut acc = 0.0;
        for (c, w) in cum.iter_mut().zip(spec.mix.weights()) {
            acc += w;
            *c = acc;
        }
        Dbench {
            cost: spec.cost.clone(),
            spec: spec.clone(),
            cum,
            copy_page_ns,
            rng,
            clients: Vec::new(),
            files: vec![File::default(); (spec.clients * spec.files) as usize],
            measure_from,
            bytes: 0,
            ops: 0,
            spin_ns: 0,
            bkl_held_ns: 0,
            written: 0,
            read: 0,
            misses: 0,
            by_op: [0; 12],
        }
    }

    pub fn processes(&self) -> u32 {
        self.spec.clients
    }

    /// Client `task` starts with its first file open (dbench's setup, not measured).
    pub fn add_process(&mut self, task: u32) -> u32 {
        let c = self.clients.len() as u32;
        self.files[(c * self.spec.files) as usize].exists = true;
        self.clients.push(Client {
            task,
            open: 0,
            cur: None,
        });
        c
    }

    /// The task of client `c`.
    pub fn task(&self, c: u32) -> u32 {
        self.clients[c as usize].task
    }

    /// Pages the clients' files hold now: what the page cache must hold for them.
    pub fn file_pages(&self) -> u64 {
        self.files
            .iter()
            .filter(|f| f.exists)
            .map(|f| f.len.div_ceil(4096))
            .sum()
    }

    fn block(&self, file: u32, page: u32) -> u32 {
        file * self.spec.file_pages() + page
    }

    /// Client `c`'s next loadfile line: the operation and what it changes in its files.
    fn begin(&mut self, c: usize, at: u64) -> Current {
        let x = self.rng.uniform() * self.cum[11];
        let op = OPS[self.cum.iter().position(|&s| x < s).unwrap_or(11)];
        let files = self.spec.files;
        let base = c as u32 * files;
        let mut cur = Current {
            op,
            file: base + self.clients[c].open,
            first: 0,
            pages: 0,
            done: 0,
            offset: 0,
            bytes: 0,
            new_from: 0,
            start: at,
            fixed: false,
        };
        match op {
            Op::NtCreateX => {
                let slot = self.rng.below(files as u64) as u32;
                self.clients[c].open = slot;
                cur.file = base + slot;
            }
            Op::Unlink => {
                // The loadfile deletes closed files: any of the client's but the open one
                // (a client of one file deletes it; its next write creates it again).
                let open = self.clients[c].open;
                let mut slot = open;
                if files > 1 {
                    slot = self.rng.below(files as u64 - 1) as u32;
                    if slot >= open {
                        slot += 1;
                    }
                }
                cur.file = base + slot;
                let f = self.files[cur.file as usize];
                cur.pages = if f.exists {
                    f.len.div_ceil(4096) as u32
                } else {
                    0
                };
            }
            Op::ReadX => {
                let len = self.files[cur.file as usize].len;
                let n = self.spec.read_size.bytes().min(len);
                if n > 0 {
                    let room = (len - n) / 4096;
                    cur.offset = self.rng.below(room + 1) * 4096;
                    cur.bytes = n;
                }
            }
            Op::WriteX => {
                let f = self.files[cur.file as usize];
                let n = self.spec.write_size.bytes();
                // Append; a file at its largest is rewritten from the start.
                cur.offset = if f.len + n <= self.spec.file_size.bytes() {
                    f.len
                } else {
                    0
                };
                cur.bytes = n;
                cur.new_from = f.len.div_ceil(4096) as u32;
            }
            _ => {}
        }
        if cur.bytes > 0 {
            cur.first = (cur.offset / 4096) as u32;
            cur.pages = ((cur.offset + cur.bytes - 1) / 4096) as u32 + 1 - cur.first;
        }
        cur
    }

    /// The operation's fixed part at time `at`: its CPU, and the global locks it takes in
    /// turn (a wait spins). Changes the files' state (create, delete). Returns the CPU.
    fn fixed_part(&mut self, cur: &Current, g: usize, at: u64, k: &mut Machine) -> u64 {
        let c = &self.cost;
        let mut ns = c.per_op.ns();
        let locks = &mut k.guests[g].klocks;
        let now = k.now;
        let mut spin = 0;
        let mut bkl = 0;
        let mut lock = |l: &mut crate::linux::spinlock::SpinLock, hold: u64, ns: &mut u64| {
            let s = l.acquire(now, at + *ns, hold);
            spin += s;
            *ns += s + hold;
        };
        let f = &mut self.files[cur.file as usize];
        match cur.op {
            Op::NtCreateX => {
                lock(&mut locks.dcache, c.dcache_hold.ns(), &mut ns);
                if !f.exists {
                    lock(&mut locks.bkl, c.namespace.ns(), &mut ns);
                    bkl += c.namespace.ns();
                    *f = File {
                        len: 0,
                        exists: true,
                    };
                }
            }
            Op::Unlink => {
                lock(&mut locks.dcache, c.dcache_hold.ns(), &mut ns);
                if f.exists {
                    lock(&mut locks.bkl, c.namespace.ns(), &mut ns);
                    bkl += c.namespace.ns();
                }
            }
            Op::Rename => {
                lock(&mut locks.dcache, c.dcache_hold.ns(), &mut ns);
                lock(&mut locks.dcache, c.dcache_hold.ns(), &mut ns);
                lock(&mut locks.bkl, c.namespace.ns(), &mut ns);
                bkl += c.namespace.ns();
            }
            Op::QPathInfo => lock(&mut locks.dcache, c.dcache_hold.ns(), &mut ns),
            Op::Find => {
                lock(&mut locks.dcache, c.dcache_hold.ns(), &mut ns);
                lock(&mut locks.bkl, c.bkl_call.ns(), &mut ns);
                bkl += c.bkl_call.ns();
            }
            Op::QFsInfo | Op::SFileInfo => {
                lock(&mut locks.bkl, c.bkl_call.ns(), &mut ns);
                bkl += c.bkl_call.ns();
            }
            Op::Close | Op::ReadX | Op::WriteX | Op::QFileInfo | Op::Flush => {}
        }
        if at >= self.measure_from {
            self.spin_ns += spin;
            self.bkl_held_ns += bkl;
        }
        ns
    }

    /// Client `c` (task `t` of guest `g`) runs its current operation, or starts the next:
    /// one operation per burst, so that the locks are asked for near the time they are held.
    pub(crate) fn run(
        &mut self,
        t: u32,
        c: u32,
        g: usize,
        _budget: u64,
        k: &mut Machine,
    ) -> (u64, Outcome) {
        let ci = c as usize;
        let at = k.burst_at;
        let mut cur = match self.clients[ci].cur {
            Some(cur) => cur,
            None => self.begin(ci, at),
        };
        let mut w = Work::default();
        if !cur.fixed {
            w.guest_ns += self.fixed_part(&cur, g, at, k);
            cur.fixed = true;
        }
        let hold = self.cost.pagecache_hold.ns();
        while cur.done < cur.pages {
            let page = cur.first + cur.done;
            let block = self.block(cur.file, page);
            let now = at + w.guest_ns + w.cp_ns;
            match cur.op {
                Op::Unlink => {
                    k.guests[g].mem.truncate_cached(block);
                    let s = k.guests[g].klocks.pagecache.acquire(k.now, now, hold);
                    w.guest_ns += s + hold;
                    self.count_spin(now, s);
                }
                Op::WriteX | Op::ReadX => {
                    let r = if cur.op == Op::WriteX {
                        k.cache_write(g, t, block, &mut w).map(|()| true)
                    } else {
                        k.cache_read(g, t, block, &mut w)
                    };
                    match r {
                        Ok(hit) => self.misses += u64::from(!hit),
                        Err(b) => {
                            self.clients[ci].cur = Some(cur);
                            let used = k.charge_work(g, &w);
                            return (used, Outcome::Blocked(b));
                        }
                    }
                    let s = k.guests[g].klocks.pagecache.acquire(k.now, now, hold);
                    w.guest_ns += s + hold;
                    self.count_spin(now, s);
                    if cur.op == Op::WriteX && page >= cur.new_from {
                        let ba = self.cost.block_alloc.ns();
                        let now = at + w.guest_ns + w.cp_ns;
                        let s = k.guests[g].klocks.bkl.acquire(k.now, now, ba);
                        w.guest_ns += s + ba;
                        self.count_spin(now, s);
                        if now >= self.measure_from {
                            self.bkl_held_ns += ba;
                        }
                    }
                    // The bytes of this page the call copies.
                    let lo = (u64::from(page) * 4096).max(cur.offset);
                    let hi = (u64::from(page + 1) * 4096).min(cur.offset + cur.bytes);
                    w.guest_ns += (hi - lo) * self.copy_page_ns / 4096;
                }
                _ => {}
            }
            cur.done += 1;
        }
        self.finish(ci, &cur);
        let used = k.charge_work(g, &w);
        let end = at + used;
        if cur.start >= self.measure_from {
            self.ops += 1;
            self.bytes += cur.bytes;
        }
        self.by_op[cur.op as usize] += 1;
        k.tasks[t as usize].start = cur.start;
        super::request_done(t, end, 0, &mut self.rng, k);
        // The next operation is the next burst (request_done queued it at `end`).
        (used, Outcome::Blocked(Block::None))
    }

    fn count_spin(&mut self, at: u64, s: u64) {
        if at >= self.measure_from {
            self.spin_ns += s;
        }
    }

    /// The operation is done: the file's new length, or its deletion.
    fn finish(&mut self, c: usize, cur: &Current) {
        self.clients[c].cur = None;
        let f = &mut self.files[cur.file as usize];
        match cur.op {
            Op::WriteX => {
                f.len = f.len.max(cur.offset + cur.bytes);
                f.exists = true;
                self.written += cur.bytes;
            }
            Op::ReadX => self.read += cur.bytes,
            Op::Unlink => *f = File::default(),
            _ => {}
        }
    }

    /// dbench's "Throughput N MB/sec" over `secs` of the measured window.
    pub fn throughput_mb_s(&self, secs: f64) -> f64 {
        if secs > 0.0 {
            self.bytes as f64 / 1e6 / secs
        } else {
            0.0
        }
    }
}
