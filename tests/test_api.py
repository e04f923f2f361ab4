"""The Python API: zvmsim.run, Result, load_results, the scenario inputs."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import zvmsim
from zvmsim._scenario import dumps_toml, resolve


def test_run_path(scenario: Path) -> None:
    r = zvmsim.run(scenario, seed=5)
    assert isinstance(r.summary, dict)
    assert r.summary["seed"] == 5 and r.summary["interrupted"] is False
    assert r.summary["throughput_tx_per_s"] > 0
    assert isinstance(r.intervals, pl.DataFrame) and r.intervals.height > 0
    assert isinstance(r.system, pl.DataFrame) and r.system.height > 0
    assert isinstance(r.console, list)
    assert r.guests.height == len(r.summary["guests"])


def test_run_text_dict_and_path_agree(scenario: Path) -> None:
    text = scenario.read_text()
    doc = pytest.importorskip("tomllib").loads(text)
    by_path = zvmsim.run(str(scenario)).summary
    by_text = zvmsim.run(text).summary
    by_dict = zvmsim.run(doc).summary
    assert by_text["scenario"] == "<string>" and by_dict["scenario"] == "<dict>"
    for s in (by_text, by_dict):
        assert s["throughput_tx_per_s"] == by_path["throughput_tx_per_s"]


def test_run_out_and_load_results(tmp_path: Path, scenario: Path) -> None:
    calls = []
    r = zvmsim.run(scenario, out=tmp_path / "o", overrides=["run.seed=11"], progress=calls.append)
    assert calls and calls[-1].fraction == 1.0
    assert r.summary["overrides"] == ["run.seed=11"]
    back = zvmsim.load_results(tmp_path / "o")
    assert back.summary == r.summary
    assert back.intervals.equals(r.intervals)
    assert back.system.equals(r.system)


def test_load_results_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        zvmsim.load_results(tmp_path)


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        zvmsim.run(tmp_path / "nope.toml")
    with pytest.raises(FileNotFoundError):
        zvmsim.run("nope.toml")


def test_dumps_toml_round_trip(scenario: Path) -> None:
    tomllib = pytest.importorskip("tomllib")  # stdlib from Python 3.11
    doc = tomllib.loads(scenario.read_text())
    doc["odd key"] = {"s": 'quote " and \\ and \n', "f": 1.5, "b": True, "l": [1, 2], "nested": {"x": 1}}
    assert tomllib.loads(dumps_toml(doc)) == doc


def test_resolve_kinds(scenario: Path) -> None:
    text = scenario.read_text()
    assert resolve(scenario) == (text, str(scenario))
    assert resolve(text)[1] == "<string>"
    assert resolve({"a": 1}) == ("a = 1\n", "<dict>")
