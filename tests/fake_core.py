"""A pure-Python stand-in for the native ``zvmsim._core`` module.

Only for working on the Python layer while the Rust core is not built:
``ZVMSIM_FAKE_CORE=1 pytest`` installs it as ``zvmsim._core`` (see conftest.py).
It mimics the interface and the error format, not the model: its figures are noise.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]
from typing import Any

__version__ = "0.0.0+fake"

_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([KMGT])$")
_DUR = re.compile(r"^(\d+(?:\.\d+)?)(ns|us|ms|s|m|h)$")
_DUR_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
_CP_VERBS = {"QUERY", "SET", "INDICATE", "CP", "MESSAGE", "VARY", "DEFINE", "DETACH", "ATTACH"}

# section -> {key: (type, required)}
_SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    "lpar": {"ifls": ("int", True), "central": ("size", True), "expanded": ("size", False),
             "zvm_level": ("str", True)},
    "run": {"priming": ("dur", False), "measure": ("dur", True), "interval": ("dur", False),
            "seed": ("int", False)},
    "guests": {"name": ("str", True), "count": ("count", False), "storage": ("size", True),
               "vcpus": ("int", True), "workload": ("str", True)},
    "workloads": {"kind": ("str", True), "users": ("int", False), "think_time": ("dur", False),
                  "cpu_per_tx": ("dur", False)},
    "console": {"at": ("dur", True), "user": ("str", True), "cp": ("str", False),
                "linux": ("str", False)},
}


class ScenarioError(ValueError):
    def __init__(self, file: str, line: int, column: int, field: str, detail: str) -> None:
        self.file, self.line, self.column, self.field, self.detail = file, line, column, field, detail
        super().__init__(f"{file}:{line}:{column}: field `{field}`: {detail}")


def _locate(text: str, key: str, occurrence: int = 0) -> tuple[int, int]:
    leaf = key.split(".")[-1]
    pat = re.compile(rf"^(\s*)(\[\[?)?{re.escape(leaf)}\b")
    seen = 0
    for i, line in enumerate(text.splitlines(), 1):
        m = pat.match(line)
        if m:
            if seen == occurrence:
                return i, len(m.group(1)) + len(m.group(2) or "") + 1
            seen += 1
    return 1, 1


def _parse_overrides(overrides: list[str]) -> list[tuple[list[str], Any]]:
    out = []
    for i, o in enumerate(overrides, 1):
        key, sep, raw = o.partition("=")
        if not sep or not key.strip():
            raise ScenarioError("--set", i, 1, key or o, f"expected key=value, got `{o}`")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        out.append((key.strip().split("."), value))
    return out


def _load(text: str, path: str, overrides: list[str]) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        raise ScenarioError(path, line, col, "", f"TOML syntax error: {str(e).split(' (at')[0]}") from None
    for i, (keys, value) in enumerate(_parse_overrides(overrides), 1):
        node: Any = doc
        for k in keys[:-1]:
            if isinstance(node, list):
                node = node[int(k)] if k.isdigit() and int(k) < len(node) else None
            else:
                node = node.get(k)
            if node is None:
                raise ScenarioError("--set", i, 1, ".".join(keys), "no such key")
        node[keys[-1]] = value
    for section in doc:
        if section not in _SCHEMA:
            line, col = _locate(text, section)
            raise ScenarioError(path, line, col, section, "unknown section")
    for section, spec in _SCHEMA.items():
        tables = doc.get(section, [] if section in ("guests", "console") else {})
        if section == "workloads":
            items = [(f"workloads.{n}", t) for n, t in tables.items()]
        elif isinstance(tables, list):
            items = [(f"{section}[{i}]", t) for i, t in enumerate(tables)]
        else:
            items = [(section, tables)]
        for idx, (where, table) in enumerate(items):
            for key, value in table.items():
                if key not in spec:
                    line, col = _locate(text, key)
                    raise ScenarioError(path, line, col, f"{where}.{key}", "unknown field")
                _check_value(text, path, f"{where}.{key}", key, spec[key][0], value)
            for key, (_, required) in spec.items():
                if required and key not in table:
                    line, col = _locate(text, section, idx)
                    raise ScenarioError(path, line, col, f"{where}.{key}", "missing required field")
    if not doc.get("guests"):
        raise ScenarioError(path, 1, 1, "guests", "at least one guest is required")
    for i, c in enumerate(doc.get("console", [])):
        verb = str(c.get("cp", "")).split()[:1]
        if verb and verb[0].upper() not in _CP_VERBS:
            line, col = _locate(text, "cp", i)
            raise ScenarioError(path, line, col, f"console[{i}].cp",
                                f"HCPCMD001E Unknown CP command: {verb[0]}")
    return doc


def _check_value(text: str, path: str, field: str, key: str, kind: str, value: Any) -> None:
    line, col = _locate(text, key)
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "count": isinstance(value, int) and not isinstance(value, bool),
        "str": isinstance(value, str),
        "size": isinstance(value, str) and bool(_SIZE.match(value)),
        "dur": isinstance(value, str) and bool(_DUR.match(value)),
    }[kind]
    if not ok:
        if kind == "size" and isinstance(value, str) and value.startswith("-"):
            raise ScenarioError(path, line, col, field, f"size must not be negative: `{value}`")
        raise ScenarioError(path, line, col, field, f"expected {kind}, got {value!r}")
    if kind == "count" and value < 1:
        raise ScenarioError(path, line, col, field, "guest count must be at least 1")


def _dur(s: str) -> int:
    m = _DUR.match(s)
    assert m
    return int(float(m.group(1)) * _DUR_NS[m.group(2)])


def _guest_names(doc: dict[str, Any]) -> list[str]:
    names = []
    for g in doc["guests"]:
        n = g.get("count", 1)
        names += [g["name"] % (i + 1) if "%" in g["name"] else g["name"] for i in range(n)]
    return names


def schema() -> str:
    return json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "zvmsim scenario",
                       "type": "object", "properties": {k: {"type": "object"} for k in _SCHEMA}})


def check(text: str, path: str, overrides: list[str] = []) -> dict[str, Any]:  # noqa: B006
    doc = _load(text, path, overrides)
    run = doc["run"]
    return {"guests": len(_guest_names(doc)), "end_s": (_dur(run.get("priming", "0s")) + _dur(run["measure"])) / 1e9,
            "zvm_level": doc["lpar"]["zvm_level"]}


class Simulation:
    def __init__(self, text: str, path: str, seed: int | None = None, overrides: list[str] = []) -> None:  # noqa: B006
        doc = _load(text, path, overrides)
        run = doc["run"]
        self.seed = seed if seed is not None else int(run.get("seed", 0))
        self._priming = _dur(run.get("priming", "0s"))
        self._interval = _dur(run.get("interval", "60s"))
        self.end_ns = self._priming + _dur(run["measure"])
        self.now_ns = 0
        self.events = 0
        self.scenario_hash = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]
        self._guests = _guest_names(doc)
        self._rng = random.Random(self.seed)
        self._rows: list[dict[str, Any]] = []
        self._sys: list[dict[str, Any]] = []
        self._console = [{"t_s": _dur(c["at"]) / 1e9, "user": c["user"], "command": c.get("cp") or c.get("linux"),
                          "response": ["STORAGE = 80G CONFIGURED = 80G"]} for c in doc.get("console", [])]
        self._next_iv = self._priming + self._interval

    def step_until(self, t_ns: int) -> int:
        t_ns = min(t_ns, self.end_ns)
        n = max(0, (t_ns - self.now_ns) // 1_000_000)  # one "event" per simulated ms
        time.sleep(n * 2e-8)
        while self._next_iv <= t_ns:
            k = len(self._sys)
            t0 = (self._next_iv - self._interval) / 1e9
            for g in self._guests:
                self._rows.append({"interval": k, "t_start_s": t0, "t_end_s": self._next_iv / 1e9, "guest": g,
                                   "throughput_tx_per_s": 100 + self._rng.random() * 10,
                                   "cpu_pct": 20 + self._rng.random() * 5, "pages_dasd": self._rng.randrange(1000)})
            self._sys.append({"interval": k, "t_start_s": t0, "t_end_s": self._next_iv / 1e9,
                              "cpu_lpar_pct": 50 + self._rng.random(), "cpu_cp_pct": 3 + self._rng.random()})
            self._next_iv += self._interval
        self.now_ns = max(self.now_ns, t_ns)
        self.events += n
        return n

    def run(self) -> None:
        self.step_until(self.end_ns)

    def summary(self) -> dict[str, Any]:
        measured = max(0, self.now_ns - self._priming) / 1e9
        thr = sum(r["throughput_tx_per_s"] for r in self._rows) / max(1, len(self._sys))
        return {
            "throughput_tx_per_s": thr, "cpu_lpar_pct": 55.0 + self._rng.random(), "cpu_guests_pct": 50.0,
            "cpu_cp_pct": 3.5, "pages_xstor": 1_000_000, "pages_dasd": 5_000_000 * (len(self._guests) - 5),
            "real_overcommit_pct": 20.0 * (len(self._guests) - 5), "scenario_hash": self.scenario_hash,
            "seed": self.seed, "version": __version__, "events": self.events, "sim_seconds": self.now_ns / 1e9,
            "measured_seconds": measured,
            "guests": [{"name": g, "throughput_tx_per_s": thr / len(self._guests), "cpu_pct": 10.0}
                       for g in self._guests],
        }

    def intervals(self) -> dict[str, list[Any]]:
        cols = ["interval", "t_start_s", "t_end_s", "guest", "throughput_tx_per_s", "cpu_pct", "pages_dasd"]
        return {c: [r[c] for r in self._rows] for c in cols}

    def system_intervals(self) -> dict[str, list[Any]]:
        cols = ["interval", "t_start_s", "t_end_s", "cpu_lpar_pct", "cpu_cp_pct"]
        return {c: [r[c] for r in self._sys] for c in cols}

    def console(self) -> list[dict[str, Any]]:
        return [c for c in self._console if c["t_s"] * 1e9 <= self.now_ns]


def bench(quick: bool = False) -> dict[str, Any]:
    t = time.perf_counter()
    sim = Simulation(_BENCH, "<bench>")
    sim.run()
    return {"events_per_second": sim.events / (time.perf_counter() - t), "quick": quick}


_BENCH = """
[lpar]
ifls = 2
central = "8G"
zvm_level = "5.3"
[run]
measure = "60s"
[[guests]]
name = "B"
storage = "1G"
vcpus = 1
workload = "w"
[workloads.w]
kind = "transactional"
"""
