//! PyO3 glue: exposes zvmsim-core as the private module `zvmsim._core`. No simulation logic
//! lives here; values cross as JSON-compatible Python objects.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::Value;
use zvmsim_core::config::scenario::ScenarioError as CoreError;
use zvmsim_core::monitor::rows::{Column, Columns};

pyo3::create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario, override or command was rejected."
);

fn scenario_err(py: Python<'_>, e: CoreError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("file", e.file.clone());
    let _ = v.setattr("line", e.line);
    let _ = v.setattr("column", e.column);
    let _ = v.setattr("field", e.field.clone());
    let _ = v.setattr("detail", e.detail.clone());
    err
}

fn to_py(py: Python<'_>, v: &Value) -> PyResult<PyObject> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => {
            if let Some(i) = n.as_u64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else {
                n.as_f64()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any().unbind()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// Typed rows' columns to a `pyarrow.RecordBatch`: each numeric column crosses as one buffer in
/// Arrow's layout (int64 or float64, little-endian, no nulls), not value by value.
fn record_batch(py: Python<'_>, c: Columns) -> PyResult<PyObject> {
    let pa = py.import("pyarrow")?;
    let mut arrays = Vec::with_capacity(c.columns.len());
    for col in c.columns {
        let (ty, n, bytes): (&str, usize, Vec<u8>) = match col {
            Column::F64(v) => (
                "float64",
                v.len(),
                v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            ),
            // Counts never reach 2^63: int64 keeps the files' schema as before.
            Column::U64(v) => (
                "int64",
                v.len(),
                v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            ),
            Column::Str(v) => {
                arrays.push(pa.call_method1("array", (v, pa.call_method0("string")?))?);
                continue;
            }
        };
        let buf = pa.call_method1("py_buffer", (PyBytes::new(py, &bytes),))?;
        let none: Option<PyObject> = None;
        let arr = pa.getattr("Array")?.call_method1(
            "from_buffers",
            (
                pa.call_method0(ty)?,
                n,
                PyList::new(py, [none.into_pyobject(py)?, buf])?,
            ),
        )?;
        arrays.push(arr);
    }
    let names: Vec<&str> = c.names;
    let batch = pa
        .getattr("RecordBatch")?
        .call_method1("from_arrays", (arrays, names))?;
    Ok(batch.unbind())
}

#[pyfunction]
fn schema() -> String {
    zvmsim_core::config::scenario::json_schema()
}

/// The memory limit of a run: `--max-memory` when given (a size such as "8G"), else what the
/// machine has available (None: unknown, not checked). The second value names the limit.
fn memory_limit(
    py: Python<'_>,
    max_memory: Option<&str>,
) -> PyResult<Option<(zvmsim_core::config::units::Size, &'static str)>> {
    use zvmsim_core::config::{resources, units};
    match max_memory {
        Some(m) => units::parse_size(m)
            .map(|s| Some((s, "--max-memory")))
            .map_err(|d| {
                scenario_err(
                    py,
                    CoreError {
                        file: format!("--max-memory {m}"),
                        line: 1,
                        column: 1,
                        field: "--max-memory".into(),
                        detail: d,
                    },
                )
            }),
        None => {
            Ok(resources::machine_available().map(|s| (s, "the memory available on this machine")))
        }
    }
}

/// Parse, validate and check the run's memory estimate against its limit.
fn parse_within(
    py: Python<'_>,
    text: &str,
    path: &str,
    overrides: &[String],
    limit: Option<(zvmsim_core::config::units::Size, &'static str)>,
) -> PyResult<(
    zvmsim_core::config::scenario::Scenario,
    zvmsim_core::config::resources::Estimate,
    u64,
)> {
    use zvmsim_core::config::resources;
    let (sc, src) = zvmsim_core::config::scenario::parse(text, path, overrides)
        .map_err(|e| scenario_err(py, e))?;
    // Reported against a --set when one set the field, as parse's own errors are.
    let located = |e| {
        scenario_err(
            py,
            zvmsim_core::config::scenario::blame_override(e, overrides),
        )
    };
    let events = resources::check_events(&sc, &src).map_err(located)?;
    let est = match limit {
        Some((l, from)) => resources::check(&sc, &src, l, from).map_err(located)?,
        None => resources::estimate(&sc),
    };
    Ok((sc, est, events))
}

#[pyfunction]
#[pyo3(signature = (text, path, overrides = Vec::new(), max_memory = None))]
fn check(
    py: Python<'_>,
    text: &str,
    path: &str,
    overrides: Vec<String>,
    max_memory: Option<&str>,
) -> PyResult<PyObject> {
    // `check` enforces only an explicit --max-memory; the estimate is always reported.
    let limit = match max_memory {
        Some(_) => memory_limit(py, max_memory)?,
        None => None,
    };
    let (sc, est, events) = parse_within(py, text, path, &overrides, limit)?;
    let guests = sc.guest_instances();
    let pages: u64 = guests
        .iter()
        .map(|g| sc.guests[g.spec_index].storage.pages())
        .sum();
    // What the guests had used when the run starts ([guests.linux] used; all by default).
    let used: u64 = guests
        .iter()
        .map(|g| {
            let spec = &sc.guests[g.spec_index];
            spec.linux.used_pages(spec.storage.pages())
        })
        .sum();
    let desc = serde_json::json!({
        "name": sc.name,
        "zvm_level": sc.lpar.zvm_level.as_str(),
        "ifls": sc.lpar.ifls,
        "central": sc.lpar.central.to_string(),
        "expanded": sc.lpar.expanded.to_string(),
        "guests": guests.len(),
        "guest_pages": pages,
        "guest_pages_used": used,
        "planned_overcommit_pct": 100.0 * pages as f64 / sc.lpar.central.pages().max(1) as f64 - 100.0,
        "end_s": sc.end_ns() as f64 / 1e9,
        "priming_s": sc.run.priming.ns() as f64 / 1e9,
        "measure_s": sc.run.measure.ns() as f64 / 1e9,
        "console_commands": sc.console.len(),
        "scenario_hash": sc.hash(),
        "memory_estimate": est.size().to_string(),
        "memory_estimate_bytes": est.bytes,
        // What drives the estimate, largest first: the scenario fields to change to shrink it.
        "memory_estimate_drivers": est
            .drivers
            .iter()
            .map(|(field, bytes)| serde_json::json!({"field": field, "bytes": bytes}))
            .collect::<Vec<_>>(),
        "events_at_most": events,
        // A paging space of mixed volume sizes: where its smallest volumes fill (null otherwise).
        "paging_even_fill": sc.paging_even_fill(),
    });
    to_py(py, &desc)
}

#[pyclass(module = "zvmsim._core")]
struct Simulation {
    inner: zvmsim_core::Simulation,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, path, seed = None, overrides = Vec::new(), max_memory = None))]
    fn new(
        py: Python<'_>,
        text: &str,
        path: &str,
        seed: Option<u64>,
        overrides: Vec<String>,
        max_memory: Option<&str>,
    ) -> PyResult<Self> {
        // Refused before anything is allocated when its memory estimate is over the limit.
        let limit = memory_limit(py, max_memory)?;
        let (mut sc, _, _) = parse_within(py, text, path, &overrides, limit)?;
        if let Some(s) = seed {
            sc.run.seed = s;
        }
        // Building allocates and warms the full-scale state: release the GIL meanwhile.
        let inner = py.allow_threads(move || zvmsim_core::system::Simulation::new(sc));
        Ok(Simulation { inner })
    }

    #[getter]
    fn now_ns(&self) -> u64 {
        self.inner.now_ns()
    }
    #[getter]
    fn end_ns(&self) -> u64 {
        self.inner.end_ns()
    }
    #[getter]
    fn events(&self) -> u64 {
        self.inner.events()
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed()
    }
    #[getter]
    fn scenario_hash(&self) -> String {
        self.inner.scenario_hash().to_string()
    }
    #[getter]
    fn finished(&self) -> bool {
        self.inner.finished()
    }

    fn step_until(&mut self, py: Python<'_>, t_ns: u64) -> u64 {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.step_until(t_ns))
    }

    fn run(&mut self, py: Python<'_>) {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.run())
    }

    fn summary(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &Value::Object(self.inner.summary()))
    }

    /// Per-interval guest rows as a `pyarrow.RecordBatch`.
    fn intervals(&self, py: Python<'_>) -> PyResult<PyObject> {
        record_batch(py, self.inner.interval_columns())
    }

    /// Per-interval system rows as a `pyarrow.RecordBatch`.
    fn system_intervals(&self, py: Python<'_>) -> PyResult<PyObject> {
        record_batch(py, self.inner.system_columns())
    }

    /// Per-interval paging-volume rows as a `pyarrow.RecordBatch`.
    fn paging_volumes(&self, py: Python<'_>) -> PyResult<PyObject> {
        record_batch(py, self.inner.paging_volume_columns())
    }

    fn console(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &Value::Array(self.inner.console()))
    }

    /// The VMRM log: VMRMSVM's records (t_s, user, text), empty without [vmrm].
    fn vmrm_log(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &Value::Array(self.inner.vmrm_log()))
    }

    fn check_invariants(&self) -> PyResult<()> {
        self.inner.check_invariants().map_err(PyValueError::new_err)
    }
}

#[pyfunction(name = "bench")]
#[pyo3(signature = (quick = false))]
fn run_bench(py: Python<'_>, quick: bool) -> PyResult<PyObject> {
    let v = py.allow_threads(move || zvmsim_bench::standard(quick));
    to_py(py, &v)
}

/// The full-model benchmark: build and run a scenario's text, set-up and stepping timed apart.
#[pyfunction(name = "bench_model")]
#[pyo3(signature = (text, file, overrides = Vec::new()))]
fn run_bench_model(
    py: Python<'_>,
    text: String,
    file: String,
    overrides: Vec<String>,
) -> PyResult<PyObject> {
    let v = py
        .allow_threads(move || zvmsim_bench::model::bench_model(&text, &file, &overrides))
        .map_err(PyValueError::new_err)?;
    to_py(py, &v)
}

/// The console command catalog of a z/VM level: one dict per CP command (with operand) or
/// Linux command or file, marked simulated or not.
#[pyfunction]
fn commands(py: Python<'_>, level: &str) -> PyResult<PyObject> {
    let rows = zvmsim_core::cp::catalog::listing(level).map_err(PyValueError::new_err)?;
    let v = serde_json::to_value(rows).map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_py(py, &v)
}

/// A panic of the core becomes a Python `PanicException` (PyO3); the hook keeps Rust's own
/// report off stderr and puts where it happened into the exception's message instead, which
/// the command line shows as an internal error (python/zvmsim/_errors.py).
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC_AT.with(|c| *c.borrow_mut() = at);
    }));
}

thread_local! {
    static LAST_PANIC_AT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Where the last panic on this thread happened (`file:line`), empty if none.
#[pyfunction]
fn last_panic_location() -> String {
    LAST_PANIC_AT.with(|c| c.borrow().clone())
}

/// Panics on purpose: lets the tests check that a panic reaches the user as an internal error.
#[pyfunction]
#[pyo3(name = "_panic_for_tests")]
fn panic_for_tests(message: &str) {
    panic!("{message}");
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add("__version__", zvmsim_core::VERSION)?;
    m.add_function(wrap_pyfunction!(last_panic_location, m)?)?;
    m.add_function(wrap_pyfunction!(panic_for_tests, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench_model, m)?)?;
    m.add_function(wrap_pyfunction!(commands, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
