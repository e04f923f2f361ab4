//! The cmm module's commands as typed in a guest: `modprobe cmm [sender=USERID]`, `rmmod cmm`
//! (`modprobe -r cmm`), and its sysctls read and written with `cat`, `echo` and `sysctl`.
//! What depends on the guest's state (whether the module is loaded) is answered when the
//! command runs; what procps or the shell rejects outright is an error here.

use super::LinuxCommand;
use crate::linux::cmm::{CmmCommand, CmmFile};
use crate::linux::shell::Redirect;

/// The cmm form of `cmd args`, if it is one; None lets the other commands parse it.
pub(super) fn parse(
    cmd: &str,
    args: &[&str],
    redirects: &[Redirect],
) -> Result<Option<LinuxCommand>, String> {
    let base = cmd.rsplit('/').next().unwrap_or(cmd);
    let c = match (base, args) {
        ("modprobe", ["-r", "cmm"]) => Some(CmmCommand::Rmmod { quiet: true }),
        ("modprobe", ["cmm", params @ ..]) if !params.iter().any(|p| p.starts_with('-')) => {
            Some(CmmCommand::Modprobe {
                params: params.iter().map(|p| p.to_string()).collect(),
            })
        }
        ("rmmod", ["cmm"]) => Some(CmmCommand::Rmmod { quiet: false }),
        ("cat", [path]) => CmmFile::by_path(path).map(|file| CmmCommand::Read {
            file,
            sysctl: false,
        }),
        ("sysctl", _) => sysctl(args)?,
        ("echo", _) => echo(args, redirects),
        _ => None,
    };
    Ok(c.map(LinuxCommand::Cmm))
}

/// `sysctl [-w] vm.cmm_*[=value]` (procps 3.2): one key, no other option.
fn sysctl(args: &[&str]) -> Result<Option<CmmCommand>, String> {
    let write = args.contains(&"-w");
    let keys: Vec<&str> = args.iter().copied().filter(|a| *a != "-w").collect();
    let [kv] = keys.as_slice() else {
        return Ok(None);
    };
    let (key, value) = match kv.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None => (*kv, None),
    };
    let Some(file) = CmmFile::by_key(key) else {
        return Ok(None);
    };
    match value {
        Some("") => Err(format!("error: Malformed setting \"{kv}\"")),
        Some(v) => Ok(Some(CmmCommand::Write {
            file,
            value: v.to_string(),
            sysctl: true,
        })),
        None if write => Err(format!("error: \"{kv}\" must be of the form name=value")),
        None => Ok(Some(CmmCommand::Read { file, sysctl: true })),
    }
}

/// `echo value > /proc/sys/vm/cmm_*` (the bash builtin; its words joined by blanks).
fn echo(args: &[&str], redirects: &[Redirect]) -> Option<CmmCommand> {
    let out = redirects.iter().rev().find(|r| r.stdout())?;
    let file = CmmFile::by_path(&out.target)?;
    let words: Vec<&str> = args
        .iter()
        .copied()
        .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    Some(CmmCommand::Write {
        file,
        value: words.join(" "),
        sysctl: false,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse as line;
    use super::*;

    fn cmm(line_text: &str) -> CmmCommand {
        match line(line_text) {
            Ok(LinuxCommand::Cmm(c)) => c,
            other => panic!("{line_text}: {other:?}"),
        }
    }

    #[test]
    fn forms() {
        assert_eq!(cmm("modprobe cmm"), CmmCommand::Modprobe { params: vec![] });
        assert_eq!(
            cmm("/sbin/modprobe cmm sender=maint"),
            CmmCommand::Modprobe {
                params: vec!["sender=maint".into()]
            }
        );
        assert_eq!(cmm("rmmod cmm"), CmmCommand::Rmmod { quiet: false });
        assert_eq!(cmm("modprobe -r cmm"), CmmCommand::Rmmod { quiet: true });
        assert_eq!(
            cmm("cat /proc/sys/vm/cmm_timeout"),
            CmmCommand::Read {
                file: CmmFile::Timeout,
                sysctl: false
            }
        );
        assert_eq!(
            cmm("sysctl -w vm.cmm_timeout=\"100 30\""),
            CmmCommand::Write {
                file: CmmFile::Timeout,
                value: "100 30".into(),
                sysctl: true
            }
        );
        assert_eq!(
            cmm("echo 100 30 > /proc/sys/vm/cmm_timeout"),
            CmmCommand::Write {
                file: CmmFile::Timeout,
                value: "100 30".into(),
                sysctl: false
            }
        );
        assert_eq!(
            cmm("sysctl vm/cmm_pages"),
            CmmCommand::Read {
                file: CmmFile::Pages,
                sysctl: true
            }
        );
        // Other modules and options are real commands zvmsim does not model.
        for other in ["modprobe -v cmm", "rmmod -f cmm", "lsmod"] {
            assert!(
                matches!(line(other), Ok(LinuxCommand::NotSimulated { .. })),
                "{other}"
            );
        }
    }

    /// What procps rejects before it touches /proc/sys.
    #[test]
    fn procps_rejects_malformed_settings() {
        assert_eq!(
            line("sysctl -w vm.cmm_pages=").unwrap_err(),
            "error: Malformed setting \"vm.cmm_pages=\""
        );
        assert_eq!(
            line("sysctl -w vm.cmm_timed_pages").unwrap_err(),
            "error: \"vm.cmm_timed_pages\" must be of the form name=value"
        );
    }
}
