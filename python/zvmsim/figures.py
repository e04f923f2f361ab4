"""What every figure of a run means: units, descriptions (`zvmsim explain`, docs/glossary.md) and
how the report groups them.

The result tables' columns are the source of truth: a column that appears in intervals.parquet or
system.parquet is drawn by `zvmsim report` whether or not it is listed here. Entries here only
give it a better title, a unit and a sentence of explanation.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

# Columns that identify a row rather than measure something.
ID_COLUMNS = ("interval", "t_start_s", "t_end_s", "guest", "volid", "rdev", "model")


@dataclass(frozen=True)
class Figure:
    name: str
    unit: str
    text: str
    where: str  # "system", "guest", "both" (interval tables), "volume" (paging.parquet) or "summary"


def _f(where: str, unit: str, text: str) -> Tuple[str, str, str]:
    return where, unit, text


# name -> (where, unit, description). Interval figures are rates or levels over one interval;
# page counts are samples at the interval's end; the summary averages the measured intervals.
_GLOSSARY: Dict[str, Tuple[str, str, str]] = {
    # Throughput and response
    "throughput_tx_per_s": _f("both", "tx/s", "Transactions completed per second (all guests, or one guest)."),
    "tx": _f("guest", "tx", "Transactions the guest completed in the interval."),
    "transactions": _f("summary", "tx", "Transactions completed in the measured window."),
    "response_ms": _f("both", "ms", "Mean transaction response time: from a user's request to its completion."),
    "response_max_ms": _f("guest", "ms", "The longest transaction that ended in the interval (window)."),
    "cpu_ms_per_tx": _f("summary", "ms", "IFL time (guests and CP) per transaction."),
    "wait_db_read_ms_per_tx": _f("summary", "ms", "Time a transaction waited for database reads, per transaction."),
    "wait_page_fault_ms_per_tx": _f("summary", "ms",
                                    "Time a transaction waited for CP page faults (XSTOR or DASD), per transaction."),
    "wait_swap_in_ms_per_tx": _f("summary", "ms", "Time a transaction waited for Linux swap-ins, per transaction."),
    "wait_swap_in_ms": _f("summary", "ms", "A guest's total wait for Linux swap-ins in the window."),
    # Processor
    "cpu_lpar_pct": _f("system", "%", "IFL time used in the LPAR (guests plus CP), in % of one IFL "
                                      "(10 busy IFLs are 1000 %)."),
    "cpu_guests_pct": _f("system", "%", "IFL time spent running guests (emulation time), in % of one IFL."),
    "cpu_cp_pct": _f("system", "%", "All CP time: spent for guests plus CP's own system work, in % of one IFL."),
    "cpu_cp_system_pct": _f("system", "%", "CP time not charged to any guest (CP's own system work), % of one IFL."),
    "ifl_utilization_pct": _f("system", "%", "Mean utilization of the LPAR's IFLs (100 % is all IFLs busy)."),
    "dispatch_list_avg": _f("system", "vCPUs", "Virtual CPUs waiting for an IFL in the dispatch list, "
                                               "time-weighted mean."),
    "cpu_pct": _f("guest", "%", "IFL time the guest's virtual CPUs ran (emulation), in % of one IFL."),
    "cp_pct": _f("guest", "%", "CP time spent for the guest (its page faults, I/O, ...), in % of one IFL."),
    # Page locations
    "pages_resident": _f("system", "pages", "Guest pages resident in central storage (4 KB frames)."),
    "resident_pages": _f("guest", "pages", "The guest's pages resident in central storage."),
    "pages_resident_below_2g": _f("both", "pages", "Resident pages in frames below the 2 GB line."),
    "pages_resident_above_2g": _f("both", "pages", "Resident pages in frames above the 2 GB line."),
    "pages_xstor": _f("both", "pages", "Pages held in expanded storage (XSTOR), one 4 KB block each."),
    "pages_dasd": _f("both", "pages", "Pages whose only copy is on the DASD paging volumes."),
    "pages_not_in_memory": _f("system", "pages", "Guest pages not in central storage (in XSTOR or on DASD)."),
    "pages_guest_virtual": _f("summary", "pages", "All guests' virtual storage, in pages."),
    "real_overcommit_pct": _f("system", "%", "Guest pages in use beyond central storage, in % of central "
                                             "storage: (resident + XSTOR + DASD) / central - 100."),
    "planned_overcommit_pct": _f("summary", "%", "Guest virtual storage beyond central storage, in % of "
                                                 "central storage, as sized in the user directory."),
    "frames_central": _f("summary", "frames", "Central storage frames of the LPAR."),
    "xstor_blocks": _f("summary", "blocks", "Expanded storage blocks of the LPAR (4 KB each)."),
    "paging_slots": _f("summary", "slots", "Page slots on the paging volumes (as QUERY ALLOC PAGE shows)."),
    "available_frames": _f("system", "frames", "Frames on CP's available lists at the interval's end."),
    "available_below_2g": _f("system", "frames", "Available frames below the 2 GB line."),
    "pgmbk_frames": _f("system", "frames", "Frames holding page management blocks (PGMBKs)."),
    # Page movement
    "ms_to_xs_per_s": _f("system", "pages/s", "Pages moved from main storage to XSTOR per second."),
    "xs_to_ms_per_s": _f("system", "pages/s", "Pages brought from XSTOR back to main storage per second."),
    "xs_to_dasd_per_s": _f("system", "pages/s", "Pages migrated from XSTOR to DASD per second."),
    "ms_to_dasd_per_s": _f("system", "pages/s", "Pages written from main storage directly to DASD per second."),
    "dasd_to_ms_per_s": _f("system", "pages/s", "Pages read from DASD into main storage per second."),
    "steals_per_s": _f("system", "frames/s", "Frames taken from guests by the demand scan per second."),
    "companions_stolen_per_s": _f("system", "frames/s", "Block paging: frames of pages a block read brought in "
                                                        "and nobody referenced, taken back first, per second "
                                                        "(z/VM 6.3+: reclaimed from the aging list, where they "
                                                        "came in invalid)."),
    "frames_deferred_per_s": _f("system", "/s", "z/VM 5.2: block page-ins whose frames waited for the available "
                                                "list's lock (deferred frame requests) per second."),
    "agelist_target_frames": _f("system", "frames", "z/VM 6.3+: the global aging list's size (SET AGELIST SIZE) "
                                                   "in frames."),
    "agelist_frames": _f("system", "frames", "z/VM 6.3+: frames on the global aging list (invalidated, still "
                                            "holding their pages)."),
    "agelist_invalidated_per_s": _f("system", "frames/s", "z/VM 6.3+: frames put on the aging list by trial "
                                                         "invalidation per second."),
    "agelist_reclaimed_per_s": _f("system", "frames/s", "z/VM 6.3+: frames reclaimed from the aging list's head "
                                                       "per second."),
    "agelist_revalidated_per_s": _f("system", "/s", "z/VM 6.3+: references to pages on the aging list, "
                                                   "revalidated without I/O, per second."),
    "agelist_early_writes_per_s": _f("system", "pages/s", "z/VM 6.3+: changed pages near the aging list's head "
                                                         "written to DASD ahead of need (EARLYWRITES YES) per "
                                                         "second."),
    "agelist_slots_released_per_s": _f("system", "slots/s", "z/VM 6.3+: DASD slots of pages read back given "
                                                            "up per second although KEEPSLOT is YES, because "
                                                            "paging space was past model.keepslot_release_full."),
    "frames_scanned_per_s": _f("system", "frames/s", "Frames the demand scan examined per second."),
    "demand_scans": _f("system", "scans", "Demand scans started in the interval."),
    "below_2g_scans_per_s": _f("system", "scans/s", "Scans for frames below 2 GB per second."),
    "pgmbk_allocs_per_s": _f("system", "/s", "Page management blocks allocated per second."),
    "pagein_blocks_per_s": _f("system", "blocks/s", "Block page-ins (several pages read in one I/O) per second."),
    "page_faults_xstor_per_s": _f("guest", "/s", "The guest's page faults resolved from XSTOR per second."),
    "page_faults_dasd_per_s": _f("guest", "/s", "The guest's page faults that read DASD per second."),
    "page_faults_xstor": _f("summary", "faults", "A guest's page faults resolved from XSTOR in the window."),
    "page_faults_dasd": _f("summary", "faults", "A guest's page faults that read DASD in the window."),
    "page_faults_vcpu_stopped": _f("summary", "faults", "Of a guest's DASD page faults, those that stopped its virtual CPU "
                                   "until the page-in ended (kernel mode, or no pfault)."),
    # Paging and user I/O
    "paging_io_per_s": _f("system", "I/O/s", "I/O requests to the paging volumes per second."),
    # One paging volume (paging.parquet, FCX109 CPOWNED)
    "slots": _f("volume", "slots", "Page slots on the paging volume (QUERY ALLOC PAGE's TOTAL PAGES)."),
    "slots_used": _f("volume", "slots", "Slots in use on the volume at the interval's end "
                                        "(QUERY ALLOC PAGE's PAGES IN USE)."),
    "used_pct": _f("volume", "%", "Slots in use in % of the volume's slots."),
    "io_per_s": _f("volume", "I/O/s", "Paging I/Os (block reads and writes) to the volume per second."),
    "pages_per_s": _f("volume", "pages/s", "Pages the volume's paging I/Os moved per second."),
    "service_ms": _f("volume", "ms", "Mean service time of one of the volume's paging I/Os."),
    "queue_ms": _f("volume", "ms", "Mean time a paging I/O waited for the volume before its service."),
    "busy_pct": _f("volume", "%", "Time the volume served paging I/O, in % of the interval (counted when an I/O "
                                  "starts, so a saturated volume can show a little over 100)."),
    "paging_service_ms": _f("system", "ms", "Mean service time of a paging I/O (the device busy with it)."),
    "paging_wait_ms": _f("system", "ms", "Mean time a paging I/O waited for its volume before service."),
    "virtual_io_per_s": _f("system", "I/O/s", "Virtual I/O requests the guests started per second (minidisks, attached devices, VDISKs), answered by a real I/O or by CP's minidisk cache."),
    "dasd_io_per_s": _f("system", "I/O/s", "Real I/Os started on DASD volumes per second (user, paging and spool volumes)."),
    "dasd_avoid_per_s": _f("system", "I/O/s", "Minidisk reads CP's minidisk cache answered per second without a real I/O (DASD avoid rate)."),
    "dasd_service_ms": _f("system", "ms", "Apache runs: mean service time of a real DASD I/O, all volumes (device busy with it)."),
    "dasd_response_ms": _f("system", "ms", "Apache runs: mean response time of a real DASD I/O, all volumes (queue wait plus service)."),
    "dasd_queue": _f("system", "I/Os", "Apache runs: I/Os waiting for their DASD volume, time-weighted mean over all volumes."),
    "resident_shared_frames": _f("system", "frames", "Apache runs: frames holding pages of saved segments' shared copies (each counted once)."),
    "dcss_loaded_pages": _f("system", "pages", "Runs with saved segments (a [spool]) or program text as files: pages of saved segments' shared copies loaded (resident, in XSTOR or on DASD; each counted once)."),
    "dcss_resident_pages": _f("system", "pages", "Runs with saved segments (a [spool]) or program text as files: pages of saved segments' shared copies resident in central storage."),
    "dcss_resident_pages_max": _f("summary", "pages", "Runs with saved segments (a [spool]) or program text as files: the largest interval sample of dcss_resident_pages in the window."),
    "dcss_xstor_pages": _f("system", "pages", "Runs with saved segments (a [spool]) or program text as files: pages of saved segments' shared copies in XSTOR."),
    "dcss_dasd_pages": _f("system", "pages", "Runs with saved segments (a [spool]) or program text as files: DASD slots of saved segments' shared copies (a resident or XSTOR page may keep its slot; a read-only segment's pages never have one)."),
    "cp_msec_per_tx": _f("system", "ms", "Apache runs: CP time (for the guests and CP's own) per transaction, per interval "
                                       "and in the summary's web section (the run's)."),
    "emul_msec_per_tx": _f("system", "ms", "Apache runs: guest (emulation) time per transaction, per interval and in the "
                                         "summary's web section."),
    "total_util_per_proc_pct": _f("system", "%", "Apache runs: LPAR busy per processor, per interval and in the summary's "
                                              "web section."),
    "io_wait_pct": _f("guest", "%", "Apache runs: share of the interval a file server's connections waited for reads "
                                    "(file I/O, host page-ins); the summary's web section has the window's, mean over "
                                    "the servers."),
    "dasd_paging_per_s": _f("system", "I/O/s", "Apache runs: paging I/Os per second, the Performance Toolkit's DASD paging "
                                            "rate (paging_io_per_s), per interval and in the summary's web section."),
    "avail_list_below_2g": _f("system", "frames", "Apache runs: available frames below the 2 GB line at the interval's end; "
                                              "the summary's web section has their mean."),
    "avail_list_above_2g": _f("system", "frames", "Apache runs: available frames above the 2 GB line at the interval's end; "
                                              "the summary's web section has their mean."),
    "resident_pages_total": _f("system", "pages", "Apache runs: resident user pages at the interval's end; the summary's web "
                                               "section has their mean."),
    "resident_pages_dasd": _f("system", "pages", "Apache runs: pages on DASD paging slots at the interval's end; the "
                                              "summary's web section has their mean."),
    "paging_read_hit_pct": _f("system", "%", "With paging.cache: share of CP's paging reads whose block was still "
                              "in the storage server's cache."),
    "mdc_hit_pct": _f("system", "%", "Share of the minidisk-cache lookups whose tracks were all in the cache."),
    "mdc_frames": _f("system", "frames", "Frames of central storage CP's minidisk cache holds (CP-owned, taken from the available list)."),
    "db_reads_per_s": _f("guest", "I/O/s", "Database reads the guest issued to its user DASD per second."),
    "db_writes_per_s": _f("guest", "I/O/s", "Database writes the guest issued to its user DASD per second."),
    "db_buffer_hit_ratio": _f("summary", "ratio", "Share of database references found in the buffer pool."),
    "db_reads": _f("summary", "I/Os", "Database reads a guest issued to its user DASD in the window."),
    "db_writes": _f(
        "summary", "I/Os", "Database writes a guest issued in the window: buffers the pool's clock evicted dirty."
    ),
    # Linux memory
    "linux_free_pages": _f("guest", "pages", "Linux free memory (MemFree) at the interval's end."),
    "linux_cached_pages": _f("guest", "pages", "Linux page cache (Cached) at the interval's end."),
    "linux_anon_pages": _f("guest", "pages", "Linux anonymous memory (AnonPages) at the interval's end."),
    "linux_swap_used_pages": _f("guest", "pages", "Linux swap in use (SwapTotal - SwapFree) at the interval's end."),
    "swap_used_pages": _f("summary", "pages", "A guest's Linux swap in use at the window's end."),
    "pgscan_kswapd_per_s": _f("guest", "pages/s", "Pages kswapd scanned per second (/proc/vmstat pgscan_kswapd)."),
    "pgscan_direct_per_s": _f("guest", "pages/s", "Pages scanned by direct reclaim per second (pgscan_direct)."),
    "pgmajfault_per_s": _f("guest", "/s", "Linux major faults per second (pgmajfault)."),
    "pswpin_per_s": _f("guest", "pages/s", "Pages Linux swapped in per second (pswpin)."),
    "pswpout_per_s": _f("guest", "pages/s", "Pages Linux swapped out per second (pswpout)."),
    "double_paging_per_s": _f("guest", "/s", "Linux page-outs of pages CP had already paged out (double "
                                             "paging) per second."),
    "pgmajfault": _f("summary", "faults", "A guest's Linux major faults in the window."),
    "pgscan_direct": _f("summary", "pages", "Pages a guest's direct reclaim scanned in the window."),
    "pgscan_kswapd": _f("summary", "pages", "Pages a guest's kswapd scanned in the window."),
    "pswpin": _f("summary", "pages", "Pages a guest swapped in in the window."),
    "pswpout": _f("summary", "pages", "Pages a guest swapped out in the window."),
    "guest_pgmajfault": _f("summary", "faults", "All guests' Linux major faults in the window."),
    "guest_pswpin": _f("summary", "pages", "All guests' Linux swap-ins in the window."),
    "guest_pswpout": _f("summary", "pages", "All guests' Linux swap-outs in the window."),
    "guest_double_paging": _f("summary", "pages", "All guests' double paging in the window."),
    "guest_swap_used_pages": _f("summary", "pages", "All guests' Linux swap in use at the window's end."),
    "guest_pgscand": _f("summary", "pages", "All guests' direct-reclaim scans in the window."),
    "guest_pgscan_kswapd": _f("summary", "pages", "All guests' kswapd scans in the window."),
    # CMMA and VMRM-CMM
    "cmma_unused_pages": _f("both", "pages", "CMMA: the guest's pages in the unused state."),
    "cmma_volatile_pages": _f("both", "pages", "CMMA: the guest's pages in the volatile state."),
    "cmma_stable_pages": _f("both", "pages", "CMMA: the guest's pages in the stable state (0 without CMMA, "
                                             "where every page is stable)."),
    "cmma_reclaimed_per_s": _f("both", "frames/s", "CMMA: frames and XSTOR blocks CP reclaimed without a "
                                                  "page-out per second."),
    "discard_faults_per_s": _f("guest", "/s", "CMMA: discard faults (clean page-cache pages read again) per second."),
    "discard_faults": _f("summary", "faults", "CMMA: a guest's discard faults in the window."),
    "essa_per_s": _f("guest", "/s", "CMMA: ESSA page-state changes per second."),
    "guest_discard_faults": _f("summary", "faults", "CMMA: all guests' discard faults in the window."),
    "guest_db_writes": _f("summary", "I/Os", "All guests' database writes in the window."),
    "guest_essa": _f("summary", "changes", "CMMA: all guests' ESSA page-state changes in the window."),
    "cmma_guests": _f("summary", "guests", "Guests running with CMMA."),
    "cmma": _f("summary", "", "Whether the guest runs with CMMA."),
    "cmm_pages": _f("guest", "pages", "The cmm balloon's static pool (/proc/sys/vm/cmm_pages)."),
    "cmm_timed_pages": _f("guest", "pages", "The cmm balloon's timed pool (cmm_timed_pages)."),
    "cmm_pages_target": _f("guest", "pages", "The static pool's target (the last CMM SHRINK or cmm_pages write)."),
    "cmm_pages_mean": _f("summary", "pages", "A guest's static cmm pool, mean over the window."),
    "cmm_diag10_pages_per_s": _f("guest", "pages/s", "Balloon pages given to CP (DIAGNOSE X'10') per second."),
    "cmm_diag10_pages": _f("summary", "pages", "Balloon pages a guest gave to CP in the window."),
    "vmrm_notifications": _f("both", "SMSGs", "CMM SHRINK messages VMRM sent in the interval (all guests, or to one)."),
    # Run identity and accounting
    "guests_count": _f("summary", "guests", "Guests logged on."),
    "intervals": _f("summary", "intervals", "Statistics intervals in the measured window."),
    "measured_seconds": _f("summary", "s", "Simulated seconds measured (after priming)."),
    "sim_seconds": _f("summary", "s", "Simulated seconds, priming included."),
    "events": _f("summary", "events", "Simulation events processed."),
    "seed": _f("summary", "", "The random seed of the run."),
    "wall_seconds": _f("summary", "s", "Wall-clock seconds the run took (depends on the host)."),
    "events_per_second": _f("summary", "events/s", "Events processed per wall-clock second (depends on the host)."),
}

UNIT_SUFFIXES = (
    ("_tx_per_s", "tx/s"), ("_pages_per_s", "pages/s"), ("_per_s", "/s"), ("_pct", "%"), ("_ms", "ms"),
    ("_seconds", "s"), ("_pages", "pages"), ("_frames", "frames"),
)


def unit_of(name: str) -> str:
    if name in _GLOSSARY:
        return _GLOSSARY[name][1]
    if name.startswith("pages_"):
        return "pages"
    for suffix, unit in UNIT_SUFFIXES:
        if name.endswith(suffix):
            return unit
    return ""


def is_count(name: str) -> bool:
    """Figures counted in whole units (pages, frames, blocks): shown without decimals."""
    return unit_of(name) in ("pages", "frames", "blocks", "slots", "tx", "faults")


def title_of(name: str) -> str:
    """A readable title: "ms_to_xs_per_s" -> "ms to xs"."""
    base = name
    for suffix in ("_tx_per_s", "_per_s", "_pct", "_ms"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return base.replace("_", " ")


def lookup(name: str) -> Optional[Figure]:
    entry = _GLOSSARY.get(name)
    if entry is None:
        return None
    where, unit, text = entry
    return Figure(name, unit, text, where)


def glossary() -> List[Figure]:
    return [Figure(n, u, t, w) for n, (w, u, t) in sorted(_GLOSSARY.items())]


def suggestions(name: str, known: Iterable[str]) -> List[str]:
    return difflib.get_close_matches(name, list(known), n=5, cutoff=0.5)


def missing_from_glossary(columns: Sequence[str]) -> List[str]:
    return sorted(c for c in columns if c not in ID_COLUMNS and c not in _GLOSSARY)


def glossary_markdown() -> str:
    """docs/glossary.md, generated from this module (a test keeps the two in step)."""
    lines = [
        "# Glossary of figures",
        "",
        "Every figure zvmsim writes: in `intervals.parquet` (per guest and interval), `system.parquet`",
        "(per interval), `paging.parquet` (per paging volume and interval) and `summary.json` (the",
        "measured window). Rates are per simulated second over",
        "the interval; page counts are samples at the interval's end; the summary averages the",
        "measured intervals. `zvmsim explain FIGURE` prints one entry. Generated from",
        "`python/zvmsim/figures.py`.",
        "",
        "| figure | unit | where | meaning |",
        "| --- | --- | --- | --- |",
    ]
    where_text = {"system": "system", "guest": "per guest", "both": "system, per guest", "summary": "summary",
                  "volume": "per paging volume"}
    for f in glossary():
        lines.append(f"| `{f.name}` | {f.unit} | {where_text[f.where]} | {f.text} |")
    return "\n".join(lines) + "\n"
