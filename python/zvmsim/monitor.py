"""The interval figures as CP monitor sample records, by their IBM names (monitor.parquet).

z/VM's monitor writes sample records by domain and record number, e.g. D0R3 (MRSYTRSG, Real
Storage Data (Global)). zvmsim files each interval figure under the record that carries that
kind of data, one row per (interval, record, device, figure): a tool that reads monitor data by
record finds zvmsim's figures in the same place. Field names are zvmsim's (see docs/glossary.md),
not the records' field offsets. A figure no record carries (the workload's throughput, Linux's
own counters) stays in system.parquet and intervals.parquet only.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import polars as pl
import pyarrow as pa

# (domain, record, DSECT name, record title) -> system.parquet figures it carries.
SYSTEM_RECORDS: Dict[Tuple[int, int, str, str], Tuple[str, ...]] = {
    (0, 3, "MRSYTRSG", "Real Storage Data (Global)"): (
        "pages_resident", "pages_resident_below_2g", "pages_resident_above_2g", "available_frames",
        "available_below_2g", "pgmbk_frames", "pages_not_in_memory", "real_overcommit_pct"),
    # z/VM writes expanded storage data per processor; zvmsim's figures are the LPAR's.
    (0, 5, "MRSYTXSP", "Expanded Storage Data"): ("pages_xstor", "ms_to_xs_per_s", "xs_to_ms_per_s",
                                                  "xs_to_dasd_per_s"),
    (0, 6, "MRSYTASG", "Auxiliary Storage (Global)"): ("pages_dasd",),
    (0, 10, "MRSYTSCG", "Scheduler Activity (Global)"): ("dispatch_list_avg",),
    (0, 16, "MRSYTCUP", "CPU Utilization Data in a Logical Partition"): ("cpu_lpar_pct", "ifl_utilization_pct"),
    (0, 19, "MRSYTSYG", "System Data (Global)"): ("cpu_guests_pct", "cpu_cp_pct", "cpu_cp_system_pct"),
    (3, 1, "MRSTORSG", "Real Storage Management (Global)"): (
        "steals_per_s", "frames_scanned_per_s", "demand_scans", "below_2g_scans_per_s", "pgmbk_allocs_per_s",
        "ms_to_dasd_per_s", "dasd_to_ms_per_s", "pagein_blocks_per_s", "cmma_reclaimed_per_s"),
}
# D6R3 MRIODDEV, Device Activity: the paging volumes as one group, each guest's database DASD.
DEVICE_RECORD = (6, 3, "MRIODDEV", "Device Activity")
PAGING_DEVICE = ("paging_io_per_s", "paging_service_ms", "paging_wait_ms")
USER_DEVICE = ("db_reads_per_s", "db_writes_per_s")

SCHEMA = pa.schema([
    ("interval", pa.uint64()), ("t_end_s", pa.float64()), ("record", pa.string()), ("domain", pa.uint8()),
    ("record_no", pa.uint8()), ("dsect", pa.string()), ("title", pa.string()), ("device", pa.string()),
    ("figure", pa.string()), ("value", pa.float64()),
])


def _rows(df: pl.DataFrame, rec: Tuple[int, int, str, str], figures: Tuple[str, ...], device: str) -> List[dict]:
    dom, no, dsect, title = rec
    out = []
    present = [f for f in figures if f in df.columns]
    for r in df.iter_rows(named=True):
        for f in present:
            out.append({"interval": int(r["interval"]), "t_end_s": float(r["t_end_s"]), "record": f"D{dom}R{no}",
                        "domain": dom, "record_no": no, "dsect": dsect, "title": title, "device": device,
                        "figure": f, "value": float(r[f])})
    return out


def monitor_table(system: pl.DataFrame, intervals: pl.DataFrame) -> pa.Table:
    """monitor.parquet: one row per interval, record, device and figure."""
    rows: List[dict] = []
    for rec, figures in SYSTEM_RECORDS.items():
        rows += _rows(system, rec, figures, "")
    rows += _rows(system, DEVICE_RECORD, PAGING_DEVICE, "CP PAGE")
    if intervals.height and "guest" in intervals.columns:
        for (guest,), g in intervals.group_by(["guest"], maintain_order=True):
            rows += _rows(g, DEVICE_RECORD, USER_DEVICE, str(guest))
    rows.sort(key=lambda r: (r["interval"], r["domain"], r["record_no"], r["device"], r["figure"]))
    return pa.Table.from_pylist(rows, schema=SCHEMA)
