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


# The quickstart primes 40 simulated minutes to reach its settled state (about 10 s of wall
# time). Tests that only need a run of it use the window it had before: 30 s primed, 60 s
# measured in 10 s intervals, the console's last commands at 85 s.
SHORT_WINDOW = (
    ('priming = "40m"', 'priming = "30s"'),
    ('measure = "5m"', 'measure = "60s"'),
    ('interval = "30s"', 'interval = "10s"'),
    ('at = "44m"', 'at = "85s"'),
)


@pytest.fixture(scope="session")
def short_quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quickstart with its short window, as a file of its own."""
    p = quickstart()
    text = p.read_text(encoding="utf-8")
    if p.name != "quickstart.toml":
        return p
    for long, short in SHORT_WINDOW:
        assert long in text, f"the quickstart no longer has `{long}`: update SHORT_WINDOW"
        text = text.replace(long, short)
    out = tmp_path_factory.mktemp("quickstart") / "quickstart.toml"
    out.write_text(text, encoding="utf-8")
    return out


@pytest.fixture
def small_scenario() -> Path:
    """Our fixture: the base of the bad-input cases, so it must stay valid."""
    return DATA / "small.toml"


@pytest.fixture
def scenario(short_quickstart: Path) -> Path:
    """A small scenario to run."""
    return short_quickstart


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
