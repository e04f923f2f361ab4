"""`zvmsim sweep` and `zvmsim plan` on the small scenario: resuming after SIGKILL, Dask, tables."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import duckdb
import polars as pl
import pytest
from conftest import DATA, ROOT, invoke

from zvmsim.plan import Condition
from zvmsim.sweep import Sweep, aggregate, parse_vary, t975

SHORT = ["-s", "run.priming=5s", "-s", "run.measure=20s", "-s", "run.interval=10s"]
# Two IFLs: from three guests on, the processor is the bottleneck and the response time grows.
TIGHT = ["-s", "lpar.ifls=2", *SHORT]


def test_parse_vary() -> None:
    assert parse_vary("guests[0].count=5..10") == ("guests[0].count", ["5", "6", "7", "8", "9", "10"])
    assert parse_vary("lpar.zvm_level=5.2,5.3") == ("lpar.zvm_level", ["5.2", "5.3"])
    assert parse_vary("lpar.central=0..100:25")[1] == ["0", "25", "50", "75", "100"]
    for bad in ("nokey", "k=", "k=10..5", "k=a..b", "k=1..4:0"):
        with pytest.raises(ValueError):
            parse_vary(bad)


def test_points_keyed_by_resolved_scenario() -> None:
    sw = Sweep.define(DATA / "small.toml", ["guests[0].count=1..2", "lpar.zvm_level=5.2,5.3"], seeds=2)
    pts = sw.points()
    assert len(pts) == 8 and len({p.key for p in pts}) == 8
    assert sw.seeds == [7, 8]  # the scenario's run.seed, then the next
    again = Sweep.define(DATA / "small.toml", ["lpar.zvm_level=5.2,5.3", "guests[0].count=1..2"], seeds=2)
    assert {p.key for p in again.points()} == {p.key for p in pts}  # order of --vary does not matter


def test_confidence_interval() -> None:
    pts = pl.DataFrame({"k": [1, 1, 1, 2], "point": ["a", "b", "c", "d"], "seed": [1, 2, 3, 1],
                        "error": [None] * 4, "x": [1.0, 2.0, 3.0, 5.0]})
    agg = aggregate(pts, ["k"])
    row = agg.filter(pl.col("k") == 1).row(0, named=True)
    assert row["n"] == 3 and row["x_mean"] == pytest.approx(2.0)
    assert row["x_ci95"] == pytest.approx(t975(2) * 1.0 / 3 ** 0.5)
    assert agg.filter(pl.col("k") == 2)["x_ci95"][0] is None  # one seed: no interval


def _sweep_cmd(out: Path, *extra: str) -> List[str]:
    return [sys.executable, "-m", "zvmsim", "sweep", str(DATA / "small.toml"), "--vary", "guests[0].count=1..3",
            "--vary", "lpar.zvm_level=5.2,5.3", *SHORT, "--out", str(out), *extra]


def _finished(out: Path) -> dict:
    return {p.name: (p / "summary.json").stat().st_mtime_ns
            for p in (out / "points").iterdir() if not p.name.startswith(".") and (p / "summary.json").is_file()}


def test_sweep_killed_with_sigkill_resumes(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    # Longer windows so that the kill lands while points are still running.
    cmd = _sweep_cmd(out, "--jobs", "1", "-s", "run.measure=200s")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "points").is_dir() and len(_finished(out)) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the sweep ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _finished(out)
    assert 2 <= len(before) < 6
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    after = _finished(out)
    assert len(after) == 6
    for key, mtime in before.items():  # every finished point kept, not run again
        assert after[key] == mtime
    assert not list((out / "points").glob(".tmp-*"))
    pts = pl.read_parquet(out / "points.parquet")
    assert pts.height == 6 and pts["point"].n_unique() == 6 and pts["error"].null_count() == 6
    assert sorted(pts["guests[0].count"].unique().to_list()) == [1, 2, 3]
    # Each point's steady-state verdict, as its own summary gives it (20 intervals: a verdict, not
    # "too few intervals").
    for point, verdict in zip(pts["point"].to_list(), pts["steady_state"].to_list()):
        summary = json.loads((out / "points" / point / "summary.json").read_text())
        assert verdict == summary["steady_state"]["verdict"]
        assert verdict in ("stationary", "drifting", "inconclusive"), verdict
    con = duckdb.connect(str(out / "sweep.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 6
        assert con.execute("SELECT count(*) FROM sweep").fetchone()[0] == 6
    finally:
        con.close()


def test_sweep_local_pool_and_dask_agree(tmp_path: Path, runner) -> None:
    pytest.importorskip("distributed", reason="Dask is the optional extra: pip install '.[distributed]'")
    local = invoke(runner, ["sweep", str(DATA / "small.toml"), "--vary", "guests[0].count=1..2", "--seeds", "2",
                            *SHORT, "--jobs", "2", "--out", str(tmp_path / "pool")])
    assert local.exit_code == 0, local.stderr
    dask = subprocess.run([sys.executable, "-m", "zvmsim", "sweep", str(DATA / "small.toml"), "--vary",
                           "guests[0].count=1..2", "--seeds", "2", *SHORT, "--jobs", "2", "--scheduler", "local",
                           "--out", str(tmp_path / "dask")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert dask.returncode == 0, dask.stderr
    a = pl.read_parquet(tmp_path / "pool" / "points.parquet").sort("point")
    b = pl.read_parquet(tmp_path / "dask" / "points.parquet").sort("point")
    assert a.height == 4
    assert a.equals(b)
    sweeps = [pl.read_parquet(tmp_path / d / "sweep.parquet") for d in ("pool", "dask")]
    assert sweeps[0].equals(sweeps[1])


def test_plan_agrees_with_sweep(tmp_path: Path, runner) -> None:
    res = invoke(runner, ["sweep", str(DATA / "small.toml"), "--vary", "guests[0].count=1..4", *TIGHT,
                          "--jobs", "1", "--out", str(tmp_path / "sweep")])
    assert res.exit_code == 0, res.stderr
    agg = pl.read_parquet(tmp_path / "sweep" / "sweep.parquet").sort("guests[0].count")
    resp = dict(zip(agg["guests[0].count"].to_list(), agg["response_ms_mean"].to_list()))
    assert resp[4] > resp[1] * 2  # the question is not trivial: the last value fails
    expected = max(g for g, r in resp.items() if r <= 25)
    assert 1 < expected < 4
    plan = invoke(runner, ["plan", str(DATA / "small.toml"), "--largest", "guests[0].count=1..4",
                           "--keep", "response_ms<=25", *TIGHT, "--jobs", "1", "--out", str(tmp_path / "plan")])
    assert plan.exit_code == 0, plan.stderr
    assert f"keeps response_ms <= 25: {expected}" in " ".join(plan.stdout.split())
    doc = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert doc["answer"] == str(expected)
    for run in doc["runs"]:  # the plan's runs are the sweep's points, figure for figure
        assert run["figures"]["response_ms"] == pytest.approx(resp[int(run["value"])])
    # In the sweep's folder the plan runs nothing new.
    again = invoke(runner, ["plan", str(DATA / "small.toml"), "--largest", "guests[0].count=1..4",
                            "--keep", "response_ms<=25", *TIGHT, "--out", str(tmp_path / "sweep")])
    assert again.exit_code == 0 and "0 new run(s)" in again.stderr, again.stderr


def test_condition_parse() -> None:
    c = Condition.parse("throughput_tx_per_s>=70%")
    assert c.relative and c.op == ">=" and c.bound == 70
    assert c.holds(71.0, 100.0) and not c.holds(69.0, 100.0)
    assert Condition.parse("response_ms <= 50").holds(50.0, None)
    with pytest.raises(ValueError):
        Condition.parse("throughput about 70")


def test_sweep_rejects_bad_vary(runner, tmp_path: Path) -> None:
    res = invoke(runner, ["sweep", str(DATA / "small.toml"), "--vary", "guests[0].count=4..1",
                          "--out", str(tmp_path / "s")])
    assert res.exit_code == 1 and "Traceback" not in res.stderr and "range" in res.stderr
    bad_key = invoke(runner, ["sweep", str(DATA / "small.toml"), "--vary", "lpar.ifl=1,2",
                              "--out", str(tmp_path / "s")])
    assert bad_key.exit_code == 1 and "lpar.ifl" in bad_key.stderr
