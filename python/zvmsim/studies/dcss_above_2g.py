"""IBM, "DCSS Above 2 GB" (z/VM 5.4), seed 001: Apache servers serving 1 MB files from
minidisks (no cache), from CP's minidisk cache, from their Linux file caches, or from a
10 GB ext2 file system in six stacked DCSSs above 2 GB (mounted with or without xip), in
``scenarios/dcss-above-2g/``. The study's measured results are withheld (held-out cases):
this study prints the simulated figures of its report per case, with no paper value and no
check. Case keys are (scenario name, servers).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from . import Case, CaseKey, Metric, Study, figure, register

# (scenario, servers), in the study's comparison order.
RUNS = (
    ("virtual-io-base", 16),
    ("virtual-io-dcss", 16),
    ("mdc-base", 4),
    ("mdc-dcss", 4),
    ("lfc-base", 6),
    ("lfc-dcss", 6),
    ("mdc-12servers-base", 12),
    ("mdc-12servers-dcss", 12),
    ("mdc-12servers-6g-base", 12),
    ("mdc-12servers-6g-dcss", 12),
    ("lfc-dcss-nonxip", 6),
    ("lfc-dcss-xip", 6),
)

CASES = tuple(Case(name, n, f"dcss-above-2g/{name}.toml", noun="servers", family="") for name, n in RUNS)

# The measured window of --quick; priming stays (the DCSS is filled and mounted in it).
QUICK_OVERRIDES = ("run.measure=30s", "run.interval=30s")

# (metric, unit, label, where in the summary: top level or the `web` section)
FIGURES = (
    ("throughput_tx_per_s", "tx/s", "Tx/sec", None),
    ("cp_msec_per_tx", "ms", "CP msec/Tx", "web"),
    ("emul_msec_per_tx", "ms", "Emul msec/Tx", "web"),
    ("total_util_per_proc_pct", "%", "Total Util/Proc", "web"),
    ("virtual_io_per_s", "/s", "virtual I/O rate", "web"),
    ("dasd_io_per_s", "/s", "DASD I/O rate", "web"),
    ("dasd_avoid_per_s", "/s", "DASD avoid rate (MDC)", "web"),
    ("dasd_paging_per_s", "/s", "DASD paging rate", "web"),
    ("io_wait_pct", "%", "Apache server I/O wait", "web"),
    ("resident_pages_total", "pages", "resident pages total", "web"),
    ("resident_pages_dasd", "pages", "resident pages on DASD", "web"),
    ("resident_shared_frames", "frames", "resident shared frames", "web"),
    ("avail_list_below_2g", "frames", "available list < 2 GB", "web"),
    ("avail_list_above_2g", "frames", "available list > 2 GB", "web"),
    ("dasd_service_ms", "ms", "DASD service time", "web"),
    ("dasd_response_ms", "ms", "DASD response time", "web"),
    ("dasd_queue", "I/Os", "DASD wait queue", "web"),
    # The DCSS's pages, each shared copy counted once (the summary's top level).
    ("dcss_loaded_pages", "pages", "DCSS pages loaded", None),
    ("dcss_resident_pages", "pages", "DCSS pages resident", None),
    ("dcss_xstor_pages", "pages", "DCSS pages in XSTOR", None),
    ("dcss_dasd_pages", "pages", "DCSS pages on DASD", None),
)


def _derive(summaries: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for k, s in summaries.items():
        web = s.get("web") if isinstance(s.get("web"), Mapping) else None
        out[k] = {name: figure(web if part == "web" else s, name) for name, _, _, part in FIGURES}
    return out


STUDY = register(
    Study(
        name="dcss-above-2g",
        title="DCSS Above 2 GB: Apache from minidisk, MDC, Linux file cache or stacked DCSSs (seed 001)",
        source="IBM, z/VM 5.4 performance report, DCSS Above 2 GB (measured results withheld)",
        cases=CASES,
        paper={},
        metrics=tuple(Metric(name, unit, label=label) for name, unit, label, _ in FIGURES),
        derive=_derive,
        quick_overrides=QUICK_OVERRIDES,
        notes="12 held-out cases; simulated figures only",
    )
)
