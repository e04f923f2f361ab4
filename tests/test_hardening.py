"""Issue 13 on the Python side: no traceback for any user error, a located message for a file
that is not UTF-8, and a core panic or unexpected exception shown as an internal error with a
request to report it (exit 70). Hypothesis throws random overrides, console commands and
mutated scenario text at `zvmsim check`; ZVMSIM_HYPOTHESIS_EXAMPLES sets how many (CI: 40)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from conftest import DATA, invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zvmsim
from zvmsim import _core
from zvmsim._errors import EXIT_INTERNAL, entry

BASE = (DATA / "small.toml").read_text(encoding="utf-8")
EXAMPLES = int(os.environ.get("ZVMSIM_HYPOTHESIS_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


def test_a_file_that_is_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    p = tmp_path / "latin1.toml"
    p.write_bytes(BASE.replace('seed = 7', 'seed = 7\nname = "Caf\xe9"').encode("latin-1"))
    with pytest.raises(_core.ScenarioError) as e:
        zvmsim.check(p)
    line = BASE.splitlines().index("seed = 7") + 2
    assert (e.value.file, e.value.line, e.value.column) == (str(p), line, 12)
    assert str(e.value).startswith(f"{p}:{line}:12: field `(encoding)`: the scenario is not UTF-8 text")
    assert "0xe9" in str(e.value)


def test_not_utf8_through_the_command_line_has_no_traceback(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    p.write_bytes(b"\xff\xfe[lpar]\n")
    r = subprocess.run([sys.executable, "-m", "zvmsim", "check", str(p)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr + r.stdout
    assert f"{p}:1:1: field `(encoding)`" in r.stderr.replace("\n", "")


def _entry(args: List[str], capsys: pytest.CaptureFixture[str]) -> "tuple[int, str]":
    with pytest.raises(SystemExit) as e:
        entry(args)
    out = capsys.readouterr()
    return int(e.value.code or 0), out.out + out.err


def test_a_core_panic_is_an_internal_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ZVMSIM_DEBUG", raising=False)
    monkeypatch.setattr(zvmsim, "check", lambda *a, **k: _core._panic_for_tests("frames list empty"))
    code, text = _entry(["check", str(DATA / "small.toml")], capsys)
    assert code == EXIT_INTERNAL
    assert "Traceback" not in text
    assert "internal error: the simulator core panicked: frames list empty" in text
    assert "lib.rs:" in text, "where the core panicked, for the report"
    assert "Please report it with the scenario file" in text


def test_an_unexpected_exception_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ZVMSIM_DEBUG", raising=False)

    def broken(*a: object, **k: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(zvmsim, "check", broken)
    code, text = _entry(["check", str(DATA / "small.toml")], capsys)
    assert code == EXIT_INTERNAL
    assert "Traceback" not in text
    assert "internal error: unexpected ZeroDivisionError: division by zero" in text


def test_zvmsim_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZVMSIM_DEBUG", "1")
    monkeypatch.setattr(zvmsim, "check", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        entry(["check", str(DATA / "small.toml")])


def test_a_user_error_keeps_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _entry(["check", str(DATA / "small.toml"), "--set", "lpar..ifls=3"], capsys)
    assert code == 1
    assert "--set lpar..ifls=3:1:1: field `lpar..ifls`: key `lpar..ifls` has an empty part" in text.replace("\n", "")


@pytest.mark.parametrize("seed", ["-1", str(2**64), "x"])
def test_an_out_of_range_seed_is_a_usage_error(runner, seed: str) -> None:  # type: ignore[no-untyped-def]
    r = invoke(runner, ["run", str(DATA / "small.toml"), "--seed", seed])
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def _check_has_no_traceback(runner, args: List[str]) -> None:  # type: ignore[no-untyped-def]
    r = invoke(runner, ["check", *args])
    # A panic or unexpected exception surfaces as r.exception (CliRunner keeps it).
    assert r.exception is None or isinstance(r.exception, SystemExit), f"{args}: {r.exception!r}"
    assert r.exit_code in (0, 1, 2), (args, r.exit_code)
    text = r.output + (r.stderr if r.stderr_bytes is not None else "")
    assert "Traceback" not in text
    if r.exit_code == 1:
        assert "error: " in text


KEYS = st.sampled_from(["lpar.ifls", "lpar.central", "lpar.zvm_level", "run.measure", "run.interval",
                        "guests[0].count", "guests[0].storage", "guests[0].name", "model.paging_block",
                        "model.avail_low_fraction", "console[0].cp", "lpar..ifls", ".", "", "guests[5].x"])
VALUES = st.one_of(st.sampled_from(["0", "-1", "nan", "5.25", "1ms", "1T", "LNX%", "\u00a0", "Q\tSTOR"]),
                   st.text(max_size=12))


@FUZZ
@given(st.lists(st.builds(lambda k, v: f"{k}={v}", KEYS, VALUES) | st.text(max_size=16), min_size=1, max_size=3))
def test_random_overrides_never_show_a_traceback(runner, overrides: List[str]) -> None:  # type: ignore[no-untyped-def]
    args = [str(DATA / "small.toml")]
    for o in overrides:
        args += ["--set", o]
    _check_has_no_traceback(runner, args)


@FUZZ
@given(st.text(max_size=60), st.sampled_from(["cp", "linux"]))
def test_random_console_commands_never_show_a_traceback(runner, tmp_path_factory, command: str, kind: str) -> None:  # type: ignore[no-untyped-def]
    user = "LNX01" if kind == "linux" else "MAINT"
    text = BASE + f'\n[[console]]\nat = "1s"\nuser = "{user}"\n{kind} = {json.dumps(command)}\n'
    p = tmp_path_factory.mktemp("c") / "s.toml"
    p.write_text(text, encoding="utf-8")
    _check_has_no_traceback(runner, [str(p)])


@FUZZ
@given(st.binary(max_size=8), st.integers(min_value=0, max_value=len(BASE)))
def test_random_bytes_in_the_file_never_show_a_traceback(runner, tmp_path_factory, junk: bytes, at: int) -> None:  # type: ignore[no-untyped-def]
    raw = BASE.encode("utf-8")
    p = tmp_path_factory.mktemp("b") / "s.toml"
    p.write_bytes(raw[:at] + junk + raw[at:])
    _check_has_no_traceback(runner, [str(p)])
