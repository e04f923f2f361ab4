"""IBM, "Linux on IBM System z Large Discontiguous Saved Segments (DCSS) Under Linux" (2011),
seed 000: "DCSS access and load times", "Using a DCSS as swap space" (``swap.py``: its
cases and stated orderings join this study) and "Sharing read-only data using DCSS"
(``readonly.py``: simulated figures only, the measured ones are withheld) and "Determining the
memory saving using a DCSS" (``memsave.py``: Table 6's five cases and the orderings the text
states).

Each case runs one scenario of ``scenarios/dcss/`` in which a CMS user defines and saves the
DCSS of type SR (DEFSEG, SAVESEG) and a Linux guest adds it, fills it, saves it and adds it
again, each with the study's own commands; the compared figures are the times of those
commands (the console's ``elapsed_s``, in ``summary["timed_commands"]``). Table 5 gives the
8 and 16 GB times in minutes; the summary's linear laws give the 4 GB ones. Case keys are
("sr", GB).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from . import Case, CaseKey, Metric, Tolerance, register
from . import memsave, readonly, swap
from .cmm import OrderedStudy

SIZES = (4, 8, 16)
CASES = (
    tuple(Case("sr", gb, f"dcss/load-sr-{gb}g.toml", noun="GB", family="DCSS") for gb in SIZES)
    + swap.CASES
    + readonly.CASES
    + memsave.CASES
)

# A DCSS of n GB here is n/2 segments of 2047 MB (Table 3): its size in GB.
def _gb(n: int) -> float:
    return n / 2 * 2047 / 1024


def _paper() -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    # Table 5, minutes -> seconds.
    table5 = {8: (11, 8, 12, 4), 16: (22, 16, 28, 8)}
    for gb in SIZES:
        g = _gb(gb)
        row: Dict[str, Optional[float]] = {
            # Summary's linear laws: SR save ~12 s + 81 s/GB, load 12 s + 63 s/GB, fill
            # 12 s + 11 s/GB.
            "law_save_s": 12 + 81 * g,
            "law_first_add_s": 12 + 63 * g,
            "law_fill_s": 12 + 11 * g,
        }
        if gb in table5:
            cms, add1, lsave, add2 = table5[gb]
            row.update(
                cms_save_s=cms * 60.0,
                first_add_s=add1 * 60.0,
                linux_save_s=lsave * 60.0,
                second_add_s=add2 * 60.0,
            )
        out[("sr", gb)] = row
    return out


def _times(summary: Optional[Mapping[str, Any]]) -> List[Mapping[str, Any]]:
    return list((summary or {}).get("timed_commands") or [])


def _derive(s: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = swap.derive(s)
    out.update(readonly.derive(s))
    out.update(memsave.derive(s))
    for key, summary in s.items():
        if key[0] != "sr":
            continue
        t = _times(summary)
        saves = [c["elapsed_s"] for c in t if c["command"].lower().startswith("saveseg")]
        adds = [c["elapsed_s"] for c in t if c["command"].endswith("/sys/devices/dcssblk/add")]
        fills = [c["elapsed_s"] for c in t if " dd " in f" {c['command']}"]
        lsave = [c["elapsed_s"] for c in t if c["command"].startswith("time umount")]
        cms = sum(saves) if saves else None
        row: Dict[str, Optional[float]] = {
            "cms_save_s": cms,
            "law_save_s": cms,
            "first_add_s": adds[0] if adds else None,
            "law_first_add_s": adds[0] if adds else None,
            "law_fill_s": fills[0] if fills else None,
            # The save dcssblk runs when the mounted device's last user closes it (umount).
            "linux_save_s": lsave[0] if lsave else None,
            "second_add_s": adds[1] if len(adds) > 1 else None,
        }
        out[key] = row
    return out


T15 = Tolerance(15.0)
METRICS = (
    Metric("cms_save_s", "s", T15, "CMS save"),
    Metric("first_add_s", "s", T15, "first add"),
    Metric("linux_save_s", "s", T15, "Linux save"),
    Metric("second_add_s", "s", T15, "second add"),
    Metric("law_save_s", "s", T15, "SR save law"),
    Metric("law_first_add_s", "s", T15, "load law"),
    Metric("law_fill_s", "s", T15, "fill law"),
    *swap.METRICS,
    *readonly.METRICS,
    *memsave.METRICS,
)

register(
    OrderedStudy(
        name="dcss",
        title="Large DCSS under Linux: SR save, load and fill times; swap devices",
        source="seed 000, Table 5 and the summary's linear laws; Figures 9, 10 and 12 as the text states them; read-only data: simulated only (withheld); memory saving: Figures 13-19 as the text states them",
        cases=CASES,
        paper=_paper(),
        metrics=METRICS,
        derive=_derive,
        orderings=swap.ORDERINGS + memsave.ORDERINGS,
    )
)
