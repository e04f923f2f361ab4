"""`zvmsim validate disk-io` (seed 004): the PAV table through 1-8 LVM1 multipath paths, run in
full (each case simulates its whole iozone write and read test in a fraction of a second)."""

from __future__ import annotations

import json

from conftest import invoke

from zvmsim.studies import all_studies


def test_disk_io_registered_with_the_papers_table() -> None:
    study = all_studies()["disk-io"]
    assert [c.guests for c in study.cases][:14] == [1, 2, 3, 4, 5, 6, 7, 8, 1, 8, 8, 16, 16, 16]
    dbench = study.cases[14:]
    assert len(dbench) == 4 * 9 and {c.level for c in dbench} == {"dbench-1pu", "dbench-4pu", "dbench-8pu", "dbench-16pu"}
    assert not any(k[0].startswith("dbench") for k in study.paper)
    assert study.paper[("pav", 4)] == {"write_mb_s": 23.4, "read_mb_s": 81.4}
    # The 3-path case turns paths 3-7 back to a query: 5 overrides.
    assert len(study.cases[2].overrides) == 5


def test_validate_disk_io_pav_shape(runner) -> None:
    res = invoke(runner, ["validate", "disk-io", "--quick", "--json", "--jobs", "1"])
    assert res.exit_code == 0, res.stderr
    rows = [r for r in json.loads(res.stdout) if r["kind"] == "figure" and r["level"] == "pav"]
    sim = {(r["metric"], r["guests"]): r["simulated"] for r in rows}
    for r in rows:
        if r["tolerance"] is not None:
            assert {"study", "case", "metric", "paper", "simulated", "unit", "within"} <= set(r)
    write = [sim[("write_mb_s", n)] for n in range(1, 9)]
    read = [sim[("read_mb_s", n)] for n in range(1, 9)]
    # The 1-path figures (per-path latency) are the paper's.
    one = [r["within"] for r in rows if r["guests"] == 1 and r["paper"] is not None]
    assert one == [True, True], one
    # Linux 2.4's sequential-access Define Extent reaches two cylinders past each write, so
    # from 2 paths every write conflicts with its predecessor in the file and the ESS runs
    # them one at a time: the writes level off whatever the number of paths, as the seed's
    # do (docs/calibration-io.md, seed 004).
    waits = [sim[("extent_wait_pct", n)] for n in range(1, 9)]
    assert waits[0] == 0 and min(waits[1:]) > 30, waits
    assert max(write[1:]) < 1.03 * min(write[1:]), write
    assert write[0] < write[1] < 1.6 * write[0]
    plateau = [r["within"] for r in rows if r["metric"] == "write_mb_s" and r["guests"] >= 3]
    assert plateau == [True] * 6, write
    # Reads never conflict: each of the six channel paths adds its own.
    assert all(b > a for a, b in zip(read, read[1:]))
    assert read[7] > 3.5 * read[0]
    # iozone is a finite job: its runs get no drift verdict, so no case is marked drifted.
    assert all(r["drifting"] == [] for r in rows), [r["drifting"] for r in rows]


def test_validate_disk_io_fcp_limits(runner) -> None:
    res = invoke(runner, ["validate", "disk-io", "--quick", "--json", "--jobs", "2"])
    rows = [r for r in json.loads(res.stdout) if r["kind"] == "figure" and r["level"] != "pav"]
    sim = {(r["level"], r["metric"]): r["simulated"] for r in rows}
    # One host adapter caps near 40 MB/s write and 65 read whatever the ranks; four near 125
    # and 240; one CHPID limits the 16-disk scenario.
    for r in rows:
        if r["metric"] in ("write_mb_s", "read_mb_s") and r["paper"] is not None:
            assert r["within"] is True, r
    assert sim[("fcp-single-chpid", "read_limit")] == 0
    assert sim[("fcp-single-ha", "write_limit")] == 1
    # Two CHPIDs limit both tests ("two CHPIDs ... 2 CHPIDs"); the four HAs' write capacity
    # needs all four channels ("but 4 CHPIDs are required to make use of it").
    assert sim[("fcp-two-chpids", "write_limit")] == 0
    assert sim[("fcp-two-chpids", "read_limit")] == 0
    assert sim[("fcp-four-chpids", "write_mb_s")] > 1.1 * sim[("fcp-two-chpids", "write_mb_s")]
    assert sim[("fcp-four-chpids", "read_mb_s")] > 2.5 * sim[("fcp-single-ha", "read_mb_s")]


def test_dbench_rows_are_simulated_only_and_scale_with_the_pus(runner) -> None:
    res = invoke(runner, ["validate", "disk-io", "--quick", "--json", "--jobs", "2"])
    assert res.exit_code == 0, res.stderr
    figures = [r for r in json.loads(res.stdout) if r["kind"] == "figure"]
    dbench = [r for r in figures if r["level"].startswith("dbench")]
    # Only the dbench metrics, no paper value, and no dbench metric on the iozone cases.
    assert {r["metric"] for r in dbench} == {"dbench_mb_s", "dbench_lock_spin_pct"}
    assert all(r["paper"] is None and r["within"] is None for r in dbench)
    assert not any(r["metric"].startswith("dbench") for r in figures if r not in dbench)
    mb = {(r["level"], r["guests"]): r["simulated"] for r in dbench if r["metric"] == "dbench_mb_s"}
    one = mb[("dbench-1pu", 1)]
    for pus in (1, 4, 8, 16):
        curve = [mb[(f"dbench-{pus}pu", c)] for c in (1, 4, 8, 12, 16, 20, 26, 32, 40)]
        # More clients than processors add nothing: the processors are busy.
        assert max(curve) < 1.05 * mb[(f"dbench-{pus}pu", max(c for c in (1, 4, 8, 16) if c <= pus))]
        assert all(v > 0.95 * one for v in curve)
    # Up to 8 PUs the clients scale nearly with the processors; at 16 the kernel lock caps them.
    assert mb[("dbench-4pu", 4)] > 3.5 * one
    assert mb[("dbench-8pu", 8)] > 6.0 * one
    assert mb[("dbench-8pu", 8)] < mb[("dbench-16pu", 16)] < 12.0 * one
