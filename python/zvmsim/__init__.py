"""zvmsim: a mechanistic simulator of an IBM z/VM LPAR hosting Linux guests.

    >>> import zvmsim
    >>> r = zvmsim.run("scenarios/quickstart.toml", seed=1)
    >>> r.summary["throughput_tx_per_s"], r.intervals.head()
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _core
from ._core import ScenarioError, Simulation
from ._scenario import ScenarioInput, dict_errors, dumps_toml, resolve
from .results import Result, from_simulation, load_results
from .runner import RunProgress, drive, prepare

__version__: str = _core.__version__


def run(
    path_or_scenario: ScenarioInput,
    seed: Optional[int] = None,
    overrides: Optional[Sequence[str]] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: Union[None, bool, Callable[[RunProgress], None]] = None,
    max_memory: Optional[str] = None,
) -> Result:
    """Run a scenario to its end and return its results.

    path_or_scenario: a path to a TOML file, TOML text, or a dict in the scenario's shape.
    overrides: "dotted.key=value" strings, as `zvmsim run --set`.
    out: if given, the results are also saved to this folder.
    progress: True for a progress bar on stderr, or a callable given a RunProgress per chunk.
    max_memory: a size ("8G"): refuse the run if its memory estimate is above it (default: the
    memory available on this machine).
    Raises ScenarioError for a bad scenario, FileNotFoundError for a missing file. A Ctrl-C
    propagates as KeyboardInterrupt (the CLI, not the library, turns it into partial results).
    """
    r = prepare(path_or_scenario, seed=seed, overrides=overrides, max_memory=max_memory)
    if progress is True:
        from rich.console import Console

        from ._progress import rich_progress

        with rich_progress(Console(stderr=True), os.path.basename(r.scenario), r.sim.end_ns / 1e9,
                           r.priming_s) as cb:
            drive(r, on_progress=cb)
    else:
        drive(r, on_progress=progress if callable(progress) else None)
    result = from_simulation(r.sim, r.meta())
    if out is not None:
        result.save(out)
    return result


def check(
    path_or_scenario: ScenarioInput, overrides: Optional[Sequence[str]] = None, max_memory: Optional[str] = None
) -> Dict[str, Any]:
    """Validate a scenario without running it; returns the core's short description, with the
    run's memory estimate. With max_memory ("8G"), an estimate above it is an error."""
    text, path = resolve(path_or_scenario)
    with dict_errors(path):
        return dict(_core.check(text, path, list(overrides or []), max_memory=max_memory))


def schema() -> str:
    """The JSON Schema of the scenario format."""
    return _core.schema()


__all__: List[str] = [
    "__version__",
    "run",
    "check",
    "schema",
    "load_results",
    "Result",
    "RunProgress",
    "ScenarioError",
    "Simulation",
    "dumps_toml",
]
