"""`zvmsim report`: one self-contained HTML file (plotly.js and the data embedded, no network).

For a run: the figures the large-memory study draws (throughput, CPU per guest, page location,
page movement, paging and user DASD I/O, Linux memory per guest), then every other figure found
in the result tables, the FCX-style text reports and the console log. For a sweep: each figure
against the varied keys (see :mod:`zvmsim.report_sweep`). Figures are discovered from the
tables' columns, so a figure added to the core appears here without an edit.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import polars as pl

from . import fcx
from .figures import ID_COLUMNS, lookup, title_of, unit_of
from .results import load_results

Section = Tuple[str, List[Tuple[str, Any]]]  # (heading, [(title, plotly figure or HTML text)])

# The study's figures: (title, table, columns); a column missing from the table is skipped.
PAGE_LOCATION = ("pages_resident_below_2g", "pages_resident_above_2g", "pages_xstor", "pages_dasd")
PAGE_MOVEMENT = ("ms_to_xs_per_s", "xs_to_ms_per_s", "xs_to_dasd_per_s", "ms_to_dasd_per_s", "dasd_to_ms_per_s")
LINUX_MEMORY = ("linux_free_pages", "linux_cached_pages", "linux_anon_pages", "linux_swap_used_pages")
LABELS = {
    "pages_resident_below_2g": "resident < 2 GB", "pages_resident_above_2g": "resident > 2 GB",
    "pages_xstor": "XSTOR", "pages_dasd": "DASD", "ms_to_xs_per_s": "main storage → XSTOR",
    "xs_to_ms_per_s": "XSTOR → main storage", "xs_to_dasd_per_s": "XSTOR → DASD",
    "ms_to_dasd_per_s": "main storage → DASD", "dasd_to_ms_per_s": "DASD → main storage",
    "linux_free_pages": "free", "linux_cached_pages": "cache", "linux_anon_pages": "anonymous",
    "linux_swap_used_pages": "swap used", "cpu_lpar_pct": "LPAR", "cpu_cp_pct": "CP",
}
SYSTEM_SHOWN = {"throughput_tx_per_s", "cpu_lpar_pct", "cpu_cp_pct", "cpu_guests_pct", *PAGE_LOCATION,
                *PAGE_MOVEMENT, "paging_io_per_s", "paging_service_ms", "paging_wait_ms"}
GUEST_SHOWN = {"throughput_tx_per_s", "cpu_pct", *LINUX_MEMORY, "db_reads_per_s", "db_writes_per_s"}
BIG_TABLE_GUESTS = 24  # above this many guests, per-guest lines give way to the sum


def _go() -> Any:
    import plotly.graph_objects as go

    return go


def _layout(fig: Any, title: str, ytitle: str, xtitle: str = "simulated time (s), middle of the interval",
            **kw: Any) -> Any:
    fig.update_layout(title=title, template="plotly_white", height=380, margin=dict(l=60, r=30, t=50, b=50),
                      legend=dict(orientation="h", y=-0.18), **kw)
    fig.update_xaxes(title_text=xtitle)
    fig.update_yaxes(title_text=ytitle, rangemode="tozero")
    return fig


def _x(df: pl.DataFrame) -> List[float]:
    """Each interval at its middle, so that bars cover their interval and lines meet them."""
    if "t_start_s" in df.columns:
        return ((df["t_start_s"] + df["t_end_s"]) / 2).to_list()
    return df["t_end_s"].to_list()


def _label(col: str) -> str:
    return LABELS.get(col, title_of(col))


def _ytitle(cols: Sequence[str]) -> str:
    units = sorted({unit_of(c) for c in cols} - {""})
    return ", ".join(units)


def _lines(df: pl.DataFrame, cols: Sequence[str], title: str, stacked: bool = False) -> Any:
    go = _go()
    fig = go.Figure()
    for c in cols:
        if stacked:
            fig.add_trace(go.Bar(x=_x(df), y=df[c].to_list(), name=_label(c)))
        else:
            fig.add_trace(go.Scatter(x=_x(df), y=df[c].to_list(), name=_label(c), mode="lines+markers"))
    return _layout(fig, title, _ytitle(cols), barmode="stack" if stacked else None)


def _per_guest(g: pl.DataFrame, col: str, title: str) -> Any:
    go = _go()
    fig = go.Figure()
    names = g["guest"].unique(maintain_order=True).to_list()
    if len(names) > BIG_TABLE_GUESTS:
        s = g.group_by("interval", maintain_order=True).agg(pl.col("t_start_s").first(), pl.col("t_end_s").first(),
                                                            pl.col(col).sum())
        fig.add_trace(go.Scatter(x=_x(s), y=s[col].to_list(), name=f"all {len(names)} guests"))
    else:
        for n in names:
            d = g.filter(pl.col("guest") == n)
            fig.add_trace(go.Scatter(x=_x(d), y=d[col].to_list(), name=n, mode="lines+markers"))
    return _layout(fig, title, unit_of(col))


def _throughput(s: pl.DataFrame, g: pl.DataFrame) -> Any:
    go = _go()
    from plotly.subplots import make_subplots

    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Bar(x=_x(s), y=s["throughput_tx_per_s"].to_list(), name="LPAR", opacity=0.5),
                  secondary_y=False)
    if "throughput_tx_per_s" in g.columns:
        for n in g["guest"].unique(maintain_order=True).to_list()[:BIG_TABLE_GUESTS]:
            d = g.filter(pl.col("guest") == n)
            fig.add_trace(go.Scatter(x=_x(d), y=d["throughput_tx_per_s"].to_list(), name=n, mode="lines+markers"),
                          secondary_y=True)
    _layout(fig, "Throughput per interval: the LPAR (bars, left) and each guest (lines, right)", "tx/s")
    fig.update_yaxes(title_text="tx/s per guest", secondary_y=True, rangemode="tozero")
    return fig


def _cpu(s: pl.DataFrame, g: pl.DataFrame) -> Any:
    go = _go()
    fig = go.Figure()
    names = g["guest"].unique(maintain_order=True).to_list() if "cpu_pct" in g.columns else []
    for n in names[:BIG_TABLE_GUESTS]:
        d = g.filter(pl.col("guest") == n)
        fig.add_trace(go.Bar(x=_x(d), y=d["cpu_pct"].to_list(), name=n))
    if len(names) > BIG_TABLE_GUESTS:
        rest = g.filter(pl.col("guest").is_in(names[BIG_TABLE_GUESTS:])).group_by("interval", maintain_order=True)
        r = rest.agg(pl.col("t_start_s").first(), pl.col("t_end_s").first(), pl.col("cpu_pct").sum())
        fig.add_trace(go.Bar(x=_x(r), y=r["cpu_pct"].to_list(), name=f"{len(names) - BIG_TABLE_GUESTS} more guests"))
    for c, dash in (("cpu_lpar_pct", "solid"), ("cpu_cp_pct", "dash")):
        if c in s.columns:
            fig.add_trace(go.Scatter(x=_x(s), y=s[c].to_list(), name=_label(c), mode="lines+markers",
                                     line=dict(color="black", dash=dash)))
    return _layout(fig, "CPU per guest (emulation), with the LPAR and CP", "% of one IFL", barmode="stack")


def _io(s: pl.DataFrame, g: pl.DataFrame) -> Any:
    go = _go()
    from plotly.subplots import make_subplots

    fig = make_subplots(specs=[[{"secondary_y": True}]])
    if "paging_io_per_s" in s.columns:
        fig.add_trace(go.Bar(x=_x(s), y=s["paging_io_per_s"].to_list(), name="paging I/O/s", opacity=0.7),
                      secondary_y=False)
    if {"db_reads_per_s", "db_writes_per_s"} <= set(g.columns):
        u = g.group_by("interval", maintain_order=True).agg(
            pl.col("t_start_s").first(), pl.col("t_end_s").first(),
            (pl.col("db_reads_per_s") + pl.col("db_writes_per_s")).sum().alias("r"))
        fig.add_trace(go.Bar(x=_x(u), y=u["r"].to_list(), name="user DASD I/O/s", opacity=0.7), secondary_y=False)
    if "paging_service_ms" in s.columns:
        fig.add_trace(go.Scatter(x=_x(s), y=s["paging_service_ms"].to_list(), name="paging service ms",
                                 mode="lines+markers"), secondary_y=True)
        if "paging_wait_ms" in s.columns:
            resp = (s["paging_service_ms"] + s["paging_wait_ms"]).to_list()
            fig.add_trace(go.Scatter(x=_x(s), y=resp, name="paging response ms (wait + service)",
                                     mode="lines+markers"), secondary_y=True)
    _layout(fig, "Paging and user DASD I/O", "I/O per second")
    fig.update_yaxes(title_text="ms", secondary_y=True)
    return fig


def _paging_volumes(p: pl.DataFrame) -> Any:
    """Each paging volume's mean busy over the window and its slots in use at the window's end."""
    go = _go()
    per = fcx.paging_volume_means(p)
    names = [f"{v} {m}".strip() for v, m in zip(per["volid"], per["model"])]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=per["busy_pct"].to_list(), name="busy % (window mean)"))
    fig.add_trace(go.Bar(x=names, y=per["used_pct"].to_list(), name="slots used % (window end)"))
    return _layout(fig, "Paging volumes (FCX109)", "%", xtitle="paging volume", barmode="group")


def _linux_memory(g: pl.DataFrame) -> Optional[Any]:
    cols = [c for c in LINUX_MEMORY if c in g.columns]
    if not cols or g.height == 0:
        return None
    go = _go()
    from plotly.subplots import make_subplots

    names = g["guest"].unique(maintain_order=True).to_list()[:BIG_TABLE_GUESTS]
    ncols = 2 if len(names) > 1 else 1
    nrows = math.ceil(len(names) / ncols)
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=names, shared_xaxes=True,
                        vertical_spacing=min(0.08, 0.6 / max(1, nrows)))
    colors = ("#2ca02c", "#1f77b4", "#ff7f0e", "#d62728")
    for i, n in enumerate(names):
        d = g.filter(pl.col("guest") == n)
        for c, color in zip(cols, colors):
            fig.add_trace(go.Scatter(x=_x(d), y=(d[c] * 4 / 1024).to_list(), name=_label(c), stackgroup=f"g{i}",
                                     line=dict(color=color), legendgroup=c, showlegend=i == 0),
                          row=i // ncols + 1, col=i % ncols + 1)
    _layout(fig, "Linux memory per guest (MB)", "MB")
    fig.update_layout(height=max(380, 220 * nrows))
    return fig


def _discovered(df: pl.DataFrame, shown: set, per_guest: bool) -> Tuple[List[Tuple[str, Any]], List[str]]:
    """Every numeric column not drawn yet: system columns grouped by unit, guest columns one each."""
    cols = [c for c in df.columns if c not in ID_COLUMNS and c not in shown and df[c].dtype.is_numeric()]
    zero = [c for c in cols if df.height and float(df[c].abs().max() or 0) == 0.0]  # type: ignore[arg-type]
    cols = [c for c in cols if c not in zero]
    out: List[Tuple[str, Any]] = []
    if per_guest:
        for c in cols:
            out.append((c, _per_guest(df, c, _figure_title(c))))
    else:
        by_unit: Dict[str, List[str]] = {}
        for c in cols:
            by_unit.setdefault(unit_of(c) or "count", []).append(c)
        for unit, group in sorted(by_unit.items()):
            out.append((unit, _lines(df, group, f"System figures in {unit}")))
    return out, zero


def _figure_title(col: str) -> str:
    f = lookup(col)
    return f"{title_of(col)} ({f.unit})" if f and f.unit else title_of(col)


def run_sections(out_dir: Path) -> Tuple[Dict[str, Any], List[Section]]:
    r = load_results(out_dir)
    s, g, summary = r.system, r.intervals, r.summary
    sections: List[Section] = []
    if s.height == 0:
        sections.append(("Figures", [("nothing measured", _text(
            "Nothing was measured: the run stopped before its measured window began."))]))
    else:
        main: List[Tuple[str, Any]] = []
        if "throughput_tx_per_s" in s.columns:
            main.append(("throughput", _throughput(s, g)))
        if g.height and "cpu_pct" in g.columns:
            main.append(("cpu", _cpu(s, g)))
        loc = [c for c in PAGE_LOCATION if c in s.columns]
        if loc:
            main.append(("page location", _lines(s, loc, "Page location (samples at the interval's end)", True)))
        mv = [c for c in PAGE_MOVEMENT if c in s.columns]
        if mv:
            main.append(("page movement", _lines(s, mv, "Page movement rates")))
        main.append(("io", _io(s, g)))
        if r.paging.height:
            main.append(("paging volumes", _paging_volumes(r.paging)))
        mem = _linux_memory(g)
        if mem is not None:
            main.append(("linux memory", mem))
        sections.append(("Figures", main))
        sys_more, sys_zero = _discovered(s, SYSTEM_SHOWN, per_guest=False)
        guest_more, guest_zero = _discovered(g, GUEST_SHOWN, per_guest=True) if g.height else ([], [])
        zero = sorted(set(sys_zero) | set(guest_zero))
        if zero:
            guest_more.append(("zero", _text("Zero throughout the window (not drawn): " + ", ".join(zero))))
        sections.append(("More system figures", sys_more))
        sections.append(("More per-guest figures", guest_more))
    reports = fcx.all_reports(summary, s, g, r.paging)
    sections.append(("Performance Toolkit reports", [(f"{rid} {fcx.screen(rid)}", _pre(text))
                                                     for rid, text in reports.items()]))
    sections.append(("Console log", [("console", _pre(console_text(r.console)))]))
    return summary, sections


def console_text(console: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for c in console:
        lines.append(f"{float(c.get('t_s', 0)):10.3f}  {c.get('user') or ''}: {c.get('command', '')}")
        lines += [f"{'':12}{line}" for line in c.get("response") or []]
    return "\n".join(lines) if lines else "(no console commands)"


class _Html(str):
    """Raw HTML in a section (as opposed to a plotly figure)."""


def _text(s: str) -> _Html:
    return _Html(f"<p>{html.escape(s)}</p>")


def _pre(s: str) -> _Html:
    return _Html(f"<pre>{html.escape(s)}</pre>")


CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;color:#222}
h1{font-size:1.5em} h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:12px;line-height:1.3}
table.key{border-collapse:collapse} table.key td,table.key th{padding:.15em .8em;border-bottom:1px solid #eee}
td.n{text-align:right;font-variant-numeric:tabular-nums} .warn{color:#a60;font-weight:bold} .ok{color:#070}
.zvm-plot{margin:1em 0}
"""


def page(title: str, intro: str, sections: Sequence[Section]) -> str:
    """The whole HTML page: plotly.js embedded once, before the first figure."""
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>", intro]
    first = True
    n = 0
    for heading, items in sections:
        if not items:
            continue
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        for name, item in items:
            if isinstance(item, _Html):
                parts.append(item)
                continue
            n += 1
            div = item.to_html(full_html=False, include_plotlyjs=first, div_id=f"plot{n}",
                               config={"displaylogo": False, "responsive": True})
            first = False
            parts.append(f"<div class='zvm-plot' data-figure='{html.escape(name)}'>{div}</div>")
    parts.append(f"<script>window.zvmsimPlots={n};</script></body></html>")
    return "\n".join(parts)


def _intro(summary: Mapping[str, Any]) -> str:
    from .cli_format import fmt, key_rows

    rows = "".join(f"<tr><td>{html.escape(label)}</td><td class='n'>{html.escape(fmt(v))}</td>"
                   f"<td>{html.escape(unit)}</td></tr>" for label, v, unit in key_rows(summary))
    ss = summary.get("steady_state")
    steady = ""
    if isinstance(ss, Mapping):
        from .runner import steady_state_line

        line = steady_state_line(dict(summary)) or ""
        cls = "ok" if ss.get("stationary") else "warn"
        steady = f"<p class='{cls}'>{html.escape(line)}</p>"
    meta = (f"scenario {html.escape(str(summary.get('scenario', '?')))} · seed {summary.get('seed')} · "
            f"{fmt(summary.get('measured_seconds'))} s measured of {fmt(summary.get('sim_seconds'))} s simulated · "
            f"zvmsim {html.escape(str(summary.get('version', '?')))}")
    interrupted = "<p class='warn'>The run was interrupted: partial results.</p>" if summary.get("interrupted") else ""
    return f"<p>{meta}</p>{interrupted}{steady}<table class='key'>{rows}</table>"


def write_report(results_dir: Path, html_file: Optional[Path] = None) -> Path:
    """Write the report of a run folder or a sweep folder; returns the HTML file's path."""
    results_dir = Path(results_dir)
    from .sweep import SWEEP_FILE

    if (results_dir / SWEEP_FILE).is_file():
        from .report_sweep import sweep_sections

        title, intro, sections = sweep_sections(results_dir)
    else:
        summary, sections = run_sections(results_dir)
        name = str(summary.get("scenario", results_dir.name))
        title = f"zvmsim report: {Path(name).stem if name not in ('<dict>', '<string>') else results_dir.name}"
        intro = _intro(summary)
    target = html_file if html_file is not None else results_dir / "report.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page(title, intro, sections), encoding="utf-8")
    tmp.replace(target)
    return target


def fcx_text(results_dir: Path) -> str:
    r = load_results(results_dir)
    return "\n".join(fcx.all_reports(r.summary, r.system, r.intervals, r.paging).values())


__all__ = ["write_report", "run_sections", "page", "fcx_text", "console_text"]
