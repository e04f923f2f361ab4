//! Every candidate, and the chosen [`EventQueue`], against one reference model.

use super::*;
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::BTreeMap;

/// Reference model: BTreeMap keyed by (time, insertion index).
#[derive(Default)]
struct Reference {
    map: BTreeMap<(u64, u64), u64>,
    seq: u64,
}

impl Reference {
    fn push(&mut self, t: u64, p: u64) {
        self.map.insert((t, self.seq), p);
        self.seq += 1;
    }
    fn pop(&mut self) -> Option<(u64, u64)> {
        self.map.pop_first().map(|((t, _), p)| (t, p))
    }
    fn peek_time(&self) -> Option<u64> {
        self.map.first_key_value().map(|(k, _)| k.0)
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    /// push at last-popped time + delta
    Push(u64),
    Pop,
    Clear,
}

/// Applies `ops` to `Q` and to the reference model, checking every
/// observable result.
fn check_against_reference<Q: QueueImpl>(ops: &[Op], cap: usize) {
    let mut q = Q::with_capacity(cap);
    let mut r = Reference::default();
    let mut now = 0u64;
    let mut payload = 0u64;
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Push(d) => {
                q.push(now.saturating_add(d), payload);
                r.push(now.saturating_add(d), payload);
                payload += 1;
            }
            Op::Pop => {
                let got = q.pop();
                let want = r.pop();
                assert_eq!(got, want, "{}: pop mismatch at op {i}", Q::NAME);
                if let Some((t, _)) = want {
                    now = t;
                }
            }
            Op::Clear => {
                q.clear();
                r = Reference::default();
                now = 0;
            }
        }
        assert_eq!(q.len(), r.map.len(), "{}: len at op {i}", Q::NAME);
        assert_eq!(q.is_empty(), r.map.is_empty(), "{}: is_empty", Q::NAME);
        assert_eq!(q.peek_time(), r.peek_time(), "{}: peek at op {i}", Q::NAME);
    }
    // drain
    loop {
        let got = q.pop();
        let want = r.pop();
        assert_eq!(got, want, "{}: pop mismatch while draining", Q::NAME);
        if want.is_none() {
            break;
        }
    }
}

fn check_all(ops: &[Op], cap: usize) {
    check_against_reference::<EventQueue>(ops, cap);
    check_against_reference::<BinaryHeapQueue>(ops, cap);
    check_against_reference::<QuaternaryHeapQueue>(ops, cap);
    check_against_reference::<CalendarQueue>(ops, cap);
    check_against_reference::<RadixHeapQueue<1>>(ops, cap);
    check_against_reference::<RadixHeapQueue<2>>(ops, cap);
    check_against_reference::<RadixHeapQueue<3>>(ops, cap);
    check_against_reference::<RadixHeapQueue<4>>(ops, cap);
    check_against_reference::<RadixHeapQueue<5>>(ops, cap);
    check_against_reference::<RadixHeapQueue<6>>(ops, cap);
    check_against_reference::<RadixHeapQueue<7>>(ops, cap);
    check_against_reference::<RadixHeapQueue<8>>(ops, cap);
}

/// Random monotone workload with many equal times, phases of growth and
/// shrinkage, and a few far-future events.
fn random_ops(seed: u64, n: usize) -> Vec<Op> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ops = Vec::with_capacity(n);
    let mut pending = 0usize;
    for i in 0..n {
        let phase = (i / 2000) % 3; // grow, steady, shrink
        let push_pct = match phase {
            0 => 70,
            1 => 50,
            _ => 30,
        };
        let r = rng.next_u64();
        if r % 100 < push_pct || pending == 0 {
            let kind = (r >> 8) % 100;
            let d = match kind {
                0..=29 => 0,                                    // same time as now
                30..=49 => rng.next_u64() % 4,                  // near-ties
                50..=79 => rng.next_u64() % 2000,               // ~µs scale
                80..=94 => rng.next_u64() % 1_000_000,          // ~ms scale
                95..=98 => rng.next_u64() % 10_000_000_000_000, // up to 1e13 ns
                _ => rng.next_u64() >> (rng.next_u64() % 64),   // anything
            };
            ops.push(Op::Push(d));
            pending += 1;
        } else {
            ops.push(Op::Pop);
            pending -= 1;
        }
    }
    ops
}

#[test]
fn all_candidates_match_reference_random() {
    for seed in 0..12 {
        let ops = random_ops(seed, 20_000);
        check_all(&ops, (seed as usize) * 100);
    }
}

#[test]
fn all_candidates_match_reference_many_equal_times() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut ops = Vec::new();
    for _ in 0..30_000 {
        let r = rng.next_u64();
        if r % 5 < 3 {
            ops.push(Op::Push(rng.next_u64() % 3));
        } else {
            ops.push(Op::Pop);
        }
    }
    check_all(&ops, 16);
}

#[test]
fn all_candidates_fifo_and_clear() {
    let mut ops = Vec::new();
    for _ in 0..100 {
        ops.push(Op::Push(7));
    }
    for _ in 0..100 {
        ops.push(Op::Push(0));
    }
    for _ in 0..50 {
        ops.push(Op::Pop);
    }
    ops.push(Op::Push(0));
    ops.push(Op::Push(u64::MAX));
    for _ in 0..120 {
        ops.push(Op::Pop);
    }
    ops.push(Op::Clear);
    for d in [5, 5, 1, 1, 0, 9, 5] {
        ops.push(Op::Push(d));
    }
    ops.push(Op::Pop);
    ops.push(Op::Clear);
    ops.push(Op::Pop);
    ops.push(Op::Push(3));
    check_all(&ops, 0);
}

/// Hold model (as in the benchmark): all candidates produce the same
/// event sequence.
#[test]
fn all_candidates_agree_on_hold_model() {
    fn run<Q: QueueImpl>(pending: usize) -> Vec<(u64, u64)> {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut exp = || {
            let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            (-(1.0 - u).ln() * 1000.0) as u64
        };
        let mut q = Q::with_capacity(pending);
        for i in 0..pending as u64 {
            q.push(exp(), i);
        }
        let mut out = Vec::new();
        for i in 0..20_000u64 {
            let (t, p) = q.pop().unwrap_or_default();
            out.push((t, p));
            q.push(t + exp(), p ^ i);
        }
        out
    }
    for pending in [1, 10, 1000, 5000] {
        let a = run::<EventQueue>(pending);
        assert_eq!(a, run::<BinaryHeapQueue>(pending));
        assert_eq!(a, run::<QuaternaryHeapQueue>(pending));
        assert_eq!(a, run::<CalendarQueue>(pending));
        assert_eq!(a, run::<RadixHeapQueue<1>>(pending));
        assert_eq!(a, run::<RadixHeapQueue<4>>(pending));
        assert_eq!(a, run::<RadixHeapQueue<6>>(pending));
        assert_eq!(a, run::<RadixHeapQueue<8>>(pending));
    }
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Push(0)),
        3 => (0u64..4).prop_map(Op::Push),
        3 => (0u64..100_000).prop_map(Op::Push),
        1 => any::<u64>().prop_map(|x| Op::Push(x >> 20)),
        1 => any::<u64>().prop_map(Op::Push),
        8 => Just(Op::Pop),
        1 => Just(Op::Clear),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn prop_all_candidates_match_reference(
        ops in proptest::collection::vec(op_strategy(), 0..400),
        cap in 0usize..64,
    ) {
        check_all(&ops, cap);
    }
}
