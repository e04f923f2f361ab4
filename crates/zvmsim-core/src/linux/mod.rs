//! The Linux guest: its memory (page cache, anonymous memory, reclaim and swap) and the commands
//! typed in it.

pub mod catalog;
pub mod commands;
pub mod memory;
