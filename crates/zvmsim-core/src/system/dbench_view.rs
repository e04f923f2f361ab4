//! dbench's figures for the summary: its throughput as dbench prints it, and what the
//! kernel's global locks cost the clients (workload/dbench.rs).

use crate::monitor::summary::DbenchSummary;
use crate::workload::dbench::Dbench;
use crate::workload::Workload;

use super::Simulation;

impl Simulation {
    /// Guest `g`'s dbench workload, if it runs one.
    pub fn dbench(&self, g: usize) -> Option<&Dbench> {
        match self.workloads.get(g)? {
            Workload::Dbench(d) => Some(d),
            _ => None,
        }
    }

    /// The summed figures of the guests running dbench over the measured window. dbench
    /// counts from the end of priming to now, not over the monitor's closed intervals: a
    /// window that is no whole number of intervals would divide its bytes by too little time.
    pub(super) fn dbench_summary(&self) -> Option<DbenchSummary> {
        let measured_ns = self.m.now.saturating_sub(self.prime_end);
        let secs = measured_ns as f64 / 1e9;
        let mut out: Option<DbenchSummary> = None;
        let mut vcpu_ns = 0.0;
        let mut spin = 0.0;
        let mut bkl = 0.0;
        let mut guests = 0u32;
        for g in 0..self.m.guests.len() {
            let Some(d) = self.dbench(g) else { continue };
            let s = out.get_or_insert_with(DbenchSummary::default);
            s.dbench_clients += d.processes();
            s.dbench_mb_s += d.throughput_mb_s(secs);
            s.dbench_ops_per_s += if secs > 0.0 { d.ops as f64 / secs } else { 0.0 };
            // Each guest's kernel has its own lock: their mean, not their sum (two guests
            // at 40 % each are not a lock 80 % busy).
            bkl += 100.0 * d.bkl_held_ns as f64 / measured_ns.max(1) as f64;
            guests += 1;
            let vcpus = self
                .m
                .disp
                .vcpus
                .iter()
                .filter(|v| v.guest as usize == g)
                .count();
            vcpu_ns += vcpus as f64 * measured_ns as f64;
            spin += d.spin_ns as f64;
        }
        if let Some(s) = out.as_mut() {
            s.dbench_bkl_busy_pct = bkl / f64::from(guests.max(1));
            s.dbench_lock_spin_pct = if vcpu_ns > 0.0 {
                100.0 * spin / vcpu_ns
            } else {
                0.0
            };
        }
        out
    }
}
