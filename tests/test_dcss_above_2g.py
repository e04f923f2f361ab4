"""`zvmsim validate dcss-above-2g` (seed 001): the twelve held-out Apache cases run (quick:
a 30 s measured window after the full priming) and print simulated figures only."""

from __future__ import annotations

import json

from conftest import invoke

from zvmsim.studies import all_studies


def test_registered_without_paper_values() -> None:
    study = all_studies()["dcss-above-2g"]
    assert len(study.cases) == 12 and study.paper == {}
    assert {c.scenario for c in study.cases} == {
        f"dcss-above-2g/{n}.toml"
        for n in ("virtual-io-base", "virtual-io-dcss", "mdc-base", "mdc-dcss", "lfc-base", "lfc-dcss",
                  "mdc-12servers-base", "mdc-12servers-dcss", "mdc-12servers-6g-base",
                  "mdc-12servers-6g-dcss", "lfc-dcss-nonxip", "lfc-dcss-xip")
    }


def test_validate_quick_figures(runner) -> None:
    res = invoke(runner, ["validate", "dcss-above-2g", "--quick", "--json", "--jobs", "2"])
    assert res.exit_code == 0, res.stderr
    rows = [r for r in json.loads(res.stdout) if r["kind"] == "figure"]
    assert all({"study", "case", "metric", "simulated", "unit"} <= set(r) for r in rows)
    assert all(r["paper"] is None and r["within"] is None for r in rows)
    sim = {(r["level"], r["metric"]): r["simulated"] for r in rows}
    # Minidisk without MDC: every virtual I/O is a real one; MDC answers most reads.
    assert sim[("virtual-io-base", "virtual_io_per_s")] > 0
    assert sim[("virtual-io-base", "dasd_avoid_per_s")] == 0
    assert sim[("mdc-base", "dasd_avoid_per_s")] > 0.5 * sim[("mdc-base", "virtual_io_per_s")]
    # The DCSS (xip) cases do no file I/O, their segments' frames are resident, and they
    # serve more than the I/O-bound minidisk case.
    assert sim[("virtual-io-dcss", "virtual_io_per_s")] == 0
    assert sim[("virtual-io-dcss", "resident_shared_frames")] > 0
    assert sim[("virtual-io-dcss", "throughput_tx_per_s")] > sim[("virtual-io-base", "throughput_tx_per_s")]
    # Without xip each of the six 10 GB servers copies the files into its page cache beside
    # the DCSS: more memory than the 64 GB, so CP pages.
    assert sim[("lfc-dcss-nonxip", "dasd_paging_per_s")] > sim[("lfc-dcss-xip", "dasd_paging_per_s")]
