//! The application-server workload (`kind = "appserver"`): closed-loop users whose requests
//! run Java code that references the server's heap. A request is `refs_per_request` steps,
//! each a reference to program text and to a heap page drawn from a Zipf law over the heap
//! (page 0 the most used), followed by its share of the request's CPU. With a heap larger
//! than the guest's storage the references find pages on swap: the seed-000 swap-bound
//! WebSphere guest. Restartable like the OLTP workload: a host page fault or a swap read
//! returns early and the same step runs again.
//! With a `text` table, `text.refs_per_request` of the steps also run a page of the server's
//! program text as files (Zipf over the file set's first `text.runtime` pages, the native
//! code a started server still runs; all of it by default): in a DCSS mounted xip (the
//! segment's one shared copy), else read through the guest's own page cache from the shared
//! `files` minidisk (128 KB readahead windows, as a mapped file's faults read). The kernel
//! text a step runs is then the guest's kernel region without the memory map mem= adds.

use crate::config::appserver::AppserverSpec;
use crate::config::scenario::WorkloadSpec;
use crate::config::units::NS_PER_S;
use crate::cp::faults::Work;
use crate::cp::storage::NONE;
use crate::engine::rng::{Stream, Zipf};
use crate::system::machine::Machine;
use crate::system::Event;

use super::{Outcome, WorkloadEvent};

type R = Result<(), crate::cp::dispatcher::Block>;

struct User {
    refs_left: u32,
    /// The heap page of the step under way (NONE: not drawn yet).
    page: u32,
    write: bool,
    /// The program-text page of the step under way (NONE: none or not drawn yet).
    text: u32,
    /// The server is not started (its text's file system is not mounted): try again later.
    refused: bool,
}

/// ext2's readahead window for a mapped file's fault: 128 KB (2.6's default ra_pages).
const TEXT_WINDOW: u32 = 32;

pub struct Appserver {
    spec: AppserverSpec,
    zipf: Zipf,
    think_ns: u64,
    rng: Stream,
    users: Vec<User>,
    /// Program text as files: its Zipf law and the `files` minidisks holding it.
    text: Option<(Zipf, Vec<u32>, u32)>,
    /// Pages of kernel text a step runs (with a text table: without mem='s memory map).
    kernel_text: Option<u32>,
}

impl Appserver {
    pub fn new(
        w: &WorkloadSpec,
        spec: &AppserverSpec,
        vols: Vec<u32>,
        kernel: u32,
        rng: Stream,
    ) -> Self {
        let heap = spec.heap.pages().max(1);
        let text = spec.text.as_ref().map(|t| {
            let n = t.size.pages().max(1);
            let run = t.runtime.map_or(n, |r| r.pages().clamp(1, n));
            (Zipf::new(run, t.skew.max(0.0)), vols, n as u32)
        });
        Appserver {
            spec: spec.clone(),
            zipf: Zipf::new(heap, spec.skew.max(0.0)),
            think_ns: w.think_time.ns(),
            rng,
            users: Vec::new(),
            kernel_text: text.as_ref().map(|_| kernel.max(1)),
            text,
        }
    }

    pub(crate) fn add_user(&mut self, task: u32, k: &mut Machine) -> u32 {
        self.users.push(User {
            refs_left: 0,
            page: NONE,
            write: false,
            text: NONE,
            refused: false,
        });
        super::first_request(task, self.think_ns, &mut self.rng, k);
        (self.users.len() - 1) as u32
    }

    pub(crate) fn submit(&mut self, t: u32, u: u32, k: &mut Machine) {
        let user = &mut self.users[u as usize];
        user.refs_left = self.spec.refs_per_request.max(1);
        user.page = NONE;
        user.text = NONE;
        user.refused = false;
        k.tasks[t as usize].start = k.now;
    }

    /// The request of task `t` ended at `at`: count it; the user thinks, then submits again.
    /// A refused one (the server not started) is not counted and comes back a second later.
    pub(crate) fn finish(&mut self, t: u32, at: u64, k: &mut Machine) {
        let u = k.tasks[t as usize].kind_user() as usize;
        if self.users[u].refused {
            let e = Event::Workload(WorkloadEvent::Submit { task: t });
            k.q.push(at + NS_PER_S, e);
            return;
        }
        super::request_done(t, at, self.think_ns, &mut self.rng, k);
    }

    /// Whether step `i` (counting down from `refs` to 1) of a request runs a text page:
    /// `n` of the `refs` steps do, spread evenly.
    fn text_step(n: u32, refs: u32, left: u32) -> bool {
        let i = (refs - left) as u64;
        let (n, refs) = (n as u64, refs as u64);
        (i + 1) * n / refs > i * n / refs
    }

    /// Task `t` runs program-text page `q`: from the DCSS mount, or the `files` minidisk
    /// through the page cache.
    fn run_text(&self, g: usize, t: u32, q: u32, k: &mut Machine, w: &mut Work) -> R {
        if k.guests[g].text_files.is_some() {
            return k.dcss_text_page(g, t, q, w);
        }
        let Some((_, vols, pages)) = &self.text else {
            return Ok(());
        };
        if vols.is_empty() {
            return Ok(());
        }
        let per_vol = pages.div_ceil(vols.len() as u32).max(1);
        let (v, at) = ((q / per_vol) as usize, q % per_vol);
        let back = at % TEXT_WINDOW;
        let len = TEXT_WINDOW.min(per_vol - (at - back));
        k.file_page_ra(g, t, vols[v], q, (q - back, len, at - back), w)
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
        let text_on = self.spec.text.as_ref().and_then(|x| x.files_on.as_ref());
        if text_on.is_some() && k.guests[g].text_files.is_none() {
            // WebSphere starts once the file system holding it is mounted.
            self.users[ui].refused = true;
            return (0, Outcome::Done);
        }
        let text_refs = self.spec.text.as_ref().map_or(0, |x| x.refs_per_request);
        let kernel = self.kernel_text.unwrap_or_else(|| k.text_pages(g)).max(1);
        let mut used = 0;
        let start = k.burst_at;
        loop {
            k.burst_at = start + used;
            if self.users[ui].page == NONE {
                let p = (self.zipf.sample(&mut self.rng) as u32).min(heap.saturating_sub(1));
                self.users[ui].page = p;
                self.users[ui].write = self.rng.chance(self.spec.write_fraction);
                let left = self.users[ui].refs_left;
                self.users[ui].text = match &self.text {
                    Some((z, _, _)) if Self::text_step(text_refs, refs as u32, left) => {
                        z.sample(&mut self.rng) as u32
                    }
                    _ => NONE,
                };
            }
            let mut w = Work::default();
            let text = self.rng.below(kernel as u64) as u32;
            let (page, write, q) = (
                self.users[ui].page,
                self.users[ui].write,
                self.users[ui].text,
            );
            let r = k.exec_text(g, t, text, &mut w).and_then(|()| {
                if q != NONE {
                    self.run_text(g, t, q, k, &mut w)?;
                }
                k.touch_anon(g, t, page, write, false, &mut w)
            });
            used += k.charge_work(g, &w);
            k.flush_page_writes();
            if let Err(b) = r {
                return (used, Outcome::Blocked(b));
            }
            used += step_cpu;
            k.charge(g, step_cpu, 0);
            let user = &mut self.users[ui];
            user.page = NONE;
            user.text = NONE;
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
