"""VMRM-CMM through the Python API: the VMRM log in the results and its vmrm.log file."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

import zvmsim
from zvmsim.results import RESULT_FILES, VMRM_LOG_FILE, load_results

SCENARIO = '''
[lpar]
ifls = 2
central = "256M"
expanded = "32M"
zvm_level = "5.3"

[paging]
volumes = [{ model = "3390-3", count = 2 }]

[run]
priming = "5s"
measure = "20s"
interval = "5s"

[[guests]]
name = "LNX%02d"
count = 3
storage = "128M"
vcpus = 2
workload = "db"
dasd = [{ use = "database", model = "3390-9", count = 2 }]
linux = { kernel = "8M", min_free = "2M" }

[workloads.db]
kind = "transactional"
users = 4
think_time = "2ms"

[workloads.db.database]
size = "400M"
cache = "48M"
shared_memory = "56M"

[[workloads.db.transactions]]
name = "a"
weight = 1
cpu = "1ms"
db_refs = 20
write_fraction = 0.3

[vmrm]
config = """
NOTIFY MEMORY LNX0*
ADMIN MSGUSER MAINT
"""
interval = "5s"
constrained_paging = 20.0
relieved_paging = 20.0
max_shrink = 0.5

[[console]]
at = "1s"
user = "LNX0*"
linux = "modprobe cmm"

[[console]]
at = "6s"
cp = "XAUTOLOG VMRMSVM"
'''


def test_vmrm_log_is_saved_and_loaded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = zvmsim.run(SCENARIO, out=out)
    smsgs = [e for e in r.vmrm_log if e["user"]]
    assert {e["user"] for e in smsgs} == {"LNX01", "LNX02", "LNX03"}
    assert all(e["text"].startswith(f"SMSG sent to {e['user']}: CMM SHRINK ") for e in smsgs)
    assert sorted(p.name for p in out.iterdir()) == sorted(RESULT_FILES + (VMRM_LOG_FILE,))
    lines = (out / VMRM_LOG_FILE).read_text().splitlines()
    assert len(lines) == len(r.vmrm_log)
    assert lines[0].split(None, 1) == ["6.000", r.vmrm_log[0]["text"]]
    back = load_results(out)
    assert back.vmrm_log == [{"t_s": e["t_s"], "user": e["user"], "text": e["text"]} for e in r.vmrm_log]
    # The balloons hold the pages VMRM asked for; the system rows count its SMSGs.
    assert r.intervals["cmm_pages"].max() > 0
    assert r.system["vmrm_notifications"].sum() == len(smsgs)
    # results.duckdb has the log: the notifications per guest are a query away.
    con = duckdb.connect(str(out / "results.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM vmrm_log").fetchone()[0] == len(r.vmrm_log)
        per_user = dict(con.execute("SELECT user, count(*) FROM vmrm_log WHERE user <> '' GROUP BY user").fetchall())
    finally:
        con.close()
    assert per_user == {u: sum(e["user"] == u for e in smsgs) for u in ("LNX01", "LNX02", "LNX03")}
    # The same per guest and interval, and per guest over the window (the measured ones).
    by_guest = r.intervals.group_by("guest").agg(pl.col("vmrm_notifications").sum())
    measured = {g["name"]: g["vmrm_notifications"] for g in r.summary["guests"]}
    assert dict(by_guest.iter_rows()) == measured
    assert sum(measured.values()) == r.system["vmrm_notifications"].sum()


def test_no_vmrm_log_without_vmrm(tmp_path: Path, scenario: Path) -> None:
    out = tmp_path / "out"
    r = zvmsim.run(scenario, out=out)
    assert r.vmrm_log == []
    assert not (out / VMRM_LOG_FILE).exists()
    # The table is there, with its columns and no rows.
    con = duckdb.connect(str(out / "results.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM vmrm_log").fetchone()[0] == 0
        assert [c[0] for c in con.execute("DESCRIBE vmrm_log").fetchall()] == ["t_s", "user", "text"]
    finally:
        con.close()
