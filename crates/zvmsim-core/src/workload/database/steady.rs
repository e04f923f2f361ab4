//! The stationary state of the database's two caches, for the warm start.
//!
//! A transaction's buffer-pool gets pick blocks independently by popularity (the independent
//! reference model). Under it the state a cache run for ever settles to is known: the time
//! since a block's last reference is exponential with its reference rate, independently of
//! the other blocks, and an LRU cache holds the blocks with the shortest such times (Che,
//! Tung and Wang, 2002; Fricker, Robert and Roberts, 2012). The buffer pool's clock and
//! Linux's page-cache clock approximate LRU, so the warm start draws every block's time since
//! its last get, fills the buffer pool with the `buffers` most recent, and the page cache
//! with the most recent buffer-pool misses. Without this the page cache started with the
//! blocks just below the buffer pool in popularity and took hours of simulated time (its
//! turnover: 1.78 M pages per guest reclaimed at about 200 a second) to reach what the
//! workload keeps there, so every measured window drifted.
//!
//! Times are in gets of the guest (one get references one block, one page of the other
//! shared memory and one text page), so they order every page of the guest, also for CP:
//! the warm start touches each guest page at its last reference, oldest first.

use super::{Database, B_NONE, DIRTY, EMPTY};
use crate::engine::rng::Stream;

/// Age buckets: 16 per octave of gets since the last reference. `AGE_NEVER` is a page not
/// referenced in the stationary state (a free page, one never touched by the workload).
pub const AGE_NEVER: u16 = 1023;
const BUCKETS_PER_OCTAVE: f64 = 16.0;

/// The bucket of an age in gets.
#[inline]
pub fn age_bucket(gets: f64) -> u16 {
    if !gets.is_finite() {
        return AGE_NEVER;
    }
    ((1.0 + gets.max(0.0)).log2() * BUCKETS_PER_OCTAVE).min((AGE_NEVER - 1) as f64) as u16
}

/// Reference rates, per get, as 16 buckets per octave below one (rate 2^(-b/16)).
/// `RATE_ZERO` is a page not referenced at all.
pub const RATE_ZERO: u16 = 0x7FFF;

/// The bucket of a rate per get.
#[inline]
pub fn rate_bucket(per_get: f64) -> u16 {
    if per_get <= 0.0 || !per_get.is_finite() {
        return RATE_ZERO;
    }
    ((-per_get.min(1.0).log2()) * BUCKETS_PER_OCTAVE)
        .round()
        .min((RATE_ZERO - 1) as f64) as u16
}

/// The rate per get a bucket stands for.
#[inline]
pub fn rate_of(bucket: u16) -> f64 {
    if bucket >= RATE_ZERO {
        return 0.0;
    }
    (-(bucket as f64) / BUCKETS_PER_OCTAVE).exp2()
}

/// Gets the lower edge of an age bucket stands for.
#[inline]
pub fn age_of(bucket: u16) -> f64 {
    if bucket >= AGE_NEVER {
        return f64::INFINITY;
    }
    (bucket as f64 / BUCKETS_PER_OCTAVE).exp2() - 1.0
}

/// A unit exponential draw.
#[inline]
pub fn unit_exp(rng: &mut Stream) -> f64 {
    -(1.0 - rng.uniform()).ln()
}

/// Rank weights of a popularity law, shared by the guests that use the same law.
pub struct RankWeights {
    law: crate::engine::rng::Zipf,
    pub w: Vec<f32>,
    pub total: f64,
}

impl RankWeights {
    pub fn of(db: &Database) -> Self {
        let n = db.zipf.ranks().min(db.blocks as u64);
        let w: Vec<f32> = (0..n).map(|k| db.zipf.weight(k) as f32).collect();
        let total = w.iter().map(|&x| x as f64).sum();
        RankWeights {
            law: db.zipf.clone(),
            w,
            total,
        }
    }

    fn same_law(&self, db: &Database) -> bool {
        self.law == db.zipf && self.w.len() as u64 == db.zipf.ranks().min(db.blocks as u64)
    }
}

/// The caches' stationary contents, oldest first: block, age bucket, rate bucket (of
/// references to the page holding it).
pub struct Stationary {
    pub buffers: Vec<(u32, u16, u16)>,
    pub cache: Vec<(u32, u16, u16)>,
}

/// Items ordered by bucket, oldest (highest) first; a counting sort, linear in the items.
pub fn oldest_first(items: &[(u32, u16, u16)]) -> Vec<(u32, u16, u16)> {
    let mut start = vec![0usize; AGE_NEVER as usize + 2];
    for &(_, b, _) in items {
        start[(AGE_NEVER - b) as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut out = vec![(0u32, 0u16, 0u16); items.len()];
    for &it in items {
        let k = (AGE_NEVER - it.1) as usize;
        out[start[k]] = it;
        start[k] += 1;
    }
    out
}

/// The `k` smallest of `xs` as a threshold: values <= it are in (ties broken by index).
fn kth_smallest(xs: &[f32], k: usize) -> f32 {
    if k == 0 {
        return f32::NEG_INFINITY;
    }
    if k >= xs.len() {
        return f32::INFINITY;
    }
    let mut copy = xs.to_vec();
    let (_, t, _) = copy.select_nth_unstable_by(k - 1, f32::total_cmp);
    *t
}

impl Database {
    /// Draw the stationary buffer pool and page-cache contents (`cache_pages` Linux pages).
    pub fn stationary(
        &self,
        weights: &mut Option<RankWeights>,
        cache_pages: usize,
        rng: &mut Stream,
    ) -> Stationary {
        if !weights.as_ref().is_some_and(|w| w.same_law(self)) {
            *weights = Some(RankWeights::of(self));
        }
        let rw = weights.as_ref().expect("weights just set");
        let n = rw.w.len();
        // Gets since each rank's last get: exponential with mean total / weight.
        let age: Vec<f32> =
            rw.w.iter()
                .map(|&w| (unit_exp(rng) * rw.total / w as f64) as f32)
                .collect();
        let b = self.buffers as usize;
        let t_pool = kth_smallest(&age, b);
        // Gets since each rank's last buffer-pool miss (its last page-cache reference): for a
        // block out of the pool its last get; for one in the pool, its last get plus the
        // residence before it, exponential at the block's miss rate p e^(-p T) (Che).
        let mut taken = 0usize;
        let mut in_pool = vec![false; n];
        let miss: Vec<f32> = (0..n)
            .map(|r| {
                if age[r] <= t_pool && taken < b {
                    taken += 1;
                    in_pool[r] = true;
                    let p = rw.w[r] as f64 / rw.total;
                    let mu = p * (-p * t_pool as f64).exp();
                    if mu > 0.0 {
                        (age[r] as f64 + unit_exp(rng) / mu) as f32
                    } else {
                        f32::INFINITY
                    }
                } else {
                    age[r]
                }
            })
            .collect();
        let t_cache = kth_smallest(&miss, cache_pages);
        let mut buffers = Vec::with_capacity(b);
        let mut cache = Vec::with_capacity(cache_pages.min(n));
        for r in 0..n {
            let block = self.block_of_rank(r as u64);
            let p = rw.w[r] as f64 / rw.total;
            if in_pool[r] {
                buffers.push((block, age_bucket(age[r] as f64), rate_bucket(p)));
            }
            if miss[r] <= t_cache && cache.len() < cache_pages {
                let mu = p * (-p * t_pool as f64).exp();
                cache.push((block, age_bucket(miss[r] as f64), rate_bucket(mu)));
            }
        }
        Stationary {
            buffers: oldest_first(&buffers),
            cache: oldest_first(&cache),
        }
    }

    /// Fill the buffer pool with `blocks`, oldest first from the clock's hand (buffer 0), all
    /// unreferenced: the clock then replaces them in LRU order until gets set their bits.
    /// Buffers beyond `blocks` are left empty.
    pub fn warm_from(&mut self, blocks: &[(u32, u16, u16)]) {
        self.table.fill(EMPTY);
        self.buf_block.fill(B_NONE);
        let n = blocks.len().min(self.buffers as usize);
        self.fill_with(|_, i| blocks[i].0, n);
        self.hand = 0;
    }
}

/// Gets `settle_clock` draws ahead of the one it applies: their table slots are asked for
/// this far ahead, the buffer words half as far.
const SETTLE_AHEAD: usize = 8;

impl Database {
    /// Runs the pool's clock alone until its hand has gone round `revolutions` times, on gets
    /// drawn from the workload's law: a hit marks the buffer referenced, a miss takes the
    /// clock's victim for the block, and a share `write_share` of the gets leaves the buffer
    /// dirty. Neither warm start leaves the clock as running does: the ordered one holds the
    /// hottest blocks, the stationary one LRU's content, both with every referenced bit
    /// clear. Either way the hand's first revolution is a transient. In the ten-guest study it
    /// lasts about 50 simulated minutes, and the ten guests' hands end it together. The misses
    /// then overshoot and swing for about three more revolutions (docs/settled-state.md).
    /// Unlike the workload, which writes only blocks it found in the pool (`Oltp::get`), a miss
    /// here may leave its new buffer dirty too, so the settled pool holds somewhat more dirty
    /// buffers than running would leave (not yet aligned).
    /// Only the pool is touched here; no time passes and no page is referenced. The gets'
    /// law does not depend on the state, so these are gets the workload could have made.
    /// Returns the gets drawn.
    pub fn settle_clock(&mut self, revolutions: u32, write_share: f64, rng: &mut Stream) -> u64 {
        if revolutions == 0 || self.buffers == 0 {
            return 0;
        }
        let (hits, misses) = (self.hits, self.misses);
        let mut ahead = [0u32; SETTLE_AHEAD];
        for a in ahead.iter_mut() {
            *a = self.sample_block(rng);
            self.prefetch(*a);
        }
        let (mut k, mut gets, mut wraps) = (0, 0u64, 0);
        while wraps < revolutions {
            let block = ahead[k];
            ahead[k] = self.sample_block(rng);
            self.prefetch(ahead[k]);
            // Half-way, the slot asked for has come: the buffer word that checks it.
            self.prefetch_verify(ahead[(k + SETTLE_AHEAD / 2) % SETTLE_AHEAD]);
            k = (k + 1) % SETTLE_AHEAD;
            gets += 1;
            let write = rng.chance(write_share);
            let buf = match self.lookup(block) {
                Some(buf) => buf,
                None => {
                    let before = self.hand;
                    let (buf, _) = self.replace(block);
                    // The hand moves on at least one buffer: at or behind where it was, it
                    // went round.
                    wraps += u32::from(self.hand <= before);
                    buf
                }
            };
            if write {
                self.buf_block[buf as usize] |= DIRTY;
            }
        }
        self.hits = hits;
        self.misses = misses;
        gets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::Zipf;

    fn db(blocks: u32, buffers: u32) -> Database {
        Database::new(
            blocks,
            0,
            buffers,
            10,
            Zipf::with_offset(blocks as u64, 1.2, 50.0),
            1,
            vec![0],
        )
    }

    /// Misses in the pool's next `gets` gets.
    fn misses_over(d: &mut Database, gets: u64, rng: &mut Stream) -> u64 {
        let before = d.misses;
        for _ in 0..gets {
            let b = d.sample_block(rng);
            if d.lookup(b).is_none() {
                d.misses += 1;
                d.replace(b);
            }
        }
        d.misses - before
    }

    /// A pool settled for four revolutions misses as one run for twelve does, and its
    /// counters and draws are its own; the unsettled start misses far less in its first
    /// revolution (the transient `settle_clock` removes).
    #[test]
    fn a_settled_clock_misses_as_running_it_long_does() {
        // The ten-guest study's pool at a fiftieth: 30 GB of blocks, 8.5 GB of buffers, the
        // hottest 2 GB evenly, skew 4.0; the ordered start spread over the pool.
        let make = || {
            let (blocks, buffers) = (157_286u32, 43_520u32);
            let zipf = Zipf::with_offset(blocks as u64, 4.0, 10_486.0);
            let mut d = Database::new(blocks, 0, buffers, 0, zipf, 1, vec![0]);
            d.spread_pool();
            d
        };
        let window = 400_000;
        let mut long = make();
        long.settle_clock(12, 0.0, &mut Stream::new(5, 1));
        let steady = misses_over(&mut long, window, &mut Stream::new(5, 2)) as f64;
        let first = misses_over(&mut make(), window, &mut Stream::new(5, 3)) as f64;
        let mut settled = make();
        settled.hits = 7;
        let gets = settled.settle_clock(4, 0.3, &mut Stream::new(5, 4));
        assert_eq!((settled.hits, settled.misses), (7, 0));
        assert!(
            gets > 4 * 43_520,
            "four revolutions take more gets than buffers: {gets}"
        );
        let dirty = settled
            .buf_block
            .iter()
            .filter(|&&e| e & DIRTY != 0)
            .count();
        assert!(dirty > 43_520 / 10, "writes left buffers dirty: {dirty}");
        let after = misses_over(&mut settled, window, &mut Stream::new(5, 5)) as f64;
        assert!(
            (after / steady - 1.0).abs() < 0.04,
            "settled {after} against {steady} misses after twelve revolutions"
        );
        assert!(first < 0.9 * steady, "unsettled {first} against {steady}");
    }

    #[test]
    fn buckets_grow_with_age_and_never_is_last() {
        assert_eq!(age_bucket(0.0), 0);
        assert!(age_bucket(1e3) < age_bucket(1e4));
        assert_eq!(age_bucket(f64::INFINITY), AGE_NEVER);
        assert_eq!(age_bucket(1e300), AGE_NEVER - 1);
        assert!((age_of(age_bucket(1e6)) / 1e6 - 1.0).abs() < 0.05);
        assert!((rate_of(rate_bucket(3e-7)) / 3e-7 - 1.0).abs() < 0.03);
        assert_eq!(rate_of(rate_bucket(0.0)), 0.0);
    }

    #[test]
    fn stationary_pool_matches_lru_under_independent_references() {
        // Simulate an LRU buffer pool under the same law for many gets and compare its hit
        // ratio with that of the drawn stationary contents.
        let (blocks, buffers) = (20_000u32, 2_000u32);
        let d = db(blocks, buffers);
        let mut rng = Stream::new(3, 1);
        let mut w = None;
        let st = d.stationary(&mut w, 3_000, &mut rng);
        assert_eq!(st.buffers.len(), buffers as usize);
        assert_eq!(st.cache.len(), 3_000);
        // Oldest first.
        assert!(st.buffers.windows(2).all(|x| x[0].1 >= x[1].1));
        let mut inpool = vec![false; blocks as usize];
        for &(b, _, _) in &st.buffers {
            inpool[b as usize] = true;
        }
        let draws = 200_000;
        let hits_static = (0..draws)
            .filter(|_| inpool[d.sample_block(&mut rng) as usize])
            .count() as f64
            / draws as f64;
        // Reference: run the clock pool itself from the drawn state for a long time.
        let mut live = db(blocks, buffers);
        live.warm_from(&st.buffers);
        let (mut hits, mut n) = (0u64, 0u64);
        for i in 0..2_000_000u64 {
            let b = live.sample_block(&mut rng);
            let hit = live.lookup(b).is_some();
            if !hit {
                live.replace(b);
            }
            if i >= 1_000_000 {
                n += 1;
                hits += hit as u64;
            }
        }
        let hits_run = hits as f64 / n as f64;
        assert!(
            (hits_static - hits_run).abs() < 0.02,
            "stationary {hits_static:.4} vs clock in the long run {hits_run:.4}"
        );
        // The top ranks (p T >> 1) are all in the pool; the coldest are not.
        assert!(inpool[d.block_of_rank(0) as usize]);
        assert!(!inpool[d.block_of_rank(blocks as u64 - 1) as usize]);
    }
}
