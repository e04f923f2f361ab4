//! The file-serving figures of a run with the apache workload (seed 001 reports them per
//! run): built from the I/O system's device counts, the guests' counters and CP's storage,
//! into the system rows' apache fields and the summary's `web` section. Left out of runs
//! without the workload.

use crate::config::apache::ApacheRole;
use crate::cp::storage::SpaceId;
use crate::io::DevStats;
use crate::monitor::rows::SystemRow;
use crate::monitor::summary::{ratio, WebSummary};
use crate::workload::Workload;

use super::Simulation;

impl Simulation {
    /// A guest runs the apache workload.
    fn web_run(&self) -> bool {
        self.workloads
            .iter()
            .any(|w| matches!(w, Workload::Apache(_)))
    }

    /// Guest `gi` serves files in an apache run.
    pub(super) fn web_server(&self, gi: usize) -> bool {
        matches!(&self.workloads[gi], Workload::Apache(a) if a.role() == ApacheRole::Server)
    }

    /// Every real volume's counts, summed.
    pub(super) fn all_dasd_stats(&self) -> DevStats {
        let mut s = DevStats::default();
        for d in 0..self.m.io.subchannels() as u32 {
            let x = self.m.io.stats(d);
            s.ios += x.ios;
            s.pages += x.pages;
            s.busy_ns += x.busy_ns;
            s.wait_ns += x.wait_ns;
        }
        s
    }

    /// Frames holding pages of saved segments' shared copies.
    fn shared_frames(&self) -> u64 {
        let seg = &self.dcss.segments;
        seg.files
            .iter()
            .filter_map(|f| f.shared)
            .map(|s: SpaceId| self.m.storage.space_locations(s).resident)
            .sum()
    }

    /// The apache fields of the current interval's system row (None without the workload).
    pub(super) fn web_row(&self, now: u64) -> SystemRow {
        if !self.web_run() {
            return SystemRow::default();
        }
        let span = (now - self.mon.start).max(1);
        let (a, b) = (self.all_dasd_stats(), self.mon.dasd_all);
        let ios = (a.ios - b.ios) as f64;
        let service = ratio((a.busy_ns - b.busy_ns) as f64, ios) / 1e6;
        let wait = ratio((a.wait_ns - b.wait_ns) as f64, ios) / 1e6;
        SystemRow {
            dasd_service_ms: Some(service),
            dasd_response_ms: Some(service + wait),
            // Little's law: I/Os waiting = total wait time / elapsed time.
            dasd_queue: Some((a.wait_ns - b.wait_ns) as f64 / span as f64),
            resident_shared_frames: Some(self.shared_frames()),
            ..SystemRow::default()
        }
    }

    /// The interval's figures under the Performance Toolkit's names in an apache run, from
    /// the row's own (% of one processor = 10 ms of CPU per second).
    pub(super) fn perfkit_names(&self, r: &mut SystemRow) {
        if !self.web_run() {
            return;
        }
        let per_tx = |pct: f64| ratio(pct * 10.0, r.throughput_tx_per_s);
        r.cp_msec_per_tx = Some(per_tx(r.cpu_cp_pct));
        r.emul_msec_per_tx = Some(per_tx(r.cpu_guests_pct));
        r.total_util_per_proc_pct = Some(r.cpu_lpar_pct / self.scenario.lpar.ifls as f64);
        r.dasd_paging_per_s = Some(r.paging_io_per_s);
        r.resident_pages_total = Some(r.pages_resident);
        r.resident_pages_dasd = Some(r.pages_dasd);
        r.avail_list_below_2g = Some(r.available_below_2g);
        r.avail_list_above_2g = Some(r.available_frames.saturating_sub(r.available_below_2g));
    }

    /// The summary's `web` section: means of the rows, CPU per transaction, the servers'
    /// I/O wait.
    pub(super) fn web_summary(&self, measured_ns: u64) -> Option<WebSummary> {
        if !self.web_run() {
            return None;
        }
        let rows = &self.mon.sys_rows;
        let n = rows.len().max(1) as f64;
        let mean = |f: fn(&SystemRow) -> f64| rows.iter().map(f).sum::<f64>() / n;
        let tps = mean(|r| r.throughput_tx_per_s);
        // % of one processor = 10 ms per second.
        let per_tx = |pct: f64| ratio(pct * 10.0, tps);
        let servers: Vec<_> = self
            .m
            .guests
            .iter()
            .enumerate()
            .filter(|&(gi, _)| self.web_server(gi))
            .map(|(_, g)| g)
            .collect();
        let wait: u64 = servers
            .iter()
            .map(|g| g.total.wait_db_ns + g.total.wait_fault_ns)
            .sum();
        Some(WebSummary {
            cp_msec_per_tx: per_tx(mean(|r| r.cpu_cp_pct)),
            emul_msec_per_tx: per_tx(mean(|r| r.cpu_guests_pct)),
            total_util_per_proc_pct: mean(|r| r.cpu_lpar_pct) / self.scenario.lpar.ifls as f64,
            virtual_io_per_s: mean(|r| r.virtual_io_per_s),
            dasd_io_per_s: mean(|r| r.dasd_io_per_s),
            dasd_avoid_per_s: mean(|r| r.dasd_avoid_per_s),
            dasd_paging_per_s: mean(|r| r.paging_io_per_s),
            io_wait_pct: 100.0 * ratio(wait as f64, (measured_ns * servers.len() as u64) as f64),
            resident_pages_total: mean(|r| r.pages_resident as f64),
            resident_pages_dasd: mean(|r| r.pages_dasd as f64),
            resident_shared_frames: mean(|r| r.resident_shared_frames.unwrap_or(0) as f64),
            avail_list_below_2g: mean(|r| r.available_below_2g as f64),
            avail_list_above_2g: mean(|r| {
                r.available_frames.saturating_sub(r.available_below_2g) as f64
            }),
            dasd_service_ms: mean(|r| r.dasd_service_ms.unwrap_or(0.0)),
            dasd_response_ms: mean(|r| r.dasd_response_ms.unwrap_or(0.0)),
            dasd_queue: mean(|r| r.dasd_queue.unwrap_or(0.0)),
        })
    }
}
