"""Turning what a caller hands us (path, TOML text or dict) into (text, path) for the core."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any, Mapping, Tuple, Union

ScenarioInput = Union[str, "os.PathLike[str]", Mapping[str, Any]]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def resolve(scenario: ScenarioInput) -> Tuple[str, str]:
    """Return (toml_text, path_for_messages). Raises FileNotFoundError for a missing file."""
    if isinstance(scenario, Mapping):
        return dumps_toml(scenario), "<dict>"
    if isinstance(scenario, os.PathLike):
        return _read(Path(scenario))
    if not isinstance(scenario, str):
        raise TypeError(f"scenario must be a path, TOML text or dict, not {type(scenario).__name__}")
    # A string is TOML text when it looks like TOML and names no existing file; anything else
    # is a path, so a mistyped file name gets "not found" rather than a confusing parse error.
    if ("\n" in scenario or "=" in scenario) and not os.path.isfile(scenario):
        return scenario, "<string>"
    return _read(Path(scenario))


def _read(path: Path) -> Tuple[str, str]:
    if path.is_dir():
        raise FileNotFoundError(f"scenario is a directory, not a file: {path}")
    # The core reports positions in this text, so read it verbatim (no newline translation).
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return raw.decode("utf-8"), str(path)
    except UnicodeDecodeError as e:
        raise not_utf8(str(path), raw, e) from None


def not_utf8(path: str, raw: bytes, e: UnicodeDecodeError) -> Exception:
    """A located ScenarioError for a file that is not UTF-8: line and column of the first bad byte."""
    from . import _core

    line = raw.count(b"\n", 0, e.start) + 1
    column = len(raw[raw.rfind(b"\n", 0, e.start) + 1 : e.start].decode("utf-8", "replace")) + 1
    detail = f"the scenario is not UTF-8 text (TOML files are UTF-8): byte 0x{raw[e.start]:02x} {e.reason}"
    err = _core.ScenarioError(f"{path}:{line}:{column}: field `(encoding)`: {detail}")
    for k, v in (("file", path), ("line", line), ("column", column), ("field", "(encoding)"), ("detail", detail)):
        setattr(err, k, v)
    return err


def dumps_toml(doc: Mapping[str, Any]) -> str:
    """A minimal TOML writer: tables, arrays of tables, and scalars or arrays of scalars.

    Enough for scenario dicts; the stdlib only reads TOML and we add no dependency to write it.
    """
    lines: list[str] = []
    _table(lines, [], doc)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(lines: list[str], prefix: list[str], table: Mapping[str, Any]) -> None:
    subtables = []
    for key, value in table.items():
        if isinstance(value, Mapping):
            subtables.append((key, value))
        elif _is_table_array(value):
            subtables.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in subtables:
        path = ".".join(_key(k) for k in [*prefix, key])
        if isinstance(value, Mapping):
            lines += ["", f"[{path}]"]
            _table(lines, [*prefix, key], value)
        else:
            for item in value:
                lines += ["", f"[[{path}]]"]
                _table(lines, [*prefix, key], item)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML basic strings
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML: {value!r}")


class _DictErrors:
    """Re-raise the core's ScenarioError for a scenario given as a dict so that it names the key
    path, not a line and column of TOML the caller never wrote."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, e: Any, tb: Any) -> bool:
        from . import _core

        if self.path != "<dict>" or not isinstance(e, _core.ScenarioError) or not getattr(e, "field", None):
            return False
        if str(e).startswith("--set"):  # an override's own position is meaningful
            return False
        new = _core.ScenarioError(f"scenario given as a dictionary (no file): key `{e.field}`: {e.detail}")
        for attr in ("file", "line", "column", "field", "detail"):
            setattr(new, attr, getattr(e, attr, None))
        raise new from None


def dict_errors(path: str) -> _DictErrors:
    return _DictErrors(path)
