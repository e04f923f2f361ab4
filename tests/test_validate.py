"""`zvmsim validate`: the study registry, the comparison, and the command on a tiny study."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest
from conftest import DATA, ROOT, invoke

from zvmsim.studies import Case, Metric, Study, Tolerance, all_studies, compare, register, unregister
from zvmsim.studies import large_memory as lm


def test_large_memory_registered() -> None:
    study = all_studies()["large-memory"]
    assert len(study.cases) == 12
    assert {c.scenario for c in study.cases} >= {
        "large-memory/zvm52-5guests.toml", "large-memory/zvm53-10guests.toml"}
    assert study.paper[("5.2", 10)]["pages_dasd"] == 20754432
    assert study.paper[("5.3", 6)]["throughput_pct_of_baseline"] == 82
    assert study.paper[("5.3", 10)]["real_overcommit_pct"] == 124
    assert study.quick_overrides == lm.QUICK_OVERRIDES


def _summary(thr: float, dasd: float, xstor: float = 1e6, rovc: float = 50.0) -> dict:
    return {"throughput_tx_per_s": thr, "pages_dasd": dasd, "pages_xstor": xstor, "real_overcommit_pct": rovc}


def test_compare_errors_and_tolerances() -> None:
    study = lm.STUDY
    summaries = {("5.3", 5): _summary(200.0, 0), ("5.3", 6): _summary(150.0, 5905366 * 1.5, rovc=50)}
    rows = {(r.level, r.guests, r.metric): r for r in compare(study, summaries)}
    assert len(rows) == 12 * len(study.metrics)

    base = rows[("5.3", 5, "throughput_pct_of_baseline")]
    assert base.simulated == 100 and base.tolerance is None and base.within is None

    thr6 = rows[("5.3", 6, "throughput_pct_of_baseline")]
    assert thr6.simulated == pytest.approx(75.0)
    assert thr6.error == pytest.approx(75.0 - 82) and thr6.error_unit == "points"
    assert thr6.tolerance == 10 and thr6.within is True

    dasd6 = rows[("5.3", 6, "pages_dasd")]
    assert dasd6.error == pytest.approx(50.0) and dasd6.error_unit == "%"
    assert dasd6.within is False

    assert rows[("5.3", 5, "pages_dasd")].within is True  # paper 0, simulated 0
    assert rows[("5.3", 6, "real_overcommit_pct")].within is False  # 50 vs 33: 17 points
    assert rows[("5.3", 6, "pages_xstor")].within is None  # informational

    missing = rows[("5.2", 7, "pages_dasd")]
    assert missing.simulated is None and missing.within is None and missing.paper == 13128704


@pytest.fixture
def tiny_study() -> Iterator[Study]:
    study = register(Study(
        name="tiny-test",
        title="tiny test study",
        source="tests",
        cases=(Case("x", 5, "small.toml"), Case("x", 6, "small.toml")),
        paper={("x", 5): {"throughput_pct_of_baseline": 100}, ("x", 6): {"throughput_pct_of_baseline": 95}},
        metrics=(Metric("throughput_pct_of_baseline", "%", Tolerance(10, min_guests=6)),),
        derive=lm._derive,
        quick_overrides=("run.measure=20s",),
    ))
    yield study
    unregister(study.name)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_validate_json(runner, tiny_study: Study, jobs: str) -> None:
    res = invoke(runner, ["validate", "tiny-test", "--quick", "--json", "--jobs", jobs, "--scenarios", str(DATA)])
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [(r["level"], r["guests"], r["metric"]) for r in rows] == [
        ("x", 5, "throughput_pct_of_baseline"), ("x", 6, "throughput_pct_of_baseline")]
    for r in rows:
        assert {"study", "level", "guests", "metric", "paper", "simulated", "unit",
                "error", "tolerance", "within"} <= set(r)
    # Both cases run the same scenario, so the 6-guest case is at 100 % of the baseline.
    assert rows[1]["simulated"] == pytest.approx(100.0)
    assert rows[1]["within"] is True
    assert "tiny-test x 6 guests" in res.stderr


def test_validate_set_applies_to_every_case(runner, tiny_study: Study) -> None:
    """`--set` reaches every case's run (here a window of one interval, so each run is too
    short to judge its steady state) and names itself in the progress line and the title."""
    args = ["validate", "tiny-test", "--quick", "--jobs", "1", "--scenarios", str(DATA),
            "--set", "run.measure=20s"]
    res = invoke(runner, args + ["--json"])
    assert res.exit_code == 0, res.stderr
    assert "running 2 cases (quick) with run.measure=20s" in res.stderr
    rows = json.loads(res.stdout)
    assert [r["steady_state"] for r in rows] == ["too few intervals to tell"] * 2
    res = invoke(runner, args)
    assert res.exit_code == 0, res.stderr
    assert "[run.measure=20s]" in res.stdout, res.stdout


@pytest.mark.parametrize("bad", ["run.no_such_field=1", "run.measure=ten"])
def test_validate_bad_set_runs_nothing(runner, tiny_study: Study, bad: str) -> None:
    res = invoke(runner, ["validate", "tiny-test", "--jobs", "1", "--scenarios", str(DATA), "--set", bad])
    assert res.exit_code == 1
    assert "running" not in res.stderr and "tiny-test x" not in res.stderr
    assert bad.split("=")[0] in res.stderr, res.stderr


def test_validate_table(runner, tiny_study: Study) -> None:
    res = invoke(runner, ["validate", "tiny-test", "--quick", "--jobs", "1", "--scenarios", str(DATA)])
    assert res.exit_code == 0, res.stderr
    assert "tiny test study" in res.stdout
    assert "1 within tolerance, 0 missed" in res.stdout


def test_validate_unknown_study(runner) -> None:
    res = invoke(runner, ["validate", "no-such-study"])
    assert res.exit_code == 1
    assert "no-such-study" in res.stderr and "large-memory" in res.stderr


def test_validate_missing_scenarios(runner, tmp_path: Path) -> None:
    res = invoke(runner, ["validate", "large-memory", "--scenarios", str(tmp_path)])
    assert res.exit_code == 1
    assert "Traceback" not in res.output + res.stderr
    assert "zvm52-5guests.toml" in res.stderr


def test_case_labels_name_what_the_number_counts() -> None:
    from zvmsim.studies import case_of

    studies = list(all_studies().values())
    assert case_of(studies, "large-memory", ("5.3", 7)).label == "z/VM 5.3, 7 guests"
    assert case_of(studies, "disk-io", ("pav", 3)).label == "pav, 3 paths"
    assert case_of(studies, "dcss", ("sr", 8)).label == "DCSS sr, 8 GB"
    hyper = next(s for s in studies if s.name == "hyperpav")
    assert {c.count.split()[1] for c in hyper.cases if c.guests != 1} == {"aliases"}
    assert case_of(studies, "disk-io", ("pav", 1)).count == "1 path"
    assert {c.count for c in hyper.cases if c.guests == 1} == {"1 alias"}
    assert case_of(studies, "disk-io", ("pav", 99)) is None


def test_dcss_readonly_cases_print_simulated_figures_only() -> None:
    from zvmsim.studies import readonly

    dcss = all_studies()["dcss"]
    keys = {c.key: c for c in dcss.cases if c.key[0].startswith("read-only db")}
    assert {c.scenario for c in keys.values()} == {
        "dcss/readonly-db-minidisk.toml",
        "dcss/readonly-db-minidisk-mdc.toml",
        "dcss/readonly-db-dcss.toml",
    }
    for c in keys.values():
        assert (ROOT / "scenarios" / c.scenario).is_file()
    # The measured values are withheld: no paper figure, no tolerance.
    assert all(not dcss.paper.get(k) for k in keys)
    names = {n for n, _, _ in readonly.FIGURES}
    assert all(m.tolerance is None for m in dcss.metrics if m.name in names)
    fake = {k: {"throughput_tx_per_s": 10.0, "dasd_avoid_per_s": 3.0, "mdc_frames": 12} for k in keys}
    out = dcss.derive(fake)
    k = ("read-only db: minidisk, MDC on", 5)
    assert out[k]["throughput_tx_per_s"] == 10.0 and out[k]["mdc_frames"] == 12.0
    assert out[k]["virtual_io_per_s"] is None


def test_dcss_memory_saving_cases_and_orderings() -> None:
    from zvmsim.studies import memsave
    from zvmsim.validate import ordering_rows

    dcss = all_studies()["dcss"]
    keys = {c.key: c for c in dcss.cases if c.key[0].startswith("memory saving")}
    assert {c.scenario for c in keys.values()} == {
        "dcss/memsave-dcss-768m.toml",
        *(f"dcss/memsave-minidisk-{mb}m.toml" for mb in (768, 773, 778, 783)),
    }
    for c in keys.values():
        assert (ROOT / "scenarios" / c.scenario).is_file()
    # Throughput rises from 768 to 773 MB on minidisk and falls after; the DCSS beats them all.
    thr = {768: 100.0, 773: 104.0, 778: 103.0, 783: 102.0}
    fake = {(memsave.DISK, mb): {"throughput_tx_per_s": t, "cpu_lpar_pct": 50.0} for mb, t in thr.items()}
    fake[(memsave.DCSS, 768)] = {
        "throughput_tx_per_s": 110.0,
        "cpu_lpar_pct": 50.0,
        "dcss_loaded_pages": 400 * 256,
        "dcss_resident_pages": 10 * 256,
        "dcss_dasd_pages": 0,
    }
    out = dcss.derive(fake)
    assert out[(memsave.DCSS, 768)]["tx_per_ifl"] == 220.0
    assert out[(memsave.DCSS, 768)]["dcss_loaded_mb"] == 400.0
    rows = [r for r in ordering_rows(dcss, fake) if "memory saving" in r["case"]]
    assert len(rows) == len(memsave.ORDERINGS) and all(r["held"] for r in rows), rows
    # Falling from 768 to 773 MB breaks the stated rise.
    fake[(memsave.DISK, 773)]["throughput_tx_per_s"] = 99.0
    held = {r["ordering"]: r["held"] for r in ordering_rows(dcss, fake)}
    assert held["minidisk: 773 MB above 768 MB"] is False


def test_hyperpav_orderings_need_their_margin() -> None:
    from zvmsim.studies import hyperpav

    o = next(x for x in hyperpav.ORDERINGS if x.name.startswith("4 jobs: more aliases lose"))
    # Equal within the runs' noise is no loss; a loss beyond the margin is.
    assert o.held({("attached-4jobs", 20): {"mb_per_s": 4550.0}, ("attached-4jobs", 30): {"mb_per_s": 4549.0}}) is False
    assert o.held({("attached-4jobs", 20): {"mb_per_s": 4550.0}, ("attached-4jobs", 30): {"mb_per_s": 4300.0}}) is True
    assert o.held({("attached-4jobs", 20): {"mb_per_s": 4550.0}}) is None
    row = o.row("hyperpav", {})
    assert row["kind"] == "ordering" and "by > 2 %" in row["case"] and row["source"].startswith("But it also")
    # Cross-metric: the 2-job gain over one job against the 4-job gain over two, at 10 aliases.
    s = hyperpav.ORDERINGS[0]
    d = {("attached-2jobs", 10): {"gain_vs_1job": 1.5}, ("attached-4jobs", 10): {"gain_vs_2jobs": 1.05}}
    assert s.held(d) is True
    d[("attached-4jobs", 10)]["gain_vs_2jobs"] = 1.3
    assert s.held(d) is False
