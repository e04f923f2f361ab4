//! The application-server workload (`kind = "appserver"`): closed-loop users whose requests
//! run Java code that references the server's heap. A request is `refs_per_request` steps,
//! each a reference to program text and to a heap page drawn from a Zipf law over the heap
//! (page 0 the most used), followed by its share of the request's CPU. With a heap larger
//! than the guest's storage the references find pages on swap: the seed-000 swap-bound
//! WebSphere guest. Restartable like the OLTP workload: a host page fault or a swap read
//! returns early and the same step runs again.

use crate::config::appserver::AppserverSpec;
use crate::config::scenario::WorkloadSpec;
use crate::cp::faults::Work;
use crate::cp::storage::NONE;
use crate::engine::rng::{Stream, Zipf};
use crate::system::machine::Machine;
use crate::system::Event;

use super::{Outcome, WorkloadEvent};

struct User {
    refs_left: u32,
    /// The heap page of the step under way (NONE: not drawn yet).
    page: u32,
    write: bool,
}

pub struct Appserver {
    spec: AppserverSpec,
    zipf: Zipf,
    think_ns: u64,
    rng: Stream,
    users: Vec<User>,
}

impl Appserver {
    pub fn new(w: &WorkloadSpec, spec: &AppserverSpec, rng: Stream) -> Self {
        let heap = spec.heap.pages().max(1);
        Appserver {
            spec: spec.clone(),
            zipf: Zipf::new(heap, spec.skew.max(0.0)),
            think_ns: w.think_time.ns(),
            rng,
            users: Vec::new(),
        }
    }

    pub(crate) fn add_user(&mut self, task: u32, k: &mut Machine) -> u32 {
        self.users.push(User {
            refs_left: 0,
            page: NONE,
            write: false,
        });
        let delay = self.rng.exp_ns(self.think_ns);
        k.q.push(delay, Event::Workload(WorkloadEvent::Submit { task }));
        (self.users.len() - 1) as u32
    }

    pub(crate) fn submit(&mut self, t: u32, u: u32, k: &mut Machine) {
        let user = &mut self.users[u as usize];
        user.refs_left = self.spec.refs_per_request.max(1);
        user.page = NONE;
        k.tasks[t as usize].start = k.now;
    }

    /// The request of task `t` ended at `at`: count it; the user thinks, then submits again.
    pub(crate) fn finish(&mut self, t: u32, at: u64, k: &mut Machine) {
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
        let ui = u as usize;
        let refs = self.spec.refs_per_request.max(1) as u64;
        let step_cpu = self.spec.cpu_per_request.ns() / refs;
        let heap = k.guests[g].mem.shm;
        let mut used = 0;
        let start = k.burst_at;
        loop {
            k.burst_at = start + used;
            if self.users[ui].page == NONE {
                let p = (self.zipf.sample(&mut self.rng) as u32).min(heap.saturating_sub(1));
                self.users[ui].page = p;
                self.users[ui].write = self.rng.chance(self.spec.write_fraction);
            }
            let mut w = Work::default();
            let text = self.rng.below(k.text_pages(g).max(1) as u64) as u32;
            let (page, write) = (self.users[ui].page, self.users[ui].write);
            let r = k
                .exec_text(g, t, text, &mut w)
                .and_then(|()| k.touch_anon(g, t, page, write, false, &mut w));
            used += k.charge_work(g, &w);
            k.flush_page_writes();
            if let Err(b) = r {
                return (used, Outcome::Blocked(b));
            }
            used += step_cpu;
            k.charge(g, step_cpu, 0);
            let user = &mut self.users[ui];
            user.page = NONE;
            user.refs_left -= 1;
            if user.refs_left == 0 {
                return (used, Outcome::Done);
            }
            if used >= budget {
                return (used, Outcome::SliceEnd);
            }
        }
    }
}
