//! Where the user directory's minidisks lie, and the scenario checks of the directory's
//! device statements (cp/directory.rs parses them): every real device and volume serial named
//! is a base of `[io]`, an extent fits on its volume, MINIOPT follows a minidisk on a real
//! volume, and LINK names a user of the scenario and one of that user's minidisks. A guest
//! entry with `count` > 1 gives each of its guests the same statements: their MDISKs of one
//! extent are one minidisk, as a LINK of it would be.

use crate::config::io::{parse_rdev, IoSpec};
use crate::config::scenario::DasdModel;
use crate::config::scenario::{Scenario, ScenarioError, Source};
use crate::cp::directory::{parse_directory, DirStatement};
use crate::cp::mdcelig::MdiskSetting;

/// 4 KB blocks of a 3390 cylinder (15 tracks of 12 records).
pub const CYL_BLOCKS: u64 = 180;

/// The base device `rdev` of `[io]`: its model.
pub fn base_model(io: &IoSpec, rdev: u16) -> Option<DasdModel> {
    io.lcus.iter().flat_map(|l| &l.bases).find_map(|b| {
        let f = parse_rdev(&b.rdev)?;
        (rdev >= f && ((rdev - f) as u32) < b.count).then_some(b.model)
    })
}

/// The base device labelled `volser`.
pub fn volume(io: &IoSpec, volser: &str) -> Option<u16> {
    io.lcus.iter().flat_map(|l| &l.bases).find_map(|b| {
        let f = parse_rdev(&b.rdev)?;
        let k = b
            .volsers
            .iter()
            .take(b.count as usize)
            .position(|v| v.eq_ignore_ascii_case(volser))?;
        f.checked_add(k as u16)
    })
}

/// The label of base device `rdev`, if `[io]` gives one.
pub fn volser(io: &IoSpec, rdev: u16) -> Option<&str> {
    io.lcus.iter().flat_map(|l| &l.bases).find_map(|b| {
        let f = parse_rdev(&b.rdev)?;
        let k = rdev.checked_sub(f)? as usize;
        (k < b.count as usize).then(|| b.volsers.get(k).map(String::as_str))?
    })
}

/// A minidisk on a real volume: (real device, first 4 KB block, blocks).
pub fn extent(io: Option<&IoSpec>, st: &DirStatement) -> Result<(u16, u64, u64), String> {
    let Some(io) = io else {
        return Err("a minidisk on a real volume needs the volumes of an [io] table".into());
    };
    match st {
        DirStatement::MdiskDevno { rdev, .. } => match base_model(io, *rdev) {
            Some(m) => Ok((*rdev, 0, m.pages())),
            None => Err(format!(
                "real device {rdev:04X} is not a base device of [io]"
            )),
        },
        DirStatement::Mdisk {
            start,
            count,
            volser,
            ..
        } => {
            let Some(rdev) = volume(io, volser) else {
                return Err(format!(
                    "no base device of [io] is labelled `{volser}` (io.lcus[].bases[].volsers)"
                ));
            };
            let cyls = base_model(io, rdev).map_or(0, |m| m.cylinders());
            let start = *start as u64;
            let n = count.map_or(cyls.saturating_sub(start), |c| c as u64);
            if n == 0 || start + n > cyls {
                return Err(format!(
                    "cylinders {start} to {} do not fit on {volser} ({rdev:04X}, {cyls} cylinders)",
                    start + n.max(1) - 1
                ));
            }
            Ok((rdev, start * CYL_BLOCKS, n * CYL_BLOCKS))
        }
        _ => Err("not a minidisk on a real volume".into()),
    }
}

/// The MINIOPT setting of the MDISK statement at `i` of `lines` (the MINIOPT right after it).
pub fn miniopt(lines: &[String], i: usize) -> MdiskSetting {
    match lines.get(i + 1).map(|l| parse_directory(l)) {
        Some(Ok(DirStatement::Miniopt { mdc: true })) => MdiskSetting::On,
        Some(Ok(DirStatement::Miniopt { mdc: false })) => MdiskSetting::Off,
        _ => MdiskSetting::Default,
    }
}

/// The minidisk `vdev` of a directory: its statement and MINIOPT setting.
pub fn find_mdisk(lines: &[String], vdev: u16) -> Option<(DirStatement, MdiskSetting)> {
    lines.iter().enumerate().find_map(|(i, l)| {
        let st = parse_directory(l).ok()?;
        (st.real_mdisk_vdev() == Some(vdev)).then(|| (st, miniopt(lines, i)))
    })
}

/// `[io] paging`: one distinct base of [io] per paging volume, of the volume's model, used by
/// no directory statement.
fn check_paging(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let Some(io) = &s.io else { return Ok(()) };
    if io.paging.is_empty() {
        return Ok(());
    }
    let models: Vec<DasdModel> = s
        .paging
        .volumes
        .iter()
        .flat_map(|v| std::iter::repeat(v.model).take(v.count as usize))
        .collect();
    if models.len() != io.paging.len() {
        return Err(src.error(
            "io.paging",
            format!(
                "{} real devices for {} paging volumes ([paging] volumes): one each",
                io.paging.len(),
                models.len()
            ),
        ));
    }
    let mut seen = Vec::new();
    for (k, (r, m)) in io.paging.iter().zip(&models).enumerate() {
        let field = format!("io.paging[{k}]");
        let Some(rdev) = parse_rdev(r) else {
            return Err(src.error(
                &field,
                format!("`{r}` is not a device number (1-4 hex digits)"),
            ));
        };
        match base_model(io, rdev) {
            None => {
                return Err(src.error(&field, format!("{rdev:04X} is not a base device of [io]")))
            }
            Some(b) if b != *m => {
                return Err(src.error(
                    &field,
                    format!("{rdev:04X} is a {b:?}, the paging volume a {m:?}"),
                ))
            }
            _ => {}
        }
        if seen.contains(&rdev) {
            return Err(src.error(&field, format!("{rdev:04X} is named twice")));
        }
        seen.push(rdev);
        for g in &s.guests {
            for l in &g.directory {
                let used = match parse_directory(l) {
                    Ok(DirStatement::Dedicate { rdev: d, .. }) => d == rdev,
                    Ok(st @ (DirStatement::MdiskDevno { .. } | DirStatement::Mdisk { .. })) => {
                        extent(Some(io), &st).is_ok_and(|e| e.0 == rdev)
                    }
                    _ => false,
                };
                if used {
                    return Err(src.error(
                        &field,
                        format!(
                            "{rdev:04X} is a paging volume and the directory's `{}`",
                            l.trim()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The directory's device statements, and `[io] paging`.
pub fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    check_paging(s, src)?;
    let users = s.guest_instances();
    for (i, g) in s.guests.iter().enumerate() {
        let mut vdevs: Vec<u16> = Vec::new();
        let mut prev: Option<DirStatement> = None;
        for (j, line) in g.directory.iter().enumerate() {
            let field = format!("guests[{i}].directory[{j}]");
            let err = |d: String| {
                src.error(
                    &field,
                    format!("directory statement `{}`: {d}", line.trim()),
                )
            };
            let st = parse_directory(line).map_err(|e| src.error(&field, e))?;
            let vdev = match &st {
                DirStatement::MdiskDevno { vdev, .. } | DirStatement::Mdisk { vdev, .. } => {
                    extent(s.io.as_ref(), &st).map_err(err)?;
                    Some(*vdev)
                }
                DirStatement::Dedicate { vdev, rdev } => {
                    if s.io.as_ref().and_then(|io| base_model(io, *rdev)).is_none() {
                        return Err(src.error(
                            &field,
                            format!("real device {rdev:04X} is not a base device of [io]"),
                        ));
                    }
                    Some(*vdev)
                }
                DirStatement::Vdisk { vdev, .. } => Some(*vdev),
                DirStatement::Miniopt { .. } => {
                    if prev.as_ref().and_then(|p| p.real_mdisk_vdev()).is_none() {
                        return Err(err(
                            "MINIOPT must follow an MDISK statement of a minidisk on a real volume"
                                .into(),
                        ));
                    }
                    None
                }
                DirStatement::Link {
                    user,
                    vdev,
                    as_vdev,
                    ..
                } => {
                    let Some(owner) = users.iter().find(|u| &u.name == user) else {
                        return Err(err(format!("{user} is not a guest of the scenario")));
                    };
                    let lines = &s.guests[owner.spec_index].directory;
                    if find_mdisk(lines, *vdev).is_none() {
                        return Err(err(format!(
                            "{user} has no minidisk {vdev:04X} on a real volume in its directory"
                        )));
                    }
                    Some(*as_vdev)
                }
                DirStatement::Command(_) | DirStatement::Option { .. } | DirStatement::Class(_) => {
                    None
                }
            };
            if let Some(v) = vdev {
                if vdevs.contains(&v) {
                    return Err(err(format!("virtual device {v:04X} is defined twice")));
                }
                vdevs.push(v);
            }
            prev = Some(st);
        }
    }
    Ok(())
}
