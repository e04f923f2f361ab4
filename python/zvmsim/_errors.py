"""The `zvmsim` entry point's last line of defence: no Python traceback reaches a user.

User errors (a bad scenario, override or file) are reported by the commands themselves as one
located line with exit code 1. Anything else is a bug of zvmsim: a Rust panic in the core
(PyO3 raises it as `PanicException`, a BaseException) or an unexpected Python exception. It is
reported as an internal error with a request to report it, and exit code 70 (EX_SOFTWARE).
Set ZVMSIM_DEBUG=1 to get the traceback instead.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

EXIT_INTERNAL = 70  # sysexits.h EX_SOFTWARE: an internal software error

REPORT = (
    "this is a bug in zvmsim, not in your input. Please report it with the scenario file, "
    "the command line (with its --set options) and this message."
)


def is_panic(e: BaseException) -> bool:
    """A Rust panic that crossed into Python (pyo3_runtime.PanicException)."""
    return type(e).__name__ == "PanicException"


def internal_error_message(e: BaseException) -> str:
    what = "the simulator core panicked" if is_panic(e) else f"unexpected {type(e).__name__}"
    text = str(e).strip() or "(no message)"
    if is_panic(e):
        from . import _core

        at = _core.last_panic_location() if hasattr(_core, "last_panic_location") else ""
        text += f" (at {at})" if at else ""
    return f"internal error: {what}: {text}\n{REPORT}"


def entry(argv: Optional[Sequence[str]] = None) -> None:
    """Run the `zvmsim` command line; turn a bug into a message and exit code 70."""
    from .cli import app

    try:
        app(args=None if argv is None else list(argv), prog_name="zvmsim")
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 - the point is to catch everything left
        if os.environ.get("ZVMSIM_DEBUG"):
            raise
        from rich.console import Console
        from rich.text import Text

        Console(stderr=True, highlight=False).print(
            Text(internal_error_message(e), style="bold red"), soft_wrap=True
        )
        sys.exit(EXIT_INTERNAL)
