//! A `kind = "apache"` workload's options (seed 001, "DCSS Above 2 GB"): Apache servers
//! serving 1 MB HTML files to client guests, one connection per server, closed loop.
//! A server entry names where its document root is; a client entry names the server
//! workload it drives. The per-request CPU figures have no source in the seeds: their
//! defaults are inferences, gathered here (docs/calibration.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::scenario::{DasdUse, Scenario, ScenarioError, Source, WorkloadKind};
use crate::config::units::{Duration, Size};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApacheRole {
    /// An Apache server guest: each connection is served by one httpd process.
    Server,
    /// A client guest: its connections (one per server it drives) request files.
    Client,
}

/// Where a server's document root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DocRoot {
    /// ext3 on the guest's `use = "files"` minidisks (one mount point per minidisk), read
    /// through the Linux page cache with readahead.
    Minidisk,
    /// ext2 on a dcssblk device: the file system the guest mounts (with `-o xip` the pages
    /// are referenced in the segment, without it they are copied into the page cache).
    /// Apache starts once it is mounted.
    Dcss,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApacheSpec {
    #[serde(default = "default_role")]
    pub role: ApacheRole,
    /// Client: the server workload its connections go to (round robin over the clients).
    #[serde(default)]
    pub server: Option<String>,
    /// Server: where the files are read from.
    #[serde(default = "default_docroot")]
    pub docroot: DocRoot,
    /// Files on the file system (the study copies all 10,000 into the DCSS).
    #[serde(default = "default_file_set")]
    pub file_set: u32,
    /// Files the measurement touches, each request one chosen uniformly (the study's 3000,
    /// 5000 or 10000). They are spread over the mount points (file k on mount point k mod
    /// n): an inference, the study does not say which files it touched.
    #[serde(default)]
    pub files: Option<u32>,
    /// Size of each HTML file.
    #[serde(default = "default_file_size")]
    pub file_size: Size,
    /// Linux's readahead window for the minidisk file system (one I/O per window).
    #[serde(default = "default_readahead")]
    pub readahead: Size,
    /// Server CPU per MB served (Apache, TCP/IP, the qeth driver). Inference.
    #[serde(default = "default_server_cpu")]
    pub server_cpu_per_mb: Duration,
    /// Client CPU per MB received. Inference.
    #[serde(default = "default_client_cpu")]
    pub client_cpu_per_mb: Duration,
    /// CP's guest LAN (virtual network) CPU per MB moved from server to client, charged to
    /// the server. Inference.
    #[serde(default = "default_cp_net_cpu")]
    pub cp_network_per_mb: Duration,
}

fn default_role() -> ApacheRole {
    ApacheRole::Server
}
fn default_docroot() -> DocRoot {
    DocRoot::Minidisk
}
fn default_file_set() -> u32 {
    10_000
}
fn default_file_size() -> Size {
    Size(1 << 20)
}
fn default_readahead() -> Size {
    // 2.6 kernels: VM_MAX_READAHEAD = 128 KB.
    Size(128 << 10)
}
// Inference (no source): a 1 MB static file over a z9 guest LAN, of the order of a few ms of
// CPU in all; split between the server's stack, the client's, and CP's data move.
fn default_server_cpu() -> Duration {
    Duration(2_000_000)
}
fn default_client_cpu() -> Duration {
    Duration(1_000_000)
}
fn default_cp_net_cpu() -> Duration {
    Duration(700_000)
}

impl ApacheSpec {
    pub fn file_pages(&self) -> u32 {
        (self.file_size.pages() as u32).max(1)
    }
    pub fn touched(&self) -> u32 {
        self.files
            .unwrap_or(self.file_set)
            .min(self.file_set)
            .max(1)
    }
    /// Pages of the whole file set (the page cache's block numbering).
    pub fn set_pages(&self) -> u64 {
        self.file_set as u64 * self.file_pages() as u64
    }
    pub fn window(&self) -> u32 {
        (self.readahead.pages() as u32).clamp(1, self.file_pages())
    }
}

/// The apache workloads' checks: a client names a server workload; a minidisk server has
/// `files` minidisks large enough for its share of the file set.
pub fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    for (name, w) in &s.workloads {
        if w.kind != WorkloadKind::Apache {
            continue;
        }
        let f = |k: &str| format!("workloads.{name}.{k}");
        let Some(a) = &w.apache else {
            return Err(src.error(
                &f("kind"),
                "kind = \"apache\" needs its [workloads.NAME.apache] table",
            ));
        };
        if a.file_set == 0 || a.files == Some(0) || a.file_size.pages() == 0 {
            return Err(src.error(
                &f("apache"),
                "file_set, files and file_size must be at least 1 (4K)",
            ));
        }
        if a.role == ApacheRole::Client {
            let ok = a
                .server
                .as_ref()
                .and_then(|n| s.workloads.get(n))
                .is_some_and(|x| {
                    x.apache
                        .as_ref()
                        .is_some_and(|y| y.role == ApacheRole::Server)
                });
            if !ok {
                return Err(src.error(
                    &f("apache.server"),
                    "a client names the apache server workload it drives",
                ));
            }
            continue;
        }
        if w.users != Some(1) {
            return Err(src.error(
                &f("users"),
                "an apache server has one connection: users = 1 (per server guest)",
            ));
        }
        for g in s
            .guests
            .iter()
            .filter(|g| g.workload.as_deref() == Some(name))
        {
            let disks: Vec<_> = g
                .dasd
                .iter()
                .filter(|d| d.usage == DasdUse::Files)
                .collect();
            let n: u64 = disks.iter().map(|d| d.count as u64).sum();
            let small = disks.iter().map(|d| d.model.pages()).min().unwrap_or(0);
            let need = (a.file_set as u64).div_ceil(n.max(1)) * a.file_pages() as u64;
            if n == 0 || small < need {
                return Err(src.error(
                    &f("apache.file_set"),
                    format!(
                        "guest {} needs `use = \"files\"` minidisks holding {} files of {} (the copy source of a DCSS too)",
                        g.name, a.file_set, a.file_size
                    ),
                ));
            }
        }
    }
    Ok(())
}
