//! The console script: CP commands typed on a z/VM console and Linux commands typed in a
//! guest, answered from the simulated system's state, in the run's console log.

use serde::Serialize;

use crate::config::units::NS_PER_S;
use crate::cp::commands::{self as cp, CpCommand, CpView};
use crate::cp::vmrm::config::user_matches;
use crate::linux::commands::{self as linux, LinuxCommand, LinuxView, VmTunable};

use super::Simulation;

/// One console interaction.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ConsoleLine {
    pub t_s: f64,
    pub user: String,
    pub command: String,
    pub response: Vec<String>,
}

impl Simulation {
    pub(super) fn console_line(&mut self, user: &str, command: &str, response: Vec<String>) {
        self.console.push(ConsoleLine {
            t_s: self.m.now as f64 / NS_PER_S as f64,
            user: user.to_string(),
            command: command.to_string(),
            response,
        });
    }

    pub(super) fn run_console(&mut self, i: usize) {
        let entry = self.scenario.console[i].clone();
        let user = entry.user.to_ascii_uppercase();
        let logged = self.vmrm_log_len();
        if let Some(cmd) = &entry.cp {
            let response = match cp::parse_at(cmd, Some(self.scenario.lpar.zvm_level.as_str())) {
                Ok(CpCommand::Xautolog { user: u }) => self.xautolog(&u),
                Ok(CpCommand::Smsg { to, text }) => self.smsg(&user, &to, &text),
                Ok(c) => cp::respond(&c, &self.cp_view()),
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
                let response = match linux::parse(cmd) {
                    Ok(c) => self.linux_command(gi, &c),
                    Err(m) => vec![m],
                };
                let name = self.m.guests[gi].name.clone();
                self.console_line(&name, cmd, response);
            }
        } else if let Some(cmd) = &entry.cms {
            let response = self.cms(cmd);
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
                }
            }
            _ => {}
        }
        linux::respond(c, &self.linux_view(gi))
    }

    /// What CP's commands see. INDICATE LOAD's rates are those of the current monitor
    /// interval so far, the same counts the interval's row will show; early in an interval
    /// (less than a tenth of it elapsed) they are the last completed interval's.
    fn cp_view(&self) -> CpView<'_> {
        let lpar = &self.scenario.lpar;
        let st = &self.m.storage;
        let elapsed = self.m.now - self.mon.start;
        let so_far;
        let r = match self.mon.sys_rows.last() {
            Some(r) if elapsed < self.interval_ns / 10 => r,
            _ => {
                so_far = self.system_row(self.m.now, 0, self.m.disp.waiting.value());
                &so_far
            }
        };
        let (avg_proc_pct, paging_per_s, xstor_per_s, migrate_per_s) = (
            r.ifl_utilization_pct,
            r.dasd_to_ms_per_s + r.ms_to_dasd_per_s + r.xs_to_dasd_per_s,
            r.ms_to_xs_per_s + r.xs_to_ms_per_s,
            r.xs_to_dasd_per_s,
        );
        CpView {
            level: lpar.zvm_level.as_str(),
            central_bytes: lpar.central.bytes(),
            xstor_bytes: lpar.expanded.bytes(),
            xstor_used_blocks: st.xstor.used(),
            ifls: lpar.ifls,
            guests: self.m.guests.iter().map(|g| g.name.clone()).collect(),
            slots_total: st.slots_total(),
            slots_used: st.on_dasd(),
            avg_proc_pct,
            paging_per_s,
            xstor_per_s,
            migrate_per_s,
        }
    }

    /// What Linux's commands in guest `gi` see.
    fn linux_view(&self, gi: usize) -> LinuxView {
        let g = &self.m.guests[gi];
        let m = &g.mem;
        LinuxView {
            total: m.pages as u64,
            free: m.free_pages() as u64,
            cached: m.cached,
            anon: m.anon(),
            kernel: m.kernel as u64,
            swap_total: m.swap_pages,
            swap_used: m.swap_used(),
            swap_cached: m.swap_cached(),
            pgmajfault: m.pgmajfault,
            pgscan_direct: m.pgscan_direct,
            pgscan_kswapd: m.pgscan_kswapd,
            pswpin: m.pswpin,
            pswpout: m.pswpout,
            swappiness: m.swappiness,
            page_cluster: m.page_cluster,
            swap_devices: g.swap_names.clone(),
        }
    }
}
