//! LVM1 with the multipath patch (`LVM 1.0.5(mp-v6)`, SLES 8): a physical volume reachable
//! through several block devices (paths). Each I/O of the volume goes to the next enabled path
//! in turn (all weights 0: plain round robin); `pvpath -qa` lists the paths, `pvpath -p N
//! -ey|-en PV` enables or disables one. A path the scan finds after the first starts disabled,
//! as seed 004's `pvpath -qa` shows it.

/// One physical volume with its paths.
#[derive(Debug, Clone)]
pub struct MpPv {
    /// The PV's device name (`/dev/dasdc1`).
    pub pv: String,
    pub vg: String,
    /// The paths' virtual device numbers; path 0 is the PV's own disk.
    pub vdevs: Vec<u16>,
    pub enabled: Vec<bool>,
    next: usize,
    /// The real volume its label is on (`linux/lvm1.rs`).
    pub volume: u64,
    /// Its physical extents.
    pub pe_total: u64,
}

/// What `pvpath` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PvpathCommand {
    /// `pvpath -qa [PV]`.
    Query { pv: Option<String> },
    /// `pvpath -p N -ey|-en PV`.
    Set { path: u32, enable: bool, pv: String },
}

#[derive(Debug, Clone, Default)]
pub struct Lvm {
    /// Physical volumes of volume groups, with their paths.
    pub pvs: Vec<MpPv>,
    /// Volumes `pvcreate` labelled that no volume group holds yet.
    pub labels: Vec<u64>,
    pub vgs: Vec<super::lvm1::Vg>,
    /// `vgscan` wrote /etc/lvmtab.
    pub lvmtab: bool,
}

impl MpPv {
    pub fn new(pv: String, vg: String, vdevs: Vec<u16>) -> Self {
        let enabled = (0..vdevs.len()).map(|i| i == 0).collect();
        MpPv {
            pv,
            vg,
            vdevs,
            enabled,
            next: 0,
            volume: 0,
            pe_total: 0,
        }
    }

    /// The path the next I/O takes: the next enabled one after the last used.
    pub fn pick(&mut self) -> usize {
        let n = self.vdevs.len();
        for k in 1..=n {
            let i = (self.next + k) % n;
            if self.enabled[i] {
                self.next = i;
                return i;
            }
        }
        0
    }

    pub fn enabled_paths(&self) -> usize {
        self.enabled.iter().filter(|&&e| e).count()
    }
}

/// Parse `pvpath` with its arguments (LVM1 mp's tool: `-q` query, `-a` all paths, `-p N`
/// path, `-e y|n` enable). Unknown options are refused as getopt refuses them.
pub fn parse(args: &[&str]) -> Result<PvpathCommand, String> {
    let mut query = false;
    let mut path: Option<u32> = None;
    let mut enable: Option<bool> = None;
    let mut pv: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if let Some(flags) = a.strip_prefix('-') {
            let mut chars = flags.chars();
            while let Some(c) = chars.next() {
                let rest: String = chars.clone().collect();
                match c {
                    'q' | 'a' => query = true,
                    'p' | 'e' => {
                        let val = if rest.is_empty() {
                            i += 1;
                            args.get(i).map(|s| s.to_string()).ok_or_else(|| {
                                format!("pvpath: option requires an argument -- '{c}'")
                            })?
                        } else {
                            rest
                        };
                        if c == 'p' {
                            path =
                                Some(val.parse().map_err(|_| {
                                    format!("pvpath: invalid path number \"{val}\"")
                                })?);
                        } else {
                            enable = Some(match val.as_str() {
                                "y" => true,
                                "n" => false,
                                _ => return Err(format!("pvpath: invalid state \"{val}\"")),
                            });
                        }
                        break;
                    }
                    _ => return Err(format!("pvpath: invalid option -- '{c}'")),
                }
            }
        } else {
            pv = Some(a.to_string());
        }
        i += 1;
    }
    match (query, path, enable, pv) {
        (true, None, None, pv) => Ok(PvpathCommand::Query { pv }),
        (false, Some(p), Some(e), Some(pv)) => Ok(PvpathCommand::Set {
            path: p,
            enable: e,
            pv,
        }),
        _ => Err("not simulated by zvmsim: pvpath with these options \
                  (modelled: pvpath -qa [PV], pvpath -p N -ey|-en PV)"
            .into()),
    }
}

impl Lvm {
    /// Run `pvpath`; `dev` gives a path's (major, minor) and requests pending, if online.
    pub fn pvpath(
        &mut self,
        c: &PvpathCommand,
        dev: impl Fn(u16) -> Option<(u32, u32, u32)>,
    ) -> Vec<String> {
        match c {
            PvpathCommand::Query { pv } => {
                let mut out = Vec::new();
                for p in self
                    .pvs
                    .iter()
                    .filter(|p| pv.as_ref().map_or(true, |n| *n == p.pv))
                {
                    out.push(format!(
                        "Physical volume {} of {} has {} paths:",
                        p.pv,
                        p.vg,
                        p.vdevs.len()
                    ));
                    out.push("       Device  Weight Failed Pending State".into());
                    for (i, &v) in p.vdevs.iter().enumerate() {
                        let (maj, min, pend) = dev(v).unwrap_or((0, 0, 0));
                        let state = if p.enabled[i] { "enabled" } else { "disabled" };
                        out.push(format!(
                            " # {i:2}: {:>3}:{:<6}{:>4}{:>7}{:>8} {state}",
                            maj, min, 0, 0, pend
                        ));
                    }
                }
                if out.is_empty() {
                    out.push(format!(
                        "not simulated by zvmsim: pvpath -qa {} (no such multipath physical \
                         volume; pvpath's message is not modelled)",
                        pv.clone().unwrap_or_default()
                    ));
                }
                out
            }
            PvpathCommand::Set { path, enable, pv } => {
                let Some((k, p)) = self.pvs.iter_mut().enumerate().find(|(_, p)| p.pv == *pv)
                else {
                    return vec![format!(
                        "not simulated by zvmsim: pvpath -p{path} {pv} (not a multipath \
                         physical volume; pvpath's message is not modelled)"
                    )];
                };
                let i = *path as usize;
                if i >= p.vdevs.len() {
                    return vec![format!(
                        "not simulated by zvmsim: pvpath -p{path} {pv} ({pv} has {} paths; \
                         pvpath's message is not modelled)",
                        p.vdevs.len()
                    )];
                }
                if !enable && p.enabled_paths() == 1 && p.enabled[i] {
                    return vec![format!(
                        "not simulated by zvmsim: pvpath -p{path} -en {pv} (the last enabled \
                         path; pvpath's message is not modelled)"
                    )];
                }
                p.enabled[i] = *enable;
                vec![format!(
                    "{}: setting state of path #{path} of PV#{} to {}",
                    p.vg,
                    k + 1,
                    if *enable { "enabled" } else { "disabled" }
                )]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pvpath_as_seed_004_shows_it_and_round_robin_over_enabled_paths() {
        let mut l = Lvm {
            pvs: vec![MpPv::new(
                "/dev/dasdc1".into(),
                "vg_kb".into(),
                vec![0x5680, 0x56bf],
            )],
            ..Default::default()
        };
        let dev = |v: u16| Some((94, if v == 0x5680 { 9 } else { 13 }, 0));
        let q = l.pvpath(&parse(&["-qa"]).unwrap(), dev);
        assert_eq!(q[0], "Physical volume /dev/dasdc1 of vg_kb has 2 paths:");
        // Seed 004's lines, column for column.
        assert_eq!(q[1], "       Device  Weight Failed Pending State");
        assert_eq!(q[2], " #  0:  94:9        0      0       0 enabled");
        assert_eq!(q[3], " #  1:  94:13       0      0       0 disabled");
        assert_eq!(l.pvs[0].pick(), 0);
        assert_eq!(l.pvs[0].pick(), 0, "a disabled path takes no I/O");
        let set = parse(&["-p1", "-ey", "/dev/dasdc1"]).unwrap();
        assert_eq!(
            l.pvpath(&set, dev),
            vec!["vg_kb: setting state of path #1 of PV#1 to enabled"]
        );
        assert_eq!((l.pvs[0].pick(), l.pvs[0].pick()), (1, 0));
        // Refused: unknown option, bad state, a path that is not there (nothing changes).
        assert_eq!(parse(&["-x"]).unwrap_err(), "pvpath: invalid option -- 'x'");
        assert!(parse(&["-p1", "-ek", "/dev/dasdc1"]).is_err());
        let bad = parse(&["-p", "5", "-ey", "/dev/dasdc1"]).unwrap();
        assert!(l.pvpath(&bad, dev)[0].starts_with("not simulated by zvmsim"));
        assert_eq!(l.pvs[0].enabled, vec![true, true]);
    }
}
