//! The cmm module (arch/s390/mm/cmm.c), Linux's side of VMRM-CMM: a balloon of guest pages
//! handed to CP with DIAGNOSE X'10'. Two pools, static and timed, each with a target. SMSG
//! `CMM SHRINK n` from the allowed sender sets the static target, `CMM RELEASE n` adds to the
//! timed one, `CMM REUSE n s` has the timed target fall by n pages every s seconds; the
//! sysctls vm.cmm_pages, vm.cmm_timed_pages (a write adds) and vm.cmm_timeout do the same.
//!
//! The kernel thread (`cmmthread`) has no sleep of its own: each loop takes one page from or
//! gives one page back to each pool whose size differs from its target, gives each page it
//! takes to CP, and yields (cond_resched). Here it runs as a guest kernel task on the guest's
//! virtual CPUs, its loops costing `linux_cmm_page` (and `linux_diag10`, with CP's
//! `cp_diag10_page`) each; it yields its virtual CPU to the other ready tasks after each
//! burst. A page it takes comes from the normal allocator, so inflating the balloon makes Linux
//! reclaim page cache and swap. The thread's GFP_NOIO (its own direct reclaim starts no
//! writes; kswapd does them) is not modelled: the swap writes its reclaim decides on start at
//! once. The page arrays that list the pool's pages (one 4 KB page per 510 entries) are not
//! modelled either (0.2 % of the balloon). When an allocation finds nothing to reclaim, the
//! out-of-memory notifier gives back up to 256 balloon pages, timed pool first, and resets both
//! targets to the pools' sizes; an allocation of the thread itself that fails sets its pool's
//! target to the pool's size.
//!
//! Parsing follows cmm.c of the SLES 10/11 kernels (2.6.16 to 2.6.32): numbers are C's
//! simple_strtoul with base 0 (decimal, 0x-hex, 0-octal); an SMSG with anything after its
//! numbers is ignored; the sysctl handlers read the first 15 (cmm_timeout: 63) bytes
//! written, skip blanks, and take what number there is, so garbage writes 0 without an error
//! (kernels since 5.x answer EINVAL instead). The sender is compared upper-cased, as cmm.c
//! converts it.

use crate::config::units::NS_PER_S;
use crate::cp::faults::Work;
use crate::cp::storage::CpWork;
use crate::system::machine::Machine;
use crate::system::Event;

use super::memory::{LinuxMemory, BALLOON, FREE};

/// The user ID allowed to send SMSG when `modprobe cmm` gives no sender (cmm.c).
pub const DEFAULT_SENDER: &str = "VMRMSVM";
/// Pages the out-of-memory notifier gives back (cmm_oom_notify: 256).
pub const OOM_RELEASE: usize = 256;
/// Bytes the cmm_pages and cmm_timed_pages handlers read: a 16-byte buffer, its last byte
/// the terminating zero (cmm_pages_handler).
const PAGES_BUF: usize = 15;
/// Bytes the cmm_timeout handler reads (a 64-byte buffer).
const TIMEOUT_BUF: usize = 63;
/// The kernel release of the study's guests (seed 002: kernel-default-2.6.16.53-0.16), in the
/// module's path that modprobe reports.
pub const KERNEL_RELEASE: &str = "2.6.16.53-0.16-default";

/// The cmm sysctls (/proc/sys/vm/...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmmFile {
    Pages,
    TimedPages,
    Timeout,
}

impl CmmFile {
    pub const ALL: [CmmFile; 3] = [CmmFile::Pages, CmmFile::TimedPages, CmmFile::Timeout];

    pub fn key(self) -> &'static str {
        match self {
            CmmFile::Pages => "vm.cmm_pages",
            CmmFile::TimedPages => "vm.cmm_timed_pages",
            CmmFile::Timeout => "vm.cmm_timeout",
        }
    }

    pub fn path(self) -> String {
        format!("/proc/sys/vm/{}", &self.key()[3..])
    }

    pub fn by_key(key: &str) -> Option<Self> {
        let key = key.replace('/', ".");
        Self::ALL.into_iter().find(|f| f.key() == key)
    }

    pub fn by_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.path() == path)
    }
}

/// A cmm command typed in the guest; the simulation applies it to the guest's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmmCommand {
    /// `modprobe cmm [param=value ...]`: the parameters as typed.
    Modprobe { params: Vec<String> },
    /// `rmmod cmm` (`modprobe -r cmm`: `quiet`, silent when the module is not loaded).
    Rmmod { quiet: bool },
    /// `cat /proc/sys/vm/cmm_*` or `sysctl vm.cmm_*`.
    Read { file: CmmFile, sysctl: bool },
    /// `echo ... > /proc/sys/vm/cmm_*` or `sysctl -w vm.cmm_*=...`: the bytes written.
    Write {
        file: CmmFile,
        value: String,
        sysctl: bool,
    },
}

/// The cmm timer's event: the timed pool's target falls (cmm_timer_fn). It fires only if the
/// timer still expires at that instant (a re-armed or cancelled timer's old event is void).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmmEvent {
    Timer { guest: u32 },
}

/// The module's state in one guest.
#[derive(Debug, Default, Clone)]
pub struct Cmm {
    pub loaded: bool,
    /// Whose SMSG are taken (upper case; empty: anyone's).
    pub sender: String,
    /// Pool pages of the static and the timed pool, last taken last.
    pub(super) pages: Vec<u32>,
    pub(super) timed: Vec<u32>,
    pub pages_target: u64,
    pub timed_target: u64,
    pub timeout_pages: u64,
    pub timeout_seconds: u64,
    /// The thread is on the run queue.
    pub queued: bool,
    /// When the pending timer expires, if one is pending.
    timer: Option<u64>,
    /// Pages given to CP with DIAGNOSE X'10', since boot.
    pub diag10_pages: u64,
    /// Out-of-memory notifications the module answered.
    pub oom_notifications: u64,
}

/// C's simple_strtoul with base 0: the number at the start of `s` and what follows it.
pub fn strtoul(s: &str) -> (u64, &str) {
    let b = s.as_bytes();
    let (mut i, base) = if b.first() == Some(&b'0') {
        if matches!(b.get(1), Some(b'x' | b'X')) && b.get(2).is_some_and(u8::is_ascii_hexdigit) {
            (2, 16)
        } else {
            (1, 8)
        }
    } else {
        (0, 10)
    };
    let mut v: u64 = 0;
    while let Some(d) = b.get(i).and_then(|c| (*c as char).to_digit(16)) {
        if d >= base {
            break;
        }
        v = v.wrapping_mul(base as u64).wrapping_add(d as u64);
        i += 1;
    }
    (v, &s[i..])
}

/// cmm_skip_blanks: the text after leading blanks and tabs, and whether there were any.
fn skip_blanks(s: &str) -> (&str, bool) {
    let t = s.trim_start_matches([' ', '\t']);
    (t, t.len() != s.len())
}

/// What an SMSG asks of the module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmsgRequest {
    Shrink(u64),
    Release(u64),
    Reuse(u64, u64),
}

/// An SMSG's text as cmm_smsg_target reads it (after smsgiucv matched the `CMM` prefix):
/// `CMM SHRINK n`, `CMM RELEASE n`, `CMM REUSE n s`. Anything else is ignored (None).
pub fn parse_smsg(text: &str) -> Option<SmsgRequest> {
    let rest = text.strip_prefix("CMM")?;
    let (rest, blank) = skip_blanks(rest);
    if !blank {
        return None;
    }
    let number_then_end = |s: &str| -> Option<u64> {
        let (s, blank) = skip_blanks(s);
        if !blank {
            return None;
        }
        let (n, after) = strtoul(s);
        skip_blanks(after).0.is_empty().then_some(n)
    };
    if let Some(r) = rest.strip_prefix("SHRINK") {
        number_then_end(r).map(SmsgRequest::Shrink)
    } else if let Some(r) = rest.strip_prefix("RELEASE") {
        number_then_end(r).map(SmsgRequest::Release)
    } else if let Some(r) = rest.strip_prefix("REUSE") {
        let (r, blank) = skip_blanks(r);
        if !blank {
            return None;
        }
        let (n, after) = strtoul(r);
        let (after, blank) = skip_blanks(after);
        if !blank {
            return None;
        }
        let (s, end) = strtoul(after);
        skip_blanks(end)
            .0
            .is_empty()
            .then_some(SmsgRequest::Reuse(n, s))
    } else {
        None
    }
}

/// The value a write of `value` (plus the newline echo and sysctl add) gives, as the handler
/// reads it: its first `limit` bytes, blanks skipped, a number or 0.
fn written_number(value: &str, limit: usize) -> (u64, String) {
    let data = format!("{value}\n");
    let mut end = data.len().min(limit);
    while !data.is_char_boundary(end) {
        end -= 1;
    }
    let head = &data[..end];
    let (n, rest) = strtoul(skip_blanks(head).0);
    (n, rest.to_string())
}

/// The module's parameters (`sender=USERID`, its only one) as the kernel takes them at
/// insertion: the sender, or modprobe's report of the kernel's refusal (module-init-tools:
/// an unknown parameter is ENOENT, a charp parameter without a value EINVAL).
pub fn module_params(params: &[String]) -> Result<Option<String>, String> {
    let fatal = |why: &str| {
        format!(
            "FATAL: Error inserting cmm (/lib/modules/{KERNEL_RELEASE}/kernel/arch/s390/mm/cmm.ko): {why}"
        )
    };
    let mut sender = None;
    for p in params {
        match p.split_once('=') {
            Some(("sender", v)) => sender = Some(v.to_string()),
            None if p == "sender" => return Err(fatal("Invalid argument")),
            _ => {
                return Err(fatal(
                    "Unknown symbol in module, or unknown parameter (see dmesg)",
                ))
            }
        }
    }
    Ok(sender)
}

impl Cmm {
    /// Balloon pages: the static and the timed pool.
    pub fn balloon(&self) -> u64 {
        (self.pages.len() + self.timed.len()) as u64
    }
    pub fn static_pages(&self) -> u64 {
        self.pages.len() as u64
    }
    pub fn timed_pages(&self) -> u64 {
        self.timed.len() as u64
    }

    /// The thread has work: a pool differs from its target.
    pub fn has_work(&self) -> bool {
        self.loaded
            && (self.pages_target != self.pages.len() as u64
                || self.timed_target != self.timed.len() as u64)
    }

    /// An SMSG from `from`: taken only from the sender (any sender when it is empty), and only
    /// in a form cmm.c accepts. Returns what it asked, if it was taken.
    pub fn smsg(&mut self, from: &str, text: &str) -> Option<SmsgRequest> {
        if !self.loaded || (!self.sender.is_empty() && from != self.sender) {
            return None;
        }
        let r = parse_smsg(text)?;
        match r {
            SmsgRequest::Shrink(n) => self.pages_target = n,
            SmsgRequest::Release(n) => self.timed_target = self.timed_target.wrapping_add(n),
            SmsgRequest::Reuse(n, s) => (self.timeout_pages, self.timeout_seconds) = (n, s),
        }
        Some(r)
    }

    /// What reading the sysctl file shows.
    pub fn read(&self, file: CmmFile) -> String {
        match file {
            CmmFile::Pages => self.pages.len().to_string(),
            CmmFile::TimedPages => self.timed.len().to_string(),
            CmmFile::Timeout => format!("{} {}", self.timeout_pages, self.timeout_seconds),
        }
    }

    /// Writing `value` to the sysctl file, as the handler reads it.
    pub fn write(&mut self, file: CmmFile, value: &str) {
        match file {
            CmmFile::Pages => self.pages_target = written_number(value, PAGES_BUF).0,
            CmmFile::TimedPages => {
                let n = written_number(value, PAGES_BUF).0;
                self.timed_target = self.timed_target.wrapping_add(n);
            }
            CmmFile::Timeout => {
                let (pages, rest) = written_number(value, TIMEOUT_BUF);
                let seconds = strtoul(skip_blanks(&rest).0).0;
                (self.timeout_pages, self.timeout_seconds) = (pages, seconds);
            }
        }
    }

    /// cmm_set_timer: arm (or re-arm) the timer while the timed pool has a target and a
    /// timeout; cancel it otherwise. Returns when it fires.
    pub fn set_timer(&mut self, now: u64) -> Option<u64> {
        if self.timed_target == 0 || self.timeout_seconds == 0 || !self.loaded {
            self.timer = None;
            return None;
        }
        let at = now.saturating_add(self.timeout_seconds.saturating_mul(NS_PER_S));
        self.timer = Some(at);
        Some(at)
    }

    pub fn timer_pending(&self) -> bool {
        self.timer.is_some()
    }

    /// A timer event at `now`: if the timer expires now, the timed target falls by
    /// `timeout_pages`. False for a timer cancelled or re-armed since the event was set.
    pub fn timer_fired(&mut self, now: u64) -> bool {
        if self.timer != Some(now) {
            return false;
        }
        self.timer = None;
        self.timed_target = self.timed_target.saturating_sub(self.timeout_pages);
        true
    }
}

impl LinuxMemory {
    /// `modprobe cmm [sender=...]`; a loaded module is left as it is (modprobe does nothing).
    pub fn cmm_load(&mut self, sender: Option<&str>) {
        if self.cmm.loaded {
            return;
        }
        let c = &mut self.cmm;
        c.loaded = true;
        c.sender = sender.unwrap_or(DEFAULT_SENDER).to_ascii_uppercase();
        (c.pages_target, c.timed_target) = (0, 0);
        (c.timeout_pages, c.timeout_seconds) = (0, 0);
        c.timer = None;
    }

    /// `rmmod cmm`: the thread stops, the timer is cancelled and every balloon page goes back
    /// to the free pages. cmm_free_pages gives them back 256 at a time with a reschedule in
    /// between; here they go at the command's instant and their CPU is not charged.
    pub fn cmm_unload(&mut self) {
        let n = self.cmm.balloon() as usize;
        self.balloon_free(n, true);
        self.balloon_free(n, false);
        let c = &mut self.cmm;
        c.loaded = false;
        c.queued = false;
        c.timer = None;
        (c.pages_target, c.timed_target) = (0, 0);
    }

    /// The page allocator's out-of-memory notifier: up to 256 balloon pages back, the timed
    /// pool first; both targets become the pools' sizes. Returns the pages given back.
    pub(super) fn cmm_oom_notify(&mut self) -> usize {
        if !self.cmm.loaded {
            return 0;
        }
        self.cmm.oom_notifications += 1;
        let mut n = self.balloon_free(OOM_RELEASE, true);
        n += self.balloon_free(OOM_RELEASE - n, false);
        let c = &mut self.cmm;
        c.pages_target = c.pages.len() as u64;
        c.timed_target = c.timed.len() as u64;
        n
    }

    /// Give back up to `n` pages of a pool, last taken first (cmm_free_pages). Returns how
    /// many.
    pub(super) fn balloon_free(&mut self, n: usize, timed: bool) -> usize {
        let mut done = 0;
        while done < n {
            let list = if timed {
                &mut self.cmm.timed
            } else {
                &mut self.cmm.pages
            };
            let Some(i) = list.pop() else { break };
            self.pool.set(i, FREE);
            self.free.push(i);
            self.set_state(i, crate::cp::storage::GuestState::Unused);
            done += 1;
        }
        done
    }

    /// The balloon thread's allocation (cmm_alloc_pages): a page as the allocator finds one,
    /// reclaiming as it must but without the out-of-memory path, taken into the static or the
    /// timed pool. Returns the pool page (None: reclaim freed nothing) and the pages scanned;
    /// the caller gives the page to CP.
    pub fn cmm_take_page(&mut self, timed: bool) -> (Option<u32>, u64) {
        let (got, scanned) = self.try_alloc_page();
        if let Some(i) = got {
            self.balloon_take(i, timed);
            self.cmm.diag10_pages += 1;
        }
        (got, scanned)
    }

    /// The balloon thread gives one page of a pool back to the free pages (true if it had
    /// one).
    pub fn cmm_give_page(&mut self, timed: bool) -> bool {
        self.balloon_free(1, timed) == 1
    }

    /// The pool page `i`, just allocated, joins a balloon pool.
    fn balloon_take(&mut self, i: u32, timed: bool) {
        self.pool.set(i, BALLOON);
        if timed {
            self.cmm.timed.push(i);
        } else {
            self.cmm.pages.push(i);
        }
    }

    /// The balloon's pool pages agree with the pools' lists (for `check`).
    pub(super) fn check_balloon(&self, tagged: u64) -> Result<(), String> {
        let c = &self.cmm;
        for &i in c.pages.iter().chain(&c.timed) {
            if (i as usize) >= self.pool.len() || self.pool.at(i) != BALLOON {
                return Err(format!(
                    "balloon lists pool page {i}, which is not a balloon page"
                ));
            }
        }
        if tagged != c.balloon() {
            return Err(format!(
                "balloon pages: {tagged} tagged, {} listed",
                c.balloon()
            ));
        }
        Ok(())
    }
}

impl Machine {
    /// One page for a pool of guest `g`'s balloon: allocated as Linux allocates (reclaiming
    /// as it must) and given to CP with DIAGNOSE X'10'. False when nothing could be freed.
    fn cmm_alloc(&mut self, g: usize, timed: bool, w: &mut Work) -> bool {
        let (got, scanned) = self.guests[g].mem.cmm_take_page(timed);
        self.after_alloc(g, scanned, w);
        let Some(i) = got else { return false };
        let gs = &mut self.guests[g];
        gs.stats.cmm_diag10_pages += 1;
        let page = gs.mem.pool_global(i);
        let space = gs.space;
        let mut cp = CpWork::default();
        self.storage.release_page(space, page, &mut cp);
        w.cp_ns += cp.ns;
        w.cp_system_ns += cp.system_ns;
        w.guest_ns += self.p.linux_cmm_page.ns() + self.p.linux_diag10.ns();
        true
    }

    /// Arm guest `g`'s cmm timer (or cancel it) as cmm_set_timer does.
    pub(crate) fn cmm_set_timer(&mut self, g: usize) {
        if let Some(at) = self.guests[g].mem.cmm.set_timer(self.now) {
            let guest = g as u32;
            self.q.push(at, Event::Cmm(CmmEvent::Timer { guest }));
        }
    }

    /// The balloon thread of guest `g` runs for up to `budget` ns of IFL time: loops of one
    /// page per pool. With work left it goes back on the run queue (it yields to the tasks
    /// ready before it). Returns the IFL time used.
    pub(crate) fn cmm_run(&mut self, g: usize, budget: u64) -> u64 {
        let mut w = Work::default();
        let used = |w: &Work| w.guest_ns + w.cp_ns + w.cp_system_ns;
        let free_ns = self.p.linux_cmm_page.ns();
        loop {
            let c = &self.guests[g].mem.cmm;
            if !c.has_work() {
                self.guests[g].mem.cmm.queued = false;
                break;
            }
            if used(&w) >= budget {
                let t = self.guests[g].cmm_task;
                self.guests[g].ready.push_back(t);
                break;
            }
            for timed in [false, true] {
                let c = &self.guests[g].mem.cmm;
                let (have, target) = if timed {
                    (c.timed.len() as u64, c.timed_target)
                } else {
                    (c.pages.len() as u64, c.pages_target)
                };
                if target > have {
                    if !self.cmm_alloc(g, timed, &mut w) {
                        let c = &mut self.guests[g].mem.cmm;
                        if timed {
                            c.timed_target = c.timed.len() as u64;
                        } else {
                            c.pages_target = c.pages.len() as u64;
                        }
                    }
                } else if target < have {
                    self.guests[g].mem.cmm_give_page(timed);
                    w.guest_ns += free_ns;
                }
            }
            let c = &self.guests[g].mem.cmm;
            if !c.timed.is_empty() && !c.timer_pending() {
                self.cmm_set_timer(g);
            }
        }
        // CMMA: the pages given back are free (unused) again.
        self.apply_essa(g, &mut w);
        self.charge_work(g, &w)
    }
}

#[cfg(test)]
mod tests;
