//! The Linux guest: its memory (page cache, anonymous memory, reclaim and swap), the system-call
//! surface workloads use, and the commands typed in it.

pub mod commands;
pub(crate) mod kernel;
pub mod memory;
