"""Seed 000, "Using a DCSS as swap space": a swap-bound WebSphere guest swapping to DASD, to a
DCSS of type EW/EN or SN, or to a VDISK, or given the DCSS's memory as guest storage instead
(no swap), for 1, 2, 4 and 8 servers (``scenarios/dcss/swap-*.toml``). The study's figures
(9, 10 and 12) are not in the text; only the orderings it states are checked, each with its
sentence. Case keys are ("swap <device>", servers). Imported by ``dcss.py`` (not a study of
its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from . import Case, CaseKey, Metric, figure
from .cmm import Ordering

DEVICES = {
    "dasd": "swap on DASD",
    "dcss-ewen": "swap on DCSS EW/EN",
    "dcss-sn": "swap on DCSS SN",
    "vdisk": "swap on VDISK",
    "bigger-guest": "bigger guest, no swap",
}
SERVERS = (1, 2, 4, 8)


def _file(dev: str, n: int) -> str:
    return f"dcss/swap-{dev}-{n}{'server' if n == 1 else 'servers'}.toml"


CASES = tuple(Case(DEVICES[d], n, _file(d, n), noun="servers", family="") for d in DEVICES for n in SERVERS)


def key(dev: str, n: int) -> CaseKey:
    return (DEVICES[dev], n)


CPU_PER_TX = "cpu_total_ms_per_tx"  # guest and CP time per transaction, as the LPAR sees it
SCALE = "throughput_vs_1_server"  # throughput relative to the same device with one server
GAIN = "gain_pct_vs_half"  # throughput gain over the case with half the servers


def derive(summaries: Mapping[CaseKey, Mapping[str, Any]]) -> Dict[CaseKey, Dict[str, Optional[float]]]:
    out: Dict[CaseKey, Dict[str, Optional[float]]] = {}
    for k, s in summaries.items():
        if not k[0].startswith(("swap", "bigger")):
            continue
        thr = figure(s, "throughput_tx_per_s")
        g, cp = figure(s, "cpu_guests_pct"), figure(s, "cpu_cp_pct")
        one = figure(summaries.get((k[0], 1)), "throughput_tx_per_s")
        half = figure(summaries.get((k[0], k[1] // 2)), "throughput_tx_per_s") if k[1] > 1 else None
        out[k] = {
            "throughput_tx_per_s": thr,
            CPU_PER_TX: (g + cp) * 10.0 / thr if thr and g is not None and cp is not None else None,
            "cpu_cp_pct": cp,
            SCALE: thr / one if thr is not None and one else None,
            GAIN: (thr / half - 1.0) * 100.0 if thr is not None and half else None,
            "guest_pgmajfault": figure(s, "guest_pgmajfault"),
            "guest_pgscand": figure(s, "guest_pgscand"),
        }
    return out


METRICS = (
    Metric("throughput_tx_per_s", "tx/s", label="throughput"),
    Metric(CPU_PER_TX, "ms", label="CPU ms/tx"),
    Metric(SCALE, "x", label="throughput / 1 server"),
    Metric(GAIN, "%", label="gain vs half the servers"),
    Metric("guest_pgmajfault", "faults", label="major faults"),
    Metric("guest_pgscand", "pages", label="direct scans"),
)


def _name(k: CaseKey) -> str:
    if k[0].startswith("memory saving"):
        return f"{k[0]}, {k[1]} MB guests"
    return f"{k[0]}, {k[1]} server{'' if k[1] == 1 else 's'}"


class SwapOrdering(Ordering):
    """An ordering between swap cases, named by device and servers."""

    def row(self, study: str, derived: Mapping[CaseKey, Mapping[str, Optional[float]]]) -> Dict[str, Any]:
        r = super().row(study, derived)
        r["case"] = f"{_name(self.greater)} > {_name(self.lesser)}"
        return r


@dataclass(frozen=True)
class Below:
    """A stated bound: metric(case) < limit."""

    name: str
    metric: str
    case: CaseKey
    limit: float
    source: str

    def held(self, derived: Mapping[CaseKey, Mapping[str, Optional[float]]]) -> Optional[bool]:
        v = derived.get(self.case, {}).get(self.metric)
        return None if v is None else v < self.limit

    def row(self, study: str, derived: Mapping[CaseKey, Mapping[str, Optional[float]]]) -> Dict[str, Any]:
        v = derived.get(self.case, {}).get(self.metric)
        return {"kind": "ordering", "study": study, "case": f"{_name(self.case)} < {self.limit:g}",
                "metric": self.metric, "ordering": self.name, "greater": self.limit, "lesser": v,
                "held": self.held(derived), "source": self.source}


S9 = ("When the memory is used for a swap device, DCSS has the highest throughput, and the physical "
      "disk has the lowest throughput.")
S9B = "Highest throughput is seen when the memory is used as main memory instead of a memory-based swap device."
S9C = "The DCSS type SN has a slightly higher throughput value than the DCSS EW/EN type"
S10 = "When using a memory-based swap device, the DCSS has the lowest cost, and the VDISK the highest."
S10B = ("The smallest amount of CPU to drive the throughput is in the scenario that uses the memory as "
        "guest memory, instead of for a swapping device.")
S12A = "Throughput increases for all swap device types from one to two servers."
S12B = "At four guests, the VDISK swap device does not show a throughput increase."
S12C = "The no swap case has the highest scaling factor, followed by DCSS, and then DISK."
S12D = ("While, DCSS throughput did increase fairly linearly from four to eight servers, the increase was "
        "less than from one to two and then four.")
T = "throughput_tx_per_s"
ORDERINGS: Tuple[Any, ...] = (
    SwapOrdering("bigger guest above DCSS SN", T, key("bigger-guest", 1), key("dcss-sn", 1), S9B),
    SwapOrdering("DCSS SN above VDISK", T, key("dcss-sn", 1), key("vdisk", 1), S9),
    SwapOrdering("DCSS EW/EN above VDISK", T, key("dcss-ewen", 1), key("vdisk", 1), S9),
    SwapOrdering("VDISK above DASD", T, key("vdisk", 1), key("dasd", 1), S9),
    SwapOrdering("DCSS SN above DCSS EW/EN", T, key("dcss-sn", 1), key("dcss-ewen", 1), S9C),
    SwapOrdering("VDISK costs more CPU than DCSS SN", CPU_PER_TX, key("vdisk", 1), key("dcss-sn", 1), S10),
    SwapOrdering("VDISK costs more CPU than DCSS EW/EN", CPU_PER_TX, key("vdisk", 1), key("dcss-ewen", 1), S10),
    SwapOrdering("DCSS SN costs more CPU than the bigger guest", CPU_PER_TX, key("dcss-sn", 1),
             key("bigger-guest", 1), S10B),
    *(SwapOrdering(f"{DEVICES[d]}: 2 servers above 1", T, key(d, 2), key(d, 1), S12A)
      for d in ("dasd", "dcss-sn", "vdisk", "bigger-guest")),
    Below("VDISK: no increase from 2 to 4 servers (gain below 10 %)", GAIN, key("vdisk", 4), 10.0, S12B),
    SwapOrdering("scaling to 8: bigger guest above DCSS SN", SCALE, key("bigger-guest", 8), key("dcss-sn", 8), S12C),
    SwapOrdering("scaling to 8: DCSS SN above DASD", SCALE, key("dcss-sn", 8), key("dasd", 8), S12C),
    SwapOrdering("DCSS SN: gain 1->2 above gain 4->8", GAIN, key("dcss-sn", 2), key("dcss-sn", 8), S12D),
    SwapOrdering("DCSS SN: gain 2->4 above gain 4->8", GAIN, key("dcss-sn", 4), key("dcss-sn", 8), S12D),
)
