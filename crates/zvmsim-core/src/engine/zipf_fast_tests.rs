//! The Zipf fast path (engine/zipf_fast.rs) against the exact path, uniform by uniform: on
//! random draws, on uniforms a few ulps from rank and squeeze boundaries, and on whole
//! sample streams, for every law the scenarios, tests and bench use.

use super::*;

/// (ranks, s, q): the large-memory studies' databases (30, 16 and 4 GB, 2 GB / 1 GB / 256 MB /
/// 200 MB flat heads), swingbench's, the app servers' heaps and text, and the unit tests' and
/// bench's laws.
const LAWS: [(u64, f64, f64); 16] = [
    (7_864_320, 3.5, 524_288.0),
    (4_194_304, 3.5, 262_144.0),
    (1_048_576, 3.5, 65_536.0),
    (1_048_576, 3.5, 51_200.0),
    (2_508_800, 0.9, 0.0),
    (243_200, 1.0, 0.0),
    (176_128, 1.0, 0.0),
    (524_288, 1.3, 0.0),
    (7_864_320, 4.0, 786_432.0),
    (2000, 1.8, 100.0),
    (1_000_000, 1.2, 50.0),
    (10_000, 0.9, 0.0),
    (200_000, 0.92, 0.0),
    (5_000, 0.6, 0.0),
    (1000, 1.0, 0.0),
    (100_000, 0.5, 0.0),
];

/// `f(i, law, its table)` for each law; every one must have a table.
fn each_law(mut f: impl FnMut(u64, &Zipf, &FastInverse)) {
    for (i, &(n, s, q)) in LAWS.iter().enumerate() {
        let z = Zipf::with_offset(n, s, q);
        let t = z
            .fast
            .as_ref()
            .unwrap_or_else(|| panic!("no table for {:?}", LAWS[i]));
        f(i as u64, &z, t);
    }
}

/// The fast path's answer for `u` agrees with the exact path's (or it declines): 1 if it
/// answered, 0 if it declined.
fn check(z: &Zipf, f: &FastInverse, u: f64) -> u64 {
    match f.rank(u) {
        Some(k) => {
            assert_eq!(Some(k), z.exact(u), "u {u:e} ({}, {}, {})", z.n, z.s, z.q);
            1
        }
        None => 0,
    }
}

/// Uniforms a few ulps (and a few powers of two ulps) either side of where x crosses `x_at`.
fn near(z: &Zipf, x_at: f64, out: &mut Vec<f64>) {
    let (lo, hi) = (z.h_x1.min(z.h_n), z.h_x1.max(z.h_n));
    let u = z.h_int(x_at);
    let bits = u.to_bits();
    let steps = (0..=64u64).chain((7..40).map(|p| 1u64 << p));
    for d in steps {
        for b in [bits.wrapping_add(d), bits.wrapping_sub(d)] {
            let v = f64::from_bits(b);
            if (lo..=hi).contains(&v) {
                out.push(v);
            }
        }
    }
}

/// Ranks to probe: every one of the first 1000, then spread over the rest.
fn probe_ranks(n: u64, rng: &mut Stream) -> Vec<u64> {
    let mut ks: Vec<u64> = (1..=n.min(1000)).collect();
    ks.extend((0..600).map(|_| 1 + rng.below(n)));
    ks.extend((0..60).map(|i| (n as f64).powf(i as f64 / 60.0) as u64));
    ks.push(n);
    ks
}

/// The uniforms at the rank boundaries (x = k + 0.5) and squeeze boundaries (x = k - cut).
fn boundaries(z: &Zipf, seed: u64) -> Vec<f64> {
    let mut rng = Stream::new(seed, 7);
    let mut us = Vec::new();
    for k in probe_ranks(z.n as u64, &mut rng) {
        near(z, k as f64 + 0.5, &mut us);
        near(z, k as f64 - z.cut, &mut us);
    }
    near(z, 1.5, &mut us);
    us.push(z.h_x1);
    us.push(z.h_n);
    us
}

#[test]
fn every_scenario_law_has_a_small_table() {
    each_law(|_, z, f| {
        // A few KB, to stay in cache between draws, and a margin far below a rank.
        assert!(f.bytes() <= 8192, "{z:?}: {} bytes", f.bytes());
        assert!(f.eps() < 2e-5, "{z:?}: eps {}", f.eps());
    });
}

#[test]
fn fast_path_draws_the_exact_rank() {
    each_law(|i, z, f| {
        let mut rng = Stream::new(11, i);
        let draws = 2_000_000;
        let mut answered = 0;
        for _ in 0..draws {
            let u = z.h_n + rng.uniform() * (z.h_x1 - z.h_n);
            answered += check(z, f, u);
        }
        // It declines only near boundaries: a few per hundred thousand where the squeeze
        // accepts all but a sliver (flat heads), the squeeze's band (0.5 - cut of a rank)
        // otherwise.
        let declined = 1.0 - answered as f64 / draws as f64;
        let allowed = 1e-4 + 2.0 * (0.5 - z.cut).max(0.0);
        assert!(declined < allowed, "{z:?}: {declined}");
    });
}

#[test]
fn fast_path_holds_at_rank_and_squeeze_boundaries() {
    each_law(|i, z, f| {
        let us = boundaries(z, i);
        let answered: u64 = us.iter().map(|&u| check(z, f, u)).sum();
        // The farther nudges lie beyond the margin: a tenth or more were really answered.
        assert!(answered * 10 > us.len() as u64, "{z:?}");
    });
}

#[test]
fn fast_path_error_stays_within_its_bound() {
    each_law(|i, z, f| {
        let mut us = boundaries(z, 100 + i);
        let mut rng = Stream::new(13, i);
        us.extend((0..200_000).map(|_| z.h_n + rng.uniform() * (z.h_x1 - z.h_n)));
        for u in us {
            let Some(x) = f.approx(u) else { continue };
            let err = (x - (z.h_int_inv(u) + 0.5)).abs();
            assert!(err <= f.eps(), "{z:?} u {u:e}: {err:e} > {:e}", f.eps());
        }
    });
}

/// Negative control: without its margins the fast path disagrees with the exact path at some
/// boundary uniform, so the boundary probes can see a wrong margin.
#[test]
fn a_table_without_margins_is_caught() {
    let (n, s, q) = LAWS[0];
    let z = Zipf::with_offset(n, s, q);
    let bare = z.fast.as_ref().expect("table").with_margins(0.0);
    let wrong = boundaries(&z, 0)
        .into_iter()
        .filter(|&u| bare.rank(u).is_some_and(|k| Some(k) != z.exact(u)))
        .count();
    assert!(wrong > 0);
}

/// The sampler as it was before the fast path: every draw inverted by the exact path.
fn reference_sample(z: &Zipf, rng: &mut Stream) -> u64 {
    loop {
        let u = z.h_n + rng.uniform() * (z.h_x1 - z.h_n);
        if let Some(k) = z.exact(u) {
            return k - 1;
        }
    }
}

#[test]
fn samples_match_the_reference_sampler() {
    each_law(|i, z, _| {
        let (mut a, mut b) = (Stream::new(17, i), Stream::new(17, i));
        for d in 0..500_000 {
            assert_eq!(
                z.sample(&mut a),
                reference_sample(z, &mut b),
                "draw {d} {z:?}"
            );
        }
        // Both consumed the same uniforms (rejections included).
        assert_eq!(a.next_u64(), b.next_u64());
    });
}
