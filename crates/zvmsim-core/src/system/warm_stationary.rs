//! The stationary warm start (`run.warm_start = "stationary"`): the guests have run for a
//! long time before measurement. Every page the
//! workload uses gets its time since its last reference in the workload's stationary state
//! (`workload::database::steady`), and CP sees the pages touched in that order, oldest first,
//! interleaved across guests, so that its frames, XSTOR and DASD hold what its page selection
//! would leave there. Pages not referenced in the stationary state (free pages, pages the
//! workload never touches) come first. The priming period then lets the mechanisms settle.

use crate::cp::storage::NONE;
use crate::cp::storage::{Access, CpWork, SEG_PAGES};
use crate::engine::rng::Stream;
use crate::linux::memory::LinuxMemory;
use crate::workload::database::steady::{
    age_bucket, age_of, rate_bucket, rate_of, unit_exp, Stationary, AGE_NEVER,
};
use crate::workload::database::Database;

use super::{streams, Simulation};

/// Per guest page, packed: age bucket (high 16 bits), whether the workload writes the page
/// (bit 15) and its reference rate bucket (low 15 bits). NOT_TOUCHED: a page the warm start
/// leaves alone (an anonymous page on swap, a balloon page).
const NOT_TOUCHED: u32 = u32::MAX;
const WRITTEN: u32 = 1 << 15;

#[inline]
fn pack(age: u16, rate: f64, written: bool) -> u32 {
    (age as u32) << 16 | if written { WRITTEN } else { 0 } | rate_bucket(rate) as u32
}

/// Each guest page's place in the stationary state: how long since its last reference, how
/// often it is referenced and whether the workload writes it.
pub(super) fn stationary_ages(
    mem: &LinuxMemory,
    db: Option<(&Database, &Stationary)>,
    rng: &mut Stream,
) -> Vec<u32> {
    let mut age = vec![NOT_TOUCHED; (mem.base + mem.pages) as usize];
    for (lo, hi) in mem.file_or_free_runs() {
        for i in lo..hi {
            age[mem.pool_global(i) as usize] = pack(AGE_NEVER, 0.0, false);
        }
    }
    let kernel = mem.base..mem.base + mem.kernel;
    match db {
        Some((db, st)) => {
            // Each get executes one of the kernel's text pages and writes one page of the
            // other shared memory, both uniformly: gets since the last reference of one of n
            // such pages are exponential with mean n.
            let n = mem.kernel.max(1) as f64;
            for p in kernel {
                age[p as usize] = pack(age_bucket(unit_exp(rng) * n), 1.0 / n, false);
            }
            let n = db.other.max(1) as f64;
            for v in db.other_start..db.other_start + db.other {
                if let Some(p) = mem.anon_page(v) {
                    age[p as usize] = pack(age_bucket(unit_exp(rng) * n), 1.0 / n, true);
                }
            }
            for (i, &(_, b, r)) in st.buffers.iter().enumerate() {
                if let Some(p) = mem.anon_page(db.buf_start + i as u32) {
                    age[p as usize] = pack(b, rate_of(r), true);
                }
            }
            // A page-cache page is written when the block is read into it, then only read.
            for &(block, b, r) in &st.cache {
                if let Some(p) = mem.cached_page(block) {
                    age[p as usize] = pack(b, rate_of(r), false);
                }
            }
        }
        None => {
            // No popularity law: shared memory in page order, the kernel hottest.
            for v in 0..mem.shm {
                if let Some(p) = mem.anon_page(v) {
                    age[p as usize] = pack(AGE_NEVER - 1, 0.0, true);
                }
            }
            for p in kernel {
                age[p as usize] = pack(0, 0.0, false);
            }
        }
    }
    age
}

#[inline]
fn age_part(v: u32) -> u16 {
    (v >> 16) as u16
}

/// Pages by age bucket, oldest first, and where each bucket starts (bucket k of the list is
/// age AGE_NEVER - k).
fn by_age(age: &[u32]) -> (Vec<u32>, Vec<usize>) {
    let n = AGE_NEVER as usize + 1;
    let mut start = vec![0usize; n + 1];
    for &a in age {
        if a != NOT_TOUCHED {
            start[(AGE_NEVER - age_part(a)) as usize + 1] += 1;
        }
    }
    for k in 1..=n {
        start[k] += start[k - 1];
    }
    let mut next = start.clone();
    let mut pages = vec![0u32; start[n]];
    for (p, &a) in age.iter().enumerate() {
        if a != NOT_TOUCHED {
            let k = (AGE_NEVER - age_part(a)) as usize;
            pages[next[k]] = p as u32;
            next[k] += 1;
        }
    }
    (pages, start)
}

/// Gets since the last reference at which the youngest `count` touched pages end.
fn age_at_count(lists: &[(Vec<u32>, Vec<usize>)], count: u64) -> f64 {
    let mut seen = 0u64;
    for k in (0..=AGE_NEVER as usize).rev() {
        seen += lists
            .iter()
            .map(|(_, s)| (s[k + 1] - s[k]) as u64)
            .sum::<u64>();
        if seen >= count {
            return age_of(AGE_NEVER - k as u16);
        }
    }
    f64::INFINITY
}

impl Simulation {
    pub(super) fn warm_start_stationary(&mut self, ages: Vec<Vec<u32>>) {
        let lists: Vec<(Vec<u32>, Vec<usize>)> = ages.iter().map(|a| by_age(a)).collect();
        let mut cp = CpWork::default();
        let st = &mut self.m.storage;
        st.shuffle_available(&mut Stream::new(self.seed, streams::STATIONARY_FRAMES));
        let spaces: Vec<_> = self.m.guests.iter().map(|g| g.space).collect();
        let chunk = SEG_PAGES as usize;
        for k in 0..=AGE_NEVER as usize {
            // Within a bucket the guests take turns, a segment's worth of pages at a time.
            let mut at: Vec<usize> = lists.iter().map(|(_, s)| s[k]).collect();
            loop {
                let mut any = false;
                for (g, (pages, start)) in lists.iter().enumerate() {
                    let end = start[k + 1];
                    if at[g] >= end {
                        continue;
                    }
                    any = true;
                    let stop = (at[g] + chunk).min(end);
                    for &p in &pages[at[g]..stop] {
                        st.touch(spaces[g], p, Access::Write, &mut cp);
                    }
                    at[g] = stop;
                }
                if !any {
                    break;
                }
                // The warm start places pages; their page-out writes are not simulated.
                st.writes.clear();
            }
        }
        st.writes.clear();
        // Kept slots. A page stays resident while its references come closer than the age
        // at which CP steals (t_res); when a gap exceeds it, the page leaves, and if the gap
        // also exceeds the age at which pages leave XSTOR (t_dasd) it comes back from DASD
        // and keeps that slot (even if later changed: a stale slot is released only when the
        // page is written elsewhere). For references at rate r, a gap longer than t_res is
        // longer than t_dasd with probability exp(-r (t_dasd - t_res)): that is the chance a
        // resident page holds a slot. Starting without them, DASD slots in use grew by a
        // quarter over the first 15 minutes of the ten-guest 5.3 run.
        let t_res = age_at_count(&lists, st.resident());
        let t_dasd = age_at_count(&lists, st.resident() + st.on_xstor());
        // Without KEEPSLOT a page read back gives up its slot at once, and without stale
        // slots a changed page gives up its own: the stationary state has none of those.
        let (keep_read, keep_stale) = st.slot_retention();
        let span = if keep_read {
            (t_dasd - t_res).max(0.0)
        } else {
            f64::INFINITY
        };
        // After a history of H seconds a page has left central storage at least once with
        // probability 1 - exp(-H r exp(-r t_res)) (gaps longer than t_res come at that rate).
        let history = self.scenario.run.warm_history.map(|d| d.ns() as f64 / 1e9);
        let mut rng = Stream::new(self.seed, streams::STATIONARY_KEPT);
        for (g, (pages, _)) in lists.iter().enumerate() {
            let mut kept: Vec<(u32, bool)> = Vec::new();
            for &p in pages {
                let v = ages[g][p as usize];
                if !st.is_resident(spaces[g].id, p) || st.page_slot(spaces[g].id, p) != NONE {
                    continue;
                }
                let rate = rate_of((v & (WRITTEN - 1)) as u16);
                if !keep_stale && v & WRITTEN != 0 {
                    continue;
                }
                let left_once =
                    history.map_or(1.0, |h| -(-h * rate * (-rate * t_res).exp()).exp_m1());
                if span.is_finite() && rng.chance(left_once * (-rate * span).exp()) {
                    kept.push((p, v & WRITTEN != 0));
                }
            }
            // Block-mates were stolen together, not pages of equal age: random order.
            for i in (1..kept.len()).rev() {
                kept.swap(i, rng.below(i as u64 + 1) as usize);
            }
            st.warm_kept_slots(spaces[g].id, &kept);
        }
        st.writes.clear();
        st.moved = Default::default();
        st.reset_cmma_counts();
    }
}
