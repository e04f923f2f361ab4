"""IBM, "Relative System Capacity" (2003), seed 004: disk I/O on an ESS 2105-F20.

The PAV lab experiment: iozone's sequential write and read of one file on a 3390-9 through
1-8 paths (the base and static PAV aliases attached to a Linux 2.4 guest under z/VM, used as
LVM1 multipath paths of one physical volume; `pvpath -p N -ey` enables each). The paper's
table ("Results: iozone sequential write/read 1 disk") gives write and read MB/s per path
count. Case keys are ("pav", paths).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

from . import Case, CaseKey, Metric, Study, Tolerance, figure, register, series

PATHS = (1, 2, 3, 4, 5, 6, 7, 8)
# console[2..8] of scenarios/disk-io/pav-iozone.toml enable paths 1-7.
FIRST_PVPATH = 2


def _pav_overrides(n: int) -> Tuple[str, ...]:
    return tuple(
        f'console[{FIRST_PVPATH + k - 1}].linux="pvpath -qa"' for k in range(n, 8)
    )


CASES = tuple(Case("pav", n, "disk-io/pav-iozone.toml", _pav_overrides(n)) for n in PATHS)


def _paper() -> Dict[CaseKey, Dict[str, Optional[float]]]:
    # Seed 004, "Results: iozone sequential write/read 1 disk" (MB/s per path count).
    write = series({"pav": [14.9, 18.7, 22.4, 23.4, 23.2, 22.6, 21.2, 21.1]}, PATHS)
    read = series({"pav": [27.0, 46.4, 65.9, 81.4, 96.9, 106.7, 106.7, 119.0]}, PATHS)
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for k, v in write.items():
        out.setdefault(k, {})["write_mb_s"] = v
    for k, v in read.items():
        out.setdefault(k, {})["read_mb_s"] = v
    return out


def _derive(s: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for key, summ in s.items():
        out[key] = {
            "write_mb_s": figure(summ, "iozone_write_mb_s"),
            "read_mb_s": figure(summ, "iozone_read_mb_s"),
            "extent_wait_pct": figure(summ, "extent_wait_pct"),
        }
    return out


STUDY = register(
    Study(
        name="disk-io",
        title="Relative System Capacity: PAV paths and FCP throughput (seed 004)",
        source="IBM, Relative System Capacity, 2003: PAV results table; FCP maximum throughput",
        cases=CASES,
        paper=_paper(),
        metrics=(
            Metric("write_mb_s", "MB/s", Tolerance(15), "iozone write"),
            Metric("read_mb_s", "MB/s", Tolerance(15), "iozone read"),
            Metric("extent_wait_pct", "%", label="extent waits %"),
        ),
        derive=_derive,
        notes="iozone write/read through 1-8 LVM1 multipath paths (base + static PAV aliases)",
    )
)
