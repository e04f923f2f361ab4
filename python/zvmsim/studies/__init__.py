"""Published measurements that zvmsim is checked against (`zvmsim validate`).

A study is a module in this package that calls :func:`register` with a :class:`Study`: the
scenarios that reproduce the published setup, the paper's figures per case, how to derive the
compared metrics from the simulated summaries, and the tolerances.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

CaseKey = Tuple[str, int]  # (level, guests), e.g. ("5.3", 7)
Figures = Mapping[str, Optional[float]]


@dataclass(frozen=True)
class Case:
    level: str  # the configuration family a case belongs to, e.g. a z/VM level
    guests: int
    scenario: str  # path relative to the scenarios folder
    # `--set` overrides of this case: `overrides` always (they make this case of a shared
    # scenario, before the study's run control), `quick_overrides` after the study's `--quick`
    # run control (a case's own shortened window).
    overrides: Tuple[str, ...] = ()
    quick_overrides: Tuple[str, ...] = ()
    # The case measures this many times the window its scenario measures once every override
    # (the study's, its own, `validate --set`) is applied: the window-doubling check follows a
    # window the user chooses.
    measure_factor: int = 1
    # What the case's number counts ("guests", "paths", "aliases", "GB") and what names its
    # family ("z/VM" before a level; empty when the family is a configuration, e.g. "pav").
    noun: str = "guests"
    family: str = "z/VM"
    # The metrics this case has, when not all of the study's (a study whose cases measure
    # different things, such as iozone's and dbench's runs of seed 004).
    metrics: Tuple[str, ...] = ()

    @property
    def key(self) -> CaseKey:
        return (self.level, self.guests)

    @property
    def count(self) -> str:
        noun = self.noun
        if self.guests == 1 and noun.endswith("s"):
            noun = noun[:-2] if noun.endswith("ses") else noun[:-1]
        return f"{self.guests} {noun}"

    @property
    def label(self) -> str:
        return f"{self.family} {self.level}, {self.count}".strip()


@dataclass(frozen=True)
class Tolerance:
    amount: float  # in the metric's error unit: points for "%" metrics, percent otherwise
    min_guests: Optional[int] = None  # restrict the check to some cases (e.g. not the baseline)
    max_guests: Optional[int] = None

    def applies(self, guests: int) -> bool:
        return (self.min_guests is None or guests >= self.min_guests) and (
            self.max_guests is None or guests <= self.max_guests
        )


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str  # "%" metrics are compared in absolute points, anything else relatively
    tolerance: Optional[Tolerance] = None  # None: shown for information, not checked
    label: str = ""  # short name for tables (default: name)
    listed_only: bool = False  # only cases that list it in `Case.metrics` have it

    @property
    def error_unit(self) -> str:
        return "points" if self.unit == "%" else "%"

    def error(self, paper: float, simulated: float) -> Optional[float]:
        if self.unit == "%":
            return simulated - paper
        if paper == 0:
            return None  # a relative error of a zero figure is undefined
        return (simulated - paper) / abs(paper) * 100.0

    def within(self, guests: int, paper: float, simulated: float) -> Optional[bool]:
        if self.tolerance is None or not self.tolerance.applies(guests):
            return None
        err = self.error(paper, simulated)
        if err is None:  # paper says zero: only zero is "within" a relative tolerance
            return simulated == 0
        return abs(err) <= self.tolerance.amount


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    source: str
    cases: Tuple[Case, ...]
    paper: Mapping[CaseKey, Figures]  # published figures per case and metric
    metrics: Tuple[Metric, ...]
    # Maps every case's simulated summary to the compared metrics (some metrics, like a
    # percentage of a baseline case, need more than one summary).
    derive: Callable[[Mapping[CaseKey, Mapping[str, Any]]], Mapping[CaseKey, Figures]]
    # `--quick` overrides: a shortened run control, tuned per study.
    quick_overrides: Tuple[str, ...] = ()
    notes: str = ""


def case_of(studies: Sequence["Study"], study: str, key: CaseKey) -> Optional[Case]:
    """The case of `study` with `key`, if any."""
    for s in studies:
        if s.name == study:
            return next((c for c in s.cases if c.key == key), None)
    return None


@dataclass
class Row:
    """One compared figure: the unit of `zvmsim validate --json` output."""

    study: str
    level: str
    guests: int
    metric: str
    paper: Optional[float]
    simulated: Optional[float]
    unit: str
    error: Optional[float] = None
    error_unit: str = ""
    tolerance: Optional[float] = None
    within: Optional[bool] = None

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


def compare(study: Study, summaries: Mapping[CaseKey, Mapping[str, Any]]) -> List[Row]:
    """Rows for every case and metric; cases missing from ``summaries`` get no simulated value."""
    derived = study.derive(summaries)
    rows: List[Row] = []
    for case in study.cases:
        for m in study.metrics:
            if (case.metrics or m.listed_only) and m.name not in case.metrics:
                continue
            paper = study.paper.get(case.key, {}).get(m.name)
            sim = derived.get(case.key, {}).get(m.name)
            if sim is not None and (not isinstance(sim, (int, float)) or not math.isfinite(sim)):
                sim = None
            row = Row(study.name, case.level, case.guests, m.name, paper, sim, m.unit, error_unit=m.error_unit)
            if m.tolerance is not None and m.tolerance.applies(case.guests):
                row.tolerance = m.tolerance.amount
            if paper is not None and sim is not None:
                row.error = m.error(paper, sim)
                row.within = m.within(case.guests, paper, sim)
            rows.append(row)
    return rows


def figure(summary: Optional[Mapping[str, Any]], key: str) -> Optional[float]:
    """A numeric summary figure, or None when the summary or key is missing."""
    if summary is None:
        return None
    v = summary.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


_REGISTRY: Dict[str, Study] = {}
_loaded = False


def register(study: Study) -> Study:
    if study.name in _REGISTRY and _REGISTRY[study.name] is not study:
        raise ValueError(f"study {study.name!r} registered twice")
    _REGISTRY[study.name] = study
    return study


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def all_studies() -> Dict[str, Study]:
    """Every registered study by name (importing this package's study modules once)."""
    global _loaded
    if not _loaded:
        for mod in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{mod.name}")
        _loaded = True
    return dict(sorted(_REGISTRY.items()))


def series(levels: Mapping[str, Sequence[Optional[float]]], guests: Sequence[int]) -> Dict[CaseKey, float]:
    """{level: [value per guest count]} -> {(level, guests): value} (None entries dropped)."""
    out: Dict[CaseKey, float] = {}
    for level, values in levels.items():
        if len(values) != len(guests):
            raise ValueError(f"level {level}: {len(values)} values for {len(guests)} guest counts")
        out.update({(level, g): float(v) for g, v in zip(guests, values) if v is not None})
    return out


__all__ = [
    "Case",
    "CaseKey",
    "Metric",
    "Row",
    "Study",
    "Tolerance",
    "all_studies",
    "compare",
    "figure",
    "register",
    "series",
    "unregister",
]
