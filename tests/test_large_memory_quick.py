"""The large-memory study, quick version, at full scale: `zvmsim validate large-memory --quick`.

Fidelity against the published tables is what `zvmsim validate large-memory` reports (see
docs/calibration.md); this test checks what must hold whatever the calibration: the report's
shape, and the physics every run must show.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from zvmsim.studies import large_memory as lm

ROOT = Path(__file__).resolve().parents[1]


def test_validate_large_memory_quick() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "zvmsim", "validate", "large-memory", "--quick", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=1500, env={**os.environ, "COLUMNS": "120"},
    )
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    out = json.loads(res.stdout)
    rows = [r for r in out if r["kind"] == "figure"]
    assert len(rows) == len(lm.STUDY.cases) * len(lm.STUDY.metrics)
    for r in rows:
        assert {"study", "level", "guests", "metric", "paper", "simulated", "unit"} <= r.keys()
        assert r["study"] == "large-memory"
        # Every figure is simulated, but the DASD pages added by the first guest (no 4-guest run).
        assert (r["simulated"] is None) == (r["metric"] == lm.DASD_STEP and r["guests"] == 5), r
    # The study's stated orderings of its charted figures, each decided (no missing figure).
    stated = [r for r in out if r["kind"] == "ordering"]
    assert [r["ordering"] for r in stated] == [o.name for o in lm.ORDERINGS]
    assert all(r["held"] in (True, False) and r["source"] for r in stated)
    sim = {(r["level"], r["guests"], r["metric"]): r["simulated"] for r in rows}
    for level in ("5.2", "5.3"):
        # Real overcommitment grows with every guest added; nothing is on DASD at five guests.
        ro = [sim[(level, g, "real_overcommit_pct")] for g in range(5, 11)]
        assert all(b > a for a, b in zip(ro, ro[1:])), ro
        assert sim[(level, 5, "pages_dasd")] == 0
        for g in range(6, 11):
            assert sim[(level, g, "pages_dasd")] > 1e6
            # Expanded storage is full once storage is overcommitted (4 GB = 1,048,576 blocks).
            assert 0.95 * 1_048_576 <= sim[(level, g, "pages_xstor")] <= 1_048_576
    # The study's headline: z/VM 5.3 keeps more throughput than 5.2 at every overcommitted point.
    for g in range(6, 11):
        assert sim[("5.3", g, "throughput_pct_of_baseline")] > sim[("5.2", g, "throughput_pct_of_baseline")]
