//! The real-I/O stage's typed flow counters and its invariants. Each request is counted by the
//! kind of its origin when CP or a guest hands it to a subchannel (submitted), when its channel
//! program starts (started) and when it ends (completed), in requests and bytes; the check
//! compares those with what the subchannels, channel paths and storage server hold and did.

use super::request::Origin;
use super::IoSystem;

/// Requests and the bytes they move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    pub reqs: u64,
    pub bytes: u64,
}

impl Count {
    #[inline]
    pub fn add(&mut self, pages: u32) {
        self.reqs += 1;
        self.bytes += pages as u64 * 4096;
    }

    pub fn minus(self, o: Count) -> Option<Count> {
        Some(Count {
            reqs: self.reqs.checked_sub(o.reqs)?,
            bytes: self.bytes.checked_sub(o.bytes)?,
        })
    }

    pub fn plus(self, o: Count) -> Count {
        Count {
            reqs: self.reqs + o.reqs,
            bytes: self.bytes + o.bytes,
        }
    }
}

/// The origin kinds, in `Origin`'s order.
pub(super) const KINDS: [&str; 8] = [
    "db read",
    "db write",
    "page-in",
    "page-out",
    "swap read",
    "swap write",
    "guest DASD",
    "spool",
];

/// Index of `o`'s kind in `KINDS`.
#[inline]
pub(super) fn kind(o: &Origin) -> usize {
    match o {
        Origin::DbRead { .. } => 0,
        Origin::DbWrite => 1,
        Origin::PageIn { .. } => 2,
        Origin::PageOut => 3,
        Origin::SwapRead { .. } => 4,
        Origin::SwapWrite => 5,
        Origin::Dasd { .. } => 6,
        Origin::Spool { .. } => 7,
    }
}

/// Per origin kind: requests handed to the real-I/O stage, started on a subchannel, ended.
#[derive(Debug, Clone, Copy, Default)]
pub struct TypedFlow {
    pub submitted: [Count; 8],
    pub started: [Count; 8],
    pub completed: [Count; 8],
    /// Started on a staged volume (through a channel path to the storage server).
    pub staged: Count,
}

impl IoSystem {
    /// The invariants: one channel program per subchannel, each on the subchannel it names;
    /// an alias runs only requests of bases it serves (its own LCU); every request in flight
    /// is active or queued exactly once; per origin kind, requests and bytes submitted =
    /// completed + in flight and started = completed + active; the subchannels, channel paths
    /// and storage server counted exactly the started requests and bytes.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = 0usize;
        let mut pages = 0u64;
        let mut queued = [Count::default(); 8];
        let mut active = [Count::default(); 8];
        let mut staged_active = 0u64;
        for (i, s) in self.subs.iter().enumerate() {
            if let Some(id) = s.busy {
                let r = self.requests.get(id);
                if r.sub as usize != i {
                    return Err(format!(
                        "{:04X}: active request names another subchannel",
                        s.rdev
                    ));
                }
                if i as u32 != r.device {
                    let base = &self.subs[r.device as usize];
                    if !s.serves(r.device, base.lcu) {
                        return Err(format!(
                            "alias {:04X} runs a request of base {:04X} it does not serve",
                            s.rdev, base.rdev
                        ));
                    }
                }
                seen += 1;
                pages += r.pages as u64;
                active[kind(&r.origin)].add(r.pages);
                staged_active += (self.vol_of[r.device as usize] != super::NONE) as u64;
            }
            for &q in &s.queue {
                if s.busy == Some(q) {
                    return Err(format!("{:04X}: a request both queued and active", s.rdev));
                }
                seen += 1;
                let r = self.requests.get(q);
                pages += r.pages as u64;
                queued[kind(&r.origin)].add(r.pages);
            }
        }
        if seen != self.requests.in_flight() {
            return Err(format!(
                "{seen} requests active or queued, {} in flight",
                self.requests.in_flight()
            ));
        }
        let f = &self.flow;
        if f.submitted != f.completed + seen as u64 || f.pages_in != f.pages_out + pages {
            return Err(format!(
                "requests or pages not conserved: {f:?}, {pages} in flight"
            ));
        }
        let t = &self.typed;
        let mut started = Count::default();
        for (k, name) in KINDS.iter().enumerate() {
            let flight = active[k].plus(queued[k]);
            if t.submitted[k].minus(t.completed[k]) != Some(flight) {
                return Err(format!(
                    "{name}: submitted {:?}, completed {:?}, in flight {flight:?}",
                    t.submitted[k], t.completed[k]
                ));
            }
            if t.started[k].minus(t.completed[k]) != Some(active[k]) {
                return Err(format!(
                    "{name}: started {:?}, completed {:?}, active {:?}",
                    t.started[k], t.completed[k], active[k]
                ));
            }
            started = started.plus(t.started[k]);
        }
        self.check_stages(started, staged_active)
    }

    /// What the subchannels, channel paths and storage server counted against the requests
    /// started (`started`), of which `staged_active` still run on staged volumes.
    fn check_stages(&self, started: Count, staged_active: u64) -> Result<(), String> {
        let (ios, sub_pages) = self
            .subs
            .iter()
            .fold((0, 0), |(n, p), s| (n + s.stats.ios, p + s.stats.pages));
        if (ios, sub_pages * 4096) != (started.reqs, started.bytes) {
            return Err(format!(
                "subchannels ran {ios} channel programs of {sub_pages} pages, {started:?} started"
            ));
        }
        let staged = self.typed.staged;
        let (Some(sv), true) = (self.server.staged.as_ref(), staged.reqs > 0) else {
            return Ok(());
        };
        // Each staged channel program holds one open exchange on its path while it runs,
        // moves its data once over the link, and is one read or write at the server.
        let chans = [self.chans.as_ref(), self.fcp_chans.as_ref()];
        let open: u64 = chans
            .iter()
            .flatten()
            .map(|c| c.open_exchanges() as u64)
            .sum();
        let link = chans
            .iter()
            .flatten()
            .flat_map(|c| c.stats())
            .fold(Count::default(), |a, s| {
                a.plus(Count {
                    reqs: s.ios,
                    bytes: s.bytes,
                })
            });
        let server = Count {
            reqs: sv.stats.reads + sv.stats.writes,
            bytes: sv.stats.read_bytes + sv.stats.write_bytes,
        };
        if open != staged_active || link != staged || server != staged {
            return Err(format!(
                "staged {staged:?} ({staged_active} running): links {link:?} with {open} open \
                 exchanges, server {server:?}"
            ));
        }
        Ok(())
    }
}

impl IoSystem {
    /// The requests in flight, running or queued (for checks: not fast).
    pub fn in_flight_requests(&self) -> Vec<super::IoRequest> {
        let mut v = Vec::with_capacity(self.requests.in_flight());
        for s in &self.subs {
            let ids = s.busy.iter().chain(s.queue.iter());
            v.extend(ids.map(|&id| *self.requests.get(id)));
        }
        v
    }
}

#[cfg(test)]
impl IoSystem {
    /// The staged server's counters, for tests that corrupt them on purpose.
    pub(crate) fn server_stats_mut(&mut self) -> &mut super::server::ServerStats {
        &mut self.server.staged.as_mut().expect("staged server").stats
    }
}
