"""Text reports in the layout and naming of the Performance Toolkit's FCX reports.

Each report covers the measured intervals, one line per interval (or per user), then the mean
over the window, with the toolkit's report ID and screen name in its header. A column is shown
only where the simulation has the figure: what zvmsim does not model (guest volumes' device data,
other partitions, spool, ...) is left out, not invented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import polars as pl

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Col:
    header: str  # one or two header lines, split by "|"
    width: int
    value: Callable[[Row], Any]
    decimals: int = 1


def _num(v: Any, width: int, decimals: int) -> str:
    if v is None:
        return "...".rjust(width)
    if decimals == 0:
        text = f"{round(float(v)):,}".replace(",", "")
        if len(text) > width:  # the toolkit's habit: scale big counts rather than overflow
            text = f"{float(v) / 1e3:.0f}k" if abs(v) < 1e8 else f"{float(v) / 1e6:.0f}M"
        return text.rjust(width)
    return f"{float(v):.{decimals}f}".rjust(width)


def _table(cols: Sequence[Col], rows: Sequence[Row], mean_row: Optional[Row] = None) -> List[str]:
    heads = [c.header.split("|") for c in cols]
    depth = max(len(h) for h in heads)
    lines = []
    for i in range(depth):
        parts = []
        for c, h in zip(cols, heads):
            text = h[i - (depth - len(h))] if i >= depth - len(h) else ""
            w = abs(c.width)
            parts.append(text.ljust(w) if c.width < 0 else text.rjust(w))
        lines.append(" ".join(parts).rstrip())
    rule = " ".join("<" + "-" * (abs(c.width) - 1) if c.width < 0 else "-" * abs(c.width) for c in cols)
    lines.append(rule)
    body: List[Row] = list(rows)
    for r in body:
        lines.append(" ".join(_cell(c, r) for c in cols).rstrip())
    if mean_row is not None:
        lines.append(rule)
        lines.append(" ".join(_cell(c, mean_row) for c in cols).rstrip())
    return lines


def _cell(c: Col, r: Row) -> str:
    try:
        v = c.value(r)
    except KeyError:
        v = None
    if isinstance(v, str):
        w = abs(c.width)
        return v[:w].ljust(w) if c.width < 0 else v[:w].rjust(w)
    return _num(v, abs(c.width), c.decimals)


def _clock(t_s: float) -> str:
    t = int(round(t_s))
    return f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}"


def _header(report_id: str, screen: str, title: str, summary: Mapping[str, Any], system: pl.DataFrame) -> List[str]:
    if system.height:
        start, end = float(system["t_start_s"].min()), float(system["t_end_s"].max())  # type: ignore[arg-type]
        period = f"From {_clock(start)} To {_clock(end)} ({system.height} intervals, simulated time)"
    else:
        period = "no measured interval"
    level = summary.get("zvm_level", "?")
    return [
        f"{report_id}  {screen:<8}  {title}",
        f"{period}  z/VM {level}  zvmsim {summary.get('version', '?')}",
        "",
    ]


def _mean(df: pl.DataFrame, label_col: str, label: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {label_col: label}
    for c in df.columns:
        if df[c].dtype.is_numeric():
            out[c] = df[c].mean()
    return out


def _has(df: pl.DataFrame, *cols: str) -> bool:
    return all(c in df.columns for c in cols)


def _keep(cols: Sequence[Optional[Col]]) -> List[Col]:
    return [c for c in cols if c is not None]


def _time_rows(system: pl.DataFrame) -> List[Dict[str, Any]]:
    return [dict(r, time=_clock(r["t_end_s"])) for r in system.iter_rows(named=True)]


def fcx102_system(summary: Mapping[str, Any], system: pl.DataFrame, intervals: pl.DataFrame) -> str:
    """FCX102 SYSTEM: processor and dispatching, one line per interval."""
    s = system
    ifls = _ifls(summary, s)
    cols = _keep([
        Col("Interval|End Time", -8, lambda r: r["time"]),
        Col("Trans|/s", 9, lambda r: r["throughput_tx_per_s"]) if _has(s, "throughput_tx_per_s") else None,
        Col("Total|%CPU", 7, lambda r: r["cpu_lpar_pct"]) if _has(s, "cpu_lpar_pct") else None,
        Col("Avg|%Busy", 6, lambda r: r["ifl_utilization_pct"]) if _has(s, "ifl_utilization_pct") else None,
        Col("Emul|%CPU", 7, lambda r: r["cpu_guests_pct"]) if _has(s, "cpu_guests_pct") else None,
        Col("CP|%CPU", 6, lambda r: r["cpu_cp_pct"]) if _has(s, "cpu_cp_pct") else None,
        Col("CP Sys|%CPU", 6, lambda r: r["cpu_cp_system_pct"]) if _has(s, "cpu_cp_system_pct") else None,
        Col("Dispatch|List", 8, lambda r: r["dispatch_list_avg"], 2) if _has(s, "dispatch_list_avg") else None,
    ])
    lines = _header("FCX102", "SYSTEM", "System performance, by interval", summary, s)
    lines.append(f"Processors: {ifls} IFL" if ifls else "Processors: ?")
    lines.append("")
    lines += _table(cols, _time_rows(s), _mean(s, "time", "Mean"))
    return "\n".join(lines) + "\n"


def fcx103_storage(summary: Mapping[str, Any], system: pl.DataFrame, intervals: pl.DataFrame) -> str:
    """FCX103 STORAGE: central storage, XSTOR and paging, one line per interval."""
    s = system
    want = [
        ("Pages|Resid", 10, "pages_resident", 0), ("Resid|<2GB", 9, "pages_resident_below_2g", 0),
        ("Resid|>2GB", 10, "pages_resident_above_2g", 0), ("Avail|Frames", 9, "available_frames", 0),
        ("Avail|<2GB", 8, "available_below_2g", 0), ("PGMBK|Frames", 8, "pgmbk_frames", 0),
        ("XSTOR|Pages", 9, "pages_xstor", 0), ("DASD|Pages", 10, "pages_dasd", 0),
        ("MS>X|/s", 8, "ms_to_xs_per_s", 0), ("X>MS|/s", 7, "xs_to_ms_per_s", 0),
        ("X>DS|/s", 8, "xs_to_dasd_per_s", 0), ("MS>DS|/s", 7, "ms_to_dasd_per_s", 0),
        ("DS>MS|/s", 8, "dasd_to_ms_per_s", 0), ("Steal|/s", 8, "steals_per_s", 0),
    ]
    cols = [Col("Interval|End Time", -8, lambda r: r["time"])]
    cols += [Col(h, w, (lambda k: lambda r: r[k])(k), d) for h, w, k, d in want if k in s.columns]
    lines = _header("FCX103", "STORAGE", "Storage utilization and paging, by interval", summary, s)
    frames = summary.get("frames_central")
    if frames:
        xstor, slots = int(summary.get("xstor_blocks", 0)), int(summary.get("paging_slots", 0))
        lines.append(f"Main storage: {int(frames):,} frames; expanded storage: {xstor:,} blocks; page slots: {slots:,}")
        lines.append("")
    lines += _table(cols, _time_rows(s), _mean(s, "time", "Mean"))
    return "\n".join(lines) + "\n"


def fcx113_upage(summary: Mapping[str, Any], system: pl.DataFrame, intervals: pl.DataFrame) -> str:
    """FCX113 UPAGE: user paging activity and storage utilization, one line per guest (window means)."""
    g = intervals
    lines = _header("FCX113", "UPAGE", "User paging activity and storage utilization (means)", summary, system)
    if g.height == 0:
        return "\n".join(lines + ["no measured interval"]) + "\n"
    numeric = [c for c in g.columns if c not in ("interval", "t_start_s", "t_end_s", "guest")
               and g[c].dtype.is_numeric()]
    means = g.group_by("guest", maintain_order=True).agg([pl.col(c).mean() for c in numeric]).sort("guest")
    want = [
        ("X>MS|/s", 7, "page_faults_xstor_per_s", 1), ("DS>MS|/s", 7, "page_faults_dasd_per_s", 1),
        ("Pages|R<2GB", 8, "pages_resident_below_2g", 0), ("Pages|R>2GB", 9, "pages_resident_above_2g", 0),
        ("Pages|XSTOR", 8, "pages_xstor", 0), ("Pages|DASD", 9, "pages_dasd", 0),
    ]
    cols = [Col("Userid|", -8, lambda r: r["guest"])]
    cols += [Col(h, w, (lambda k: lambda r: r[k])(k), d) for h, w, k, d in want if k in means.columns]
    total = {"guest": "Total"}
    total.update({c: means[c].sum() for c in means.columns if c != "guest"})
    lines += _table(cols, list(means.iter_rows(named=True)), total)
    return "\n".join(lines) + "\n"


def fcx108_device(summary: Mapping[str, Any], system: pl.DataFrame, intervals: pl.DataFrame) -> str:
    """FCX108 DEVICE: I/O load and performance. zvmsim reports the paging volumes as one group
    (service and wait over all of them; FCX109 has them one by one) and each guest's database
    DASD by its rate."""
    s, g = system, intervals
    lines = _header("FCX108", "DEVICE", "General I/O device load and performance (means)", summary, s)
    rows: List[Dict[str, Any]] = []
    if _has(s, "paging_io_per_s"):
        serv = s["paging_service_ms"].mean() if _has(s, "paging_service_ms") else None
        wait = s["paging_wait_ms"].mean() if _has(s, "paging_wait_ms") else None
        rows.append({"id": "CP PAGE", "use": "paging", "rate": s["paging_io_per_s"].mean(), "wait": wait,
                     "serv": serv, "resp": (serv or 0) + (wait or 0) if serv is not None else None})
    if _has(g, "db_reads_per_s", "db_writes_per_s") and g.height:
        per = g.group_by("guest").agg((pl.col("db_reads_per_s") + pl.col("db_writes_per_s")).mean().alias("r"))
        for r in per.sort("guest").iter_rows(named=True):
            rows.append({"id": r["guest"], "use": "database", "rate": r["r"], "wait": None, "serv": None,
                         "resp": None})
    cols = [Col("Label/ID|", -8, lambda r: r["id"]), Col("Use|", -8, lambda r: r["use"]),
            Col("Rate|/s", 9, lambda r: r["rate"]), Col("Time (msec)|Qued", 8, lambda r: r["wait"], 2),
            Col("|Serv", 6, lambda r: r["serv"], 2), Col("|Resp", 6, lambda r: r["resp"], 2)]
    lines += _table(cols, rows)
    lines += ["", "Qued: wait for the volume before service; Resp = Qued + Serv. '...': not simulated."]
    return "\n".join(lines) + "\n"


def paging_volume_means(paging: pl.DataFrame) -> pl.DataFrame:
    """One row per paging volume over the window: slots and slots in use at its end, mean I/O
    and page rates and busy, and service and queue time per I/O (the intervals weighted by
    their I/Os). FCX109 and the report's figure read it."""
    last = paging["interval"].max()
    return (
        paging.group_by("volid", "rdev", "model")
        .agg(
            pl.col("slots").last(),
            pl.col("slots_used").filter(pl.col("interval") == last).last(),
            pl.col("io_per_s").mean(),
            pl.col("pages_per_s").mean(),
            *[((pl.col(k) * pl.col("io_per_s")).sum() / pl.col("io_per_s").sum()).fill_nan(None).alias(k)
              for k in ("service_ms", "queue_ms")],
            pl.col("busy_pct").mean(),
        )
        .with_columns(pl.when(pl.col("slots") > 0).then(100.0 * pl.col("slots_used") / pl.col("slots"))
                      .otherwise(0.0).alias("used_pct"))
        .sort("volid")
    )


def fcx109_cpowned(summary: Mapping[str, Any], system: pl.DataFrame, paging: pl.DataFrame) -> str:
    """FCX109 DEVICE CPOWNED: the paging volumes one by one (window means; slots as at the
    window's end). With volumes of mixed sizes CP fills the small ones first and then every new
    block goes to the large ones: this is where that shows."""
    lines = _header("FCX109", "CPOWNED", "Load and performance of CP owned disks (means)", summary, system)
    rows = [dict(r, area="PAGE") for r in paging_volume_means(paging).iter_rows(named=True)]
    total_slots = sum(r["slots"] for r in rows)
    total = {"volid": "Total", "slots": total_slots, "slots_used": sum(r["slots_used"] for r in rows),
             "io_per_s": sum(r["io_per_s"] for r in rows), "pages_per_s": sum(r["pages_per_s"] for r in rows),
             "busy_pct": sum(r["busy_pct"] for r in rows) / len(rows) if rows else None}
    ios = total["io_per_s"]
    for k in ("queue_ms", "service_ms"):  # per I/O over all volumes
        total[k] = sum((r[k] or 0.0) * r["io_per_s"] for r in rows) / ios if ios else None
    total["used_pct"] = 100.0 * total["slots_used"] / total_slots if total_slots else None
    cols = [Col("Volume|Serial", -6, lambda r: r["volid"]), Col("|Addr", -4, lambda r: r.get("rdev", "")),
            Col("Area|Type", -4, lambda r: r.get("area", "")), Col("Device|Type", -7, lambda r: r.get("model", "")),
            Col("Total|Slots", 8, lambda r: r["slots"], 0), Col("Used|%", 5, lambda r: r["used_pct"], 0),
            Col("I/O|/s", 7, lambda r: r["io_per_s"]), Col("Pages|/s", 8, lambda r: r["pages_per_s"]),
            Col("Time (msec)|Qued", 8, lambda r: r.get("queue_ms"), 2),
            Col("|Serv", 6, lambda r: r.get("service_ms"), 2),
            Col("Dev|%Busy", 6, lambda r: r["busy_pct"])]
    lines += _table(cols, rows, total)
    lines += ["", "Used %: slots in use at the window's end; Qued and Serv: per I/O over the window (the Total",
              "row's over all volumes' I/Os); %Busy: the intervals' mean (the Total row's: the volumes' mean).",
              "Column names are zvmsim's: the toolkit's own could not be confirmed."]
    return "\n".join(lines) + "\n"


def fcx126_lpar(summary: Mapping[str, Any], system: pl.DataFrame, intervals: pl.DataFrame) -> str:
    """FCX126 LPAR: the partition's processor load, one line per interval."""
    s = system
    ifls = _ifls(summary, s)
    cols = _keep([
        Col("Interval|End Time", -8, lambda r: r["time"]),
        Col("Partition|", -9, lambda r: "ZVMSIM"),
        Col("#Proc|", 5, lambda r: ifls, 0),
        Col("Type|", -4, lambda r: "IFL"),
        Col("%Busy|", 7, lambda r: r["cpu_lpar_pct"]) if _has(s, "cpu_lpar_pct") else None,
        Col("%VMld|", 7, lambda r: r["cpu_guests_pct"]) if _has(s, "cpu_guests_pct") else None,
        Col("%Ovhd|", 6, lambda r: r["cpu_cp_system_pct"]) if _has(s, "cpu_cp_system_pct") else None,
        Col("%Util|", 6, lambda r: r["ifl_utilization_pct"]) if _has(s, "ifl_utilization_pct") else None,
    ])
    lines = _header("FCX126", "LPAR", "Logical partition activity, by interval", summary, s)
    lines += _table(cols, _time_rows(s), _mean(s, "time", "Mean"))
    lines += ["", "%Busy: all IFL time of the partition, in % of one IFL; %VMld: guest emulation; "
                  "%Ovhd: CP time charged to no guest; %Util: %Busy / #Proc."]
    return "\n".join(lines) + "\n"


def _ifls(summary: Mapping[str, Any], system: pl.DataFrame) -> Optional[int]:
    if _has(system, "cpu_lpar_pct", "ifl_utilization_pct") and system.height:
        busy, util = system["cpu_lpar_pct"].sum(), system["ifl_utilization_pct"].sum()
        if util:
            return int(round(busy / util))
    return None


REPORTS = {
    "FCX102": ("SYSTEM", fcx102_system),
    "FCX103": ("STORAGE", fcx103_storage),
    "FCX113": ("UPAGE", fcx113_upage),
    "FCX108": ("DEVICE", fcx108_device),
    "FCX126": ("LPAR", fcx126_lpar),
}

# Built from the paging-volume rows (paging.parquet), not the system and guest rows.
PAGING_REPORT = ("FCX109", "CPOWNED")


def screen(report_id: str) -> str:
    """The toolkit's screen name of a report ID."""
    return PAGING_REPORT[1] if report_id == PAGING_REPORT[0] else REPORTS[report_id][0]


def all_reports(summary: Mapping[str, Any], system: pl.DataFrame, intervals: pl.DataFrame,
                paging: Optional[pl.DataFrame] = None) -> Dict[str, str]:
    """Report ID -> text, over the measured intervals; FCX109 when the run has paging volumes."""
    out = {rid: fn(summary, system, intervals) for rid, (_, fn) in REPORTS.items()}
    if paging is not None and paging.height:
        out[PAGING_REPORT[0]] = fcx109_cpowned(summary, system, paging)
    return out
