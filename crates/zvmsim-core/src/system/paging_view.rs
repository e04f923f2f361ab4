//! The paging volumes one by one, per interval (the Performance Toolkit's CP-owned device
//! screen): where CP's slots are and which volumes carry the paging I/O. CP takes the volumes
//! in turn (cp/storage/slots.rs), so once the smaller volumes of a mixed paging space are full
//! every new block goes to the larger ones; the summed figures of the system rows hide that.

use crate::config::scenario::DasdModel;
use crate::config::units::NS_PER_S;
use crate::cp::commands::paging_volume_id;
use crate::io::DevStats;
use crate::monitor::rows::{Columns, PagingVolumeRow};

use super::Simulation;

/// Device counts summed over volumes.
pub(super) fn sum_stats(vols: &[DevStats]) -> DevStats {
    let mut s = DevStats::default();
    for x in vols {
        s.ios += x.ios;
        s.pages += x.pages;
        s.busy_ns += x.busy_ns;
        s.wait_ns += x.wait_ns;
    }
    s
}

impl Simulation {
    /// Each paging volume's device counts since IPL, in the volumes' order.
    pub(super) fn paging_volume_stats(&self) -> Vec<DevStats> {
        self.m
            .paging_dev
            .iter()
            .map(|&d| self.m.io.stats(d))
            .collect()
    }

    /// The paging volumes' device counts, summed.
    pub(super) fn paging_stats(&self) -> DevStats {
        sum_stats(&self.paging_volume_stats())
    }

    /// The rows of the interval that ends at `now`: the volumes' counts `at_end`
    /// (`paging_volume_stats`) against those at its start.
    pub(super) fn build_paging_volume_rows(
        &self,
        now: u64,
        at_end: &[DevStats],
    ) -> Vec<PagingVolumeRow> {
        let span = (now - self.mon.start).max(1);
        let secs = span as f64 / NS_PER_S as f64;
        let vols = self.scenario.paging_volumes();
        let usage = self.m.storage.volume_usage();
        let at_start = &self.mon.volumes;
        at_end
            .iter()
            .enumerate()
            .map(|(k, &s)| {
                let m = at_start.get(k).copied().unwrap_or_default();
                let ios = s.ios - m.ios;
                let per_io = |ns: u64| ns as f64 / ios.max(1) as f64 / 1e6;
                let (volid, rdev) = paging_volume_id(k);
                let u = usage.get(k);
                let (slots, used) = u.map_or((0, 0), |u| (u.slots, u.used));
                PagingVolumeRow {
                    interval: self.mon.no,
                    t_start_s: self.mon.start as f64 / NS_PER_S as f64,
                    t_end_s: now as f64 / NS_PER_S as f64,
                    volid,
                    rdev: format!("{rdev:04X}"),
                    model: vols
                        .get(k)
                        .and_then(|v| v.model)
                        .map_or("", DasdModel::name)
                        .to_string(),
                    slots,
                    slots_used: used,
                    used_pct: 100.0 * used as f64 / slots.max(1) as f64,
                    io_per_s: ios as f64 / secs,
                    pages_per_s: (s.pages - m.pages) as f64 / secs,
                    service_ms: per_io(s.busy_ns - m.busy_ns),
                    queue_ms: per_io(s.wait_ns - m.wait_ns),
                    busy_pct: 100.0 * (s.busy_ns - m.busy_ns) as f64 / span as f64,
                }
            })
            .collect()
    }

    /// Per-interval rows of the paging volumes, one per (interval, volume).
    pub fn paging_volume_rows(&self) -> &[PagingVolumeRow] {
        &self.mon.vol_rows
    }

    /// The paging-volume rows as columns (for Arrow).
    pub fn paging_volume_columns(&self) -> Columns {
        PagingVolumeRow::columns(&self.mon.vol_rows)
    }
}
