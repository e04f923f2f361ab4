"""A run's results in memory, and the output folder they are saved to.

Folder layout (every file is rewritten whole on save)::

    summary.json        core summary + run metadata (sorted keys)
    intervals.parquet   one row per (interval, guest)
    system.parquet      one row per interval, LPAR/CP level
    paging.parquet      one row per (interval, paging volume): slots used, I/O, service, queue, busy
    monitor.parquet     the interval figures as CP monitor sample records by their IBM names
                        (D0R3, D3R1, D6R3, ...), one row per interval, record, device, figure
    console.json        the console log
    vmrm.log            VMRMSVM's log (its starts, decisions, each SMSG and its text), when the
                        scenario has [vmrm] and VMRM wrote to it
    results.duckdb      tables intervals, system, paging, monitor, console, guests, summary,
                        steady_state, vmrm_log (VMRM's records: t_s, the user an SMSG went to,
                        the text; empty without VMRM)
                        (copies, not views, so the folder can be moved or shared)
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Union

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

SUMMARY_FILE = "summary.json"
INTERVALS_FILE = "intervals.parquet"
SYSTEM_FILE = "system.parquet"
PAGING_FILE = "paging.parquet"
MONITOR_FILE = "monitor.parquet"
CONSOLE_FILE = "console.json"
DUCKDB_FILE = "results.duckdb"
VMRM_LOG_FILE = "vmrm.log"
RESULT_FILES = (SUMMARY_FILE, INTERVALS_FILE, SYSTEM_FILE, PAGING_FILE, MONITOR_FILE, CONSOLE_FILE, DUCKDB_FILE)

# Figures that depend on the host, not on the scenario: two runs of one scenario and seed agree
# on everything else in summary.json.
WALL_CLOCK_KEYS = ("wall_seconds", "events_per_second", "started_utc")

# Identifying columns lead; the rest follow alphabetically, so the file layout does not depend
# on the order in which the core happens to build its dict.
_LEADING_COLUMNS = ("interval", "t_start_s", "t_end_s", "guest", "volid", "rdev", "model")

_CONSOLE_SCHEMA = pa.schema(
    [("t_s", pa.float64()), ("user", pa.string()), ("command", pa.string()), ("response", pa.list_(pa.string()))]
)

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class Result:
    """The figures of one run. ``intervals``, ``system`` and ``paging`` (one row per interval and
    paging volume) are polars DataFrames."""

    summary: Dict[str, Any]
    intervals: pl.DataFrame
    system: pl.DataFrame
    console: List[Dict[str, Any]] = field(default_factory=list)
    vmrm_log: List[Dict[str, Any]] = field(default_factory=list)
    paging: pl.DataFrame = field(default_factory=pl.DataFrame)

    @property
    def guests(self) -> pl.DataFrame:
        """The summary's per-guest figures as a DataFrame."""
        return guests_frame(self.summary.get("guests", []))

    @property
    def interrupted(self) -> bool:
        return bool(self.summary.get("interrupted", False))

    def save(self, out_dir: PathLike) -> Path:
        """Write the output folder (created if needed); returns its path."""
        return save(self, out_dir)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(scenario={s.get('scenario')!r}, seed={s.get('seed')}, "
            f"sim_seconds={s.get('sim_seconds')}, intervals={self.intervals.height} rows, "
            f"interrupted={self.interrupted})"
        )


def columnar_table(batch: pa.RecordBatch) -> pa.Table:
    """An Arrow table from the core's typed rows (a RecordBatch), in deterministic column order."""
    table = pa.Table.from_batches([batch])
    names = table.column_names
    lead = [c for c in _LEADING_COLUMNS if c in names]
    return table.select(lead + sorted(c for c in names if c not in lead))


def guests_frame(guests: Sequence[Mapping[str, Any]]) -> pl.DataFrame:
    if not guests:
        return pl.DataFrame()
    keys: List[str] = []
    for g in guests:
        keys += [k for k in g if k not in keys]
    lead = [k for k in ("name", "guest") if k in keys]
    names = lead + sorted(k for k in keys if k not in lead)
    return pl.from_arrow(pa.table({k: pa.array([g.get(k) for g in guests]) for k in names}))  # type: ignore[return-value]


def scalar_items(summary: Mapping[str, Any]) -> Dict[str, Any]:
    """The summary's scalar entries (drops lists such as ``guests`` and ``overrides``)."""
    return {k: v for k, v in summary.items() if v is None or isinstance(v, (bool, int, float, str))}


def from_simulation(sim: Any, meta: Mapping[str, Any]) -> Result:
    """Collect a (finished or stopped) Simulation's figures; ``meta`` is merged into the summary."""
    summary = dict(sim.summary())
    summary.update(meta)
    return Result(
        summary=summary,
        intervals=_frame(columnar_table(sim.intervals())),
        system=_frame(columnar_table(sim.system_intervals())),
        console=[dict(c) for c in sim.console()],
        vmrm_log=[dict(e) for e in sim.vmrm_log()],
        paging=_frame(columnar_table(sim.paging_volumes())),
    )


def _frame(table: pa.Table) -> pl.DataFrame:
    return pl.from_arrow(table)  # type: ignore[return-value]


def save(result: Result, out_dir: PathLike) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary_text = json.dumps(_json_safe(result.summary), indent=2, sort_keys=True, allow_nan=False) + "\n"
    console_text = json.dumps(_json_safe(result.console), indent=2, allow_nan=False) + "\n"
    _atomic_write_text(out / SUMMARY_FILE, summary_text)
    _atomic_write_text(out / CONSOLE_FILE, console_text)
    _atomic_write_parquet(out / INTERVALS_FILE, result.intervals.to_arrow())
    _atomic_write_parquet(out / SYSTEM_FILE, result.system.to_arrow())
    _atomic_write_parquet(out / PAGING_FILE, result.paging.to_arrow())
    from .monitor import monitor_table

    _atomic_write_parquet(out / MONITOR_FILE, monitor_table(result.system, result.intervals))
    if result.vmrm_log:
        _atomic_write_text(out / VMRM_LOG_FILE, vmrm_log_text(result.vmrm_log))
    else:
        (out / VMRM_LOG_FILE).unlink(missing_ok=True)
    _write_duckdb(out)
    return out


def vmrm_log_text(entries: Sequence[Mapping[str, Any]]) -> str:
    """vmrm.log: one record per line, simulated seconds then VMRM's text."""
    return "".join(f"{float(e['t_s']):12.3f}  {e['text']}\n" for e in entries)


def _vmrm_log_table(entries: Sequence[Mapping[str, Any]]) -> pa.Table:
    """VMRM's log as a table (the same columns with no rows when VMRM did not run)."""
    return pa.table(
        {
            "t_s": pa.array([float(e["t_s"]) for e in entries], pa.float64()),
            "user": pa.array([str(e["user"]) for e in entries], pa.string()),
            "text": pa.array([str(e["text"]) for e in entries], pa.string()),
        }
    )


def _read_vmrm_log(path: Path) -> List[Dict[str, Any]]:
    if not path.is_file():
        return []
    out: List[Dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        t, _, text = line.strip().partition("  ")
        prefix = "SMSG sent to "
        user = text[len(prefix) :].split(":")[0] if text.startswith(prefix) else ""
        out.append({"t_s": float(t), "user": user, "text": text})
    return out


def _json_safe(value: Any) -> Any:
    # JSON has no NaN/inf; null keeps summary.json readable by strict parsers.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _atomic_write_parquet(path: Path, table: pa.Table) -> None:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def _console_table(console: Sequence[Mapping[str, Any]]) -> pa.Table:
    cols = {name: [c.get(name) for c in console] for name in _CONSOLE_SCHEMA.names}
    return pa.table(cols, schema=_CONSOLE_SCHEMA)


def _summary_table(summary: Mapping[str, Any]) -> pa.Table:
    items = scalar_items(summary)
    return pa.table({k: [items[k]] for k in sorted(items)})


STEADY_STATE_COLUMNS = ("figure", "mean", "slope_per_min", "drift_pct", "p_value", "detectable_pct", "drifting")
_STEADY_STATE_SCHEMA = pa.schema(
    [("figure", pa.string()), ("mean", pa.float64()), ("slope_per_min", pa.float64()),
     ("drift_pct", pa.float64()), ("p_value", pa.float64()), ("detectable_pct", pa.float64()),
     ("drifting", pa.bool_())]
)


def steady_state_table(summary: Mapping[str, Any]) -> pa.Table:
    """The steady-state check, one row per headline figure (empty when the summary has none)."""
    ss = summary.get("steady_state")
    figures = ss.get("figures", []) if isinstance(ss, Mapping) else []
    cols = {name: [f.get(name) for f in figures] for name in STEADY_STATE_COLUMNS}
    return pa.table(cols, schema=_STEADY_STATE_SCHEMA)


def _write_duckdb(out: Path) -> None:
    """(Re)build results.duckdb from the files just written in ``out``."""
    import duckdb  # imported here: only saving needs it, and it is slow to import

    summary = json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8"))
    console = json.loads((out / CONSOLE_FILE).read_text(encoding="utf-8"))
    tables = {
        "intervals": pq.read_table(out / INTERVALS_FILE),
        "system": pq.read_table(out / SYSTEM_FILE),
        "paging": pq.read_table(out / PAGING_FILE),
        "monitor": pq.read_table(out / MONITOR_FILE),
        "console": _console_table(console),
        "guests": guests_frame(summary.get("guests", [])).to_arrow(),
        "summary": _summary_table(summary),
        "steady_state": steady_state_table(summary),
        "vmrm_log": _vmrm_log_table(_read_vmrm_log(out / VMRM_LOG_FILE)),
    }
    tmp = out / (DUCKDB_FILE + ".tmp")
    tmp.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp))
    try:
        for name, table in tables.items():
            if table.num_columns == 0:
                # An Arrow table without columns cannot become a SQL table; keep the name queryable.
                con.execute(f'CREATE TABLE "{name}" (empty BOOLEAN)')
                continue
            con.register("_src", table)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _src')
            con.unregister("_src")
    finally:
        con.close()
    os.replace(tmp, out / DUCKDB_FILE)


def load_results(out_dir: PathLike) -> Result:
    """Read an output folder written by :func:`save` (or ``zvmsim run``)."""
    out = Path(out_dir)
    missing = [f for f in (SUMMARY_FILE, INTERVALS_FILE, SYSTEM_FILE, CONSOLE_FILE) if not (out / f).is_file()]
    if missing:
        raise FileNotFoundError(f"not a zvmsim results folder ({', '.join(missing)} missing): {out}")
    return Result(
        summary=json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8")),
        intervals=pl.read_parquet(out / INTERVALS_FILE),
        system=pl.read_parquet(out / SYSTEM_FILE),
        console=json.loads((out / CONSOLE_FILE).read_text(encoding="utf-8")),
        vmrm_log=_read_vmrm_log(out / VMRM_LOG_FILE),
        # Folders written before paging.parquet existed have none.
        paging=pl.read_parquet(out / PAGING_FILE) if (out / PAGING_FILE).is_file() else pl.DataFrame(),
    )


__all__ = [
    "Result",
    "load_results",
    "save",
    "from_simulation",
    "columnar_table",
    "RESULT_FILES",
    "WALL_CLOCK_KEYS",
]
