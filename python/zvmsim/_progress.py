"""The Rich progress bar shared by `zvmsim run` and `zvmsim.run(progress=True)`."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .runner import ProgressCallback, RunProgress


def si(value: float) -> str:
    """1234567 -> '1.23M': event rates span many orders of magnitude."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def phase(now_s: float, priming_s: Optional[float]) -> str:
    """"priming" until the measured window begins, then "measuring"."""
    if priming_s is None:
        return "running"
    return "priming" if now_s < priming_s else "measuring"


@contextmanager
def rich_progress(console: Console, label: str, end_s: float,
                  priming_s: Optional[float] = None) -> Iterator[ProgressCallback]:
    # Phase, simulated time, elapsed and ETA must stay legible at 80 columns; the event rate
    # and a longer bar only where there is room.
    wide = console.width >= 110
    columns = [
        TextColumn("[bold]{task.description}"),
        TextColumn("{task.fields[phase]:<9}"),
        BarColumn(bar_width=30 if wide else 12),
        TextColumn("sim {task.fields[now]:,.1f}/{task.fields[end]:,.1f} s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    ]
    if wide:
        columns.append(TextColumn("{task.fields[eps]} events/s"))
    progress = Progress(*columns, console=console)
    label = label if wide or len(label) <= 16 else label[:15] + "…"
    task = progress.add_task(label, total=end_s or 1.0, now=0.0, end=end_s, eps="-", phase=phase(0.0, priming_s))

    def update(p: RunProgress) -> None:
        progress.update(task, completed=p.now_s, now=p.now_s, eps=si(p.events_per_second),
                        phase=phase(p.now_s, priming_s))

    with progress:
        yield update
