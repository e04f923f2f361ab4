//! zvmsim-bench: the benchmarks of `zvmsim bench` and the event-queue
//! comparison, kept out of the production library `zvmsim-core`
//! (development only, not published).
//!
//! * [`standard`] — the standard benchmarks of `zvmsim bench` (JSON)
//! * [`bench_event_queue`], [`compare_event_queues`] — hold-model benchmarks
//!   of the engine's event queue and of the rejected candidates
//! * [`bench_page_refs`] — CP's storage model under 2× overcommitment
//! * [`model::bench_model`] — a whole scenario, set-up and stepping timed apart
//! * [`queues`] — the event-queue candidates that were not retained
//!
//! The event-queue benchmark is the classic *hold* model: `pending` events are
//! scheduled initially; then each step pops the earliest event and schedules
//! one new event at its time plus an exponentially distributed increment
//! (mean 1 µs = 1000 ns, integer ns, so equal times do occur).  Increments come
//! from a `ChaCha8Rng` seeded with `seed`, hence every run and every candidate
//! processes exactly the same event sequence.  Event handling is a trivial
//! checksum so the optimizer cannot drop the work.  Only the hold loop is
//! timed.  Nothing here prints.

use std::hint::black_box;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use zvmsim_core::engine::queue::EventQueue;

pub mod model;
pub mod queues;

use queues::{BinaryHeapQueue, CalendarQueue, QuaternaryHeapQueue, QueueImpl, RadixHeapQueue};

/// Result of one event-queue benchmark run.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueBench {
    /// Name of the queue implementation.
    pub queue: String,
    /// Number of hold operations (pop + push) timed.
    pub events: u64,
    /// Number of pending events (constant during the hold loop).
    pub pending: usize,
    /// Wall-clock seconds of the hold loop.
    pub seconds: f64,
    /// `events / seconds`.
    pub events_per_second: f64,
}

/// Mean of the exponential time increment, in ns.
const MEAN_INCREMENT_NS: f64 = 1000.0;

/// Exponential increment (integer ns) drawn from `rng`: `-ln(1-u) * mean`
/// with `u` uniform in `[0, 1)` on 53 bits.
#[inline(always)]
fn exp_increment(rng: &mut ChaCha8Rng) -> u64 {
    let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    (-(1.0 - u).ln() * MEAN_INCREMENT_NS) as u64
}

/// Runs the hold model on queue type `Q`.
fn hold<Q: QueueImpl>(events: u64, pending: usize, seed: u64) -> QueueBench {
    let pending = pending.max(1);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut q = Q::with_capacity(pending);
    for i in 0..pending as u64 {
        let t = exp_increment(&mut rng);
        q.push(t, i);
    }
    let mut checksum = 0u64;
    let first_payload = pending as u64;
    let start = Instant::now();
    for i in 0..events {
        let Some((t, p)) = q.pop() else { break };
        checksum = checksum.rotate_left(5) ^ p ^ t;
        q.push(t + exp_increment(&mut rng), first_payload + i);
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(checksum);
    black_box(q.len());
    QueueBench {
        queue: Q::NAME.to_string(),
        events,
        pending,
        seconds,
        events_per_second: if seconds > 0.0 {
            events as f64 / seconds
        } else {
            f64::INFINITY
        },
    }
}

/// Hold-model benchmark of the engine's [`EventQueue`] (`pending` = 1000 is the
/// reference size).
pub fn bench_event_queue(events: u64, pending: usize, seed: u64) -> QueueBench {
    hold::<EventQueue>(events, pending, seed)
}

type HoldFn = fn(u64, usize, u64) -> QueueBench;

/// Every candidate, the chosen [`EventQueue`] first.
const CANDIDATES: &[HoldFn] = &[
    hold::<EventQueue>,
    hold::<BinaryHeapQueue>,
    hold::<QuaternaryHeapQueue>,
    hold::<CalendarQueue>,
    hold::<RadixHeapQueue<1>>,
    hold::<RadixHeapQueue<4>>,
    hold::<RadixHeapQueue<6>>,
    hold::<RadixHeapQueue<8>>,
];

/// Hold-model benchmark of every candidate queue, the chosen [`EventQueue`]
/// first.
pub fn compare_event_queues(events: u64, pending: usize, seed: u64) -> Vec<QueueBench> {
    CANDIDATES
        .iter()
        .map(|f| f(events, pending, seed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_smoke() {
        let b = bench_event_queue(10_000, 100, 1);
        assert_eq!(b.events, 10_000);
        assert_eq!(b.pending, 100);
        // The rate is the events over the time measured.
        assert!((b.events_per_second * b.seconds.max(1e-9) - 10_000.0).abs() < 1.0);
        let all = compare_event_queues(10_000, 100, 1);
        assert_eq!(all.len(), CANDIDATES.len());
        assert_eq!(all[0].queue, b.queue);
        // Every candidate processes the same hold-model sequence.
        assert!(all.iter().all(|c| c.events == 10_000 && c.pending == 100));
    }

    /// Release-mode comparison; run with
    /// `cargo test --release -p zvmsim-bench tests::queue_comparison -- --ignored --nocapture`.
    /// Env: `ZVMSIM_BENCH_EVENTS` (default 30e6), `ZVMSIM_BENCH_REPS` (default 3),
    /// `ZVMSIM_BENCH_PENDING` (comma list, default `10,1000,100000`),
    /// `ZVMSIM_BENCH_ONLY` (index of a single candidate).
    #[test]
    #[ignore]
    #[allow(clippy::print_stdout)]
    fn queue_comparison() {
        let events: u64 = std::env::var("ZVMSIM_BENCH_EVENTS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(30_000_000);
        let reps: usize = std::env::var("ZVMSIM_BENCH_REPS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(3);
        let pendings: Vec<usize> = std::env::var("ZVMSIM_BENCH_PENDING")
            .ok()
            .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![10, 1_000, 100_000]);
        // Cost of the PRNG + ln alone (no queue), for reference.
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut acc = 0u64;
        let start = Instant::now();
        for _ in 0..events {
            acc = acc.wrapping_add(exp_increment(&mut rng));
        }
        black_box(acc);
        let ns = start.elapsed().as_secs_f64() * 1e9 / events as f64;
        println!(
            "hold model, {events} events, best of {reps} (Mev/s); PRNG+ln alone: {ns:.1} ns/event"
        );
        let mut names: Vec<String> = Vec::new();
        let mut rows: Vec<(usize, Vec<f64>)> = Vec::new();
        for &pending in &pendings {
            let mut best: Vec<f64> = Vec::new();
            for _ in 0..reps {
                let res: Vec<QueueBench> = match std::env::var("ZVMSIM_BENCH_ONLY") {
                    Ok(i) => vec![CANDIDATES[i.parse::<usize>().unwrap_or(0)](
                        events, pending, 42,
                    )],
                    Err(_) => compare_event_queues(events, pending, 42),
                };
                names = res.iter().map(|r| r.queue.clone()).collect();
                best.resize(res.len(), 0.0);
                for (b, r) in best.iter_mut().zip(&res) {
                    *b = b.max(r.events_per_second / 1e6);
                }
            }
            rows.push((pending, best));
        }
        let mut header = format!("{:>8}", "pending");
        for n in &names {
            header.push_str(&format!(" {n:>13}"));
        }
        println!("{header}");
        for (pending, best) in rows {
            let mut line = format!("{pending:>8}");
            for b in best {
                line.push_str(&format!(" {b:>13.1}"));
            }
            println!("{line}");
        }
    }
}

/// Result of the storage-model benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRefBench {
    pub frames: u64,
    pub guest_pages: u64,
    pub refs: u64,
    pub faults_dasd: u64,
    pub seconds: f64,
    pub refs_per_second: f64,
}

/// CP's real storage under 2× overcommitment: guest pages twice the central frames, every page
/// touched once, then a skewed stream of references (Zipf 1.2 over all guest pages, a miss rate
/// of about 2 %), 30 % writes.
/// DASD page-ins complete at once (the benchmark times the storage model, not the devices).
pub fn bench_page_refs(frames: u32, refs: u64, seed: u64) -> PageRefBench {
    use zvmsim_core::config::params::ModelParams;
    use zvmsim_core::config::scenario::ZvmLevel;
    use zvmsim_core::cp::storage::{Access, CpWork, Owner, SpaceId, SpaceSpec, Storage, Touch};
    use zvmsim_core::engine::rng::{Stream, Zipf};

    let params = ModelParams::default();
    let guests = 8u32;
    let per_guest = (frames / 4) & !255;
    let pages = per_guest * guests;
    let slots = pages as u64 * 2;
    let mut st = Storage::new(
        ZvmLevel::V5R3,
        &params,
        frames,
        frames / 64,
        frames / 16,
        &[slots / 4, slots / 4, slots / 4, slots / 4],
        // The guests' storage as one address space: the benchmark times references, and a
        // reference costs the same in any space.
        &[SpaceSpec {
            owner: Owner::Guest(0),
            pages,
        }],
    );
    let sp = st.space(SpaceId(0));
    let mut cp = CpWork::default();
    for p in 0..pages {
        st.touch(sp, p, Access::Write, &mut cp);
        st.writes.clear();
    }
    let mut rng = Stream::new(seed, 77);
    let zipf = Zipf::new(pages as u64, 1.2);
    let mult = (2_654_435_761u64 % pages as u64) | 1;
    let mut faults = 0u64;
    let start = Instant::now();
    for _ in 0..refs {
        let page = ((zipf.sample(&mut rng) * mult) % pages as u64) as u32;
        let write = rng.below(10) < 3;
        if let Touch::OnDasd { group } = st.touch(sp, page, Access::write(write), &mut cp) {
            faults += 1;
            st.complete_pagein(group, &mut cp);
            st.touch(sp, page, Access::write(write), &mut cp);
        }
        st.writes.clear();
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(cp.ns);
    PageRefBench {
        frames: frames as u64,
        guest_pages: pages as u64,
        refs,
        faults_dasd: faults,
        seconds,
        refs_per_second: refs as f64 / seconds.max(1e-9),
    }
}

/// The standard benchmarks of `zvmsim bench`: the engine's event queue on the hold model and
/// the storage model's references under 2× overcommitment.
pub fn standard(quick: bool) -> serde_json::Value {
    let (events, frames, refs) = if quick {
        (5_000_000, 1 << 20, 5_000_000)
    } else {
        (50_000_000, 5 << 20, 50_000_000)
    };
    let q = bench_event_queue(events, 1_000, 1);
    let r = bench_page_refs(frames, refs, 1);
    serde_json::json!({
        "version": zvmsim_core::VERSION,
        "events_per_second": q.events_per_second,
        "queue": q.queue,
        "queue_events": q.events,
        "queue_pending": q.pending,
        "page_refs_per_second": r.refs_per_second,
        "page_refs": r.refs,
        "page_refs_frames": r.frames,
        "page_refs_guest_pages": r.guest_pages,
        "page_refs_dasd_faults": r.faults_dasd,
        "page_refs_zipf_skew": 1.2,
        "quick": quick,
    })
}
