//! Routing between CP's dispatcher, the workloads and Linux: a virtual CPU given an IFL runs
//! its guest's ready tasks in a burst until one blocks, the slice ends or it has no work; at the
//! burst's end what it blocked on is started (a database read, a page-in, a swap read), and I/O
//! completions wake what waited for them.

use crate::cp::dispatcher::{Block, DispatchEvent};
use crate::cp::pagein::Waiter;
use crate::cp::storage::NONE;
use crate::io::{IoEvent, IoId, Origin};
use crate::workload::Outcome;

use super::machine::TaskKind;
use super::{Event, Simulation};

impl Simulation {
    /// A user submits its next request.
    pub(super) fn submit(&mut self, t: u32) {
        let task = &self.m.tasks[t as usize];
        if let TaskKind::User(u) = task.kind {
            let g = task.guest as usize;
            self.workloads[g].submit(t, u, &mut self.m);
            self.make_ready(t);
        }
    }

    /// A task becomes ready in its guest; an idle virtual CPU of the guest is dispatched.
    pub(super) fn make_ready(&mut self, t: u32) {
        let g = self.m.tasks[t as usize].guest as usize;
        self.m.tasks[t as usize].in_io = false;
        self.m.tasks[t as usize].in_pagein = false;
        self.m.guests[g].ready.push_back(t);
        if let Some(v) = self.m.guests[g].idle_vcpus.pop() {
            self.vcpu_runnable(v);
        }
    }

    fn vcpu_runnable(&mut self, v: u32) {
        if self.m.disp.runnable(v, self.m.now) {
            self.run_burst(v);
        }
    }

    fn release_ifl(&mut self) {
        match self.m.disp.take_next(self.m.now) {
            Some(n) => self.run_burst(n),
            None => self.m.disp.free_ifl(),
        }
    }

    /// The virtual CPU `v` holds an IFL from `now`: run its Linux tasks until one blocks, the
    /// slice ends or it has no work; schedule the end of the burst.
    fn run_burst(&mut self, v: u32) {
        let slice = self.m.disp.slice_ns;
        let vi = v as usize;
        let g = self.m.disp.vcpus[vi].guest as usize;
        self.m.disp.set_on_cpu(v, true);
        // SMT: the whole burst runs at the speed its thread has at the start (a sibling on the
        // core's other thread or not); bursts are microseconds, and the siblings' states change
        // on that scale too (approximation).
        let slow = self.m.disp.thread_slowdown(v);
        // CP work left over from I/O interrupts runs first on this IFL, charged to the guest
        // it was done for.
        let mut t = 0;
        for (guest, ns) in self.m.disp.take_backlog() {
            let ns = if slow != 1.0 {
                (ns as f64 * slow) as u64
            } else {
                ns
            };
            t += ns;
            match guest {
                Some(g) => self.m.guests[g as usize].stats.cp_ns += ns,
                None => self.m.sys.cp_system_ns += ns,
            }
        }
        self.m.sys.cp_ns += t;
        let before = (slow != 1.0).then(|| self.cpu_charged(g));
        // Softirq work of the guest (the DASD block tasklet) runs first in its next burst.
        let soft = std::mem::take(&mut self.m.guests[g].linux_backlog);
        if soft > 0 {
            self.m.charge(g, soft, 0);
            t += soft;
        }
        loop {
            if self.m.disp.vcpus[vi].task == NONE {
                match self.m.guests[g].ready.pop_front() {
                    Some(task) => self.m.disp.vcpus[vi].task = task,
                    None => break,
                }
            }
            let task = self.m.disp.vcpus[vi].task;
            let budget = slice.saturating_sub(self.m.disp.vcpus[vi].slice_used + t);
            self.m.burst_at = self.m.now + t;
            self.m.burst_vcpu = v;
            let (used, outcome) = self.exec(task, budget.max(1));
            t += used;
            match outcome {
                Outcome::Done => {
                    self.finish_task(task, self.m.now + t);
                    self.m.disp.vcpus[vi].task = NONE;
                }
                Outcome::Blocked(b) => {
                    let vc = &mut self.m.disp.vcpus[vi];
                    vc.pending = b;
                    if matches!(b, Block::PageIn { sync: true, .. }) {
                        vc.blocked = true;
                    } else {
                        vc.task = NONE;
                    }
                    break;
                }
                Outcome::SliceEnd => break,
            }
            if self.m.disp.vcpus[vi].slice_used + t >= slice {
                break;
            }
        }
        if let Some(b) = before {
            t += self.stretch(g, b, slow);
        }
        self.m.disp.vcpus[vi].slice_used += t;
        self.m.keep_burst_ssch(vi);
        self.m.q.push(
            self.m.now + t,
            Event::Dispatch(DispatchEvent::BurstEnd { vcpu: v }),
        );
    }

    /// CPU time charged so far: guest `g`'s (Linux, CP) and the system's (guest, CP, CP
    /// system).
    fn cpu_charged(&self, g: usize) -> [u64; 5] {
        let (st, sy) = (&self.m.guests[g].stats, &self.m.sys);
        [st.cpu_ns, st.cp_ns, sy.guest_ns, sy.cp_ns, sy.cp_system_ns]
    }

    /// SMT: the work charged since `before` took `slow` times as long on its thread; charge
    /// the difference where the work was charged and return it (the burst's extra time).
    fn stretch(&mut self, g: usize, before: [u64; 5], slow: f64) -> u64 {
        let now = self.cpu_charged(g);
        let extra: [u64; 5] =
            std::array::from_fn(|i| ((now[i] - before[i]) as f64 * (slow - 1.0)) as u64);
        let st = &mut self.m.guests[g].stats;
        st.cpu_ns += extra[0];
        st.cp_ns += extra[1];
        let sy = &mut self.m.sys;
        sy.guest_ns += extra[2];
        sy.cp_ns += extra[3];
        sy.cp_system_ns += extra[4];
        // The system's guest and CP time cover every charge of the burst (cp_ns includes
        // CP's system time).
        extra[2] + extra[3]
    }

    /// Run task `t` for up to `budget` ns of IFL time: kswapd in Linux, a user in its workload.
    fn exec(&mut self, t: u32, budget: u64) -> (u64, Outcome) {
        let task = &self.m.tasks[t as usize];
        let g = task.guest as usize;
        match task.kind {
            TaskKind::Kswapd => (self.m.kswapd_run(g), Outcome::Done),
            TaskKind::Cmm => (self.m.cmm_run(g, budget), Outcome::Done),
            TaskKind::Kblockd => (self.m.kblockd_run(g), Outcome::Done),
            TaskKind::User(u) => self.workloads[g].run(t, u, g, budget, &mut self.m),
        }
    }

    fn finish_task(&mut self, t: u32, at: u64) {
        let task = &self.m.tasks[t as usize];
        if let TaskKind::User(_) = task.kind {
            let g = task.guest as usize;
            self.workloads[g].finish(t, at, &mut self.m);
        }
    }

    pub(super) fn burst_end(&mut self, v: u32) {
        let vi = v as usize;
        self.start_burst_ssch(vi);
        let pending = std::mem::replace(&mut self.m.disp.vcpus[vi].pending, Block::None);
        let g = self.m.disp.vcpus[vi].guest as usize;
        let now = self.m.now;
        match pending {
            Block::None => {}
            Block::DbRead { vol, block, task } => {
                let io = crate::io::IoRequest {
                    origin: Origin::DbRead { task },
                    device: vol,
                    pages: std::mem::take(&mut self.m.tasks[task as usize].read_pages).max(1),
                    write: false,
                    queued_at: now,
                    block: block as u64,
                    aliases: false,
                    sub: 0,
                    reach: 0,
                };
                self.m.minidisk_read(g as u32, io);
                self.m.guests[g].stats.db_reads += 1;
                self.m.tasks[task as usize].blocked_at = now;
                self.m.tasks[task as usize].in_io = true;
            }
            Block::PageIn { group, task, .. } => {
                let waiter = if self.m.disp.vcpus[vi].blocked {
                    Waiter::Vcpu(v)
                } else {
                    Waiter::Task(task)
                };
                self.m.start_pagein(group, g as u32, waiter);
                self.m.guests[g].stats.page_faults_dasd += 1;
                self.m.guests[g].stats.page_faults_stopped += self.m.disp.vcpus[vi].blocked as u64;
                self.m.tasks[task as usize].blocked_at = now;
                // With pfault only the task sleeps; without, the whole virtual CPU waits.
                self.m.tasks[task as usize].in_io = !self.m.disp.vcpus[vi].blocked;
                self.m.tasks[task as usize].in_pagein = !self.m.disp.vcpus[vi].blocked;
            }
            Block::Aio { task } => self.aio_burst_end(task),
            Block::SwapIn { dev, task } => {
                // One I/O reads the faulting page and those read ahead with it.
                let ahead = std::mem::take(&mut self.m.tasks[task as usize].swap_ahead);
                self.m
                    .submit_io(dev, Origin::SwapRead { task }, 1 + ahead, false);
                self.m.tasks[task as usize].blocked_at = now;
                self.m.tasks[task as usize].in_io = true;
            }
        }
        if self.m.disp.vcpus[vi].blocked {
            self.m.disp.set_on_cpu(v, false);
            self.release_ifl();
            return;
        }
        let has_work = self.m.disp.vcpus[vi].task != NONE || !self.m.guests[g].ready.is_empty();
        if !has_work {
            self.m.disp.set_on_cpu(v, false);
            self.m.guests[g].idle_vcpus.push(v);
            self.release_ifl();
            return;
        }
        if self.m.disp.vcpus[vi].slice_used >= self.m.disp.slice_ns {
            if let Some(next) = self.m.disp.preempt(v, now) {
                self.m.disp.set_on_cpu(v, false);
                self.run_burst(next);
                return;
            }
        }
        self.run_burst(v);
    }

    /// Request `id` completed: route it back to its origin.
    pub(super) fn io_done(&mut self, id: IoId) {
        let now = self.m.now;
        let (req, next) = self.m.io.complete(id, now);
        if let Some((t, n)) = next {
            self.m.q.push(t, Event::Io(IoEvent::Complete(n)));
        }
        self.m.mdc_fill(&req);
        self.origin_done(req.origin, now);
    }

    /// A read or write of `origin` is done (its real I/O ended, or CP answered it from the
    /// minidisk cache): route it back.
    pub(super) fn origin_done(&mut self, origin: Origin, now: u64) {
        match origin {
            Origin::DbRead { task } | Origin::SwapRead { task } => {
                let tk = &self.m.tasks[task as usize];
                let waited = now - tk.blocked_at;
                let st = &mut self.m.guests[tk.guest as usize].stats;
                if matches!(origin, Origin::DbRead { .. }) {
                    st.wait_db_ns += waited;
                } else {
                    st.wait_swap_ns += waited;
                }
                self.make_ready(task);
            }
            Origin::PageIn { pagein } => self.pagein_frames(pagein, now, false),
            Origin::Dasd { guest, req } => self.dasd_done(guest, req),
            Origin::Spool { op, vol } => self.spool_io_done(op, vol),
            Origin::DbWrite | Origin::PageOut | Origin::SwapWrite => {}
        }
    }

    /// Block page-in `pagein`'s I/O is done (`deferred`: its frames already waited once for
    /// the available list's lock): CP validates its pages and resumes the users waiting.
    pub(super) fn pagein_frames(&mut self, pagein: u32, now: u64, deferred: bool) {
        if self.m.defer_frames(pagein, now, deferred) {
            return;
        }
        let waiters = self.m.pagein_done(pagein);
        for &w in &waiters {
            let task = match w {
                Waiter::SwapWrite { dev } => {
                    self.m.submit_io(dev, Origin::SwapWrite, 1, true);
                    continue;
                }
                Waiter::Nothing => continue,
                Waiter::Vcpu(v) => self.m.disp.vcpus[v as usize].task,
                Waiter::Task(t) => t,
            };
            if task != NONE {
                let tk = &self.m.tasks[task as usize];
                let waited = now - tk.blocked_at;
                self.m.guests[tk.guest as usize].stats.wait_fault_ns += waited;
            }
            match w {
                Waiter::Vcpu(v) => {
                    self.m.disp.vcpus[v as usize].blocked = false;
                    self.vcpu_runnable(v);
                }
                _ => self.make_ready(task),
            }
        }
        self.m.pageins.recycle(pagein, waiters);
    }
}
