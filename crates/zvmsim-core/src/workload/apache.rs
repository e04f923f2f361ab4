//! The Apache workload (`kind = "apache"`, seed 001): server guests and client guests paired,
//! one connection per server, closed loop, no think time. A connection's request is a file of
//! the touched subset, chosen uniformly; the server sends its pages (read from minidisks
//! through the page cache, or from a DCSS file system with or without xip: linux/filemap.rs),
//! then spends its per-MB CPU (Apache, TCP/IP) and CP its guest-LAN CPU, charged to the server.
//! The answer wakes the connection's client task, whose per-MB CPU is the receive; it then
//! sends the next request. A transaction is counted by the server when it has sent the file.
//! A server whose document root is a DCSS file system not mounted yet refuses the connection
//! and the client tries again a second later (Apache starts once the file system is mounted).

use crate::config::apache::{ApacheRole, ApacheSpec, DocRoot};
use crate::config::units::NS_PER_S;
use crate::cp::faults::Work;
use crate::engine::rng::Stream;
use crate::system::machine::{Machine, Task, TaskKind};
use crate::system::Event;

use super::{Outcome, Workload, WorkloadEvent};

/// A connection, as this guest keeps it.
struct Conn {
    /// The task at the other end (the client's, or the server's).
    peer: u32,
    /// Server: the file being sent (index in the touched subset) and its next page.
    file: u32,
    page: u32,
    /// Server: the file's CPU is spent (the request is done but for counting).
    refused: bool,
    /// Client: receive CPU left.
    cpu_left: u64,
}

pub struct Apache {
    spec: ApacheSpec,
    /// Server: the files minidisks (device indices), one per mount point.
    vols: Vec<u32>,
    /// Pages of kernel and program text (Apache, the network stack): each page sent
    /// references one (the memory map `mem=` adds is not among them).
    text: u32,
    rng: Stream,
    conns: Vec<Conn>,
}

impl Apache {
    pub fn new(spec: &ApacheSpec, vols: Vec<u32>, text: u32, rng: Stream) -> Self {
        Apache {
            spec: spec.clone(),
            vols,
            text: text.max(1),
            rng,
            conns: Vec::new(),
        }
    }

    pub fn role(&self) -> ApacheRole {
        self.spec.role
    }

    /// A connection's task; the pairing (`connect`) gives it its peer.
    pub(crate) fn add_user(&mut self, _task: u32, _k: &mut Machine) -> u32 {
        self.conns.push(Conn {
            peer: 0,
            file: 0,
            page: 0,
            refused: false,
            cpu_left: 0,
        });
        (self.conns.len() - 1) as u32
    }

    pub(crate) fn submit(&mut self, t: u32, u: u32, k: &mut Machine) {
        let per_mb = |d: crate::config::units::Duration| {
            (d.ns() as u128 * self.spec.file_size.bytes() as u128 / (1 << 20) as u128) as u64
        };
        let cpu = per_mb(self.spec.client_cpu_per_mb);
        let c = &mut self.conns[u as usize];
        match self.spec.role {
            ApacheRole::Client => c.cpu_left = cpu,
            ApacheRole::Server => {
                c.file = self.rng.below(self.spec.touched() as u64) as u32;
                c.page = 0;
                c.refused = false;
                k.tasks[t as usize].start = k.now;
            }
        }
    }

    /// Server: the file is sent, count it and wake the client (or, refused, the client
    /// tries again in a second). Client: the answer is received, send the next request.
    pub(crate) fn finish(&mut self, t: u32, at: u64, k: &mut Machine) {
        let c = &self.conns[k.tasks[t as usize].kind_user() as usize];
        let peer = c.peer;
        match self.spec.role {
            ApacheRole::Client => {
                k.q.push(at, Event::Workload(WorkloadEvent::Submit { task: peer }))
            }
            ApacheRole::Server if c.refused => k.q.push(
                at + NS_PER_S,
                Event::Workload(WorkloadEvent::Submit { task: t }),
            ),
            ApacheRole::Server => super::request_done_then(t, peer, at, 0, &mut self.rng, k),
        }
    }

    pub(crate) fn run(
        &mut self,
        t: u32,
        u: u32,
        g: usize,
        budget: u64,
        k: &mut Machine,
    ) -> (u64, Outcome) {
        let ui = u as usize;
        if self.spec.role == ApacheRole::Client {
            let c = &mut self.conns[ui];
            let run = c.cpu_left.min(budget);
            c.cpu_left -= run;
            k.charge(g, run, 0);
            let done = c.cpu_left == 0;
            return (
                run,
                if done {
                    Outcome::Done
                } else {
                    Outcome::SliceEnd
                },
            );
        }
        if self.spec.docroot == DocRoot::Dcss && k.guests[g].dcss_mount.is_none() {
            self.conns[ui].refused = true;
            return (0, Outcome::Done);
        }
        let fp = self.spec.file_pages();
        let mut used = 0;
        while self.conns[ui].page < fp {
            let mut w = Work::default();
            let r = self.send_page(t, u, g, k, &mut w);
            used += k.charge_work(g, &w);
            k.flush_page_writes();
            if let Err(b) = r {
                return (used, Outcome::Blocked(b));
            }
            self.conns[ui].page += 1;
            if used >= budget && self.conns[ui].page < fp {
                return (used, Outcome::SliceEnd);
            }
        }
        let mb = |d: crate::config::units::Duration| {
            (d.ns() as u128 * self.spec.file_size.bytes() as u128 / (1 << 20) as u128) as u64
        };
        let (cpu, cp) = (
            mb(self.spec.server_cpu_per_mb),
            mb(self.spec.cp_network_per_mb),
        );
        k.charge(g, cpu, cp);
        (used + cpu + cp, Outcome::Done)
    }

    fn place(&self, u: u32) -> (u32, usize, u32) {
        let c = &self.conns[u as usize];
        place(&self.spec, self.vols.len() as u32, c.file, c.page)
    }

    fn send_page(
        &mut self,
        t: u32,
        u: u32,
        g: usize,
        k: &mut Machine,
        w: &mut Work,
    ) -> Result<(), crate::cp::dispatcher::Block> {
        let (block, m, at) = self.place(u);
        let text = self.rng.below(self.text as u64) as u32;
        k.exec_text(g, t, text, w)?;
        match self.spec.docroot {
            DocRoot::Dcss => k.dcss_file_page(g, t, block, w),
            DocRoot::Minidisk => {
                let n = self.spec.window();
                let page = self.conns[u as usize].page;
                let back = page % n;
                let len = n.min(self.spec.file_pages() - (page - back));
                let window = (block - back, len, at - back);
                k.file_page_ra(g, t, self.vols[m], block, window, w)
            }
        }
    }
}

/// Where page `page` of file `file` (of the touched subset) is: its block in the file set (the
/// page cache's numbering, and the DCSS copy's order: mount point after mount point), its
/// minidisk (mount point) and the block on it.
fn place(spec: &ApacheSpec, mounts: u32, file: u32, page: u32) -> (u32, usize, u32) {
    let fp = spec.file_pages();
    let mounts = mounts.max(1);
    let per_mount = spec.file_set.div_ceil(mounts);
    let (m, pos) = (file % mounts, file / mounts);
    (
        (m * per_mount + pos) * fp + page,
        m as usize,
        pos * fp + page,
    )
}

/// The warm start's page cache of a minidisk server (the study primed its runs): the i-th
/// page of the touched files, file after file (NONE past them).
pub(crate) fn warm_block(spec: &ApacheSpec, mounts: u32, i: u32) -> u32 {
    let fp = spec.file_pages();
    if spec.role != ApacheRole::Server
        || spec.docroot != DocRoot::Minidisk
        || i / fp >= spec.touched()
    {
        return crate::cp::storage::NONE;
    }
    place(spec, mounts, i / fp, i % fp).0
}

/// Pair each apache server workload's connections with its clients' guests, round robin:
/// a task per connection on the client, and each connection's first request.
pub(crate) fn connect(workloads: &mut [Workload], names: &[Option<String>], k: &mut Machine) {
    let role = |w: &Workload| match w {
        Workload::Apache(a) => Some(a.spec.role),
        _ => None,
    };
    let mut first = 0u64;
    for s in 0..workloads.len() {
        if role(&workloads[s]) != Some(ApacheRole::Server) {
            continue;
        }
        let server_name = names[s].clone();
        // Only the first guest of a server workload pairs them all.
        if (0..s).any(|j| names[j] == server_name && role(&workloads[j]).is_some()) {
            continue;
        }
        let clients: Vec<usize> = (0..workloads.len())
            .filter(|&c| match &workloads[c] {
                Workload::Apache(a) => {
                    a.spec.role == ApacheRole::Client && a.spec.server == server_name
                }
                _ => false,
            })
            .collect();
        if clients.is_empty() {
            continue;
        }
        let servers: Vec<usize> = (s..workloads.len())
            .filter(|&j| names[j] == server_name)
            .collect();
        let mut i = 0;
        for &sg in &servers {
            let tasks: Vec<u32> = (0..k.tasks.len() as u32)
                .filter(|&t| k.tasks[t as usize].guest as usize == sg)
                .filter(|&t| matches!(k.tasks[t as usize].kind, TaskKind::User(_)))
                .collect();
            for st in tasks {
                let cg = clients[i % clients.len()];
                i += 1;
                let ct = k.tasks.len() as u32;
                k.tasks.push(Task::new(cg as u32, TaskKind::User(0)));
                let Workload::Apache(c) = &mut workloads[cg] else {
                    continue;
                };
                let cu = c.add_user(ct, k);
                c.conns[cu as usize].peer = st;
                k.tasks[ct as usize].kind = TaskKind::User(cu);
                let su = k.tasks[st as usize].kind_user();
                if let Workload::Apache(sv) = &mut workloads[sg] {
                    sv.conns[su as usize].peer = ct;
                }
                // The connections open 1 ms apart.
                first += 1_000_000;
                k.q.push(first, Event::Workload(WorkloadEvent::Submit { task: st }));
            }
        }
    }
}
