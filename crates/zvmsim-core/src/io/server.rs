//! The storage server behind the subchannels (a DS8000-class box): a random read hits its cache
//! or goes to the disks; a write goes to NVS (fast write); extra 4 KB pages of a channel program
//! add FICON transfer time.

use crate::config::params::ModelParams;
use crate::engine::rng::Stream;

pub struct StorageServer {
    rng: Stream,
    read_miss: u64,
    read_hit: u64,
    write: u64,
    per_page: u64,
    /// The model's default cache hit ratio of random reads.
    pub default_hit_ratio: f64,
}

impl StorageServer {
    pub fn new(params: &ModelParams, rng: Stream) -> Self {
        StorageServer {
            rng,
            read_miss: params.dasd_read_miss.ns(),
            read_hit: params.dasd_read_hit.ns(),
            write: params.dasd_write.ns(),
            per_page: params.dasd_per_page.ns(),
            default_hit_ratio: params.dasd_read_hit_ratio,
        }
    }

    /// Service time of a channel program on a volume whose random reads hit with `hit_ratio`.
    pub fn service(&mut self, hit_ratio: f64, pages: u32, write: bool) -> u64 {
        let base = if write {
            self.write
        } else if self.rng.chance(hit_ratio) {
            self.read_hit
        } else {
            self.read_miss
        };
        base + self.per_page * pages.saturating_sub(1) as u64
    }
}
