# Type stubs for the native module built from crates/zvmsim-py (PyO3).
# Keep in step with the Rust glue: this file is the contract the Python layer codes against.
import pyarrow
from typing import Any, Dict, List, Optional

__version__: str

class ScenarioError(ValueError):
    """A bad scenario, override or console command; str(e) is "file:line:column: field `f`: detail"."""

    file: str
    line: int
    column: int
    field: str
    detail: str

def schema() -> str:
    """JSON Schema of the scenario format, as text."""

def check(text: str, path: str, overrides: List[str] = ..., max_memory: Optional[str] = ...) -> Dict[str, Any]:
    """Validate a scenario; return a short description. Raises ScenarioError."""

class Simulation:
    now_ns: int
    end_ns: int
    events: int
    seed: int
    scenario_hash: str
    finished: bool
    def __init__(
        self,
        text: str,
        path: str,
        seed: Optional[int] = None,
        overrides: List[str] = ...,
        max_memory: Optional[str] = ...,
    ) -> None: ...
    def step_until(self, t_ns: int) -> int:
        """Advance to t_ns (releases the GIL); return the events processed in this call."""
    def run(self) -> None: ...
    def summary(self) -> Dict[str, Any]: ...
    def intervals(self) -> pyarrow.RecordBatch: ...
    def system_intervals(self) -> pyarrow.RecordBatch: ...
    def paging_volumes(self) -> pyarrow.RecordBatch:
        """One row per (interval, paging volume): slots, I/O, service, queue, busy."""
    def console(self) -> List[Dict[str, Any]]: ...
    def vmrm_log(self) -> List[Dict[str, Any]]:
        """VMRMSVM's log records (t_s, user, text); empty when the scenario has no [vmrm]."""
    def check_invariants(self) -> None:
        """Raise ValueError if the model's internal bookkeeping is inconsistent (for tests)."""

def bench(quick: bool = False) -> Dict[str, Any]: ...

def bench_model(text: str, file: str, overrides: List[str] = ...) -> Dict[str, Any]:
    """Build and run a scenario's text: set-up and stepping seconds, events and page references
    per second of stepping, peak memory growth per guest page (Linux)."""
    ...

def commands(level: str) -> List[Dict[str, Any]]:
    """The console command catalog of a z/VM level ("5.2", "5.3"): one dict per command with keys
    system ("cp" or "linux"), command, abbreviation (CP's shortest form, or None), simulated,
    since (first z/VM release, or None), kind ("command", "operand", "file") and note.
    Raises ValueError naming the simulated levels for an unknown level."""

def last_panic_location() -> str:
    """Where the last panic of the core on this thread happened (file:line), or ""."""

def _panic_for_tests(message: str) -> None:
    """Panics on purpose (raises pyo3_runtime.PanicException): for the error-layer tests."""
