//! Drawing each OLTP user's gets ahead (`oltp.rs`, docs/scale.md "Gets drawn ahead") keeps the
//! law of the gets. A guest's users take their gets from one stream (since 2026-11-28 the
//! gets' own, `workload/draws.rs`; before, the guest's, which think times, transaction types
//! and write decisions share), in an order the simulated state decides; so drawing four gets
//! early hands different draws to different users and the runs differ. What stays is the
//! law: each draw is of a fixed law (uniform text page, uniform other shared page, Zipf block)
//! whatever the state, so which user takes which draw does not matter. Shown two ways:
//! exactly, for one user alone on its stream (the queue hands out the gets in the order they
//! were drawn); and statistically, for users sharing a stream with the other decisions too
//! (the harder case), state-dependent interleaving and gets resumed after a page fault,
//! against a deliberately skewed sampler as negative control.

use super::database::Database;
use super::draws::GetLaw;
use super::oltp::{advance, Draw, AHEAD, NO_DRAW};
use crate::engine::rng::{Stream, Zipf};

const TEXT: u32 = 4_000;
const OTHER: u32 = 16_000;
const BLOCKS: u32 = 200_000;
const BUFFERS: u32 = 20_000;
const USERS: usize = 8;
const GETS: usize = 300_000;
const SKEW: f64 = 0.9;

fn database(skew: f64) -> Database {
    let zipf = Zipf::new(BLOCKS as u64, skew);
    Database::new(BLOCKS, 0, BUFFERS, OTHER, zipf, 8, vec![0])
}

#[test]
fn one_user_alone_gets_exactly_the_on_demand_sequence() {
    let law = GetLaw::of(&database(SKEW), TEXT);
    let (mut a, mut b) = (Stream::new(5, 3), Stream::new(5, 3));
    let mut ahead = [NO_DRAW; AHEAD];
    for i in 0..20_000 {
        let got = advance(&mut ahead, || law.sample(&mut a));
        let want = law.sample(&mut b);
        assert_eq!(got, want, "get {i}");
    }
}

/// Users sharing one stream, as a guest's do: the one due first runs one get (a transaction
/// type drawn at its start); a get whose text or other page is not resident faults (the page
/// comes in, a random one leaves) and the same get runs when the user runs next, as
/// `Phase::Touch` resumes it; a hit draws its write decision, a miss replaces a buffer; the
/// time to the user's next get depends on hit or miss and, after a transaction, on a drawn
/// think time. Returns each user's gets, in order.
fn run(ahead_draws: bool, skew: f64) -> Vec<Vec<Draw>> {
    let mut db = database(skew);
    let law = GetLaw::of(&db, TEXT);
    let mut rng = Stream::new(1, 9);
    let mut ahead = vec![[NO_DRAW; AHEAD]; USERS];
    let (mut due, mut refs) = (vec![0u64; USERS], vec![0u32; USERS]);
    let mut text_in: Vec<bool> = (0..TEXT).map(|p| p % 2 == 0).collect();
    let mut other_in: Vec<bool> = (0..OTHER).map(|p| p % 2 == 0).collect();
    let mut gets = vec![Vec::new(); USERS];
    let mut pending: Vec<Option<Draw>> = vec![None; USERS];
    let mut made = 0;
    while made < GETS {
        let u = (0..USERS).min_by_key(|&u| (due[u], u)).expect("users");
        if refs[u] == 0 {
            refs[u] = if rng.uniform() < 0.4 { 5 } else { 20 };
        }
        let d = match pending[u].take() {
            Some(d) => d,
            None if ahead_draws => advance(&mut ahead[u], || law.sample(&mut rng)),
            None => law.sample(&mut rng),
        };
        let o = (d.other - db.other_start) as usize;
        let fault = if !text_in[d.text as usize] {
            text_in[d.text as usize] = true;
            text_in[rng.below(TEXT as u64) as usize] = false;
            true
        } else if !other_in[o] {
            other_in[o] = true;
            other_in[rng.below(OTHER as u64) as usize] = false;
            true
        } else {
            false
        };
        if fault {
            pending[u] = Some(d);
            due[u] += rng.exp_ns(50_000);
            continue;
        }
        let step = match db.lookup(d.block) {
            Some(_) => {
                if rng.chance(0.3) {
                    db.set_dirty(d.block);
                }
                10_000
            }
            None => {
                db.replace(d.block);
                300_000
            }
        };
        gets[u].push(d);
        made += 1;
        refs[u] -= 1;
        due[u] += if refs[u] == 0 {
            rng.exp_ns(2_000_000)
        } else {
            step
        };
    }
    gets
}

/// The statistics compared: bins of block popularity rank (powers of two), of text page, of
/// other page (20 each), of (text, rank) within a get, and of (rank, rank) of a user's two
/// consecutive gets (coarse 4 x 4: the sequence, not only the marginals).
fn histograms(gets: &[Vec<Draw>], db: &Database) -> [Vec<u64>; 5] {
    let mut rank = vec![0u32; BLOCKS as usize];
    for r in 0..BLOCKS {
        rank[db.block_of_rank(r as u64) as usize] = r;
    }
    let fine = |d: &Draw| (31 - (rank[d.block as usize] + 1).leading_zeros()) as usize;
    let coarse = |d: &Draw| match rank[d.block as usize] {
        0..=15 => 0,
        16..=1023 => 1,
        1024..=32767 => 2,
        _ => 3,
    };
    let mut h = [
        vec![0; 18],
        vec![0; 20],
        vec![0; 20],
        vec![0; 16],
        vec![0; 16],
    ];
    for seq in gets {
        for (i, d) in seq.iter().enumerate() {
            h[0][fine(d)] += 1;
            h[1][(d.text * 20 / TEXT) as usize] += 1;
            h[2][((d.other - db.other_start) * 20 / OTHER) as usize] += 1;
            h[3][(d.text * 4 / TEXT) as usize * 4 + coarse(d)] += 1;
            if i > 0 {
                h[4][coarse(&seq[i - 1]) * 4 + coarse(d)] += 1;
            }
        }
    }
    h
}

/// Two-sample chi-square homogeneity statistic and its degrees of freedom.
fn chi2(a: &[u64], b: &[u64]) -> (f64, f64) {
    let (na, nb) = (a.iter().sum::<u64>() as f64, b.iter().sum::<u64>() as f64);
    let (ka, kb) = ((nb / na).sqrt(), (na / nb).sqrt());
    let mut stat = 0.0;
    let mut cells = 0.0;
    for (&x, &y) in a.iter().zip(b) {
        if x + y > 0 {
            let d = x as f64 * ka - y as f64 * kb;
            stat += d * d / (x + y) as f64;
            cells += 1.0;
        }
    }
    (stat, cells - 1.0)
}

/// The chi-square quantile with `df` degrees of freedom that a true null exceeds with
/// probability 1e-6 (Wilson-Hilferty; z = 4.753 is the normal's upper 1e-6 point): the
/// threshold is strict about false alarms, and the negative control shows it still has power.
fn critical(df: f64) -> f64 {
    let c = 2.0 / (9.0 * df);
    df * (1.0 - c + 4.753 * c.sqrt()).powi(3)
}

#[test]
fn drawing_ahead_keeps_the_law_of_each_users_gets() {
    let db = database(SKEW);
    let ahead = run(true, SKEW);
    let demand = run(false, SKEW);
    assert_ne!(ahead, demand, "the random numbers went to other uses");
    let (ha, hd) = (histograms(&ahead, &db), histograms(&demand, &db));
    let names = [
        "rank",
        "text page",
        "other page",
        "text x rank",
        "rank then rank",
    ];
    for (i, name) in names.iter().enumerate() {
        let (stat, df) = chi2(&ha[i], &hd[i]);
        assert!(
            stat < critical(df),
            "{name}: chi2 {stat:.1} on {df} df over {:.1}",
            critical(df)
        );
    }
    // Negative control: a sampler whose Zipf exponent is 0.92 instead of 0.9 is told apart.
    let skewed = histograms(&run(true, 0.92), &db);
    let (stat, df) = chi2(&skewed[0], &hd[0]);
    assert!(
        stat > critical(df),
        "skewed sampler not detected: chi2 {stat:.1} on {df} df"
    );
}
