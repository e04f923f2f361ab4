"""Steady state of the ten-guest z/VM 5.3 study run from the stationary warm start: doubling
its measured window moves its headline figures by less than 5 % (issue 9), and the check finds
its storage figures stationary and its throughput declining by about its tolerance.

The shipped scenario still uses the ordered start (its tables were calibrated on it, and it
drifts); this test runs the configuration in which the model is stationary: the stationary start,
six minutes of priming, and pages read back from DASD giving up their slots (pre-6.3 CP without
KEEPSLOT), at the popularity skew that puts the ten-guest throughput near the study's. See
docs/steady-state.md (the measurements moved there from docs/calibration.md).

The check's verdict on throughput is not asserted: over the doubled six-minute window it falls
by 4.3 to 5.1 % by seed (seeds 1 to 3, 2026-11-28, before and after the gets got a stream of
their own), on both sides of the check's 5 % tolerance, so the verdict is stationary or drifting
by seed (docs/settled-state.md: throughput keeps falling for about 40 minutes). Asserted
instead: the storage figures stationary, and the throughput's decline within twice the
tolerance.

One run with the window doubled gives both answers: the run is deterministic, so its first half
is exactly the run with the shipped window (same seed, same events up to that point), and the
summary's levels and rates are means over equal intervals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import polars as pl
import zvmsim
from zvmsim import _core
from zvmsim.runner import priming_seconds

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "large-memory" / "zvm53-10guests.toml"
INTERVAL_S = 30
STATIONARY = (
    "run.warm_start=stationary",
    "run.priming=6m",
    f"run.interval={INTERVAL_S}s",
    "model.keep_slot_on_pagein=false",
    "workloads.oltp.database.skew=4.2",
)
FIGURES = ("throughput_tx_per_s", "pages_dasd", "real_overcommit_pct")


def _means(rows: pl.DataFrame) -> Dict[str, float]:
    return {f: float(rows[f].mean()) for f in FIGURES}


def test_doubling_the_window_moves_the_headline_figures_by_less_than_5_percent() -> None:
    # The shipped measured window, resolved by the core (units, overrides).
    text = SCENARIO.read_text()
    priming = priming_seconds(text, str(SCENARIO), STATIONARY)
    assert priming is not None
    measure = float(_core.check(text, str(SCENARIO), list(STATIONARY))["end_s"]) - priming
    shipped = int(round(measure / INTERVAL_S))
    assert shipped >= 4, "the shipped window needs enough intervals for the trend test"
    r = zvmsim.run(str(SCENARIO), overrides=[*STATIONARY, f"run.measure={int(2 * measure)}s"])
    rows = r.system.sort("interval")
    assert rows.height == 2 * shipped
    short, doubled = _means(rows.head(shipped)), _means(rows)
    for f in FIGURES:
        change = (doubled[f] - short[f]) / short[f] * 100.0
        print(f"{f}: {short[f]:.1f} over {measure:.0f} s, {doubled[f]:.1f} over {2 * measure:.0f} s ({change:+.2f} %)")
        change = abs(change)
        assert change < 5.0, f"{f}: {short[f]:.1f} over {measure:.0f} s, {doubled[f]:.1f} over {2 * measure:.0f} s"
    check = r.summary["steady_state"]
    figures = {f["figure"]: f for f in check["figures"]}
    for f in ("pages_dasd", "real_overcommit_pct"):
        assert not figures[f]["drifting"], check
    assert abs(figures["throughput_tx_per_s"]["drift_pct"]) < 2 * check["tolerance_pct"], check
    # The run overcommits storage: the check is not vacuous.
    assert short["pages_dasd"] > 10_000_000


def test_the_shipped_scenario_passes_the_doubling_check_too() -> None:
    # Issue 9's must-show as stated: the shipped ten-guest 5.3 scenario (ordered start, its own
    # priming, window and intervals), measured over twice its window. Its run still drifts (the
    # warm start's blocks wear off: docs/steady-state.md, "Companion takes move the hand"), so only
    # the doubling is asserted, not the verdict.
    text = SCENARIO.read_text()
    priming = priming_seconds(text, str(SCENARIO), ())
    assert priming is not None
    measure = float(_core.check(text, str(SCENARIO), [])["end_s"]) - priming
    r = zvmsim.run(str(SCENARIO), overrides=[f"run.measure={int(2 * measure)}s"])
    rows = r.system.sort("interval")
    assert rows.height >= 6 and rows.height % 2 == 0
    short, doubled = _means(rows.head(rows.height // 2)), _means(rows)
    for f in FIGURES:
        change = (doubled[f] - short[f]) / short[f] * 100.0
        print(f"{f}: {short[f]:.1f} over {measure:.0f} s, {doubled[f]:.1f} over {2 * measure:.0f} s ({change:+.2f} %)")
        assert abs(change) < 5.0, f"{f}: {short[f]:.1f} over {measure:.0f} s, {doubled[f]:.1f} over {2 * measure:.0f} s"
    assert short["pages_dasd"] > 20_000_000


def test_the_quickstart_reports_its_settled_state() -> None:
    # The README's first command: primed for 40 simulated minutes, the quickstart's window is
    # stationary by its own check; primed for 30 s, as it was before, the same system drifts
    # (the warm start's transient), so the check is not vacuous.
    path = str(ROOT / "scenarios" / "quickstart.toml")
    settled = zvmsim.run(path).summary["steady_state"]
    assert settled["verdict"] == "stationary", settled
    assert settled["intervals"] == 10
    console = [f"console[{i}].at=5m" for i in (1, 2, 3)]
    early = zvmsim.run(path, overrides=["run.priming=30s", *console]).summary["steady_state"]
    assert early["verdict"] == "drifting", early
    assert "pages_dasd" in early["drifting"], early
