//! The VMRM server in VMRMSVM: started by XAUTOLOG, stopped by HMONITOR on its console.
//! Once an interval (the CP monitor sample interval, one minute by IBM's recommendation) it
//! reads the system and storage figures, decides whether storage is constrained, and sends
//! each logged-on guest of NOTIFY MEMORY `CMM SHRINK n` by SMSG (n an absolute target in
//! pages; a smaller n later lets the guest take pages back). Each SMSG and the text it carried
//! go to the VMRM log, and to ADMIN MSGUSER's console too (seed 002).
//!
//! IBM says VMRM-CMM uses "several variables obtained from the System and Storage domain CP
//! monitor data" and does not publish its test or its SHRINK formula. The model's
//! inference, each part configurable in `[vmrm]`:
//! * Constrained: the DASD paging rate over the interval (page reads and writes of paging
//!   DASD, the storage domain's paging counts) is at least `constrained_paging`. Eased: below
//!   `relieved_paging`. Between the two VMRM holds its targets.
//! * How much to release while constrained: the guest pages CP holds on DASD only (neither in
//!   central storage nor in XSTOR, the auxiliary storage the system domain reports): released,
//!   they would let the rest fit in storage. It adds to the SHRINK total of the notified
//!   guests. Eased, the total falls by `relief_step` of itself each interval.
//! * Each notified guest's share is in proportion to its virtual storage, at most
//!   `max_shrink` of it.

use serde::Serialize;

use crate::config::scenario::VmrmSpec;
use crate::config::units::NS_PER_S;

use super::config::{self, VmrmConfig};

/// VMRM's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmrmEvent {
    /// An interval ends; `epoch` tells an interval of the current start from an earlier one.
    Interval { epoch: u32 },
}

/// A record of the VMRM log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VmrmLogEntry {
    pub t_s: f64,
    /// The guest an SMSG went to (empty for VMRM's other records).
    pub user: String,
    pub text: String,
}

/// What VMRM reads of the monitor data at the end of an interval.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub now: u64,
    /// Pages read from and written to paging DASD since the system started.
    pub paging_pages: u64,
    /// Guest pages CP holds on DASD only.
    pub dasd_only: u64,
}

/// A guest as VMRM sees it: its user ID and virtual storage in pages.
#[derive(Debug, Clone)]
pub struct GuestInfo {
    pub name: String,
    pub pages: u64,
}

/// How storage stood over an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraint {
    Constrained,
    Holding,
    Relieved,
}

pub struct Vmrm {
    pub spec: VmrmSpec,
    pub config: VmrmConfig,
    /// VMRMSVM is logged on (XAUTOLOG); the server runs until HMONITOR.
    pub logged_on: bool,
    pub running: bool,
    pub epoch: u32,
    /// The SHRINK total over the notified guests, in pages.
    total: u64,
    /// The last SHRINK sent to each guest (None: none yet).
    sent: Vec<Option<u64>>,
    mark_pages: u64,
    mark_t: u64,
    pub log: Vec<VmrmLogEntry>,
    /// SMSGs sent since the system started.
    pub notifications: u64,
}

fn t_s(now: u64) -> f64 {
    now as f64 / NS_PER_S as f64
}

impl Vmrm {
    /// VMRMSVM with its configuration (a file that does not parse, which validation rejects
    /// first, leaves an empty one).
    pub fn new(spec: &VmrmSpec, guests: usize) -> Self {
        Vmrm {
            config: config::parse(&spec.config).unwrap_or_default(),
            spec: spec.clone(),
            logged_on: false,
            running: false,
            epoch: 0,
            total: 0,
            sent: vec![None; guests],
            mark_pages: 0,
            mark_t: 0,
            log: Vec::new(),
            notifications: 0,
        }
    }

    pub fn interval_ns(&self) -> u64 {
        self.spec.interval.ns().max(1)
    }

    fn note(&mut self, now: u64, user: &str, text: String) {
        self.log.push(VmrmLogEntry {
            t_s: t_s(now),
            user: user.to_string(),
            text,
        });
    }

    /// XAUTOLOG VMRMSVM: the server reads its configuration and starts. Returns the epoch of
    /// its intervals.
    pub fn start(&mut self, now: u64, paging_pages: u64, guests: &[GuestInfo]) -> u32 {
        self.logged_on = true;
        self.running = true;
        self.epoch = self.epoch.wrapping_add(1);
        (self.mark_pages, self.mark_t) = (paging_pages, now);
        let notified: Vec<&str> = guests
            .iter()
            .filter(|g| self.config.notified(&g.name))
            .map(|g| g.name.as_str())
            .collect();
        let text = format!(
            "VMRM started, interval {} s; NOTIFY MEMORY {}: {} logged-on guest(s) ({})",
            self.interval_ns() / NS_PER_S,
            self.config.notify_memory.join(" "),
            notified.len(),
            notified.join(" ")
        );
        self.note(now, "", text);
        if !(self.config.goals.is_empty() && self.config.manages.is_empty()) {
            let text = "GOAL and MANAGE statements read; CPU and DASD goal management is not simulated by zvmsim".to_string();
            self.note(now, "", text);
        }
        self.epoch
    }

    /// HMONITOR: the server ends (VMRMSVM stays logged on); the guests keep their targets.
    pub fn stop(&mut self, now: u64) {
        self.running = false;
        self.epoch = self.epoch.wrapping_add(1);
        self.note(now, "", "VMRM ended by HMONITOR".into());
    }

    /// How storage stood over the interval, from its DASD paging rate.
    pub fn constraint(&self, paging_per_s: f64) -> Constraint {
        if paging_per_s >= self.spec.constrained_paging {
            Constraint::Constrained
        } else if paging_per_s < self.spec.relieved_paging {
            Constraint::Relieved
        } else {
            Constraint::Holding
        }
    }

    /// An interval ends: decide, log, and return the SHRINK targets to send (guest index,
    /// pages), only those that changed.
    pub fn interval(&mut self, s: &Sample, guests: &[GuestInfo]) -> Vec<(usize, u64)> {
        let secs = (s.now.saturating_sub(self.mark_t)) as f64 / NS_PER_S as f64;
        let rate = (s.paging_pages.saturating_sub(self.mark_pages)) as f64 / secs.max(1e-9);
        (self.mark_pages, self.mark_t) = (s.paging_pages, s.now);
        let notified: Vec<usize> = (0..guests.len())
            .filter(|&g| self.config.notified(&guests[g].name))
            .collect();
        let storage: u64 = notified.iter().map(|&g| guests[g].pages).sum();
        let cap = (self.spec.max_shrink.clamp(0.0, 1.0) * storage as f64) as u64;
        let before = self.total;
        let state = self.constraint(rate);
        match state {
            Constraint::Constrained => self.total = (self.total + s.dasd_only).min(cap),
            Constraint::Relieved => {
                let step = (self.total as f64 * self.spec.relief_step.clamp(0.0, 1.0)).ceil();
                self.total -= (step as u64).min(self.total);
            }
            Constraint::Holding => {}
        }
        self.total = self.total.min(cap);
        if self.total != before {
            let what = match state {
                Constraint::Constrained => "storage constrained",
                _ => "constraint eased",
            };
            let text = format!(
                "{what}: DASD paging {rate:.0}/s, {} guest pages on DASD only; SHRINK total {} pages",
                s.dasd_only, self.total
            );
            self.note(s.now, "", text);
        }
        let mut out = Vec::new();
        for &g in &notified {
            let share =
                (self.total as u128 * guests[g].pages as u128 / storage.max(1) as u128) as u64;
            let last = self.sent[g];
            if last == Some(share) || (last.is_none() && share == 0) {
                continue;
            }
            self.sent[g] = Some(share);
            self.notifications += 1;
            let text = format!("SMSG sent to {}: CMM SHRINK {share}", guests[g].name);
            self.note(s.now, &guests[g].name, text);
            out.push((g, share));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::units::Duration;

    fn spec(config: &str) -> VmrmSpec {
        VmrmSpec {
            config: config.into(),
            interval: Duration::from_secs(60),
            constrained_paging: 500.0,
            relieved_paging: 100.0,
            relief_step: 0.25,
            max_shrink: 0.5,
        }
    }

    fn guests() -> Vec<GuestInfo> {
        [("LNX00080", 1000), ("LNX00081", 3000), ("OTHER", 4000)]
            .iter()
            .map(|&(n, p)| GuestInfo {
                name: n.into(),
                pages: p,
            })
            .collect()
    }

    fn at(v: &mut Vmrm, sec: u64, paging: u64, dasd_only: u64) -> Vec<(usize, u64)> {
        let s = Sample {
            now: sec * NS_PER_S,
            paging_pages: paging,
            dasd_only,
        };
        v.interval(&s, &guests())
    }

    #[test]
    fn constrained_storage_shrinks_the_notified_guests_in_proportion() {
        let mut v = Vmrm::new(&spec("NOTIFY MEMORY LNX0008*"), 3);
        v.start(0, 0, &guests());
        // 60,000 pages in 60 s: 1,000/s, constrained; 800 pages on DASD only.
        assert_eq!(at(&mut v, 60, 60_000, 800), vec![(0, 200), (1, 600)]);
        // Still constrained: the total grows by what is still on DASD only, up to half of the
        // notified guests' storage (2,000 pages).
        assert_eq!(at(&mut v, 120, 120_000, 1_600), vec![(0, 500), (1, 1_500)]);
        // Between the thresholds: targets held, no SMSG.
        assert!(at(&mut v, 180, 120_000 + 12_000, 0).is_empty());
        // Eased: a quarter of the total back.
        assert_eq!(at(&mut v, 240, 132_000, 0), vec![(0, 375), (1, 1_125)]);
        assert_eq!(v.notifications, 6);
        let smsgs: Vec<_> = v.log.iter().filter(|e| !e.user.is_empty()).collect();
        assert_eq!(smsgs.len(), 6);
        assert_eq!(smsgs[0].text, "SMSG sent to LNX00080: CMM SHRINK 200");
        assert!(smsgs.iter().all(|e| e.user != "OTHER"));
    }

    #[test]
    fn no_smsg_before_a_constraint_and_none_after_stop_epochs() {
        let mut v = Vmrm::new(&spec("NOTIFY MEMORY LNX00080"), 3);
        let e1 = v.start(0, 0, &guests());
        assert!(
            at(&mut v, 60, 10, 5_000).is_empty(),
            "no paging: no constraint"
        );
        v.stop(61 * NS_PER_S);
        assert!(!v.running && v.logged_on);
        assert_ne!(v.epoch, e1);
        assert_eq!(v.log.last().unwrap().text, "VMRM ended by HMONITOR");
    }
}
