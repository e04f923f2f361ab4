//! LVM 1.0.5's volume groups and its tools as SLES 8 ships them (`LVM 1.0.5(mp-v6)`, seed
//! 004): `pvcreate`, `vgcreate`, `lvcreate`, `vgscan`, `vgdisplay`, `lvscan` and the driver's
//! `/proc/lvm/global`. The lines are those seed 004 and LVM1 sessions of the time show (each
//! tool ends its report with an empty line). A refusal, whose wording zvmsim does not have,
//! answers `not simulated by zvmsim` and changes nothing.
//!
//! A physical volume is a label on a volume, not on a device: under z/VM a 2.4 guest sees
//! each static PAV alias CP attaches as a disk of its own on the same volume, so the label
//! `pvcreate` writes through one disk is found through all of them. When `vgcreate` takes
//! the volume into a group, the multipath patch makes those disks the volume's paths, the
//! first the disk named, the others disabled until `pvpath -p N -ey` (`linux/lvm.rs`).

use super::lvm::{Lvm, MpPv};

/// 1 KB units LVM1 counts in.
const KB_PER_MB: u64 = 1024;
/// The default physical extent of vgcreate (`vgcreate -- INFO: using default physical
/// extent size 4 MB`).
const DEFAULT_PE_KB: u64 = 4 * KB_PER_MB;
/// Extents an LV may have at most (LVM_PE_T_MAX, include/linux/lvm.h of 2.4): 255.99 GB
/// with 4 MB extents, as vgcreate and vgdisplay print it.
const MAX_LE: u64 = 65_534;
/// Volume groups, logical volumes per group and physical volumes per group (vgdisplay's
/// `MAX LV` and `Max PV`: vgcreate's defaults).
const MAX_LV: usize = 256;
const MAX_PV: usize = 256;

/// A logical volume's size as lvcreate is given it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LvSize {
    /// `-l|--extents N`.
    Extents(u64),
    /// `-L|--size N[kKmMgGtT]`, in KB (a bare number is MB).
    Kb(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lvm1Command {
    Vgscan,
    Pvcreate {
        pvs: Vec<String>,
    },
    Vgcreate {
        vg: String,
        pvs: Vec<String>,
    },
    Lvcreate {
        lv: Option<String>,
        vg: String,
        size: LvSize,
    },
    /// `vgdisplay [VG]`.
    Vgdisplay {
        vg: Option<String>,
    },
    Lvscan,
    /// `cat /proc/lvm/global`.
    ProcGlobal,
}

/// A disk of the guest as LVM sees it.
#[derive(Debug, Clone)]
pub struct Disk {
    /// dasda, ...
    pub name: String,
    /// Its first partition's size in KB (the whole volume less the label tracks).
    pub part_kb: u64,
    /// The real volume it reaches (a base and its static aliases share it).
    pub volume: u64,
    pub vdev: u16,
}

#[derive(Debug, Clone)]
pub struct Lv {
    pub name: String,
    pub le: u64,
}

#[derive(Debug, Clone)]
pub struct Vg {
    pub name: String,
    /// `VG #`: the lowest number free when it was created.
    pub number: u32,
    pub pe_kb: u64,
    /// Its physical volumes (indexes in `Lvm::pvs`).
    pub pvs: Vec<usize>,
    pub lvs: Vec<Lv>,
    pub uuid: String,
}

impl Vg {
    fn pe_total(&self, lvm: &Lvm) -> u64 {
        self.pvs.iter().map(|&p| lvm.pvs[p].pe_total).sum()
    }
    fn pe_alloc(&self) -> u64 {
        self.lvs.iter().map(|l| l.le).sum()
    }
}

/// Parse an LVM1 tool's command line; None: a form zvmsim does not model (other options).
pub fn parse(cmd: &str, args: &[&str]) -> Result<Option<Lvm1Command>, String> {
    let plain = args.iter().all(|a| !a.starts_with('-'));
    let words = || args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    Ok(match cmd {
        "vgscan" if args.is_empty() => Some(Lvm1Command::Vgscan),
        "lvscan" if args.is_empty() => Some(Lvm1Command::Lvscan),
        "pvcreate" if plain && !args.is_empty() => Some(Lvm1Command::Pvcreate { pvs: words() }),
        "vgcreate" if plain && args.len() >= 2 => {
            let mut w = words();
            let vg = w.remove(0);
            Some(Lvm1Command::Vgcreate { vg, pvs: w })
        }
        "vgdisplay" if plain && args.len() <= 1 => Some(Lvm1Command::Vgdisplay {
            vg: args.first().map(|v| v.to_string()),
        }),
        "lvcreate" => lvcreate(args),
        _ => None,
    })
}

/// `lvcreate -n|--name LV -l|--extents N | -L|--size S VG`.
fn lvcreate(args: &[&str]) -> Option<Lvm1Command> {
    let (mut lv, mut vg, mut size) = (None, None, None);
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        let (opt, inline) = match a.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (a, None),
        };
        let (key, glued) = match opt {
            o if o.starts_with("--") => (o, None),
            o if o.len() > 2 && o.starts_with('-') => (&o[..2], Some(&o[2..])),
            o => (o, None),
        };
        let mut value = || inline.or(glued).or_else(|| it.next().copied());
        match key {
            "-n" | "--name" => lv = Some(value()?.to_string()),
            "-l" | "--extents" => size = Some(LvSize::Extents(value()?.parse().ok()?)),
            "-L" | "--size" => size = Some(LvSize::Kb(lv_kb(value()?)?)),
            k if k.starts_with('-') => return None,
            v if vg.is_none() => vg = Some(v.trim_start_matches("/dev/").to_string()),
            _ => return None,
        }
    }
    Some(Lvm1Command::Lvcreate {
        lv,
        vg: vg?,
        size: size?,
    })
}

/// lvcreate's `-L` size: a number of MB, or with a unit k, m, g or t.
fn lv_kb(s: &str) -> Option<u64> {
    let (num, unit) = match s.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => (&s[..i], c.to_ascii_lowercase()),
        _ => (s, 'm'),
    };
    let n: u64 = num.parse().ok()?;
    let mul = match unit {
        'k' => 1,
        'm' => KB_PER_MB,
        'g' => KB_PER_MB * 1024,
        't' => KB_PER_MB * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(mul).filter(|&kb| kb > 0)
}

/// A size as LVM1 prints it (lvm_show_size): in the largest unit it reaches, whole values
/// bare and others with two decimals, rounded (transcripts of LVM 0.9 and 1.0: `4 MB`,
/// `2 GB`, `13.79 GB` for 14,458,468 KB, `255.99 GB` for 65,534 extents of 4 MB); 0 alone.
pub fn show_size(kb: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 30, "TB"), (1 << 20, "GB"), (1 << 10, "MB"), (1, "KB")];
    if kb == 0 {
        return "0".into();
    }
    let (unit, name) = UNITS
        .into_iter()
        .find(|(u, _)| kb >= *u)
        .unwrap_or((1, "KB"));
    if kb % unit == 0 {
        format!("{} {name}", kb / unit)
    } else {
        format!("{:.2} {name}", kb as f64 / unit as f64)
    }
}

fn not_simulated(what: &str) -> Vec<String> {
    vec![format!(
        "not simulated by zvmsim: {what} (LVM1's message is not modelled)"
    )]
}

/// The partition a PV argument names (`/dev/dasdc1`): the disk's index, if it is a first
/// partition of one of `disks`.
fn partition(disks: &[Disk], dev: &str) -> Option<usize> {
    let disk = dev.strip_prefix("/dev/")?.strip_suffix('1')?;
    disks.iter().position(|d| d.name == disk)
}

/// The volume group's identifier as LVM1 forms it (lvm_create_uuid: 32 letters and digits
/// in groups of 6-4-4-4-4-4-6), here drawn from the guest's and group's names so that a run
/// is reproducible.
fn uuid(seed: &str) -> String {
    const CHARS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut h = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let mut out = String::new();
    for (i, n) in [6, 4, 4, 4, 4, 4, 6].into_iter().enumerate() {
        if i > 0 {
            out.push('-');
        }
        for _ in 0..n {
            // splitmix64's step
            h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = h;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            out.push(CHARS[((z ^ (z >> 31)) % CHARS.len() as u64) as usize] as char);
        }
    }
    out
}

impl Lvm {
    /// Run an LVM1 tool in guest `guest` whose disks are `disks` (in minor order).
    pub fn run(&mut self, c: &Lvm1Command, guest: &str, disks: &[Disk]) -> Vec<String> {
        match c {
            Lvm1Command::Vgscan => self.vgscan(),
            Lvm1Command::Pvcreate { pvs } => self.pvcreate(pvs, disks),
            Lvm1Command::Vgcreate { vg, pvs } => self.vgcreate(vg, pvs, guest, disks),
            Lvm1Command::Lvcreate { lv, vg, size } => self.lvcreate(lv.as_deref(), vg, *size),
            Lvm1Command::Vgdisplay { vg } => self.vgdisplay(vg.as_deref()),
            Lvm1Command::Lvscan => self.lvscan(),
            Lvm1Command::ProcGlobal => self.proc_global(),
        }
    }

    fn vgscan(&mut self) -> Vec<String> {
        if self.vgs.is_empty() {
            return not_simulated("vgscan with no volume group on the disks");
        }
        self.lvmtab = true;
        let mut out =
            vec!["vgscan -- reading all physical volumes (this may take a while...)".into()];
        for vg in &self.vgs {
            out.push(format!(
                "vgscan -- found active volume group \"{}\"",
                vg.name
            ));
        }
        out.push("vgscan -- \"/etc/lvmtab\" and \"/etc/lvmtab.d\" successfully created".into());
        out.push(
            "vgscan -- WARNING: This program does not do a VGDA backup of your volume group".into(),
        );
        out.push(String::new());
        out
    }

    /// Whether `volume` carries a PV label.
    fn labelled(&self, volume: u64) -> bool {
        self.labels.contains(&volume) || self.pvs.iter().any(|p| p.volume == volume)
    }

    fn pvcreate(&mut self, pvs: &[String], disks: &[Disk]) -> Vec<String> {
        let mut vols = Vec::new();
        for dev in pvs {
            match partition(disks, dev) {
                Some(d) if !self.labelled(disks[d].volume) && !vols.contains(&disks[d].volume) => {
                    vols.push(disks[d].volume)
                }
                Some(_) => {
                    return not_simulated(&format!("pvcreate {dev} (already a physical volume)"))
                }
                None => {
                    return not_simulated(&format!(
                        "pvcreate {dev} (not a first partition of a DASD)"
                    ))
                }
            }
        }
        self.labels.extend(&vols);
        let mut out: Vec<String> = pvs
            .iter()
            .map(|p| format!("pvcreate -- physical volume \"{p}\" successfully created"))
            .collect();
        out.push(String::new());
        out
    }

    fn vgcreate(&mut self, name: &str, pvs: &[String], guest: &str, disks: &[Disk]) -> Vec<String> {
        if self.vgs.iter().any(|v| v.name == name) {
            return not_simulated(&format!("vgcreate {name} (the volume group exists)"));
        }
        let mut chosen = Vec::new();
        for dev in pvs {
            match partition(disks, dev) {
                Some(d)
                    if self.labels.contains(&disks[d].volume)
                        && !chosen
                            .iter()
                            .any(|&c: &usize| disks[c].volume == disks[d].volume) =>
                {
                    chosen.push(d)
                }
                _ => {
                    return not_simulated(&format!(
                        "vgcreate {name} {dev} (not a free physical volume)"
                    ))
                }
            }
        }
        let number = (0..)
            .find(|n| self.vgs.iter().all(|v| v.number != *n))
            .unwrap_or(0);
        let mut idx = Vec::new();
        for &d in &chosen {
            let disk = &disks[d];
            self.labels.retain(|&v| v != disk.volume);
            // The multipath patch: every disk on the volume is a path, the one named first.
            let vdevs = std::iter::once(disk.vdev)
                .chain(
                    disks
                        .iter()
                        .filter(|o| o.volume == disk.volume && o.vdev != disk.vdev)
                        .map(|o| o.vdev),
                )
                .collect();
            let mut pv = MpPv::new(format!("/dev/{}1", disk.name), name.to_string(), vdevs);
            pv.volume = disk.volume;
            pv.pe_total = pe_total(disk.part_kb, DEFAULT_PE_KB);
            self.pvs.push(pv);
            idx.push(self.pvs.len() - 1);
        }
        self.vgs.push(Vg {
            name: name.to_string(),
            number,
            pe_kb: DEFAULT_PE_KB,
            pvs: idx,
            lvs: Vec::new(),
            uuid: uuid(&format!("{guest}/{name}")),
        });
        vec![
            "vgcreate -- INFO: using default physical extent size 4 MB".into(),
            format!(
                "vgcreate -- INFO: maximum logical volume size is {}",
                show_size(MAX_LE * DEFAULT_PE_KB).replace(" GB", " Gigabyte")
            ),
            format!("vgcreate -- doing automatic backup of volume group \"{name}\""),
            format!("vgcreate -- volume group \"{name}\" successfully created and activated"),
            String::new(),
        ]
    }

    fn lvcreate(&mut self, lv: Option<&str>, vg: &str, size: LvSize) -> Vec<String> {
        let Some(v) = self.vgs.iter().position(|x| x.name == vg) else {
            return not_simulated(&format!("lvcreate in {vg} (no such volume group)"));
        };
        let g = &self.vgs[v];
        let (le, rounded) = match size {
            LvSize::Extents(n) => (n, false),
            LvSize::Kb(kb) => (kb.div_ceil(g.pe_kb), kb % g.pe_kb != 0),
        };
        let free = g.pe_total(self) - g.pe_alloc();
        let name = lv.map_or_else(|| format!("lvol{}", g.lvs.len() + 1), str::to_string);
        if le == 0
            || le > free
            || le > MAX_LE
            || g.lvs.len() >= MAX_LV
            || g.lvs.iter().any(|l| l.name == name)
        {
            return not_simulated(&format!(
                "lvcreate of {le} extents named {name} in {vg} ({free} free)"
            ));
        }
        self.vgs[v].lvs.push(Lv {
            name: name.clone(),
            le,
        });
        let mut out = Vec::new();
        if rounded {
            out.push("lvcreate -- rounding size up to physical extent boundary".into());
        }
        out.push(format!("lvcreate -- doing automatic backup of \"{vg}\""));
        out.push(format!(
            "lvcreate -- logical volume \"/dev/{vg}/{name}\" successfully created"
        ));
        out.push(String::new());
        out
    }

    fn vgdisplay(&self, vg: Option<&str>) -> Vec<String> {
        let shown: Vec<&Vg> = self
            .vgs
            .iter()
            .filter(|v| vg.map_or(true, |n| n == v.name))
            .collect();
        if shown.is_empty() {
            return not_simulated(&format!(
                "vgdisplay {} (no such volume group)",
                vg.unwrap_or("")
            ));
        }
        let mut out = Vec::new();
        for g in shown {
            let (total, alloc) = (g.pe_total(self), g.pe_alloc());
            let kb = |pe: u64| show_size(pe * g.pe_kb);
            let rows: [(&str, String); 18] = [
                ("VG Name", g.name.clone()),
                ("VG Access", "read/write".into()),
                ("VG Status", "available/resizable".into()),
                ("VG #", g.number.to_string()),
                ("MAX LV", MAX_LV.to_string()),
                ("Cur LV", g.lvs.len().to_string()),
                ("Open LV", "0".into()),
                ("MAX LV Size", kb(MAX_LE)),
                ("Max PV", MAX_PV.to_string()),
                ("Cur PV", g.pvs.len().to_string()),
                ("Act PV", g.pvs.len().to_string()),
                ("VG Size", kb(total)),
                ("PE Size", show_size(g.pe_kb)),
                ("Total PE", total.to_string()),
                ("Alloc PE / Size", format!("{alloc} / {}", kb(alloc))),
                (
                    "Free  PE / Size",
                    format!("{} / {}", total - alloc, kb(total - alloc)),
                ),
                ("VG UUID", g.uuid.clone()),
                ("", String::new()),
            ];
            out.push("--- Volume group ---".into());
            out.extend(rows.iter().map(|(k, v)| {
                if k.is_empty() {
                    String::new()
                } else {
                    format!("{k:<22}{v}")
                }
            }));
        }
        out
    }

    fn lvscan(&self) -> Vec<String> {
        let lvs: Vec<(&Vg, &Lv)> = self
            .vgs
            .iter()
            .flat_map(|g| g.lvs.iter().map(move |l| (g, l)))
            .collect();
        if lvs.is_empty() {
            return not_simulated("lvscan with no logical volume");
        }
        let mut out: Vec<String> = lvs
            .iter()
            .map(|(g, l)| {
                format!(
                    "lvscan -- ACTIVE            \"/dev/{}/{}\" [{}]",
                    g.name,
                    l.name,
                    show_size(l.le * g.pe_kb)
                )
            })
            .collect();
        let total: u64 = lvs.iter().map(|(g, l)| l.le * g.pe_kb).sum();
        let groups = self.vgs.iter().filter(|g| !g.lvs.is_empty()).count();
        out.push(String::new());
        out.push(format!(
            "lvscan -- {} logical volumes with {} total in {groups} volume group{}",
            lvs.len(),
            show_size(total),
            if groups == 1 { "" } else { "s" }
        ));
        out.push(format!("lvscan -- {} active logical volumes", lvs.len()));
        out.push(String::new());
        out
    }

    fn proc_global(&self) -> Vec<String> {
        not_simulated("cat /proc/lvm/global")
    }
}

/// Physical extents LVM1 gives a partition of `part_kb` with extents of `pe_kb`: its tools
/// start from the partition's size in whole extents, take one off, and keep taking one off
/// while the volume group descriptor area and the extents do not fit. The area is the PV
/// and VG structures (1 KB and 4 KB), the UUID list (128 bytes per possible PV), the LV
/// structures (328 bytes each) and the extent map (4 bytes per extent), each on a 4 KB
/// boundary; the first extent starts on a 64 KB boundary. (The layout as LVM2's format1
/// reader rewrote it, lib/format1/layout.c; the list sizes MAX + 1 as LVM1's `[LVM: 136 KB]`
/// in pvdisplay shows them. Gives seed 004's 1759 extents for its 3390-9's partition.)
pub fn pe_total(part_kb: u64, pe_kb: u64) -> u64 {
    const ALIGN: u64 = 4096;
    let up = |x: u64, a: u64| x.div_ceil(a) * a;
    let (size, pe) = (part_kb * 2, pe_kb * 2); // in 512-byte sectors
    let mut n = size / pe;
    while n > 0 {
        n -= 1;
        let uuids = up(4096 + 4096, ALIGN);
        let lvs = up(uuids + (MAX_PV as u64 + 1) * 128, ALIGN);
        let map = up(lvs + (MAX_LV as u64 + 1) * 328, ALIGN);
        let first = up((map + n * 4) / 512, 128);
        if first + n * pe <= size {
            break;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_lvm1_prints_them() {
        assert_eq!(show_size(0), "0");
        assert_eq!(show_size(4096), "4 MB");
        assert_eq!(show_size(224 * 1024), "224 MB");
        assert_eq!(show_size(2 << 20), "2 GB");
        assert_eq!(show_size(1759 * 4096), "6.87 GB");
        assert_eq!(show_size(MAX_LE * 4096), "255.99 GB");
        assert_eq!(show_size(14_458_468), "13.79 GB");
        assert_eq!(show_size(30_571_695), "29.16 GB");
    }

    #[test]
    fn extents_as_lvm1_counts_them() {
        // Seed 004: a 3390-9's partition (1,803,036 blocks of 4 KB) gives 1759 extents of
        // 4 MB, one less than fit; a 17,703,630-sector PV of 2003 gave 2160.
        assert_eq!(pe_total(1_803_036 * 4, 4096), 1759);
        assert_eq!(pe_total(17_703_630 / 2, 4096), 2160);
        assert_eq!(pe_total(4096, 4096), 0);
    }
}
