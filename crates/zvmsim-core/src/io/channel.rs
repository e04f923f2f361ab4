//! FICON channel paths (CHPIDs) between the channel subsystem and the storage server's host
//! adapters. An I/O takes a path of its device's path group: the protocol exchange (a CCW
//! chain's round trips in command mode, one exchange with zHPF), then its data, which
//! occupies the link at the link's rate; transfers on one link follow each other.

use crate::config::io::{ChannelSpec, PathChoice};
use crate::engine::rng::Stream;

#[derive(Debug, Clone, Copy, Default)]
pub struct ChpidStats {
    pub ios: u64,
    pub bytes: u64,
    /// Time the link carried data.
    pub busy_ns: u64,
    /// Time transfers waited for the link.
    pub wait_ns: u64,
}

struct Chpid {
    /// The link is free from this time on.
    link_free: u64,
    /// I/Os between start and end on this path (open exchanges).
    active: u32,
    stats: ChpidStats,
}

pub struct Channels {
    chpids: Vec<Chpid>,
    /// Link data time per KiB, ns.
    ns_per_kib: u64,
    /// Of writes (outbound data), when slower.
    write_ns_per_kib: Option<u64>,
    pub overhead_ns: u64,
    pub exchanges: u32,
    /// I/Os that found every path at its exchange limit (they run anyway, counted).
    pub exchange_waits: u64,
    pub zhpf: bool,
    choice: PathChoice,
    rng: Stream,
}

impl Channels {
    pub fn new(spec: &ChannelSpec, rng: Stream) -> Self {
        // 100 MB/s per Gbit/s of link speed (see ChannelSpec::speed).
        let mb_per_s = (spec.speed.max(1) as u64) * 100;
        Channels {
            chpids: (0..spec.count.max(1))
                .map(|_| Chpid {
                    link_free: 0,
                    active: 0,
                    stats: ChpidStats::default(),
                })
                .collect(),
            ns_per_kib: 1024 * 1_000_000_000 / (mb_per_s * 1_000_000),
            write_ns_per_kib: None,
            overhead_ns: if spec.zhpf {
                spec.zhpf_overhead.ns()
            } else {
                spec.ficon_overhead.ns()
            },
            exchanges: spec.exchanges.max(1),
            exchange_waits: 0,
            zhpf: spec.zhpf,
            choice: spec.path_choice,
            rng,
        }
    }

    /// The channel subsystem picks a path for an I/O starting now: the one with the fewest
    /// open exchanges (lowest index on a tie).
    pub fn pick(&mut self) -> u32 {
        if self.choice == PathChoice::Uncoordinated {
            let i = self.rng.below(self.chpids.len() as u64) as usize;
            if self.chpids[i].active >= self.exchanges {
                self.exchange_waits += 1;
            }
            self.chpids[i].active += 1;
            return i as u32;
        }
        let (i, c) = self
            .chpids
            .iter()
            .enumerate()
            .min_by_key(|(i, c)| (c.active, *i))
            .expect("at least one CHPID");
        if c.active >= self.exchanges {
            self.exchange_waits += 1;
        }
        self.chpids[i].active += 1;
        i as u32
    }

    /// A read's data of `bytes`, ready at `at`, comes in over path `p`'s link: returns when
    /// the last byte is over. Writes use `transfer_out`.
    pub fn transfer(&mut self, p: u32, at: u64, bytes: u64) -> u64 {
        self.transfer_at(p, at, bytes, self.ns_per_kib)
    }

    /// A write's data of `bytes`, ready at `at`, goes out over path `p` (at the write rate
    /// when one is set): returns when the last byte is over.
    pub fn transfer_out(&mut self, p: u32, at: u64, bytes: u64) -> u64 {
        let ns = self.write_ns_per_kib.unwrap_or(self.ns_per_kib);
        self.transfer_at(p, at, bytes, ns)
    }

    fn transfer_at(&mut self, p: u32, at: u64, bytes: u64, ns_per_kib: u64) -> u64 {
        let c = &mut self.chpids[p as usize];
        let start = at.max(c.link_free);
        let dur = bytes * ns_per_kib / 1024;
        c.link_free = start + dur;
        c.stats.wait_ns += start - at;
        c.stats.busy_ns += dur;
        c.stats.bytes += bytes;
        c.stats.ios += 1;
        start + dur
    }

    /// Path `p` for an I/O whose path is fixed (an FCP LUN's channel).
    pub fn take(&mut self, p: u32) -> u32 {
        let i = (p as usize).min(self.chpids.len() - 1);
        self.chpids[i].active += 1;
        i as u32
    }

    /// A channel slower than its link (its adapter's processor): data at `bytes_per_s`.
    pub fn limit_rate(&mut self, bytes_per_s: u64) {
        let ns = 1024 * 1_000_000_000 / bytes_per_s.max(1);
        self.ns_per_kib = self.ns_per_kib.max(ns);
    }

    /// Writes slower than reads: outbound data at `bytes_per_s` (at most the reads' rate).
    pub fn limit_write_rate(&mut self, bytes_per_s: u64) {
        let ns = 1024 * 1_000_000_000 / bytes_per_s.max(1);
        self.write_ns_per_kib = Some(self.ns_per_kib.max(ns));
    }

    /// The I/O on path `p` ended.
    pub fn release(&mut self, p: u32) {
        let c = &mut self.chpids[p as usize];
        debug_assert!(c.active > 0, "release of a path without open exchange");
        c.active = c.active.saturating_sub(1);
    }

    pub fn stats(&self) -> Vec<ChpidStats> {
        self.chpids.iter().map(|c| c.stats).collect()
    }

    pub fn open_exchanges(&self) -> u32 {
        self.chpids.iter().map(|c| c.active).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_carries_one_transfer_at_a_time_at_its_speed() {
        let spec = ChannelSpec {
            count: 2,
            ..Default::default()
        };
        let mut ch = Channels::new(&spec, Stream::new(1, 1));
        // 16 Gbit/s: 1600 MB/s, so 1.6 MB takes 1 ms.
        let p = ch.pick();
        let q = ch.pick();
        assert_ne!(p, q, "the second I/O takes the other path");
        let end1 = ch.transfer(p, 0, 1_600_000);
        assert!((end1 as i64 - 1_000_000).abs() < 2_000, "{end1}");
        let end2 = ch.transfer(p, 0, 1_600_000);
        assert!(
            end2 >= 2 * end1 - 10,
            "transfers on one link follow each other"
        );
        assert_eq!(ch.transfer(q, 0, 1_600_000), end1);
        ch.release(p);
        ch.release(q);
        assert_eq!(ch.open_exchanges(), 0);
    }

    /// A write rate set below the link's slows outbound data only; inbound keeps the link's.
    #[test]
    fn writes_go_out_at_the_write_rate() {
        let spec = ChannelSpec {
            count: 1,
            speed: 2,
            ..Default::default()
        };
        let mut ch = Channels::new(&spec, Stream::new(1, 1));
        ch.limit_write_rate(50_000_000);
        // 1 MB: 5 ms at the link's 200 MB/s, 20 ms at 50 MB/s.
        let read = ch.transfer(0, 0, 1_000_000);
        assert!((read as i64 - 5_000_000).abs() < 10_000, "{read}");
        let write = ch.transfer_out(0, read, 1_000_000) - read;
        assert!((write as i64 - 20_000_000).abs() < 40_000, "{write}");
        // A write rate above the link's is the link's (this one queues behind the others).
        ch.limit_write_rate(1_000_000_000);
        let fast = ch.transfer_out(0, 0, 1_000_000) - (read + write);
        assert!((fast as i64 - 5_000_000).abs() < 10_000, "{fast}");
    }
}
