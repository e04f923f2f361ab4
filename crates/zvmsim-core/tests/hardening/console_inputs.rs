//! The adversarial console inputs of console_commands.rs: every verb and operand of the CP
//! catalog alone and with garbage, every Linux command and file of the Linux catalog, and the
//! mistakes a z/VM system programmer or a Linux administrator makes with the commands zvmsim
//! models (abbreviations, missing and extra operands, device numbers past FFFF, negative and
//! huge numbers, lower case, tabs, non-ASCII, over-long lines).

use zvmsim_core::cp::catalog::{Operands, Word, QUERY_ALLOC, VERBS};
use zvmsim_core::linux::catalog::{COMMANDS, FILES};

/// What a console line is typed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Cp,
    Linux,
    Cms,
}

impl Kind {
    pub(super) fn key(self) -> &'static str {
        match self {
            Kind::Cp => "cp",
            Kind::Linux => "linux",
            Kind::Cms => "cms",
        }
    }
}

/// One console line: who types it, as what, and the text.
#[derive(Debug, Clone)]
pub(super) struct Input {
    pub(super) user: String,
    pub(super) kind: Kind,
    pub(super) text: String,
}

/// Operands a careless user types after a verb or an operand, `|`-separated.
const GARBAGE: &str = "FROB|0|-1|FFFF|10000|FFFF-0000|99999999999999999999|ALL|*|=|(";

/// Numbers for sysctls, /proc and /sys files, `|`-separated.
const NUMBERS: &str = "0|-1|1|100|101|4294967296|18446744073709551616|-9223372036854775809|abc|1.5|0x10|''|\"5 5\"|1 2 3";

/// Every catalogued CP verb and operand, alone, abbreviated, lower case and with garbage.
pub(super) fn cp_catalog(user: &str) -> Vec<Input> {
    let mut out = Vec::new();
    let mut push = |t: String| {
        out.push(Input {
            user: user.into(),
            kind: Kind::Cp,
            text: t,
        })
    };
    for v in VERBS {
        let name = v.word.name;
        push(name.to_string());
        push(v.word.abbreviation().to_ascii_lowercase());
        push(format!("{name} FROB"));
        let ops: &[Word] = match v.operands {
            Operands::Any => &[],
            Operands::Strict { words, .. } | Operands::Open { words, .. } => words,
        };
        for op in ops {
            push(format!("{name} {}", op.name));
            push(format!(
                "{} {}",
                v.word.abbreviation(),
                op.abbreviation().to_ascii_lowercase()
            ));
            for g in GARBAGE.split('|') {
                push(format!("{name} {} {g}", op.name));
            }
        }
    }
    for sub in QUERY_ALLOC {
        push(format!("QUERY ALLOC {}", sub.name));
        push(format!("Q ALLOC {} FROB", sub.abbreviation()));
    }
    out
}

/// Malformed forms of the CP commands zvmsim models; `guest` is a guest's name, `vdev` one
/// of its device numbers.
pub(super) fn cp_forms(guest: &str, vdev: &str) -> Vec<String> {
    let long = format!("QUERY {}", "X".repeat(300));
    let mut v: Vec<String> = [
        "",
        " ",
        "\t",
        "CP",
        "CP CP QUERY STORAGE",
        "#CP QUERY STORAGE",
        "QUERY\tSTORAGE",
        "query storage",
        "Q STOR FROB",
        "Q\u{a0}STOR",
        "Q STÖR",
        "QUERY ÄLLOC PAGE",
        "Q ALLOC",
        "Q ALLOC PAGE PAGE",
        "Q ALLOC PAGE 10000",
        "Q ALLOC SPOOL",
        "Q XSTOR 0",
        "Q NAMES FROB",
        "Q CPLEVEL FROB",
        "Q PROC FFFF",
        "IND LOAD FROB",
        "IND USER",
        "IND USER NOSUCH",
        "IND USER LONGUSERID",
        "IND USER *",
        "IND USER LNX01 LNX02",
        "IND PAGING",
        "IND PAGING FROB",
        "IND PAGING WAIT",
        "IND PAGING ALL FROB",
        "SET MEMASSIST",
        "SET MEMASSIST ON",
        "SET MEMASSIST ON FROB",
        "SET MEMASSIST MAYBE ALL",
        "SET MEMASSIST OFF USER",
        "SET MEMASSIST OFF USER NOSUCH",
        "SET MEMASSIST OFF USER LONGUSERID",
        "Q MEMASSIST USER NOSUCH",
        "Q MEMASSIST FROB",
        "SET AGELIST",
        "SET AGELIST SIZE",
        "SET AGELIST SIZE -1",
        "SET AGELIST SIZE 101%",
        "SET AGELIST SIZE 0%",
        "SET AGELIST SIZE 99999999999999999999",
        "SET AGELIST SIZE 5G",
        "SET AGELIST SIZE 16Q",
        "SET AGELIST EARLYWRITES MAYBE",
        "SET AGELIST KEEPSLOT",
        "SET AGELIST SIZE 5% SIZE 6%",
        "Q AGELIST FROB",
        "SET SRM STORBUF",
        "SET SRM STORBUF 300 250",
        "SET SRM STORBUF 300 250 200 100",
        "SET SRM STORBUF -1 -1 -1",
        "SET SRM STORBUF 99999999999 1 1",
        "SET SRM LDUBUF 1 2",
        "SET SRM XSTORE 50%",
        "SET SRM DSPSLICE 0",
        "SET SRM FROB",
        "SET MDCACHE",
        "SET MDCACHE SYSTEM OFF FROB",
        "SET MDCACHE STORAGE 0M 0M",
        "SET MDCACHE STORAGE 2G 1G",
        "SET MDCACHE STORAGE 16Q 1G",
        "SET MDCACHE STORAGE -1M 1G",
        "SET MDCACHE STORAGE 99999999999999999999M 1G",
        "SET MDCACHE STORAGE BIAS",
        "SET MDCACHE STORAGE BIAS 0",
        "SET MDCACHE STORAGE BIAS -1",
        "SET MDCACHE STORAGE BIAS 0.0",
        "SET MDCACHE STORAGE BIAS 100.1",
        "SET MDCACHE XSTORE 0M 1M",
        "SET MDCACHE RDEV FFFF OFF",
        "SET MDCACHE RDEV 10000 OFF",
        "SET MDCACHE RDEV 0000-FFFF OFF",
        "SET MDCACHE RDEV 0-0 OFF",
        "SET MDCACHE INSERT",
        "SET MDCACHE INSERT FROB",
        "Q MDCACHE FROB",
        "SET VDISK",
        "SET VDISK SYSLIM",
        "SET VDISK SYSLIM -1M",
        "SET VDISK SYSLIM 16Q",
        "SET VDISK SYSLIM 99999999999999999999M",
        "SET VDISK USERLIM INFINITE FROB",
        "SET VDISK USERLIM 0",
        "SET VDISK FROB 1G",
        "Q VDISK",
        "Q VDISK FROB",
        "Q VDISK USERLIM SYSLIM",
        "DEF VFB-512",
        "DEF VFB-512 AS",
        "DEF VFB-512 FFFF 1000",
        "DEF VFB-512 10000 1000",
        "DEF VFB-512 -1 1000",
        "DEF VFB-512 300 -1",
        "DEF VFB-512 300 99999999999999999999",
        "DEF VFB-512 AS 300 BLK 1000",
        "DEF VFB-512 AS 300 BLK",
        "DEF STORAGE",
        "DEF STORAGE 0",
        "DEF STORAGE 16Q",
        "DEF STORAGE 99999999999999999999M",
        "DEF 300 301",
        "DEF 10000 301",
        "DEF 300",
        "DEF HYPERPAVALIAS",
        "DEF HYPERPAVALIAS 10000 FOR BASE 0200",
        "DEF HYPERPAVALIAS 0300 FOR BASE FFFF",
        "DEF HYPERPAVALIAS 0300 FOR",
        "DEF PAVALIAS 0300 FOR BASE 0200",
        "DETACH",
        "DETACH 10000",
        "DETACH FFFF",
        "DETACH 0000-FFFF",
        "DETACH FFFF-0000",
        "ATTACH",
        "ATTACH FFFF TO SYSTEM",
        "ATTACH 10000 TO SYSTEM",
        "ATTACH B9E0 TO NOSUCH",
        "ATTACH B9E0 TO SYSTEM AS 0300",
        "ATTACH B9E0-B9E0 TO",
        "ATTACH B9E3-B9E0 TO SYSTEM",
        "LINK",
        "LINK NOSUCH 0200 0300 RR",
        "Q PAV",
        "Q PAV 10000",
        "Q PAV FFFF",
        "Q PAV ALL FROB",
        "Q PAGING",
        "SET PAGING",
        "SET PAGING ALIAS",
        "SET PAGING ALIAS MAYBE",
        "Q V DASD",
        "Q VIRTUAL 10000",
        "Q VIRTUAL FFFF",
        "Q VIRTUAL DASD FFFF",
        "Q V ALL",
        "Q DASD",
        "Q DASD 10000",
        "Q DASD DETAILS",
        "Q DASD DETAILS FFFF",
        "Q NSS",
        "Q NSS NAME",
        "Q NSS NAME NOSUCH",
        "Q NSS MAP FROB",
        "Q NSS NAME LONGSEGMENTNAME MAP",
        "DEFSEG",
        "DEFSEG SEG1",
        "DEFSEG SEG1 40000-3FFFF SN",
        "DEFSEG SEG1 40000-40000 XX",
        "DEFSEG SEG1 0-FFFFFFFFFFFFFFFF SN",
        "DEFSEG SEG1 FFFFFFFFFFFFF-FFFFFFFFFFFFF SN",
        "DEFSEG SEG1 10000000000000-10000000000000 SN",
        "DEFSEG SEG1 40000-4FFFF SN 40000-4FFFF SN",
        "DEFSEG SEG1 40000-4FFFF SN PAGES",
        "DEFSEG SEG1 40000.100 SN",
        "DEFSEG SEG1 40000.0 SN",
        "DEFSEG SEG1 40000.FFFFFFFFFFFFFFFF SN",
        "DEFSEG LONGSEGMENTNAME 40000-40FFF SN",
        "DEFSEG SEG1 -1-40FFF SN",
        "DEFSEG SEG1 40000-40FFF SN SPACE",
        "SAVESEG",
        "SAVESEG NOSUCH",
        "SAVESEG SEG1 SEG2",
        "PURGE NSS",
        "PURGE NSS NOSUCH",
        "PURGE NSS 0",
        "PURGE NSS 9999",
        "PURGE NSS FFFFFFFFFFFFFFFFFFFF",
        "SET PRIVCLASS",
        "SET PRIVCLASS CMSDCSS",
        "SET PRIVCLASS CMSDCSS +",
        "SET PRIVCLASS CMSDCSS +Ä",
        "SET PRIVCLASS NOSUCH +E",
        "SET PRIVCLASS CMSDCSS -Z",
        "SET PRIVCLASS CMSDCSS =",
        "SMSG",
        "SMSG VMRMSVM",
        "SMSG NOSUCH HELLO",
        "SMSG VMRMSVM FROB",
        "SMSG VMRMSVM SHRINK -1",
        "XAUTOLOG",
        "XAUTOLOG NOSUCH",
        "XAUTOLOG LONGUSERID",
        "XAUTOLOG VMRMSVM FROB",
        "LOGOFF",
        "FORCE",
        "SHUTDOWN",
        "IPL",
        "SYSTEM CLEAR",
        "VARY OFFLINE FFFF",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(
        [
            "IND USER {g}",
            "IND USER {g} EXP",
            "SET MEMASSIST ON USER {g} {g}",
            "SET MDCACHE MDISK {g} {v} OFF",
            "SET MDCACHE MDISK {g} 10000 OFF",
            "SET MDCACHE MDISK {g} FFFF OFF",
            "SET MDCACHE MDISK {v} OFF",
            "SET MDCACHE MDISK {v}",
            "DETACH {v}",
            "DETACH {v} {v}",
            "Q VIRTUAL {v}",
            "Q V {v} {v}",
            "DEF {v} {v}",
            "DEF {v} FFFF",
            "DEF {v} 10000",
            "DEF HYPERPAVALIAS {v} FOR BASE {v}",
            "DEF VFB-512 AS {v} BLK 1000",
            "XAUTOLOG {g}",
            "SMSG {g} HELLO",
            "DEFSEG SWAPPING 40000-40FFF SN",
            "DEFSEG SWAPPING 40000-40FFF SR",
            "SAVESEG SWAPPING",
            "SAVESEG SWAPPING SWAPPING",
            "Q NSS NAME SWAPPING MAP",
            "PURGE NSS NAME SWAPPING",
            "PURGE NSS NAME SWAPPING FROB",
        ]
        .iter()
        .map(|s| s.replace("{g}", guest).replace("{v}", vdev)),
    );
    v.push(long);
    v.push(format!("Q STOR {}", "9".repeat(250)));
    v.push("Q STOR \u{7}".into());
    v.push("Q STOR \u{0}".into());
    v.push("Q STOR\r".into());
    v.push("Q STOR\nQ STOR".into());
    v
}

/// Every command and file of the Linux catalog, bare and with garbage, and malformed forms of
/// the commands zvmsim models; `dev` is a block device of the guest, `bus` a ccw bus id.
pub(super) fn linux_forms(dev: &str, bus: &str) -> Vec<String> {
    let mut v = Vec::new();
    for c in COMMANDS {
        v.push(c.to_string());
        v.push(format!("{c} --frob"));
    }
    for f in FILES {
        let p = f.pattern.replace("<pid>", "1");
        v.push(format!("cat {p}"));
        v.push(format!("echo 1 > {p}"));
    }
    for f in [
        "/proc/sys/vm/swappiness",
        "/proc/sys/vm/page-cluster",
        "/proc/sys/vm/min_free_kbytes",
        "/proc/sys/vm/cmm_pages",
        "/proc/sys/vm/cmm_timed_pages",
        "/proc/sys/vm/cmm_timeout",
        "/proc/sys/vm/drop_caches",
        "/proc/dasd/statistics",
        "/proc/cio_ignore",
        "/sys/devices/dcssblk/add",
        "/sys/devices/dcssblk/remove",
    ] {
        for n in NUMBERS.split('|') {
            v.push(format!("echo {n} > {f}"));
        }
        v.push(format!("echo > {f}"));
        v.push(format!("echo 1 >> {f}"));
        v.push(format!("echo 1 >{f}"));
        v.push(format!("cat {f} {f}"));
    }
    for k in [
        "vm.swappiness",
        "vm.page-cluster",
        "vm.min_free_kbytes",
        "vm.cmm_pages",
        "vm.cmm_timed_pages",
        "vm.cmm_timeout",
        "vm.nosuch",
    ] {
        v.push(format!("sysctl {k}"));
        v.push(format!("sysctl -w {k}"));
        v.push(format!("sysctl -w {k}="));
        for n in NUMBERS.split('|') {
            v.push(format!("sysctl -w {k}={n}"));
        }
        v.push(format!("sysctl {k}=5"));
        v.push(format!("sysctl -w {k} = 5"));
    }
    for s in [
        "sysctl",
        "sysctl -w",
        "sysctl -a",
        "sysctl -p",
        "modprobe",
        "modprobe cmm sender=",
        "modprobe cmm sender=LONGUSERID",
        "modprobe cmm sender=vmrmsvm sender=X",
        "modprobe cmm frob=1",
        "modprobe cmm sender",
        "modprobe cmm cmm",
        "modprobe -r",
        "modprobe -r cmm cmm",
        "modprobe -r nosuch",
        "modprobe nosuch",
        "modprobe dcssblk segments=",
        "modprobe dcssblk segments=NOSUCH",
        "modprobe dcssblk segments=A:B:C:D:E:F:G:H:I:J:K:L:M:N:O:P:Q:R:S:T:U:V:W:X:Y:Z",
        "modprobe -r dcssblk",
        "rmmod",
        "rmmod cmm cmm",
        "rmmod nosuch",
        "rmmod dcssblk",
        "lsmod FROB",
        "insmod cmm",
        "echo NOSUCH > /sys/devices/dcssblk/add",
        "echo nosuch > /sys/devices/dcssblk/add",
        "echo A:B:C:D:E:F:G:H:I:J:K:L:M:N:O:P:Q:R:S:T:U:V:W:X:Y:Z > /sys/devices/dcssblk/add",
        "echo LONGSEGMENTNAME > /sys/devices/dcssblk/add",
        "echo : > /sys/devices/dcssblk/add",
        "echo NOSUCH > /sys/devices/dcssblk/remove",
        "echo 1 > /sys/devices/dcssblk/NOSUCH/save",
        "echo 1 > /sys/devices/dcssblk/NOSUCH/shared",
        "cat /sys/devices/dcssblk/NOSUCH/seglist",
        "ls /sys/devices/dcssblk",
        "ls /sys/devices/dcssblk/NOSUCH",
        "mknod /dev/dcssblk9 b 252 9",
        "mknod /dev/dcssblk0 b 252",
        "mknod /dev/dcssblk0 b 252 -1",
        "mknod /dev/dcssblk0 b 99999999999999999999 0",
        "swapon",
        "swapon -s FROB",
        "swapon /dev/nosuch",
        "swapon -p",
        "swapon -p -2 /dev/nosuch",
        "swapon -p 99999999999999999999 /dev/nosuch",
        "swapon -p abc /dev/nosuch",
        "swapon -a",
        "swapon LABEL=x",
        "swapoff",
        "swapoff /dev/nosuch",
        "swapoff -a",
        "mkswap",
        "mkswap /dev/nosuch",
        "mkswap -L x",
        "mkswap /dev/dcssblk0 /dev/dcssblk0",
        "mkswap /dev/dcssblk9",
        "mount",
        "mount /dev/nosuch /mnt",
        "mount -o xip /dev/dcssblk9 /mnt",
        "mount -t ext2 -o xip,ro /dev/dcssblk0",
        "umount /mnt",
        "lsdasd FROB",
        "lsdasd -u FROB",
        "lsdasd 0.0.FFFF",
        "lsdasd 0.0.10000",
        "lsdasd -b 0.0.0200",
        "tunedasd",
        "tunedasd -P",
        "tunedasd -P /dev/nosuch",
        "tunedasd -R",
        "tunedasd -R /dev/nosuch",
        "tunedasd -I",
        "tunedasd -P -I nosuch /dev/dasda",
        "tunedasd -X /dev/dasda",
        "tunedasd -c prestage /dev/dasda",
        "chzdev",
        "chzdev dasd",
        "chzdev dasd FFFF -e",
        "chzdev dasd 10000 -e",
        "chccwdev -e 0.0.FFFF",
        "chccwdev -d 0.0.10000",
        "pvpath",
        "pvpath -qa",
        "pvpath -qa /dev/nosuch",
        "pvpath -p",
        "pvpath -p -1 -ey /dev/dasda1",
        "pvpath -p 99999999999999999999 -ey /dev/dasda1",
        "pvpath -p 0 -ex /dev/dasda1",
        "pvpath -p 0 -ey",
        "iostat -x FROB",
        "iostat -x -d -k 1 1",
        "iostat -x 0",
        "vmstat 0",
        "vmstat -1",
        "vmstat 1 0",
        "vmstat 99999999999999999999",
        "vmstat 1 99999999999999999999",
        "vmstat 4294967296 1",
        "vmstat 1 1 1",
        "vmstat abc",
        "free -x",
        "free -m -k -g -t",
        "free -s -1",
        "top -b -n 0",
        "top -b -n 99999999999999999999",
        "top -n",
        "top -b -n -1",
        "uptime FROB",
        "cat",
        "cat /proc/nosuch",
        "cat /proc/meminfo /proc/nosuch",
        "cat /proc/meminfo | grep Mem",
        "cat /proc/meminfo > /dev/null",
        "echo",
        "echo 1 >",
        "echo 1 > > /proc/sys/vm/swappiness",
        "echo 1 2> /proc/sys/vm/swappiness",
        "echo 1 > /proc/sys/vm/swappiness; echo 2 > /proc/sys/vm/swappiness",
        "echo 1 > /proc/sys/vm/swappiness && free",
        "echo 1 > /proc/sys/vm/swappiness &",
        "echo $(cat /proc/sys/vm/swappiness)",
        "echo `free`",
        "echo 'unterminated",
        "echo \"unterminated",
        "\\",
        "|",
        ";",
        "&&",
        ">",
        "<",
        "free\r",
        "free\u{7}",
        "free\u{a0}-m",
        "frée",
        "FREE",
        "Free -m",
        "\tfree\t-m\t",
        "free\n",
        "free\nfree",
        "free \\\n -m",
        "# free",
        "X=1 free",
        "sudo free",
        "time free",
    ] {
        v.push(s.to_string());
    }
    for s in [
        "lsdasd {b}",
        "lsdasd -u {b} {b}",
        "tunedasd -P {d} {d}",
        "tunedasd -R -P {d}",
        "tunedasd -P -I reqs {d}",
        "tunedasd -P -I nosuch {d}",
        "chzdev dasd {b} -e",
        "echo 0 > /sys/bus/ccw/devices/{b}/online",
        "echo 2 > /sys/bus/ccw/devices/{b}/online",
        "echo -1 > /sys/bus/ccw/devices/{b}/online",
        "echo 1 > /sys/bus/ccw/devices/{b}/use_diag",
        "echo 99999999999999999999 > /sys/bus/ccw/devices/{b}/use_diag",
        "echo 1 > /sys/bus/ccw/devices/{b}/readonly",
        "echo 1 > /sys/bus/ccw/devices/{b}/erplog",
        "echo 1 > /sys/bus/ccw/devices/{b}/nosuch",
        "cat /sys/bus/ccw/devices/{b}/nosuch",
        "echo 1 > /sys/bus/ccw/devices/0.0.ffff/online",
        "echo 1 > /sys/bus/ccw/devices/0.0.10000/online",
        "echo 1 > /sys/bus/ccw/devices/0.0.zzzz/online",
        "echo 1 > /sys/bus/ccw/devices//online",
        "mkswap {d}",
        "mkswap {d}1",
        "mkswap {d}9",
        "swapon {d}9",
        "swapon -p -1 {d}1",
        "swapon -p 32768 {d}1",
        "swapon -p 99999999999999999999 {d}1",
        "swapon -p abc {d}1",
        "swapoff {d}9",
        "swapoff {d}1 {d}1",
        "pvpath -qa {d}1",
        "pvpath -p 9 -ey {d}1",
        "pvpath -p 0 -en {d}1",
        "mount {d}1 /mnt",
        "echo SWAPPING > /sys/devices/dcssblk/add",
        "echo SWAPPING:SWAPPING > /sys/devices/dcssblk/add",
        "echo swapping > /sys/devices/dcssblk/remove",
        "echo 2 > /sys/devices/dcssblk/SWAPPING/save",
        "echo 1 > /sys/devices/dcssblk/SWAPPING/shared",
        "echo 0 > /sys/devices/dcssblk/SWAPPING/shared",
        "cat /sys/devices/dcssblk/SWAPPING/seglist",
        "mkswap /dev/dcssblk0",
        "swapon /dev/dcssblk0",
        "swapon -p 99999 /dev/dcssblk0",
        "mount -o xip /dev/dcssblk0 /mnt",
        "swapoff /dev/dcssblk0 /dev/dcssblk0",
        "echo SWAPPING > /sys/devices/dcssblk/remove",
        "echo 1 > /sys/devices/dcssblk/SWAPPING/save",
    ] {
        v.push(s.replace("{d}", dev).replace("{b}", bus));
    }
    v.push(format!("free {}", "-m ".repeat(2000)));
    v.push(format!(
        "echo {} > /proc/sys/vm/swappiness",
        "9".repeat(5000)
    ));
    v
}
