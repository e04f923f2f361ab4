//! A `kind = "dbench"` workload's options: dbench's client count (`dbench N`) and what its
//! loadfile (`-c client.txt`, the NetBench trace of one Windows client) makes each client do,
//! as operation shares and sizes; and the guest CPU each operation costs in Linux 2.4 with
//! ext2, including what it holds the kernel's global locks for. Seed 004 scales dbench over
//! 1-40 clients on 1, 4, 8 and 16 processors, its files in the page cache (2 GB).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::{Duration, Size};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DbenchSpec {
    /// `dbench N`: client processes, each running the loadfile in a closed loop.
    pub clients: u32,
    /// The loadfile's operations, as shares (any scale) of all its operations.
    #[serde(default)]
    pub mix: DbenchMix,
    /// Mean bytes of a ReadX and of a WriteX (the loadfile's transfer sizes; inference).
    #[serde(default = "default_io_size")]
    pub read_size: Size,
    #[serde(default = "default_io_size")]
    pub write_size: Size,
    /// Files per client (its directory of the loadfile's documents) and the largest a file
    /// grows: a WriteX appends; one that would pass this size rewrites from the start.
    #[serde(default = "default_files")]
    pub files: u32,
    #[serde(default = "default_file_size")]
    pub file_size: Size,
    /// The guest CPU of each operation (`[workloads.x.dbench.cost]`).
    #[serde(default)]
    pub cost: DbenchCost,
}

/// Shares of the loadfile's operations, by the names its lines carry. Defaults: the shares of
/// dbench's client.txt in a run's operation table, rounded (from memory of dbench's report;
/// inference as to the exact counts).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DbenchMix {
    /// Open a file of the client's, creating it when it does not exist.
    #[serde(default = "w_ntcreatex")]
    pub ntcreatex: f64,
    #[serde(default = "w_close")]
    pub close: f64,
    /// Read from the open file (page-cache hits).
    #[serde(default = "w_readx")]
    pub readx: f64,
    /// Append to the open file (new page-cache pages, an ext2 block each).
    #[serde(default = "w_writex")]
    pub writex: f64,
    /// Delete a file: its pages leave the page cache.
    #[serde(default = "w_unlink")]
    pub unlink: f64,
    #[serde(default = "w_rename")]
    pub rename: f64,
    /// stat() of a path, fstat(), statfs(), a setattr, a directory listing.
    #[serde(default = "w_qpathinfo")]
    pub qpathinfo: f64,
    #[serde(default = "w_qfileinfo")]
    pub qfileinfo: f64,
    #[serde(default = "w_qfsinfo")]
    pub qfsinfo: f64,
    #[serde(default = "w_sfileinfo")]
    pub sfileinfo: f64,
    #[serde(default = "w_find")]
    pub find: f64,
    /// Flush, LockX, UnlockX: a system call with no file-system work (no `-s`: no sync).
    #[serde(default = "w_flush")]
    pub flush: f64,
}

fn w_ntcreatex() -> f64 {
    17.8
}
fn w_close() -> f64 {
    13.1
}
fn w_readx() -> f64 {
    27.9
}
fn w_writex() -> f64 {
    8.8
}
fn w_unlink() -> f64 {
    3.6
}
fn w_rename() -> f64 {
    0.8
}
fn w_qpathinfo() -> f64 {
    16.2
}
fn w_qfileinfo() -> f64 {
    2.8
}
fn w_qfsinfo() -> f64 {
    3.0
}
fn w_sfileinfo() -> f64 {
    1.5
}
fn w_find() -> f64 {
    6.2
}
fn w_flush() -> f64 {
    1.4
}

impl Default for DbenchMix {
    fn default() -> Self {
        DbenchMix {
            ntcreatex: w_ntcreatex(),
            close: w_close(),
            readx: w_readx(),
            writex: w_writex(),
            unlink: w_unlink(),
            rename: w_rename(),
            qpathinfo: w_qpathinfo(),
            qfileinfo: w_qfileinfo(),
            qfsinfo: w_qfsinfo(),
            sfileinfo: w_sfileinfo(),
            find: w_find(),
            flush: w_flush(),
        }
    }
}

impl DbenchMix {
    /// The shares in the order of `workload::dbench::Op`.
    pub fn weights(&self) -> [f64; 12] {
        [
            self.ntcreatex,
            self.close,
            self.readx,
            self.writex,
            self.unlink,
            self.rename,
            self.qpathinfo,
            self.qfileinfo,
            self.qfsinfo,
            self.sfileinfo,
            self.find,
            self.flush,
        ]
    }
}

/// Guest CPU of dbench's operations on a z900 IFL (917 MHz) in Linux 2.4 with ext2. No
/// measured path lengths are published for these calls: every default is an inference, and
/// the lock holds follow where 2.4's code takes each global lock (docs/dbench.md).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DbenchCost {
    /// Every operation: the client reading and parsing its loadfile line, its bookkeeping,
    /// the system call's entry and exit and the file lookup by descriptor.
    #[serde(default = "c_per_op")]
    pub per_op: Duration,
    /// A create, unlink or rename in ext2 (directory entry, inode, bitmaps). 2.4's
    /// vfs_create and vfs_unlink (fs/namei.c) call the file system between lock_kernel() and
    /// unlock_kernel(), so all of it is under the big kernel lock (rename: assumed alike).
    #[serde(default = "c_namespace")]
    pub namespace: Duration,
    /// A file-system call 2.4 makes under the big kernel lock that changes no name:
    /// readdir (Find), statfs (QFsInfo), notify_change (SFileInfo).
    #[serde(default = "c_bkl_call")]
    pub bkl_call: Duration,
    /// A path walk's time holding dcache_lock (2.4's d_lookup takes it for each component).
    #[serde(default = "c_dcache_hold")]
    pub dcache_hold: Duration,
    /// ext2's allocation of a block for a new page (2.4's ext2_get_block runs under the big
    /// kernel lock).
    #[serde(default = "c_block_alloc")]
    pub block_alloc: Duration,
    /// A page's lookup, insertion or removal in the page cache under 2.4's global
    /// pagecache_lock.
    #[serde(default = "c_pagecache_hold")]
    pub pagecache_hold: Duration,
}

fn c_per_op() -> Duration {
    Duration(10_000)
}
fn c_namespace() -> Duration {
    Duration(10_000)
}
fn c_bkl_call() -> Duration {
    Duration(3_000)
}
fn c_dcache_hold() -> Duration {
    Duration(1_000)
}
fn c_block_alloc() -> Duration {
    Duration(2_000)
}
fn c_pagecache_hold() -> Duration {
    Duration(200)
}

impl Default for DbenchCost {
    fn default() -> Self {
        DbenchCost {
            per_op: c_per_op(),
            namespace: c_namespace(),
            bkl_call: c_bkl_call(),
            dcache_hold: c_dcache_hold(),
            block_alloc: c_block_alloc(),
            pagecache_hold: c_pagecache_hold(),
        }
    }
}

fn default_io_size() -> Size {
    Size(16 << 10)
}
fn default_files() -> u32 {
    20
}
fn default_file_size() -> Size {
    Size(1 << 20)
}

impl DbenchSpec {
    /// Pages of a client's file slot.
    pub fn file_pages(&self) -> u32 {
        self.file_size.pages() as u32
    }

    /// Page-cache blocks of every client's files (the guest's file-block numbering).
    pub fn blocks(&self) -> u64 {
        u64::from(self.clients) * u64::from(self.files) * u64::from(self.file_pages())
    }

    /// What dbench (and the scenario loader) would refuse before starting; the field in
    /// error comes first, as `field: detail`.
    pub fn check(&self) -> Result<(), String> {
        if self.clients == 0 || self.clients > 1000 {
            return Err(format!(
                "clients: {} clients; dbench runs 1 to 1000 here",
                self.clients
            ));
        }
        if self.files == 0 || self.files > 10_000 {
            return Err(format!(
                "files: {} files per client; give 1 to 10000",
                self.files
            ));
        }
        let fs = self.file_size.bytes();
        if fs < 4096 || fs % 4096 != 0 || fs > 1 << 30 {
            return Err(format!(
                "file_size: `{}` is not whole 4k pages between 4k and 1G",
                self.file_size
            ));
        }
        for (f, s) in [
            ("read_size", self.read_size),
            ("write_size", self.write_size),
        ] {
            if s.bytes() == 0 || s.bytes() > fs {
                return Err(format!(
                    "{f}: `{s}` must be more than 0 and at most file_size `{}`",
                    self.file_size
                ));
            }
        }
        let w = self.mix.weights();
        // Their sum scales the draw: an infinite one would pick the last operation always.
        let sum = w.iter().sum::<f64>();
        if w.iter().any(|x| !x.is_finite() || *x < 0.0) || !(sum > 0.0 && sum.is_finite()) {
            return Err("mix: shares must be 0 or more, not all 0, and a finite sum".into());
        }
        // Every operation is a system call: one of no CPU would end at the time it began and
        // its client would loop without the clock moving on.
        if self.cost.per_op.ns() == 0 {
            return Err("cost.per_op: must be more than 0".into());
        }
        if self.blocks() >= 1 << 30 {
            return Err(format!(
                "clients: {} clients × {} files × {} is past the page cache's numbering",
                self.clients, self.files, self.file_size
            ));
        }
        Ok(())
    }
}

/// A dbench workload's table and options, and that every client's files fit in the memory
/// of each guest running it: writeback to disk is not simulated (workload/dbench.rs).
pub fn check_workload(
    s: &crate::config::scenario::Scenario,
    src: &crate::config::scenario::Source,
    name: &str,
    w: &crate::config::scenario::WorkloadSpec,
) -> Result<(), crate::config::scenario::ScenarioError> {
    let field = format!("workloads.{name}.dbench");
    let d = match (&w.kind, &w.dbench) {
        (crate::config::scenario::WorkloadKind::Dbench, None) => {
            return Err(src.error(
                &format!("workloads.{name}"),
                "kind = \"dbench\" needs a [workloads.NAME.dbench] table with dbench's options",
            ))
        }
        (_, Some(d)) => d,
        _ => return Ok(()),
    };
    d.check().map_err(|e| match e.split_once(": ") {
        Some((f, detail)) if !f.contains(' ') => src.error(&format!("{field}.{f}"), detail),
        _ => src.error(&field, e),
    })?;
    for g in s
        .guests
        .iter()
        .filter(|g| g.workload.as_deref() == Some(name))
    {
        let kernel = g.linux.kernel_pages(g.storage.pages());
        let room = g
            .storage
            .pages()
            .saturating_sub(kernel + 2 * g.linux.min_free.pages());
        if d.blocks() > room {
            return Err(src.error(
                &format!("{field}.files"),
                format!(
                    "{} clients × {} files of up to {} ({} MB) do not fit in guest {}'s memory ({} MB besides the kernel and free pages): the model keeps dbench's files in the page cache and does not write them back",
                    d.clients,
                    d.files,
                    d.file_size,
                    (d.blocks() * crate::config::units::PAGE_SIZE) >> 20,
                    g.name,
                    (room * crate::config::units::PAGE_SIZE) >> 20
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_refusals() {
        let mut s: DbenchSpec = toml_edit::de::from_str("clients = 4\n").unwrap();
        s.check().unwrap();
        assert_eq!((s.file_pages(), s.blocks()), (256, 4 * 20 * 256));
        s.read_size = Size(2 << 20);
        assert!(s.check().unwrap_err().starts_with("read_size:"));
        s.read_size = Size(4096);
        s.mix.readx = -1.0;
        assert!(s.check().unwrap_err().starts_with("mix:"));
        s.mix.readx = 1.0;
        s.mix.close = 1e308;
        s.mix.ntcreatex = 1e308;
        assert!(
            s.check().unwrap_err().starts_with("mix:"),
            "an infinite sum"
        );
        s.mix = DbenchMix::default();
        s.cost.per_op = Duration(0);
        assert!(
            s.check().unwrap_err().starts_with("cost.per_op:"),
            "per_op of 0"
        );
        s.cost.per_op = Duration(1);
        s.check().unwrap();
        s.clients = 0;
        assert!(s.check().unwrap_err().starts_with("clients:"));
    }
}
