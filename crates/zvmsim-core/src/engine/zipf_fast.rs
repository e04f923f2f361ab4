//! A verified fast path for the Zipf sampler's inversion (engine/rng.rs).
//!
//! Each draw inverts `x = v^c - q` (with `v = u * e`, `c = 1 / e`, `e = 1 - s`) or, for
//! s = 1, `x = exp(u) - q`, and rounds `x` to a rank; libm's `pow` dominated that. Here a
//! small per-law table gives `x~` with a proven bound `|x~ - x| <= eps`, where `x` is what the
//! exact path computes. When `x~` lies farther than `eps` from a rank boundary and from the
//! squeeze's cut, the exact path's rank and its acceptance are both certain, so the fast path
//! returns that rank; otherwise the caller runs the exact path on the same uniform. Every draw
//! is thus the exact path's draw, whatever libm the table was built with.
//!
//! The table is a few KB so that it stays in cache between draws (a 40 KB table of
//! per-segment polynomials missed cache on nearly every draw of a ten-guest run and lost to
//! `pow`): v = 2^E m gives v^c = (2^E)^c m^c, one scale per binade and 2^B polynomials of m^c
//! on [1, 2) shared by all binades; exp(u0 + t) = exp(u0) e^t, one scale per segment and one
//! polynomial.
//!
//! The bound: y~ = scale~ P~(t) against y = scale p(t), p = m^c or e^t, |t| <= h.
//! - truncation: P is the degree-7 Taylor polynomial; its remainder is p^(8)(ξ) t^8 / 8! for
//!   some ξ within h of the centre, and |p^(8)| is monotone there, so R <= |C(c,8)|
//!   max(end^(c-8)) h^8 (e^h h^8 / 8! for exp, taking h = w to absorb index rounding);
//! - rounding: with S = Σ|a_k| h^k, a term's relative error is below 40 half-ulps (at most 21
//!   roundings in the binomial, pow's ulp, 6 levels of Estrin's tree, the scale's ulp and its
//!   products); the exact path adds pow's (or exp's) ulp and `- q`, `+ 0.5`, `k - x` half an
//!   ulp each, all of magnitudes <= scale S + 1: together below 24 ulps of that, budgeted as
//!   64. libm's pow and exp are taken within 1 ulp, as glibc documents them.
//!
//! eps = 2 max(scale) max(R) + 2^-46 (max(scale) max(S) + 1). The tests check the bound on
//! millions of draws and on uniforms placed a few ulps from rank boundaries.

const DEGREE: usize = 7;
const ONE: u64 = 0x3ff0_0000_0000_0000;
const MANTISSA: u64 = (1 << 52) - 1;

/// Taylor coefficients of p about a segment's centre: 64 bytes, one cache line.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
struct Poly([f64; DEGREE + 1]);

impl Poly {
    /// scale P(t) by Estrin's scheme, the scale applied to both halves so that it adds no
    /// step to the dependency chain (no FMA in the baseline x86-64 target).
    #[inline]
    fn eval(&self, scale: f64, t: f64) -> f64 {
        let a = &self.0;
        let t2 = t * t;
        let st4 = scale * (t2 * t2);
        scale * ((a[0] + a[1] * t) + t2 * (a[2] + a[3] * t))
            + st4 * ((a[4] + a[5] * t) + t2 * (a[6] + a[7] * t))
    }
}

/// How a uniform finds its scale and polynomial.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Key {
    /// v = u * e; scale `scales[exponent - base]`, polynomial `polys[top b mantissa bits]`
    /// evaluated at m - centre (exact: both in [1, 2)).
    Pow { e: f64, base: u64, b: u32 },
    /// s = 1: segments of width 1 / `inv_w` from `lo`; `scales` holds [centre, exp(centre)],
    /// `polys[0]` is e^t.
    Exp { lo: f64, inv_w: f64 },
}

/// Table sizes tried, smallest first; a law that needs more keeps the exact path only.
const MAX_ENTRIES: usize = 1 << 12;
/// The truncation error aimed for, in ranks: the fast path then declines a few draws in a
/// hundred thousand where the squeeze accepts all, the ones near a rank boundary.
const TARGET: f64 = 1e-5;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FastInverse {
    key: Key,
    scales: Vec<[f64; 2]>,
    polys: Vec<Poly>,
    /// q - 0.5, so that one subtraction gives x~ + 0.5 (exact for whole q, as page counts are;
    /// its rounding otherwise is within the budget).
    q_half: f64,
    n: i64,
    /// The margin below a rank's upper boundary, and the one above its lower boundary (wider
    /// by 0.5 - cut where the squeeze sends draws to the exact test).
    eps_hi: f64,
    eps_lo: f64,
}

/// (key, scales, polynomials, max scale × max R, max scale × max S).
type Table = (Key, Vec<[f64; 2]>, Vec<Poly>, f64, f64);

impl FastInverse {
    /// The table for the law (n, s, q) whose uniforms lie between u_a and u_b, or None where
    /// no table of at most MAX_ENTRIES entries meets TARGET (every draw takes the exact path).
    pub(crate) fn build(n: f64, s: f64, q: f64, u_a: f64, u_b: f64, cut: f64) -> Option<Self> {
        // The same expression as the exact path's, so v and c are the same doubles.
        let e = 1.0 - s;
        let (lo, hi) = (u_a.min(u_b), u_a.max(u_b));
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let table = if e.abs() < 1e-9 {
            (1..=20).find_map(|b| exp_table(lo, hi, b))
        } else {
            let (va, vb) = (lo * e, hi * e);
            let (vlo, vhi) = (va.min(vb), va.max(vb));
            if !(vlo.is_normal() && vhi.is_normal() && vlo > 0.0) {
                return None;
            }
            (0..=10).find_map(|b| pow_table(e, 1.0 / e, vlo, vhi, b))
        };
        let (key, scales, polys, r, s_max) = table?.ok()?;
        let eps_hi = 2.0 * r + (s_max + 1.0) * (-46f64).exp2();
        Some(FastInverse {
            key,
            scales,
            polys,
            q_half: q - 0.5,
            n: n as i64,
            eps_hi,
            eps_lo: eps_hi + (0.5 - cut).max(0.0),
        })
    }

    /// x~ + 0.5, x~ approximating the exact path's x; None outside the table.
    #[inline]
    pub(crate) fn approx(&self, u: f64) -> Option<f64> {
        let y = match self.key {
            Key::Pow { e, base, b } => {
                let bits = (u * e).to_bits();
                // A negative or zero v wraps far beyond the table.
                let scale = self.scales.get((bits >> 52).wrapping_sub(base) as usize)?[1];
                let seg = (bits & MANTISSA) >> (52 - b);
                let m = f64::from_bits(ONE | (bits & MANTISSA));
                let centre = f64::from_bits(ONE | (seg << (52 - b)) | (1 << (51 - b)));
                self.polys[seg as usize].eval(scale, m - centre)
            }
            Key::Exp { lo, inv_w } => {
                let f = (u - lo) * inv_w;
                // (A NaN would pass but gives a NaN z, which no rank is sure of.)
                if f < 0.0 {
                    return None;
                }
                let [at, scale] = *self.scales.get(f as usize)?;
                self.polys[0].eval(scale, u - at)
            }
        };
        Some(y - self.q_half)
    }

    /// The rank in 1..=n that the exact path draws and accepts for `u`, when that is certain.
    #[inline]
    pub(crate) fn rank(&self, u: f64) -> Option<u64> {
        let z = self.approx(u)?;
        // Signed conversions are single instructions; z < 1 gives m < 1, where the clamp
        // to rank 1 acts and nothing is certain.
        let m = z as i64;
        let mf = m as f64;
        // Both differences are exact (Sterbenz: z lies in [mf, mf + 1], mf >= 1).
        let sure = z - mf > self.eps_lo && mf + 1.0 - z > self.eps_hi;
        (sure && m >= 1 && m <= self.n).then_some(m as u64)
    }

    #[cfg(test)]
    pub(crate) fn eps(&self) -> f64 {
        self.eps_hi
    }

    /// Table bytes.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.scales.len() * 16 + self.polys.len() * 64
    }

    /// A copy whose margins are `eps` (tests: a table without margins must be caught).
    #[cfg(test)]
    pub(crate) fn with_margins(&self, eps: f64) -> Self {
        FastInverse {
            eps_hi: eps,
            eps_lo: eps,
            ..self.clone()
        }
    }
}

/// For v^c over [vlo, vhi]: 2^b polynomials of m^c; Some(Err) if too large, None if not
/// accurate enough.
fn pow_table(e: f64, c: f64, vlo: f64, vhi: f64, b: u32) -> Option<Result<Table, ()>> {
    let base = vlo.to_bits() >> 52;
    let binades = (vhi.to_bits() >> 52) - base + 1;
    if binades as usize > MAX_ENTRIES || 1 << b > MAX_ENTRIES {
        return Some(Err(()));
    }
    let scales: Vec<[f64; 2]> = (base..base + binades)
        .map(|x| [0.0, f64::from_bits(x << 52).powf(c)])
        .collect();
    let scale = scales.iter().fold(0.0f64, |a, s| a.max(s[1]));
    let h = (-(b as f64) - 1.0).exp2();
    let c8 = binomial(c, 8).abs();
    let (mut r, mut s_max) = (0.0f64, 0.0f64);
    let mut polys = Vec::with_capacity(1 << b);
    for i in 0..1u64 << b {
        let m0 = 1.0 + (2 * i + 1) as f64 * h;
        let mut a = [0.0; DEGREE + 1];
        let mut sum = 0.0;
        for (k, ak) in a.iter_mut().enumerate() {
            *ak = binomial(c, k as i32) * m0.powf(c - k as f64);
            sum += ak.abs() * h.powi(k as i32);
        }
        let far = (m0 - h).powf(c - 8.0).max((m0 + h).powf(c - 8.0));
        r = r.max(c8 * far * h.powi(8));
        s_max = s_max.max(sum);
        polys.push(Poly(a));
    }
    let (r, s_max) = (scale * r, scale * s_max);
    if !(2.0 * r <= TARGET && s_max.is_finite()) {
        return None;
    }
    Some(Ok((Key::Pow { e, base, b }, scales, polys, r, s_max)))
}

/// For exp(u) over [lo, hi]: segments of width 2^-b, each [centre, exp(centre)].
fn exp_table(lo: f64, hi: f64, b: i32) -> Option<Result<Table, ()>> {
    let w = (-b as f64).exp2();
    let count = ((hi - lo) / w).floor() + 1.0;
    if count > MAX_ENTRIES as f64 {
        return Some(Err(()));
    }
    let scales: Vec<[f64; 2]> = (0..count as usize)
        .map(|i| lo + (i as f64 + 0.5) * w)
        .map(|at| [at, at.exp()])
        .collect();
    let scale = scales.iter().fold(0.0f64, |a, s| a.max(s[1]));
    let mut a = [1.0; DEGREE + 1];
    for k in 1..=DEGREE {
        a[k] = a[k - 1] / k as f64;
    }
    let r = scale * w.exp() * w.powi(8) / 40320.0;
    let s_max = scale * w.exp();
    if !(2.0 * r <= TARGET && s_max.is_finite()) {
        return None;
    }
    let key = Key::Exp { lo, inv_w: 1.0 / w };
    Some(Ok((key, scales, vec![Poly(a)], r, s_max)))
}

/// C(c, k) = c (c-1) ... (c-k+1) / k! for real c.
fn binomial(c: f64, k: i32) -> f64 {
    (0..k).fold(1.0, |p, i| p * (c - i as f64) / (i + 1) as f64)
}
