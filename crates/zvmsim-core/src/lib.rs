//! zvmsim-core: a mechanistic, deterministic simulator of an IBM z/VM LPAR hosting Linux guests.
//!
//! Layout, one module per mechanism, grouped as the system is (see docs/architecture.md):
//! * `engine`: event queue, random streams
//! * `config`: the scenario schema (TOML), located errors, overrides, units, checks, parameters
//! * `cp`: the dispatcher, real storage management, XSTOR, host faults and page-ins, commands
//! * `io`: I/O requests with ids and typed origins, subchannels, the storage server
//! * `linux`: guest memory (page cache, anonymous memory, reclaim, swap), the system-call
//!   surface workloads use, commands
//! * `workload`: one file per workload kind
//! * `monitor`: typed counters, interval rows, the summary
//! * `system`: the `Simulation`, which assembles the parts and routes events
//!
//! The benchmarks of `zvmsim bench` live in the dev-only crate `zvmsim-bench`.

pub mod config;
pub mod cp;
pub mod engine;
pub mod io;
pub mod linux;
pub mod monitor;
pub mod system;
pub mod workload;

pub use system::Simulation;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
