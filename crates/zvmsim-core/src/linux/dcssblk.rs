//! The dcssblk block driver and the commands that use it, as typed in a guest: `modprobe
//! dcssblk`, `mknod`, the sysfs files under /sys/devices/dcssblk (`add`, `remove`, and per
//! device `shared`, `save`, `seglist`), `mke2fs`, `mount -t ext2 [-o xip|ro]`, `umount`, a
//! `dd` that fills a device or its file system, and `time` before any of them. Parsing only;
//! the simulation (system/dcss_linux.rs) runs them against CP's saved segments.
//!
//! Device state follows drivers/s390/block/dcssblk.c: a device is named after the first
//! segment of its list and is block device dcssblk<lowest free minor>; a save asked for
//! while the device is open waits until its last close.

use super::shell::Redirect;

/// ext2 with 4 KB blocks writes about one block of metadata (inode tables, bitmaps, group
/// descriptors) per 64 blocks (mke2fs defaults: an inode per 16 KB, 256-byte inodes).
pub(crate) const EXT2_META_STRIDE: u64 = 64;

/// dcssblk's block major as `cat /proc/devices` shows it in seed 000.
pub const MAJOR: u32 = 252;
/// The sysfs directory of the driver.
pub const SYSFS: &str = "/sys/devices/dcssblk";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DcssCommand {
    Modprobe,
    ProcDevices,
    Mknod {
        minor: u32,
        major: u32,
    },
    /// `echo LIST > /sys/devices/dcssblk/add` (the text written, as typed).
    Add(String),
    Remove(String),
    /// `echo V > /sys/devices/dcssblk/DEV/ATTR` for `shared` and `save`.
    Write {
        dev: String,
        attr: String,
        value: String,
    },
    /// `cat /sys/devices/dcssblk/DEV/ATTR`.
    Read {
        dev: String,
        attr: String,
    },
    Ls {
        path: String,
        long: bool,
    },
    /// `mke2fs [-b 4096] DEV`; `b4096`: the block size was given.
    Mke2fs {
        dev: String,
        b4096: bool,
    },
    Mount {
        dev: String,
        dir: String,
        xip: bool,
        ro: bool,
    },
    Umount {
        dir: String,
    },
    /// `dd ... of=TARGET [bs=N] [count=N]`: write `bytes` (None: until the target is full)
    /// in blocks of `bs` bytes.
    Fill {
        target: String,
        bytes: Option<u64>,
        bs: u64,
    },
    Dmesg,
    Time(Box<DcssCommand>),
}

fn size_arg(v: &str) -> Option<u64> {
    let (num, mult) = match v.chars().last()? {
        'K' | 'k' => (&v[..v.len() - 1], 1u64 << 10),
        'M' => (&v[..v.len() - 1], 1 << 20),
        'G' => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

/// The dcssblk form of `cmd args` (with its redirections), if it is one.
pub(super) fn parse(
    cmd: &str,
    args: &[&str],
    redirects: &[Redirect],
) -> Result<Option<DcssCommand>, String> {
    if cmd == "time" {
        let Some((&c, rest)) = args.split_first() else {
            return Ok(None);
        };
        return Ok(parse(c, rest, redirects)?.map(|d| DcssCommand::Time(Box::new(d))));
    }
    let out = redirects
        .iter()
        .find(|r| r.stdout())
        .map(|r| r.target.as_str());
    Ok(match (cmd, args, out) {
        ("modprobe", ["dcssblk"], None) => Some(DcssCommand::Modprobe),
        ("cat", ["/proc/devices"], None) => Some(DcssCommand::ProcDevices),
        ("dmesg", [], None) => Some(DcssCommand::Dmesg),
        ("mknod", [node, "b", major, minor], None) if node.starts_with("/dev/dcssblk") => {
            let (Ok(major), Ok(minor)) = (major.parse(), minor.parse()) else {
                return Err(format!("mknod: invalid major device number '{major}'"));
            };
            Some(DcssCommand::Mknod { minor, major })
        }
        ("echo", [text], Some(path)) if path.starts_with(SYSFS) => {
            let rest = path[SYSFS.len()..].trim_start_matches('/');
            match rest.split('/').collect::<Vec<_>>().as_slice() {
                ["add"] => Some(DcssCommand::Add(text.to_string())),
                ["remove"] => Some(DcssCommand::Remove(text.to_string())),
                [dev, attr] => Some(DcssCommand::Write {
                    dev: dev.to_string(),
                    attr: attr.to_string(),
                    value: text.to_string(),
                }),
                _ => Some(DcssCommand::Write {
                    dev: rest.to_string(),
                    attr: String::new(),
                    value: text.to_string(),
                }),
            }
        }
        // add and remove are write-only: cat's own refusal.
        ("cat", [path], None)
            if path.starts_with(SYSFS) && !path.ends_with("/add") && !path.ends_with("/remove") =>
        {
            let rest = path[SYSFS.len()..].trim_start_matches('/');
            let (dev, attr) = rest.split_once('/').unwrap_or((rest, ""));
            Some(DcssCommand::Read {
                dev: dev.to_string(),
                attr: attr.to_string(),
            })
        }
        ("ls", [path], None) if path.starts_with(SYSFS) => Some(DcssCommand::Ls {
            path: path.trim_end_matches('/').to_string(),
            long: false,
        }),
        ("ls", ["-l", path], None) if path.starts_with(SYSFS) => Some(DcssCommand::Ls {
            path: path.trim_end_matches('/').to_string(),
            long: true,
        }),
        // mke2fs with the block size of the pages (or its default, 4096 from 512 MB on);
        // its other options are not simulated.
        ("mke2fs", [dev] | ["-b", "4096", dev], None) if dev.starts_with("/dev/dcssblk") => {
            Some(DcssCommand::Mke2fs {
                dev: dev.to_string(),
                b4096: args.len() == 3,
            })
        }
        ("mount", _, None) if args.iter().any(|a| a.starts_with("/dev/dcssblk")) => mount(args)?,
        ("umount", [dir], None) => Some(DcssCommand::Umount {
            dir: dir.trim_end_matches('/').to_string(),
        }),
        ("dd", _, None) => dd(args)?,
        _ => None,
    })
}

fn mount(args: &[&str]) -> Result<Option<DcssCommand>, String> {
    let (mut xip, mut ro, mut pos) = (false, false, Vec::new());
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "-t" => match it.next() {
                Some(&"ext2") => {}
                Some(_) => return Ok(None),
                None => return Err("mount: option requires an argument -- 't'".into()),
            },
            "-o" => {
                let Some(opts) = it.next() else {
                    return Err("mount: option requires an argument -- 'o'".into());
                };
                for o in opts.split(',') {
                    match o {
                        "xip" => xip = true,
                        "ro" => ro = true,
                        "rw" => ro = false,
                        _ => return Ok(None),
                    }
                }
            }
            "-r" => ro = true,
            a if a.starts_with('-') => return Ok(None),
            a => pos.push(a),
        }
    }
    Ok(match pos.as_slice() {
        [dev, dir] => Some(DcssCommand::Mount {
            dev: dev.to_string(),
            dir: dir.trim_end_matches('/').to_string(),
            xip,
            ro,
        }),
        _ => None,
    })
}

fn dd(args: &[&str]) -> Result<Option<DcssCommand>, String> {
    let (mut target, mut bs, mut count) = (None, 512u64, None);
    for a in args {
        let Some((k, v)) = a.split_once('=') else {
            return Err(format!("dd: unrecognized operand '{a}'"));
        };
        match k {
            "of" => target = Some(v.to_string()),
            "if" => {}
            "bs" => bs = size_arg(v).ok_or_else(|| format!("dd: invalid number: '{v}'"))?,
            "count" => {
                count = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("dd: invalid number: '{v}'"))?,
                )
            }
            _ => return Ok(None),
        }
    }
    Ok(target.map(|t| DcssCommand::Fill {
        target: t,
        bytes: count.map(|c| c * bs),
        bs,
    }))
}

/// A name list written to `add` or `remove`: segment names upper-cased, a trailing newline
/// dropped; an empty name or one over 8 characters is ENAMETOOLONG, as dcssblk parses it.
pub fn segment_names(text: &str) -> Result<Vec<String>, i32> {
    let t = text.trim_end_matches('\n');
    let names: Vec<String> = t.split(':').map(|n| n.to_ascii_uppercase()).collect();
    if names.iter().any(|n| n.is_empty() || n.len() > 8) {
        return Err(ENAMETOOLONG);
    }
    Ok(names)
}

// The errno values the driver's sysfs attributes return are Linux's.
pub use super::errno::{
    strerror, EBUSY, EEXIST, EINVAL, EIO, ENAMETOOLONG, ENODEV, ENOENT, ENOSPC, EOPNOTSUPP, EPERM,
    ERANGE, EROFS,
};

/// bash's line for a failed `echo ... > file`.
pub fn write_error(e: i32) -> String {
    format!("-bash: echo: write error: {}", strerror(e))
}
