"""Campaigns of runs: `zvmsim sweep` (and the runs `zvmsim plan` searches over).

A sweep is the product of the varied keys' values and the seeds. Each point is one run, keyed by
the hash of its resolved scenario (the core's ``scenario_hash``, seed included), and its results
folder is written whole under ``DIR/points/<hash>/`` (into a temporary folder renamed at the
end), so a sweep stopped at any moment — even by SIGKILL — keeps every finished point, and run
again it skips them. Points run on a local process pool, or on a Dask cluster
(``pip install zvmsim[distributed]``). ``DIR/points.parquet`` has one row per point,
``DIR/sweep.parquet`` the mean and 95 % confidence interval over seeds per combination of the
varied keys, ``DIR/sweep.duckdb`` both.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import polars as pl

from ._pool import run_spawned
from ._scenario import dict_errors, resolve
from .results import SUMMARY_FILE, Result, load_results, scalar_items

SWEEP_FILE = "sweep.json"
POINTS_DIR = "points"
POINTS_TABLE = "points.parquet"
SWEEP_TABLE = "sweep.parquet"
SWEEP_DB = "sweep.duckdb"
# Columns of points.parquet that describe a point rather than measure it.
POINT_META = ("point", "seed", "error", "drifting", "steady_state")
# Summary entries that describe the run, not the system: left out of the tables' figures.
NOT_FIGURES = {"seed", "events", "wall_seconds", "events_per_second", "version", "scenario", "scenario_hash",
               "started_utc", "interrupted", "ended", "rng", "zvm_level"}


def parse_vary(text: str) -> Tuple[str, List[str]]:
    """"guests[0].count=5..10" -> ("guests[0].count", ["5", ..., "10"]); "k=a,b" -> lists;
    "k=0..100:20" steps by 20."""
    key, sep, spec = text.partition("=")
    key, spec = key.strip(), spec.strip()
    if not sep or not key or not spec:
        raise ValueError(f"--vary {text!r}: write KEY=V1,V2,... or KEY=FIRST..LAST[:STEP]")
    if ".." in spec and "," not in spec:
        lo, _, rest = spec.partition("..")
        hi, _, step = rest.partition(":")
        try:
            a, b, s = int(lo), int(hi), int(step or 1)
        except ValueError:
            raise ValueError(f"--vary {text!r}: a range takes whole numbers, e.g. 5..10 or 0..100:20") from None
        if s <= 0 or b < a:
            raise ValueError(f"--vary {text!r}: the range must go up with a positive step")
        return key, [str(v) for v in range(a, b + 1, s)]
    values = [v.strip() for v in spec.split(",") if v.strip()]
    if not values:
        raise ValueError(f"--vary {text!r}: no values")
    return key, values


def typed(values: Sequence[str]) -> List[Any]:
    """Values as numbers when all of them are numbers (so axes sort numerically)."""
    for kind in (int, float):
        try:
            return [kind(v) for v in values]
        except ValueError:
            continue
    return list(values)


@dataclass(frozen=True)
class Point:
    key: str  # the resolved scenario's hash
    values: Tuple[Tuple[str, str], ...]  # (varied key, value)
    seed: int
    overrides: Tuple[str, ...]


@dataclass
class Sweep:
    scenario: str
    vary: List[Tuple[str, List[str]]]
    sets: List[str] = field(default_factory=list)
    seeds: List[int] = field(default_factory=lambda: [1])
    text: str = ""
    path: str = ""

    @classmethod
    def define(cls, scenario: Any, vary: Sequence[str], sets: Sequence[str] = (), seeds: int = 1) -> "Sweep":
        text, path = resolve(scenario)
        parsed = [parse_vary(v) for v in vary]
        keys = [k for k, _ in parsed]
        if len(set(keys)) != len(keys):
            raise ValueError(f"--vary names a key twice: {', '.join(sorted(k for k in keys if keys.count(k) > 1))}")
        if seeds < 1:
            raise ValueError("--seeds must be at least 1")
        base = _base_seed(text, sets)
        return cls(str(scenario) if path not in ("<dict>", "<string>") else path, parsed, list(sets),
                   [base + i for i in range(seeds)], text, path)

    def points(self) -> List[Point]:
        """Every point, in a fixed order (the varied keys' product, then seeds)."""
        from . import _core

        out = []
        combos = itertools.product(*[[(k, v) for v in vals] for k, vals in self.vary]) if self.vary else [()]
        for combo in combos:
            for seed in self.seeds:
                ovr = tuple(self.sets) + tuple(f"{k}={v}" for k, v in combo) + (f"run.seed={seed}",)
                with dict_errors(self.path):
                    key = str(_core.check(self.text, self.path, list(ovr))["scenario_hash"])
                out.append(Point(key, tuple(combo), seed, ovr))
        return out

    def manifest(self, points: Sequence[Point]) -> Dict[str, Any]:
        return {"scenario": self.scenario, "vary": [[k, v] for k, v in self.vary], "set": self.sets,
                "seeds": self.seeds, "points": [{"point": p.key, "values": dict(p.values), "seed": p.seed,
                                                 "overrides": list(p.overrides)} for p in points]}


def _base_seed(text: str, sets: Sequence[str]) -> int:
    for s in reversed(list(sets)):
        k, _, v = s.partition("=")
        if k.strip() == "run.seed":
            return int(v)
    try:
        import tomllib  # Python 3.11+
    except ImportError:  # pragma: no cover - Python < 3.11: the core's default
        return 1
    try:
        return int(tomllib.loads(text).get("run", {}).get("seed", 1))
    except (tomllib.TOMLDecodeError, TypeError, ValueError):
        return 1


def run_point(text: str, path: str, overrides: Sequence[str]) -> Tuple[Optional[Result], Optional[str], float]:
    """One point's run, in a worker: (results, error message, wall seconds). Errors come back as
    text: a native exception need not survive pickling between processes."""
    from . import _core
    from .results import from_simulation
    from .runner import Run, drive

    t = time.perf_counter()
    try:
        sim = _core.Simulation(text, path, overrides=list(overrides))
        r = Run(sim=sim, scenario=path, overrides=list(overrides))
        drive(r)
        return from_simulation(r.sim, r.meta()), None, time.perf_counter() - t
    except (_core.ScenarioError, OSError, ValueError) as e:
        return None, str(e), time.perf_counter() - t


def point_dir(out: Path, key: str) -> Path:
    return out / POINTS_DIR / key


def is_done(out: Path, key: str) -> bool:
    """A point whose results folder is complete and was made by this version of zvmsim."""
    from . import _core

    f = point_dir(out, key) / SUMMARY_FILE
    if not f.is_file():
        return False
    try:
        s = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return s.get("version") == _core.__version__ and not s.get("interrupted")


def save_point(out: Path, point: Point, result: Result) -> Path:
    """Write a point's results folder atomically: a temporary folder, then one rename."""
    result.summary["sweep_point"] = {k: v for k, v in point.values}
    final = point_dir(out, point.key)
    tmp = final.with_name(f".tmp-{point.key}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    result.save(tmp)
    if final.exists():  # made by another version: replaced
        shutil.rmtree(final)
    os.rename(tmp, final)
    return final


def _clean_temporaries(out: Path) -> None:
    for p in (out / POINTS_DIR).glob(".tmp-*"):
        shutil.rmtree(p, ignore_errors=True)


Done = Callable[[Point, Optional[str], float, bool], None]  # point, error, wall seconds, skipped


def execute(sweep: Sweep, out: Path, points: Sequence[Point], jobs: int = 1, scheduler: Optional[str] = None,
            on_done: Optional[Done] = None, manifest: Optional[str] = SWEEP_FILE) -> List[Tuple[Point, Optional[str]]]:
    """Run the points not done yet (skipping finished ones); returns (point, error) per point.
    ``manifest``: the file describing the campaign (None: write none, as `zvmsim plan` does)."""
    out = Path(out)
    (out / POINTS_DIR).mkdir(parents=True, exist_ok=True)
    _clean_temporaries(out)
    if manifest:
        _write_json(out / manifest, sweep.manifest(points))
    results: List[Tuple[Point, Optional[str]]] = []
    todo: List[Point] = []
    seen = set()
    for p in points:
        if p.key in seen:  # two combinations that resolve to one scenario: run once
            continue
        seen.add(p.key)
        if is_done(out, p.key):
            results.append((p, None))
            if on_done:
                on_done(p, None, 0.0, True)
        else:
            todo.append(p)

    def finish(p: Point, res: Tuple[Optional[Result], Optional[str], float]) -> None:
        result, error, wall = res
        if result is not None:
            save_point(out, p, result)
        results.append((p, error))
        if on_done:
            on_done(p, error, wall, False)

    if not todo:
        pass
    elif scheduler:
        _run_dask(sweep, todo, scheduler, jobs, finish)
    elif jobs <= 1 or len(todo) == 1:
        for p in todo:
            finish(p, run_point(sweep.text, sweep.path, p.overrides))
    else:
        run_spawned(run_point, ((p, (sweep.text, sweep.path, p.overrides)) for p in todo), jobs, finish)
    return results


def _run_dask(sweep: Sweep, todo: Sequence[Point], scheduler: str, jobs: int, finish: Callable[..., None]) -> None:
    try:
        from distributed import Client, LocalCluster
        from distributed import as_completed as dask_completed
    except ImportError:
        raise RuntimeError("--scheduler needs Dask: pip install 'zvmsim[distributed]'") from None
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        futures = {client.submit(run_point, sweep.text, sweep.path, p.overrides, key=f"zvmsim-{p.key}", pure=False): p
                   for p in todo}
        for fut in dask_completed(list(futures)):
            finish(futures[fut], fut.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _write_json(path: Path, doc: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# --- tables -------------------------------------------------------------------------------------

# Student's t, 97.5 % quantile, by degrees of freedom (1..30); above 30 the normal's 1.96.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t975(df: int) -> float:
    return _T975[df - 1] if 1 <= df <= len(_T975) else 1.96


def load_manifest(out: Path) -> Dict[str, Any]:
    f = Path(out) / SWEEP_FILE
    if not f.is_file():
        raise FileNotFoundError(f"not a sweep folder ({SWEEP_FILE} missing): {out}")
    return json.loads(f.read_text(encoding="utf-8"))


def points_frame(out: Path, manifest: Optional[Dict[str, Any]] = None) -> pl.DataFrame:
    """One row per point: the varied keys, seed, point hash and every numeric summary figure."""
    m = manifest or load_manifest(out)
    keys = [k for k, _ in m["vary"]]
    kinds = {k: typed(v) for k, v in m["vary"]}
    rows = []
    seen = set()
    for p in m["points"]:
        if p["point"] in seen:
            continue
        seen.add(p["point"])
        row: Dict[str, Any] = {}
        for k in keys:
            row[k] = kinds[k][m["vary"][keys.index(k)][1].index(p["values"][k])]
        row.update(point=p["point"], seed=p["seed"], error=None, drifting=None, steady_state=None)
        f = point_dir(out, p["point"]) / SUMMARY_FILE
        if f.is_file():
            s = json.loads(f.read_text(encoding="utf-8"))
            ss = s.get("steady_state")
            # The run's figures that drifted over its window (None: steady or unknown).
            row["drifting"] = ", ".join((ss or {}).get("drifting") or []) or None
            # Its verdict: stationary, drifting, or inconclusive (too few intervals to tell).
            row["steady_state"] = (ss or {}).get("verdict")
            for name, v in scalar_items(s).items():
                if name not in NOT_FIGURES and isinstance(v, (int, float)) and not isinstance(v, bool):
                    row[name] = float(v)
        else:
            row["error"] = "not run"
        rows.append(row)
    if not rows:
        return pl.DataFrame()
    df = pl.DataFrame(rows, infer_schema_length=None)
    return df.with_columns(pl.col("error").cast(pl.Utf8), pl.col("drifting").cast(pl.Utf8),
                           pl.col("steady_state").cast(pl.Utf8))


def aggregate(points: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Mean, 95 % confidence half-width (Student's t over seeds) and n per combination of keys."""
    done = points.filter(pl.col("error").is_null()) if "error" in points.columns else points
    figures = [c for c in done.columns if c not in keys and c not in POINT_META]
    if done.height == 0:
        return pl.DataFrame()
    group = list(keys) if keys else [pl.lit(0).alias("_all")]
    aggs: List[Any] = [pl.len().alias("n")]
    for f in figures:
        aggs += [pl.col(f).mean().alias(f"{f}_mean"), pl.col(f).std(ddof=1).alias(f"_{f}_sd")]
    g = done.group_by(group, maintain_order=True).agg(aggs)
    t = pl.col("n").map_elements(lambda n: t975(int(n) - 1) if n > 1 else float("nan"), return_dtype=pl.Float64)
    g = g.with_columns([(t * pl.col(f"_{f}_sd") / pl.col("n").sqrt()).alias(f"{f}_ci95") for f in figures])
    ordered = list(keys) + ["n"] + [c for f in figures for c in (f"{f}_mean", f"{f}_ci95")]
    return g.select(ordered).sort(list(keys)) if keys else g.select(ordered)


def write_tables(out: Path) -> Tuple[pl.DataFrame, pl.DataFrame]:
    """(Re)write points.parquet, sweep.parquet and sweep.duckdb from the points' folders."""
    import duckdb

    out = Path(out)
    m = load_manifest(out)
    keys = [k for k, _ in m["vary"]]
    pts = points_frame(out, m)
    agg = aggregate(pts, keys)
    for name, df in ((POINTS_TABLE, pts), (SWEEP_TABLE, agg)):
        tmp = out / (name + ".tmp")
        df.write_parquet(tmp)
        os.replace(tmp, out / name)
    tmp_db = out / (SWEEP_DB + ".tmp")
    tmp_db.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp_db))
    try:
        for table, df in (("points", pts), ("sweep", agg)):
            if df.width:
                con.register("_src", df.to_arrow())
                con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM _src')
                con.unregister("_src")
    finally:
        con.close()
    os.replace(tmp_db, out / SWEEP_DB)
    return pts, agg


def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def point_results(out: Path, key: str) -> Result:
    return load_results(point_dir(Path(out), key))


__all__ = ["Sweep", "Point", "parse_vary", "execute", "write_tables", "points_frame", "aggregate",
           "load_manifest", "t975", "point_results", "typed"]
