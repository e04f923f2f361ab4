"""Bad input: every expected error is one message naming file, line, column and field; exit 1; no traceback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, NamedTuple, Optional

import pytest
from conftest import DATA, invoke

import zvmsim

BASE = (DATA / "small.toml").read_text(encoding="utf-8")


class Bad(NamedTuple):
    id: str
    old: Optional[str]  # line of BASE to replace (None: append `new`)
    new: str
    field: str  # the field the message must name
    on_changed_line: bool = True  # does the error point at the edited line?
    extra: str = ""  # text the message must also contain
    overrides: List[str] = []


CASES = [
    Bad("mistyped-key", "ifls = 4", "ifl = 4", "ifl"),
    Bad("wrong-type", "ifls = 4", 'ifls = "ten"', "ifls"),
    Bad("negative-size", 'storage = "2G"', 'storage = "-16G"', "storage"),
    Bad("malformed-size", 'storage = "2G"', 'storage = "16Q"', "storage"),
    Bad("unknown-cp-command", 'cp = "QUERY STORAGE"', 'cp = "FROBNICATE ALL"', "cp", extra="HCPCMD001E"),
    Bad("unknown-section", None, "[network]\nspeed = 1\n", "network"),
    Bad("missing-required", 'storage = "2G"', "", "storage", on_changed_line=False),
    Bad("zero-guests", "count = 2", "count = 0", "count"),
    Bad("toml-syntax", 'central = "8G"', 'central = = "8G"', "", extra=""),
    Bad("bad-override", None, "", "ifls", on_changed_line=False, overrides=["lpar.ifls=ten"]),
]


def write_case(tmp_path: Path, case: Bad) -> "tuple[Path, Optional[int]]":
    """Write the broken scenario; return its path and the 1-based line that was changed."""
    if case.old is None:
        text = BASE + ("\n" + case.new if case.new else "")
        line = len(BASE.splitlines()) + 2 if case.new else None
    else:
        lines = BASE.splitlines()
        idx = lines.index(case.old)
        lines[idx : idx + 1] = case.new.splitlines()
        text = "\n".join(lines) + "\n"
        line = idx + 1
    path = tmp_path / f"{case.id}.toml"
    path.write_text(text, encoding="utf-8")
    return path, line


def assert_located(message: str, path: Path, case: Bad, line: Optional[int]) -> None:
    assert "Traceback" not in message
    # "file:line:column: ..." — the file is the scenario, or the --set option for an override.
    m = re.search(r"(\S+?):(\d+):(\d+):", message)
    assert m, f"no file:line:column in {message!r}"
    if not case.overrides:
        assert m.group(1).endswith(str(path)), message
        if case.on_changed_line and line is not None:
            assert int(m.group(2)) == line, message
    if not case.overrides:
        # The location lies inside the file: a line of it, a column of that line.
        lines = path.read_text().splitlines()
        row, col = int(m.group(2)), int(m.group(3))
        assert 1 <= row <= len(lines) and 1 <= col <= len(lines[row - 1]) + 1, message
    assert case.field in message, message
    assert case.extra in message, message


def set_args(case: Bad) -> List[str]:
    return [a for o in case.overrides for a in ("--set", o)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_check_rejects(runner, tmp_path: Path, case: Bad) -> None:
    path, line = write_case(tmp_path, case)
    res = invoke(runner, ["check", str(path), *set_args(case)])
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert_located(res.stderr, path, case, line)
    assert "Traceback" not in res.stdout


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_run_rejects_and_writes_nothing(runner, tmp_path: Path, case: Bad) -> None:
    path, line = write_case(tmp_path, case)
    out = tmp_path / "out"
    res = invoke(runner, ["run", str(path), "--out", str(out), *set_args(case)])
    assert res.exit_code == 1, res.output
    assert_located(res.stderr, path, case, line)
    assert not out.exists()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_api_raises_scenario_error(tmp_path: Path, case: Bad) -> None:
    path, line = write_case(tmp_path, case)
    with pytest.raises(zvmsim.ScenarioError) as info:
        zvmsim.check(path, overrides=case.overrides)
    e = info.value
    assert isinstance(e, ValueError)
    if not case.overrides:
        lines = path.read_text().splitlines()
        assert 1 <= e.line <= len(lines) and 1 <= e.column <= len(lines[e.line - 1]) + 1
    assert str(e).startswith(f"{e.file}:{e.line}:{e.column}:")
    if not case.overrides and case.on_changed_line and line is not None:
        assert (e.file, e.line) == (str(path), line)


def test_override_without_equals(runner, small_scenario: Path) -> None:
    res = invoke(runner, ["check", str(small_scenario), "--set", "lpar.ifls"])
    assert res.exit_code == 1
    assert "Traceback" not in res.output + res.stderr
    assert re.search(r":\d+:\d+:", res.stderr), res.stderr


@pytest.mark.parametrize("command", ["run", "check"])
def test_missing_file(runner, tmp_path: Path, command: str) -> None:
    missing = tmp_path / "nope.toml"
    extra = ["--out", str(tmp_path / "o")] if command == "run" else []
    res = invoke(runner, [command, str(missing), *extra])
    assert res.exit_code == 1
    assert "Traceback" not in res.output + res.stderr
    assert str(missing) in res.stderr
    assert not (tmp_path / "o").exists()
