"""Shared fixtures. The suite runs against the real native core: build it first (`pip install .`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

import pytest

try:
    import zvmsim._core  # noqa: F401
except ImportError as e:  # fail loudly: a skipped suite would look green
    raise pytest.UsageError(f"zvmsim._core is not importable ({e}); build it with `pip install .`") from e

from typer.testing import CliRunner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def quickstart() -> Path:
    """The example scenario (our fixture stands in where the repository's is missing)."""
    p = ROOT / "scenarios" / "quickstart.toml"
    return p if p.is_file() else DATA / "small.toml"


@pytest.fixture
def small_scenario() -> Path:
    """Our fixture: the base of the bad-input cases, so it must stay valid."""
    return DATA / "small.toml"


@pytest.fixture
def scenario() -> Path:
    """A small scenario to run."""
    return quickstart()


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
