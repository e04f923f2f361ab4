"""`zvmsim plan`: the planner's questions answered by a search over runs.

"The largest number of guests that keeps throughput at or above 70 % of the unconstrained run",
"the smallest central storage that keeps the response time under 50 ms": one key is searched
over its range, every condition must hold. A condition in % is relative to the least constrained
end of the range (the first value for ``largest``, the last for ``smallest``); without % it is
absolute. The search bisects, so it assumes the conditions hold on one side of the answer and
fail on the other (``exhaustive`` runs every value and says so if they do not). Each run is a
point of :mod:`zvmsim.sweep`, kept under ``OUT/points/``: a sweep and a plan sharing a folder
share their runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .sweep import Point, Sweep, execute, parse_vary, point_dir, typed

PLAN_FILE = "plan.json"
_CONDITION = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*(>=|<=|>|<)\s*([-+0-9.eE]+)\s*(%?)\s*$")


@dataclass(frozen=True)
class Condition:
    figure: str
    op: str
    bound: float
    relative: bool  # bound in % of the baseline run's figure

    @classmethod
    def parse(cls, text: str) -> "Condition":
        m = _CONDITION.match(text)
        if not m:
            raise ValueError(f"--keep {text!r}: write FIGURE>=VALUE or FIGURE>=PERCENT%, "
                             "e.g. throughput_tx_per_s>=70% or response_ms<=50")
        return cls(m.group(1), m.group(2), float(m.group(3)), m.group(4) == "%")

    def threshold(self, baseline: Optional[float]) -> Optional[float]:
        if not self.relative:
            return self.bound
        return None if baseline is None else baseline * self.bound / 100.0

    def holds(self, value: Optional[float], baseline: Optional[float]) -> bool:
        limit = self.threshold(baseline)
        if value is None or limit is None:
            return False
        return {">=": value >= limit, "<=": value <= limit, ">": value > limit, "<": value < limit}[self.op]

    def __str__(self) -> str:
        return f"{self.figure} {self.op} {self.bound:g}{' % of the baseline' if self.relative else ''}"


@dataclass
class Evaluation:
    value: str
    figures: Dict[str, Optional[float]]  # mean over seeds per condition figure
    ok: bool
    points: List[str]


@dataclass
class PlanResult:
    key: str
    goal: str  # "largest" or "smallest"
    values: List[str]
    baseline: str
    conditions: List[Condition]
    answer: Optional[str] = None
    evaluations: Dict[str, Evaluation] = field(default_factory=dict)
    monotone: Optional[bool] = None  # known only when every value was run

    def curve(self) -> List[Evaluation]:
        order = {v: i for i, v in enumerate(self.values)}
        return sorted(self.evaluations.values(), key=lambda e: order[e.value])

    def to_json(self) -> Dict[str, Any]:
        return {
            "key": self.key, "goal": self.goal, "values": self.values, "baseline": self.baseline,
            "conditions": [str(c) for c in self.conditions], "answer": self.answer, "monotone": self.monotone,
            "runs": [{"value": e.value, "figures": e.figures, "ok": e.ok, "points": e.points} for e in self.curve()],
        }


def plan(scenario: Any, goal: str, search: str, keep: Sequence[str], sets: Sequence[str] = (), seeds: int = 1,
         out: Path = Path("out/plan"), jobs: int = 1, scheduler: Optional[str] = None, exhaustive: bool = False,
         on_point: Optional[Callable[..., None]] = None) -> PlanResult:
    if goal not in ("largest", "smallest"):
        raise ValueError("goal is largest or smallest")
    key, values = parse_vary(search)
    values = _ordered(values)
    conditions = [Condition.parse(k) for k in keep]
    if not conditions:
        raise ValueError("give at least one --keep condition")
    sweep = Sweep.define(scenario, [f"{key}={','.join(values)}"], sets, seeds)
    by_value: Dict[str, List[Point]] = {}
    for p in sweep.points():
        by_value.setdefault(dict(p.values)[key], []).append(p)
    out = Path(out)
    baseline = values[0] if goal == "largest" else values[-1]
    res = PlanResult(key, goal, values, baseline, conditions)

    def figures(v: str) -> Dict[str, Optional[float]]:
        pts = by_value[v]
        errors = [e for _, e in execute(sweep, out, pts, jobs, scheduler, on_point, manifest=None) if e]
        if errors:
            raise RuntimeError(f"{key}={v}: {errors[0]}")
        return {c.figure: _mean([_figure(out, p.key, c.figure) for p in pts]) for c in conditions}

    base = figures(baseline)

    def feasible(v: str) -> bool:
        if v not in res.evaluations:
            f = base if v == baseline else figures(v)
            ok = all(c.holds(f[c.figure], base[c.figure]) for c in conditions)
            res.evaluations[v] = Evaluation(v, f, ok, [p.key for p in by_value[v]])
        return res.evaluations[v].ok

    # Index i along the search direction: 0 is the baseline, the answer is the last feasible i.
    seq = values if goal == "largest" else values[::-1]
    if exhaustive:
        oks = [feasible(v) for v in seq]
        res.monotone = all(a or not b for a, b in zip(oks, oks[1:]))  # no ok after a failure
        last = max((i for i, ok in enumerate(oks) if ok), default=None)
        res.answer = seq[last] if last is not None else None
    elif not feasible(seq[0]):
        res.answer = None
    elif feasible(seq[-1]):
        res.answer = seq[-1]
    else:
        lo, hi = 0, len(seq) - 1  # feasible(lo), not feasible(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if feasible(seq[mid]):
                lo = mid
            else:
                hi = mid
        res.answer = seq[lo]
    _write(out / PLAN_FILE, res.to_json())
    return res


def _ordered(values: List[str]) -> List[str]:
    nums = typed(values)
    if all(isinstance(v, (int, float)) for v in nums):
        return [v for _, v in sorted(zip(nums, values))]
    return values  # sizes such as 40G: as given, least to most


def _figure(out: Path, key: str, name: str) -> Optional[float]:
    f = point_dir(out, key) / "summary.json"
    v = json.loads(f.read_text(encoding="utf-8")).get(name)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _mean(xs: Sequence[Optional[float]]) -> Optional[float]:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def _write(path: Path, doc: Dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def describe(res: PlanResult) -> Tuple[str, List[Tuple[str, ...]]]:
    """The answer as one sentence, and the curve's rows (value, figure (% of baseline), ok)."""
    conds = " and ".join(str(c) for c in res.conditions)
    base = f"baseline {res.key}={res.baseline}"
    if res.answer is None:
        sentence = f"no {res.key} in {res.values[0]}..{res.values[-1]} keeps {conds} ({base})"
    else:
        sentence = f"{res.goal} {res.key} that keeps {conds}: {res.answer} ({base})"
    rows = []
    basefig = res.evaluations[res.baseline].figures if res.baseline in res.evaluations else {}
    for e in res.curve():
        cells = [e.value]
        for c in res.conditions:
            v, b = e.figures.get(c.figure), basefig.get(c.figure)
            pct = f" ({v / b * 100:.1f} %)" if v is not None and b else ""
            cells.append("—" if v is None else f"{v:,.2f}{pct}")
        cells.append("yes" if e.ok else "no")
        rows.append(tuple(cells))
    return sentence, rows
