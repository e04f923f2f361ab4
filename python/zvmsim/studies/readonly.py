"""Seed 000, "Sharing read-only data using DCSS": five guests run Swingbench read-only against one
database, on a shared minidisk with CP's minidisk cache off or on (z/VM's default), or copied
into a DCSS (ORADB1-5, SN) mounted read-only with xip (``scenarios/dcss/readonly-db-*.toml``).
The study's measured results are withheld (held-out validation): these cases print the
simulated figures only, with no paper value and no check. Case keys are ("read-only db: <case>",
5). Imported by ``dcss.py`` (not a study of its own).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from . import Case, CaseKey, Metric, figure

VARIANTS = {
    "minidisk": "read-only db: minidisk, MDC off",
    "minidisk-mdc": "read-only db: minidisk, MDC on",
    "dcss": "read-only db: DCSS",
}
GUESTS = 5

CASES = tuple(Case(VARIANTS[v], GUESTS, f"dcss/readonly-db-{v}.toml", family="") for v in VARIANTS)

FIGURES = (
    ("throughput_tx_per_s", "tx/s", "throughput"),
    ("cpu_lpar_pct", "%", "LPAR CPU"),
    ("virtual_io_per_s", "I/O/s", "virtual I/O"),
    ("dasd_io_per_s", "I/O/s", "real DASD I/O"),
    ("dasd_avoid_per_s", "I/O/s", "DASD avoid (MDC)"),
    ("mdc_frames", "frames", "MDC frames"),
)

METRICS = tuple(Metric(n, u, label=label) for n, u, label in FIGURES)


def derive(summaries: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for k, s in summaries.items():
        if not k[0].startswith("read-only db"):
            continue
        out[k] = {n: figure(s, n) for n, _, _ in FIGURES}
    return out
