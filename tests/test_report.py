"""`zvmsim report`: the HTML file (offline, figures discovered from the tables), the FCX text
reports, and the page in headless Chromium (skipped, with the reason, when none is installed)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from browser import find_chromium, open_report
from conftest import DATA, ROOT, invoke

from zvmsim import fcx
from zvmsim.report import write_report
from zvmsim.results import load_results

SHORT = ["-s", "run.priming=5s", "-s", "run.measure=40s", "-s", "run.interval=10s"]
SHOTS = ROOT / "test-output"  # screenshots: looked at by people, not committed (.gitignore)
STUDY_FIGURES = {"throughput", "cpu", "page location", "page movement", "io", "linux memory"}
NO_CHROMIUM = "no Chromium found (apt-get install chromium-headless-shell, or set ZVMSIM_CHROMIUM)"


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    from typer.testing import CliRunner

    out = tmp_path_factory.mktemp("run") / "small"
    res = invoke(CliRunner(), ["run", str(DATA / "small.toml"), "--out", str(out), "--report", *SHORT])
    assert res.exit_code == 0, res.output
    return out


def _figures(html_text: str) -> list:
    return re.findall(r"class='zvm-plot' data-figure='([^']*)'", html_text)


def test_run_report_is_self_contained(small_run: Path) -> None:
    page = (small_run / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", page)  # plotly.js is inside, not fetched
    assert not re.search(r"<link[^>]+href=", page)
    assert page.count("Plotly.newPlot") >= 1 and "window.zvmsimPlots" in page
    figs = _figures(page)
    assert STUDY_FIGURES <= set(figs)
    for rid in ("FCX102", "FCX103", "FCX113", "FCX108", "FCX126"):
        assert rid in page
    assert "QUERY STORAGE" in page  # the console log
    assert "steady state" in page


def test_new_figure_appears_without_edit(small_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(small_run, copy)
    for name, col in (("system.parquet", "brand_new_rate_per_s"), ("intervals.parquet", "another_new_pages")):
        df = pl.read_parquet(copy / name)
        df.with_columns((pl.col("interval").cast(pl.Float64) + 1).alias(col)).write_parquet(copy / name)
    page = write_report(copy).read_text(encoding="utf-8")
    assert "another_new_pages" in _figures(page)  # a per-guest figure of its own
    assert "brand new rate" in page  # drawn among the system figures in /s


def test_fcx_reports_layout(small_run: Path) -> None:
    r = load_results(small_run)
    reports = fcx.all_reports(r.summary, r.system, r.intervals)
    n = r.system.height
    assert n == 4
    for rid, text in reports.items():
        assert text.startswith(f"{rid}  {fcx.REPORTS[rid][0]}")
    system = reports["FCX102"].splitlines()
    assert sum(1 for line in system if re.match(r"\d\d:\d\d:\d\d ", line)) == n
    assert any(line.startswith("Mean") for line in system)
    upage = reports["FCX113"]
    for col in ("Userid", "X>MS", "R<2GB", "R>2GB", "XSTOR", "DASD"):
        assert col in upage
    guests = r.intervals["guest"].unique().to_list()
    assert len(guests) == 2 and all(g in upage for g in guests) and "Total" in upage
    assert "Serv" in reports["FCX108"] and "CP PAGE" in reports["FCX108"]
    assert "%Busy" in reports["FCX126"] and "IFL" in reports["FCX126"]
    # The storage report's mean of resident pages is the summary's.
    mean_line = [line for line in reports["FCX103"].splitlines() if line.startswith("Mean")][0]
    assert f"{round(r.summary['pages_resident'])}" in mean_line


def test_paging_volumes_table_and_fcx109(runner, tmp_path: Path) -> None:
    """paging.parquet holds a row per interval and paging volume, results.duckdb the same, and
    FCX109 lists each volume with its slots (the volumes in turn: equal slots in use)."""
    import duckdb

    out = tmp_path / "paged"
    res = invoke(runner, ["run", str(DATA / "small.toml"), "--out", str(out), *SHORT,
                          "-s", 'paging.volumes=[{model="3390-3"},{model="3390-9"}]'])
    assert res.exit_code == 0, res.output
    r = load_results(out)
    assert r.paging.height == 2 * r.system.height
    assert r.paging.columns[:6] == ["interval", "t_start_s", "t_end_s", "volid", "rdev", "model"]
    assert sorted(set(r.paging["model"])) == ["3390-3", "3390-9"]
    con = duckdb.connect(str(out / "results.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM paging").fetchone() == (r.paging.height,)
    finally:
        con.close()
    text = fcx.all_reports(r.summary, r.system, r.intervals, r.paging)["FCX109"]
    assert text.startswith("FCX109  CPOWNED")
    lines = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith(("PAG", "Total"))}
    assert lines["PAG001"][1:4] == ["0300", "PAGE", "3390-3"] and lines["PAG002"][3] == "3390-9"
    slots = r.paging.filter(pl.col("interval") == r.paging["interval"].max())["slots"].to_list()
    assert int(lines["Total"][1]) == sum(slots)
    # A run without paging volumes has no FCX109.
    assert "FCX109" not in fcx.all_reports(r.summary, r.system, r.intervals, r.paging.head(0))
    page = write_report(out).read_text(encoding="utf-8")
    assert "paging volumes" in _figures(page) and "FCX109  CPOWNED" in page


def test_report_text_option(runner, small_run: Path) -> None:
    res = invoke(runner, ["report", str(small_run), "--text", "--html", str(small_run / "again.html")])
    assert res.exit_code == 0, res.stderr
    assert "FCX103  STORAGE" in res.stdout and (small_run / "again.html").is_file()


def test_report_of_a_missing_folder(runner, tmp_path: Path) -> None:
    res = invoke(runner, ["report", str(tmp_path / "nothing")])
    assert res.exit_code == 1 and "not a zvmsim results folder" in res.stderr


def _check_in_browser(html_file: Path, shot: Path) -> dict:
    binary = find_chromium()
    if binary is None:
        pytest.skip(NO_CHROMIUM)
    res = open_report(binary, html_file, shot)
    assert res["errors"] == [], res["errors"]
    plots = res["plots"]
    assert plots["found"] == plots["expected"] > 0
    for p in plots["plots"]:
        assert p["svg"] and p["traces"] > 0 and p["drawn"] > 0, p
    assert shot.is_file() and shot.stat().st_size > 10_000
    return plots


def test_run_report_in_chromium(small_run: Path) -> None:
    plots = _check_in_browser(small_run / "report.html", SHOTS / "report-small-run.png")
    assert STUDY_FIGURES <= {p["figure"] for p in plots["plots"]}


def test_sweep_report_in_chromium(runner, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    res = invoke(runner, ["sweep", str(DATA / "small.toml"), "--vary", "guests[0].count=1..3", "--vary",
                          "lpar.zvm_level=5.2,5.3", "--jobs", "1", *SHORT, "--out", str(out), "--report"])
    assert res.exit_code == 0, res.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "throughput %" in _figures(page) and "Sweep table" in page
    plots = _check_in_browser(out / "report.html", SHOTS / "report-small-sweep.png")
    assert {"throughput_tx_per_s", "response_ms"} <= {p["figure"] for p in plots["plots"]}


# --- the large-memory study at full scale, short windows -----------------------------------------

LM = ROOT / "scenarios" / "large-memory"
LM_SHORT = ["-s", "run.priming=10s", "-s", "run.measure=20s", "-s", "run.interval=10s"]


def test_large_memory_report_sweep_and_plan(runner, tmp_path: Path) -> None:
    """The 10-guest z/VM 5.3 run's report, a sweep over 5..10 guests on 5.2 and 5.3 and its report,
    both opened in Chromium; `zvmsim plan` answers how many guests keep 70 % of the five-guest
    throughput on 5.3, and the answer agrees with the sweep."""
    run_out = tmp_path / "zvm53-10guests"
    res = invoke(runner, ["run", str(LM / "zvm53-10guests.toml"), *LM_SHORT, "--out", str(run_out), "--report"])
    assert res.exit_code == 0, res.output
    sweep_out = tmp_path / "sweep"
    res = invoke(runner, ["sweep", str(LM / "zvm53-5guests.toml"), "--vary", "guests[0].count=5..10", "--vary",
                          "lpar.zvm_level=5.2,5.3", *LM_SHORT, "--out", str(sweep_out), "--report"])
    assert res.exit_code == 0, res.stderr
    agg = pl.read_parquet(sweep_out / "sweep.parquet")
    assert agg.height == 12
    thr = {(r["lpar.zvm_level"], r["guests[0].count"]): r["throughput_tx_per_s_mean"]
           for r in agg.iter_rows(named=True)}
    levels = sorted({lvl for lvl, _ in thr})
    assert len(levels) == 2
    lvl53 = max(levels)
    expected = max(g for g in range(5, 11) if thr[(lvl53, g)] >= 0.7 * thr[(lvl53, 5)])
    plan = invoke(runner, ["plan", str(LM / "zvm53-5guests.toml"), "--largest", "guests[0].count=5..10", "--keep",
                           "throughput_tx_per_s>=70%", "-s", "lpar.zvm_level=5.3", *LM_SHORT, "--out",
                           str(sweep_out)])
    assert plan.exit_code in (0, 1), plan.stderr
    doc = json.loads((sweep_out / "plan.json").read_text())
    assert doc["answer"] == str(expected)
    assert "0 new run(s)" in plan.stderr  # every run it used is a point of the sweep
    if find_chromium() is None:
        pytest.skip(NO_CHROMIUM)
    run_plots = _check_in_browser(run_out / "report.html", SHOTS / "report-zvm53-10guests.png")
    assert STUDY_FIGURES <= {p["figure"] for p in run_plots["plots"]}
    _check_in_browser(sweep_out / "report.html", SHOTS / "report-large-memory-sweep.png")


def test_monitor_records(small_run: Path) -> None:
    from zvmsim.monitor import PAGING_DEVICE, SYSTEM_RECORDS, USER_DEVICE

    r = load_results(small_run)
    mon = pl.read_parquet(small_run / "monitor.parquet")
    # Every figure the records carry is one the core writes (the mapping cannot rot silently).
    for figures in SYSTEM_RECORDS.values():
        assert set(figures) <= set(r.system.columns)
    assert set(PAGING_DEVICE) <= set(r.system.columns) and set(USER_DEVICE) <= set(r.intervals.columns)
    assert {"D0R3", "D3R1", "D6R3", "D0R16"} <= set(mon["record"].unique().to_list())
    d0r3 = mon.filter((pl.col("record") == "D0R3") & (pl.col("figure") == "pages_resident")).sort("interval")
    assert d0r3["dsect"][0] == "MRSYTRSG"
    assert d0r3["value"].to_list() == [float(v) for v in r.system.sort("interval")["pages_resident"]]
    guests = set(r.intervals["guest"].unique().to_list())
    devices = set(mon.filter(pl.col("record") == "D6R3")["device"].unique().to_list())
    assert devices == guests | {"CP PAGE"}
