//! The Linux guest: its memory (the page pool and page cache, reclaim, swap) and the commands
//! typed in it.

pub mod commands;
pub mod memory;
mod reclaim;
mod swap;
