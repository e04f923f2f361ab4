"""Worker processes for the commands that run many scenarios (`zvmsim sweep`, `zvmsim validate`)."""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any, Callable, Dict, Iterable, Tuple, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops them; otherwise each prints a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_spawned(fn: Callable[..., R], calls: Iterable[Tuple[T, Tuple[Any, ...]]], jobs: int,
                done: Callable[[T, R], None]) -> None:
    """Run ``fn(*args)`` for each ``(tag, args)`` of ``calls`` in ``jobs`` worker processes;
    ``done(tag, result)`` runs in this process as each call ends.

    On Ctrl-C (or an error) the workers are stopped at once: a running scenario can take minutes.
    """
    # spawn, not fork: the parent may already run threads (Rich's refresh thread, the core's).
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_ignore_sigint)
    try:
        futures: Dict[Future[Any], T] = {pool.submit(fn, *args): tag for tag, args in calls}
        for fut in as_completed(futures):
            done(futures[fut], fut.result())
    except BaseException:
        workers = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()
        raise
    pool.shutdown()
