//! Virtual disks in storage (VDISK): CP's commands for them and their limits, and the lock
//! their I/O is serialised by. Executing the commands is `system/vdisk.rs`.
//!
//! A VDISK is an FBA device (9336) whose blocks are pages of an address space CP owns, paged
//! like guest storage. Its I/O is a virtual I/O CP performs itself (no real DASD I/O): CP
//! translates the channel program or DIAGNOSE request and moves the blocks between the
//! guest's buffer and the VDISK's pages. Seed 000 reports that VDISK swap "does not scale"
//! from four guests on and names lock contention as the reason; IBM gives no figure for the
//! lock. zvmsim models it as one serialised section per system that every VDISK I/O passes
//! through, held for `vdisk_lock_hold` per request plus `vdisk_lock_hold_page` per 4 KB
//! page moved (inference, docs/calibration.md), with CP spinning on the lock meanwhile (CP's
//! locks are spin locks: the wait is CP time on the guest's IFL).

use crate::cp::input::command_words;

/// 512-byte blocks per 4 KB page.
pub const BLOCKS_PER_PAGE: u64 = 8;
/// The largest VDISK: 2 GB less one page, 4,194,296 blocks (z/VM CP Planning and
/// Administration, "Virtual disks in storage").
pub const MAX_BLOCKS: u64 = 4_194_296;
/// SET VDISK USERLIM's built-in default, 144,000 blocks (CP Commands and Utilities
/// Reference, SET VDISK). The built-in SYSLIM depends on the storage CP has; zvmsim starts
/// it at a quarter of central storage (inference: the reference gives no figure here).
pub const DEFAULT_USERLIM: u64 = 144_000;

/// A limit: a number of 512-byte blocks, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Blocks(u64),
    Infinite,
}

impl Limit {
    pub fn allows(self, blocks: u64) -> bool {
        match self {
            Limit::Blocks(b) => blocks <= b,
            Limit::Infinite => true,
        }
    }
    pub fn text(self) -> String {
        match self {
            Limit::Blocks(b) => format!("{b} BLK"),
            Limit::Infinite => "INFINITE".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VdiskCommand {
    /// `DEFINE VFB-512 [AS] vdev [BLK] blocks`.
    Define {
        vdev: u16,
        blocks: u64,
    },
    /// `DEFINE vdev [AS] vdev2`: a device of the user gets another number.
    Renumber {
        from: u16,
        to: u16,
    },
    SetSyslim(Limit),
    SetUserlim(Limit),
    /// `QUERY VDISK` (every VDISK).
    Query,
    QuerySyslim,
    QueryUserlim,
    /// `QUERY VIRTUAL vdev` for a device number.
    QueryVirtual {
        vdev: u16,
    },
}

fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && word.len() <= full.len() && full.starts_with(word)
}

fn hex(w: &str) -> Option<u16> {
    crate::config::io::parse_rdev(w)
}

/// `nnn[BLK]`, `nnnK|M|G` or `INFINITE` (SET VDISK's operand), in blocks.
fn limit(ops: &[&str]) -> Result<Limit, String> {
    let Some(&w) = ops.first() else {
        return Err("HCP026E Operand missing or invalid".into());
    };
    if abbrev(w, "INFINITE", 3) {
        return match ops.get(1) {
            Some(x) => Err(format!("HCP003E Invalid option - {x}")),
            None => Ok(Limit::Infinite),
        };
    }
    let bad = || format!("HCP002E Invalid operand - {w}");
    let (num, mult) = match w.chars().last() {
        Some('K') => (&w[..w.len() - 1], 2),
        Some('M') => (&w[..w.len() - 1], 2048),
        Some('G') => (&w[..w.len() - 1], 2048 * 1024),
        _ => (w, 1),
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    match ops.get(1) {
        None => {}
        Some(&"BLK") if mult == 1 => {}
        Some(x) => return Err(format!("HCP003E Invalid option - {x}")),
    }
    if ops.len() > 2 {
        return Err(format!("HCP003E Invalid option - {}", ops[2]));
    }
    Ok(Limit::Blocks(n.checked_mul(mult).ok_or_else(bad)?))
}

/// Parse a CP command if it is one of the VDISK commands; `None`: not one of them.
pub fn parse(line: &str) -> Option<Result<VdiskCommand, String>> {
    let upper = line.trim().to_ascii_uppercase();
    let w = command_words(&upper);
    let verb = *w.first()?;
    let ops = &w[1..];
    if abbrev(verb, "DEFINE", 3) {
        let first = *ops.first()?;
        if first == "VFB-512" {
            return Some(parse_define(&ops[1..]));
        }
        // DEFINE vdev [AS] vdev2 (renumbering): taken only when both are device numbers.
        let rest: Vec<&str> = ops[1..].iter().copied().filter(|o| *o != "AS").collect();
        if let (Some(from), [to]) = (hex(first), rest.as_slice()) {
            if let Some(to) = hex(to) {
                return Some(Ok(VdiskCommand::Renumber { from, to }));
            }
        }
        return None;
    }
    if abbrev(verb, "SET", 3) && matches!(ops.first(), Some(&"VDISK") | Some(&"VDSK")) {
        return Some(match ops.get(1) {
            Some(o) if abbrev(o, "SYSLIM", 3) => limit(&ops[2..]).map(VdiskCommand::SetSyslim),
            Some(o) if abbrev(o, "USERLIM", 4) => limit(&ops[2..]).map(VdiskCommand::SetUserlim),
            Some(o) => Err(format!("HCP002E Invalid operand - {o}")),
            None => Err("HCP026E Operand missing or invalid".into()),
        });
    }
    if abbrev(verb, "QUERY", 1) {
        match ops.first() {
            Some(&"VDISK") | Some(&"VDSK") => {
                return Some(match (ops.get(1), ops.len()) {
                    (None, _) => Ok(VdiskCommand::Query),
                    (Some(o), 2) if abbrev(o, "SYSLIM", 3) => Ok(VdiskCommand::QuerySyslim),
                    (Some(o), 2) if abbrev(o, "USERLIM", 4) => Ok(VdiskCommand::QueryUserlim),
                    (Some(o), 2) => Err(format!("HCP003E Invalid option - {o}")),
                    _ => Err(format!("HCP003E Invalid option - {}", ops[2])),
                })
            }
            Some(v) if abbrev(v, "VIRTUAL", 1) && ops.len() == 2 => {
                return hex(ops[1]).map(|vdev| Ok(VdiskCommand::QueryVirtual { vdev }));
            }
            _ => return None,
        }
    }
    None
}

fn parse_define(ops: &[&str]) -> Result<VdiskCommand, String> {
    let mut it = ops.iter().copied().peekable();
    if it.peek() == Some(&"AS") {
        it.next();
    }
    let vdev = it.next().and_then(hex).ok_or_else(|| {
        "HCP022E A virtual device number was not supplied or it was invalid.".to_string()
    })?;
    if it.peek() == Some(&"BLK") {
        it.next();
    }
    let Some(n) = it.next() else {
        return Err("HCP026E Operand missing or invalid".into());
    };
    let blocks: u64 = n
        .parse()
        .map_err(|_| format!("HCP002E Invalid operand - {n}"))?;
    if blocks == 0 || blocks > MAX_BLOCKS {
        return Err(format!("HCP002E Invalid operand - {n}"));
    }
    if let Some(x) = it.next() {
        return Err(format!("HCP003E Invalid option - {x}"));
    }
    Ok(VdiskCommand::Define { vdev, blocks })
}

/// `SWAPGEN vdev #blocks [( options [)]]` (the exec of seed 000): the CP commands it types
/// to define the VDISK, or its usage error. The Linux side (the swap signature it writes)
/// is done by the caller. Options: DIAG (default), FBA, REUSE.
pub fn swapgen(args: &str) -> Result<(u16, u64, bool), String> {
    let up = args.trim().to_ascii_uppercase();
    let (main, opts) = match up.split_once('(') {
        Some((m, o)) => (m, o.trim_end_matches(')')),
        None => (up.as_str(), ""),
    };
    let w: Vec<&str> = main.split_whitespace().filter(|x| *x != ",").collect();
    let usage = || "SWAPGEN vdev #blocks <(<options> <)> >".to_string();
    let [v, n] = w.as_slice() else {
        return Err(usage());
    };
    let vdev = hex(v).ok_or_else(usage)?;
    let blocks: u64 = n.parse().map_err(|_| usage())?;
    let mut reuse = false;
    let mut min = 32; // DIAG, the default
    for o in opts.split_whitespace() {
        match o {
            "DIAG" => min = 32,
            "FBA" => min = 24,
            "REUSE" => reuse = true,
            _ => return Err(usage()),
        }
    }
    if blocks < min || blocks > MAX_BLOCKS {
        return Err(usage());
    }
    Ok((vdev, blocks, reuse))
}

/// The system-wide serialisation of VDISK I/O: the times the lock is held, its parameters,
/// and what waiting cost.
///
/// Bursts of different IFLs are simulated one after another, each up to a time slice ahead
/// of the clock, so requests reach the lock out of time order. The lock therefore keeps its
/// holds as a calendar of intervals: a request at `at` takes the earliest gap from `at` on
/// that fits its hold, as it would have had the requests come in time order (a first-come
/// lock); intervals ending before the clock are forgotten.
#[derive(Debug, Clone, Default)]
pub struct VdiskLock {
    /// Holds [start, end) not yet over, by start.
    pub held: std::collections::VecDeque<(u64, u64)>,
    pub hold_ns: u64,
    pub hold_page_ns: u64,
    /// Requests, pages and the time spent spinning for the lock.
    pub requests: u64,
    pub pages: u64,
    pub spin_ns: u64,
}

impl VdiskLock {
    /// A request for `pages` pages arriving at `at` (not before `now`): (spin, hold) in ns.
    pub fn acquire(&mut self, now: u64, at: u64, pages: u32) -> (u64, u64) {
        while self.held.front().is_some_and(|h| h.1 <= now) {
            self.held.pop_front();
        }
        let hold = self.hold_ns + pages as u64 * self.hold_page_ns;
        let mut start = at;
        let mut pos = self.held.len();
        for (i, &(s, e)) in self.held.iter().enumerate() {
            if e <= start {
                continue;
            }
            if start + hold <= s {
                pos = i;
                break;
            }
            start = start.max(e);
        }
        self.held.insert(pos, (start, start + hold));
        self.requests += 1;
        self.pages += pages as u64;
        self.spin_ns += start - at;
        (start - at, hold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_forms_parse() {
        assert_eq!(
            parse("def vfb-512 2000 2097152"),
            Some(Ok(VdiskCommand::Define {
                vdev: 0x2000,
                blocks: 2_097_152
            }))
        );
        assert_eq!(
            parse("DEFINE VFB-512 AS 0300 BLK 2097152"),
            Some(Ok(VdiskCommand::Define {
                vdev: 0x300,
                blocks: 2_097_152
            }))
        );
        assert_eq!(
            parse("def 2000 29f"),
            Some(Ok(VdiskCommand::Renumber {
                from: 0x2000,
                to: 0x29f
            }))
        );
        assert_eq!(
            parse("CP set vdisk syslim 1g"),
            Some(Ok(VdiskCommand::SetSyslim(Limit::Blocks(2_097_152))))
        );
        assert_eq!(
            parse("CP set vdisk userlim infinite"),
            Some(Ok(VdiskCommand::SetUserlim(Limit::Infinite)))
        );
        assert_eq!(parse("q vdisk"), Some(Ok(VdiskCommand::Query)));
        assert_eq!(
            parse("q v 29f"),
            Some(Ok(VdiskCommand::QueryVirtual { vdev: 0x29f }))
        );
        assert_eq!(parse("q v dasd"), None);
        assert_eq!(parse("DEFINE STORAGE 512M"), None);
        assert_eq!(swapgen("300 2097152 ,"), Ok((0x300, 2_097_152, false)));
    }

    #[test]
    fn bad_operands_answer_with_cp_messages() {
        for (cmd, msg) in [
            ("def vfb-512 zz 100", "HCP022E"),
            ("def vfb-512 300", "HCP026E"),
            ("def vfb-512 300 abc", "HCP002E"),
            ("def vfb-512 300 4194297", "HCP002E"),
            ("def vfb-512 300 0", "HCP002E"),
            ("def vfb-512 300 800 extra", "HCP003E"),
            ("set vdisk", "HCP026E"),
            ("set vdisk frob 1g", "HCP002E"),
            ("set vdisk syslim lots", "HCP002E"),
            ("set vdisk syslim 1g blk", "HCP003E"),
            ("set vdisk userlim infinite frob", "HCP003E"),
            ("q vdisk frob", "HCP003E"),
        ] {
            let r = parse(cmd).unwrap().unwrap_err();
            assert!(r.starts_with(msg), "{cmd}: {r}");
        }
        assert!(swapgen("300 10").is_err(), "below the DIAG minimum of 32");
        assert!(swapgen("300 24 ( FBA").is_ok());
    }

    #[test]
    fn the_lock_serialises_requests() {
        let mut l = VdiskLock {
            hold_ns: 10_000,
            hold_page_ns: 1_000,
            ..Default::default()
        };
        assert_eq!(l.acquire(0, 100, 1), (0, 11_000));
        assert_eq!(l.acquire(0, 100, 2), (11_000, 12_000));
        assert_eq!(l.acquire(0, 1_000_000, 1), (0, 11_000));
        assert_eq!(l.spin_ns, 11_000);
        // A request made later in simulation order but earlier in time takes the gap
        // before the holds after it (500 to 1_000_000 is free).
        assert_eq!(l.acquire(0, 23_100, 1), (0, 11_000));
        // One that does not fit a gap waits for the end of the holds it meets.
        assert_eq!(l.acquire(0, 1_000_500, 1), (10_500, 11_000));
    }
}
