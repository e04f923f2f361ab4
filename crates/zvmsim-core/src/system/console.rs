//! The console script: CP commands typed on a z/VM console and Linux commands typed in a
//! guest, answered from the simulated system's state, in the run's console log.

use serde::Serialize;

use crate::config::units::NS_PER_S;
use crate::cp::commands::{self as cp, CpCommand};
use crate::cp::segments::execs;
use crate::cp::vmrm::config::user_matches;
use crate::linux::commands::{self as linux, DasdQuery, LinuxCommand, VmTunable, VmstatSample};
use crate::linux::dasd::BlockStats;

use super::Simulation;

/// A console command that reports again (`vmstat delay [count]`, `iostat -x interval
/// [count]`): its guest, the console line its reports go to, the delay, the reports still to
/// come (None: until the run ends), and what its last report counted up to.
pub(super) struct Report {
    guest: usize,
    line: usize,
    delay_ns: u64,
    left: Option<u32>,
    last: Again,
}

/// What a repeating command's next report counts from.
enum Again {
    /// vmstat: the counters of its last report.
    Vmstat(VmstatSample),
    /// iostat: its query, each device's block counters at its last report, and when.
    Iostat {
        q: DasdQuery,
        marks: Vec<BlockStats>,
        at: u64,
    },
}

/// One console interaction.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ConsoleLine {
    pub t_s: f64,
    pub user: String,
    pub command: String,
    pub response: Vec<String>,
    /// A command that held the console (SAVESEG, a DCSS add or save, a fill): how long it
    /// took, from `t_s`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
}

impl Simulation {
    pub(super) fn console_line(&mut self, user: &str, command: &str, response: Vec<String>) {
        self.console.push(ConsoleLine {
            t_s: self.m.now as f64 / NS_PER_S as f64,
            user: user.to_string(),
            command: command.to_string(),
            response,
            elapsed_s: None,
        });
    }

    pub(super) fn run_console(&mut self, i: usize) {
        let entry = self.console_entry(i).clone();
        let user = entry.user.to_ascii_uppercase();
        if self.console_waits(&user, i) {
            return;
        }
        let logged = self.vmrm_log_len();
        if let Some(cmd) = &entry.cp {
            if let Some(m) = self.cp_refusal(&user, cmd) {
                self.console_line(&user, cmd, vec![m]);
                return;
            }
            if let Some(response) = self.segment_command(&user, cmd, i) {
                // A command that holds the console answers when it ends.
                if !self.dcss.busy(&user) {
                    self.console_line(&user, cmd, response);
                }
                return;
            }
            if let Some(response) = self.vdisk_command(&user, cmd) {
                self.console_line(&user, cmd, response);
                return;
            }
            if let Some(response) = self.io_command(&user, cmd) {
                self.console_line(&user, cmd, response);
                self.vmrm_echo(logged);
                return;
            }
            let level = Some(self.scenario.lpar.zvm_level.as_str());
            // MEMASSIST's forms depend on who types them (own machine, class B).
            let parsed = cp::parse_at(cmd, level).and_then(|c| match c {
                CpCommand::SetMemassist { .. } | CpCommand::QueryMemassist { .. } => {
                    let guest = self.m.guests.iter().any(|g| g.name == user);
                    let class_b = self.classes(&user).contains('B');
                    cp::memassist::for_user(c, cmd, &user, guest, class_b)
                }
                c => Ok(c),
            });
            let response = match parsed {
                Ok(CpCommand::Xautolog { user: u }) => self.xautolog(&u),
                Ok(CpCommand::Smsg { to, text }) => self.smsg(&user, &to, &text),
                Ok(c) => {
                    match &c {
                        CpCommand::SetMemassist { on, target } => self.set_memassist(*on, target),
                        CpCommand::SetAgelist {
                            size,
                            early_writes,
                            keep_slot,
                        } => self.set_agelist(*size, *early_writes, *keep_slot),
                        _ => {}
                    }
                    cp::respond(&c, &self.cp_view())
                }
                Err(m) => vec![m],
            };
            self.console_line(&user, cmd, response);
        } else if let Some(cmd) = &entry.linux {
            // A user ending in `*` types the command in every guest it matches.
            let guests: Vec<usize> = (0..self.m.guests.len())
                .filter(|&g| user_matches(&user, &self.m.guests[g].name))
                .collect();
            if guests.is_empty() {
                self.console_line(&user, cmd, vec![format!("{user}: no such guest")]);
            }
            for gi in guests {
                let parsed = linux::parse_for(cmd, self.m.guests[gi].userland);
                let response = match &parsed {
                    Ok(LinuxCommand::Dcss(d)) => match self.dcss_command(gi, d, cmd) {
                        Some(r) => r,
                        None => continue, // answered when it ends
                    },
                    Ok(LinuxCommand::Dasd(q)) => self.dasd_query(gi, q),
                    Ok(LinuxCommand::Pvpath(c)) => self.pvpath(gi, c),
                    Ok(LinuxCommand::Lvm(c)) => self.lvm_command(gi, c),
                    Ok(LinuxCommand::Subchannels) => self.subchannels(gi),
                    Ok(LinuxCommand::Swap(c)) => self.swap_command(gi, c),
                    Ok(LinuxCommand::Zdev(c)) => self.zdev_command(gi, c),
                    Ok(c) => self.linux_command(gi, c),
                    Err(m) => m.lines().map(String::from).collect(),
                };
                let name = self.m.guests[gi].name.clone();
                self.console_line(&name, cmd, response);
                match parsed {
                    Ok(LinuxCommand::Vmstat {
                        delay: Some(d),
                        count,
                        ..
                    }) => {
                        let last = Again::Vmstat(self.linux_view(gi).sample);
                        self.start_reports(gi, d, count, last);
                    }
                    Ok(LinuxCommand::Dasd(
                        ref q @ DasdQuery::Iostat {
                            every: Some((d, count)),
                            ..
                        },
                    )) => {
                        let last = Again::Iostat {
                            q: q.clone(),
                            marks: self.dasd_counters(gi),
                            at: self.m.now,
                        };
                        self.start_reports(gi, d, count, last);
                    }
                    _ => {}
                }
            }
        } else if let Some(cmd) = &entry.cms {
            let exec = if let Some(args) = execs::call(cmd, "DEFDCSS") {
                Some(execs::defdcss(args))
            } else {
                execs::call(cmd, "SAVEDCSS").map(execs::savedcss)
            };
            let response = match (exec, execs::call(cmd, "SWAPGEN")) {
                (Some(Ok(cps)), _) => {
                    self.console_line(&user, cmd, vec![]);
                    self.type_cp(&user, cps);
                    return;
                }
                (Some(Err(m)), _) => vec![m],
                (None, Some(args)) => self.swapgen(&user, args),
                (None, None) => self.cms(cmd),
            };
            self.console_line(&user, cmd, response);
        }
        self.vmrm_echo(logged);
    }

    /// A Linux command in guest `gi`: what it changes, and what the guest prints.
    fn linux_command(&mut self, gi: usize, c: &LinuxCommand) -> Vec<String> {
        match c {
            LinuxCommand::Cmm(cmm) => return self.cmm_command(gi, cmm),
            LinuxCommand::SetVm { tunable, value, .. } => {
                let m = &mut self.m.guests[gi].mem;
                match tunable {
                    VmTunable::Swappiness => m.swappiness = *value,
                    VmTunable::PageCluster => m.page_cluster = *value,
                    // min_free_kbytes >> (PAGE_SHIFT - 10) pages; low and high follow
                    // (setup_per_zone_pages_min).
                    VmTunable::MinFreeKbytes => m.set_min_free(*value / 4),
                }
            }
            _ => {}
        }
        linux::respond(c, &self.linux_view(gi))
    }

    /// `vmstat delay [count]` or `iostat -x interval [count]` typed in guest `gi`: its first
    /// report is in the response; the others follow every `delay` seconds, into the same
    /// console line, each over the time since the one before.
    fn start_reports(&mut self, gi: usize, delay: u32, count: Option<u32>, last: Again) {
        let left = count.map(|c| c.saturating_sub(1));
        if left == Some(0) {
            return;
        }
        let delay_ns = delay as u64 * NS_PER_S;
        self.reports.push(Report {
            guest: gi,
            line: self.console.len() - 1,
            delay_ns,
            left,
            last,
        });
        let run = (self.reports.len() - 1) as u32;
        self.m
            .q
            .push(self.m.now + delay_ns, super::Event::ConsoleReport { run });
    }

    /// The next report of console command `run`: the rates since its last report.
    pub(super) fn console_report(&mut self, run: usize) {
        let gi = self.reports[run].guest;
        let lines = match &self.reports[run].last {
            Again::Vmstat(last) => {
                let view = self.linux_view(gi);
                let line = linux::vmstat_line(&view, last);
                self.reports[run].last = Again::Vmstat(view.sample);
                vec![line]
            }
            Again::Iostat { q, marks, at } => {
                // sysstat separates its reports by a blank line.
                let mut lines = vec![String::new()];
                lines.extend(self.iostat_since(gi, q, marks, *at));
                let marks = self.dasd_counters(gi);
                if let Again::Iostat { marks: m, at, .. } = &mut self.reports[run].last {
                    (*m, *at) = (marks, self.m.now);
                }
                lines
            }
        };
        let r = &mut self.reports[run];
        r.left = r.left.map(|n| n - 1);
        let (more, delay, to) = (r.left != Some(0), r.delay_ns, r.line);
        self.console[to].response.extend(lines);
        if more {
            self.m.q.push(
                self.m.now + delay,
                super::Event::ConsoleReport { run: run as u32 },
            );
        }
    }

    /// SET MEMASSIST: ALL sets the system's switch, a user its own setting (each takes effect
    /// at a guest's next IPL); a user not logged on changes nothing (the response says
    /// HCP045E).
    fn set_memassist(&mut self, on: bool, target: &cp::Target) {
        if *target == cp::Target::All {
            self.m.memassist_all = on;
            return;
        }
        let names: Vec<&str> = self.m.guests.iter().map(|g| g.name.as_str()).collect();
        if let Ok(ix) = cp::memassist_targets(target, &names, "CFC") {
            for i in ix {
                self.m.guests[i].memassist = on;
            }
        }
    }

    /// SET AGELIST: the operands given change, the others stay (the parser accepts it only
    /// at a release with the aging list).
    fn set_agelist(
        &mut self,
        size: Option<crate::config::agelist::AgelistSize>,
        early_writes: Option<bool>,
        keep_slot: Option<bool>,
    ) {
        let st = &mut self.m.storage;
        if let Some(mut s) = st.agelist().map(|a| a.settings) {
            s.size = size.unwrap_or(s.size);
            s.early_writes = early_writes.unwrap_or(s.early_writes);
            s.keep_slot = keep_slot.unwrap_or(s.keep_slot);
            st.set_agelist(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Simulation;

    /// Three guests booted with `cmma=on` but the first; the console script is run by hand.
    const BASE: &str = r#"
[lpar]
ifls = 1
central = "128M"
zvm_level = "5.3"

[paging]
volumes = [{ model = "3390-3", count = 1 }]

[run]
priming = "1s"
measure = "2s"
interval = "1s"

[[guests]]
name = "LNX01"
storage = "32M"
linux = { kernel = "4M", min_free = "1M", parameters = "root=/dev/dasda1 cmma=off" }

[[guests]]
name = "LNX%02d"
first = 2
count = 2
storage = "32M"
linux = { kernel = "4M", min_free = "1M", parameters = "root=/dev/dasda1 cmma=on" }
"#;

    fn sim(console: &[&str]) -> Simulation {
        let mut text = String::from(BASE);
        for (k, c) in console.iter().enumerate() {
            // The first entry at 0 s (before the guests IPL), the rest later.
            let at = if k == 0 { "0s" } else { "2s" };
            text += &format!("\n[[console]]\nat = \"{at}\"\ncp = \"{c}\"\n");
        }
        Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid")
    }

    fn memassist(s: &Simulation) -> Vec<bool> {
        s.m.guests.iter().map(|g| g.memassist).collect()
    }

    /// Types `cmd` as console entry 0 (bypassing the scenario's check of the script, so that
    /// the console's own answer to bad input is tested) and returns its response.
    fn run(s: &mut Simulation, cmd: &str) -> Vec<String> {
        s.scenario.console[0].cp = Some(cmd.to_string());
        s.run_console(0);
        s.console.last().expect("a console line").response.clone()
    }

    #[test]
    fn set_memassist_before_ipl_decides_cmma() {
        let effective =
            |s: &Simulation| -> Vec<bool> { s.m.guests.iter().map(|g| g.mem.cmma).collect() };
        // The machine has the assist: every user starts ON and ALL is ON, so the guests booted
        // with cmma=on use CMMA without any SET (QUERY MEMASSIST's usage notes).
        let s = sim(&[]);
        assert_eq!(memassist(&s), vec![true, true, true]);
        assert!(s.m.memassist_all);
        let requested: Vec<bool> = s.m.guests.iter().map(|g| g.cmma_requested).collect();
        assert_eq!(requested, vec![false, true, true]);
        // CMMA is in effect only where the boot line, the user's setting and ALL allow it.
        assert_eq!(effective(&s), vec![false, true, true]);
        // The study's command, typed as the seed types it, at 0 s: the same.
        assert_eq!(
            effective(&sim(&["CP SET MEMASSIST ON ALL"])),
            vec![false, true, true]
        );
        // A user set OFF before the IPL, or ALL: applied before the guests IPL.
        let s = sim(&["CP SET MEMASSIST OFF LNX03"]);
        assert_eq!(memassist(&s), vec![true, true, false]);
        assert_eq!(effective(&s), vec![false, true, false]);
        let s = sim(&["SET MEMASSIST OFF FOR ALL"]);
        assert_eq!(memassist(&s), vec![true, true, true]);
        assert!(!s.m.memassist_all);
        assert_eq!(effective(&s), vec![false, false, false]);
        // The directory's OPTION NOMEMASSIST starts the user OFF.
        let text = BASE.replacen(
            "count = 2\n",
            "count = 2\ndirectory = [\"OPTION NOMEMASSIST\"]\n",
            1,
        );
        let s = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
        assert_eq!(memassist(&s), vec![true, false, false]);
        assert_eq!(effective(&s), vec![false, false, false]);
        // /proc/cmdline prints the line.
        assert_eq!(
            s.linux_view(1).cmdline,
            "root=/dev/dasda1 cmma=on".to_string()
        );
    }

    #[test]
    fn set_memassist_applies_and_errors_change_nothing() {
        let script = [
            "SET MEMASSIST OFF LNX02",
            "SET MEMASSIST ON LNX09",
            "SET MEMASSIST OFF",
            "SET MEMASSIST ON ALL NOW",
            "SET MEMASSIST PERHAPS ALL",
            "Q MEMASSIST LNX09",
            "QUERY MEMASSIST",
            "SET MEMASSIST OFF ALL",
            "QUERY MEMASSIST",
            "SET MEMASSIST ON FOR ALL",
            "set memassist off lnx03",
            "q memassist lnx03",
        ];
        type State = (Vec<bool>, bool);
        let state = |s: &Simulation| -> State { (memassist(s), s.m.memassist_all) };
        let mut s = sim(&script[..1]);
        let before = (vec![true, false, true], true);
        assert_eq!(state(&s), before);
        let all_off = (vec![true, false, true], false);
        let lnx03_off = (vec![true, false, false], true);
        let expected: [(&[&str], &State); 11] = [
            (&["HCPCFC045E LNX09 not logged on"], &before),
            // MAINT's own virtual machine (no user named) is not in the model.
            (&["not simulated by zvmsim: SET MEMASSIST OFF"], &before),
            (&["HCPCFC003E Invalid option - NOW"], &before),
            (&["HCPCFC003E Invalid option - PERHAPS"], &before),
            (&["HCPCQU045E LNX09 not logged on"], &before),
            (
                &[
                    "ALL USERS SET - ON",
                    "USER      SETTING   STATUS",
                    "LNX01     ON        INACTIVE",
                    "LNX02     OFF       INACTIVE",
                    "LNX03     ON        ACTIVE",
                ],
                &before,
            ),
            (&[], &all_off),
            // ALL OFF overrides the users' ON; the guest using the assist keeps it until its
            // next IPL.
            (
                &[
                    "ALL USERS SET - OFF",
                    "USER      SETTING   STATUS",
                    "LNX01     (ON)      INACTIVE",
                    "LNX02     OFF       INACTIVE",
                    "LNX03     (ON)      ACTIVE,PENDING OFF",
                ],
                &all_off,
            ),
            (&[], &before),
            (&[], &lnx03_off),
            (
                &[
                    "ALL USERS SET - ON",
                    "USER      SETTING   STATUS",
                    "LNX03     ON        ACTIVE,PENDING OFF",
                ],
                &lnx03_off,
            ),
        ];
        for (k, (response, want)) in expected.iter().enumerate() {
            assert_eq!(run(&mut s, script[k + 1]), *response, "{}", script[k + 1]);
            assert_eq!(state(&s), **want, "{}", script[k + 1]);
            // A guest keeps what it had at its IPL.
            let cmma: Vec<bool> = s.m.guests.iter().map(|g| g.mem.cmma).collect();
            assert_eq!(cmma, vec![false, false, true], "{}", script[k + 1]);
        }
    }

    #[test]
    fn a_guest_sets_only_its_own_memassist() {
        let mut s = sim(&["QUERY STORAGE"]);
        s.scenario.console[0].user = "LNX02".into();
        let state = |s: &Simulation| (memassist(s), s.m.memassist_all);
        let before = state(&s);
        assert_eq!(before, (vec![true, true, true], true));
        // Class G: ALL and other users are the class B forms.
        assert_eq!(
            run(&mut s, "CP SET MEMASSIST OFF ALL"),
            vec!["HCPCFC003E Invalid option - ALL"]
        );
        assert_eq!(
            run(&mut s, "CP SET MEMASSIST OFF LNX03"),
            vec!["HCPCFC003E Invalid option - LNX03"]
        );
        assert_eq!(state(&s), before);
        // Its own, as vmcp types it.
        assert_eq!(run(&mut s, "CP SET MEMASSIST OFF"), Vec::<String>::new());
        assert_eq!(state(&s), (vec![true, false, true], true));
        assert_eq!(
            run(&mut s, "CP QUERY MEMASSIST"),
            vec![
                "ALL USERS SET - ON",
                "USER      SETTING   STATUS",
                "LNX02     ON        ACTIVE,PENDING OFF",
            ]
        );
    }

    #[test]
    fn memassist_is_rejected_on_5_2() {
        // In a 5.2 scenario the script itself is refused, with CP's message and its place.
        let text = format!(
            "{}\n[[console]]\nat = \"1s\"\ncp = \"SET MEMASSIST ON ALL\"\n",
            BASE.replace("zvm_level = \"5.3\"", "zvm_level = \"5.2\"")
        );
        let err = Simulation::from_toml(&text, "t.toml", None, &[])
            .err()
            .expect("refused");
        assert_eq!(err.field, "console[0].cp");
        assert_eq!(err.detail, "HCPCFC003E Invalid option - MEMASSIST");
        // Typed on a 5.2 console: refused, nothing changes. 5.2 has no CMMA support, so no
        // user's setting is ON.
        let text = format!(
            "{}\n[[console]]\nat = \"1s\"\ncp = \"QUERY STORAGE\"\n",
            BASE.replace("zvm_level = \"5.3\"", "zvm_level = \"5.2\"")
        );
        let mut s = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
        for (cmd, msg) in [
            (
                "SET MEMASSIST ON ALL",
                "HCPCFC003E Invalid option - MEMASSIST",
            ),
            ("QUERY MEMASSIST", "HCPCQU003E Invalid option - MEMASSIST"),
        ] {
            assert_eq!(run(&mut s, cmd), vec![msg.to_string()]);
            assert_eq!(memassist(&s), vec![false, false, false]);
        }
    }

    #[test]
    fn set_agelist_applies_and_rejected_ones_change_nothing() {
        use crate::config::agelist::{AgelistSettings, AgelistSize};
        let text = format!(
            "{}\n[[console]]\nat = \"1s\"\ncp = \"QUERY STORAGE\"\n",
            BASE.replace("zvm_level = \"5.3\"", "zvm_level = \"7.1\"")
        );
        let mut s = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
        let settings = |s: &Simulation| s.m.storage.agelist().expect("7.1").settings;
        assert_eq!(settings(&s), AgelistSettings::default());
        for bad in [
            "SET AGELIST SIZE 5% KEEPSLOT PERHAPS",
            "SET AGELIST SIZE 101%",
            "SET AGELIST EARLYWRITES NO FROB YES",
            "SET AGELIST",
        ] {
            let r = run(&mut s, bad);
            assert!(r[0].starts_with("HCPCFC"), "{bad}: {r:?}");
            assert_eq!(settings(&s), AgelistSettings::default(), "{bad}");
        }
        assert!(run(&mut s, "SET AGELIST EARLYWRITES NO SIZE 3%").is_empty());
        let want = AgelistSettings {
            size: AgelistSize::Percent(300),
            early_writes: false,
            keep_slot: true,
        };
        assert_eq!(settings(&s), want);
        assert!(s.m.storage.agelist().unwrap().target_frames > 0);
        // On 5.3 the same command is refused and there is nothing to change.
        s.scenario.lpar.zvm_level = crate::config::scenario::ZvmLevel::V5R3;
        assert_eq!(
            run(&mut s, "SET AGELIST SIZE 5%"),
            vec!["HCPCFC003E Invalid option - AGELIST".to_string()]
        );
        assert_eq!(settings(&s), want);
    }
}
