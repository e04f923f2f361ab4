"""Formatting figures for the terminal and the report: numbers, units, the key figures."""

from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Mapping, Tuple

from .figures import is_count, unit_of

# Shown first, in this order, when present; every other numeric figure follows alphabetically.
KEY_FIGURES = (
    ("throughput_tx_per_s", "throughput", "tx/s"),
    ("response_ms", "response time", "ms"),
    ("cpu_lpar_pct", "CPU LPAR", "% of 1 IFL"),
    ("cpu_guests_pct", "CPU guests", "% of 1 IFL"),
    ("cpu_cp_pct", "CPU CP", "% of 1 IFL"),
    ("ifl_utilization_pct", "IFL utilization", "%"),
    ("real_overcommit_pct", "real overcommit", "%"),
    ("pages_xstor", "pages in XSTOR", "pages"),
    ("pages_dasd", "pages on DASD", "pages"),
    ("paging_io_per_s", "paging I/O", "I/O/s"),
)


def key_rows(summary: Mapping[str, Any]) -> List[Tuple[str, Any, str]]:
    """(label, value, unit) of the key figures the summary has."""
    return [(label, whole(key, summary[key]), unit) for key, label, unit in KEY_FIGURES
            if isinstance(summary.get(key), (int, float)) and not isinstance(summary.get(key), bool)]


def whole(key: str, value: Any) -> Any:
    """Page, frame and block counts as whole numbers (the summary's means of samples are floats)."""
    if is_count(key) and isinstance(value, float) and math.isfinite(value):
        return int(round(value))
    return value


def split_unit(key: str) -> Tuple[str, str]:
    """"dasd_to_ms_per_s" -> ("dasd_to_ms", "/s"); page counts get "pages"."""
    unit = unit_of(key)
    for suffix in ("_tx_per_s", "_pages_per_s", "_per_s", "_pct", "_ms", "_seconds"):
        if key.endswith(suffix):
            return key[: -len(suffix)], unit
    return key, unit


def fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        if v == int(v):  # counts that cross the boundary as floats
            return f"{int(v):,}"
        if abs(v) >= 100:
            return f"{v:,.1f}"
        if abs(v) >= 1 or v == 0:
            return f"{v:.2f}"
        return f"{v:.4g}"
    return str(v)


def binary_size(n: int) -> str:
    """Bytes in the units scenarios use (binary: 1G = 2^30 bytes), to one decimal."""
    for unit, shift in (("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):,.1f}{unit}"
    return f"{n}"


def paging_fill_note(fill: Dict[str, Any]) -> str:
    """What CP's volumes-in-turn allocation does with a paging space of mixed volume sizes."""
    def names(groups: List[Dict[str, Any]]) -> str:
        return " and ".join(f"{g['count']} {g['model'] or 'volume'}" for g in groups)

    share = 100 * fill["slots_in_use"] / max(1, fill["total_slots"])
    return (f"paging: volumes of mixed sizes. CP takes them in turn, so the {names(fill['full'])} are full "
            f"when {fill['slots_in_use']:,} slots are in use ({share:.0f} % of {fill['total_slots']:,}; earlier "
            f"if blocks are partly freed), and from then on every new block goes to the "
            f"{names(fill['left'])} (FCX109 in the run's report shows it).")
