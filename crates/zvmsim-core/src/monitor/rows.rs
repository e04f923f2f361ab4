//! Typed interval rows, built once per interval. Each row type lists its fields once; the same
//! declaration gives its serde form (summary.json, tests) and its columns (Arrow record batches
//! for Python), so adding a figure is one field here and its value where the row is built.

use serde::Serialize;

/// One column of a table of rows, in Arrow's primitive layouts.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

/// A table of rows as named columns, in the row type's field order.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    pub names: Vec<&'static str>,
    pub columns: Vec<Column>,
}

/// A row field's column type.
pub trait ColumnValue: Sized {
    fn column(values: Vec<Self>) -> Column;
}

impl ColumnValue for u64 {
    fn column(values: Vec<Self>) -> Column {
        Column::U64(values)
    }
}
impl ColumnValue for u32 {
    fn column(values: Vec<Self>) -> Column {
        Column::U64(values.into_iter().map(u64::from).collect())
    }
}
impl ColumnValue for f64 {
    fn column(values: Vec<Self>) -> Column {
        Column::F64(values)
    }
}
/// A figure only some releases have (the aging list's, from z/VM 6.3): 0 in the column where
/// the release has none; the row's serde form leaves it out.
impl ColumnValue for Option<u64> {
    fn column(values: Vec<Self>) -> Column {
        Column::U64(values.into_iter().map(|v| v.unwrap_or(0)).collect())
    }
}
impl ColumnValue for Option<f64> {
    fn column(values: Vec<Self>) -> Column {
        Column::F64(values.into_iter().map(|v| v.unwrap_or(0.0)).collect())
    }
}
impl ColumnValue for String {
    fn column(values: Vec<Self>) -> Column {
        Column::Str(values)
    }
}

macro_rules! rows {
    ($( $(#[doc = $doc:expr])* $name:ident { $( $(#[$m:meta])* $f:ident : $t:ty, )* } )*) => {
        $(
            $(#[doc = $doc])*
            #[derive(Debug, Clone, Default, Serialize)]
            pub struct $name { $( $(#[$m])* pub $f: $t, )* }
            impl $name {
                /// The rows as columns.
                pub fn columns(rows: &[$name]) -> Columns {
                    Columns {
                        names: vec![$( stringify!($f) ),*],
                        columns: vec![$(
                            ColumnValue::column(rows.iter().map(|r| r.$f.clone()).collect())
                        ),*],
                    }
                }
            }
        )*
    };
}

rows! {
    /// One guest over one interval (the Performance Toolkit's user and user-paging screens,
    /// with the guest's Linux view).
    GuestRow {
        interval: u32,
        t_start_s: f64,
        t_end_s: f64,
        guest: String,
        tx: u64,
        throughput_tx_per_s: f64,
        response_ms: f64,
        /// The longest transaction that ended in the interval.
        response_max_ms: f64,
        cpu_pct: f64,
        /// CP time spent for the guest, in % of one IFL.
        cp_pct: f64,
        resident_pages: u64,
        pages_resident_below_2g: u64,
        pages_resident_above_2g: u64,
        pages_xstor: u64,
        pages_dasd: u64,
        linux_free_pages: u64,
        linux_cached_pages: u64,
        linux_anon_pages: u64,
        linux_swap_used_pages: u64,
        db_reads_per_s: f64,
        db_writes_per_s: f64,
        page_faults_dasd_per_s: f64,
        page_faults_xstor_per_s: f64,
        pgscan_kswapd_per_s: f64,
        pgscan_direct_per_s: f64,
        pgmajfault_per_s: f64,
        pswpin_per_s: f64,
        pswpout_per_s: f64,
        double_paging_per_s: f64,
        /// CMMA: the guest's pages in the unused, volatile and stable states (stable: the
        /// rest of its storage; 0 for a guest without CMMA, whose pages are all stable).
        cmma_unused_pages: u64,
        cmma_volatile_pages: u64,
        cmma_stable_pages: u64,
        /// CMMA: frames CP reclaimed without a page-out, per second.
        cmma_reclaimed_per_s: f64,
        /// CMMA: discard faults (clean page-cache pages read again), per second.
        discard_faults_per_s: f64,
        /// CMMA: ESSA page-state changes, per second.
        essa_per_s: f64,
        /// The cmm balloon at the interval's end: the static pool (/proc/sys/vm/cmm_pages),
        /// the timed pool (cmm_timed_pages), and the static pool's target (the last
        /// `CMM SHRINK n` or cmm_pages write).
        cmm_pages: u64,
        cmm_timed_pages: u64,
        cmm_pages_target: u64,
        /// Balloon pages given to CP (DIAGNOSE X'10') per second.
        cmm_diag10_pages_per_s: f64,
        /// VMRM's notifications (`CMM SHRINK` SMSGs) to the guest in the interval.
        vmrm_notifications: u64,
        /// Apache runs' file servers (left out otherwise): the share of the interval the
        /// guest waited for file reads and host page faults, the Performance Toolkit's I/O
        /// wait, %.
        #[serde(skip_serializing_if = "Option::is_none")]
        io_wait_pct: Option<f64>,
    }

    /// The LPAR over one interval (system, storage and paging screens). Page counts are
    /// samples at the interval's end, as monitor sample records are.
    SystemRow {
        interval: u32,
        t_start_s: f64,
        t_end_s: f64,
        throughput_tx_per_s: f64,
        cpu_lpar_pct: f64,
        cpu_guests_pct: f64,
        /// All CP time: spent for guests plus CP's own system work.
        cpu_cp_pct: f64,
        /// CP time not spent for any guest (CP's own system work).
        cpu_cp_system_pct: f64,
        ifl_utilization_pct: f64,
        /// Virtual CPUs waiting for an IFL in the dispatch list, time-weighted mean.
        dispatch_list_avg: f64,
        pages_resident: u64,
        pages_resident_below_2g: u64,
        pages_resident_above_2g: u64,
        pages_xstor: u64,
        pages_dasd: u64,
        pages_not_in_memory: u64,
        real_overcommit_pct: f64,
        available_frames: u64,
        available_below_2g: u64,
        pgmbk_frames: u64,
        ms_to_xs_per_s: f64,
        xs_to_ms_per_s: f64,
        xs_to_dasd_per_s: f64,
        ms_to_dasd_per_s: f64,
        dasd_to_ms_per_s: f64,
        steals_per_s: f64,
        /// Frames of block-read pages taken back unreferenced (block paging), per second.
        companions_stolen_per_s: f64,
        /// Frames and XSTOR blocks reclaimed without a page-out (CMMA), per second.
        cmma_reclaimed_per_s: f64,
        /// z/VM 5.2: block page-ins whose frames waited for the available list's lock, per
        /// second (deferred frame requests).
        frames_deferred_per_s: f64,
        frames_scanned_per_s: f64,
        demand_scans: u64,
        below_2g_scans_per_s: f64,
        pgmbk_allocs_per_s: f64,
        pagein_blocks_per_s: f64,
        paging_io_per_s: f64,
        paging_service_ms: f64,
        paging_wait_ms: f64,
        /// SMSGs (`CMM SHRINK n`) VMRM sent in the interval.
        vmrm_notifications: u64,
        /// The guests' virtual I/O requests per second; the real I/Os started on DASD volumes
        /// per second (user, paging and spool volumes); the reads CP's minidisk cache answered
        /// without a real I/O per second; the share of minidisk-cache lookups that hit; the
        /// frames the cache holds at the interval's end.
        virtual_io_per_s: f64,
        dasd_io_per_s: f64,
        dasd_avoid_per_s: f64,
        mdc_hit_pct: f64,
        mdc_frames: u64,
        /// z/VM 6.3 and later (left out of the rows of earlier releases): the global aging
        /// list's size in frames (SET AGELIST SIZE) and the frames on it at the interval's
        /// end; per second, frames trial-invalidated onto it, frames reclaimed from its head,
        /// pages revalidated on it (faults resolved without I/O), pages written early, and
        /// kept slots given up because paging space was past `keepslot_release_full`.
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_target_frames: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_frames: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_invalidated_per_s: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_reclaimed_per_s: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_revalidated_per_s: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_early_writes_per_s: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agelist_slots_released_per_s: Option<f64>,
        /// Runs with `paging.cache` (left out otherwise): the share of paging reads whose
        /// block the storage server still had in its cache, %.
        #[serde(skip_serializing_if = "Option::is_none")]
        paging_read_hit_pct: Option<f64>,
        /// Runs with the apache workload (left out otherwise): real DASD's (all volumes) mean
        /// service and response time and I/Os queued (time-weighted), frames of saved
        /// segments' shared copies.
        #[serde(skip_serializing_if = "Option::is_none")]
        dasd_service_ms: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dasd_response_ms: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dasd_queue: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        resident_shared_frames: Option<u64>,
        /// Runs with the apache workload (left out otherwise): the interval's figures under the
        /// Performance Toolkit's names, as the summary's `web` section has them for the run
        /// (seed 001): CP and guest (emulation) CPU ms per transaction, the LPAR's use per
        /// processor, DASD paging I/Os per second, user pages resident and on DASD, and the
        /// available frames below and above 2 GB.
        #[serde(skip_serializing_if = "Option::is_none")]
        cp_msec_per_tx: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        emul_msec_per_tx: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total_util_per_proc_pct: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dasd_paging_per_s: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        resident_pages_total: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        resident_pages_dasd: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        avail_list_below_2g: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        avail_list_above_2g: Option<u64>,
        /// Runs with an application server's program text as files (left out otherwise):
        /// pages of the saved segments' shared copies loaded, resident, in XSTOR, on DASD.
        #[serde(skip_serializing_if = "Option::is_none")]
        dcss_loaded_pages: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dcss_resident_pages: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dcss_xstor_pages: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dcss_dasd_pages: Option<u64>,
    }
}

rows! {
    /// One paging volume over one interval (the Performance Toolkit's CP-owned device screen):
    /// its slots as QUERY ALLOC PAGE counts them at the interval's end, and its I/O.
    PagingVolumeRow {
        interval: u32,
        t_start_s: f64,
        t_end_s: f64,
        volid: String,
        rdev: String,
        /// The 3390 model ("" when the scenario gives slots without volumes).
        model: String,
        slots: u64,
        slots_used: u64,
        used_pct: f64,
        /// Paging I/Os (block reads and writes, each one channel program) and the pages they moved.
        io_per_s: f64,
        pages_per_s: f64,
        /// Mean service time and time queued for the volume, per I/O.
        service_ms: f64,
        queue_ms: f64,
        /// Time the volume was serving I/O, in % of the interval.
        busy_pct: f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_the_fields() {
        let rows = vec![
            GuestRow {
                interval: 1,
                guest: "LNX01".into(),
                cpu_pct: 12.5,
                ..Default::default()
            },
            GuestRow {
                interval: 2,
                guest: "LNX02".into(),
                ..Default::default()
            },
        ];
        let c = GuestRow::columns(&rows);
        assert_eq!(c.names.len(), c.columns.len());
        assert_eq!(c.names[0], "interval");
        assert_eq!(c.columns[0], Column::U64(vec![1, 2]));
        assert_eq!(
            c.columns[3],
            Column::Str(vec!["LNX01".into(), "LNX02".into()])
        );
        let cpu = c.names.iter().position(|n| *n == "cpu_pct").unwrap();
        assert_eq!(c.columns[cpu], Column::F64(vec![12.5, 0.0]));
    }
}
