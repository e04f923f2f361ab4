//! Steady-state check: did a run's headline figures drift across its measured intervals?
//!
//! A benchmark figure is meaningful only if the system was in steady state while it was
//! measured; otherwise the figure depends on where the window was put. For each headline figure
//! we fit an ordinary least-squares line to its interval values against the interval's mid
//! time, express the fitted change over the whole window relative to the figure's mean, and
//! test the slope with the standard t test (t = b / se(b), n - 2 degrees of freedom; e.g.
//! Draper & Smith, Applied Regression Analysis, ch. 1). A figure drifts when its change over
//! the window exceeds the tolerance AND the slope is significant (two-sided p < 0.05).
//!
//! Limitation: the t test assumes independent residuals; interval samples of a queueing
//! system are autocorrelated, which makes the test somewhat liberal. The tolerance guards
//! against flagging small but significant trends.
//!
//! A test that finds no drift has only shown something if it could have found one. For each
//! figure the check also gives the smallest change over the window that its test would have
//! flagged at the same scatter (t critical value times the slope's standard error, over the
//! window, relative to the figure's scale). With 3 intervals the critical value is 12.7 (one
//! degree of freedom), so a 3-interval window hides drifts many times the tolerance. When that
//! smallest detectable change exceeds the tolerance for one of the `HEADLINE` figures and none
//! drifts, the verdict is "inconclusive", not "stationary".

use serde::Serialize;

use super::rows::SystemRow;

/// Significance level of the slope test (conventional 5 %).
pub const ALPHA: f64 = 0.05;
/// Default drift tolerance: 5 % of the figure's mean over the window (`run.drift_tolerance`).
pub const DEFAULT_TOLERANCE: f64 = 0.05;
/// Fewer intervals than this leave no degree of freedom for the residual variance.
pub const MIN_INTERVALS: usize = 3;

/// How a figure's scale is floored, so that near-zero means (no pages on DASD, no paging) do
/// not turn a change of a few pages into a large relative drift. Inference: the floors are
/// chosen as changes too small to matter to any headline figure; see `floor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Transactions per second: floor 1 tx/s.
    Throughput,
    /// Page counts: floor 0.5 % of the LPAR's central storage frames (at least 256 pages).
    Pages,
    /// Percentages (CPU, overcommit): floor 1 percentage point.
    Percent,
    /// Paging rates in pages per second: floor 10 pages/s.
    PageRate,
    /// Milliseconds: floor 1 ms.
    Millis,
}

/// The absolute floor of a figure's scale, in the figure's unit.
pub fn floor(scale: Scale, frames_central: u64) -> f64 {
    match scale {
        Scale::Throughput => 1.0,
        Scale::Pages => (frames_central as f64 * 0.005).max(256.0),
        Scale::Percent => 1.0,
        Scale::PageRate => 10.0,
        Scale::Millis => 1.0,
    }
}

/// The figures a study reports, whose steadiness a verdict of "stationary" has to show (issue
/// 9 names them: throughput, pages on DASD, real overcommitment). The other figures are
/// checked for drift, but a paging rate swinging from interval to interval does not make the
/// verdict inconclusive.
pub const HEADLINE: &[&str] = &["throughput_tx_per_s", "pages_dasd", "real_overcommit_pct"];

/// The verdicts.
pub const STATIONARY: &str = "stationary";
pub const DRIFTING: &str = "drifting";
pub const INCONCLUSIVE: &str = "inconclusive";
pub const TOO_FEW: &str = "too few intervals to tell";

/// A headline figure: its name, its scale and how it is read from a system row.
pub type Figure = (&'static str, Scale, fn(&SystemRow) -> f64);

/// The headline figures checked.
pub const FIGURES: &[Figure] = &[
    ("throughput_tx_per_s", Scale::Throughput, |r| {
        r.throughput_tx_per_s
    }),
    ("pages_resident", Scale::Pages, |r| r.pages_resident as f64),
    ("pages_xstor", Scale::Pages, |r| r.pages_xstor as f64),
    ("pages_dasd", Scale::Pages, |r| r.pages_dasd as f64),
    ("real_overcommit_pct", Scale::Percent, |r| {
        r.real_overcommit_pct
    }),
    ("cpu_lpar_pct", Scale::Percent, |r| r.cpu_lpar_pct),
    ("cpu_cp_pct", Scale::Percent, |r| r.cpu_cp_pct),
    ("ms_to_xs_per_s", Scale::PageRate, |r| r.ms_to_xs_per_s),
    ("xs_to_dasd_per_s", Scale::PageRate, |r| r.xs_to_dasd_per_s),
    ("dasd_to_ms_per_s", Scale::PageRate, |r| r.dasd_to_ms_per_s),
    ("paging_wait_ms", Scale::Millis, |r| r.paging_wait_ms),
];

/// One figure's trend over the measured intervals.
#[derive(Debug, Clone, Serialize)]
pub struct FigureTrend {
    pub figure: &'static str,
    pub mean: f64,
    /// Fitted change per simulated minute (None with fewer than 2 intervals).
    pub slope_per_min: Option<f64>,
    /// Fitted change over the whole window, in % of max(|mean|, floor).
    pub drift_pct: Option<f64>,
    /// Two-sided p value of the slope's t test (None with too few intervals).
    pub p_value: Option<f64>,
    /// The smallest change over the window, in % of the same scale as `drift_pct`, that the
    /// test would have flagged as significant at this scatter (None with too few intervals).
    pub detectable_pct: Option<f64>,
    pub drifting: bool,
}

/// The steady-state verdict of a run.
#[derive(Debug, Clone, Serialize)]
pub struct SteadyState {
    /// True when no figure drifted and the headline figures' tests could have seen a drift of
    /// the tolerance (verdict "stationary").
    pub stationary: bool,
    /// "stationary", "drifting", "inconclusive" or "too few intervals to tell".
    pub verdict: &'static str,
    pub intervals: usize,
    pub tolerance_pct: f64,
    pub drifting: Vec<&'static str>,
    /// Headline figures that did not drift, but whose test could not have seen a drift of the
    /// tolerance over this window (their `detectable_pct` exceeds it).
    pub undetermined: Vec<&'static str>,
    pub figures: Vec<FigureTrend>,
}

/// The verdict of a run whose workload is a finite job (iozone's write, then read test): its
/// figures change by design as the job moves through its phases, so no steady state is expected.
pub const FINITE_JOB: &str = "not applicable: the workload is a finite job";

impl SteadyState {
    /// The same trends, without a drift verdict (see `FINITE_JOB`).
    pub fn finite_job(mut self) -> Self {
        self.verdict = FINITE_JOB;
        self.stationary = false;
        self.drifting.clear();
        self.undetermined.clear();
        for f in &mut self.figures {
            f.drifting = false;
        }
        self
    }
}

/// An OLS fit of y on x.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    pub mean: f64,
    pub slope: f64,
    /// Two-sided p value of H0: slope = 0 (None when n < 3).
    pub p_value: Option<f64>,
    /// The slope's standard error (None when n < 3).
    pub slope_se: Option<f64>,
}

/// Least-squares slope of `y` against `x`, with its t test.
pub fn fit(x: &[f64], y: &[f64]) -> Fit {
    let n = x.len().min(y.len());
    let nf = n.max(1) as f64;
    let mx = x[..n].iter().sum::<f64>() / nf;
    let my = y[..n].iter().sum::<f64>() / nf;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for i in 0..n {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    if n < MIN_INTERVALS || sxx <= 0.0 {
        return Fit {
            mean: my,
            slope,
            p_value: None,
            slope_se: None,
        };
    }
    let sse: f64 = (0..n)
        .map(|i| {
            let e = y[i] - my - slope * (x[i] - mx);
            e * e
        })
        .sum();
    let df = (n - 2) as u32;
    let se = (sse / df as f64 / sxx).sqrt();
    // Residuals at rounding level: an exact line is significant unless it is flat.
    let scale = my.abs().max(slope.abs() * sxx.sqrt()).max(1e-300);
    let p = if se <= scale * 1e-12 {
        if slope.abs() <= scale * 1e-12 {
            1.0
        } else {
            0.0
        }
    } else {
        student_t_two_sided_p(slope / se, df)
    };
    Fit {
        mean: my,
        slope,
        p_value: Some(p),
        slope_se: Some(se),
    }
}

/// The two-sided critical value t with P(|T| >= t) = `alpha` for Student's t with `df` degrees
/// of freedom (bisection on `student_t_two_sided_p`, which falls as t grows).
pub fn student_t_critical(alpha: f64, df: u32) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while student_t_two_sided_p(hi, df) > alpha {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if student_t_two_sided_p(mid, df) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Two-sided p value P(|T| >= |t|) of Student's t with integer `df` >= 1, from the closed forms
/// in Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df), with theta = atan(t/sqrt(df)).
pub fn student_t_two_sided_p(t: f64, df: u32) -> f64 {
    if !t.is_finite() {
        return if t.is_nan() { 1.0 } else { 0.0 };
    }
    let nu = df.max(1);
    let theta = (t.abs() / (nu as f64).sqrt()).atan();
    let (s, c) = theta.sin_cos();
    let c2 = c * c;
    // A(t|nu) = P(|T| < |t|).
    let a = if nu % 2 == 1 {
        // 2/pi [theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ... up to cos^(nu-3))].
        let mut sum = 0.0;
        if nu > 1 {
            let mut term = 1.0;
            sum = 1.0;
            let mut k = 1;
            while 2 * k < nu - 1 {
                term *= (2 * k) as f64 / (2 * k + 1) as f64 * c2;
                sum += term;
                k += 1;
            }
            sum *= s * c;
        }
        2.0 / std::f64::consts::PI * (theta + sum)
    } else {
        // sin [1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ... up to cos^(nu-2)].
        let mut term = 1.0;
        let mut sum = 1.0;
        let mut k = 1;
        while 2 * k < nu {
            term *= (2 * k - 1) as f64 / (2 * k) as f64 * c2;
            sum += term;
            k += 1;
        }
        s * sum
    };
    (1.0 - a).clamp(0.0, 1.0)
}

/// The steady-state check over the measured system rows.
pub fn check(rows: &[SystemRow], tolerance: f64, frames_central: u64) -> SteadyState {
    let n = rows.len();
    // One critical value for every figure: they share the intervals, so the degrees of freedom.
    let t_crit = student_t_critical(ALPHA, n.saturating_sub(2).max(1) as u32);
    let x: Vec<f64> = rows
        .iter()
        .map(|r| 0.5 * (r.t_start_s + r.t_end_s))
        .collect();
    let window_s = match (rows.first(), rows.last()) {
        (Some(a), Some(b)) => b.t_end_s - a.t_start_s,
        _ => 0.0,
    };
    let figures: Vec<FigureTrend> = FIGURES
        .iter()
        .map(|&(figure, scale, get)| {
            let y: Vec<f64> = rows.iter().map(get).collect();
            let f = fit(&x, &y);
            let denom = f.mean.abs().max(floor(scale, frames_central));
            let (slope_per_min, drift_pct) = if n >= 2 {
                (
                    Some(f.slope * 60.0),
                    Some(100.0 * f.slope * window_s / denom),
                )
            } else {
                (None, None)
            };
            let drifting = match (drift_pct, f.p_value) {
                (Some(d), Some(p)) => d.abs() > 100.0 * tolerance && p < ALPHA,
                _ => false,
            };
            let detectable_pct = f.slope_se.map(|se| 100.0 * t_crit * se * window_s / denom);
            FigureTrend {
                figure,
                mean: f.mean,
                slope_per_min,
                drift_pct,
                p_value: f.p_value,
                detectable_pct,
                drifting,
            }
        })
        .collect();
    let drifting: Vec<&'static str> = figures
        .iter()
        .filter(|f| f.drifting)
        .map(|f| f.figure)
        .collect();
    let undetermined: Vec<&'static str> = figures
        .iter()
        .filter(|f| HEADLINE.contains(&f.figure) && !f.drifting)
        .filter(|f| f.detectable_pct.is_some_and(|d| d > 100.0 * tolerance))
        .map(|f| f.figure)
        .collect();
    let verdict = if n < MIN_INTERVALS {
        TOO_FEW
    } else if !drifting.is_empty() {
        DRIFTING
    } else if !undetermined.is_empty() {
        INCONCLUSIVE
    } else {
        STATIONARY
    };
    SteadyState {
        stationary: verdict == STATIONARY,
        verdict,
        intervals: n,
        tolerance_pct: 100.0 * tolerance,
        drifting,
        undetermined,
        figures,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_finite_job_has_no_drift_verdict() {
        let s = SteadyState {
            stationary: false,
            verdict: "drifting",
            intervals: 5,
            tolerance_pct: 5.0,
            drifting: vec!["throughput_tx_per_s"],
            undetermined: Vec::new(),
            figures: Vec::new(),
        }
        .finite_job();
        assert_eq!(s.verdict, FINITE_JOB);
        assert!(s.drifting.is_empty() && !s.stationary);
    }

    use super::*;
    use crate::engine::rng::Stream;

    fn rows(n: usize, mut f: impl FnMut(usize) -> (f64, u64)) -> Vec<SystemRow> {
        (0..n)
            .map(|i| {
                let (tput, dasd) = f(i);
                SystemRow {
                    interval: i as u32 + 1,
                    t_start_s: 60.0 * i as f64,
                    t_end_s: 60.0 * (i + 1) as f64,
                    throughput_tx_per_s: tput,
                    pages_dasd: dasd,
                    cpu_lpar_pct: 80.0,
                    ..Default::default()
                }
            })
            .collect()
    }

    fn figure<'a>(s: &'a SteadyState, name: &str) -> &'a FigureTrend {
        s.figures.iter().find(|f| f.figure == name).unwrap()
    }

    /// Two-sided critical values at p = 0.05 from the tables: t(0.975; 1) = 12.706, (2) 4.303,
    /// (5) 2.571, (10) 2.228, (30) 2.042.
    const T_TABLE: [(f64, u32); 5] = [
        (12.706, 1),
        (4.303, 2),
        (2.571, 5),
        (2.228, 10),
        (2.042, 30),
    ];

    #[test]
    fn t_distribution_matches_tables() {
        for (t, df) in T_TABLE {
            let p = student_t_two_sided_p(t, df);
            assert!((p - 0.05).abs() < 2e-4, "df {df}: p {p}");
        }
        assert!((student_t_two_sided_p(0.0, 7) - 1.0).abs() < 1e-12);
        // t(0.995; 9) = 3.250 -> p = 0.01.
        assert!((student_t_two_sided_p(-3.250, 9) - 0.01).abs() < 1e-4);
    }

    #[test]
    fn critical_values_match_tables() {
        for (t, df) in T_TABLE {
            let c = student_t_critical(ALPHA, df);
            assert!((c - t).abs() < 2e-3, "df {df}: {c}");
        }
    }

    #[test]
    fn three_noisy_intervals_are_inconclusive_and_more_of_them_tell() {
        // Throughput scatters by about 2 % from interval to interval, as the large-memory runs'
        // do. Over 3 intervals only a change of tens of % would show; over 12, a few %.
        let scatter = [
            0.0, 2.0, -1.5, 1.0, -2.0, 0.5, 1.5, -1.0, -0.5, 2.0, -2.0, 0.0,
        ];
        let three = check(
            &rows(3, |i| (100.0 + scatter[i], 0)),
            DEFAULT_TOLERANCE,
            1 << 20,
        );
        assert_eq!(three.verdict, INCONCLUSIVE, "{three:?}");
        assert!(!three.stationary && three.drifting.is_empty());
        assert_eq!(three.undetermined, vec!["throughput_tx_per_s"]);
        let t3 = figure(&three, "throughput_tx_per_s");
        assert!(t3.detectable_pct.unwrap() > 5.0 && !t3.drifting, "{t3:?}");
        // The detectable change is the drift whose t statistic reaches the critical value.
        let t = t3.drift_pct.unwrap() / t3.detectable_pct.unwrap() * student_t_critical(ALPHA, 1);
        let p = student_t_two_sided_p(t, 1);
        assert!((p - t3.p_value.unwrap()).abs() < 1e-9, "{p} vs {t3:?}");
        let twelve = check(
            &rows(12, |i| (100.0 + scatter[i], 0)),
            DEFAULT_TOLERANCE,
            1 << 20,
        );
        assert_eq!(twelve.verdict, STATIONARY, "{twelve:?}");
        assert!(twelve.undetermined.is_empty());
        assert!(
            figure(&twelve, "throughput_tx_per_s")
                .detectable_pct
                .unwrap()
                < 5.0
        );
        // A swinging paging rate does not make the verdict inconclusive: it is not a headline figure.
        assert!(!HEADLINE.contains(&"ms_to_xs_per_s"));
    }

    #[test]
    fn flat_series_with_noise_is_stationary() {
        let mut rng = Stream::new(7, 0);
        let noise: Vec<f64> = (0..12).map(|_| rng.uniform() - 0.5).collect();
        let r = rows(12, |i| {
            (100.0 + 4.0 * noise[i], 5_000_000 + (noise[i] * 1e4) as u64)
        });
        let s = check(&r, DEFAULT_TOLERANCE, 1 << 20);
        assert!(s.stationary, "{s:?}");
        assert_eq!(s.verdict, "stationary");
        assert!(s.drifting.is_empty());
        assert_eq!(s.intervals, 12);
        let t = figure(&s, "throughput_tx_per_s");
        assert!(t.drift_pct.unwrap().abs() < 5.0);
        assert!((t.mean - 100.0).abs() < 2.0);
    }

    #[test]
    fn a_ten_percent_ramp_drifts() {
        // Throughput falls by 10 % of its mean over the window, DASD pages grow by 10 %.
        let n = 10;
        let mut rng = Stream::new(3, 0);
        let r = rows(n, |i| {
            let x = i as f64 / (n - 1) as f64 - 0.5;
            (
                100.0 - 10.0 * x + 0.3 * (rng.uniform() - 0.5),
                (4e6 * (1.0 + 0.1 * x)) as u64,
            )
        });
        let s = check(&r, DEFAULT_TOLERANCE, 1 << 20);
        assert!(!s.stationary);
        assert_eq!(s.verdict, "drifting");
        assert_eq!(s.drifting, vec!["throughput_tx_per_s", "pages_dasd"]);
        let t = figure(&s, "throughput_tx_per_s");
        // The fit's change over the window spans n intervals, the ramp n - 1 of them.
        let want = -10.0 * n as f64 / (n - 1) as f64;
        assert!((t.drift_pct.unwrap() - want).abs() < 0.5, "{t:?}");
        assert!(t.p_value.unwrap() < 1e-6);
        assert!(t.slope_per_min.unwrap() < 0.0);
        // CPU was constant: flat, not drifting, p = 1.
        assert_eq!(figure(&s, "cpu_lpar_pct").p_value, Some(1.0));
    }

    #[test]
    fn a_looser_tolerance_accepts_the_ramp() {
        let r = rows(10, |i| (100.0 - i as f64, 0));
        assert!(!check(&r, 0.05, 1 << 20).stationary);
        assert!(check(&r, 0.2, 1 << 20).stationary);
    }

    #[test]
    fn near_zero_means_use_the_floor() {
        // 0 -> 90 pages on DASD is a large relative change of a tiny figure: not drift.
        let r = rows(10, |i| (100.0, 10 * i as u64));
        let s = check(&r, DEFAULT_TOLERANCE, 1 << 20);
        let d = figure(&s, "pages_dasd");
        assert!(d.p_value.unwrap() < 1e-6);
        assert!(!d.drifting, "{d:?}");
        assert!(s.stationary);
    }

    #[test]
    fn short_series_cannot_tell() {
        let r = rows(2, |i| (100.0 * (i + 1) as f64, 0));
        let s = check(&r, DEFAULT_TOLERANCE, 1 << 20);
        assert!(!s.stationary);
        assert_eq!(s.verdict, "too few intervals to tell");
        assert!(s.drifting.is_empty());
        assert_eq!(figure(&s, "throughput_tx_per_s").p_value, None);
        assert!(figure(&s, "throughput_tx_per_s").slope_per_min.is_some());
        let none = check(&[], DEFAULT_TOLERANCE, 1 << 20);
        assert_eq!(none.intervals, 0);
        assert_eq!(figure(&none, "throughput_tx_per_s").drift_pct, None);
    }
}
