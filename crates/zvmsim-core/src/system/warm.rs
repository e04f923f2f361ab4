//! The warm start (`run.warm_start = "ordered"`, the default): guests have run for a while
//! before measurement, so every page has been used once. Pages are referenced coldest first (page cache, other shared memory, buffer pool from
//! cold to hot, the other shared memory, kernel), interleaved across guests by segment, so that CP pages out what is
//! coldest. The priming period then lets the mechanisms settle.

use crate::cp::storage::{Access, CpWork, SEG_PAGES};

use super::{streams, Simulation};

/// Pages spread over the buffer pool have their words asked for this many pages ahead.
const WARM_PREFETCH: u32 = 16;

/// A run of pages to touch: guest pages [lo, hi), or with `anon` the resident pages of
/// anonymous pages [lo, hi); `rev` walks it from hi down.
#[derive(Clone, Copy)]
struct Seg {
    lo: u32,
    hi: u32,
    anon: bool,
    rev: bool,
    /// The run is the database's buffers in popularity order: rank k is in buffer
    /// `buffer_of_rank(k)` (`model.warm_spread_buffers`).
    by_rank: bool,
}

impl Simulation {
    /// The warm start the run asks for; `ages` are the stationary ages (empty when ordered).
    pub(super) fn warm_start(&mut self, ages: Vec<Vec<u32>>) {
        // CMMA: Linux has marked its free pages unused and its clean page cache volatile, so
        // CP reclaims those frames without paging them out while the guests warm up.
        for g in 0..self.m.guests.len() {
            self.m.guests[g].mem.initial_states();
            let mut w = crate::cp::faults::Work::default();
            self.m.apply_essa(g, &mut w);
            self.m.guests[g].stats = Default::default();
        }
        if ages.is_empty() {
            self.warm_start_ordered();
            if self.m.p.warm_shuffle_frames {
                let mut rng = crate::engine::rng::Stream::new(self.seed, streams::WARM_FRAMES);
                self.m.storage.shuffle_resident_frames(&mut rng);
            }
            if self.m.p.warm_shuffle_blocks {
                let mut rng = crate::engine::rng::Stream::new(self.seed, streams::WARM_BLOCKS);
                self.m.storage.shuffle_dasd_blocks(&mut rng);
            }
        } else {
            self.warm_start_stationary(ages);
        }
        // Both starts link pages in popularity order; z/VM 6.3's frame-owned lists are in
        // the order frames last entered them (nothing is drawn before 6.3).
        let mut rng = crate::engine::rng::Stream::new(self.seed, streams::WARM_OWNED);
        self.m.storage.shuffle_frame_owned(&mut rng);
    }

    /// Pages in popularity order, coldest first.
    fn warm_start_ordered(&mut self) {
        let mut orders: Vec<Vec<Seg>> = Vec::new();
        for (g, wl) in self.m.guests.iter().zip(&self.workloads) {
            let m = &g.mem;
            let pool = m.base + m.kernel;
            let plain = |lo, hi| Seg {
                lo,
                hi,
                anon: false,
                rev: false,
                by_rank: false,
            };
            // Page cache and free pages, then the buffer pool from cold to hot (rank i is in
            // buffer `buffer_of_rank(i)`, i itself unless spread), the other shared memory, and
            // the kernel.
            let mut segs: Vec<Seg> = m
                .file_or_free_runs()
                .into_iter()
                .map(|(lo, hi)| plain(pool + lo, pool + hi))
                .collect();
            if let Some(db) = wl.database() {
                // The other shared memory after the buffers: every transaction references one
                // of its pages, so it is as hot as the hottest buffers (before, warmed first,
                // CP paged it out and the first minutes faulted it back in: in a 5.3
                // ten-guest run with one-page blocks, 70 % of the DASD page-ins of the first
                // minute were its pages).
                segs.push(Seg {
                    lo: db.buf_start,
                    hi: db.buf_start + db.buffers,
                    anon: true,
                    rev: true,
                    by_rank: true,
                });
                segs.push(Seg {
                    lo: db.other_start,
                    hi: db.other_start + db.other,
                    anon: true,
                    rev: false,
                    by_rank: false,
                });
            } else {
                segs.push(Seg {
                    lo: 0,
                    hi: m.shm,
                    anon: true,
                    rev: false,
                    by_rank: false,
                });
            }
            segs.push(plain(m.base, m.base + m.kernel));
            segs.retain(|r| r.lo < r.hi);
            orders.push(segs);
        }
        let chunk = SEG_PAGES;
        let mut cursors: Vec<(usize, u32)> = orders
            .iter()
            .map(|r| (0usize, r.first().map(|x| x.lo).unwrap_or(0)))
            .collect();
        let mut cp = CpWork::default();
        let st = &mut self.m.storage;
        let spaces: Vec<_> = self.m.guests.iter().map(|g| g.space).collect();
        loop {
            let mut any = false;
            for (gi, segs) in orders.iter().enumerate() {
                let (si, pos) = &mut cursors[gi];
                if *si >= segs.len() {
                    continue;
                }
                any = true;
                let sg = segs[*si];
                let space = spaces[gi];
                let stop = (*pos + chunk).min(sg.hi);
                let by_rank = self.workloads[gi].database().filter(|_| sg.by_rank);
                let mem = &self.m.guests[gi].mem;
                let page_at = |k: u32| {
                    let mut at = if sg.rev { sg.lo + (sg.hi - 1 - k) } else { k };
                    if let Some(db) = by_rank {
                        at = sg.lo + db.buffer_of_rank(at - sg.lo);
                    }
                    if sg.anon {
                        mem.anon_page(at)
                    } else {
                        Some(at)
                    }
                };
                for k in *pos..stop {
                    // Spread over the buffers, the pages come at random: ask for the words
                    // ahead (a hint; results never depend on it).
                    if by_rank.is_some() && k + WARM_PREFETCH < stop {
                        if let Some(p) = page_at(k + WARM_PREFETCH) {
                            st.prefetch(space, p);
                        }
                    }
                    let Some(page) = page_at(k) else {
                        continue;
                    };
                    st.touch(space, page, Access::Write, &mut cp);
                }
                *pos = stop;
                if stop >= sg.hi {
                    *si += 1;
                    if *si < segs.len() {
                        *pos = segs[*si].lo;
                    }
                }
            }
            if !any {
                break;
            }
            st.writes.clear();
        }
        st.writes.clear();
        st.moved = Default::default();
        st.reset_cmma_counts();
    }

    /// The guests IPL: Linux turns CMMA on when booted with `cmma=on` and the ESSA instruction
    /// works, which it does when CP's SET MEMASSIST is on for the guest and for ALL (without
    /// the assist the kernel's boot test of ESSA fails and it runs without CMMA).
    pub(super) fn ipl_guests(&mut self) {
        let all = self.m.memassist_all;
        for g in &mut self.m.guests {
            g.mem.cmma = g.cmma_requested && g.memassist && all;
        }
    }
}
