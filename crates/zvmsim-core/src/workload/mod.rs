//! Workloads the guests run.

pub mod database;
