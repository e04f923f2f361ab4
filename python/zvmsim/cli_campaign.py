"""The capacity planner's commands: `zvmsim report`, `sweep`, `plan` and `explain`."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from .cli import EXIT_INTERRUPTED, SetOption, _err, _error, _expected_errors, _out, app


@app.command()
def report(
    results: Path = typer.Argument(..., help="A results folder (zvmsim run) or a sweep folder (zvmsim sweep)."),
    html_file: Optional[Path] = typer.Option(None, "--html", help="HTML file [default: RESULTS/report.html]."),
    text: bool = typer.Option(False, "--text", help="Also print the FCX text reports (runs only)."),
) -> None:
    """Write one self-contained HTML report (plots, FCX text reports, console log); works offline."""
    from .report import fcx_text, write_report

    with _expected_errors():
        try:
            target = write_report(results, html_file)
        except ImportError as e:
            _error(f"the report needs plotly ({e}); pip install zvmsim")
            raise typer.Exit(1) from None
        if text and not (results / "sweep.json").is_file():
            typer.echo(fcx_text(results))
    _err().print(Text(f"report in {target}"), soft_wrap=True)


VaryOption = typer.Option([], "--vary", "-v", help="KEY=V1,V2,... or KEY=FIRST..LAST[:STEP] (repeatable).")


def _progress(total: int) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("points"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=_err())


@app.command()
def sweep(
    scenario: Path = typer.Argument(..., help="Scenario TOML file."),
    vary: List[str] = VaryOption,
    overrides: List[str] = SetOption,
    seeds: int = typer.Option(1, "--seeds", help="Seeds per point: the scenario's run.seed and the next ones."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel runs [default: min(2, cores)]."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address, or `local` for a "
                                            "local Dask cluster [default: a local process pool]."),
    out: Path = typer.Option(..., "--out", "-o", help="Sweep folder; run again to resume."),
    with_report: bool = typer.Option(False, "--report", help="Also write OUT/report.html."),
) -> None:
    """Run a campaign over the product of the varied keys and seeds; finished points are kept."""
    from .sweep import Sweep, execute, write_tables
    from .validate import default_jobs

    err = _err()
    with _expected_errors():
        try:
            sw = Sweep.define(scenario, vary, overrides, seeds)
            points = sw.points()
        except ValueError as e:
            _error(str(e))
            raise typer.Exit(1) from None
    unique = len({p.key for p in points})
    err.print(Text(f"sweep of {scenario}: {unique} points -> {out}"), soft_wrap=True)
    failed: List[str] = []
    try:
        with _progress(unique) as prog:
            task = prog.add_task("sweep", total=unique)

            def on_done(p, error, wall, skipped) -> None:  # type: ignore[no-untyped-def]
                label = ", ".join(f"{k}={v}" for k, v in p.values) + f", seed {p.seed}"
                if error:
                    failed.append(f"{label}: {error}")
                    prog.console.print(Text(f"✗ {label}: {error}", style="red"), soft_wrap=True)
                elif not skipped:
                    prog.console.print(Text(f"✓ {label} ({wall:.1f} s)"), soft_wrap=True)
                prog.update(task, advance=1, description="sweep (resumed)" if skipped else "sweep")

            with _expected_errors():
                execute(sw, out, points, jobs or default_jobs(), scheduler, on_done)
    except KeyboardInterrupt:
        err.print(Text("interrupted: finished points are kept; run the same command to resume",
                       style="bold yellow"))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except typer.Exit:
        raise
    except RuntimeError as e:
        _error(str(e))
        raise typer.Exit(1) from None
    pts, agg = write_tables(out)
    _print_sweep_table(agg, [k for k, _ in sw.vary])
    drifted = pts.filter(pts["drifting"].is_not_null()) if "drifting" in pts.columns else pts.clear()
    if drifted.height:
        err.print(Text(f"~ {drifted.height} of {pts.height} points drifted over their window (their figures depend "
                       "on where the window is; column `drifting` of points.parquet): lengthen run.priming",
                       style="yellow"), soft_wrap=True)
    unsure = pts.filter(pts["steady_state"] == "inconclusive") if "steady_state" in pts.columns else pts.clear()
    if unsure.height:
        err.print(Text(f"? {unsure.height} of {pts.height} points measured too few intervals to show a steady state "
                       "(column `steady_state` of points.parquet): shorten run.interval or lengthen run.measure",
                       style="yellow"), soft_wrap=True)
    if with_report:
        from .report import write_report

        err.print(Text(f"report in {write_report(out)}"), soft_wrap=True)
    if failed:
        _error(f"{len(failed)} point(s) failed")
        raise typer.Exit(1)
    err.print(Text(f"tables in {out}/sweep.parquet, {out}/points.parquet and {out}/sweep.duckdb"), soft_wrap=True)


def _print_sweep_table(agg, keys: List[str]) -> None:  # type: ignore[no-untyped-def]
    from .cli_format import KEY_FIGURES, fmt

    if not agg.height:
        return
    out = _out()
    many = 4 if out.width >= 120 else 2  # the key columns must stay legible at 80 columns
    shown = [(k, label, unit) for k, label, unit in KEY_FIGURES if f"{k}_mean" in agg.columns][:many]
    t = Table(title="Sweep (mean ± 95 % CI over seeds)", title_justify="left", box=box.SIMPLE_HEAD)
    for k in keys:
        t.add_column(k, no_wrap=True, min_width=len(k))
    t.add_column("n", justify="right")
    for _, label, unit in shown:
        t.add_column(f"{label} {unit}", justify="right", no_wrap=True)
    for r in agg.iter_rows(named=True):
        cells = [str(r[k]) for k in keys] + [str(r["n"])]
        for k, _, _ in shown:
            m, c = r[f"{k}_mean"], r[f"{k}_ci95"]
            cells.append(fmt(m) + (f" ± {fmt(c)}" if c is not None and c == c else ""))
        t.add_row(*cells)
    out.print(t)


@app.command()
def plan(
    scenario: Path = typer.Argument(..., help="Scenario TOML file."),
    largest: Optional[str] = typer.Option(None, "--largest", help="Search the largest value: KEY=FIRST..LAST or "
                                          "KEY=V1,V2,... (e.g. guests[0].count=5..10)."),
    smallest: Optional[str] = typer.Option(None, "--smallest", help="Search the smallest value (e.g. "
                                           "lpar.central=40G,50G,60G,70G,80G)."),
    keep: List[str] = typer.Option([], "--keep", "-k", help="Condition that must hold: FIGURE>=PERCENT% (of the "
                                   "least constrained run) or FIGURE<=VALUE (repeatable)."),
    overrides: List[str] = SetOption,
    seeds: int = typer.Option(1, "--seeds", help="Seeds per run; conditions use the mean."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel runs [default: min(2, cores)]."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address, or `local`."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for the runs (share it with a sweep to reuse runs)."),
    exhaustive: bool = typer.Option(False, "--exhaustive", help="Run every value instead of bisecting."),
) -> None:
    """Answer a capacity question by searching over runs, e.g. how many guests keep 70 % throughput."""
    from . import plan as planner
    from .validate import default_jobs

    if (largest is None) == (smallest is None):
        _error("give one of --largest KEY=RANGE or --smallest KEY=RANGE")
        raise typer.Exit(1)
    goal, search = ("largest", largest) if largest is not None else ("smallest", smallest)
    err = _err()
    runs = [0]

    def on_point(p, error, wall, skipped) -> None:  # type: ignore[no-untyped-def]
        label = ", ".join(f"{k}={v}" for k, v in p.values) + f", seed {p.seed}"
        runs[0] += not skipped
        err.print(Text(f"{'reused' if skipped else 'ran'} {label}" + ("" if skipped else f" ({wall:.1f} s)")),
                  soft_wrap=True)

    try:
        with _expected_errors():
            res = planner.plan(scenario, goal, search or "", keep, overrides, seeds, out, jobs or default_jobs(),
                               scheduler, exhaustive, on_point)
    except typer.Exit:
        raise
    except (ValueError, RuntimeError) as e:
        _error(str(e))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        err.print(Text("interrupted: finished runs are kept", style="bold yellow"))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    sentence, rows = planner.describe(res)
    out_c = _out()
    t = Table(title="Runs used (the curve)", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column(res.key, justify="right")
    for c in res.conditions:
        t.add_column(c.figure, justify="right")
    t.add_column("holds")
    for r in rows:
        t.add_row(*r)
    out_c.print(t)
    if res.monotone is False:
        out_c.print(Text("note: the conditions hold again after failing: the curve is not monotone",
                         style="bold yellow"))
    out_c.print(Text(sentence, style="bold green" if res.answer is not None else "bold red"), soft_wrap=True)
    err.print(Text(f"{runs[0]} new run(s); runs in {out}/points, answer in {out}/plan.json"), soft_wrap=True)
    if res.answer is None:
        raise typer.Exit(1)


@app.command()
def explain(figure: Optional[str] = typer.Argument(None, help="A figure's name; none lists them all.")) -> None:
    """Say what a figure means and its unit (the glossary, docs/glossary.md)."""
    from .figures import glossary, lookup, suggestions

    out = _out()
    if figure is None:
        t = Table(title="Figures", title_justify="left", box=box.SIMPLE_HEAD)
        t.add_column("figure", no_wrap=True)
        t.add_column("unit", no_wrap=True)
        t.add_column("meaning")
        for f in glossary():
            t.add_row(f.name, f.unit, f.text)
        out.print(t)
        return
    name = figure.strip()
    f = lookup(name)
    if f is None:
        close = suggestions(name, [g.name for g in glossary()])
        _error(f"no figure `{name}`" + (f"; did you mean {', '.join(close)}?" if close else
                                         "; `zvmsim explain` lists them all"))
        raise typer.Exit(1)
    where = {"system": "system.parquet and summary.json", "guest": "intervals.parquet (per guest)",
             "both": "system.parquet, intervals.parquet and summary.json", "summary": "summary.json"}[f.where]
    out.print(Text(f"{f.name} [{f.unit or 'no unit'}] — {f.text}\n  in {where}"), soft_wrap=True)


__all__ = ["report", "sweep", "plan", "explain"]
