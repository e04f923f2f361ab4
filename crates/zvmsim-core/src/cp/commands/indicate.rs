//! INDICATE LOAD, INDICATE USER and INDICATE PAGING (class E), as each release lays them out.
//!
//! Sources (docs/console.md): INDICATE LOAD's lines and columns as a real z/VM 6.3 console
//! prints them (AVGPROC, MDC, PAGING, the queue block, PROC lines with type and polarization,
//! LIMITED) and IBM's technote "Using the z/VM INDICATE Command" (2006, z/VM 5.2: the XSTORE
//! line and the PROC lines without type); the 5.x STORAGE and STEAL fields and the 8-digit
//! INDICATE USER layout of 5.x are from IBM's CP reference as known (not confirmed in the
//! stored corpora). INDICATE USER on 6.4 and 7.1 follows a real z/VM 6.3 console.
//!
//! The MDC line shows the minidisk cache over the interval so far (cp/mdc.rs; 0 without
//! shared minidisks). What zvmsim does not model shows what follows from the configuration:
//! no eligible list or QUICKDSP users (E1-E3 and Q0-Q2 empty: every Linux guest with work is a
//! Q3 user), no CPU limits (LIMITED 0), no spool files.

use super::{catalog, is_operand, CpCommand, CpView};

/// What a virtual CPU is doing, as CP's queue states tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UserState {
    /// On an IFL.
    Running,
    /// In the dispatch list, waiting for an IFL.
    Dispatchable,
    /// Stopped in a host page fault (no pfault handshake).
    PageWait,
    /// Linux idles: the virtual CPU loaded an enabled wait PSW.
    #[default]
    Idle,
}

/// A logged-on guest as CP's INDICATE commands see it.
#[derive(Debug, Clone, Default)]
pub struct UserView {
    pub name: String,
    pub storage_bytes: u64,
    /// One per virtual CPU.
    pub vcpus: Vec<UserState>,
    /// Its Linux has a task waiting for a host page-in (pfault): CP counts it in page wait.
    pub task_in_page_wait: bool,
    pub resident: u64,
    /// CP's projected working set (`[model] working_set_steal`); None: not modelled, the
    /// resident pages stand for it.
    pub working_set: Option<u64>,
    pub xstor: u64,
    pub dasd: u64,
    /// Since logon: page reads from DASD and from XSTOR, virtual and CP CPU, I/Os.
    pub page_reads: u64,
    pub xstor_reads: u64,
    pub cpu_ns: u64,
    pub cp_ns: u64,
    pub io: u64,
}

impl UserView {
    /// In the dispatch list: some virtual CPU is not idle.
    fn in_queue(&self) -> bool {
        self.vcpus.iter().any(|s| *s != UserState::Idle) || self.task_in_page_wait
    }
    fn in_page_wait(&self) -> bool {
        self.task_in_page_wait || self.vcpus.contains(&UserState::PageWait)
    }
}

/// INDICATE operands modelled here: USER userid, PAGING [WAIT]. `None`: not one of them.
pub(super) fn parse(ops: &[&str]) -> Result<Option<CpCommand>, String> {
    let Some(&what) = ops.first() else {
        return Ok(None);
    };
    if what == "USER" || what == "USERID" {
        return match &ops[1..] {
            // The issuer's own virtual machine: the console has none (not simulated).
            [] | ["*"] => Ok(None),
            [u] => Ok(Some(CpCommand::IndicateUser {
                user: u.to_string(),
            })),
            [_, extra, ..] => Err(format!("HCPIND003E Invalid option - {extra}")),
        };
    }
    if super::abbrev(what, "PAGING", 3) {
        return match &ops[1..] {
            [] | ["WAIT"] => Ok(Some(CpCommand::IndicatePaging)),
            ["ALL"] => Ok(None),
            [extra, ..] => Err(format!("HCPIND003E Invalid option - {extra}")),
        };
    }
    Ok(None)
}

pub(super) fn respond(cmd: &CpCommand, v: &CpView) -> Vec<String> {
    match cmd {
        CpCommand::IndicateLoad => load(v),
        CpCommand::IndicateUser { user } => match v.users.iter().find(|u| u.name == *user) {
            Some(u) => user_lines(u, v),
            None => vec![format!("HCPIND045E {user} not logged on")],
        },
        CpCommand::IndicatePaging => paging(v),
        _ => vec![],
    }
}

/// Releases of z/VM 6.3 storage management and later (6.4, 7.1 here).
fn modern(level: &str) -> bool {
    !level.starts_with('5')
}

fn load(v: &CpView) -> Vec<String> {
    let level = v.level;
    let mut out = vec![format!("AVGPROC-{:03.0}% {:02}", v.avg_proc_pct, v.ifls)];
    // Expanded storage's line, while the release supports XSTOR (until 6.3).
    if is_operand(catalog::QUERY, "XSTORE", Some(level)) {
        out.push(format!(
            "XSTORE-{:06.0}/SEC MIGRATE-{:04.0}/SEC",
            v.xstor_per_s, v.migrate_per_s
        ));
    }
    let (reads, writes, hit) = v.mdc;
    out.push(format!(
        "MDC READS-{reads:06.0}/SEC WRITES-{writes:06.0}/SEC HIT RATIO-{hit:03.0}%"
    ));
    if modern(level) {
        out.push(format!("PAGING-{:.0}/SEC", v.paging_per_s));
    } else {
        // STORAGE: the in-queue users' resident pages against the pageable frames. STEAL:
        // the share of steals taken from in-queue users, taken as their share of the
        // resident pages when demand scan stole in the span (inference).
        let resident: u64 = v.users.iter().map(|u| u.resident).sum();
        let in_queue: u64 = v
            .users
            .iter()
            .filter(|u| u.in_queue())
            .map(|u| u.resident)
            .sum();
        let storage = (100.0 * in_queue as f64 / v.pageable_frames.max(1) as f64).min(999.0);
        let steal = if v.steals_per_s > 0.0 && resident > 0 {
            100.0 * in_queue as f64 / resident as f64
        } else {
            0.0
        };
        out.push(format!(
            "STORAGE-{storage:03.0}% PAGING-{:04.0}/SEC STEAL-{steal:03.0}%",
            v.paging_per_s
        ));
    }
    // Every Linux guest with work is a long-running (Q3) user; loading: in page wait
    // (inference). The expansion factor is 1 with no eligible list.
    let q3 = v.users.iter().filter(|u| u.in_queue()).count();
    let loading = v
        .users
        .iter()
        .filter(|u| u.in_queue() && u.in_page_wait())
        .count();
    let dormant = v.users.len() - q3;
    out.push(format!("Q0-00000(00000){:27}DORMANT-{dormant:05}", ""));
    out.push(format!("Q1-00000(00000){:11}E1-00000(00000)", ""));
    out.push("Q2-00000(00000) EXPAN-001 E2-00000(00000)".into());
    out.push(format!(
        "Q3-{q3:05}({loading:05}) EXPAN-001 E3-00000(00000)"
    ));
    out.push(String::new());
    // The model's IFLs are one pool: each shows the average utilization.
    let procs: Vec<String> = (0..v.ifls)
        .map(|i| {
            let head = format!("PROC {i:04X}-{:03.0}%", v.avg_proc_pct);
            match level {
                "5.2" => head,
                // Dedicated IFLs: the partition is horizontally polarized.
                l if modern(l) => format!("{head} IFL  HZ"),
                _ => format!("{head} IFL"),
            }
        })
        .collect();
    for pair in procs.chunks(2) {
        let line = match pair {
            [a, b] => format!("{a:<27}{b}"),
            [a] => a.clone(),
            _ => String::new(),
        };
        out.push(line);
    }
    out.push(String::new());
    out.push("LIMITED-00000".into());
    out
}

/// `mmm:ss` of CPU time.
fn min_sec(ns: u64) -> String {
    let s = ns / 1_000_000_000;
    format!("{:03}:{:02}", s / 60, s % 60)
}

fn user_lines(u: &UserView, v: &CpView) -> Vec<String> {
    let stor = super::size_text(u.storage_bytes);
    let connect = v.now_s.max(0.0) as u64 / 60;
    // Working set: CP's projection with `working_set_steal`, else the resident pages. Locked
    // and reserved pages: none (no SET RESERVED, no locked pages). The guest IPLs from its
    // first minidisk (0200, inference); its devices: console, reader, punch, printer and the
    // IPL disk (inference).
    let ws = u.working_set.unwrap_or(u.resident);
    let mut out = vec![
        format!(
            "USERID={:<8} MACH=ESA STOR={stor} VIRT=V XSTORE=NONE",
            u.name
        ),
        "IPLSYS=DEV 0200 DEVNUM=00005".to_string(),
    ];
    // Page writes are not counted per guest (CP writes blocks for many guests): 0.
    if modern(v.level) {
        out.push(format!(
            "PAGES: RES={}  WS={ws}  LOCKEDREAL=0  RESVD=0",
            u.resident
        ));
        out.push(format!("       INSTAN={}", u.resident));
        out.push(format!("NPREF=0  PREF=0  READS={}  WRITES=0", u.page_reads));
    } else {
        out.push(format!(
            "PAGES: RES={:08} WS={ws:08} LOCK=00000000 RESVD=00000000",
            u.resident
        ));
        out.push(format!(
            "NPREF=00000000 PREF=00000000 READS={:08} WRITES=00000000",
            u.page_reads
        ));
        out.push(format!(
            "XSTORE={:06} READS={:06} WRITES=000000 MIGRATES=000000",
            u.xstor, u.xstor_reads
        ));
    }
    let n = u.vcpus.len().max(1) as u64;
    for k in 0..u.vcpus.len().max(1) {
        // CPU time per virtual CPU: the guest's, spread evenly (not counted per CPU).
        out.push(format!(
            "CPU {k:02}: CTIME={:02}:{:02} VTIME={} TTIME={} IO={:06}",
            connect / 60,
            connect % 60,
            min_sec(u.cpu_ns / n),
            min_sec((u.cpu_ns + u.cp_ns) / n),
            if k == 0 { u.io } else { 0 }
        ));
        out.push(if modern(v.level) {
            "        RDR=000000 PRT=000000 PCH=000000 TYPE=CP   CPUAFFIN=ON".into()
        } else {
            "        RDR=000000 PRT=000000 PCH=000000".into()
        });
    }
    out
}

/// INDICATE PAGING: each user in page wait with its pages in XSTOR and on DASD, four to a
/// line (the entry layout is inference), or CP's line when there is none.
fn paging(v: &CpView) -> Vec<String> {
    let waiting: Vec<String> = v
        .users
        .iter()
        .filter(|u| u.in_page_wait())
        .map(|u| format!("{:<8} {:06}:{:06}", u.name, u.xstor, u.dasd))
        .collect();
    if waiting.is_empty() {
        return vec!["No users in page wait".into()];
    }
    waiting.chunks(4).map(|c| c.join(" ")).collect()
}
