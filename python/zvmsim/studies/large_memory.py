"""IBM, "z/VM Large Memory - Linux on System z", Tables 5 and 6.

One LPAR, Linux guests running the same workload added one at a time (5 to 10) so that the
planned memory overcommitment grows 0..100 %; measured on z/VM 5.2 and on z/VM 5.3, whose
paging to expanded storage (XSTOR) and DASD differ. Throughput is relative to the 5-guest run
of the same z/VM level.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from . import Case, CaseKey, Metric, Tolerance, figure, register, series
from .cmm import OrderedStudy, Ordering

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


# The figures the study shows as charts only (Figures 5, 7, 9, 11, 13, 14, 16): no values to
# compare, but its text orders them (``ORDERINGS``).
CHARTED = ("cpu_lpar_pct", "cpu_guests_pct", "ms_to_xs_per_s", "xs_to_dasd_per_s", "dasd_to_ms_per_s")
OVERHEAD = "cpu_overhead_pct"  # LPAR load minus the guests' load, as the study computes it
DASD_STEP = "pages_dasd_step"  # pages on DASD added by this guest (Figure 15's slope)


def _derive(summaries: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for (level, guests), s in summaries.items():
        base = figure(summaries.get((level, BASELINE_GUESTS)), "throughput_tx_per_s")
        thr = figure(s, "throughput_tx_per_s")
        dasd, before = figure(s, "pages_dasd"), figure(summaries.get((level, guests - 1)), "pages_dasd")
        lpar, guest_cpu = figure(s, "cpu_lpar_pct"), figure(s, "cpu_guests_pct")
        out[(level, guests)] = {
            "throughput_pct_of_baseline": thr / base * 100.0 if thr is not None and base else None,
            "pages_xstor": figure(s, "pages_xstor"),
            "pages_dasd": dasd,
            "real_overcommit_pct": figure(s, "real_overcommit_pct"),
            **{k: figure(s, k) for k in CHARTED},
            OVERHEAD: lpar - guest_cpu if lpar is not None and guest_cpu is not None else None,
            DASD_STEP: dasd - before if dasd is not None and before is not None else None,
        }
    return out


def _o(name: str, metric: str, greater: CaseKey, lesser: CaseKey, source: str, margin: float,
       lesser_metric: Optional[str] = None) -> Ordering:
    return Ordering(name, metric, greater, lesser, source, lesser_metric, margin)


F5 = ("As more guests were added, the total CPU utilization used by the guests decreased "
      "significantly and z/VM overhead increased.")
F7 = ("The maximum page movement rate was observed at nine guests and at ten guests the movement rate "
      "had decreased. This decrease corresponds with the decrease in CPU utilization that was observed "
      "at ten guests. The highest traffic is seen in the direction from main storage to expanded "
      "storage, closely followed by the direction from expanded storage to DASD.")
T5 = ("Looking at the movement rates, it shows that, at most, the pages were moved to DASD via XSTOR, "
      "and that the movement rate back to main storage is very low, indicating that z/VM had moved the "
      "right pages.")
F9 = ("Adding additional guests results in more z/VM overhead. [...] as more guests are added, there is "
      "a near linear decrease in CPU utilization for the guests. The z/VM overhead starts to increase "
      "significantly at nine guests.")
F11 = "The movement rates continue to increase all the way up to ten guests."
F13 = "z/VM 5.3 experiences a higher CPU utilization rate as guests are scaled from five to ten"
F14 = ("In terms of CPU utilization spent for the CP, the overhead for z/VM 5.3 is much lower than "
       "z/VM 5.2 for six through nine guests.")
F15 = ("z/VM 5.2 shows a knee at eight guests, while the DASD paging space utilization for z/VM 5.3 "
       "continues to increase almost linearly with the number of guests.")
F16 = ("as memory overcommitment increases, z/VM 5.3 handles more page movements from XSTOR to DASD and "
       "main storage to XSTOR than z/VM 5.2.")
MS_XS, XS_DASD, DASD_MS = "ms_to_xs_per_s", "xs_to_dasd_per_s", "dasd_to_ms_per_s"
MOVES = (("main storage to XSTOR", MS_XS), ("XSTOR to DASD", XS_DASD))
# Margins, as the other studies' orderings: 2 % for rates and loads (the runs' interval noise), a
# quarter for a knee (Table 5's step falls from 5.1 M to 2.0 M pages), one for "very low" (page-ins
# below half the page-outs to DASD) and "much lower" (less than half).
ORDERINGS = (
    _o("5.2: the guests' CPU falls from five to ten guests", "cpu_guests_pct", ("5.2", 5), ("5.2", 10), F5, 0.02),
    _o("5.2: z/VM overhead rises from five to ten guests", OVERHEAD, ("5.2", 10), ("5.2", 5), F5, 0.02),
    _o("5.2: page movement peaks at nine guests (main storage to XSTOR, above eight)", MS_XS,
       ("5.2", 9), ("5.2", 8), F7, 0.02),
    _o("5.2: page movement peaks at nine guests (main storage to XSTOR, above ten)", MS_XS,
       ("5.2", 9), ("5.2", 10), F7, 0.02),
    _o("5.2: page movement peaks at nine guests (XSTOR to DASD, above ten)", XS_DASD,
       ("5.2", 9), ("5.2", 10), F7, 0.02),
    _o("5.2: LPAR CPU lower at ten guests than at nine", "cpu_lpar_pct", ("5.2", 9), ("5.2", 10), F7, 0.02),
    _o("5.2: main storage to XSTOR above XSTOR to DASD at ten guests", MS_XS, ("5.2", 10), ("5.2", 10), F7,
       0.0, XS_DASD),
    _o("5.2: page-ins from DASD very low (below half of XSTOR to DASD) at ten guests", XS_DASD,
       ("5.2", 10), ("5.2", 10), T5, 1.0, DASD_MS),
    _o("5.3: the guests' CPU falls from five to ten guests", "cpu_guests_pct", ("5.3", 5), ("5.3", 10), F9, 0.02),
    _o("5.3: z/VM overhead rises from eight to nine guests", OVERHEAD, ("5.3", 9), ("5.3", 8), F9, 0.02),
    *(_o(f"5.3: page movement still rising at ten guests ({name})", m, ("5.3", 10), ("5.3", 9), F11, 0.02)
      for name, m in MOVES),
    *(_o(f"5.3 LPAR CPU above 5.2's at {g} guests", "cpu_lpar_pct", ("5.3", g), ("5.2", g), F13, 0.02)
      for g in (6, 10)),
    *(_o(f"5.3 overhead much lower than 5.2's at {g} guests", OVERHEAD, ("5.2", g), ("5.3", g), F14, 1.0)
      for g in (6, 9)),
    _o("5.2: a knee at eight guests (DASD pages grow less from eight to nine than from seven to eight)",
       DASD_STEP, ("5.2", 8), ("5.2", 9), F15, 0.25),
    *(_o(f"5.3 moves more pages than 5.2 at ten guests ({name})", m, ("5.3", 10), ("5.2", 10), F16, 0.02)
      for name, m in MOVES),
)


STUDY = register(
    OrderedStudy(
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
            Metric("cpu_lpar_pct", "%", label="CPU LPAR %"),
            Metric("cpu_guests_pct", "%", label="CPU guests %"),
            Metric(OVERHEAD, "%", label="CPU overhead %"),
            Metric(MS_XS, "pages/s", label="main->XSTOR /s"),
            Metric(XS_DASD, "pages/s", label="XSTOR->DASD /s"),
            Metric(DASD_MS, "pages/s", label="DASD->main /s"),
            Metric(DASD_STEP, "pages", label="DASD pages added"),
        ),
        derive=_derive,
        quick_overrides=QUICK_OVERRIDES,
        notes="planned overcommit 0..100 % for 5..10 guests",
        orderings=ORDERINGS,
    )
)
