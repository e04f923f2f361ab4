//! The catalog of a SLES 10/11-era Linux guest on System z (kernels 2.6.16 to 2.6.32,
//! s390-tools 1.6 to 1.8, procps 3.2, sysstat 7/8, util-linux 2.12/2.16): the commands a shell
//! finds and the /proc, /sys and configuration files that exist. The parser uses it to tell a
//! real command that zvmsim does not model ("not simulated by zvmsim") from one bash would not
//! find. Files that came with a later service pack of SLES 11 are included (noted); files of
//! 2.4 kernels (/proc/subchannels, /proc/lvm) and tools of later distributions (chzdev, lsblk,
//! lscpu, chcpu) are not: the parser knows them for SLES 8 and RHEL 8 (`linux/distro.rs`).

use crate::cp::catalog::CatalogRow;

/// Commands on the PATH of the guest, plus the shell's builtins.
#[rustfmt::skip]
pub static COMMANDS: &[&str] = &[
    // bash builtins and keywords
    "alias", "bg", "cd", "command", "echo", "eval", "exec", "exit", "export", "fg", "history",
    "jobs", "kill", "printf", "pwd", "read", "set", "source", "test", "time", "type", "ulimit",
    "umask", "unalias", "unset", "wait", "bash", "sh",
    // coreutils
    "basename", "cat", "chgrp", "chmod", "chown", "cp", "cut", "date", "dd", "df", "dirname",
    "du", "env", "expr", "false", "head", "id", "install", "ln", "ls", "md5sum", "mkdir",
    "mkfifo", "mknod", "mktemp", "mv", "nice", "nohup", "od", "paste", "printenv", "readlink",
    "rm", "rmdir", "seq", "sha1sum", "sleep", "sort", "split", "stat", "stty", "sync", "tac",
    "tail", "tee", "touch", "tr", "true", "tty", "uname", "uniq", "users", "wc", "who",
    "whoami", "yes",
    // procps
    "free", "pgrep", "pkill", "pmap", "ps", "pwdx", "skill", "slabtop", "snice", "sysctl",
    "tload", "top", "uptime", "vmstat", "w", "watch",
    // psmisc
    "fuser", "killall", "pstree",
    // sysstat
    "iostat", "mpstat", "pidstat", "sar", "sadc", "sadf",
    // util-linux
    "blockdev", "chrt", "dmesg", "fdisk", "flock", "ionice", "ipcrm", "ipcs", "logger",
    "losetup", "mkswap", "more", "mount", "renice", "script", "setsid", "sfdisk", "swapoff",
    "swapon", "taskset", "umount",
    // file systems
    "blkid", "debugfs", "dumpe2fs", "e2fsck", "e2label", "fsck", "fsck.ext2", "fsck.ext3",
    "mke2fs", "mkfs", "mkfs.ext2", "mkfs.ext3", "mkreiserfs", "reiserfsck", "resize2fs",
    "tune2fs",
    // module-init-tools
    "depmod", "insmod", "lsmod", "modinfo", "modprobe", "rmmod",
    // s390-tools
    "chccwdev", "chreipl", "chshut", "chzcrypt", "cio_ignore", "cpuplugd", "dasdfmt",
    "dasdinfo", "dasdview", "dbginfo.sh", "fdasd", "hyptop", "icastats", "lscss", "lsdasd",
    "lsluns", "lsqeth", "lsreipl", "lsshut", "lstape", "lszcrypt", "lszfcp", "mon_fsstatd",
    "mon_procd", "qetharp", "qethconf", "tape390_display", "tunedasd", "vmconvert", "vmcp",
    "vmur", "ziomon", "zipl", "znetconf",
    // LVM2, device mapper, MD, multipath
    "dmsetup", "kpartx", "lvchange", "lvcreate", "lvdisplay", "lvextend", "lvreduce",
    "lvremove", "lvresize", "lvs", "lvscan", "mdadm", "multipath", "multipathd", "pvcreate",
    "pvdisplay", "pvmove", "pvremove", "pvs", "pvscan", "vgchange", "vgcreate", "vgdisplay",
    "vgextend", "vgreduce", "vgremove", "vgs", "vgscan",
    // network
    "arp", "curl", "dig", "ethtool", "ftp", "host", "ifconfig", "ifdown", "ifup", "ip",
    "iptables", "netstat", "nslookup", "ping", "route", "scp", "ss", "ssh", "tcpdump",
    "telnet", "traceroute", "wget",
    // text and files
    "awk", "bunzip2", "bzip2", "cmp", "cpio", "diff", "egrep", "fgrep", "file", "find", "gawk",
    "grep", "gunzip", "gzip", "less", "patch", "rsync", "sed", "strings", "tar", "vi", "vim",
    "whereis", "which", "xargs", "zcat",
    // administration and diagnosis
    "at", "bc", "chkconfig", "chroot", "clear", "crontab", "gdb", "getconf", "groupadd",
    "halt", "init", "insserv", "last", "ldconfig", "ldd", "locale", "logrotate", "lsof",
    "lsscsi", "ltrace", "man", "mkinitrd", "opcontrol", "opreport", "passwd", "perl",
    "poweroff", "python", "reboot", "rpm", "runlevel", "screen", "service", "shutdown",
    "strace", "su", "sudo", "SuSEconfig", "tput", "udevadm", "udevinfo", "useradd", "userdel",
    "usermod", "yast", "zypper",
];

/// How a file may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

impl Access {
    pub fn readable(self) -> bool {
        self != Access::Write
    }
    pub fn writable(self) -> bool {
        self != Access::Read
    }
}

/// A file, or a family of files: `*` stands for one path component (`cpu*`: a component
/// beginning with `cpu`), `<pid>` for a process number or `self`.
#[derive(Debug, Clone, Copy)]
pub struct FileEntry {
    pub pattern: &'static str,
    pub access: Access,
    pub note: Option<&'static str>,
}

const fn r(pattern: &'static str) -> FileEntry {
    FileEntry {
        pattern,
        access: Access::Read,
        note: None,
    }
}
const fn rw(pattern: &'static str) -> FileEntry {
    FileEntry {
        pattern,
        access: Access::ReadWrite,
        note: None,
    }
}
const fn wo(pattern: &'static str) -> FileEntry {
    FileEntry {
        pattern,
        access: Access::Write,
        note: None,
    }
}
impl FileEntry {
    const fn note(mut self, note: &'static str) -> Self {
        self.note = Some(note);
        self
    }
}

const SLES11: &str = "SLES 11 (kernel 2.6.27 or later)";
const CMM: &str = "once the cmm module is loaded";

pub static FILES: &[FileEntry] = &[
    // /proc
    r("/proc/buddyinfo"),
    r("/proc/cmdline"),
    r("/proc/cpuinfo"),
    r("/proc/crypto"),
    rw("/proc/cio_ignore"),
    rw("/proc/dasd/devices"),
    rw("/proc/dasd/statistics"),
    r("/proc/devices"),
    r("/proc/diskstats"),
    r("/proc/filesystems"),
    r("/proc/interrupts"),
    r("/proc/kallsyms"),
    r("/proc/loadavg"),
    r("/proc/locks"),
    r("/proc/meminfo"),
    r("/proc/misc"),
    r("/proc/modules"),
    r("/proc/mounts"),
    r("/proc/net/dev"),
    r("/proc/net/netstat"),
    r("/proc/net/snmp"),
    r("/proc/net/sockstat"),
    r("/proc/net/tcp"),
    r("/proc/net/udp"),
    r("/proc/pagetypeinfo").note(SLES11),
    r("/proc/partitions"),
    r("/proc/sched_debug"),
    r("/proc/schedstat"),
    r("/proc/service_levels").note(SLES11),
    rw("/proc/slabinfo"),
    r("/proc/softirqs").note("SLES 11 SP1 (kernel 2.6.32)"),
    r("/proc/stat"),
    r("/proc/swaps"),
    r("/proc/sysinfo"),
    r("/proc/timer_list"),
    r("/proc/uptime"),
    r("/proc/version"),
    r("/proc/vmallocinfo").note(SLES11),
    r("/proc/vmstat"),
    r("/proc/zoneinfo"),
    r("/proc/<pid>/cmdline"),
    r("/proc/<pid>/environ"),
    r("/proc/<pid>/io").note(SLES11),
    r("/proc/<pid>/limits").note(SLES11),
    r("/proc/<pid>/maps"),
    rw("/proc/<pid>/oom_adj"),
    r("/proc/<pid>/oom_score"),
    r("/proc/<pid>/smaps"),
    r("/proc/<pid>/stat"),
    r("/proc/<pid>/statm"),
    r("/proc/<pid>/status"),
    r("/proc/<pid>/wchan"),
    // /proc/sys (also sysctl keys: vm.dirty_ratio is /proc/sys/vm/dirty_ratio)
    rw("/proc/sys/vm/block_dump"),
    rw("/proc/sys/vm/cmm_pages").note(CMM),
    rw("/proc/sys/vm/cmm_timed_pages").note(CMM),
    rw("/proc/sys/vm/cmm_timeout").note(CMM),
    rw("/proc/sys/vm/dirty_background_bytes").note("SLES 11 SP1 (kernel 2.6.32)"),
    rw("/proc/sys/vm/dirty_background_ratio"),
    rw("/proc/sys/vm/dirty_bytes").note("SLES 11 SP1 (kernel 2.6.32)"),
    rw("/proc/sys/vm/dirty_expire_centisecs"),
    rw("/proc/sys/vm/dirty_ratio"),
    rw("/proc/sys/vm/dirty_writeback_centisecs"),
    rw("/proc/sys/vm/drop_caches"),
    rw("/proc/sys/vm/hugetlb_shm_group"),
    rw("/proc/sys/vm/laptop_mode"),
    rw("/proc/sys/vm/lowmem_reserve_ratio"),
    rw("/proc/sys/vm/max_map_count"),
    rw("/proc/sys/vm/min_free_kbytes"),
    rw("/proc/sys/vm/mmap_min_addr").note(SLES11),
    rw("/proc/sys/vm/nr_hugepages"),
    rw("/proc/sys/vm/nr_pdflush_threads"),
    rw("/proc/sys/vm/oom_kill_allocating_task").note(SLES11),
    rw("/proc/sys/vm/overcommit_memory"),
    rw("/proc/sys/vm/overcommit_ratio"),
    rw("/proc/sys/vm/page-cluster"),
    rw("/proc/sys/vm/panic_on_oom"),
    rw("/proc/sys/vm/percpu_pagelist_fraction"),
    rw("/proc/sys/vm/swappiness"),
    rw("/proc/sys/vm/vfs_cache_pressure"),
    rw("/proc/sys/kernel/core_pattern"),
    rw("/proc/sys/kernel/hostname"),
    rw("/proc/sys/kernel/hz_timer").note("s390: the on-demand timer switch"),
    rw("/proc/sys/kernel/msgmax"),
    rw("/proc/sys/kernel/msgmnb"),
    rw("/proc/sys/kernel/msgmni"),
    r("/proc/sys/kernel/osrelease"),
    r("/proc/sys/kernel/ostype"),
    rw("/proc/sys/kernel/panic"),
    rw("/proc/sys/kernel/pid_max"),
    rw("/proc/sys/kernel/printk"),
    rw("/proc/sys/kernel/randomize_va_space"),
    rw("/proc/sys/kernel/sem"),
    rw("/proc/sys/kernel/shmall"),
    rw("/proc/sys/kernel/shmmax"),
    rw("/proc/sys/kernel/shmmni"),
    rw("/proc/sys/kernel/spin_retry").note("s390"),
    rw("/proc/sys/kernel/sysrq"),
    rw("/proc/sys/kernel/threads-max"),
    rw("/proc/sys/kernel/userprocess_debug").note("s390"),
    r("/proc/sys/kernel/version"),
    rw("/proc/sys/fs/aio-max-nr"),
    r("/proc/sys/fs/aio-nr"),
    rw("/proc/sys/fs/file-max"),
    r("/proc/sys/fs/file-nr"),
    r("/proc/sys/fs/inode-nr"),
    rw("/proc/sys/net/core/netdev_max_backlog"),
    rw("/proc/sys/net/core/rmem_default"),
    rw("/proc/sys/net/core/rmem_max"),
    rw("/proc/sys/net/core/somaxconn"),
    rw("/proc/sys/net/core/wmem_default"),
    rw("/proc/sys/net/core/wmem_max"),
    rw("/proc/sys/net/ipv4/ip_local_port_range"),
    rw("/proc/sys/net/ipv4/tcp_fin_timeout"),
    rw("/proc/sys/net/ipv4/tcp_keepalive_time"),
    rw("/proc/sys/net/ipv4/tcp_rmem"),
    rw("/proc/sys/net/ipv4/tcp_wmem"),
    // /sys: DCSS block devices (reference/interfaces.md; seeds)
    wo("/sys/devices/dcssblk/add"),
    wo("/sys/devices/dcssblk/remove"),
    rw("/sys/devices/dcssblk/*/save"),
    r("/sys/devices/dcssblk/*/seglist"),
    rw("/sys/devices/dcssblk/*/shared"),
    // /sys: channel-attached devices
    rw("/sys/bus/ccw/devices/*/availability"),
    rw("/sys/bus/ccw/devices/*/cmb_enable"),
    r("/sys/bus/ccw/devices/*/cutype"),
    r("/sys/bus/ccw/devices/*/devtype"),
    r("/sys/bus/ccw/devices/*/discipline"),
    rw("/sys/bus/ccw/devices/*/eer_enabled"),
    rw("/sys/bus/ccw/devices/*/erplog"),
    rw("/sys/bus/ccw/devices/*/online"),
    rw("/sys/bus/ccw/devices/*/readonly"),
    rw("/sys/bus/ccw/devices/*/use_diag"),
    r("/sys/bus/ccw/devices/*/vendor"),
    wo("/sys/bus/ccwgroup/drivers/qeth/group"),
    rw("/sys/bus/ccwgroup/devices/*/buffer_count"),
    r("/sys/bus/ccwgroup/devices/*/if_name"),
    rw("/sys/bus/ccwgroup/devices/*/layer2"),
    rw("/sys/bus/ccwgroup/devices/*/online"),
    rw("/sys/bus/ccwgroup/devices/*/portname"),
    r("/sys/bus/ccwgroup/devices/*/state"),
    // /sys: block devices, CPUs, memory, modules, IPL
    rw("/sys/block/*/queue/max_sectors_kb"),
    rw("/sys/block/*/queue/nr_requests"),
    rw("/sys/block/*/queue/read_ahead_kb"),
    rw("/sys/block/*/queue/scheduler"),
    r("/sys/block/*/size"),
    r("/sys/block/*/stat"),
    rw("/sys/devices/system/cpu/cpu*/configure").note(SLES11),
    rw("/sys/devices/system/cpu/cpu*/online"),
    r("/sys/devices/system/cpu/cpu*/polarization").note(SLES11),
    rw("/sys/devices/system/cpu/dispatching").note(SLES11),
    r("/sys/devices/system/memory/block_size_bytes").note(SLES11),
    rw("/sys/devices/system/memory/memory*/state").note(SLES11),
    rw("/sys/module/*/parameters/*"),
    r("/sys/firmware/ipl/device"),
    r("/sys/firmware/ipl/ipl_type"),
    rw("/sys/firmware/reipl/reipl_type"),
    // configuration files and logs
    r("/etc/SuSE-release"),
    rw("/etc/fstab"),
    rw("/etc/group"),
    rw("/etc/hosts"),
    rw("/etc/inittab"),
    rw("/etc/modprobe.conf"),
    rw("/etc/modprobe.conf.local"),
    rw("/etc/passwd"),
    rw("/etc/profile"),
    rw("/etc/resolv.conf"),
    rw("/etc/sysconfig/*"),
    rw("/etc/sysconfig/hardware/*"),
    rw("/etc/sysconfig/network/*"),
    rw("/etc/sysctl.conf"),
    rw("/etc/udev/rules.d/*"),
    rw("/etc/zipl.conf"),
    rw("/var/log/boot.msg"),
    rw("/var/log/messages"),
];

/// A shell command of the guest (by its name, or the last component of a path).
pub fn command_exists(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    COMMANDS.contains(&base)
}

fn component_matches(pattern: &str, part: &str) -> bool {
    if part.is_empty() {
        return false;
    }
    match pattern {
        "*" => true,
        "<pid>" => part == "self" || part.bytes().all(|b| b.is_ascii_digit()),
        p => match p.strip_suffix('*') {
            Some(prefix) => part.starts_with(prefix),
            None => p == part,
        },
    }
}

/// The catalogued file `path` names, if any (`//` and a trailing `/` are not accepted).
pub fn file(path: &str) -> Option<&'static FileEntry> {
    let parts: Vec<&str> = path.split('/').collect();
    FILES.iter().find(|f| {
        let pat: Vec<&str> = f.pattern.split('/').collect();
        pat.len() == parts.len()
            && pat[0].is_empty()
            && parts[0].is_empty()
            && pat[1..]
                .iter()
                .zip(&parts[1..])
                .all(|(p, x)| component_matches(p, x))
    })
}

/// The /proc/sys file of a sysctl key (`vm.dirty_ratio`, or `vm/dirty_ratio`).
pub fn sysctl_file(key: &str) -> Option<&'static FileEntry> {
    if key.is_empty() || key.starts_with(['.', '/']) {
        return None;
    }
    let path = if key.contains('/') {
        format!("/proc/sys/{key}")
    } else {
        format!("/proc/sys/{}", key.replace('.', "/"))
    };
    file(&path)
}

/// `path` is /proc, /sys or below.
pub fn in_kernel_fs(path: &str) -> bool {
    ["/proc", "/sys"]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// The Linux part of `zvmsim commands`: the simulated forms, then the known commands and files.
pub fn listing() -> Vec<CatalogRow> {
    let row = |command: &str, simulated, kind, note| CatalogRow {
        system: "linux",
        command: command.to_string(),
        abbreviation: None,
        simulated,
        since: None,
        kind,
        note,
        classes: None,
    };
    let mut rows: Vec<CatalogRow> = super::commands::SIMULATED
        .iter()
        .map(|(c, note)| row(c, true, "command", *note))
        .collect();
    // Commands and files with a simulated form are listed by that form only.
    let simulated = super::commands::SIMULATED.iter().map(|(c, _)| *c);
    let modelled_command = |name: &str| {
        simulated
            .clone()
            .any(|c| c.split_whitespace().next() == Some(name))
    };
    let modelled_file = |path: &str| {
        simulated
            .clone()
            .any(|c| c.split_whitespace().last() == Some(path))
    };
    let mut names: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| !modelled_command(c))
        .collect();
    names.sort_unstable_by_key(|c| c.to_ascii_lowercase());
    rows.extend(names.into_iter().map(|c| row(c, false, "command", None)));
    rows.extend(
        FILES
            .iter()
            .filter(|f| !modelled_file(f.pattern))
            .map(|f| row(f.pattern, false, "file", f.note)),
    );
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_commands() {
        assert!(command_exists("modprobe") && command_exists("/sbin/modprobe"));
        assert!(!command_exists("frob") && !command_exists("chzdev"));
        assert_eq!(
            file("/sys/devices/dcssblk/add").unwrap().access,
            Access::Write
        );
        assert!(file("/sys/devices/dcssblk/DCSS1G/shared").is_some());
        assert!(file("/sys/devices/dcssblk//shared").is_none());
        assert!(file("/proc/1234/status").is_some() && file("/proc/self/smaps").is_some());
        assert!(file("/proc/abc/status").is_none());
        assert!(file("/sys/devices/system/cpu/cpu3/online").is_some());
        assert!(file("/proc/subchannels").is_none());
        assert!(sysctl_file("vm.dirty_ratio").is_some());
        assert!(sysctl_file("vm/drop_caches").is_some());
        assert!(sysctl_file("vm.nosuch").is_none());
        assert!(in_kernel_fs("/proc/x") && !in_kernel_fs("/procfoo") && !in_kernel_fs("/tmp/x"));
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(!COMMANDS[..i].contains(c), "{c} twice");
        }
        for (i, f) in FILES.iter().enumerate() {
            assert!(
                FILES[..i].iter().all(|g| g.pattern != f.pattern),
                "{}",
                f.pattern
            );
        }
    }
}
