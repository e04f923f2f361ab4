//! Random streams: ChaCha8 (rand_chacha), one independent stream per component, derived from
//! the run's seed and a fixed stream number, so that adding a component never shifts another's
//! draws and the same seed gives bit-identical runs on any machine.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::zipf_fast::FastInverse;

pub const RNG_ALGORITHM: &str = "ChaCha8 (rand_chacha 0.3), one stream per component";

pub struct Stream {
    rng: ChaCha8Rng,
}

impl Stream {
    /// Stream `id` of the run seeded with `seed`.
    pub fn new(seed: u64, id: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(id);
        Stream { rng }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-32 for our n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean (in ns), rounded to integer ns.
    #[inline]
    pub fn exp_ns(&mut self, mean: u64) -> u64 {
        if mean == 0 {
            return 0;
        }
        let u = self.uniform();
        (-(1.0 - u).ln() * mean as f64) as u64
    }

    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

/// Zipf-Mandelbrot over 1..=n: P(k) ∝ (k + q)^-s (q = 0 is plain Zipf; a large q flattens the
/// head, as when a hot set is accessed about evenly). Rejection-inversion (Hörmann & Derflinger,
/// 1996): O(1) per draw with no per-rank table, so popularity can span a database at page
/// granularity. A small per-law table (engine/zipf_fast.rs) answers most draws without `pow`,
/// and only where the exact path's rank is certain.
#[derive(Debug, Clone)]
pub struct Zipf {
    n: f64,
    s: f64,
    q: f64,
    h_x1: f64,
    h_n: f64,
    cut: f64,
    fast: Option<FastInverse>,
}

/// The law decides everything; the table is derived from it.
impl PartialEq for Zipf {
    fn eq(&self, o: &Self) -> bool {
        (self.n, self.s, self.q, self.h_x1, self.h_n, self.cut)
            == (o.n, o.s, o.q, o.h_x1, o.h_n, o.cut)
    }
}

impl Zipf {
    pub fn new(n: u64, s: f64) -> Self {
        Self::with_offset(n, s, 0.0)
    }

    pub fn with_offset(n: u64, s: f64, q: f64) -> Self {
        let n = n.max(1) as f64;
        let mut z = Zipf {
            n,
            s,
            q: q.max(0.0),
            h_x1: 0.0,
            h_n: 0.0,
            cut: f64::NEG_INFINITY,
            fast: None,
        };
        z.h_x1 = z.h_int(1.5) - z.h(1.0);
        z.h_n = z.h_int(n + 0.5);
        // Squeeze for fast acceptance: a draw this close to its rank is accepted without the
        // exact test. Hörmann & Derflinger show the rejection width largest at rank 2 for
        // h(y) = y^-s; the offset only shifts y, so the bound at rank 2 holds for every rank.
        z.cut = 2.0 - z.h_int_inv(z.h_int(2.5) - z.h(2.0));
        z.fast = FastInverse::build(n, z.s, z.q, z.h_x1, z.h_n, z.cut);
        z
    }

    fn h(&self, x: f64) -> f64 {
        (-self.s * (x + self.q).ln()).exp()
    }

    /// An antiderivative of h. Written without the usual "- 1" so that steep laws (large s,
    /// large offsets) keep their precision: the constant would swamp the differences.
    fn h_int(&self, x: f64) -> f64 {
        let y = x + self.q;
        let e = 1.0 - self.s;
        if e.abs() < 1e-9 {
            y.ln()
        } else {
            y.powf(e) / e
        }
    }

    fn h_int_inv(&self, u: f64) -> f64 {
        let e = 1.0 - self.s;
        let y = if e.abs() < 1e-9 {
            u.exp()
        } else {
            (u * e).powf(1.0 / e)
        };
        y - self.q
    }

    /// The unnormalized probability of rank `k` in 0..n (0 is the most popular): (k+1+q)^-s.
    #[inline]
    pub fn weight(&self, k: u64) -> f64 {
        self.h(k as f64 + 1.0)
    }

    /// The number of ranks.
    pub fn ranks(&self) -> u64 {
        self.n as u64
    }

    /// A rank in 0..n (0 is the most popular).
    #[inline]
    pub fn sample(&self, rng: &mut Stream) -> u64 {
        loop {
            let u = self.h_n + rng.uniform() * (self.h_x1 - self.h_n);
            if let Some(k) = self.fast.as_ref().and_then(|f| f.rank(u)) {
                return k - 1;
            }
            if let Some(k) = self.exact(u) {
                return k - 1;
            }
        }
    }

    /// The rank in 1..=n that `u` gives, None if rejected: the reference the fast path is
    /// proven against.
    fn exact(&self, u: f64) -> Option<u64> {
        let x = self.h_int_inv(u);
        // Truncation equals floor here: a negative sum is clamped to rank 1 either way,
        // and the cast saturates above n. It spares a libm call (no SSE4.1 rounding in the
        // baseline x86-64 target): about 1 % of a ten-guest study run.
        let k = ((x + 0.5) as u64 as f64).clamp(1.0, self.n);
        (k - x <= self.cut || u >= self.h_int(k + 0.5) - self.h(k)).then_some(k as u64)
    }
}

#[cfg(test)]
#[path = "zipf_fast_tests.rs"]
mod zipf_fast_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a = Stream::new(7, 1);
        let mut b = Stream::new(7, 1);
        let mut c = Stream::new(7, 2);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn zipf_matches_its_law() {
        let z = Zipf::new(1000, 1.0);
        let mut r = Stream::new(1, 1);
        let mut counts = vec![0u64; 1000];
        let n = 400_000;
        for _ in 0..n {
            counts[z.sample(&mut r) as usize] += 1;
        }
        let hn: f64 = (1..=1000).map(|k| 1.0 / k as f64).sum();
        for k in [1usize, 2, 10, 100] {
            let expect = n as f64 / (k as f64 * hn);
            let got = counts[k - 1] as f64;
            assert!(
                (got - expect).abs() < 0.05 * expect + 30.0,
                "rank {k}: {got} vs {expect}"
            );
        }
        // s = 0 is uniform
        let u = Zipf::new(10, 0.0);
        let mut c2 = [0u64; 10];
        for _ in 0..100_000 {
            c2[u.sample(&mut r) as usize] += 1;
        }
        assert!(c2.iter().all(|&c| (9_000..11_000).contains(&c)));
    }

    /// The squeeze only skips the exact test where it would accept: the same draws with and
    /// without it, for the laws the scenarios use (plain, flat head, steep tail).
    #[test]
    fn squeeze_never_changes_a_draw() {
        for (n, s, q) in [
            (1000u64, 1.0, 0.0),
            (2000, 1.8, 100.0),
            (7_864_320, 3.5, 524_288.0),
            (7_864_320, 4.0, 786_432.0),
            (1_000_000, 1.2, 50.0),
            (10_000, 0.9, 0.0),
        ] {
            let z = Zipf::with_offset(n, s, q);
            let exact = Zipf {
                cut: f64::NEG_INFINITY,
                fast: None,
                ..z.clone()
            };
            let (mut a, mut b) = (Stream::new(3, 1), Stream::new(3, 1));
            for i in 0..300_000 {
                let (x, y) = (z.sample(&mut a), exact.sample(&mut b));
                assert_eq!(x, y, "draw {i} of ({n}, {s}, {q})");
            }
            // A positive width: the squeeze accepts draws (about all of them when q is large).
            assert!(z.cut > 0.0, "({n}, {s}, {q}): cut {}", z.cut);
        }
    }

    #[test]
    fn steep_laws_keep_their_precision() {
        // s = 4 over millions of ranks with a large offset: the head must stay flat and the
        // draws spread over it (a precision loss collapses every draw onto rank 0).
        let z = Zipf::with_offset(7_864_320, 4.0, 786_432.0);
        let mut r = Stream::new(9, 1);
        let draws: Vec<u64> = (0..10_000).map(|_| z.sample(&mut r)).collect();
        let beyond = draws.iter().filter(|&&k| k > 786_432).count();
        // P(rank > q) = 1 - (1 - 2^-3) under the continuous law ≈ 0.125.
        assert!((900..1700).contains(&beyond), "{beyond}");
    }

    #[test]
    fn zipf_mandelbrot_matches_its_law() {
        let (n, s, q) = (2000u64, 1.8, 100.0);
        let z = Zipf::with_offset(n, s, q);
        let mut r = Stream::new(5, 1);
        let draws = 400_000;
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            counts[z.sample(&mut r) as usize] += 1;
        }
        let norm: f64 = (1..=n).map(|k| (k as f64 + q).powf(-s)).sum();
        for k in [1usize, 50, 200, 1000] {
            let expect = draws as f64 * (k as f64 + q).powf(-s) / norm;
            let got = counts[k - 1] as f64;
            assert!(
                (got - expect).abs() < 0.08 * expect + 30.0,
                "rank {k}: {got} vs {expect}"
            );
        }
        // The head is flat: rank 1 and rank 10 differ by the ratio of (k + q)^-s.
        assert!(counts[0] < 2 * counts[9]);
    }

    #[test]
    fn exponential_mean() {
        let mut r = Stream::new(3, 9);
        let n = 200_000;
        let s: u64 = (0..n).map(|_| r.exp_ns(1_000_000)).sum();
        let mean = s as f64 / n as f64;
        assert!((mean - 1e6).abs() < 1e4, "{mean}");
    }
}
