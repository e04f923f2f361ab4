"""IBM, "z/VM Large Memory - Linux on System z", Tables 5 and 6.

One LPAR, Linux guests running the same workload added one at a time (5 to 10) so that the
planned memory overcommitment grows 0..100 %; measured on z/VM 5.2 and on z/VM 5.3, whose
paging to expanded storage (XSTOR) and DASD differ. Throughput is relative to the 5-guest run
of the same z/VM level.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from . import Case, CaseKey, Metric, Study, Tolerance, figure, register, series

GUESTS = (5, 6, 7, 8, 9, 10)
LEVELS = {"5.2": "zvm52", "5.3": "zvm53"}

# Table 5 (z/VM 5.2) and Table 6 (z/VM 5.3), one value per guest count in GUESTS.
PAGES_XSTOR = {
    "5.2": [267907, 1034590, 1032323, 1039500, 1038750, 1045785],
    "5.3": [263193, 1031469, 1030564, 1033732, 1034246, 1034667],
}
PAGES_DASD = {
    "5.2": [0, 6280409, 13128704, 18219008, 20236288, 20754432],
    "5.3": [0, 5905366, 11152384, 16862208, 21728256, 25014272],
}
REAL_OVERCOMMIT_PCT = {
    "5.2": [1, 35, 68, 92, 101, 104],
    "5.3": [1, 33, 58, 85, 109, 124],
}
# What the scenarios are sized for (guest storage vs. central storage); context, not compared.
PLANNED_OVERCOMMIT_PCT = {
    "5.2": [0, 20, 40, 60, 80, 100],
    "5.3": [0, 20, 40, 60, 80, 100],
}
THROUGHPUT_PCT_OF_BASELINE = {
    "5.2": [100, 52, 47, 41, 38, 31],
    "5.3": [100, 82, 77, 70, 65, 58],
}

# Shortened run control for `zvmsim validate --quick`; tune together with the scenarios.
QUICK_OVERRIDES = ("run.priming=30s", "run.measure=60s", "run.interval=30s")

BASELINE_GUESTS = 5


def _paper() -> Dict[CaseKey, Dict[str, Optional[float]]]:
    tables = {
        "throughput_pct_of_baseline": THROUGHPUT_PCT_OF_BASELINE,
        "pages_xstor": PAGES_XSTOR,
        "pages_dasd": PAGES_DASD,
        "real_overcommit_pct": REAL_OVERCOMMIT_PCT,
    }
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for metric, table in tables.items():
        for key, value in series(table, GUESTS).items():
            out.setdefault(key, {})[metric] = value
    return out


def _derive(summaries: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for (level, guests), s in summaries.items():
        base = figure(summaries.get((level, BASELINE_GUESTS)), "throughput_tx_per_s")
        thr = figure(s, "throughput_tx_per_s")
        out[(level, guests)] = {
            "throughput_pct_of_baseline": thr / base * 100.0 if thr is not None and base else None,
            "pages_xstor": figure(s, "pages_xstor"),
            "pages_dasd": figure(s, "pages_dasd"),
            "real_overcommit_pct": figure(s, "real_overcommit_pct"),
        }
    return out


STUDY = register(
    Study(
        name="large-memory",
        title="z/VM Large Memory - Linux on System z (Tables 5 and 6)",
        source="IBM, z/VM Large Memory - Linux on System z, Tables 5 and 6",
        cases=tuple(
            Case(level, g, f"large-memory/{prefix}-{g}guests.toml") for level, prefix in LEVELS.items() for g in GUESTS
        ),
        paper=_paper(),
        metrics=(
            # The 5-guest run is the baseline (100 by definition), so only 6..10 guests are checked.
            Metric("throughput_pct_of_baseline", "%", Tolerance(10, min_guests=BASELINE_GUESTS + 1), "throughput %"),
            Metric("pages_xstor", "pages", label="XSTOR pages"),
            Metric("pages_dasd", "pages", Tolerance(25), "DASD pages"),
            Metric("real_overcommit_pct", "%", Tolerance(15), "real overcommit %"),
        ),
        derive=_derive,
        quick_overrides=QUICK_OVERRIDES,
        notes="planned overcommit 0..100 % for 5..10 guests",
    )
)
