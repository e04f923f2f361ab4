//! The database's page cleaners (`[workloads.x.database] checkpoint`): without them a changed
//! buffer that the pool never replaces is never written; with them each changed buffer is
//! written at most once per round of their hand, and the system's invariants hold.

mod common;

use common::SMALL;
use zvmsim_core::system::Simulation;

/// SMALL's guests with a buffer pool that holds the whole database (48M), so that no buffer
/// is ever replaced, and the given overrides.
fn run(extra: &[&str]) -> serde_json::Map<String, serde_json::Value> {
    let mut sets: Vec<String> = vec!["workloads.db.database.size=48M".into()];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let mut sim = Simulation::from_toml(SMALL, "t.toml", None, &sets).expect("valid");
    sim.run();
    sim.check_invariants().expect("invariants");
    sim.summary()
}

fn writes(s: &serde_json::Map<String, serde_json::Value>) -> u64 {
    s["guest_db_writes"].as_u64().expect("guest_db_writes")
}

#[test]
fn cleaners_write_changed_buffers_that_are_never_replaced() {
    let none = run(&[]);
    assert_eq!(
        writes(&none),
        0,
        "no replacement, no cleaner: nothing written"
    );
    assert!(none["transactions"].as_u64().unwrap() > 100);

    // The 20 s window holds four rounds of a 5 s checkpoint (and a fifth begun): each
    // changed buffer is written at most once a round, so at most 5 × 12,288 buffers a guest.
    let cleaned = run(&["workloads.db.database.checkpoint=5s"]);
    let w = writes(&cleaned);
    let bound = 3 * 5 * (48 << 20) / 4096;
    assert!(w > 0, "changed buffers are written");
    assert!(
        w <= bound,
        "{w} writes above {bound}: a buffer written twice a round"
    );
    // Where a few hot buffers take most changes (steep skew), a checkpoint twice as long
    // writes fewer: a buffer changed many times between two passes of the hand is written
    // once.
    let hot = |c: &str| writes(&run(&["workloads.db.database.skew=3.0", c]));
    let (fast, slow) = (
        hot("workloads.db.database.checkpoint=5s"),
        hot("workloads.db.database.checkpoint=10s"),
    );
    assert!(
        slow < fast * 3 / 4,
        "{slow} writes at 10 s against {fast} at 5 s"
    );
}
