//! The Linux guest: its memory (the page pool and page cache, reclaim, swap), the system-call
//! surface workloads use, and the commands typed in it.

mod anon;
pub mod blkmq;
pub mod catalog;
pub mod cio;
pub mod cmdline;
pub mod cmm;
pub mod commands;
pub mod dasd;
pub mod dasdblock;
mod dasdflow;
pub mod dasdprof;
pub mod dasdstats;
pub mod dcssblk;
pub mod ddout;
pub mod distro;
pub mod errno;
pub(crate) mod filemap;
pub(crate) mod kernel;
pub mod kmsg;
pub mod lvm;
pub mod lvm1;
pub mod memory;
#[cfg(test)]
mod memory_tests;
pub mod mke2fs;
mod pcindex;
mod pool;
mod reclaim;
pub(crate) mod shell;
pub mod spinlock;
mod swap;
pub mod swap_areas;
mod warm;
