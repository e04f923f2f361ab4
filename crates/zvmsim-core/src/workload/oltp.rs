//! The transactional (OLTP) workload: closed-loop users, each thinking, then submitting a
//! transaction of a mix (order-entry types with their CPU and buffer-pool gets) against the
//! guest's database. A buffer-pool get is a restartable state machine over the Linux surface:
//! a host page fault returns early and the same phase runs again once the page is back.

use crate::config::scenario::{TxType, WorkloadSpec};
use crate::cp::dispatcher::Block;
use crate::cp::faults::Work;
use crate::cp::storage::NONE;
use crate::engine::rng::Stream;
use crate::system::machine::Machine;

use super::cleaner::{Cleaner, CLEANER_USER};
use super::database::Database;
use super::draws::DrawFeed;
use super::Outcome;

/// One transaction type, resolved.
#[derive(Debug, Clone)]
pub struct TxKind {
    pub name: String,
    pub cum_weight: f64,
    pub cpu_ns: u64,
    pub db_refs: u32,
    pub write_fraction: f64,
}

pub struct Mix {
    pub kinds: Vec<TxKind>,
}

impl Mix {
    pub fn new(w: &WorkloadSpec) -> Self {
        let types: Vec<TxType> = if w.transactions.is_empty() {
            vec![TxType {
                name: "tx".into(),
                weight: 1.0,
                cpu: w.cpu_per_tx.unwrap_or_default(),
                db_refs: w.db_refs.unwrap_or(0),
                write_fraction: 0.0,
            }]
        } else {
            w.transactions.clone()
        };
        let total: f64 = types.iter().map(|t| t.weight).sum();
        let mut acc = 0.0;
        let kinds = types
            .iter()
            .map(|t| {
                acc += t.weight / total;
                TxKind {
                    name: t.name.clone(),
                    cum_weight: acc,
                    cpu_ns: t.cpu.ns(),
                    db_refs: t.db_refs,
                    write_fraction: t.write_fraction,
                }
            })
            .collect();
        Mix { kinds }
    }

    /// The share of buffer-pool gets that write: each type's write fraction weighted by how
    /// often it runs and how many gets it makes.
    pub fn write_share(&self) -> f64 {
        let (mut prev, mut gets, mut writes) = (0.0, 0.0, 0.0);
        for k in &self.kinds {
            let g = (k.cum_weight - prev) * k.db_refs as f64;
            prev = k.cum_weight;
            gets += g;
            writes += g * k.write_fraction;
        }
        if gets > 0.0 {
            writes / gets
        } else {
            0.0
        }
    }

    pub fn pick(&self, rng: &mut Stream) -> u8 {
        let u = rng.uniform();
        self.kinds
            .iter()
            .position(|k| u < k.cum_weight)
            .unwrap_or(self.kinds.len() - 1) as u8
    }
}

/// Where a user's current buffer-pool get stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Draw the get: its text page, other shared page and block.
    Start,
    /// Run the get's program text and touch its other shared page. A host page fault blocks
    /// the user here, and the same get resumes once the page is in (as the faulting
    /// instruction does), rather than a new one being drawn.
    Touch,
    /// Look the block up in the buffer pool.
    Lookup,
    /// The victim buffer is dirty: write its old block.
    WriteVictim,
    /// Read the block into the buffer.
    Read,
}

/// The random part of one buffer-pool get: a text page, a page of the other shared memory
/// (NONE: none), the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Draw {
    pub text: u32,
    pub other: u32,
    pub block: u32,
}

pub(super) const NO_DRAW: Draw = Draw {
    text: NONE,
    other: NONE,
    block: NONE,
};

/// A user's queue of gets drawn ahead: the next get comes off the front and a fresh draw
/// joins the back; an empty queue is filled first. So the gets come out in the order they
/// were drawn (workload/oltp_tests.rs).
pub(super) fn advance(ahead: &mut [Draw; AHEAD], mut draw: impl FnMut() -> Draw) -> Draw {
    if ahead[0].block == NONE {
        for a in ahead.iter_mut() {
            *a = draw();
        }
    }
    let tail = draw();
    let cur = ahead[0];
    ahead.copy_within(1.., 0);
    ahead[AHEAD - 1] = tail;
    cur
}

/// Gets drawn ahead of the one running. A hit costs only a few hundred nanoseconds of our
/// time, so a cache line asked for one get ahead is often still on its way: the block's table
/// slot is asked for `AHEAD` gets ahead, and `AHEAD - 2` gets ahead, once the slot has
/// arrived, the buffer word that checks it and the buffer's page word.
pub(super) const AHEAD: usize = 4;

/// One user's transaction in progress.
struct User {
    /// The user's next gets, drawn ahead so that their cache lines can be asked for early
    /// (the draws are of fixed distributions, so drawing them early changes no law).
    ahead: [Draw; AHEAD],
    kind: u8,
    refs_left: u32,
    cpu_left: u64,
    phase: Phase,
    /// The get in progress (`Touch` and after).
    get: Draw,
    block: u32,
    buf: u32,
    old_block: u32,
}

/// The workload as one guest runs it.
pub struct Oltp {
    mix: Mix,
    pub db: Option<Database>,
    think_ns: u64,
    rng: Stream,
    /// The gets' draws, from a stream of their own (workload/draws.rs).
    draws: Option<DrawFeed>,
    users: Vec<User>,
    /// The page cleaners, when the database has a checkpoint interval.
    cleaner: Option<Cleaner>,
}

impl Oltp {
    pub(crate) fn new(
        spec: &WorkloadSpec,
        db: Option<Database>,
        rng: Stream,
        draws: Option<DrawFeed>,
    ) -> Self {
        let checkpoint = spec.database.as_ref().and_then(|d| d.checkpoint);
        let cleaner = match (&db, checkpoint) {
            (Some(d), Some(c)) => Some(Cleaner::new(d.buffers, c.ns())),
            _ => None,
        };
        Oltp {
            mix: Mix::new(spec),
            cleaner,
            db,
            think_ns: spec.think_time.ns(),
            rng,
            draws,
            users: Vec::new(),
        }
    }

    /// A new user; returns its index. It submits its first transaction after a think time.
    pub(crate) fn add_user(&mut self, task: u32, k: &mut Machine) -> u32 {
        self.users.push(User {
            ahead: [NO_DRAW; AHEAD],
            kind: 0,
            refs_left: 0,
            cpu_left: 0,
            phase: Phase::Start,
            block: NONE,
            buf: NONE,
            old_block: NONE,
            get: NO_DRAW,
        });
        super::first_request(task, self.think_ns, &mut self.rng, k);
        (self.users.len() - 1) as u32
    }

    /// Whether the database has page cleaners (a task `add_cleaner` starts).
    pub(crate) fn has_cleaner(&self) -> bool {
        self.cleaner.is_some()
    }

    /// Task `task` is the page cleaners': it wakes first at their first wake-up. Returns the
    /// user index the task carries.
    pub(crate) fn add_cleaner(&mut self, task: u32, k: &mut Machine) -> u32 {
        if let Some(c) = &self.cleaner {
            k.q.push(
                c.first_wake(),
                crate::system::Event::Workload(super::WorkloadEvent::Submit { task }),
            );
        }
        CLEANER_USER
    }

    /// User `u` (task `t`) submits a transaction; the caller makes the task ready.
    pub(crate) fn submit(&mut self, t: u32, u: u32, k: &mut Machine) {
        if u == CLEANER_USER {
            if let Some(c) = self.cleaner.as_mut() {
                c.wake();
            }
            return;
        }
        let kind = self.mix.pick(&mut self.rng);
        let tk = &self.mix.kinds[kind as usize];
        let user = &mut self.users[u as usize];
        user.kind = kind;
        user.refs_left = tk.db_refs;
        user.cpu_left = tk.cpu_ns;
        user.phase = Phase::Start;
        k.tasks[t as usize].start = k.now;
    }

    /// The transaction of task `t` ended at `at`: count it; the user thinks, then submits again.
    pub(crate) fn finish(&mut self, t: u32, at: u64, k: &mut Machine) {
        if k.tasks[t as usize].kind_user() == CLEANER_USER {
            if let Some(c) = self.cleaner.as_mut() {
                let next = c.done(at);
                k.q.push(
                    next,
                    crate::system::Event::Workload(super::WorkloadEvent::Submit { task: t }),
                );
            }
            return;
        }
        super::request_done(t, at, self.think_ns, &mut self.rng, k);
    }

    /// Run user `u` (task `t` of guest `g`) for up to `budget` ns of IFL time.
    pub(crate) fn run(
        &mut self,
        t: u32,
        u: u32,
        g: usize,
        budget: u64,
        k: &mut Machine,
    ) -> (u64, Outcome) {
        if u == CLEANER_USER {
            let (Some(c), Some(db)) = (self.cleaner.as_mut(), self.db.as_mut()) else {
                return (0, Outcome::Done);
            };
            return c.run(db, t, g, budget, k);
        }
        let ui = u as usize;
        if self.users[ui].refs_left == 0 {
            let run = self.users[ui].cpu_left.min(budget);
            self.users[ui].cpu_left -= run;
            k.charge(g, run, 0);
            let out = if self.users[ui].cpu_left == 0 {
                Outcome::Done
            } else {
                Outcome::SliceEnd
            };
            return (run, out);
        }
        let (step_cpu, wf) = {
            let tk = &self.mix.kinds[self.users[ui].kind as usize];
            (tk.cpu_ns / tk.db_refs.max(1) as u64, tk.write_fraction)
        };
        let mut used = 0;
        loop {
            let mut w = Work::default();
            let r = self.get(t, u, g, wf, k, &mut w);
            used += k.charge_work(g, &w);
            k.flush_page_writes();
            if let Err(b) = r {
                return (used, Outcome::Blocked(b));
            }
            used += step_cpu;
            k.charge(g, step_cpu, 0);
            let user = &mut self.users[ui];
            user.refs_left -= 1;
            if user.refs_left == 0 {
                return (used, Outcome::Done);
            }
            if used >= budget {
                return (used, Outcome::SliceEnd);
            }
        }
    }

    /// User `ui`'s next get; draws a new one at the end of the queue and asks for what the
    /// coming gets will read.
    fn next_draw(&mut self, ui: usize, g: usize, k: &Machine) -> Draw {
        let db = self
            .db
            .as_ref()
            .expect("transactional workload without database");
        let feed = self.draws.as_mut().expect("a database's gets have a feed");
        let user = &mut self.users[ui];
        let cur = advance(&mut user.ahead, || feed.next());
        let tail = user.ahead[AHEAD - 1];
        let (next, soon) = (user.ahead[0], user.ahead[AHEAD - 3]);
        db.prefetch(tail.block);
        k.prefetch_text(g, tail.text);
        if tail.other != NONE {
            k.prefetch_anon(g, tail.other);
        }
        // A block in the pool (by its table slot, asked for two gets ago): the buffer word
        // that checks it and the buffer's page. One that is not will be read through the
        // page cache: its entry there, then the page caching it.
        let files = k.guests[g].db_files.is_none();
        match db.prefetch_verify(soon.block) {
            Some(buf) => k.prefetch_anon(g, db.buf_start + buf),
            None if files => k.prefetch_file_block(g, soon.block, false),
            None => {}
        }
        if files && db.buffer_guess(next.block).is_none() {
            k.prefetch_file_block(g, next.block, true);
        }
        cur
    }

    /// One buffer-pool get.
    fn get(
        &mut self,
        t: u32,
        u: u32,
        g: usize,
        wf: f64,
        k: &mut Machine,
        w: &mut Work,
    ) -> Result<(), Block> {
        let ui = u as usize;
        loop {
            match self.users[ui].phase {
                Phase::Start => {
                    let d = self.next_draw(ui, g, k);
                    let user = &mut self.users[ui];
                    user.get = d;
                    user.block = d.block;
                    user.phase = Phase::Touch;
                }
                Phase::Touch => {
                    // Kernel and program text, and the database's other shared memory.
                    let d = self.users[ui].get;
                    k.exec_text(g, t, d.text, w)?;
                    if d.other != NONE {
                        k.touch_anon(g, t, d.other, true, false, w)?;
                    }
                    self.users[ui].phase = Phase::Lookup;
                }
                Phase::Lookup => {
                    let block = self.users[ui].block;
                    let db = self.db.as_mut().expect("database");
                    if let Some(buf) = db.lookup(block) {
                        let v = db.buf_start + buf;
                        let write = self.rng.chance(wf);
                        k.touch_anon(g, t, v, write, false, w)?;
                        let db = self.db.as_mut().expect("database");
                        db.hits += 1;
                        if write {
                            db.set_dirty(block);
                        }
                        self.users[ui].phase = Phase::Start;
                        return Ok(());
                    }
                    db.misses += 1;
                    let (buf, old) = db.replace(block);
                    let user = &mut self.users[ui];
                    user.buf = buf;
                    user.old_block = old.unwrap_or(NONE);
                    user.phase = if old.is_some() {
                        Phase::WriteVictim
                    } else {
                        Phase::Read
                    };
                }
                Phase::WriteVictim => {
                    let (buf, old) = (self.users[ui].buf, self.users[ui].old_block);
                    let db = self.db.as_ref().expect("database");
                    let (from, dev) = (db.buf_start + buf, db.volume_of(old));
                    k.file_write(g, t, dev, old, from, w)?;
                    self.users[ui].phase = Phase::Read;
                }
                Phase::Read => {
                    let (block, buf) = (self.users[ui].block, self.users[ui].buf);
                    let db = self.db.as_ref().expect("database");
                    let (into, dev) = (db.buf_start + buf, db.volume_of(block));
                    if k.guests[g].db_files.is_some() {
                        // The files are on a mounted DCSS file system: no I/O.
                        k.dcss_file_read(g, t, block, into, w)?;
                    } else {
                        let at = db.volume_block(block);
                        k.file_read(g, t, dev, block, at, into, w)?;
                    }
                    self.users[ui].phase = Phase::Start;
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod mix_tests {
    use super::{Mix, TxKind};

    fn kind(cum_weight: f64, db_refs: u32, write_fraction: f64) -> TxKind {
        TxKind {
            name: String::new(),
            cum_weight,
            cpu_ns: 0,
            db_refs,
            write_fraction,
        }
    }

    /// Half the transactions make 10 gets and write half of them, the other half 30 gets and
    /// write none: 2.5 of every 20 gets write. No gets, no writes.
    #[test]
    fn write_share_weights_types_by_their_gets() {
        let mix = Mix {
            kinds: vec![kind(0.5, 10, 0.5), kind(1.0, 30, 0.0)],
        };
        assert!((mix.write_share() - 0.125).abs() < 1e-12);
        let none = Mix {
            kinds: vec![kind(1.0, 0, 0.5)],
        };
        assert_eq!(none.write_share(), 0.0);
    }
}
