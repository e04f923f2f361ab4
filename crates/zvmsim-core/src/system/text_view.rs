//! Seed 000's "Location of the DCSS pages" (Figures 18-20), and seed 001's DCSS pages: in runs
//! that can have saved segments (a `[spool]` for them) or whose application server runs its
//! program text from files (`[workloads.W.appserver.text]`), the system rows carry where the
//! saved segments' shared pages are: loaded (anywhere), resident in central storage, in
//! XSTOR, on paging DASD. Each shared copy is counted once, however many guests use it. Left
//! out of other runs' rows.

use crate::monitor::rows::SystemRow;
use crate::monitor::summary::DcssPages;

use super::Simulation;

impl Simulation {
    /// The run can have saved segments, or has an application server with program text as
    /// files.
    fn segment_run(&self) -> bool {
        self.scenario.spool.is_some()
            || self
                .scenario
                .workloads
                .values()
                .any(|w| w.appserver.as_ref().is_some_and(|a| a.text.is_some()))
    }

    /// The web fields of the row (web_view.rs) and, in a segment run, the segments' pages.
    pub(super) fn text_row(&self, now: u64) -> SystemRow {
        let row = self.web_row(now);
        if !self.segment_run() {
            return row;
        }
        let c = self.m.storage.segment_counts();
        SystemRow {
            dcss_loaded_pages: Some(c.loaded),
            dcss_resident_pages: Some(c.resident),
            dcss_xstor_pages: Some(c.xstor),
            dcss_dasd_pages: Some(c.dasd),
            ..row
        }
    }

    /// The summary's means of the segments' pages over the measured rows (segment runs only).
    pub(super) fn dcss_pages(&self) -> Option<DcssPages> {
        if !self.segment_run() {
            return None;
        }
        let rows = &self.mon.sys_rows;
        let n = rows.len().max(1) as f64;
        let mean = |f: fn(&SystemRow) -> Option<u64>| {
            rows.iter().map(|r| f(r).unwrap_or(0) as f64).sum::<f64>() / n
        };
        Some(DcssPages {
            dcss_loaded_pages: mean(|r| r.dcss_loaded_pages),
            dcss_resident_pages: mean(|r| r.dcss_resident_pages),
            dcss_resident_pages_max: rows
                .iter()
                .filter_map(|r| r.dcss_resident_pages)
                .max()
                .unwrap_or(0),
            dcss_xstor_pages: mean(|r| r.dcss_xstor_pages),
            dcss_dasd_pages: mean(|r| r.dcss_dasd_pages),
        })
    }
}
