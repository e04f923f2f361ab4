"""IBM, "Relative System Capacity" (2003), seed 004: disk I/O on an ESS 2105-F20.

The PAV lab experiment: iozone's sequential write and read of one file on a 3390-9 through
1-8 paths (the base and static PAV aliases attached to a Linux 2.4 guest under z/VM, used as
LVM1 multipath paths of one physical volume; `pvpath -p N -ey` enables each). The paper's
table ("Results: iozone sequential write/read 1 disk") gives write and read MB/s per path
count. Case keys are ("pav", paths).

The FCP maximum-throughput scenarios: Linux 2.4 directly in an LPAR, iozone with one process
per disk (350 MB files) on SCSI LUNs over FCP, each scenario using more CHPIDs, host adapters
and ranks; the paper names the limiting resource of each and gives the host adapters' limits
("1 HA limits to 40 MB/s write and 65 MB/s read, regardless of the number of ranks"; "4 HA are
limiting to 125 MB/s write and 240 MB/s read, but 4 CHPIDs are required"). Case keys are
(scenario, disks). The model's limit is the stage whose busiest unit was the most utilized
during the test: 0 CHPID, 1 host adapter (the time it is held for a command's data, waits for
its cluster's cache or the NVS copy included), 2 host adapters' NVS copy, 3 rank, 4 cluster
cache.

dbench ("Scalability - Dbench File I/O"): Linux with 1, 4, 8 and 16 PUs and 2 GB, 1-40 dbench
clients on files in the page cache. The seed shows its curves only as charts (no values in its
text): the rows give the simulated throughput with no paper value. Case keys are
("dbench-Npu", clients).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

from . import Case, CaseKey, Metric, Study, Tolerance, figure, register, series

PATHS = (1, 2, 3, 4, 5, 6, 7, 8)
# console[5..11] of scenarios/disk-io/pav-iozone.toml enable paths 1-7 (after the two
# ATTACHes and the LVM1 setup: pvcreate, vgcreate, lvcreate).
FIRST_PVPATH = 5


def _pav_overrides(n: int) -> Tuple[str, ...]:
    return tuple(
        f'console[{FIRST_PVPATH + k - 1}].linux="pvpath -qa"' for k in range(n, 8)
    )


# (scenario, disks, the paper's limiting resource: "chpid" or "ha").
FCP = (
    ("fcp-single-disk", 1, "ha"),
    ("fcp-single-rank", 8, "ha"),
    ("fcp-single-ha", 8, "ha"),
    ("fcp-single-chpid", 16, "chpid"),
    ("fcp-two-chpids", 16, "chpid"),
    ("fcp-four-chpids", 16, "ha"),
)
STAGES = ("CHPID", "host adapter", "NVS copy", "rank", "cluster cache")
# Stages that count as the paper's resource: the host adapters' write path includes the copy
# into NVS.
_ACCEPT = {"chpid": (0,), "ha": (1, 2)}

# Seed 004's dbench scaling: processors (one scenario each) and client counts.
DBENCH_PUS = (1, 4, 8, 16)
DBENCH_CLIENTS = (1, 4, 8, 12, 16, 20, 26, 32, 40)
DBENCH_METRICS = ("dbench_mb_s", "dbench_lock_spin_pct")

CASES = tuple(
    Case("pav", n, "disk-io/pav-iozone.toml", _pav_overrides(n), noun="paths", family="") for n in PATHS
) + tuple(Case(name, disks, f"disk-io/{name}.toml", noun="LUNs", family="") for name, disks, _ in FCP) + tuple(
    Case(f"dbench-{pus}pu", clients, f"disk-io/dbench-{pus}pu.toml",
         (f"workloads.dbench.dbench.clients={clients}",), ("run.priming=1s", "run.measure=4s"),
         noun="clients", family="", metrics=DBENCH_METRICS)
    for pus in DBENCH_PUS for clients in DBENCH_CLIENTS
)


def _paper() -> Dict[CaseKey, Dict[str, Optional[float]]]:
    # Seed 004, "Results: iozone sequential write/read 1 disk" (MB/s per path count).
    write = series({"pav": [14.9, 18.7, 22.4, 23.4, 23.2, 22.6, 21.2, 21.1]}, PATHS)
    read = series({"pav": [27.0, 46.4, 65.9, 81.4, 96.9, 106.7, 106.7, 119.0]}, PATHS)
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for k, v in write.items():
        out.setdefault(k, {})["write_mb_s"] = v
    for k, v in read.items():
        out.setdefault(k, {})["read_mb_s"] = v
    for name, disks, _ in FCP:
        d = out.setdefault((name, disks), {"write_limit_ok": 1.0, "read_limit_ok": 1.0})
        if name in ("fcp-single-disk", "fcp-single-rank", "fcp-single-ha"):
            d.update(write_mb_s=40.0, read_mb_s=65.0)  # "1 HA limits to 40 ... and 65 MB/s"
        if name == "fcp-four-chpids":
            d.update(write_mb_s=125.0, read_mb_s=240.0)  # "4 HA are limiting to 125 ... 240"
    return out


def _limit(util: Any) -> Optional[int]:
    if not isinstance(util, (list, tuple)) or len(util) != len(STAGES):
        return None
    return max(range(len(STAGES)), key=lambda i: (util[i], -i))


def _derive(s: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    paper_limit = {(name, disks): lim for name, disks, lim in FCP}
    for key, summ in s.items():
        d: Dict[str, Optional[float]] = {
            "write_mb_s": figure(summ, "iozone_write_mb_s"),
            "read_mb_s": figure(summ, "iozone_read_mb_s"),
            "extent_wait_pct": figure(summ, "extent_wait_pct"),
            "dbench_mb_s": figure(summ, "dbench_mb_s"),
            "dbench_lock_spin_pct": figure(summ, "dbench_lock_spin_pct"),
        }
        if key in paper_limit:
            for test in ("write", "read"):
                lim = _limit(summ.get(f"iozone_{test}_util_pct"))
                d[f"{test}_limit"] = None if lim is None else float(lim)
                ok = lim is not None and lim in _ACCEPT[paper_limit[key]]
                d[f"{test}_limit_ok"] = None if lim is None else float(ok)
        out[key] = d
    return out


def limit_name(code: Optional[float]) -> str:
    """The stage a `*_limit` figure names."""
    return "?" if code is None else STAGES[int(code)]


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
            Metric("write_limit", "stage", label="W limit stage"),
            Metric("read_limit", "stage", label="R limit stage"),
            Metric("write_limit_ok", "x", Tolerance(0), "W limit = paper"),
            Metric("read_limit_ok", "x", Tolerance(0), "R limit = paper"),
            # dbench's "Throughput N MB/sec" and the CPU its clients spin on the kernel's
            # locks: simulated only (the seed's values are charts).
            Metric("dbench_mb_s", "MB/s", label="dbench", listed_only=True),
            Metric("dbench_lock_spin_pct", "%", label="lock spin %", listed_only=True),
        ),
        derive=_derive,
        notes="PAV: iozone through 1-8 LVM1 multipath paths; FCP: 6 maximum-throughput scenarios; "
        "dbench: 1-40 clients on 1, 4, 8, 16 PUs (simulated only)",
    )
)
