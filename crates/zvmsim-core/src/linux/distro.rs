//! The guest's distribution (`[guests.linux] distribution`), for its user space: which
//! commands its shell finds and which output formats zvmsim prints for it. The kernel's
//! mechanisms follow `release`, not this, but for SLES 8, which shipped 2.4 kernels only.
//!
//! Three generations are modelled:
//! - SLES 10 and 11 (the default; seeds 000-002): s390-tools 1.6 to 1.8, procps 3.2,
//!   sysstat 7/8 (`linux/catalog.rs`).
//! - SLES 8 (seed 004's guest): kernel 2.4 and its user space. Its DASD driver has no PAV
//!   support, so a static PAV alias CP attaches is a disk of its own, which LVM1's multipath
//!   patch uses as a further path to the volume (`linux/lvm.rs`); there is no sysfs. zvmsim
//!   prints what it knows in 2.4's layouts: `/proc/dasd/devices`, `/proc/subchannels` and
//!   LVM1's tools (`linux/lvm1.rs`), and the /proc files whose format 2.4 shares with 2.6
//!   (`/proc/cmdline`, `/proc/loadavg`, `/proc/swaps`). The rest (procps 2.0, sysstat 4, the
//!   2.4 /proc/meminfo) answers `not simulated by zvmsim`, as do refusals zvmsim knows in
//!   SLES 10's wording only.
//! - RHEL 8 (seed 003's guest runs RHEL 8.1): s390-tools 2.x (RHEL 8.1 ships s390utils 2.9,
//!   inference from its release date, May and November 2019), with the zdev tools `chzdev`
//!   and `lszdev` and dracut's `rd.dasd=` boot parameter; LVM1's `pvpath` is gone; sysstat
//!   11.7's `iostat -x`, procps-ng 3.3.15's `free` and `vmstat` and 4.18's `/proc/meminfo`
//!   have their own layouts (`commands/rhel8mem.rs`). Its `top`, `/proc/vmstat`, `mkswap`,
//!   `mke2fs` and `dd` print lines zvmsim does not model, and 4.18's ext2 has no `xip`: on
//!   RHEL 8 those answer `not simulated by zvmsim`, rather than in the SLES layout; so do
//!   refusals zvmsim knows in SLES's wording only (`SLES_WORDED`).

use super::commands::LinuxCommand;

/// A distribution's user-space generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Userland {
    /// SUSE Linux Enterprise Server 10 or 11.
    #[default]
    Sles,
    /// Red Hat Enterprise Linux 8.
    Rhel8,
    /// SUSE Linux Enterprise Server 8 (kernel 2.4).
    Sles8,
}

/// The distribution names accepted, as users write them.
pub const ACCEPTED: &str =
    "\"SLES 8\", \"SLES 8 SP1\" ... \"SLES 8 SP4\", \"SLES 10\", \"SLES 10 SP1\" ... \
     \"SLES 11 SP4\", \"RHEL 8\", \"RHEL 8.0\" ... \"RHEL 8.10\"";

/// Commands RHEL 8 has that the SLES 10/11 catalog does not (s390-tools 2.x, util-linux 2.32).
const RHEL8_ADDED: &[&str] = &["chzdev", "lszdev", "lsblk", "lscpu", "chcpu"];
/// Commands of the SLES catalog or of the parser that RHEL 8 does not have (LVM1 multipath).
const RHEL8_REMOVED: &[&str] = &["pvpath"];
/// Commands whose refusals zvmsim knows in their SLES 10/11 wording only (module-init-tools,
/// procps 3.2's sysctl, top and uptime, util-linux 2.12/2.16, coreutils' dd): RHEL 8's kmod,
/// procps-ng and util-linux 2.32 word them otherwise.
const SLES_WORDED: &[&str] = &[
    "modprobe", "rmmod", "sysctl", "top", "uptime", "swapon", "swapoff", "mkswap", "mount",
    "umount", "mke2fs", "mknod", "dd", "dmesg",
];

/// The distribution `name` (e.g. "RHEL 8.1", "SLES 10 SP1"); an error says what is accepted.
pub fn parse(name: &str) -> Result<Userland, String> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let sp = |w: &str| {
        w.strip_prefix("SP")
            .is_some_and(|n| !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let minor = |v: &str| {
        v.strip_prefix("8").is_some_and(|r| {
            r.is_empty()
                || r.strip_prefix('.').is_some_and(|n| {
                    !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit())
                })
        })
    };
    match words.as_slice() {
        ["SLES", "10" | "11"] => Ok(Userland::Sles),
        ["SLES", "10" | "11", s] if sp(s) => Ok(Userland::Sles),
        ["SLES", "8"] => Ok(Userland::Sles8),
        ["SLES", "8", s] if sp(s) => Ok(Userland::Sles8),
        ["RHEL", v] if minor(v) => Ok(Userland::Rhel8),
        _ => Err(format!(
            "distribution `{name}` is not one zvmsim models; give one of {ACCEPTED}"
        )),
    }
}

impl Userland {
    /// Whether the shell finds `cmd` here: Some(answer) where this distribution differs from
    /// the SLES catalog, None where the catalog decides.
    pub fn has_command(self, cmd: &str) -> Option<bool> {
        let base = cmd.rsplit('/').next().unwrap_or(cmd);
        match self {
            Userland::Sles => None,
            Userland::Rhel8 if RHEL8_ADDED.contains(&base) => Some(true),
            Userland::Rhel8 if RHEL8_REMOVED.contains(&base) => Some(false),
            Userland::Rhel8 | Userland::Sles8 => None,
        }
    }

    /// Whether zvmsim prints `c` in this distribution's layout; if not, the command answers
    /// `not simulated by zvmsim` (see the module comment).
    pub fn prints(self, c: &LinuxCommand) -> bool {
        match self {
            Userland::Sles => true,
            // What zvmsim prints in 2.4's own layout, or in one 2.4 shares with 2.6.
            Userland::Sles8 => matches!(
                c,
                LinuxCommand::Dasd(super::commands::DasdQuery::ProcDevices)
                    | LinuxCommand::Subchannels
                    | LinuxCommand::Pvpath(_)
                    | LinuxCommand::Lvm(_)
                    | LinuxCommand::Cmdline
                    | LinuxCommand::Loadavg
                    | LinuxCommand::Swaps
                    | LinuxCommand::NotSimulated { .. }
            ),
            Userland::Rhel8 => !matches!(
                c,
                LinuxCommand::Free { .. }
                    | LinuxCommand::ProcVmstat
                    | LinuxCommand::Vmstat {
                        procps_ng: false,
                        ..
                    }
                    // util-linux 2.32's mkswap, e2fsprogs 1.44's mke2fs and coreutils 8.30's
                    // dd print other lines; ext2 lost `xip` in 4.0 (DAX replaced it).
                    | LinuxCommand::Swap(super::commands::swapcmds::SwapCommand::Mkswap { .. })
                    | LinuxCommand::Dcss(
                        super::dcssblk::DcssCommand::Mke2fs { .. }
                            | super::dcssblk::DcssCommand::Fill { .. }
                            | super::dcssblk::DcssCommand::Mount { xip: true, .. }
                    )
                    | LinuxCommand::Top
                    | LinuxCommand::Dasd(super::commands::DasdQuery::Iostat {
                        sysstat11: false,
                        ..
                    })
            ),
        }
    }

    /// Whether zvmsim has `cmd`'s refusals in this distribution's wording (else a refused
    /// form answers `not simulated by zvmsim`).
    pub fn words_errors_of(self, cmd: &str) -> bool {
        let base = cmd.rsplit('/').next().unwrap_or(cmd);
        self == Userland::Sles || !SLES_WORDED.contains(&base)
    }

    /// Whether dracut's `rd.dasd=` sets DASDs online at boot (RHEL's initramfs).
    pub fn dracut(self) -> bool {
        self == Userland::Rhel8
    }

    /// Whether the guest runs a 2.4 kernel (SLES 8 shipped no other): no sysfs, and a DASD
    /// driver without PAV support.
    pub fn kernel24(self) -> bool {
        self == Userland::Sles8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_users_write_them() {
        for ok in ["SLES 10", "SLES 10 SP1", "SLES 11 SP4", " SLES  11 "] {
            assert_eq!(parse(ok), Ok(Userland::Sles), "{ok}");
        }
        for ok in ["RHEL 8", "RHEL 8.1", "RHEL 8.10"] {
            assert_eq!(parse(ok), Ok(Userland::Rhel8), "{ok}");
        }
        for ok in ["SLES 8", "SLES 8 SP3"] {
            assert_eq!(parse(ok), Ok(Userland::Sles8), "{ok}");
        }
        assert!(Userland::Sles8.kernel24() && !Userland::Sles.kernel24());
        assert!(Userland::Sles8.prints(&LinuxCommand::Subchannels));
        assert!(!Userland::Sles8.prints(&LinuxCommand::Meminfo));
        for bad in [
            "RHEL 7.9",
            "RHEL 8.",
            "RHEL 81",
            "SLES 12",
            "SLES 9",
            "SLES 8 SP",
            "SLES 10 SP",
            "sles 10",
            "",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("is not one zvmsim models"), "{bad}: {e}");
        }
    }

    #[test]
    fn rhel8_finds_the_zdev_tools_and_not_lvm1() {
        assert_eq!(Userland::Rhel8.has_command("chzdev"), Some(true));
        assert_eq!(Userland::Rhel8.has_command("/sbin/lszdev"), Some(true));
        assert_eq!(Userland::Rhel8.has_command("pvpath"), Some(false));
        assert_eq!(Userland::Rhel8.has_command("lsdasd"), None);
        assert_eq!(Userland::Sles.has_command("chzdev"), None);
        assert!(!Userland::Rhel8.prints(&LinuxCommand::ProcVmstat));
        assert!(Userland::Sles.prints(&LinuxCommand::Meminfo));
        assert!(Userland::Rhel8.prints(&LinuxCommand::Uptime));
        let xip = |xip| {
            LinuxCommand::Dcss(crate::linux::dcssblk::DcssCommand::Mount {
                dev: "/dev/dcssblk0".into(),
                dir: "/mnt".into(),
                xip,
                ro: true,
            })
        };
        assert!(!Userland::Rhel8.prints(&xip(true)) && Userland::Rhel8.prints(&xip(false)));
        assert!(Userland::Sles.prints(&xip(true)));
        assert!(!Userland::Rhel8.words_errors_of("/sbin/modprobe"));
        assert!(
            Userland::Rhel8.words_errors_of("chzdev") && Userland::Sles.words_errors_of("sysctl")
        );
        // A refusal RHEL 8 words otherwise is not simulated; its own tools' are answered.
        let p = |l: &str| super::super::commands::parse_for(l, Userland::Rhel8);
        assert_eq!(
            p("sysctl vm.nosuch"),
            Ok(LinuxCommand::NotSimulated {
                command: "sysctl vm.nosuch".into()
            })
        );
        assert_eq!(
            p("sysctl vm.swappiness"),
            super::super::commands::parse("sysctl vm.swappiness")
        );
        assert!(p("chzdev dasd 1000").is_err());
    }
}
