//! The `Simulation`: assembles the parts (CP, the real I/O, each guest's Linux and workload,
//! the monitor) and routes the events between them. Built from a scenario, stepped with
//! `step_until(t)`.

#[cfg(test)]
mod apache_tests;
#[cfg(test)]
mod blkmq_tests;
mod build;
mod console;
mod console_view;
mod cpio;
#[cfg(test)]
mod dasd_bad_tests;
#[cfg(test)]
mod dasd_tests;
mod dasd_view;
#[cfg(test)]
mod dasdblock_tests;
mod dasdio;
#[cfg(test)]
mod dbench_tests;
mod dbench_view;
mod dbfiles;
mod dcss;
mod dcss_fs;
mod dcss_linux;
mod dispatch;
mod interval;
mod ioflow;
#[cfg(test)]
mod ioflow_tests;
mod kernel24;
#[cfg(test)]
mod kernel24_tests;
pub(crate) mod machine;
mod mdc;
#[cfg(test)]
mod mdc_tests;
mod mdisk;
#[cfg(test)]
mod mdisk_tests;
#[cfg(test)]
mod paging_alias_tests;
mod paging_view;
#[cfg(test)]
mod privclass_tests;
mod privilege;
#[cfg(test)]
mod ssch_tests;
mod streams;
#[cfg(test)]
mod swap_tests;
pub(crate) mod swapdev;
#[cfg(test)]
mod text_tests;
mod text_view;
#[cfg(test)]
mod tunedasd_tests;
mod vdisk;
mod vmrm;
mod warm;
mod warm_guests;
mod warm_stationary;
mod web_view;
mod zdev;
#[cfg(test)]
mod zdev_tests;

use serde_json::{Map, Value};

use crate::config::scenario::{self, Scenario, ScenarioError};
use crate::cp::dispatcher::DispatchEvent;
use crate::cp::vmrm::{Vmrm, VmrmEvent};
use crate::io::IoEvent;
use crate::linux::cmm::CmmEvent;
use crate::monitor::rows::{Columns, GuestRow, SystemRow};
use crate::workload::{Workload, WorkloadEvent};

use console::ConsoleLine;
use interval::IntervalState;
use machine::Machine;

/// Every event, by the component it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Workload(WorkloadEvent),
    Dispatch(DispatchEvent),
    Io(IoEvent),
    Monitor(MonitorEvent),
    /// The console script's command `index` is typed.
    Console {
        index: u32,
    },
    /// A console command's next report is due (`vmstat delay`): report `run`.
    ConsoleReport {
        run: u32,
    },
    /// The VM Resource Manager's interval.
    Vmrm(VmrmEvent),
    /// A guest's cmm module (its timer).
    Cmm(CmmEvent),
    /// CP's work for the next page of spool transfer `op` is done: start its channel program
    /// on spool volume `vol`. (Two plain variants rather than one wrapping an enum: the
    /// wrapped enum's layout made `Event` 12 bytes.)
    SpoolStart {
        op: u16,
        vol: u16,
    },
    /// A timed saved-segment command ends.
    SpoolTimer {
        op: u16,
    },
    /// The minidisk cache's arbiter runs (system/mdc.rs).
    MdcArbiter,
    /// z/VM 5.2: block page-in `pagein`, whose frames waited for the available list's lock,
    /// asks for them again (`avail_walk_serialized`).
    FramesDeferred {
        pagein: u32,
    },
}

/// The monitor's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonitorEvent {
    /// The priming period is over: counters restart and the measured window begins.
    PrimingEnd,
    /// A statistics interval ends.
    IntervalEnd,
}

pub struct Simulation {
    pub scenario: Scenario,
    hash: String,
    seed: u64,
    end: u64,
    prime_end: u64,
    interval_ns: u64,
    events: u64,
    m: Machine,
    /// Each guest's workload, by guest index.
    workloads: Vec<Workload>,
    mon: IntervalState,
    console: Vec<ConsoleLine>,
    /// Console commands that report again later (`vmstat delay [count]`).
    reports: Vec<console::Report>,
    ended: Option<String>,
    /// VMRMSVM, when the scenario configures it.
    vmrm: Option<Vmrm>,
    /// Saved segments: CP's files, the spool, Linux's dcssblk devices.
    dcss: dcss::DcssSystem,
    /// The users' CP privilege classes.
    privileges: privilege::Privileges,
}

impl Simulation {
    /// Parse, validate and build. `seed` overrides the scenario's run.seed.
    pub fn from_toml(
        text: &str,
        file: &str,
        seed: Option<u64>,
        overrides: &[String],
    ) -> Result<Self, ScenarioError> {
        let (mut sc, _src) = scenario::parse(text, file, overrides)?;
        if let Some(s) = seed {
            sc.run.seed = s;
        }
        Ok(Self::new(sc))
    }

    pub fn now_ns(&self) -> u64 {
        self.m.now
    }
    pub fn end_ns(&self) -> u64 {
        self.end
    }
    pub fn events(&self) -> u64 {
        self.events
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn scenario_hash(&self) -> &str {
        &self.hash
    }
    pub fn finished(&self) -> bool {
        self.m.now >= self.end || self.ended.is_some()
    }

    /// Process every event up to simulated time `t` (ns). Returns events processed.
    pub fn step_until(&mut self, t: u64) -> u64 {
        let t = t.min(self.end);
        let start = self.events;
        while self.ended.is_none() {
            match self.m.q.peek_time() {
                Some(et) if et <= t => {}
                _ => break,
            }
            let Some((et, e)) = self.m.q.pop() else {
                break;
            };
            self.m.now = et;
            self.m.storage.now_ns = et;
            self.events += 1;
            self.route(e);
            if self.m.storage.paging_full && self.ended.is_none() {
                self.paging_space_full();
            }
        }
        if self.ended.is_none() {
            self.m.now = self.m.now.max(t);
        }
        self.events - start
    }

    pub fn run(&mut self) {
        let end = self.end;
        self.step_until(end);
    }

    fn route(&mut self, e: Event) {
        match e {
            Event::Workload(WorkloadEvent::Submit { task }) => self.submit(task),
            Event::Dispatch(DispatchEvent::BurstEnd { vcpu }) => self.burst_end(vcpu),
            Event::Io(IoEvent::Complete(id)) => self.io_done(id),
            Event::Io(IoEvent::GuestStart(slot)) => {
                let (g, req) = self.m.deferred_ssch.take(slot);
                self.m.guest_ssch(g, req);
            }
            Event::Io(IoEvent::GuestDone(slot)) => {
                let (g, task, dev, base, pages) = self.m.deferred_done.take(slot);
                self.block_done(g, task, dev, base, pages);
            }
            Event::Monitor(MonitorEvent::PrimingEnd) => self.start_measuring(),
            Event::Monitor(MonitorEvent::IntervalEnd) => self.close_interval(),
            Event::Console { index } => self.run_console(index as usize),
            Event::ConsoleReport { run } => self.console_report(run as usize),
            Event::Vmrm(VmrmEvent::Interval { epoch }) => self.vmrm_interval(epoch),
            Event::Cmm(CmmEvent::Timer { guest }) => self.cmm_timer(guest as usize),
            Event::SpoolStart { op, vol } => self.spool_start(op, vol),
            Event::SpoolTimer { op } => self.spool_timer(op),
            Event::Io(IoEvent::MdcHit(slot)) => self.mdc_hit_done(slot),
            Event::MdcArbiter => self.mdc_arbiter(),
            Event::FramesDeferred { pagein } => {
                let now = self.m.now;
                self.pagein_frames(pagein, now, true);
            }
        }
    }

    /// All DASD paging space is in use: z/VM stops with abend PGT004.
    fn paging_space_full(&mut self) {
        self.console_line(
            "SYSTEM",
            "",
            vec![
                "HCPPGT004 ABEND: all DASD paging space is in use; z/VM stops (abend PGT004)"
                    .to_string(),
            ],
        );
        self.ended = Some("PGT004: paging space full".into());
    }

    /// Per-interval rows, one per (interval, guest).
    pub fn guest_rows(&self) -> &[GuestRow] {
        &self.mon.rows
    }

    /// Per-interval rows of the LPAR.
    pub fn system_rows(&self) -> &[SystemRow] {
        &self.mon.sys_rows
    }

    /// The guest rows as columns (for Arrow).
    pub fn interval_columns(&self) -> Columns {
        GuestRow::columns(&self.mon.rows)
    }

    /// The system rows as columns (for Arrow).
    pub fn system_columns(&self) -> Columns {
        SystemRow::columns(&self.mon.sys_rows)
    }

    /// Per-interval guest rows as JSON objects.
    pub fn intervals(&self) -> Vec<Value> {
        self.mon.rows.iter().map(to_json).collect()
    }

    /// Per-interval system rows as JSON objects.
    pub fn system_intervals(&self) -> Vec<Value> {
        self.mon.sys_rows.iter().map(to_json).collect()
    }

    pub fn console(&self) -> Vec<Value> {
        self.console.iter().map(to_json).collect()
    }

    /// The VMRM log (VMRMSVM's records: starts, decisions, each SMSG and its text), as JSON.
    pub fn vmrm_log(&self) -> Vec<Value> {
        self.vmrm
            .iter()
            .flat_map(|v| v.log.iter().map(to_json))
            .collect()
    }

    /// The run's figures over the measured window, as a JSON object.
    pub fn summary(&self) -> Map<String, Value> {
        match to_json(&self.summary_typed()) {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// Page references made through CP's storage model so far (warm start included).
    pub fn page_references(&self) -> u64 {
        self.m.storage.references()
    }

    /// Guest pages of all guests (their virtual storage).
    pub fn guest_pages(&self) -> u64 {
        self.m.guests.iter().map(|g| g.mem.pages as u64).sum()
    }

    /// For tests: the storage model's and every guest's Linux memory invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.m.storage.check_invariants()?;
        for g in &self.m.guests {
            g.mem.check().map_err(|e| format!("{}: {e}", g.name))?;
        }
        Ok(())
    }
}

// An event stays 8 bytes: the queue holds millions of them.
const _: () = assert!(std::mem::size_of::<Event>() == 8);

fn to_json<T: serde::Serialize>(x: &T) -> Value {
    serde_json::to_value(x).unwrap_or(Value::Null)
}
