//! A `kind = "appserver"` workload's options: a Java application server (WebSphere with its
//! DB2 in the same guest, driven by DayTrader or Bookstore, seed 000) described by what its
//! users know: the heap and native memory the server keeps in use, the CPU and the pages a
//! request touches, and how concentrated those touches are; and, optionally, where its
//! program text (the WebSphere executable) lives and how much of it a request runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::scenario::{DasdUse, Scenario, ScenarioError, Source, WorkloadKind};
use crate::config::units::{Duration, Size};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppserverSpec {
    /// Anonymous memory the server keeps in use (Java heap, native memory, DB2's shared
    /// memory): its working set. Larger than the guest's storage, the guest swaps.
    pub heap: Size,
    /// CPU per request on an unloaded IFL.
    pub cpu_per_request: Duration,
    /// Distinct heap pages a request references.
    pub refs_per_request: u32,
    /// Fraction of those references that change the page.
    #[serde(default = "default_write_fraction")]
    pub write_fraction: f64,
    /// Zipf exponent of the references over the heap's pages (0: uniform).
    #[serde(default = "default_skew")]
    pub skew: f64,
    /// The server's program text as files (`[workloads.W.appserver.text]`); without it a
    /// request's text references are the guest's kernel and program text region only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextSpec>,
}

/// Program text executed from a file system (seed 000, "Determining the memory saving using
/// a DCSS": the WebSphere executable in a DCSS mounted `-o xip`, or on a shared minidisk).
/// A request references `refs_per_request` pages of the file set, one with each of as many of
/// its heap steps, drawn from a Zipf law over the set's pages (the installed files in copy
/// order, page 0 the most run). On a DCSS mounted xip a page is referenced in the segment's
/// single shared copy; on a minidisk (or a DCSS without xip) it is read into each guest's
/// page cache and referenced there.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextSpec {
    /// Size of the executable's file set (the installed directories copied into the DCSS).
    pub size: Size,
    /// The part of the file set a started server still runs from the file system: its
    /// native code (the JVM and its JIT, DB2's engine). A Java server reads its classes from
    /// the jars once, when it loads them, and runs them from its own memory (the shared class
    /// cache) after that, so requests reference only these pages, the first of the set.
    /// Absent: the whole set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Size>,
    /// Pages of the file set a request references.
    pub refs_per_request: u32,
    /// Zipf exponent of those references over the runtime part's pages.
    #[serde(default = "default_skew")]
    pub skew: f64,
    /// Mount point of a dcssblk file system holding the files (`/optdcss`): once the guest
    /// has mounted it, text is referenced there, and the server does not start before (a
    /// request waits a second and tries again). Absent: the files are on the guest's
    /// `use = "files"` minidisks (shared = true: one set of real volumes LINKed read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_on: Option<String>,
}

fn default_write_fraction() -> f64 {
    0.3
}
fn default_skew() -> f64 {
    1.0
}

/// An appserver's text table: a file set of at least a page, referenced by requests, on a
/// mount point given as an absolute path, or on `files` minidisks large enough to hold it.
pub fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    for (name, w) in &s.workloads {
        let Some(t) = w.appserver.as_ref().and_then(|a| a.text.as_ref()) else {
            continue;
        };
        let f = |k: &str| format!("workloads.{name}.appserver.text.{k}");
        if w.kind != WorkloadKind::Appserver {
            return Err(src.error(&f("size"), "a text table is for kind = \"appserver\""));
        }
        let steps = w.appserver.as_ref().map_or(0, |a| a.refs_per_request);
        if t.size.pages() == 0 || t.refs_per_request == 0 || t.skew < 0.0 {
            return Err(src.error(
                &f("size"),
                "size and refs_per_request must be at least 1 (4K) and skew not negative",
            ));
        }
        if let Some(r) = t.runtime {
            if r.pages() == 0 || r.pages() > t.size.pages() {
                return Err(src.error(
                    &f("runtime"),
                    format!(
                        "runtime must be at least 4K and at most the file set's {}",
                        t.size
                    ),
                ));
            }
        }
        if t.refs_per_request > steps {
            return Err(src.error(
                &f("refs_per_request"),
                format!(
                    "a request references at most one text page per heap step: at most {steps}"
                ),
            ));
        }
        if let Some(dir) = &t.files_on {
            if !dir.starts_with('/') || dir.len() < 2 || dir.contains(char::is_whitespace) {
                return Err(src.error(
                    &f("files_on"),
                    format!("`{dir}` is not a mount point: give an absolute path such as /optdcss"),
                ));
            }
            continue;
        }
        for g in s
            .guests
            .iter()
            .filter(|g| g.workload.as_deref() == Some(name))
        {
            let cap = g.dasd_pages(DasdUse::Files);
            if cap < t.size.pages() {
                return Err(src.error(
                    &f("size"),
                    format!(
                        "guest {} needs `use = \"files\"` minidisks holding the {} of program text (or give files_on)",
                        g.name, t.size
                    ),
                ));
            }
        }
    }
    Ok(())
}
