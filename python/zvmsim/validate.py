"""Running the studies of :mod:`zvmsim.studies` and comparing simulated with published figures."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ._pool import run_spawned
from ._scenario import resolve
from .studies import Case, CaseKey, Row, Study, case_of, compare

MAX_JOBS = 2  # the reference machine has 2 cores; every case is CPU-bound


def default_jobs() -> int:
    return max(1, min(MAX_JOBS, os.cpu_count() or 1))


def scenario_dirs() -> List[Path]:
    """Where study scenarios are looked for, first match wins."""
    here = Path(__file__).resolve().parent
    dirs = []
    if os.environ.get("ZVMSIM_SCENARIOS"):
        dirs.append(Path(os.environ["ZVMSIM_SCENARIOS"]))
    dirs += [
        Path.cwd() / "scenarios",
        here.parent.parent / "scenarios",  # source checkout: python/zvmsim -> repo root
        here / "scenarios",
        here.parent / "scenarios",  # files a wheel installs beside the package
    ]
    return dirs


def find_scenarios_dir(study: Study, explicit: Optional[Path] = None) -> Path:
    """The first scenarios folder holding every scenario of ``study``."""
    candidates = [explicit] if explicit is not None else scenario_dirs()
    for d in candidates:
        if all((d / c.scenario).is_file() for c in study.cases):
            return d
    where = candidates[0]
    missing = [c.scenario for c in study.cases if not (where / c.scenario).is_file()]
    raise FileNotFoundError(
        f"scenarios of study `{study.name}` not found (looked in {', '.join(str(d) for d in candidates)}); "
        f"missing in {where}: {', '.join(missing)}"
    )


@dataclass
class CaseOutcome:
    study: str
    case: Case
    summary: Optional[Dict[str, Any]]
    error: Optional[str]
    wall_seconds: float


def run_case(path: str, overrides: Sequence[str]) -> Tuple[Optional[Dict[str, Any]], Optional[str], float]:
    """Run one scenario to its end; returns (summary, error message, wall seconds).

    Errors come back as text because a native exception need not survive pickling between
    processes.
    """
    from . import _core

    t = time.perf_counter()
    try:
        with open(path, encoding="utf-8", newline="") as f:
            sim = _core.Simulation(f.read(), path, overrides=list(overrides))
        sim.run()
        return dict(sim.summary()), None, time.perf_counter() - t
    except (_core.ScenarioError, OSError) as e:
        return None, str(e), time.perf_counter() - t


def case_overrides(study: Study, case: Case, path: str, quick: bool, sets: Sequence[str] = ()) -> Tuple[str, ...]:
    """A case's `--set` overrides, in the order they apply: its own, the study's quick run
    control and the case's (with ``quick``), then the user's ``sets``. A case with a
    ``measure_factor`` then measures that multiple of the window all of these give its scenario
    (read by the scenario loader, so every unit the scenario accepts counts). A scenario or an
    override the loader refuses is left to the run, which reports it."""
    ovr = tuple(case.overrides)
    if quick:
        ovr += tuple(study.quick_overrides) + tuple(case.quick_overrides)
    ovr += tuple(sets)
    if case.measure_factor != 1:
        from . import _core

        try:
            measure_s = _core.check(*resolve(Path(path)), overrides=list(ovr))["measure_s"]
        except (_core.ScenarioError, OSError):
            return ovr
        ovr += (f"run.measure={round(measure_s * case.measure_factor * 1000)}ms",)
    return ovr


def check_sets(studies: Sequence[Study], sets: Sequence[str], scenarios: Optional[Path] = None) -> None:
    """Raise the scenario loader's error for the first case whose scenario refuses ``sets``
    (an unknown field, a bad value), before anything runs."""
    if not sets:
        return
    from . import _core

    for study in studies:
        d = find_scenarios_dir(study, scenarios)
        for c in study.cases:
            _core.check(*resolve(d / c.scenario), overrides=list(c.overrides) + list(sets))


def run_studies(
    studies: Sequence[Study],
    quick: bool = False,
    jobs: int = 1,
    scenarios: Optional[Path] = None,
    on_done: Optional[Callable[[CaseOutcome], None]] = None,
    sets: Sequence[str] = (),
) -> Tuple[List[Row], List[CaseOutcome]]:
    """Run every case of ``studies`` (``jobs`` processes) and compare; returns rows and outcomes.
    ``sets`` (`validate --set`) apply to every case, after its own overrides."""
    work: List[Tuple[Study, Case, str, Tuple[str, ...]]] = []
    for study in studies:
        d = find_scenarios_dir(study, scenarios)  # fail before running anything
        paths = [str(d / c.scenario) for c in study.cases]
        work += [(study, c, p, case_overrides(study, c, p, quick, sets)) for c, p in zip(study.cases, paths)]

    outcomes: List[CaseOutcome] = []

    def done(study: Study, case: Case, res: Tuple[Optional[Dict[str, Any]], Optional[str], float]) -> None:
        outcome = CaseOutcome(study.name, case, res[0], res[1], res[2])
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)

    if jobs <= 1 or len(work) <= 1:
        for study, case, path, ovr in work:
            done(study, case, run_case(path, ovr))
    else:
        run_spawned(run_case, (((study, case), (path, ovr)) for study, case, path, ovr in work),
                    min(jobs, MAX_JOBS), lambda sc, res: done(sc[0], sc[1], res))

    rows: List[Row] = []
    for study in studies:
        summaries = summaries_of(study, outcomes)
        rows += drop_absent_optional(study, compare(study, summaries))
    return rows, outcomes


def summaries_of(study: Study, outcomes: Sequence[CaseOutcome]) -> Dict[CaseKey, Dict[str, Any]]:
    return {o.case.key: o.summary for o in outcomes if o.study == study.name and o.summary is not None}


def drop_absent_optional(study: Study, rows: List[Row]) -> List[Row]:
    """Leave out a study's optional metrics (``optional_metrics``) that no case's summary has."""
    optional = getattr(study, "optional_metrics", frozenset())
    present = {r.metric for r in rows if r.simulated is not None}
    return [r for r in rows if r.metric not in optional or r.metric in present]


def ordering_rows(study: Study, summaries: Mapping[CaseKey, Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """The study's stated orderings (``orderings``), each as a row with ``held`` True/False/None."""
    orderings = getattr(study, "orderings", ())
    if not orderings:
        return []
    derived = study.derive(summaries)
    return [o.row(study.name, derived) for o in orderings]


def _steady_state(summary: Optional[Mapping[str, Any]]) -> Optional[Mapping[str, Any]]:
    """A run's steady-state check (its summary's ``steady_state``); None when it has none."""
    ss = (summary or {}).get("steady_state")
    return ss if isinstance(ss, Mapping) else None


def drift(summary: Optional[Mapping[str, Any]]) -> Optional[List[str]]:
    """The figures that drifted in a run (its summary's steady-state check); None when unknown."""
    ss = _steady_state(summary)
    return None if ss is None else list(ss.get("drifting") or [])


def undetermined(summary: Optional[Mapping[str, Any]]) -> List[str]:
    """The headline figures whose drift a run's check could not have seen (verdict "inconclusive")."""
    return list((_steady_state(summary) or {}).get("undetermined") or [])


def verdict(summary: Optional[Mapping[str, Any]]) -> Optional[str]:
    """A run's steady-state verdict (stationary, drifting, inconclusive, ...); None when unknown."""
    v = (_steady_state(summary) or {}).get("verdict")
    return str(v) if v else None


def drifting_cases(outcomes: Sequence[CaseOutcome]) -> Dict[Tuple[str, CaseKey], List[str]]:
    """(study, case) -> drifting figures, for the cases whose run drifted."""
    out: Dict[Tuple[str, CaseKey], List[str]] = {}
    for o in outcomes:
        d = drift(o.summary)
        if d:
            out[(o.study, o.case.key)] = d
    return out


def steady_marks(outcomes: Sequence[CaseOutcome]) -> Dict[Tuple[str, CaseKey], str]:
    """(study, case) -> "~" for the cases whose run drifted, "?" for those whose verdict was
    inconclusive (no figure drifted, but too few intervals to have seen it)."""
    marks = {key: "~" for key in drifting_cases(outcomes)}
    for o in outcomes:
        if (o.study, o.case.key) not in marks and undetermined(o.summary):
            marks[(o.study, o.case.key)] = "?"
    return marks


def json_rows(rows: Sequence[Row], outcomes: Sequence[CaseOutcome], studies: Sequence[Study]) -> List[Dict[str, Any]]:
    """`zvmsim validate --json`: one row per compared figure (kind "figure": study, case, level,
    guests, metric, paper, simulated, unit, error, tolerance, within, drifting), then each
    study's orderings (kind "ordering": study, case, metric, ordering, greater, lesser, held,
    source). ``drifting`` lists the figures that drifted in the case's run (empty: none did);
    ``steady_state`` is that run's verdict (stationary, drifting, inconclusive: no figure drifted
    but too few intervals to have seen it)."""
    drifted = {(o.study, o.case.key): drift(o.summary) for o in outcomes}
    verdicts = {(o.study, o.case.key): verdict(o.summary) for o in outcomes}
    out: List[Dict[str, Any]] = []
    for r in rows:
        case = case_of(studies, r.study, (r.level, r.guests))
        d = dict(kind="figure", case=case.label if case else f"z/VM {r.level}, {r.guests} guests", **r.to_dict())
        d["drifting"] = drifted.get((r.study, (r.level, r.guests)))
        d["steady_state"] = verdicts.get((r.study, (r.level, r.guests)))
        out.append(d)
    for study in studies:
        out += ordering_rows(study, summaries_of(study, outcomes))
    return out


def tally(rows: Sequence[Row]) -> Tuple[int, int, int]:
    """(within tolerance, missed, not checked)."""
    passed = sum(r.within is True for r in rows)
    missed = sum(r.within is False for r in rows)
    return passed, missed, len(rows) - passed - missed
