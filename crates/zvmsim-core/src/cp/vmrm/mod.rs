//! The VM Resource Manager (VMRM) service machine, VMRMSVM, and its cooperative memory
//! management (VMRM-CMM): its configuration file (`config`) and the server that watches
//! storage and tells the NOTIFY MEMORY guests how far to shrink (`server`).

pub mod config;
pub mod server;

pub use server::{Vmrm, VmrmEvent, VmrmLogEntry};

/// The service machine's user ID.
pub const VMRMSVM: &str = "VMRMSVM";
