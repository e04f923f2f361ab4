"""Driving a Simulation in chunks, so a caller can show progress and stop it between chunks."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from types import FrameType
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from . import _core
from ._scenario import ScenarioInput, dict_errors, resolve

# Wall time one step_until call should take: short enough for a live progress bar and a prompt
# Ctrl-C, long enough that per-call overhead does not matter.
CHUNK_WALL_LOW_S = 0.1
CHUNK_WALL_HIGH_S = 0.3
CHUNKS_PER_RUN = 400  # the largest chunk is end/400 of simulated time
FIRST_CHUNK_NS = 1_000_000_000


@dataclass(frozen=True)
class RunProgress:
    """What a progress callback is told after each chunk."""

    now_s: float
    end_s: float
    events: int
    wall_s: float

    @property
    def fraction(self) -> float:
        return min(1.0, self.now_s / self.end_s) if self.end_s > 0 else 1.0

    @property
    def events_per_second(self) -> float:
        return self.events / self.wall_s if self.wall_s > 0 else 0.0


ProgressCallback = Callable[[RunProgress], None]


@dataclass
class Run:
    """A Simulation plus what is needed to describe it in summary.json."""

    sim: Any  # _core.Simulation
    scenario: str  # path as given, or "<string>" / "<dict>"
    overrides: List[str]
    started_utc: str = ""
    wall_seconds: float = 0.0
    reached_s: float = 0.0  # simulated time the run got to
    interrupted: bool = False
    priming_s: Optional[float] = None  # where the measured window begins (None: unknown)

    @property
    def measured_nothing(self) -> bool:
        """Stopped before the measured window began: there are no figures, not zero figures."""
        return self.interrupted and self.priming_s is not None and self.reached_s <= self.priming_s

    def meta(self) -> Dict[str, Any]:
        events = int(self.sim.events)
        return {
            "version": _core.__version__,
            "seed": int(self.sim.seed),
            "scenario": self.scenario,
            "scenario_hash": str(self.sim.scenario_hash),
            "overrides": list(self.overrides),
            "events": events,
            "wall_seconds": self.wall_seconds,
            "events_per_second": events / self.wall_seconds if self.wall_seconds > 0 else 0.0,
            "started_utc": self.started_utc,
            "interrupted": self.interrupted,
        }


def prepare(
    scenario: ScenarioInput,
    seed: Optional[int] = None,
    overrides: Optional[Sequence[str]] = None,
    max_memory: Optional[str] = None,
) -> Run:
    """Read and validate the scenario and build its Simulation (raises ScenarioError, FileNotFoundError).

    A run whose memory estimate is above max_memory ("8G"; default: what the machine has
    available) is refused with a ScenarioError before anything is allocated."""
    text, path = resolve(scenario)
    ovr = list(overrides or [])
    with dict_errors(path):
        sim = _core.Simulation(text, path, seed=seed, overrides=ovr, max_memory=max_memory)
    return Run(sim=sim, scenario=path, overrides=ovr, priming_s=priming_seconds(text, path, ovr))


def priming_seconds(text: str, path: str, overrides: Sequence[str]) -> Optional[float]:
    """The scenario's priming time, as the core resolves it (units, overrides): its end time with
    a measured window of one second (the shortest interval), less that second."""
    try:
        desc = _core.check(text, path, [*overrides, "run.measure=1s", "run.interval=1s"])
        return max(0.0, float(desc["end_s"]) - 1.0)
    except (_core.ScenarioError, KeyError, TypeError, ValueError):
        return None


def drive(
    run: Run,
    on_progress: Optional[ProgressCallback] = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> None:
    """Step ``run.sim`` to its end, or until ``should_stop()`` turns true between two chunks.

    Sets run.started_utc, run.wall_seconds and run.interrupted. A KeyboardInterrupt raised
    inside a chunk propagates (with wall_seconds and interrupted already set).
    """
    sim = run.sim
    end = int(sim.end_ns)
    max_chunk = max(1, end // CHUNKS_PER_RUN)
    # Start with one simulated second and let the wall-time band grow it: a first chunk of
    # end/400 can take minutes on a long run, and Ctrl-C only takes effect between chunks.
    chunk = min(max_chunk, FIRST_CHUNK_NS)
    # Track the target we asked for rather than trusting now_ns to land exactly on it, so a
    # clock that stops at the last event cannot make this loop spin.
    pos = int(sim.now_ns)
    run.started_utc = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    t0 = time.perf_counter()
    try:
        while pos < end and not should_stop():
            target = min(end, pos + chunk)
            t = time.perf_counter()
            sim.step_until(target)
            dt = time.perf_counter() - t
            pos = max(target, int(sim.now_ns))
            # Keep each call within the wall-time band: shrink at once when slow, regrow gently.
            if dt > CHUNK_WALL_HIGH_S:
                chunk = max(1, int(chunk * (CHUNK_WALL_LOW_S + CHUNK_WALL_HIGH_S) / 2 / dt))
            elif dt < CHUNK_WALL_LOW_S:
                chunk = min(max_chunk, chunk * 2)
            if on_progress is not None:
                on_progress(RunProgress(pos / 1e9, end / 1e9, int(sim.events), time.perf_counter() - t0))
    finally:
        run.wall_seconds = time.perf_counter() - t0
        run.reached_s = pos / 1e9
        run.interrupted = pos < end


class StopFlag:
    """Set by the first Ctrl-C; a second Ctrl-C raises KeyboardInterrupt as usual."""

    def __init__(self) -> None:
        self.is_set = False

    def __call__(self) -> bool:
        return self.is_set


@contextmanager
def sigint_stops(flag: StopFlag) -> Iterator[StopFlag]:
    """Within the block, Ctrl-C asks the run to stop after the current chunk instead of raising.

    step_until releases the GIL, so the default handler would only raise once the chunk is done
    anyway; catching the signal ourselves lets us finish cleanly and still save the results.
    Outside the main thread signals cannot be handled; then Ctrl-C behaves as usual.
    """
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum: int, frame: Optional[FrameType]) -> None:
        if flag.is_set:
            raise KeyboardInterrupt
        flag.is_set = True

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def steady_state_line(summary: Dict[str, Any]) -> Optional[str]:
    """One line saying whether the run's headline figures drifted (summary's ``steady_state``)."""
    ss = summary.get("steady_state")
    if not isinstance(ss, dict):
        return None
    n = ss.get("intervals", 0)
    tol = f"tolerance {ss.get('tolerance_pct', 0):g} %"
    if ss.get("stationary"):
        return f"steady state: stationary over {n} intervals ({tol})"
    verdict = str(ss.get("verdict") or "")
    if verdict.startswith("not applicable"):
        return f"steady state: {verdict}"
    drifting = set(ss.get("drifting") or [])
    undetermined = set(ss.get("undetermined") or [])
    if not drifting and undetermined:
        # No figure drifted, but the test could not have seen a drift of the tolerance in these.
        parts = [
            f"{f['figure']} only a change over {f['detectable_pct']:.0f} %/window would show"
            for f in ss.get("figures") or []
            if f.get("figure") in undetermined and f.get("detectable_pct") is not None
        ]
        return (f"steady state: inconclusive over {n} intervals — {', '.join(parts)} ({tol}); "
                "shorten run.interval or lengthen run.measure")
    if not drifting:
        return f"steady state: too few intervals to tell ({n} measured; {tol}); lengthen run.measure"
    parts = [
        f"{f['figure']} {f['drift_pct']:+.1f} %/window"
        for f in ss.get("figures") or []
        if f.get("figure") in drifting and f.get("drift_pct") is not None
    ]
    return f"steady state: DRIFTING — {', '.join(parts)} ({n} intervals, {tol}); lengthen run.priming"
