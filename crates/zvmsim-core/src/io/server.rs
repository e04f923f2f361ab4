//! The storage server behind the channels (a DS8000-class box).
//!
//! Volumes outside `[io]` keep the calibrated fixed times of `[model]` (a random read hits the
//! cache or goes to the disks; a write goes to NVS; extra pages add transfer time): the
//! large-memory calibration. Volumes of `[io]` pass the staged server: a host-adapter
//! processor per I/O; reads found in the cache (its track directory, `cache.rs`: what was
//! staged, prefetched or written and not yet replaced) or staged from the rank; writes into
//! the cache and NVS, which destages them to the ranks and is full when destage falls behind.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::cache::Cache;
use super::rank::{RankAddr, Ranks};
use crate::config::io::{Destage, ServerSpec};
use crate::config::params::ModelParams;
use crate::engine::rng::Stream;

/// Sequential detection: a table per volume of where recent accesses ended (a read that
/// starts where one ended continues a stream), as a cache directory of recently used tracks
/// would tell. 2^15 slots in sets of `WAYS`: a stream is kept in its block's slot or another
/// of the set, and only the set's least recently used stream gives way, as the directory
/// would age out the oldest track. (Direct-mapped, the 512 streams of fio's 4 jobs lost each
/// other 1.6 % of their I/Os: a stream ended every few strips, its next write destaged as a
/// random read-modify-write and its full-stride run broken.)
const STREAM_BITS: u32 = 15;
const STREAMS: usize = 1 << STREAM_BITS;
const WAYS: usize = 4;
const BLOCK: u64 = 4096;

#[derive(Debug, Clone, Copy, Default)]
pub struct ServerStats {
    pub reads: u64,
    pub read_hits: u64,
    pub sequential: u64,
    pub writes: u64,
    /// Time writes waited for NVS space (NVS full).
    pub nvs_wait_ns: u64,
    pub staged_bytes: u64,
    pub destaged_bytes: u64,
    /// Bytes the reads and writes of channel programs moved (the conservation check's).
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Destages: whole strips of sequential streams, and random read-modify-writes.
    pub strip_destages: u64,
    pub random_destages: u64,
    pub ha_wait_ns: u64,
    /// Host-adapter time moving data (with `ha_rate`), and the shared NVS copy's (`nvs_rate`).
    pub ha_data_ns: u64,
    pub nvs_copy_ns: u64,
    /// Per cluster, the time its cache moved data (with `cluster_rate`).
    pub cluster_ns: [u64; 2],
}

#[derive(Clone, Copy, Default)]
struct SeqStream {
    /// Block the stream continues at.
    next: u64,
    /// Prefetched data reaches this block...
    staged_end: u64,
    /// ...and is in the cache from this time on.
    staged_at: u64,
    /// Last use (for replacement).
    used: u64,
    /// The strip (index + 1; 0: none) whose destage this stream's writes have booked...
    strip: u64,
    /// ...and when that destage ends.
    strip_done: u64,
    /// The first strip of the run of consecutive strips this stream has destaged.
    run_from: u64,
}

struct Volume {
    extents: u64,
    /// A LUN placed on one rank (FCP, ESS 2105): (rank, byte offset in the rank's data).
    placed: Option<(u32, u64)>,
    /// The cluster owning the volume's logical subsystem (0 or 1).
    cluster: u8,
    blocks: u64,
    streams: Vec<SeqStream>,
}

/// A resource shared by requests whose times are computed when they start, not in the order
/// they use it: its booked busy intervals, so that a later-computed use that comes earlier
/// fills a gap instead of queueing behind uses booked further ahead.
#[derive(Default)]
struct Calendar {
    /// Booked (start, end), by start.
    busy: std::collections::VecDeque<(u64, u64)>,
}

impl Calendar {
    /// Book `dur` from `at` or the first gap after it; intervals ended before `now` are
    /// forgotten. Returns the start.
    fn book(&mut self, at: u64, dur: u64, now: u64) -> u64 {
        while self.busy.front().is_some_and(|&(_, e)| e <= now) {
            self.busy.pop_front();
        }
        let mut t = at;
        let mut i = 0;
        while i < self.busy.len() {
            let (s, e) = self.busy[i];
            if t + dur <= s {
                break;
            }
            t = t.max(e);
            i += 1;
        }
        self.busy.insert(i, (t, t + dur));
        t
    }
}

/// What a host adapter's data transfer is: a write (else a read), of CKD records (else FB).
#[derive(Clone, Copy)]
pub struct Data {
    pub write: bool,
    pub ckd: bool,
}

fn ns_per_mib(bytes_per_s: u64) -> u64 {
    (1u64 << 20) * 1_000_000_000 / bytes_per_s.max(1)
}

#[inline]
fn slot(block: u64) -> usize {
    (block.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - STREAM_BITS)) as usize
}

/// The set of slot `i`: `i` first, then the others of its aligned group.
fn ways(i: usize) -> impl Iterator<Item = usize> {
    (0..WAYS).map(move |k| (i & !(WAYS - 1)) | ((i + k) & (WAYS - 1)))
}

/// Where a stream now ending at the block of slot `i` goes: `i` if it is free, else a free
/// slot of its set, else the set's least recently used stream's.
fn place(st: &[SeqStream], i: usize) -> usize {
    if st[i].used == 0 {
        return i;
    }
    ways(i)
        .find(|&j| st[j].used == 0)
        .unwrap_or_else(|| ways(i).min_by_key(|&j| st[j].used).unwrap_or(i))
}

pub struct Staged {
    /// Per host-adapter card (its processor), when it is free.
    ha: Vec<u64>,
    /// Ports the channels connect to.
    ports: u32,
    ha_ns: u64,
    /// Data through a host adapter and into the other cluster's NVS, ns per MiB (0: not
    /// modelled, the adapter's per-I/O time only).
    ha_ns_per_mib: u64,
    nvs_ns_per_mib: u64,
    ckd_ns_per_mib: u64,
    cluster_ns_per_mib: u64,
    /// The NVS copy path (shared by all adapters): its booked busy intervals.
    nvs_path: Calendar,
    /// Each cluster's cache: its booked busy intervals.
    clusters: [Calendar; 2],
    /// Per adapter, the time it was busy.
    ha_busy: Vec<u64>,
    cache: Cache,
    prefetch_blocks: u64,
    nvs_cap: u64,
    nvs_used: u64,
    /// (time the destage completes, bytes it frees).
    nvs_pending: BinaryHeap<Reverse<(u64, u64)>>,
    ranks: Ranks,
    vols: Vec<Volume>,
    extent: u64,
    /// Destages ordered by disk address (DS8000 Intelligent Write Caching).
    sweep: bool,
    pub stats: ServerStats,
}

pub struct StorageServer {
    rng: Stream,
    read_miss: u64,
    read_hit: u64,
    write: u64,
    per_page: u64,
    /// The model's default cache hit ratio of random reads.
    pub default_hit_ratio: f64,
    pub staged: Option<Staged>,
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
            staged: None,
        }
    }

    /// Service time of a channel program on a volume outside `[io]` whose random reads hit
    /// with `hit_ratio`.
    pub fn service(&mut self, hit_ratio: f64, pages: u32, write: bool) -> u64 {
        let hit = !write && self.rng.chance(hit_ratio);
        self.timed(hit, pages, write)
    }

    /// Service of a channel program whose read did (`hit`) or did not find its data cached.
    pub fn timed(&self, hit: bool, pages: u32, write: bool) -> u64 {
        let base = match (write, hit) {
            (true, _) => self.write,
            (false, true) => self.read_hit,
            (false, false) => self.read_miss,
        };
        base + self.per_page * pages.saturating_sub(1) as u64
    }
}

impl Staged {
    pub fn new(spec: &ServerSpec, rank_rng: Stream) -> Self {
        let ports = spec.host_adapters.max(1);
        let ports_per_card = spec.ports_per_adapter.max(1);
        let cards = ports.div_ceil(ports_per_card) as usize;
        Staged {
            ha: vec![0; cards],
            ports,
            ha_ns: spec.ha_io.ns(),
            ha_ns_per_mib: spec.ha_rate.map_or(0, |r| ns_per_mib(r.bytes())),
            nvs_ns_per_mib: spec.nvs_rate.map_or(0, |r| ns_per_mib(r.bytes())),
            ckd_ns_per_mib: spec.ckd_write_rate.map_or(0, |r| ns_per_mib(r.bytes())),
            cluster_ns_per_mib: spec.cluster_rate.map_or(0, |r| ns_per_mib(r.bytes())),
            nvs_path: Calendar::default(),
            clusters: Default::default(),
            ha_busy: vec![0; cards],
            cache: Cache::new(spec.cache.bytes()),
            prefetch_blocks: (spec.prefetch.bytes() / BLOCK).max(1),
            nvs_cap: spec.nvs.bytes().max(1 << 20),
            nvs_used: 0,
            nvs_pending: BinaryHeap::new(),
            ranks: Ranks::new(spec, rank_rng),
            vols: Vec::new(),
            extent: spec.extent.bytes().max(1 << 20),
            sweep: spec.destage == Destage::Address,
            stats: ServerStats::default(),
        }
    }

    /// A volume of `bytes`; returns its index on the server.
    pub fn add_volume(&mut self, bytes: u64) -> u32 {
        self.cache.add_volume(bytes / BLOCK);
        self.vols.push(Volume {
            placed: None,
            cluster: 0,
            blocks: bytes / BLOCK,
            extents: bytes.div_ceil(self.extent),
            streams: vec![SeqStream::default(); STREAMS],
        });
        (self.vols.len() - 1) as u32
    }

    /// A volume of `bytes` held in one rank at byte `offset` of its data (an ESS LUN).
    pub fn add_volume_on(&mut self, bytes: u64, rank: u32, offset: u64) -> u32 {
        let v = self.add_volume(bytes);
        self.vols[v as usize].placed = Some((rank, offset));
        self.own(v, rank);
        v
    }

    /// Volume `v` belongs to logical subsystem `lss`: even ones to cluster 0, odd ones to
    /// cluster 1 (inference: the ESS splits its LSSs, and the ranks on a loop, evenly between
    /// its clusters; an FCP LUN here takes its rank's number).
    pub fn own(&mut self, v: u32, lss: u32) {
        self.vols[v as usize].cluster = (lss % 2) as u8;
    }

    /// The card holding the port that channel path `path` reaches: consecutive paths on
    /// different cards, as IBM's guidelines spread a path group over the adapters.
    fn card(&self, path: u32) -> usize {
        (path % self.ports) as usize % self.ha.len()
    }

    /// The host adapter of path `port` takes the command arriving at `at`: returns when its
    /// card's processor is done with it.
    pub fn adapter(&mut self, port: u32, at: u64) -> u64 {
        let i = self.card(port);
        let start = at.max(self.ha[i]);
        self.stats.ha_wait_ns += start - at;
        self.ha[i] = start + self.ha_ns;
        self.ha_busy[i] += self.ha_ns;
        start + self.ha_ns
    }

    /// The adapter of path `port` moves `bytes` of volume `v` starting at `at` (the ESS host
    /// adapter's data path: `ha_rate`); a read's come from the cache of the volume's cluster
    /// (`cluster_rate`, booked as one interval of the cluster's cache for the whole transfer,
    /// the adapter waiting for a gap: the same throughput as sharing it finely, coarser
    /// queueing); a write's data is also copied into the other cluster's NVS over the path all
    /// adapters share (`nvs_rate`), the adapter holding it meanwhile. Returns when the adapter
    /// is done (`at` when data rates are not modelled).
    pub fn adapter_data(&mut self, port: u32, v: u32, at: u64, bytes: u64, flags: Data) -> u64 {
        if self.ha_ns_per_mib == 0 {
            return at;
        }
        let write = flags.write;
        let i = self.card(port);
        let mut start = at.max(self.ha[i]);
        // The adapter is held from here (its queue behind it) until its data is done, any
        // wait for the cluster's cache or the NVS copy included.
        let held_from = start;
        let per_mib = self.ha_ns_per_mib
            + if write && flags.ckd {
                self.ckd_ns_per_mib
            } else {
                0
            };
        let mut dur = bytes * per_mib / (1 << 20);
        // Writes: their path through the caches is in the NVS copy below, whose rate was
        // fitted on writes through both clusters.
        if self.cluster_ns_per_mib > 0 && !write {
            let c = self.vols[v as usize].cluster as usize;
            let d = bytes * self.cluster_ns_per_mib / (1 << 20);
            start = self.clusters[c].book(start, d, at);
            self.stats.cluster_ns[c] += d;
            dur = dur.max(d);
        }
        self.stats.ha_wait_ns += start - at;
        let moved = start + dur;
        self.stats.ha_data_ns += moved - start;
        let end = if write && self.nvs_ns_per_mib > 0 {
            let d = bytes * self.nvs_ns_per_mib / (1 << 20);
            let s = self.nvs_path.book(moved, d, at);
            self.stats.nvs_copy_ns += d;
            s + d
        } else {
            moved
        };
        self.ha[i] = end;
        self.ha_busy[i] += end - held_from;
        end
    }

    /// Busy time of the busier cluster's cache.
    pub fn busiest_cluster_ns(&self) -> u64 {
        self.stats.cluster_ns.iter().copied().max().unwrap_or(0)
    }

    /// Host-adapter cards.
    pub fn adapters(&self) -> usize {
        self.ha.len()
    }

    /// Busy time of the busiest host adapter: per-I/O processing, and the time it is held for
    /// a command's data (waits for its cluster's cache or the NVS copy included).
    pub fn busiest_adapter_ns(&self) -> u64 {
        self.ha_busy.iter().copied().max().unwrap_or(0)
    }

    /// Find (or make) the stream `block` continues; returns (slot, continues a stream).
    fn stream(&mut self, v: usize, block: u64, now: u64) -> (usize, bool) {
        let st = &mut self.vols[v].streams;
        let i0 = slot(block);
        if let Some(i) = ways(i0).find(|&i| st[i].next == block && st[i].used > 0) {
            return (i, true);
        }
        let i = place(st, i0);
        st[i] = SeqStream {
            next: block,
            staged_end: block,
            staged_at: 0,
            used: now.max(1),
            strip: 0,
            strip_done: 0,
            run_from: 0,
        };
        (i, false)
    }

    fn addr(&self, v: usize, block: u64) -> RankAddr {
        if let Some((rank, offset)) = self.vols[v].placed {
            return RankAddr {
                rank,
                offset: offset + block * BLOCK,
            };
        }
        self.ranks
            .locate(v as u32, self.vols[v].extents, block * BLOCK)
    }

    /// A read of `blocks` at `block` of volume `v`, arriving at `at`: returns when its data is
    /// in the cache.
    pub fn read(&mut self, v: u32, block: u64, blocks: u64, at: u64) -> u64 {
        let vi = v as usize;
        self.stats.reads += 1;
        self.stats.read_bytes += blocks * BLOCK;
        let (s, seq) = self.stream(vi, block, at);
        let end = block + blocks;
        let ready = if self.cache.lookup(v, block, blocks) {
            self.stats.read_hits += 1;
            if seq {
                self.stats.sequential += 1;
            }
            at
        } else if seq {
            self.stats.sequential += 1;
            let mut st = self.vols[vi].streams[s];
            if end > st.staged_end {
                // Prefetch from where the staged data ends (or from the read).
                let from = st.staged_end.max(block);
                let n = (end - from).max(self.prefetch_blocks);
                let a = self.addr(vi, from);
                st.staged_at = self.ranks.read(a, n * BLOCK, at);
                st.staged_end = from + n;
                self.cache.insert(v, from, n);
                self.stats.staged_bytes += n * BLOCK;
            } else {
                self.stats.read_hits += 1;
            }
            self.vols[vi].streams[s] = st;
            st.staged_at.max(at)
        } else {
            let a = self.addr(vi, block);
            self.stats.staged_bytes += blocks * BLOCK;
            self.cache.insert(v, block, blocks);
            self.ranks.read(a, blocks * BLOCK, at)
        };
        self.advance(vi, s, end, at);
        ready
    }

    /// The stream in slot `s` now continues at `end`: it moves to that block's slot.
    fn advance(&mut self, v: usize, s: usize, end: u64, at: u64) {
        let mut st = self.vols[v].streams[s];
        st.next = end;
        st.used = at.max(1);
        self.vols[v].streams[s].used = 0;
        let streams = &mut self.vols[v].streams;
        let i = place(streams, slot(end));
        streams[i] = st;
    }

    /// A write of `blocks` at `block` of volume `v` whose data arrived at `at`: returns when NVS
    /// has taken it (the I/O ends then); its destage to the rank is scheduled.
    pub fn write(&mut self, v: u32, block: u64, blocks: u64, at: u64) -> u64 {
        let vi = v as usize;
        self.stats.writes += 1;
        let bytes = blocks * BLOCK;
        self.stats.write_bytes += bytes;
        // Destages completed by `at` have freed their NVS space.
        let mut t = at;
        self.free_nvs(t);
        while self.nvs_used + bytes > self.nvs_cap {
            match self.nvs_pending.peek() {
                Some(&Reverse((done, _))) => {
                    t = t.max(done);
                    self.free_nvs(t);
                }
                None => break,
            }
        }
        self.stats.nvs_wait_ns += t - at;
        let (s, seq) = self.stream(vi, block, at);
        {
            // The written blocks are in the cache too.
            let st = &mut self.vols[vi].streams[s];
            if seq && st.staged_end < block + blocks {
                st.staged_end = block + blocks;
            }
        }
        let done = if seq {
            // NVS gathers a stream's writes strip by strip and destages each strip once
            // (DS8000 sequential destage in full strides): the first write into a strip books
            // its destage, later ones ride along.
            let sb = self.ranks.strip_bytes() / BLOCK;
            let mut done = t;
            for k in block / sb..=(block + blocks - 1) / sb {
                let st = self.vols[vi].streams[s];
                if st.strip != k + 1 {
                    let a = self.addr(vi, k * sb);
                    // The run continues if the stream's last destaged strip was k - 1; it
                    // counts only inside k's extent (the next extent is on another rank).
                    let run_from = if st.strip == k { st.run_from } else { k };
                    let first = match self.vols[vi].placed {
                        Some(_) => 0,
                        None => k * sb * BLOCK / self.extent * (self.extent / (sb * BLOCK)),
                    };
                    let run = k - run_from.max(first);
                    let d = self.ranks.destage_strip(a, t, run, self.sweep);
                    self.stats.strip_destages += 1;
                    let st = &mut self.vols[vi].streams[s];
                    st.strip = k + 1;
                    st.strip_done = d;
                    st.run_from = run_from;
                }
                done = done.max(self.vols[vi].streams[s].strip_done);
            }
            done
        } else {
            let a = self.addr(vi, block);
            self.stats.random_destages += 1;
            self.ranks.destage(a, bytes, t)
        };
        self.advance(vi, s, block + blocks, at);
        self.cache.insert(v, block, blocks);
        self.nvs_used += bytes;
        self.nvs_pending.push(Reverse((done, bytes)));
        self.stats.destaged_bytes += bytes;
        t
    }

    fn free_nvs(&mut self, now: u64) {
        while let Some(&Reverse((done, bytes))) = self.nvs_pending.peek() {
            if done > now {
                break;
            }
            self.nvs_pending.pop();
            self.nvs_used -= bytes;
        }
    }

    /// Data already in the cache before the run (written by a preparation phase such as
    /// fio's layout of its files): the tracks of `blocks` at `block` of volume `v`.
    pub fn preload(&mut self, v: u32, block: u64, blocks: u64) {
        self.cache.insert(v, block, blocks);
    }

    /// 4 KB blocks of volume `v`.
    pub fn volume_blocks(&self, v: u32) -> u64 {
        self.vols.get(v as usize).map_or(0, |x| x.blocks)
    }

    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    pub fn ranks(&self) -> &Ranks {
        &self.ranks
    }

    /// Host-adapter ports the channels connect to.
    pub fn ports(&self) -> u32 {
        self.ports
    }

    pub fn nvs_used(&self) -> u64 {
        self.nvs_used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports of one host-adapter card share its processor: two commands arriving together
    /// through two of its ports are handled one after the other; on cards of one port each
    /// they are not. Consecutive paths reach different cards.
    #[test]
    fn ports_of_one_card_share_its_processor() {
        let ha = ServerSpec::default().ha_io.ns();
        let spec = |ppa| ServerSpec {
            host_adapters: 8,
            ports_per_adapter: ppa,
            ..ServerSpec::default()
        };
        let mut one = Staged::new(&spec(1), Stream::new(1, 9));
        assert_eq!(one.adapter(0, 0), ha);
        assert_eq!(one.adapter(2, 0), ha, "another card");
        let mut four = Staged::new(&spec(4), Stream::new(1, 9));
        assert_eq!(four.ha.len(), 2);
        assert_eq!(four.adapter(0, 0), ha);
        assert_eq!(four.adapter(1, 0), ha, "path 1 is on the other card");
        assert_eq!(four.adapter(2, 0), 2 * ha, "path 2 shares path 0's card");
        assert_eq!(four.stats.ha_wait_ns, ha);
    }

    /// A stream whose next block hashes to the slot of another live stream keeps both.
    #[test]
    fn colliding_streams_both_continue() {
        let mut s = Staged::new(&ServerSpec::default(), Stream::new(1, 9));
        let v = s.add_volume(8 << 30);
        let a = 1000u64;
        // A block b far from a whose read ends in the slot a's stream moves to.
        let b = (100_000u64..)
            .find(|&e| slot(e) == slot(a + 1))
            .map(|e| e - 1)
            .unwrap();
        s.read(v, a, 1, 0);
        s.read(v, b, 1, 1);
        s.read(v, a + 1, 1, 2);
        s.read(v, b + 1, 1, 3);
        assert_eq!(s.stats.sequential, 2, "both streams continue");
    }
}
