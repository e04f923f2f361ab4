//! The OLTP gets' draws, made ahead in batches on the idle core.
//!
//! A get's random part (its text page, other shared page and Zipf block: `Draw`) is of a law
//! fixed at build, independent of the simulated state, and each guest draws it from a stream
//! of its own. So the sequence of a guest's draws is known in advance, and a worker thread can
//! make it while the simulation steps on the other core: the Zipf inversion and the ChaCha
//! blocks were about a tenth of a ten-guest study run's samples (docs/scale.md). The worker
//! makes each guest's batches in order from that guest's stream, so a guest gets the same
//! draws whether a worker makes them or its own thread does (`ZVMSIM_DRAW_THREAD=0`), and
//! whatever the timing: results never depend on the thread.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

use super::database::{rank_to_block, Database};
use super::oltp::Draw;
use crate::engine::rng::{Stream, Zipf};

const NONE: u32 = u32::MAX;

/// Draws a batch holds: 48 KB, about a millisecond of a busy guest's gets, so that
/// the hand-over (two channel messages) is rare and a batch still fits in the L2 cache.
const BATCH: usize = 4096;

/// The law of one buffer-pool get's draws.
#[derive(Debug, Clone)]
pub(crate) struct GetLaw {
    text_pages: u32,
    other_start: u32,
    other: u32,
    zipf: Zipf,
    perm_mult: u64,
    blocks: u32,
}

impl GetLaw {
    /// The gets of database `db` in a guest with `text_pages` pages of kernel and text.
    pub(crate) fn of(db: &Database, text_pages: u32) -> Self {
        let (zipf, perm_mult) = db.popularity();
        GetLaw {
            text_pages,
            other_start: db.other_start,
            other: db.other,
            zipf: zipf.clone(),
            perm_mult,
            blocks: db.blocks,
        }
    }

    /// One get's draws, in this order: a text page, a page of the other shared memory
    /// (NONE: none), the block (Zipf rank, then the rank-to-block permutation).
    #[inline]
    pub(super) fn sample(&self, rng: &mut Stream) -> Draw {
        let text = rng.below(self.text_pages as u64) as u32;
        let other = if self.other > 0 {
            self.other_start + rng.below(self.other as u64) as u32
        } else {
            NONE
        };
        let block = rank_to_block(self.zipf.sample(rng), self.perm_mult, self.blocks);
        Draw { text, other, block }
    }

    fn fill(&self, rng: &mut Stream, batch: &mut Vec<Draw>) {
        batch.clear();
        batch.extend((0..BATCH).map(|_| self.sample(rng)));
    }
}

/// A feed's line to the worker.
struct Link {
    /// The feed's number at the worker.
    id: u32,
    ask: Sender<Cmd>,
    /// Where its batches come (in a mutex only so that a simulation can be shared across
    /// threads, as Python's objects are; it is taken once a batch).
    batches: Mutex<Receiver<Vec<Draw>>>,
}

/// One guest's draws, handed out in the order its stream makes them.
pub(crate) struct DrawFeed {
    batch: Vec<Draw>,
    pos: usize,
    /// The law and the stream at the start of the batches the worker has not handed over:
    /// the worker makes them, and should it ever stop answering, they are made here from
    /// the same point, so the sequence stays the same.
    law: GetLaw,
    rng: Stream,
    /// Batches received from the worker and not yet skipped in `rng`.
    received: u64,
    worker: Option<Link>,
    /// The process the worker runs in: a child forked from it (Python's `fork`) has no
    /// worker, and would wait for it for ever.
    pid: u32,
}

impl DrawFeed {
    /// A feed that makes its batches on the simulating thread.
    pub(crate) fn here(law: GetLaw, rng: Stream) -> Self {
        DrawFeed {
            batch: Vec::with_capacity(BATCH),
            pos: 0,
            law,
            rng,
            received: 0,
            worker: None,
            pid: std::process::id(),
        }
    }

    /// The next get's draws.
    #[inline]
    pub(super) fn next(&mut self) -> Draw {
        if self.pos == self.batch.len() {
            self.refill();
        }
        let d = self.batch[self.pos];
        self.pos += 1;
        d
    }

    #[cold]
    fn refill(&mut self) {
        self.pos = 0;
        if self.pid != std::process::id() {
            self.pid = std::process::id();
            self.go_on_alone();
        }
        if let Some(link) = &self.worker {
            let spent = std::mem::take(&mut self.batch);
            let _ = link.ask.send(Cmd::Fill(link.id, spent));
            let got = link.batches.lock().map_or(None, |r| r.recv().ok());
            if let Some(b) = got {
                self.batch = b;
                self.received += 1;
                return;
            }
            self.go_on_alone();
        }
        self.law.fill(&mut self.rng, &mut self.batch);
    }

    /// The worker is gone: make the batches here from now on, from where its batches ended.
    fn go_on_alone(&mut self) {
        if self.worker.take().is_some() {
            for _ in 0..self.received * BATCH as u64 {
                self.law.sample(&mut self.rng);
            }
        }
    }
}

enum Cmd {
    /// A new feed: its law and stream, and where its batches go.
    Add(Box<(GetLaw, Stream, Sender<Vec<Draw>>)>),
    /// Fill this buffer with feed `id`'s next batch.
    Fill(u32, Vec<Draw>),
}

/// The thread that makes the feeds' batches. It ends when the last feed is dropped.
pub(crate) struct DrawWorker {
    tx: Option<Sender<Cmd>>,
    feeds: u32,
}

impl DrawWorker {
    /// A worker, unless `ZVMSIM_DRAW_THREAD=0` or the thread cannot start (then every feed
    /// makes its own batches).
    pub(crate) fn new() -> Self {
        let off = std::env::var("ZVMSIM_DRAW_THREAD").is_ok_and(|v| v == "0");
        DrawWorker {
            tx: if off { None } else { spawn() },
            feeds: 0,
        }
    }

    /// A feed of `law` drawn from stream `id` of the run seeded `seed`.
    pub(crate) fn feed(&mut self, law: GetLaw, seed: u64, id: u64) -> DrawFeed {
        let mut feed = DrawFeed::here(law.clone(), Stream::new(seed, id));
        let Some(tx) = &self.tx else {
            return feed;
        };
        let (out, rx) = channel();
        if tx
            .send(Cmd::Add(Box::new((law, Stream::new(seed, id), out))))
            .is_err()
        {
            return feed;
        }
        let n = self.feeds;
        self.feeds += 1;
        // Two batches asked for: one to start on, one made while it is used.
        for _ in 0..2 {
            let _ = tx.send(Cmd::Fill(n, Vec::with_capacity(BATCH)));
        }
        // The feed starts empty: its first `next` takes the first batch.
        feed.worker = Some(Link {
            id: n,
            ask: tx.clone(),
            batches: Mutex::new(rx),
        });
        feed
    }
}

fn spawn() -> Option<Sender<Cmd>> {
    let (tx, rx) = channel::<Cmd>();
    std::thread::Builder::new()
        .name("zvmsim-draws".into())
        .spawn(move || {
            let mut feeds: Vec<(GetLaw, Stream, Sender<Vec<Draw>>)> = Vec::new();
            while let Ok(cmd) = rx.recv() {
                match cmd {
                    Cmd::Add(feed) => feeds.push(*feed),
                    Cmd::Fill(id, mut batch) => {
                        let (law, rng, out) = &mut feeds[id as usize];
                        law.fill(rng, &mut batch);
                        let _ = out.send(batch);
                    }
                }
            }
        })
        .ok()?;
    Some(tx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law() -> GetLaw {
        let db = Database::new(50_000, 0, 5_000, 700, Zipf::new(50_000, 1.1), 8, vec![0]);
        GetLaw::of(&db, 300)
    }

    /// A worker (whatever `ZVMSIM_DRAW_THREAD` says), a feed of it and the same feed made
    /// without it, from stream `id` of seed `seed`.
    fn pair(seed: u64, id: u64) -> (DrawWorker, DrawFeed, DrawFeed) {
        let mut w = DrawWorker {
            tx: spawn(),
            feeds: 0,
        };
        assert!(w.tx.is_some(), "the worker started");
        let a = w.feed(law(), seed, id);
        (w, a, DrawFeed::here(law(), Stream::new(seed, id)))
    }

    /// The worker's feeds hand out exactly what feeds making their own batches do, each from
    /// its own stream, however their calls interleave.
    #[test]
    fn a_worker_changes_no_draw() {
        let (mut w, first, first_here) = pair(7, 0);
        let mut threaded = vec![first];
        threaded.extend((1..3).map(|i| w.feed(law(), 7, i)));
        let mut local = vec![first_here];
        local.extend((1..3).map(|i| DrawFeed::here(law(), Stream::new(7, i))));
        let mut order = Stream::new(1, 1);
        for n in 0..5 * BATCH * 3 {
            let f = order.below(3) as usize;
            assert_eq!(threaded[f].next(), local[f].next(), "draw {n} of feed {f}");
        }
        assert_ne!(threaded[0].next(), threaded[1].next(), "streams differ");
    }

    /// A feed whose worker has gone on makes the rest of its sequence itself, from where the
    /// worker's batches ended.
    #[test]
    fn a_feed_outlives_its_worker() {
        let (w, mut a, mut b) = pair(3, 9);
        for _ in 0..BATCH + 5 {
            assert_eq!(a.next(), b.next());
        }
        // Stand-in for a worker that stopped: the channel's other end is dropped.
        let (_, rx) = channel();
        if let Some(wk) = a.worker.as_mut() {
            wk.batches = Mutex::new(rx);
        }
        drop(w);
        for i in 0..3 * BATCH {
            assert_eq!(a.next(), b.next(), "draw {i} after the worker stopped");
        }
        assert!(a.worker.is_none(), "the feed went on by itself");
    }

    /// In a process forked from the worker's (which has no worker thread), a feed makes its
    /// batches itself rather than wait.
    #[test]
    fn a_forked_feed_makes_its_own_batches() {
        let (_w, mut a, mut b) = pair(4, 2);
        for _ in 0..BATCH {
            assert_eq!(a.next(), b.next());
        }
        a.pid = a.pid.wrapping_add(1);
        for i in 0..2 * BATCH {
            assert_eq!(a.next(), b.next(), "draw {i} in the child");
        }
        assert!(a.worker.is_none() && a.pid == std::process::id());
    }
}
