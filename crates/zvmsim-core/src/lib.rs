//! zvmsim-core: a mechanistic, deterministic simulator of an IBM z/VM LPAR hosting Linux guests.
//!
//! Layout, one module per mechanism:
//! * `engine`   — clock, event queue, random streams
//! * `scenario` — the scenario schema (TOML), `validate` its semantic checks, `units` sizes/times
//! * `model`    — global physical parameters with their sources
//! * `storage`  — CP real storage: frames, available lists, demand scan, PGMBKs, DASD slots
//! * `xstor`    — expanded storage
//! * `dasd`     — DASD volumes: one I/O at a time per device, service times
//! * `guest`    — Linux guest memory: page cache, free pages, kswapd and direct reclaim
//! * `workload` — the transactional (OLTP) workload and its database buffer pool
//! * `sim`      — the `Simulation`: IFL dispatching of virtual CPUs, events, monitors
//! * `cp`, `linux` — console commands and their responses
//! * `monitor`  — level and tally statistics per interval
//! * `bench`    — the standard benchmarks of `zvmsim bench`

pub mod bench;
pub mod cp;
pub mod dasd;
pub mod engine;
pub mod guest;
pub mod linux;
pub mod model;
pub mod monitor;
pub mod scenario;
pub mod sim;
pub mod storage;
pub mod units;
pub mod validate;
pub mod workload;
pub mod xstor;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
