//! zvmsim-core: a mechanistic, deterministic simulator of an IBM z/VM LPAR hosting Linux guests.
//!
//! Layout, one module per mechanism, grouped as the system is:
//! * `engine`   — clock, event queue, random streams
//! * `config`   — the scenario schema (TOML), its units and checks, the model's global parameters
//! * `cp`       — CP: real storage (frames, available lists, demand scan, PGMBKs, DASD slots),
//!                expanded storage, console commands
//! * `io`       — DASD volumes: one I/O at a time per device, service times
//! * `linux`    — Linux guest memory: page cache, anonymous memory, reclaim, swap; commands
//! * `workload` — the transactional (OLTP) workload and its database buffer pool
//! * `monitor`  — level and tally statistics per interval
//! * `system`   — the `Simulation`: assembles the parts and routes events
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
