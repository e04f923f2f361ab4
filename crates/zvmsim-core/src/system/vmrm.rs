//! VMRM-CMM in the running system: XAUTOLOG and HMONITOR start and stop VMRMSVM; at each of
//! its intervals VMRM reads the storage figures and sends its SHRINK targets by SMSG; an SMSG
//! reaches a guest's cmm module, whose balloon thread is woken (made ready on the guest's
//! virtual CPUs) and whose timer is an event; the cmm commands typed in a guest act on its
//! module.

use crate::cp::vmrm::server::{GuestInfo, Sample};
use crate::cp::vmrm::{VmrmEvent, VMRMSVM};
use crate::linux::cmm::{CmmCommand, SmsgRequest};

use super::machine::{Task, TaskKind};
use super::{Event, Simulation};

impl Simulation {
    fn vmrm_guests(&self) -> Vec<GuestInfo> {
        self.m
            .guests
            .iter()
            .map(|g| GuestInfo {
                name: g.name.clone(),
                pages: g.mem.pages as u64,
            })
            .collect()
    }

    /// Pages read from and written to paging DASD so far (the storage domain's counts).
    fn paging_pages(&self) -> u64 {
        let mv = &self.m.storage.moved;
        mv.dasd_to_ms + mv.ms_to_dasd + mv.xs_to_dasd
    }

    /// ADMIN MSGUSER sees the VMRM log's records from `from` on its console.
    pub(super) fn vmrm_echo(&mut self, from: usize) {
        let Some(v) = &self.vmrm else { return };
        let Some(to) = v.config.msguser.clone() else {
            return;
        };
        let texts: Vec<String> = v.log[from..]
            .iter()
            .map(|e| format!("{VMRMSVM}: {}", e.text))
            .collect();
        for t in texts {
            self.console_line(&to, "", vec![t]);
        }
    }

    pub(super) fn vmrm_log_len(&self) -> usize {
        self.vmrm.as_ref().map_or(0, |v| v.log.len())
    }

    /// `XAUTOLOG VMRMSVM`: VMRMSVM logs on and VMRM starts with its configuration.
    pub(super) fn xautolog(&mut self, user: &str) -> Vec<String> {
        let now = self.m.now;
        let paging = self.paging_pages();
        let guests = self.vmrm_guests();
        let Some(v) = self.vmrm.as_mut() else {
            // Validation asks for [vmrm] with an XAUTOLOG of VMRMSVM.
            return vec![format!(
                "not simulated by zvmsim: XAUTOLOG {user} without [vmrm]"
            )];
        };
        if v.logged_on {
            return vec![format!(
                "not simulated by zvmsim: XAUTOLOG {user} ({user} is logged on already)"
            )];
        }
        let epoch = v.start(now, paging, &guests);
        let at = now + v.interval_ns();
        self.m
            .q
            .push(at, Event::Vmrm(VmrmEvent::Interval { epoch }));
        vec!["Command accepted".into()]
    }

    /// A CMS command on VMRMSVM's console: HMONITOR ends VMRM.
    pub(super) fn cms(&mut self, cmd: &str) -> Vec<String> {
        let typed = cmd.trim();
        let Some(v) = self.vmrm.as_mut() else {
            return vec![format!("not simulated by zvmsim: {typed}")];
        };
        if !typed.eq_ignore_ascii_case("HMONITOR") {
            return vec![format!("not simulated by zvmsim: {typed}")];
        }
        if !v.logged_on {
            return vec![format!(
                "not simulated by zvmsim: {typed} ({VMRMSVM} is not logged on)"
            )];
        }
        if !v.running {
            return vec![format!(
                "not simulated by zvmsim: {typed} (VMRM is not running)"
            )];
        }
        v.stop(self.m.now);
        vec![]
    }

    /// A VMRM interval ends: decide, send the SMSGs, log, and schedule the next.
    pub(super) fn vmrm_interval(&mut self, epoch: u32) {
        let now = self.m.now;
        let s = Sample {
            now,
            paging_pages: self.paging_pages(),
            dasd_only: {
                let st = &self.m.storage;
                st.touched() - st.resident() - st.on_xstor()
            },
        };
        let guests = self.vmrm_guests();
        let from = self.vmrm_log_len();
        let Some(v) = self.vmrm.as_mut() else { return };
        if !v.running || epoch != v.epoch {
            return;
        }
        let sends = v.interval(&s, &guests);
        let at = now + v.interval_ns();
        self.m
            .q
            .push(at, Event::Vmrm(VmrmEvent::Interval { epoch }));
        for (g, n) in sends {
            self.m.sys.vmrm_notifications += 1;
            self.m.guests[g].stats.vmrm_notifications += 1;
            self.deliver_smsg(g, VMRMSVM, &format!("CMM SHRINK {n}"));
        }
        self.vmrm_echo(from);
    }

    /// `SMSG to text` typed by `from`: a guest's Linux receives it; another logged-on user's
    /// handling is not simulated; anyone else is not logged on.
    pub(super) fn smsg(&mut self, from: &str, to: &str, text: &str) -> Vec<String> {
        if let Some(g) = self.m.guests.iter().position(|g| g.name == to) {
            self.deliver_smsg(g, from, text);
            return vec![];
        }
        // Logged on besides the guests: VMRMSVM once started, and whoever types on a console.
        let vmrmsvm_on = self.vmrm.as_ref().is_some_and(|v| v.logged_on);
        let at_console = self
            .scenario
            .console
            .iter()
            .any(|c| c.user.eq_ignore_ascii_case(to));
        if at_console || (to == VMRMSVM && vmrmsvm_on) {
            return vec![format!("not simulated by zvmsim: SMSG {to} {text}")];
        }
        vec![format!("HCPMSG045E {to} not logged on")]
    }

    /// An SMSG reaches guest `g`: the cmm module takes it if it is loaded, the sender is the
    /// one it allows and the text is one it reads; otherwise it is dropped.
    fn deliver_smsg(&mut self, g: usize, from: &str, text: &str) {
        match self.m.guests[g].mem.cmm.smsg(from, text) {
            Some(SmsgRequest::Reuse(..)) => {
                self.m.cmm_set_timer(g);
                self.cmm_wake(g);
            }
            Some(_) => self.cmm_wake(g),
            None => {}
        }
    }

    /// The balloon thread of guest `g` has work: put it on the run queue (cmm_kick_thread).
    pub(super) fn cmm_wake(&mut self, g: usize) {
        let gs = &mut self.m.guests[g];
        if !gs.mem.cmm.has_work() || gs.mem.cmm.queued || gs.cmm_task == crate::cp::storage::NONE {
            return;
        }
        gs.mem.cmm.queued = true;
        let t = gs.cmm_task;
        self.make_ready(t);
    }

    /// Guest `g`'s cmm timer fires: the timed target falls, the thread is woken, the timer
    /// re-armed.
    pub(super) fn cmm_timer(&mut self, g: usize) {
        if self.m.guests[g].mem.cmm.timer_fired(self.m.now) {
            self.cmm_wake(g);
            self.m.cmm_set_timer(g);
        }
    }

    /// A cmm command typed in guest `g`; returns what the guest prints.
    pub(super) fn cmm_command(&mut self, g: usize, c: &CmmCommand) -> Vec<String> {
        let loaded = self.m.guests[g].mem.cmm.loaded;
        let absent = |file: crate::linux::cmm::CmmFile, sysctl: bool, write: bool| {
            if sysctl {
                format!("error: \"{}\" is an unknown key", file.key())
            } else if write {
                // /proc/sys creates no file: open(O_CREAT) fails with EACCES.
                format!("-bash: {}: Permission denied", file.path())
            } else {
                format!("cat: {}: No such file or directory", file.path())
            }
        };
        match c {
            CmmCommand::Modprobe { params } => {
                // A loaded module is left alone: modprobe does nothing, parameters unread.
                if !loaded {
                    let sender = match crate::linux::cmm::module_params(params) {
                        Ok(s) => s,
                        Err(m) => return vec![m],
                    };
                    self.m.guests[g].mem.cmm_load(sender.as_deref());
                    if self.m.guests[g].cmm_task == crate::cp::storage::NONE {
                        self.m.guests[g].cmm_task = self.m.tasks.len() as u32;
                        self.m.tasks.push(Task::new(g as u32, TaskKind::Cmm));
                    }
                }
                vec![]
            }
            CmmCommand::Rmmod { quiet } => {
                if loaded {
                    self.m.guests[g].mem.cmm_unload();
                    vec![]
                } else if *quiet {
                    vec![]
                } else {
                    vec!["ERROR: Module cmm does not exist in /proc/modules".into()]
                }
            }
            CmmCommand::Read { file, sysctl } => {
                if !loaded {
                    return vec![absent(*file, *sysctl, false)];
                }
                let value = self.m.guests[g].mem.cmm.read(*file);
                if *sysctl {
                    vec![format!("{} = {value}", file.key())]
                } else {
                    vec![value]
                }
            }
            CmmCommand::Write {
                file,
                value,
                sysctl,
            } => {
                if !loaded {
                    return vec![absent(*file, *sysctl, true)];
                }
                self.m.guests[g].mem.cmm.write(*file, value);
                if *file == crate::linux::cmm::CmmFile::Timeout {
                    self.m.cmm_set_timer(g);
                }
                self.cmm_wake(g);
                if *sysctl {
                    vec![format!("{} = {value}", file.key())]
                } else {
                    vec![]
                }
            }
        }
    }
}
