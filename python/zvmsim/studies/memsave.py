"""Seed 000, "Determining the memory saving using a DCSS" (Table 6, Figures 13-20): five
WebSphere guests (each with its DB2) driven by DayTrader, z/VM under memory pressure, the
WebSphere executable in a 6 GB DCSS mounted execute-in-place (768 MB guests) or on a shared
minidisk (768, 773, 778 and 783 MB guests; ``scenarios/dcss/memsave-*.toml``). The figures are
not in the study's text; only what it states is checked, each with its sentence: the
orderings of throughput and transactions per IFL, and where the DCSS's pages are (of 6 GB
about 400 MB loaded, about 10 MB resident with a 50 MB peak, none on paging DASD). The
paging figures (pages in XSTOR, migration rates) are printed for information. Case keys are
("memory saving: <location>", guest MB). Imported by ``dcss.py`` (not a study of its own).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

from . import Case, CaseKey, Metric, figure
from .swap import Below, SwapOrdering

DCSS = "memory saving: executable in DCSS"
DISK = "memory saving: executable on minidisk"
SIZES = (768, 773, 778, 783)

CASES = (Case(DCSS, 768, "dcss/memsave-dcss-768m.toml", noun="MB", family=""),) + tuple(
    Case(DISK, mb, f"dcss/memsave-minidisk-{mb}m.toml", noun="MB", family="") for mb in SIZES
)

T = "throughput_tx_per_s"
TX_PER_IFL = "tx_per_ifl"  # transactions per second per IFL the LPAR used
MB = 4096 / (1 << 20)  # MB per 4 KB page


def derive(summaries: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for k, s in summaries.items():
        if not k[0].startswith("memory saving"):
            continue
        thr, lpar = figure(s, T), figure(s, "cpu_lpar_pct")
        mb = lambda n: None if figure(s, n) is None else figure(s, n) * MB  # noqa: E731
        out[k] = {
            T: thr,
            TX_PER_IFL: thr / (lpar / 100.0) if thr is not None and lpar else None,
            "pages_xstor": figure(s, "pages_xstor"),
            "ms_to_xs_per_s": figure(s, "ms_to_xs_per_s"),
            "xs_to_ms_per_s": figure(s, "xs_to_ms_per_s"),
            "dcss_loaded_mb": mb("dcss_loaded_pages"),
            "dcss_resident_mb": mb("dcss_resident_pages"),
            "dcss_resident_max_mb": mb("dcss_resident_pages_max"),
            "dcss_xstor_mb": mb("dcss_xstor_pages"),
            "dcss_dasd_pages": figure(s, "dcss_dasd_pages"),
        }
    return out


METRICS = (
    Metric(T, "tx/s", label="throughput"),
    Metric(TX_PER_IFL, "tx/s", label="tx per IFL"),
    Metric("pages_xstor", "pages", label="pages in XSTOR"),
    Metric("ms_to_xs_per_s", "pages/s", label="main -> XSTOR"),
    Metric("xs_to_ms_per_s", "pages/s", label="XSTOR -> main"),
    Metric("dcss_loaded_mb", "MB", label="DCSS loaded"),
    Metric("dcss_resident_mb", "MB", label="DCSS resident"),
    Metric("dcss_resident_max_mb", "MB", label="DCSS resident peak"),
    Metric("dcss_xstor_mb", "MB", label="DCSS in XSTOR"),
    Metric("dcss_dasd_pages", "pages", label="DCSS on DASD"),
)


def _k(mb: int, dcss: bool = False) -> CaseKey:
    return (DCSS if dcss else DISK, mb)


S13 = "The throughput of the DCSS environment is higher than any of the 'Disk' environments."
S13B = ("When increasing the Linux guest memory size by 5 MB increments, the throughput increases in "
        "the first scaling step and decreases with any further memory increase.")
S14 = ("Looking at the quantity of transactions driven per IFL shows that the DCSS environment "
       "(WebSphere executable located in the DCSS) gets the most out of the used CPUs.")
S18 = "From the 6 GB DCSS size, only 400 MB are loaded, and only a small portion stay in main memory."
S18B = "There are no pages on DASD."
S19 = ("Most of the time, 10 MB of the DCSS in main memory is sufficient to drive the test. A peak "
       "value is 50 MB of DCSS storage located in main memory.")
ORDERINGS: Tuple[Any, ...] = (
    *(SwapOrdering(f"DCSS above minidisk {mb} MB", T, _k(768, True), _k(mb), S13) for mb in SIZES),
    SwapOrdering("minidisk: 773 MB above 768 MB", T, _k(773), _k(768), S13B),
    SwapOrdering("minidisk: 773 MB above 778 MB", T, _k(773), _k(778), S13B),
    SwapOrdering("minidisk: 778 MB above 783 MB", T, _k(778), _k(783), S13B),
    *(SwapOrdering(f"tx per IFL: DCSS above minidisk {mb} MB", TX_PER_IFL, _k(768, True), _k(mb), S14)
      for mb in SIZES),
    # "About 400 MB" of 6 GB loaded: below 600 MB (a half more); resident: the stated peak.
    Below("DCSS loaded below 600 MB (about 400 MB of 6 GB)", "dcss_loaded_mb", _k(768, True), 600.0, S18),
    Below("DCSS resident below 50 MB (about 10 MB)", "dcss_resident_mb", _k(768, True), 50.0, S19),
    Below("no DCSS page on paging DASD", "dcss_dasd_pages", _k(768, True), 0.5, S18B),
)
