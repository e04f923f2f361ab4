"""The `zvmsim` command line."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import polars as pl
import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from . import _core
from ._progress import rich_progress, si
from .cli_format import fmt as _fmt
from .cli_format import KEY_FIGURES, binary_size, key_rows, paging_fill_note, split_unit, whole
from .results import from_simulation, guests_frame, scalar_items
from .runner import StopFlag, drive, prepare, sigint_stops, steady_state_line
from .studies import case_of

app = typer.Typer(
    name="zvmsim",
    help="Simulate an IBM z/VM LPAR hosting Linux guests.",
    no_args_is_help=True,
    add_completion=False,
    # Unexpected errors still show a traceback (they are bugs), but not pages of locals.
    pretty_exceptions_show_locals=False,
)

EXIT_INTERRUPTED = 130  # the shell's convention for "stopped by SIGINT"

# Per-guest columns, in this order, with short headers; other columns follow while they fit.
GUEST_COLUMNS = {
    "name": "guest",
    "throughput_tx_per_s": "tx/s",
    "response_ms": "resp ms",
    "cpu_pct": "CPU %",
    "cp_pct": "CP %",
    "resident_pages": "resident",
    "page_faults_xstor": "flt XSTOR",
    "page_faults_dasd": "flt DASD",
    "pgmajfault": "majflt",
    "transactions": "tx",
}
# Run metadata: shown in the caption, not among the figures.
META_KEYS = {
    "version", "seed", "scenario", "scenario_hash", "overrides", "events", "wall_seconds",
    "events_per_second", "started_utc", "interrupted", "sim_seconds", "measured_seconds",
}  # fmt: skip
MAX_GUEST_ROWS = 40


def _out() -> Console:
    return Console(highlight=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _error(message: str) -> None:
    # Text, not markup: messages quote TOML like `[lpar]`, which Rich would eat as a style tag.
    # soft_wrap keeps "file:line:column" on one line whatever the terminal width.
    _err().print(Text(f"error: {message}", style="bold red"), soft_wrap=True)


@contextmanager
def _expected_errors() -> Iterator[None]:
    """Report a bad scenario or a missing file as one red line and exit 1, without a traceback."""
    try:
        yield
    except _core.ScenarioError as e:
        _error(str(e))
        raise typer.Exit(1) from None
    except OSError as e:  # missing scenario, unwritable output folder, ...
        _error(f"{e.strerror}: {e.filename}" if e.filename and e.strerror else str(e))
        raise typer.Exit(1) from None
    except UnicodeDecodeError as e:  # resolve() names file, line and column; this is a fallback
        _error(f"scenario is not UTF-8 text: {e}")
        raise typer.Exit(1) from None


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"zvmsim {_core.__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", callback=_version_callback, is_eager=True
    ),
) -> None:
    """Simulate an IBM z/VM LPAR hosting Linux guests."""


SetOption = typer.Option([], "--set", "-s", help="Override a scenario value, e.g. --set lpar.ifls=8 (repeatable).")
MaxMemoryOption = typer.Option(None, "--max-memory", help="Refuse a run whose memory estimate is above this size, "
                               "e.g. 8G [run default: the memory available on this machine].")


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario TOML file."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Results folder [default: out/<scenario stem>]."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=2**64 - 1,
                                       help="Random seed [default: the scenario's run.seed]."),
    overrides: List[str] = SetOption,
    with_report: bool = typer.Option(False, "--report", help="Also write the HTML report (OUT/report.html)."),
    max_memory: Optional[str] = MaxMemoryOption,
) -> None:
    """Run a scenario and write its results folder. Ctrl-C stops early and keeps partial results."""
    err = _err()
    try:
        # Validates before anything is written; building a full-scale model can take seconds.
        with _expected_errors(), err.status(f"building {scenario}"):
            r = prepare(scenario, seed=seed, overrides=overrides, max_memory=max_memory)
    except KeyboardInterrupt:
        err.print(Text("interrupted before the run started; nothing written", style="bold yellow"))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    out_dir = out if out is not None else Path("out") / scenario.stem
    end_s = r.sim.end_ns / 1e9
    err.print(Text(f"running {scenario} (seed {r.sim.seed}, {end_s:,.0f} s simulated) -> {out_dir}"), soft_wrap=True)

    stop = StopFlag()
    with sigint_stops(stop):
        with rich_progress(err, scenario.stem, end_s, r.priming_s) as on_progress:
            try:
                drive(r, on_progress=on_progress, should_stop=stop)
            except KeyboardInterrupt:
                pass  # a second Ctrl-C, or one the core raised mid-chunk: keep what we have
        result = from_simulation(r.sim, r.meta())
        with _expected_errors():
            result.save(out_dir)

    if r.measured_nothing:
        # No interval was measured: a table of zeros would read as a system doing nothing.
        err.print(
            Text(f"interrupted at t={r.reached_s:,.1f} s (simulated), during priming ({r.priming_s:,.1f} s): "
                 f"nothing was measured; partial results in {out_dir}", style="bold yellow"),
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    print_summary(result.summary)
    if with_report:
        from .report import write_report

        with _expected_errors():
            err.print(Text(f"report in {write_report(out_dir)}"), soft_wrap=True)
    if r.interrupted:
        err.print(
            Text(f"interrupted at t={r.reached_s:,.1f} s (simulated) of {end_s:,.1f} s; partial results in {out_dir}",
                 style="bold yellow"),
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    err.print(Text(f"results in {out_dir}"), soft_wrap=True)


@app.command()
def check(
    scenario: Path = typer.Argument(..., help="Scenario TOML file."),
    overrides: List[str] = SetOption,
    max_memory: Optional[str] = MaxMemoryOption,
) -> None:
    """Validate a scenario without running it."""
    from . import check as check_scenario

    with _expected_errors():
        desc = check_scenario(scenario, overrides=overrides, max_memory=max_memory)
    title = desc.pop("name", None)
    drivers = desc.pop("memory_estimate_drivers", [])
    fill = desc.pop("paging_even_fill", None)
    pairs = ", ".join(f"{k}={_fmt(v)}" for k, v in desc.items())
    out = _out()
    out.print(Text(f"ok: {scenario}{f' ({title})' if title else ''}: {pairs}", style="green"), soft_wrap=True)
    if fill:
        out.print(Text(paging_fill_note(fill), style="yellow"), soft_wrap=True)
    if drivers:
        # The fields that drive the memory estimate, largest first: what to change to shrink it.
        table = Table(title="memory estimate by scenario field", title_justify="left")
        table.add_column("field")
        table.add_column("memory", justify="right")
        table.add_column("share", justify="right")
        total = desc.get("memory_estimate_bytes") or 1
        for d in drivers:
            table.add_row(d["field"], binary_size(d["bytes"]), f"{100 * d['bytes'] / total:.1f} %")
        out.print(table)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the scenario format."""
    typer.echo(_core.schema())


# The full-model benchmark's default: the large-memory study's ten-guest z/VM 5.3 run.
BENCH_SCENARIO = Path("scenarios/large-memory/zvm53-10guests.toml")
# --quick shortens it (set-up is the same; stepping covers 30 s instead of 5 minutes).
BENCH_QUICK_OVERRIDES = ["run.priming=10s", "run.measure=20s", "run.interval=10s"]


@app.command()
def bench(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    quick: bool = typer.Option(False, "--quick", help="A shorter, rougher benchmark."),
    scenario: Path = typer.Option(
        BENCH_SCENARIO, "--scenario", help="Scenario of the full-model benchmark (run whole unless --quick)."
    ),
) -> None:
    """Measure the simulator's speed on this machine: the whole model on a scenario (events and
    page references per second, bytes per guest page), the event queue, CP's storage model."""
    res: Dict[str, Any] = {}
    # The whole model first: its memory growth is read off the process's peak so far.
    if scenario.is_file():
        overrides = BENCH_QUICK_OVERRIDES if quick else []
        with _out().status(f"running {scenario} ..."):
            try:
                res.update(_core.bench_model(scenario.read_text(), str(scenario), overrides))
            except ValueError as e:
                _error(str(e))
                raise typer.Exit(1) from None
    else:
        res["model_scenario"] = f"not found: {scenario} (run from the repository or pass --scenario)"
    res.update(_core.bench(quick=quick))
    if as_json:
        typer.echo(json.dumps(res))
        return
    table = Table(title=f"zvmsim {_core.__version__} benchmark", title_justify="left")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for k, v in _flatten(res).items():
        table.add_row(k, si(v) if k.endswith("_per_second") and isinstance(v, (int, float)) else _fmt(v))
    _out().print(table)


@app.command()
def commands(
    level: str = typer.Option("5.3", "--level", "-l", help="z/VM level, as lpar.zvm_level takes it."),
    show_all: bool = typer.Option(False, "--all", "-a", help="Also list the real commands and files not simulated."),
) -> None:
    """List the console commands zvmsim simulates at a z/VM level (CP and Linux)."""
    try:
        rows = _core.commands(level)
    except ValueError as e:  # an unknown level: the message names the simulated ones
        _error(str(e))
        raise typer.Exit(1) from None
    out = _out()
    shown = [r for r in rows if show_all or r["simulated"]]
    inferred = False

    def marked(text: str, note: Optional[str], what: str) -> Text:
        nonlocal inferred
        if note and what in note:
            inferred = True
            return Text(f"{text} *")
        return Text(text)

    cp = Table(title=f"CP commands at z/VM {level.strip()}", title_justify="left", box=box.SIMPLE_HEAD)
    cp.add_column("command", no_wrap=True)
    cp.add_column("shortest", no_wrap=True)
    cp.add_column("since", no_wrap=True)
    cp.add_column("class", no_wrap=True)
    if show_all:
        cp.add_column("simulated", no_wrap=True)
    cp.add_column("note")
    for r in (r for r in shown if r["system"] == "cp"):
        note = r["note"] or ""
        cells = [Text(r["command"]), marked(r["abbreviation"] or "", note, "abbreviation"),
                 marked(r["since"] or "—", note, "release"), Text(r["classes"] or "")]
        if show_all:
            cells.append(Text("yes", style="green") if r["simulated"] else Text("no", style="dim"))
        cells.append(Text("" if "abbreviation" in note or "release" in note else note, style="dim"))  # else `*`
        cp.add_row(*cells)
    cp.caption = ("class: the IBM privilege classes zvmsim checks (docs/console.md); blank: not checked"
                  + ("\n* inferred, not confirmed against IBM's reference" if inferred else ""))
    cp.caption_justify = "left"
    out.print(cp)

    linux = Table(title="Linux commands and files (SLES 10/11 guest; RHEL 8 where noted)", title_justify="left", box=box.SIMPLE_HEAD)
    linux.add_column("command", no_wrap=True)
    if show_all:
        linux.add_column("simulated", no_wrap=True)
    linux.add_column("note")
    for r in (r for r in shown if r["system"] == "linux"):
        cells = [Text(r["command"])]
        if show_all:
            cells.append(Text("yes", style="green") if r["simulated"] else Text("no", style="dim"))
        cells.append(Text(r["note"] or "", style="dim"))
        linux.add_row(*cells)
    out.print(linux)
    cms = Table(title="CMS commands (a console entry's cms)", title_justify="left", box=box.SIMPLE_HEAD)
    for name in ("command", "note"):
        cms.add_column(name, no_wrap=name == "command")
    for r in (r for r in shown if r["system"] == "cms"):
        cms.add_row(Text(r["command"]), Text(r["note"] or "", style="dim"))
    out.print(cms)
    hint = "" if show_all else " (--all lists them)"
    out.print(Text(f"Other real CP and Linux commands answer \"not simulated by zvmsim: <command>\"{hint}.",
                   style="dim"), soft_wrap=True)


def _flatten(d: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    """{"a": {"b": 1}, "l": [{"c": 2}]} -> {"a.b": 1, "l[0].c": 2}: nested results as table rows."""
    out: Dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "."))
        elif isinstance(v, list) and any(isinstance(x, Mapping) for x in v):
            for i, x in enumerate(v):
                out.update(_flatten(x, f"{key}[{i}].") if isinstance(x, Mapping) else {f"{key}[{i}]": x})
        else:
            out[key] = v
    return out


@app.command()
def validate(
    studies: Optional[List[str]] = typer.Argument(None, help="Studies to run [default: all]."),
    quick: bool = typer.Option(False, "--quick", help="Shortened runs (each study's quick run control)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of compared figures."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel runs [default: min(2, cores)]."),
    scenarios: Optional[Path] = typer.Option(None, "--scenarios", help="Scenarios folder [default: found]."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 when a figure misses its tolerance or a stated "
                                "ordering does not hold."),
    sets: List[str] = typer.Option([], "--set", "-s", help="Override a value in every case's scenario, e.g. --set "
                                   "run.priming=40m (repeatable; after the cases' own and --quick's)."),
) -> None:
    """Compare simulated figures with published measurements."""
    from . import validate as v
    from .studies import all_studies

    known = all_studies()
    names = studies or list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        _error(f"unknown study {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
        raise typer.Exit(1)
    chosen = [known[n] for n in names]
    err = _err()
    total = sum(len(s.cases) for s in chosen)
    jobs = jobs or v.default_jobs()
    with _expected_errors():
        v.check_sets(chosen, sets, scenarios)  # a bad --set ends here, before any run
    with_sets = f" with {' '.join(sets)}" if sets else ""
    err.print(Text(f"running {total} cases{' (quick)' if quick else ''}{with_sets}, "
                   f"{min(jobs, v.MAX_JOBS)} at a time"), soft_wrap=True)
    done: List[v.CaseOutcome] = []

    def on_done(o: v.CaseOutcome) -> None:
        done.append(o)
        mark = Text("✗ ", style="red") if o.error else Text("✓ ", style="green")
        line = f"[{len(done)}/{total}] {o.study} {o.case.level} {o.case.count} ({o.wall_seconds:.1f} s)"
        err.print(mark + Text(line + (f": {o.error}" if o.error else "")), soft_wrap=True)
        drifting = v.drift(o.summary)
        if drifting:
            err.print(Text(f"  ~ run drifted ({', '.join(drifting)}): its figures depend on the window",
                           style="yellow"), soft_wrap=True)
        unsure = v.undetermined(o.summary)
        if not drifting and unsure:
            err.print(Text(f"  ? inconclusive ({', '.join(unsure)}): too few intervals to see a drift of the tolerance",
                           style="yellow"), soft_wrap=True)

    try:
        with _expected_errors():
            rows, outcomes = v.run_studies(chosen, quick=quick, jobs=jobs, scenarios=scenarios, on_done=on_done,
                                           sets=sets)
    except KeyboardInterrupt:
        err.print(Text(f"interrupted after {len(done)} of {total} cases", style="bold yellow"))
        raise typer.Exit(EXIT_INTERRUPTED) from None

    if as_json:
        typer.echo(json.dumps(v.json_rows(rows, outcomes, chosen), indent=2))
    else:
        out = _out()
        drifted = v.steady_marks(outcomes)
        for study in chosen:
            study_rows = [r for r in rows if r.study == study.name]
            # Escaped: Rich would take "[quick]" for markup and drop it.
            title = escape(study.title + (" [quick]" if quick else "") + (f" [{', '.join(sets)}]" if sets else ""))
            orderings = v.ordering_rows(study, v.summaries_of(study, outcomes))
            if getattr(study, "orderings", ()) and study.paper:
                # Paper values for some cases, stated orderings for others (dcss): each case
                # shows only the metrics it has.
                study_rows = [r for r in study_rows if r.paper is not None or r.simulated is not None]
                out.print(_validation_table(study, title, study_rows, drifted))
                passed, missed, unchecked = v.tally(study_rows)
                out.print(Text(f"{study.name}: {passed} within tolerance, {missed} missed, {unchecked} not checked",
                               style="green" if missed == 0 else "red"))
                _print_orderings(out, study.name, orderings)
                continue
            if getattr(study, "orderings", ()) or not study.paper:
                # No paper values (withheld, or orderings only): the simulated figures.
                out.print(_figures_table(study, title, study_rows, drifted))
                if getattr(study, "orderings", ()):
                    _print_orderings(out, study.name, orderings)
                continue
            out.print(_validation_table(study, title, study_rows, drifted))
            passed, missed, unchecked = v.tally(study_rows)
            style = "green" if missed == 0 else "red"
            out.print(Text(f"{study.name}: {passed} within tolerance, {missed} missed, {unchecked} not checked",
                           style=style))
    failed = [o for o in outcomes if o.error]
    if failed:
        _error(f"{len(failed)} case(s) failed to run")
        raise typer.Exit(1)
    if strict:
        missed = [r for r in rows if r.within is False]
        broken = [o for study in chosen for o in v.ordering_rows(study, v.summaries_of(study, outcomes))
                  if o["held"] is False]
        if missed or broken:
            _error(f"--strict: {len(missed)} figure(s) missed their tolerance, {len(broken)} ordering(s) "
                   "did not hold")
            raise typer.Exit(1)


def _case_cells(study: Any, r: Any, drifted: Mapping[Any, Any]) -> Tuple[str, str]:
    # A case whose run drifted is marked "~" (its figures depend on where the window was put), one
    # whose run measured too few intervals to tell "?".
    mark = drifted.get((r.study, (r.level, r.guests)), "")
    mark = f" {mark}" if mark else ""
    case = case_of([study], r.study, (r.level, r.guests))
    return r.level + mark, case.count if case else str(r.guests)


def _marks_caption(marks: Mapping[Any, str]) -> str:
    parts = {"~": "~ the case's run drifted", "?": "? too few intervals to tell whether it drifted"}
    shown = [parts[m] for m in ("~", "?") if m in marks.values()]
    return "; ".join(shown) + " (see summary.json steady_state)"


def _figures_table(study: Any, title: str, rows: Sequence[Any], drifted: Mapping[Any, Any]) -> Table:
    """A study without paper values: the simulated figures per case."""
    labels = {m.name: m.label or m.name for m in study.metrics}
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for name in ("case", "count", "metric"):
        t.add_column(name, no_wrap=True)
    t.add_column("simulated", justify="right", no_wrap=True)
    previous = None
    for r in rows:
        first = (r.level, r.guests) != previous
        if first and previous is not None:
            t.add_section()
        previous = (r.level, r.guests)
        level, guests = _case_cells(study, r, drifted) if first else ("", "")
        t.add_row(level, guests, labels.get(r.metric, r.metric), _fmt_unit(r.simulated, r.unit))
    if drifted:
        t.caption = _marks_caption(drifted)
        t.caption_justify = "left"
    return t


def _print_orderings(out: Console, study: str, orderings: Sequence[Mapping[str, Any]]) -> None:
    marks = {True: Text("held  ", style="green"), False: Text("MISSED", style="bold red"),
             None: Text("n/a   ", style="dim")}
    for o in orderings:
        values = "" if o["held"] is None else f" ({_fmt(o['greater'])} vs {_fmt(o['lesser'])})"
        out.print(marks[o["held"]] + Text(f" {o['ordering']}: {o['case']}, {o['metric']}{values}"),
                  soft_wrap=True)
    held = sum(o["held"] is True for o in orderings)
    missed = sum(o["held"] is False for o in orderings)
    out.print(Text(f"{study}: {held} orderings held, {missed} missed, {len(orderings) - held - missed} not checked",
                   style="green" if missed == 0 else "red"))


def _validation_table(study: Any, title: str, rows: Sequence[Any],
                      drifted: Optional[Mapping[Any, Any]] = None) -> Table:
    labels = {m.name: m.label or m.name for m in study.metrics}
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for name in ("case", "count", "metric"):
        t.add_column(name, no_wrap=True)
    for name in ("paper", "simulated", "error"):
        t.add_column(name, justify="right", no_wrap=True)
    t.add_column("check", no_wrap=True)
    previous = None
    for r in rows:
        unit = " pt" if r.error_unit == "points" else " %"
        err = "—" if r.error is None else f"{r.error:+.1f}{unit}"
        tol = "" if r.tolerance is None else f" ±{r.tolerance:g}{unit}"
        check = {True: Text("ok" + tol, style="green"), False: Text("MISS" + tol, style="bold red")}.get(
            r.within, Text("—" if r.tolerance is None else "n/a" + tol, style="dim")
        )
        # Level and guest count only where they change: the eye follows the groups.
        first = (r.level, r.guests) != previous
        if first and previous is not None:
            t.add_section()
        previous = (r.level, r.guests)
        level, guests = _case_cells(study, r, drifted or {}) if first else ("", "")
        t.add_row(level, guests, labels.get(r.metric, r.metric),
                  _fmt_unit(r.paper, r.unit), _fmt_unit(r.simulated, r.unit), err, check)
    if drifted:
        t.caption = _marks_caption(drifted)
        t.caption_justify = "left"
    return t


def _fmt_unit(v: Optional[float], unit: str) -> str:
    if v is None:
        return "—"
    if unit == "%":
        return f"{v:.1f}"
    return si(v) if abs(v) >= 1000 else f"{v:,.0f}"


def print_summary(summary: Mapping[str, Any]) -> None:
    """Key figures first, then every other numeric figure, then the per-guest table."""
    out = _out()
    scalars = {k: v for k, v in scalar_items(summary).items() if k not in META_KEYS}
    numbers = {k: v for k, v in scalars.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    figures = Table(title="Summary", title_justify="left")
    figures.add_column("figure", overflow="fold")
    figures.add_column("value", justify="right", no_wrap=True)
    figures.add_column("unit", no_wrap=True)
    for label, value, unit in key_rows(numbers):
        figures.add_row(label, _fmt(value), unit)
    shown = {key for key, _, _ in KEY_FIGURES if key in numbers}
    rest = sorted(k for k in numbers if k not in shown)
    if rest and shown:
        figures.add_section()
    for key in rest:
        name, unit = split_unit(key)
        figures.add_row(name, _fmt(whole(key, numbers[key])), unit)
    out.print(figures)
    # Text facts (how the run ended, the model's RNG, ...) and the run's identity go on lines
    # of their own: in the table they would wrap, as a caption be squeezed to the table width.
    texts = [f"{k} {_fmt(v)}" for k, v in sorted(scalars.items()) if k not in numbers]
    if texts:
        out.print(Text(" · ".join(texts), style="dim"), soft_wrap=True)
    out.print(Text(_caption(summary), style="dim"), soft_wrap=True)

    guests = guests_frame(summary.get("guests") or [])
    if guests.height:
        out.print(_guest_table(guests, out.width))
    steady = steady_state_line(dict(summary))
    if steady is not None:
        style = "green" if summary["steady_state"].get("stationary") else "bold yellow"
        out.print(Text(steady, style=style), soft_wrap=True)


def _guest_table(guests: pl.DataFrame, width: int) -> Table:
    rows = guests.head(MAX_GUEST_ROWS)
    ordered = [c for c in GUEST_COLUMNS if c in guests.columns]
    ordered += [c for c in guests.columns if c not in ordered]
    t = Table(title=f"Guests ({guests.height})", title_justify="left", caption_justify="left")
    used, left_out = 4, []
    for col in ordered:
        header = GUEST_COLUMNS.get(col, col)
        cells = [_fmt(x) for x in rows[col].to_list()]
        w = max(len(header), *(len(c) for c in cells)) + 3
        if left_out or (used + w > width and t.columns):
            # Keep the table legible and the key columns first: once one column does not fit,
            # the rest (less important) are left out too. Everything is in the results folder.
            left_out.append(col)
            continue
        used += w
        t.add_column(header, justify="left" if guests[col].dtype == pl.Utf8 else "right", no_wrap=True)
    kept = [c for c in ordered if c not in left_out]
    for row in rows.select(kept).iter_rows():
        t.add_row(*(_fmt(x) for x in row))
    notes = []
    if guests.height > MAX_GUEST_ROWS:
        notes.append(f"{guests.height - MAX_GUEST_ROWS} more guests")
    if left_out:
        notes.append(f"{len(left_out)} more columns")
    if notes:
        t.caption = " and ".join(notes) + ": see summary.json or table guests in results.duckdb"
    return t


def _caption(s: Mapping[str, Any]) -> str:
    parts = [f"seed {s.get('seed')}", f"scenario {str(s.get('scenario_hash', ''))[:12]}"]
    if "sim_seconds" in s:
        measured = f", {_fmt(s['measured_seconds'])} s measured" if "measured_seconds" in s else ""
        parts.append(f"{_fmt(s['sim_seconds'])} s simulated{measured}")
    if "events" in s and "wall_seconds" in s:
        parts.append(f"{si(s['events'])} events in {s['wall_seconds']:.2f} s ({si(s.get('events_per_second', 0))}/s)")
    parts.append(f"zvmsim {s.get('version', '?')}")
    return " · ".join(parts)


# The capacity planner's commands (report, sweep, plan, explain) register themselves on `app`.
from . import cli_campaign  # noqa: E402,F401
