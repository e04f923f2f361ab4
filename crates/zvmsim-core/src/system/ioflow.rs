//! End-to-end conservation of guest DASD I/O across the layers: what a workload's processes
//! issued reaches the DASD driver, whose requests (each exactly once) are in CP's hands or on
//! a real subchannel while started, and come back to the process that issued them.

use crate::io::{Count, Origin, SubOwner};
use crate::linux::dasd::DevPath;
use crate::workload::Workload;

use super::Simulation;

impl Simulation {
    /// Per guest: the driver's own flow (`DasdDriver::check_flow`), each request started and
    /// not ended in flight exactly once in CP (a minidisk-cache hit being copied) or in real
    /// I/O, as the running request of the device it was started on; and the workload's
    /// requests = reaped + completed in its ring + in the block layer, its bytes = those the
    /// driver was handed.
    pub(super) fn check_io_flow(&self) -> Result<(), String> {
        let n = self.m.guests.len();
        let mut ending = vec![Count::default(); n];
        for (g, _, _, _, pages) in self.m.deferred_done.live() {
            ending[g as usize].add(pages);
        }
        let mut started: Vec<Vec<u32>> = vec![Vec::new(); n];
        for r in self.m.io.in_flight_requests() {
            if let Origin::Dasd { guest, req } = r.origin {
                self.check_route(guest, req, Some(r.sub))?;
                started[guest as usize].push(req);
            }
        }
        for o in self.m.mdc_hits.live() {
            if let Origin::Dasd { guest, req } = o {
                self.check_route(guest, req, None)?;
                started[guest as usize].push(req);
            }
        }
        let mut ring = vec![0u64; n];
        for t in &self.m.tasks {
            ring[t.guest as usize] += t.aio_done as u64;
        }
        for (gi, g) in self.m.guests.iter().enumerate() {
            let err = |e: String| format!("{}: {e}", g.name);
            let d = &g.dasd;
            d.check_flow(ending[gi]).map_err(err)?;
            let reqs = &mut started[gi];
            reqs.sort_unstable();
            if reqs.windows(2).any(|w| w[0] == w[1]) {
                return Err(err(format!("a DASD request in flight twice: {reqs:?}")));
            }
            let mut flight = Count::default();
            for &r in reqs.iter() {
                let lr = d.req(r);
                if d.devs[lr.dev as usize].active != r {
                    return Err(err(format!(
                        "request {r} in flight is not its device's running one"
                    )));
                }
                flight.add(lr.pages);
            }
            if d.flow.started.minus(d.flow.ended) != Some(flight) {
                return Err(err(format!(
                    "started {:?}, ended {:?}, in CP or real I/O {flight:?}",
                    d.flow.started, d.flow.ended
                )));
            }
            let (issued, reaped) = match self.workloads.get(gi) {
                Some(Workload::Fio(f)) => (f.issued, f.reaped),
                Some(Workload::Iozone(z)) => (z.issued, z.reaped),
                _ => (Count::default(), 0),
            };
            let in_layer = d.flow.entered.minus(d.flow.delivered);
            if issued != d.flow.entered
                || in_layer.map(|c| reaped + ring[gi] + c.reqs) != Some(issued.reqs)
            {
                return Err(err(format!(
                    "workload issued {issued:?}, reaped {reaped}, {} in its ring; driver {:?}",
                    ring[gi], d.flow
                )));
            }
        }
        Ok(())
    }

    /// A guest request in real I/O on subchannel `sub` (None: a minidisk-cache hit CP is
    /// copying) took its device's path: a dedicated device's runs on that subchannel,
    /// attached to the guest; a minidisk's or virtual alias's runs on a subchannel CP owns,
    /// and only a minidisk read is answered from the cache.
    fn check_route(&self, guest: u32, req: u32, sub: Option<u32>) -> Result<(), String> {
        let g = self
            .m
            .guests
            .get(guest as usize)
            .ok_or_else(|| format!("a DASD request of guest {guest}, which does not exist"))?;
        let path = g.dasd.devs[g.dasd.req(req).dev as usize].path;
        let ok = match (path, sub) {
            (DevPath::Dedicated { sub: own }, Some(s)) => {
                s == own && self.m.io.sub(s).owner == SubOwner::Guest(guest)
            }
            (DevPath::Minidisk { .. } | DevPath::VirtualAlias { .. }, Some(s)) => {
                self.m.io.sub(s).owner == SubOwner::System
            }
            (DevPath::Minidisk { .. }, None) => true,
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let on = sub.map_or("the minidisk cache".to_string(), |s| {
            let s = self.m.io.sub(s);
            format!("{:04X} ({:?})", s.rdev, s.owner)
        });
        Err(format!(
            "{}: request {req} on {path:?} runs on {on}",
            g.name
        ))
    }
}
