//! The small running systems of console_commands.rs and scenario_mutations.rs: DASD and
//! HyperPAV at z/VM 7.1, VDISK and DASD swap at 5.4, VMRM-CMM at 5.3, a DCSS swap device at
//! 5.4; each a few seconds long.

/// A small running system, and what the inputs address in it.
pub(super) struct Base {
    pub(super) name: &'static str,
    pub(super) text: &'static str,
    pub(super) guest: &'static str,
    pub(super) vdev: &'static str,
    pub(super) dev: &'static str,
    pub(super) bus: &'static str,
}

const DASD: &str = concat!(
    r#"
[lpar]
ifls = 2
central = "2G"
zvm_level = "7.1"
[run]
priming = "1s"
measure = "3s"
interval = "1s"
"#,
    // The channels, storage server, LCU and guest, as in src/system/dasd_tests.rs.
    include_str!("../data/fragments/dasd_hyperpav_fio.toml")
);

const SWAP: &str = concat!(
    r#"
[lpar]
ifls = 2
central = "4G"
zvm_level = "5.4"
[paging]
volumes = [{ model = "3390-9", count = 1 }]
[run]
priming = "1s"
measure = "3s"
interval = "1s"
"#,
    // The guest and its server, as in src/system/swap_tests.rs.
    include_str!("../data/fragments/appserver_swap_guest.toml"),
    r#"[[console]]
cp = "SET VDISK SYSLIM 1536M"
[[console]]
cp = "SET VDISK USERLIM 1G"
[[console]]
at = "100ms"
user = "LNX001"
cp = "DEF VFB-512 AS 2000 BLK 2097152"
[[console]]
at = "200ms"
user = "LNX001"
linux = "mkswap /dev/dasdb1"
[[console]]
at = "210ms"
user = "LNX001"
linux = "swapon /dev/dasdb1"
"#
);

const CMM: &str = r#"
[lpar]
ifls = 1
central = "64M"
zvm_level = "5.3"
[run]
priming = "1s"
measure = "3s"
interval = "1s"
[[guests]]
name = "LNX01"
storage = "32M"
linux = { kernel = "8M", min_free = "1M" }
[vmrm]
config = """
ADMIN MSGUSER MAINT
NOTIFY MEMORY LNX01
"""
[[console]]
user = "LNX01"
linux = "modprobe cmm"
[[console]]
cp = "XAUTOLOG VMRMSVM"
"#;

const DCSS: &str = r#"
[lpar]
ifls = 2
central = "2G"
zvm_level = "5.4"
[paging]
volumes = [{ model = "3390-9", count = 1 }]
[spool]
volumes = [{ model = "3390-9", count = 1 }]
[run]
priming = "1s"
measure = "3s"
interval = "1s"
[[guests]]
name = "LNX001"
storage = "256M"
workload = "was"
dasd = [{ use = "swap", model = "3390-3", count = 1, partition = 2 }]
linux = { kernel = "32M", min_free = "2M", swap = "200M", parameters = "mem=2G" }
[workloads.was]
kind = "appserver"
users = 4
think_time = "20ms"
[workloads.was.appserver]
heap = "300M"
cpu_per_request = "2ms"
refs_per_request = 20
[[console]]
cp = "SET PRIVCLASS CMSDCSS +E"
[[console]]
at = "10ms"
user = "CMSDCSS"
cp = "DEFSEG SWAPPING 40000-40FFF SN"
[[console]]
at = "20ms"
user = "CMSDCSS"
cp = "SAVESEG SWAPPING"
[[console]]
at = "300ms"
user = "LNX001"
linux = "modprobe dcssblk"
[[console]]
at = "310ms"
user = "LNX001"
linux = "mknod /dev/dcssblk0 b 252 0"
[[console]]
at = "320ms"
user = "LNX001"
linux = "echo SWAPPING > /sys/devices/dcssblk/add"
[[console]]
at = "400ms"
user = "LNX001"
linux = "mkswap /dev/dcssblk0"
[[console]]
at = "410ms"
user = "LNX001"
linux = "swapon /dev/dcssblk0"
"#;

pub(super) const BASES: &[Base] = &[
    Base {
        name: "dasd-7.1",
        text: DASD,
        guest: "LNX01",
        vdev: "0200",
        dev: "/dev/dasdb",
        bus: "0.0.0200",
    },
    Base {
        name: "swap-5.4",
        text: SWAP,
        guest: "LNX001",
        vdev: "2000",
        dev: "/dev/dasdb",
        bus: "0.0.2000",
    },
    Base {
        name: "cmm-5.3",
        text: CMM,
        guest: "LNX01",
        vdev: "0200",
        dev: "/dev/dasda",
        bus: "0.0.0200",
    },
    Base {
        name: "dcss-5.4",
        text: DCSS,
        guest: "LNX001",
        vdev: "0200",
        dev: "/dev/dcssblk0",
        bus: "0.0.0200",
    },
];
