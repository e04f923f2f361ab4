"""`zvmsim validate cmm`: the study's derivation and orderings on synthetic summaries (no runs),
the JSON rows, and the steady-state marks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, Optional

import pytest
from conftest import DATA, invoke

from zvmsim import validate as v
from zvmsim.runner import steady_state_line
from zvmsim.studies import all_studies, compare
from zvmsim.studies import cmm


def _summary(thr: float, lpar: float = 90.0, guests: float = 80.0, real: float = 120.0,
             planned: float = 100.0, drifting: Optional[list] = None, **extra: Any) -> Dict[str, Any]:
    s: Dict[str, Any] = {
        "throughput_tx_per_s": thr, "cpu_lpar_pct": lpar, "cpu_guests_pct": guests, "cpu_cp_pct": lpar - guests,
        "pages_xstor": 1_000_000, "pages_dasd": 20_000_000, "real_overcommit_pct": real,
        "planned_overcommit_pct": planned, "ms_to_xs_per_s": 5000.0, "xs_to_dasd_per_s": 4000.0,
    }
    if drifting is not None:
        s["steady_state"] = {"stationary": not drifting, "intervals": 9, "tolerance_pct": 5.0,
                             "drifting": drifting, "figures": []}
    s.update(extra)
    return s


def _all_held() -> Dict[Any, Dict[str, Any]]:
    return {
        cmm.BASELINE: _summary(1000.0, lpar=95, guests=90, real=1, planned=0),
        cmm.ZVM52: _summary(300.0, lpar=80, guests=50),
        cmm.ZVM53: _summary(600.0, lpar=90, guests=75),
        cmm.CMMA: _summary(650.0),
        cmm.VMRM: _summary(700.0),
        cmm.BOTH: _summary(680.0),
        cmm.DOUBLED: _summary(590.0, lpar=90, guests=75),
    }


def test_cmm_registered_with_the_studys_cases() -> None:
    study = all_studies()["cmm"]
    assert study is cmm.STUDY
    assert [c.scenario for c in study.cases] == [
        "large-memory/zvm52-10guests.toml", "large-memory/zvm53-10guests.toml",
        "cmm/zvm53-10guests-cmma.toml", "cmm/zvm53-10guests-vmrm-cmm.toml",
        "cmm/zvm53-10guests-vmrm-cmm-cmma.toml", "large-memory/zvm53-5guests.toml",
        "large-memory/zvm53-10guests.toml"]
    # The last case is the 5.3 ten-guest scenario with its measured window doubled.
    assert study.cases[-1].key == cmm.DOUBLED
    assert study.cases[-1].overrides == () and study.cases[-1].measure_factor == 2
    # Measured values are withheld; the one value the text states is compared.
    assert study.paper == {cmm.ZVM53: {cmm.THROUGHPUT_VS_52: 190.0}}
    assert [m.name for m in study.metrics if m.tolerance is not None] == [cmm.THROUGHPUT_VS_52]


def test_derive_relative_throughputs() -> None:
    d = cmm._derive(_all_held())
    assert d[cmm.ZVM52][cmm.THROUGHPUT_VS_52] == pytest.approx(100.0)
    assert d[cmm.ZVM53][cmm.THROUGHPUT_VS_52] == pytest.approx(200.0)
    assert d[cmm.VMRM][cmm.THROUGHPUT_VS_BASELINE] == pytest.approx(70.0)
    assert d[cmm.ZVM52][cmm.OVERHEAD] == pytest.approx(30.0)
    assert d[cmm.CMMA]["xs_to_dasd_per_s"] == 4000.0
    # Without the 5.2 run, no throughput relative to it (rather than a wrong one).
    partial = {k: s for k, s in _all_held().items() if k != cmm.ZVM52}
    assert cmm._derive(partial)[cmm.ZVM53][cmm.THROUGHPUT_VS_52] is None


def test_orderings_held() -> None:
    rows = v.ordering_rows(cmm.STUDY, _all_held())
    assert len(rows) == len(cmm.ORDERINGS)
    assert [r["held"] for r in rows] == [True] * len(rows)
    real = next(r for r in rows if r["metric"] == "real_overcommit_pct")
    assert (real["greater"], real["lesser"]) == (120.0, 100.0)


def test_orderings_missed_and_unknown() -> None:
    s = _all_held()
    s[cmm.CMMA] = _summary(550.0)  # CMMA below plain 5.3
    del s[cmm.VMRM]  # VMRM-CMM did not run
    held = {r["ordering"]: r["held"] for r in v.ordering_rows(cmm.STUDY, s)}
    assert held["CMMA improves 5.3 at ten guests"] is False
    assert held["VMRM-CMM improves 5.3 at ten guests"] is None
    assert held["z/VM 5.3 above z/VM 5.2 at ten guests"] is True
    assert held["VMRM-CMM above CMMA at ten guests (the study recommends VMRM-CMM)"] is None
    # The recommendation fails when CMMA, alone or with VMRM-CMM, moves more than VMRM-CMM alone.
    s = _all_held()
    s[cmm.CMMA], s[cmm.BOTH] = _summary(720.0), _summary(690.0)
    held = {r["ordering"]: r["held"] for r in v.ordering_rows(cmm.STUDY, s)}
    assert held["VMRM-CMM above CMMA at ten guests (the study recommends VMRM-CMM)"] is False
    assert held["VMRM-CMM above VMRM-CMM with CMMA at ten guests (the study recommends VMRM-CMM)"] is True
    # 5.3 faster than 5.2 is checked on the relative figure, so it fails when 5.2 is faster.
    s[cmm.ZVM52] = _summary(900.0)
    held = {r["ordering"]: r["held"] for r in v.ordering_rows(cmm.STUDY, s)}
    assert held["z/VM 5.3 above z/VM 5.2 at ten guests"] is False


def test_optional_metrics_only_when_present() -> None:
    s = _all_held()
    rows = v.drop_absent_optional(cmm.STUDY, compare(cmm.STUDY, s))
    assert not {r.metric for r in rows} & cmm.OPTIONAL_METRICS
    s[cmm.CMMA]["guest_discard_faults"] = 1234
    rows = v.drop_absent_optional(cmm.STUDY, compare(cmm.STUDY, s))
    discard = [r for r in rows if r.metric == "guest_discard_faults"]
    assert len(discard) == len(cmm.CASES)
    assert [r.simulated for r in discard if r.simulated is not None] == [1234.0]


def test_balloon_rows_sum_the_guests() -> None:
    # The balloon is a per-guest figure; the study prints its total over the guests.
    s = _all_held()
    s[cmm.VMRM]["guests"] = [{"cmm_pages_mean": 1000.0, "cmm_diag10_pages": 900},
                             {"cmm_pages_mean": 500.5, "cmm_diag10_pages": 400}]
    rows = v.drop_absent_optional(cmm.STUDY, compare(cmm.STUDY, s))
    by = {((r.level, r.guests), r.metric): r.simulated for r in rows}
    assert by[(cmm.VMRM, "cmm_pages_mean")] == 1500.5
    assert by[(cmm.VMRM, "cmm_diag10_pages")] == 1300.0
    # Cases without a balloon print none.
    assert by[(cmm.CMMA, "cmm_pages_mean")] is None


def test_json_rows_fields_and_drift_marks() -> None:
    s = _all_held()
    s[cmm.ZVM53]["steady_state"] = {"drifting": ["pages_dasd"], "stationary": False, "verdict": "drifting"}
    s[cmm.CMMA]["steady_state"] = {"drifting": [], "undetermined": ["throughput_tx_per_s"], "stationary": False,
                                   "verdict": "inconclusive"}
    outcomes = [v.CaseOutcome("cmm", c, s[c.key], None, 1.0) for c in cmm.CASES]
    rows = v.drop_absent_optional(cmm.STUDY, compare(cmm.STUDY, s))
    out = v.json_rows(rows, outcomes, [cmm.STUDY])
    json.dumps(out)  # serializable
    figures = [r for r in out if r["kind"] == "figure"]
    orderings = [r for r in out if r["kind"] in ("ordering", "window")]
    assert len(figures) == len(cmm.CASES) * (len(cmm.STUDY.metrics) - len(cmm.OPTIONAL))
    assert len(orderings) == len(cmm.ORDERINGS)
    for r in figures:
        assert {"study", "case", "metric", "simulated", "unit"} <= set(r)
        assert r["study"] == "cmm"
    for r in orderings:
        assert {"study", "case", "metric", "held", "greater", "lesser", "source"} <= set(r)
    thr = next(r for r in figures if r["case"] == "z/VM 5.3 CMMA, 10 guests" and r["metric"] == cmm.THROUGHPUT_VS_52)
    assert thr["simulated"] == pytest.approx(650 / 300 * 100) and thr["unit"] == "%"
    assert next(r for r in figures if r["level"] == "5.3" and r["guests"] == 10)["drifting"] == ["pages_dasd"]
    assert next(r for r in figures if r["level"] == "5.2")["drifting"] is None  # no check in the summary
    assert v.drifting_cases(outcomes) == {("cmm", cmm.ZVM53): ["pages_dasd"]}
    assert v.steady_marks(outcomes) == {("cmm", cmm.ZVM53): "~", ("cmm", cmm.CMMA): "?"}
    cmma = next(r for r in figures if r["case"] == "z/VM 5.3 CMMA, 10 guests")
    assert (cmma["drifting"], cmma["steady_state"]) == ([], "inconclusive")
    assert thr["steady_state"] == "inconclusive"


def test_steady_state_line() -> None:
    steady = {"steady_state": {"stationary": True, "intervals": 9, "tolerance_pct": 5.0, "drifting": []}}
    assert steady_state_line(steady) == "steady state: stationary over 9 intervals (tolerance 5 %)"
    drifting = {"steady_state": {
        "stationary": False, "intervals": 9, "tolerance_pct": 5.0, "drifting": ["pages_dasd", "throughput_tx_per_s"],
        "figures": [{"figure": "throughput_tx_per_s", "drift_pct": -8.14}, {"figure": "pages_dasd", "drift_pct": 12.3},
                    {"figure": "cpu_cp_pct", "drift_pct": 2.0}]}}
    line = steady_state_line(drifting)
    assert line is not None and line.startswith("steady state: DRIFTING — ")
    assert "throughput_tx_per_s -8.1 %/window, pages_dasd +12.3 %/window" in line
    assert "cpu_cp_pct" not in line and "lengthen run.priming" in line
    unsure = {"steady_state": {
        "stationary": False, "verdict": "inconclusive", "intervals": 3, "tolerance_pct": 5.0, "drifting": [],
        "undetermined": ["throughput_tx_per_s"],
        "figures": [{"figure": "throughput_tx_per_s", "drift_pct": 2.1, "detectable_pct": 46.0},
                    {"figure": "pages_dasd", "drift_pct": 1.4, "detectable_pct": 2.8}]}}
    line = steady_state_line(unsure) or ""
    assert line.startswith("steady state: inconclusive over 3 intervals — "), line
    assert "throughput_tx_per_s only a change over 46 %/window would show" in line and "pages_dasd" not in line
    assert "shorten run.interval" in line
    short = {"steady_state": {"stationary": False, "intervals": 2, "tolerance_pct": 5.0, "drifting": []}}
    assert "too few intervals" in (steady_state_line(short) or "")
    assert steady_state_line({}) is None


def test_validate_cmm_cli_with_stand_in_scenarios(runner, tmp_path: Path) -> None:
    """The command end to end, each case a copy of our small fixture (the study's own scenarios
    are far too large for a test): the table, the orderings, and the JSON rows."""
    for case in cmm.CASES:
        dest = tmp_path / case.scenario
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / "small.toml", dest)
    args = ["validate", "cmm", "--jobs", "1", "--scenarios", str(tmp_path)]
    res = invoke(runner, args + ["--json"])
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    figures = [r for r in rows if r["kind"] == "figure"]
    assert {r["case"] for r in figures} == {f"z/VM {c.level}, {c.guests} guests" for c in cmm.CASES}
    # Identical runs: every case at 100 % of 5.2, so no "improves" ordering holds.
    # (The window-doubled case measures longer, so its figures differ.)
    doubled = f"z/VM {cmm.DOUBLED[0]}, {cmm.DOUBLED[1]} guests"
    rel = [r["simulated"] for r in figures if r["metric"] == cmm.THROUGHPUT_VS_52 and r["case"] != doubled]
    assert rel == [pytest.approx(100.0)] * (len(cmm.CASES) - 1)
    assert {r["metric"] for r in rows if r["kind"] == "window"} == set(cmm.WINDOW_METRICS)
    held = {r["ordering"]: r["held"] for r in rows if r["kind"] == "ordering"}
    assert held["CMMA improves 5.3 at ten guests"] is False
    res = invoke(runner, args)
    assert res.exit_code == 0, res.stderr
    assert "MISSED" in res.stdout and "orderings held" in res.stdout


def test_window_doubling_check() -> None:
    """Throughput 1.7 % lower with the window doubled holds; 6.5 % lower misses; no run, no verdict."""
    s = _all_held()
    rows = {r["metric"]: r for r in v.ordering_rows(cmm.STUDY, s) if r["kind"] == "window"}
    assert rows["throughput_tx_per_s"]["held"] is True
    assert rows["throughput_tx_per_s"]["change_pct"] == pytest.approx(-10 / 600 * 100)
    assert rows["pages_dasd"]["held"] is True and rows["pages_dasd"]["change_pct"] == 0.0
    s[cmm.DOUBLED] = _summary(561.0, real=125.5)
    rows = {r["metric"]: r for r in v.ordering_rows(cmm.STUDY, s) if r["kind"] == "window"}
    assert rows["throughput_tx_per_s"]["held"] is False
    assert "(-6.5 %)" in rows["throughput_tx_per_s"]["ordering"]
    assert rows["real_overcommit_pct"]["held"] is True  # +4.6 %
    del s[cmm.DOUBLED]
    rows = [r for r in v.ordering_rows(cmm.STUDY, s) if r["kind"] == "window"]
    assert [r["held"] for r in rows] == [None] * len(cmm.WINDOW_METRICS)


def test_case_overrides_follow_the_study_overrides(monkeypatch, tmp_path: Path) -> None:
    """Each case runs with the study's run control, then its own (full or quick), then the
    user's `--set`; the window-doubled case measures twice whatever window that leaves."""
    for case in cmm.CASES:
        dest = tmp_path / case.scenario
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / "small.toml", dest)  # measures 60 s
    seen = []
    monkeypatch.setattr(v, "run_case", lambda path, ovr: (seen.append(tuple(ovr)), (None, "x", 0.0))[1])
    v.run_studies([cmm.STUDY], quick=True, jobs=1, scenarios=tmp_path)
    assert cmm.CASES[-1].key == cmm.DOUBLED
    assert seen[-1] == cmm.QUICK_OVERRIDES + ("run.measure=120000ms",)
    assert seen[0] == cmm.QUICK_OVERRIDES
    seen.clear()
    v.run_studies([cmm.STUDY], quick=False, jobs=1, scenarios=tmp_path)
    assert seen[-1] == ("run.measure=120000ms",) and seen[0] == ()
    seen.clear()
    v.run_studies([cmm.STUDY], quick=True, jobs=1, scenarios=tmp_path, sets=("run.measure=5m", "run.interval=30s"))
    assert seen[0] == cmm.QUICK_OVERRIDES + ("run.measure=5m", "run.interval=30s")
    assert seen[-1] == seen[0] + ("run.measure=600000ms",)
