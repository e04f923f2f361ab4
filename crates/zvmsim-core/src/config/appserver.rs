//! A `kind = "appserver"` workload's options: a Java application server (WebSphere with its
//! DB2 in the same guest, driven by DayTrader or Bookstore, seed 000) described by what its
//! users know: the heap and native memory the server keeps in use, the CPU and the pages a
//! request touches, and how concentrated those touches are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
}

fn default_write_fraction() -> f64 {
    0.3
}
fn default_skew() -> f64 {
    1.0
}
