"""`zvmsim run` and the results folder."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict

import duckdb
import polars as pl
import pytest
from conftest import ROOT, invoke, quickstart

import zvmsim
from zvmsim import _core
from zvmsim.results import RESULT_FILES, WALL_CLOCK_KEYS


def run_cli(runner: Any, scenario: Path, out: Path, *args: str) -> Dict[str, Any]:
    res = invoke(runner, ["run", str(scenario), "--out", str(out), *args])
    assert res.exit_code == 0, res.output + res.stderr
    assert "Traceback" not in res.output + res.stderr
    return json.loads((out / "summary.json").read_text())


def reproducible(summary: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}


def test_run_writes_results_folder(runner, tmp_path: Path, scenario: Path) -> None:
    out = tmp_path / "out"
    summary = run_cli(runner, scenario, out)
    assert sorted(p.name for p in out.iterdir()) == sorted(RESULT_FILES)

    for key in ("version", "seed", "scenario", "scenario_hash", "wall_seconds", "events",
                "events_per_second", "started_utc", "throughput_tx_per_s"):
        assert key in summary, key
    assert summary["interrupted"] is False
    assert summary["scenario"] == str(scenario)
    assert summary["version"] == _core.__version__

    intervals = pl.read_parquet(out / "intervals.parquet")
    guests = {g["name"] for g in summary["guests"]}
    assert set(intervals["guest"].unique()) == guests
    n_intervals = intervals["interval"].n_unique()
    # The measured window cut into the scenario's intervals.
    first = intervals.row(0, named=True)
    assert n_intervals == summary["intervals"] == round(summary["measured_seconds"] / (first["t_end_s"] - first["t_start_s"]))
    # One row per (interval, guest): no duplicates, none missing.
    assert intervals.height == n_intervals * len(guests)
    assert intervals.select(["interval", "guest"]).is_duplicated().sum() == 0
    assert intervals.columns[:4] == ["interval", "t_start_s", "t_end_s", "guest"]
    system = pl.read_parquet(out / "system.parquet")
    assert system.height == n_intervals

    con = duckdb.connect(str(out / "results.duckdb"), read_only=True)
    try:
        tables = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
        assert {"intervals", "system", "console", "summary"} <= tables
        assert con.execute("SELECT count(*) FROM intervals").fetchone()[0] == intervals.height
        assert con.execute("SELECT count(*) FROM summary").fetchone()[0] == 1
        thr = con.execute("SELECT throughput_tx_per_s FROM summary").fetchone()[0]
        assert thr == pytest.approx(summary["throughput_tx_per_s"])
        console = json.loads((out / "console.json").read_text())
        assert con.execute("SELECT count(*) FROM console").fetchone()[0] == len(console)
    finally:
        con.close()


def test_results_folder_can_move(runner, tmp_path: Path, scenario: Path) -> None:
    run_cli(runner, scenario, tmp_path / "a")
    (tmp_path / "a").rename(tmp_path / "b")
    con = duckdb.connect(str(tmp_path / "b" / "results.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM intervals").fetchone()[0] > 0
    con.close()
    loaded = zvmsim.load_results(tmp_path / "b")
    assert loaded.intervals.height > 0


def test_same_seed_same_figures_other_seed_other_figures(runner, tmp_path: Path, scenario: Path) -> None:
    a = run_cli(runner, scenario, tmp_path / "a", "--seed", "3")
    b = run_cli(runner, scenario, tmp_path / "b", "--seed", "3")
    c = run_cli(runner, scenario, tmp_path / "c", "--seed", "4")
    assert reproducible(a) == reproducible(b)
    assert pl.read_parquet(tmp_path / "a" / "intervals.parquet").equals(
        pl.read_parquet(tmp_path / "b" / "intervals.parquet"))
    figures = lambda s: {k: v for k, v in reproducible(s).items() if k != "seed"}  # noqa: E731
    assert a["seed"] == 3 and c["seed"] == 4
    assert figures(a) != figures(c)


def test_default_out_dir_is_out_stem(runner, tmp_path: Path, scenario: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke(runner, ["run", str(scenario)])
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "out" / scenario.stem / "summary.json").is_file()


def test_summary_table_shows_key_figures(runner, tmp_path: Path, scenario: Path) -> None:
    res = invoke(runner, ["run", str(scenario), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0
    assert "throughput" in res.stdout and "CPU LPAR" in res.stdout
    assert "Guests" in res.stdout


class _InterruptAfter:
    """Wraps a Simulation; the third chunk delivers a real SIGINT to this process, as Ctrl-C would."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        self._sim = _RealSimulation(*args, **kw)
        self._calls = 0

    def step_until(self, t_ns: int) -> int:
        self._calls += 1
        n = self._sim.step_until(t_ns)
        if self._calls == 3:
            signal.raise_signal(signal.SIGINT)
        return n

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)


_RealSimulation = _core.Simulation


def test_ctrl_c_keeps_partial_results(runner, tmp_path: Path, scenario: Path, monkeypatch) -> None:
    monkeypatch.setattr(_core, "Simulation", _InterruptAfter)
    out = tmp_path / "out"
    res = invoke(runner, ["run", str(scenario), "--out", str(out)])
    assert res.exit_code == 130, res.output + res.stderr
    assert "Traceback" not in res.output + res.stderr
    assert "interrupted at t=" in res.stderr and "(simulated)" in res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    assert (out / "results.duckdb").is_file()


def test_ctrl_c_subprocess(tmp_path: Path, scenario: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "zvmsim", "run", str(scenario), "--out", str(out),
         "--set", "run.measure=100000s"],  # long, within the bounds of a run
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # "running ..." is printed once the handler is about to be set
    assert first.startswith("running"), first
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stdout + stderr
    assert "interrupted at t=" in stderr
    assert json.loads((out / "summary.json").read_text())["interrupted"] is True


def test_check_ok(runner, small_scenario: Path) -> None:
    res = invoke(runner, ["check", str(small_scenario)])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("ok: ")


def test_quickstart_checks(runner) -> None:
    res = invoke(runner, ["check", str(quickstart())])
    assert res.exit_code == 0, res.stderr
    assert "volumes of mixed sizes" not in res.stdout


def test_check_tells_where_mixed_paging_volumes_fill(runner) -> None:
    """The study's 31 3390-3 beside 10 3390-9: CP takes the volumes in turn, so the 3390-3s
    are full at two thirds of the slots; 21 equal volumes draw no note."""
    study = ROOT / "scenarios" / "large-memory" / "zvm53-10guests.toml"
    res = invoke(runner, ["check", str(study)])
    assert res.exit_code == 0, res.stderr
    note = " ".join(line for line in res.stdout.splitlines() if line.startswith("paging:") or "3390" in line)
    assert "the 31 3390-3 are full when 25,041,037 slots are in use (67 % of 37,256,177" in note
    assert "every new block goes to the 10 3390-9" in note
    res = invoke(runner, ["check", str(study), "--set", 'paging.volumes=[{model="3390-9",count=21}]'])
    assert res.exit_code == 0, res.stderr
    assert "mixed sizes" not in res.stdout


def test_schema_is_json(runner) -> None:
    res = invoke(runner, ["schema"])
    assert res.exit_code == 0
    assert isinstance(json.loads(res.stdout), dict)


def test_version(runner) -> None:
    res = invoke(runner, ["--version"])
    assert res.exit_code == 0
    assert _core.__version__ in res.stdout


OVERCOMMITTED = ROOT / "tests" / "data" / "overcommitted.toml"


def test_bench_json(runner) -> None:
    res = invoke(runner, ["bench", "--json", "--quick", "--scenario", str(OVERCOMMITTED)])
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    # The quick variant's fixed sizes, and a storage model that did reach DASD.
    assert data["quick"] is True
    assert data["queue_events"] == data["page_refs"] == 5_000_000
    assert 0 < data["page_refs_dasd_faults"] < data["page_refs"]
    # The whole model ran the shortened scenario: 30 s simulated, every event a few page
    # references at most, and a footprint per guest page in a plausible range (the arrays
    # are a few tens of bytes per page; more than 200 would be a regression).
    assert data["model_simulated_seconds"] == 30.0
    assert data["model_guest_pages"] > 0
    assert 0 < data["model_page_refs"] < 100 * data["model_events"]
    assert data["model_events_per_second"] > 0 and data["model_page_refs_per_second"] > 0
    if data["model_bytes_per_guest_page"] is not None:
        assert data["model_bytes_per_guest_page"] < 200


def test_bench_default_scenario_exists() -> None:
    from zvmsim.cli import BENCH_SCENARIO

    assert (ROOT / BENCH_SCENARIO).is_file()


def test_bench_table(runner) -> None:
    res = invoke(runner, ["bench", "--quick", "--scenario", str(OVERCOMMITTED)])
    assert res.exit_code == 0
    assert "model_page_refs_per_second" in res.stdout
    assert "events_per_second" in res.stdout


def test_console_script_help() -> None:
    res = subprocess.run([sys.executable, "-m", "zvmsim", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0
    assert "validate" in res.stdout


def test_out_dir_unwritable(runner, tmp_path: Path, scenario: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = invoke(runner, ["run", str(scenario), "--out", str(blocker / "sub")])
    assert res.exit_code == 1
    assert "Traceback" not in res.output + res.stderr
    assert str(blocker) in res.stderr


def test_print_summary_copes_with_any_shape(capsys) -> None:
    from zvmsim.cli import print_summary

    print_summary({
        "throughput_tx_per_s": 12.5, "ended": "completed", "nested": {"a": 1}, "nan_figure": float("nan"),
        "none_figure": None, "count": 3, "guests": [{"name": "LNX01", "x_" * 30: 1.0}, {"name": "LNX02"}],
    })
    out = capsys.readouterr().out
    assert "throughput" in out and "ended completed" in out and "LNX02" in out


def test_page_locations_per_guest_add_up_to_the_system(scenario: Path) -> None:
    r = zvmsim.run(scenario)
    cols = ["pages_resident_below_2g", "pages_resident_above_2g", "pages_xstor", "pages_dasd"]
    per_guest = r.intervals.group_by("interval").agg([pl.col(c).sum() for c in cols]).sort("interval")
    system = r.system.sort("interval").select(["interval", *cols])
    assert per_guest.height == system.height > 0
    for c in cols:
        assert per_guest[c].cast(pl.Float64).to_list() == system[c].cast(pl.Float64).to_list(), c
    # The quickstart overcommits: some guest has pages out of storage.
    assert per_guest["pages_xstor"].sum() + per_guest["pages_dasd"].sum() > 0
