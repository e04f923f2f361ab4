"""Shared fixtures. The suite runs against the real native core (`pip install .` first).

ZVMSIM_FAKE_CORE=1 swaps in tests/fake_core.py instead, for working on the Python layer
without a Rust build; the CLI subprocess tests are skipped then.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, List

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
FAKE = os.environ.get("ZVMSIM_FAKE_CORE") == "1"

if FAKE:
    sys.path.insert(0, str(ROOT / "python"))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fake_core

    sys.modules["zvmsim._core"] = fake_core
else:
    try:
        import zvmsim._core  # noqa: F401
    except ImportError as e:  # fail loudly: a skipped suite would look green
        raise pytest.UsageError(
            f"zvmsim._core is not importable ({e}); build it with `pip install .` "
            "(or run with ZVMSIM_FAKE_CORE=1 for the pure-Python stand-in)"
        ) from e

from typer.testing import CliRunner  # noqa: E402


def quickstart() -> Path:
    """The lead's example scenario once it exists, else our small fixture."""
    p = ROOT / "scenarios" / "quickstart.toml"
    return p if p.is_file() else DATA / "small.toml"


@pytest.fixture
def small_scenario() -> Path:
    return DATA / "small.toml"


@pytest.fixture
def runner() -> CliRunner:
    # click < 8.2 mixes stderr into stdout unless told not to; 8.2+ always keeps both.
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def invoke(runner: CliRunner, args: List[str], **kw: Any) -> Any:
    from zvmsim.cli import app

    return runner.invoke(app, args, **kw)
