"""The report of a sweep: every figure of the sweep table against the varied keys.

The x axis is the numeric varied key with the most values (e.g. the guest count); each
combination of the other keys is a line (e.g. one per z/VM level), with the 95 % confidence
interval over seeds as error bars. Throughput is also drawn in % of each line's first point,
as the large-memory study's Figure 12 draws it.
"""

from __future__ import annotations

import html
import itertools
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import polars as pl

from .cli_format import KEY_FIGURES, fmt
from .figures import lookup, title_of, unit_of
from .report import Section, _Html, _layout, _text
from .sweep import load_manifest, typed, write_tables


def _axes(manifest: Dict[str, Any]) -> Tuple[str, List[str]]:
    keys = [(k, typed(v)) for k, v in manifest["vary"]]
    if not keys:
        return "", []
    numeric = [(len(v), i, k) for i, (k, v) in enumerate(keys) if all(isinstance(x, (int, float)) for x in v)]
    x = max(numeric)[2] if numeric else keys[0][0]
    return x, [k for k, _ in keys if k != x]


def _series(agg: pl.DataFrame, others: Sequence[str]) -> List[Tuple[str, pl.DataFrame]]:
    if not others:
        return [("", agg)]
    combos = agg.select(others).unique(maintain_order=True).sort(list(others)).iter_rows()
    out = []
    for combo in combos:
        cond = pl.lit(True)
        for k, v in zip(others, combo):
            cond = cond & (pl.col(k) == v)
        out.append((", ".join(f"{k}={v}" for k, v in zip(others, combo)), agg.filter(cond)))
    return out


def _figure(agg: pl.DataFrame, x: str, others: Sequence[str], name: str, title: str, scale_first: bool = False) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    for label, d in _series(agg, others):
        d = d.sort(x) if x else d
        ys = d[f"{name}_mean"].to_list()
        ci = d[f"{name}_ci95"].to_list()
        if scale_first:
            base = ys[0] if ys and ys[0] else None
            ys = [y / base * 100 if base and y is not None else None for y in ys]
            ci = [c / base * 100 if base and c is not None else None for c in ci]
        err = [c if c is not None and c == c else 0.0 for c in ci]
        xs = d[x].to_list() if x else [0] * d.height
        fig.add_trace(go.Scatter(x=xs, y=ys, name=label or name, mode="lines+markers",
                                 error_y=dict(type="data", array=err, visible=any(err))))
    unit = "% of the first point" if scale_first else unit_of(name)
    return _layout(fig, title, unit, xtitle=x or "point")


def sweep_sections(out: Path) -> Tuple[str, str, List[Section]]:
    manifest = load_manifest(out)
    points, agg = write_tables(out)
    x, others = _axes(manifest)
    title = f"zvmsim sweep: {Path(manifest['scenario']).stem}"
    keys = [k for k, _ in manifest["vary"]]
    failed = points.filter(pl.col("error").is_not_null()).height if "error" in points.columns else 0
    intro = (f"<p>scenario {html.escape(manifest['scenario'])} · varied: "
             + html.escape("; ".join(f"{k} = {', '.join(v)}" for k, v in manifest["vary"]))
             + (f" · set: {html.escape(' '.join(manifest['set']))}" if manifest["set"] else "")
             + f" · seeds {', '.join(str(s) for s in manifest['seeds'])} · {points.height} points"
             + (f" · <span class='warn'>{failed} not finished</span>" if failed else "") + "</p>")
    if agg.height == 0:
        return title, intro, [("Figures", [("none", _text("No point has finished yet."))])]
    names = [c[: -len("_mean")] for c in agg.columns if c.endswith("_mean")]
    nonzero = [n for n in names if agg[f"{n}_mean"].abs().max()]
    key_first = [k for k, _, _ in KEY_FIGURES if k in nonzero]
    rest = sorted(n for n in nonzero if n not in key_first)
    main: List[Tuple[str, Any]] = []
    if "throughput_tx_per_s" in nonzero:
        main.append(("throughput %", _figure(agg, x, others, "throughput_tx_per_s",
                                             f"Throughput in % of the first point, against {x}", scale_first=True)))
    for n in key_first + rest:
        f = lookup(n)
        label = f"{title_of(n)}{f' ({f.unit})' if f and f.unit else ''} against {x or 'point'}"
        main.append((n, _figure(agg, x, others, n, label)))
    table = _points_table(agg, keys)
    zero = sorted(set(names) - set(nonzero))
    notes = [("zero", _text("Zero at every point (not drawn): " + ", ".join(zero)))] if zero else []
    return title, intro, [("Sweep table", [("table", table)]), ("Figures against the varied keys", main + notes)]


def _points_table(agg: pl.DataFrame, keys: Sequence[str]) -> _Html:
    shown = [k for k, _, _ in KEY_FIGURES if f"{k}_mean" in agg.columns][:5]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in itertools.chain(keys, ["n"], shown))
    rows = []
    for r in agg.iter_rows(named=True):
        cells = [html.escape(str(r[k])) for k in keys] + [str(r["n"])]
        for s in shown:
            m, c = r[f"{s}_mean"], r[f"{s}_ci95"]
            cells.append(html.escape(fmt(m) + (f" ± {fmt(c)}" if c is not None and c == c else "")))
        rows.append("<tr>" + "".join(f"<td class='n'>{c}</td>" for c in cells) + "</tr>")
    return _Html(f"<table class='key'><tr>{head}</tr>{''.join(rows)}</table>"
                 "<p>mean ± 95 % confidence half-width over seeds (Student's t); all figures in sweep.parquet "
                 "and sweep.duckdb</p>")
