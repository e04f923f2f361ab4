//! Workloads the guests run, one kind per file, tagged by the scenario's `kind`. A workload sees
//! the guest only through the Linux surface (`linux::kernel`).

pub mod apache;
pub mod appserver;
pub mod cleaner;
pub mod database;
pub mod dbench;
pub(crate) mod draws;
pub mod fio;
pub mod iozone;
pub mod oltp;
#[cfg(test)]
mod oltp_tests;

use crate::cp::dispatcher::Block;
use crate::system::machine::Machine;

/// The workloads' events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadEvent {
    /// The user of task `task` submits its next request.
    Submit { task: u32 },
}

/// How a task's run on its virtual CPU ended.
pub(crate) enum Outcome {
    Done,
    Blocked(Block),
    SliceEnd,
}

/// A guest's workload, by kind.
pub enum Workload {
    /// No workload: the guest only runs its kernel threads.
    None,
    /// `kind = "transactional"`: closed-loop users against a database.
    Transactional(Box<oltp::Oltp>),
    /// `kind = "fio"`: processes doing direct asynchronous I/O.
    Fio(Box<fio::Fio>),
    /// `kind = "iozone"`: sequential write then read, one process per disk.
    Iozone(Box<iozone::Iozone>),
    /// `kind = "appserver"`: closed-loop users of an application server's heap.
    Appserver(Box<appserver::Appserver>),
    /// `kind = "apache"`: a web server or client guest.
    Apache(Box<apache::Apache>),
    /// `kind = "dbench"`: client processes running a file-operation mix in the page cache.
    Dbench(Box<dbench::Dbench>),
}

impl Workload {
    pub(crate) fn add_user(&mut self, task: u32, k: &mut Machine) -> u32 {
        match self {
            Workload::Transactional(w) => w.add_user(task, k),
            Workload::Appserver(w) => w.add_user(task, k),
            Workload::Apache(w) => w.add_user(task, k),
            Workload::Fio(f) => {
                // The processes start together, 1 µs apart (fork order).
                let p = f.add_process();
                k.q.push(
                    p as u64 * 1_000,
                    crate::system::Event::Workload(WorkloadEvent::Submit { task }),
                );
                p
            }
            Workload::Dbench(d) => {
                // The clients start together, 1 us apart (fork order).
                let c = d.add_process(task);
                k.q.push(
                    c as u64 * 1_000,
                    crate::system::Event::Workload(WorkloadEvent::Submit { task }),
                );
                c
            }
            Workload::Iozone(z) => {
                // iozone is started once the console's setup at time 0 (ATTACH, pvpath) ran.
                let p = z.add_process(task);
                k.q.push(
                    1_000_000 + p as u64 * 1_000,
                    crate::system::Event::Workload(WorkloadEvent::Submit { task }),
                );
                p
            }
            Workload::None => 0,
        }
    }

    pub(crate) fn submit(&mut self, t: u32, user: u32, k: &mut Machine) {
        match self {
            Workload::Transactional(w) => w.submit(t, user, k),
            Workload::Appserver(w) => w.submit(t, user, k),
            Workload::Apache(w) => w.submit(t, user, k),
            Workload::Fio(_) | Workload::Iozone(_) | Workload::Dbench(_) | Workload::None => {}
        }
    }

    pub(crate) fn finish(&mut self, t: u32, at: u64, k: &mut Machine) {
        match self {
            Workload::Transactional(w) => w.finish(t, at, k),
            Workload::Appserver(w) => w.finish(t, at, k),
            Workload::Apache(w) => w.finish(t, at, k),
            Workload::Fio(_) | Workload::Iozone(_) | Workload::Dbench(_) | Workload::None => {}
        }
    }

    pub(crate) fn run(
        &mut self,
        t: u32,
        user: u32,
        g: usize,
        budget: u64,
        k: &mut Machine,
    ) -> (u64, Outcome) {
        match self {
            Workload::Transactional(w) => w.run(t, user, g, budget, k),
            Workload::Appserver(w) => w.run(t, user, g, budget, k),
            Workload::Apache(w) => w.run(t, user, g, budget, k),
            Workload::Fio(f) => f.run(t, user, g, k),
            Workload::Iozone(z) => z.run(t, user, g, budget, k),
            Workload::Dbench(d) => d.run(t, user, g, budget, k),
            Workload::None => (0, Outcome::Done),
        }
    }

    /// The database whose buffer pool this workload's guest holds, where there is one.
    pub(crate) fn database(&self) -> Option<&database::Database> {
        match self {
            Workload::Transactional(w) => w.db.as_ref(),
            Workload::Fio(_)
            | Workload::Iozone(_)
            | Workload::Appserver(_)
            | Workload::Apache(_)
            | Workload::Dbench(_)
            | Workload::None => None,
        }
    }

    /// The database's buffer-pool hit ratio, where there is one.
    pub fn db_hit_ratio(&self) -> Option<f64> {
        self.database()
            .map(|d| d.hits as f64 / (d.hits + d.misses).max(1) as f64)
    }
}

/// A closed-loop user (task `task`) starts: it thinks (exponential, mean `think_ns`) before
/// its first request, as after each one.
pub(crate) fn first_request(
    task: u32,
    think_ns: u64,
    rng: &mut crate::engine::rng::Stream,
    k: &mut Machine,
) {
    let delay = rng.exp_ns(think_ns);
    k.q.push(
        delay,
        crate::system::Event::Workload(WorkloadEvent::Submit { task }),
    );
}

/// A closed-loop user's request (task `t`) ended at `at`: count it and its response time for
/// the guest; the user thinks (exponential, mean `think_ns`), then submits again.
pub(crate) fn request_done(
    t: u32,
    at: u64,
    think_ns: u64,
    rng: &mut crate::engine::rng::Stream,
    k: &mut Machine,
) {
    request_done_then(t, t, at, think_ns, rng, k);
}

/// As `request_done`, where the next request is task `next`'s (a server's answer goes back
/// to its client's connection).
pub(crate) fn request_done_then(
    t: u32,
    next: u32,
    at: u64,
    think_ns: u64,
    rng: &mut crate::engine::rng::Stream,
    k: &mut Machine,
) {
    let g = k.tasks[t as usize].guest as usize;
    let resp = at - k.tasks[t as usize].start;
    let gs = &mut k.guests[g];
    gs.stats.tx += 1;
    gs.stats.resp_ns += resp as u128;
    gs.resp.add(resp as f64 / 1e6);
    let think = rng.exp_ns(think_ns);
    k.q.push(
        at + think,
        crate::system::Event::Workload(WorkloadEvent::Submit { task: next }),
    );
}
