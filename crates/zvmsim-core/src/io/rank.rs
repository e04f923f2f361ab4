//! The storage server's RAID-5 ranks: arrays of disks behind the device adapters. A volume is
//! spread over the extent pool's ranks in extents (storage pool striping); inside a rank its
//! data is striped in strips over the disks. A disk serves one operation at a time, first come
//! first served: a seek that grows with the distance its arm moves, then half a revolution on
//! average, then the transfer at the media rate. An operation that starts where the disk's
//! last one ended needs neither seek nor rotation — which is why streams interleaved on a disk
//! cost more than the same streams one after another.

use crate::config::io::ServerSpec;
use crate::engine::rng::Stream;

#[derive(Debug, Clone, Copy, Default)]
pub struct DiskStats {
    pub ops: u64,
    pub busy_ns: u64,
    pub seeks: u64,
}

struct Disk {
    free_at: u64,
    /// Byte position on the disk where the last operation ended.
    pos: u64,
    stats: DiskStats,
}

pub struct Ranks {
    disks: Vec<Disk>,
    per_rank: u64,
    ranks: u64,
    strip: u64,
    extent: u64,
    disk_size: u64,
    rev_ns: u64,
    t2t_ns: u64,
    /// Full-stroke seek, from the data sheet's average (a third of the stroke):
    /// seek(d) = t2t + (full - t2t)·sqrt(d / stroke), so avg = t2t + (full - t2t)·sqrt(1/3).
    full_ns: u64,
    /// Media transfer, ns per KiB.
    ns_per_kib: u64,
    rng: Stream,
}

/// Where an operation goes: the rank, and the byte offset inside the rank's data.
#[derive(Debug, Clone, Copy)]
pub struct RankAddr {
    pub rank: u32,
    pub offset: u64,
}

impl Ranks {
    pub fn new(spec: &ServerSpec, rng: Stream) -> Self {
        let per = spec.disks_per_rank.max(2) as u64;
        let ranks = spec.ranks.max(1) as u64;
        let t2t = spec.track_to_track.ns();
        let avg = spec.avg_seek.ns().max(t2t);
        let full = t2t + ((avg - t2t) as f64 / (1.0f64 / 3.0).sqrt()) as u64;
        let rate = spec.disk_rate.bytes().max(1 << 20);
        Ranks {
            disks: (0..per * ranks)
                .map(|_| Disk {
                    free_at: 0,
                    pos: 0,
                    stats: DiskStats::default(),
                })
                .collect(),
            per_rank: per,
            ranks,
            strip: spec.strip.bytes().max(4096),
            extent: spec.extent.bytes().max(1 << 20),
            disk_size: spec.disk_size.bytes().max(1 << 30),
            rev_ns: 60_000_000_000 / spec.rpm.max(1000) as u64,
            t2t_ns: t2t,
            full_ns: full,
            ns_per_kib: 1024 * 1_000_000_000 / rate,
            rng,
        }
    }

    /// Volume `vol`'s byte `off`: extents rotate over the ranks, each volume starting one
    /// rank further (as the DS8000 rotates extents).
    pub fn locate(&self, vol: u32, vol_extents: u64, off: u64) -> RankAddr {
        let e = off / self.extent;
        let global = vol as u64 * vol_extents + e;
        RankAddr {
            rank: (global % self.ranks) as u32,
            offset: (global / self.ranks) * self.extent + off % self.extent,
        }
    }

    fn seek_ns(&self, from: u64, to: u64) -> u64 {
        let d = from.abs_diff(to) as f64 / self.disk_size as f64;
        self.t2t_ns + ((self.full_ns - self.t2t_ns) as f64 * d.min(1.0).sqrt()) as u64
    }

    /// One operation of `bytes` on the disk holding `a`, arriving at `at`; `extra_rev` adds
    /// whole revolutions (a RAID-5 read-modify-write waits one to write back). Returns its end.
    /// `follows`: the operation continues the disk's sweep where the same stream's previous
    /// strip on it ended (address-ordered destage), so it needs no positioning either.
    fn op(&mut self, a: RankAddr, bytes: u64, at: u64, extra_rev: u64, parity: bool) -> u64 {
        self.op_at(a, bytes, at, extra_rev, parity, false)
    }

    fn op_at(
        &mut self,
        a: RankAddr,
        bytes: u64,
        at: u64,
        extra_rev: u64,
        parity: bool,
        follows: bool,
    ) -> u64 {
        let stripe = self.strip * (self.per_rank - 1);
        let row = a.offset / stripe;
        let in_row = a.offset % stripe;
        let mut d = in_row / self.strip;
        // RAID-5: the parity strip rotates; data strips skip it.
        let p = row % self.per_rank;
        if parity {
            d = p;
        } else if d >= p {
            d += 1;
        }
        let pos = row * self.strip + in_row % self.strip;
        let idx = (a.rank as u64 * self.per_rank + d) as usize;
        let seek = {
            let disk = &self.disks[idx];
            if disk.pos == pos || follows {
                None
            } else {
                Some(self.seek_ns(disk.pos, pos))
            }
        };
        let positioning = match seek {
            None => 0,
            Some(s) => s + self.rng.below(self.rev_ns),
        };
        let dur = positioning + bytes * self.ns_per_kib / 1024 + extra_rev * self.rev_ns;
        let disk = &mut self.disks[idx];
        let start = at.max(disk.free_at);
        disk.free_at = start + dur;
        disk.pos = pos + bytes;
        disk.stats.ops += 1;
        disk.stats.busy_ns += dur;
        disk.stats.seeks += seek.is_some() as u64;
        start + dur
    }

    /// Read `bytes` at `a` (stage into the cache). Returns when the data is in the cache.
    pub fn read(&mut self, a: RankAddr, bytes: u64, at: u64) -> u64 {
        self.op(a, bytes, at, 0, false)
    }

    /// Destage `bytes` written at random at `a`: RAID-5's read-modify-write of the data and
    /// the parity strip (read, one revolution, write). Returns when both are on disk.
    pub fn destage(&mut self, a: RankAddr, bytes: u64, at: u64) -> u64 {
        let data = self.op(a, bytes, at, 1, false);
        let par = self.op(a, bytes, at, 1, true);
        data.max(par)
    }

    /// Destage the whole strip holding `a` (NVS gathered a sequential stream's writes into
    /// it): one operation on its disk; the row's parity strip is written with the row's last
    /// data strip (a full-stride write: no reads). `run`: strips of the same stream destaged
    /// just before it, contiguously in this extent. With address-ordered destage (`sweep`) a
    /// strip whose predecessor on the same disk (one row up) is among them is written right
    /// after it in the disk's sweep, and so is the parity strip once the run covers the
    /// whole previous row. Returns when both are on disk.
    pub fn destage_strip(&mut self, a: RankAddr, at: u64, run: u64, sweep: bool) -> u64 {
        let start = RankAddr {
            rank: a.rank,
            offset: a.offset - a.offset % self.strip,
        };
        let data_strips = self.per_rank - 1;
        let data = self.op_at(start, self.strip, at, 0, false, sweep && run >= data_strips);
        let stripe = self.strip * data_strips;
        if (start.offset % stripe) / self.strip == data_strips - 1 {
            let follows = sweep && run >= 2 * data_strips - 1;
            data.max(self.op_at(start, self.strip, at, 0, true, follows))
        } else {
            data
        }
    }

    /// Bytes of a RAID strip.
    pub fn strip_bytes(&self) -> u64 {
        self.strip
    }

    pub fn stats(&self) -> DiskStats {
        let mut s = DiskStats::default();
        for d in &self.disks {
            s.ops += d.stats.ops;
            s.busy_ns += d.stats.busy_ns;
            s.seeks += d.stats.seeks;
        }
        s
    }

    /// The number of ranks.
    pub fn count(&self) -> u64 {
        self.ranks
    }

    /// Data one rank holds: RAID-5 keeps one disk's worth of each row for parity.
    pub fn data_bytes(&self) -> u64 {
        (self.per_rank - 1).saturating_mul(self.disk_size)
    }

    /// Busy time of the busiest disk.
    pub fn busiest_disk_ns(&self) -> u64 {
        self.disks
            .iter()
            .map(|d| d.stats.busy_ns)
            .max()
            .unwrap_or(0)
    }

    pub fn disk_count(&self) -> usize {
        self.disks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_operations_skip_seek_and_rotation() {
        let spec = ServerSpec::default();
        let mut r = Ranks::new(&spec, Stream::new(1, 9));
        let a = RankAddr {
            rank: 0,
            offset: 10 << 30,
        };
        let t1 = r.read(a, 64 << 10, 0);
        // 64 KB at 150 MB/s is about 0.42 ms; a random access adds seek and rotation.
        assert!(t1 > 1_000_000, "first access seeks: {t1}");
        let b = RankAddr {
            rank: 0,
            offset: (10 << 30) + (64 << 10),
        };
        let t2 = r.read(b, 64 << 10, t1);
        assert!(t2 - t1 < 500_000, "a contiguous read streams: {}", t2 - t1);
        assert_eq!(r.stats().seeks, 1);
        // Extents rotate over ranks.
        assert_ne!(r.locate(0, 56, 0).rank, r.locate(0, 56, 1 << 30).rank);
    }

    /// Two sequential streams on one rank, their strips destaged alternately: in arrival
    /// order every strip moves the arm between the streams; ordered by address (IWC), once a
    /// stream's run covers a row its next strips follow their predecessors on each disk.
    #[test]
    fn address_ordered_destage_positions_once_per_run() {
        let spec = ServerSpec::default();
        let strip = spec.strip.bytes();
        let mut seeks = [0u64; 2];
        let mut busy = [0u64; 2];
        for (i, sweep) in [false, true].into_iter().enumerate() {
            let mut r = Ranks::new(&spec, Stream::new(1, 9));
            for k in 0..70u64 {
                for base in [1u64 << 30, 5u64 << 30] {
                    let a = RankAddr {
                        rank: 0,
                        offset: base + k * strip,
                    };
                    r.destage_strip(a, 0, k, sweep);
                }
            }
            seeks[i] = r.stats().seeks;
            busy[i] = r.stats().busy_ns;
        }
        assert!(seeks[1] * 4 < seeks[0], "seeks arrival/address: {seeks:?}");
        assert!(busy[1] * 2 < busy[0], "disk busy arrival/address: {busy:?}");
    }
}
