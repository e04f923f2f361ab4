//! Bounds of the real system (or of physics) on what a scenario may ask for, checked after the
//! semantic checks of `validate`: the model's global parameters, the run's length and number of
//! statistics intervals, the guests' volume counts and Linux device names, and the database's
//! room on its volumes. Each bound names its source or is marked as an inference; a value
//! outside it is a located error naming the bound.

use crate::config::params::ModelParams;
use crate::config::scenario::{DasdUse, Scenario, ScenarioError, Source};
use crate::config::units::{Duration, NS_PER_MS, NS_PER_S};

/// Device numbers of a virtual machine are four hex digits (0000-FFFF): at most 65,536 virtual
/// devices, console and network included (z/Architecture I/O: a 16-bit device number).
pub const MAX_GUEST_DEVICES: u64 = 65_536;
/// LVM2 stripes a logical volume over at most 128 physical volumes (MAX_STRIPES in LVM2's
/// lib/metadata); the database is one striped logical volume.
pub const MAX_DATABASE_VOLUMES: u64 = 128;
/// Linux keeps swap areas in a 5-bit type field (MAX_SWAPFILES_SHIFT), and kernels with page
/// migration (SLES 10/11) take two of the 32 types for migration entries. Inference from
/// include/linux/swap.h of those kernels.
pub const MAX_SWAP_VOLUMES: u64 = 30;
/// Guests of one scenario. z/VM publishes no hard limit on logged-on users; this is zvmsim's
/// own bound (inference), well above the 1,000-guest studies it is validated on, and the memory
/// estimate (`config::resources`) still applies below it.
pub const MAX_GUESTS: u64 = 65_536;
/// Statistics intervals of one run: each keeps one row per guest and one system row, so their
/// number bounds the run's memory (zvmsim's bound, an inference: a day of one-minute intervals
/// is 1,440).
pub const MAX_INTERVALS: u64 = 100_000;
/// Shortest statistics interval: the CP monitor's sample interval is set in whole seconds
/// (MONITOR SAMPLE INTERVAL n SECONDS), and Performance Toolkit reports per monitor sample.
pub const MIN_INTERVAL: Duration = Duration(NS_PER_S);
/// Longest run (priming and measured window): zvmsim's bound (inference), a week of simulated
/// time; longer studies are several runs.
pub const MAX_RUN: Duration = Duration(7 * 24 * 3600 * NS_PER_S);
/// Largest guest number a name pattern may produce: a user ID has at most 8 characters.
const MAX_NAME_NUMBER: u64 = 99_999_999;
/// Largest database, in pages: the buffer pool keeps each buffer's block in 30 bits beside its
/// referenced and dirty bits, all ones meaning none (workload/database.rs; zvmsim's bound).
pub const MAX_DATABASE_PAGES: u64 = crate::workload::database::BMASK as u64;
/// Largest paging block, as `cp/storage/slots.rs` keeps it (PAGING_BLOCK_MAX).
const MAX_PAGING_BLOCK: u32 = 64;
/// Paging slots: CP's page word names a page's slot in 31 bits, all ones meaning none
/// (cp/storage), so at most 2^31 - 1 slots, 8 TB of paging space (zvmsim's bound: twice z/VM
/// 7.3's 4 TB of central storage, IBM's sizing guideline for paging space).
pub const MAX_PAGING_SLOTS: u64 = crate::cp::storage::MAX_SLOTS;

/// Users of one workload over all its guests: each keeps its state and a pending event, built
/// before the run (zvmsim's bound, an inference: a thousand guests of a thousand users).
pub const MAX_USERS: u64 = 1 << 20;

pub fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    check_run(s, src)?;
    check_paging(s, src)?;
    check_guests(s, src)?;
    check_model(&s.model, src)
}

/// Checks that must hold before `validate` expands guest names (which loops over every guest).
pub fn check_counts(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let total: u64 = s.guests.iter().map(|g| g.count as u64).sum();
    if total > MAX_GUESTS {
        return Err(src.error(
            "guests",
            format!("{total} guests: zvmsim simulates at most {MAX_GUESTS} (its own bound; z/VM publishes none)"),
        ));
    }
    // Guest pages are numbered in one 32-bit space across all guests (cp/storage).
    let pages: u64 = s
        .guests
        .iter()
        .map(|g| g.storage.pages().saturating_mul(g.count as u64))
        .fold(0, u64::saturating_add);
    if pages >= u64::from(u32::MAX) {
        return Err(src.error(
            "guests",
            format!(
                "the guests define {} of virtual storage in all; zvmsim numbers guest pages in 32 bits, at most 16T",
                crate::config::units::Size(pages.saturating_mul(4096))
            ),
        ));
    }
    for (name, w) in &s.workloads {
        let guests: u64 = s
            .guests
            .iter()
            .filter(|g| g.workload.as_deref() == Some(name.as_str()))
            .map(|g| g.count as u64)
            .sum();
        let (field, users) = match (w.users, w.users_total) {
            (Some(u), _) => ("users", u as u64 * guests),
            (None, Some(t)) => ("users_total", t as u64),
            (None, None) => continue,
        };
        if users > MAX_USERS {
            return Err(src.error(
                &format!("workloads.{name}.{field}"),
                format!("{users} users in all: zvmsim simulates at most {MAX_USERS} per workload (its own bound)"),
            ));
        }
    }
    for (i, g) in s.guests.iter().enumerate() {
        let last = g.first as u64 + (g.count as u64).saturating_sub(1);
        if g.name.contains('%') && last > MAX_NAME_NUMBER {
            return Err(src.error(
                &format!("guests[{i}].first"),
                format!("guest numbers up to {last} do not fit in an 8-character user ID (at most {MAX_NAME_NUMBER})"),
            ));
        }
        if let Some(w) = pattern_width(&g.name) {
            if w > 8 {
                return Err(src.error(
                    &format!("guests[{i}].name"),
                    format!(
                        "pattern `{}` pads to {w} digits; a user ID has at most 8 characters",
                        g.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The padding width of a `%0Nd` pattern, when it has one.
fn pattern_width(name: &str) -> Option<u64> {
    let rest = &name[name.find('%')? + 1..];
    let spec = &rest[..rest.find('d').unwrap_or(0)];
    let digits = spec.trim_start_matches('0');
    if digits.is_empty() {
        return None;
    }
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// CP-owned volumes (paging and spool): SYSTEM CONFIG's CP_OWNED list has slots 1 to 255
/// (CP Planning and Administration, CP_OWNED statement).
pub const MAX_CP_OWNED: u64 = 255;

fn check_paging(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let owned = |v: &[crate::config::scenario::VolumeSet]| -> u64 {
        v.iter().map(|x| x.count as u64).sum()
    };
    let paging = owned(&s.paging.volumes);
    let spool = s.spool.as_ref().map_or(0, |x| owned(&x.volumes));
    if paging + spool > MAX_CP_OWNED {
        let field = if spool > 0 {
            "spool.volumes"
        } else {
            "paging.volumes"
        };
        return Err(src.error(
            field,
            format!("{paging} paging and {spool} spool volumes: CP owns at most {MAX_CP_OWNED} (SYSTEM CONFIG CP_OWNED slots 1-255)"),
        ));
    }
    let slots = s.paging_slots();
    if slots > MAX_PAGING_SLOTS {
        let field = if s.paging.slots.is_some() {
            "paging.slots"
        } else {
            "paging.volumes"
        };
        return Err(src.error(
            field,
            format!(
                "paging space of {slots} slots ({}) exceeds the {MAX_PAGING_SLOTS} slots zvmsim can address (8T; its own bound)",
                crate::config::units::Size(slots.saturating_mul(4096))
            ),
        ));
    }
    Ok(())
}

fn check_run(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let r = &s.run;
    let total = r.priming.ns().saturating_add(r.measure.ns());
    if total > MAX_RUN.ns() {
        return Err(src.error(
            "run.measure",
            format!(
                "priming {} and measured window {} exceed the longest run, {} (zvmsim's bound)",
                r.priming, r.measure, MAX_RUN
            ),
        ));
    }
    if r.interval < MIN_INTERVAL {
        return Err(src.error(
            "run.interval",
            format!(
                "interval {} is below {}: the CP monitor samples in whole seconds",
                r.interval, MIN_INTERVAL
            ),
        ));
    }
    let intervals = r.measure.ns() / r.interval.ns().max(1);
    if intervals > MAX_INTERVALS {
        return Err(src.error(
            "run.interval",
            format!(
                "interval {} makes {intervals} intervals of the measured window {}; at most {MAX_INTERVALS}",
                r.interval, r.measure
            ),
        ));
    }
    Ok(())
}

fn check_guests(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    for (i, g) in s.guests.iter().enumerate() {
        let f = |k: &str| format!("guests[{i}].{k}");
        let volumes = |u: DasdUse| -> u64 {
            g.dasd
                .iter()
                .filter(|d| d.usage == u)
                .map(|d| d.count as u64)
                .sum()
        };
        let all: u64 = g.dasd.iter().map(|d| d.count as u64).sum();
        if all >= MAX_GUEST_DEVICES {
            return Err(src.error(
                &f("dasd"),
                format!("{all} volumes: a virtual machine has at most {MAX_GUEST_DEVICES} devices (device numbers 0000-FFFF), its console among them"),
            ));
        }
        if volumes(DasdUse::Database) > MAX_DATABASE_VOLUMES {
            return Err(src.error(
                &f("dasd"),
                format!(
                    "{} database volumes: LVM stripes a logical volume over at most {MAX_DATABASE_VOLUMES}",
                    volumes(DasdUse::Database)
                ),
            ));
        }
        if volumes(DasdUse::Swap) > MAX_SWAP_VOLUMES {
            return Err(src.error(
                &f("dasd"),
                format!(
                    "{} swap volumes: Linux has at most {MAX_SWAP_VOLUMES} swap areas",
                    volumes(DasdUse::Swap)
                ),
            ));
        }
        let Some(ws) = g.workload.as_ref().and_then(|w| s.workloads.get(w)) else {
            continue;
        };
        if let Some(db) = &ws.database {
            if db.size.pages() > MAX_DATABASE_PAGES {
                let w = g.workload.as_deref().unwrap_or_default();
                return Err(src.error(
                    &format!("workloads.{w}.database.size"),
                    format!(
                        "database {} is over zvmsim's bound of {MAX_DATABASE_PAGES} pages of 4K (4T less one page): the buffer pool keeps a block number in 30 bits",
                        db.size
                    ),
                ));
            }
            let room = g.dasd_pages(DasdUse::Database);
            if db.size.pages() > room {
                let w = g.workload.as_deref().unwrap_or_default();
                return Err(src.error(
                    &format!("workloads.{w}.database.size"),
                    format!(
                        "database {} needs {} pages of 4K; the database volumes of guests[{i}] (`{}`) hold {}",
                        db.size, db.size.pages(), g.name, room
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// One duration parameter: its name, value and bounds, with the bounds' source.
struct DurBound {
    name: &'static str,
    value: Duration,
    min: Duration,
    max: Duration,
    why: &'static str,
}

const US: u64 = 1_000;

fn check_model(p: &ModelParams, src: &Source) -> Result<(), ScenarioError> {
    let field = |k: &str| format!("model.{k}");
    let fraction = |name: &str, x: f64, lo_open: bool, hi_open: bool| {
        let below = if lo_open { x <= 0.0 } else { x < 0.0 };
        let above = if hi_open { x >= 1.0 } else { x > 1.0 };
        if x.is_nan() || below || above {
            let lo = if lo_open { "(0" } else { "[0" };
            let hi = if hi_open { "1)" } else { "1]" };
            return Err(src.error(&field(name), format!("{x} is not a fraction in {lo}, {hi}")));
        }
        Ok(())
    };
    fraction("avail_low_fraction", p.avail_low_fraction, true, true)?;
    fraction("avail_high_fraction", p.avail_high_fraction, true, true)?;
    if p.avail_high_fraction <= p.avail_low_fraction {
        return Err(src.error(
            &field("avail_high_fraction"),
            format!(
                "the available list's high threshold {} must be above its low threshold {} (demand scan steals from low up to high)",
                p.avail_high_fraction, p.avail_low_fraction
            ),
        ));
    }
    fraction("dasd_read_hit_ratio", p.dasd_read_hit_ratio, false, false)?;
    fraction(
        "agelist_early_write_share",
        p.agelist_early_write_share,
        false,
        false,
    )?;
    fraction(
        "keepslot_release_full",
        p.keepslot_release_full,
        true,
        false,
    )?;
    if !(0.0..=1.0).contains(&p.block_companion_window) {
        return Err(src.error(
            &field("block_companion_window"),
            format!(
                "{} revolutions: give 0 (off) to 1 (a whole revolution, as without the window)",
                p.block_companion_window
            ),
        ));
    }
    if p.paging_block == 0 || p.paging_block > MAX_PAGING_BLOCK {
        return Err(src.error(
            &field("paging_block"),
            format!(
                "{} pages per paging block: give 1 to {MAX_PAGING_BLOCK} (a block is written as one channel program; the bound is zvmsim's, an inference)",
                p.paging_block
            ),
        ));
    }
    let ms = |x: u64| Duration(x * NS_PER_MS);
    let device = "a 3390 access is milliseconds; a device answering in over a second would be in error recovery (inference)";
    let cpu = "a CPU path of CP or Linux is nanoseconds to microseconds; over 10 ms per operation is not a path length (inference)";
    let mut rows = vec![
        DurBound {
            name: "time_slice",
            value: p.time_slice,
            min: ms(1),
            max: ms(100),
            why: "SET SRM DSPSLICE sets the minor time slice in milliseconds, 1 to 100 (inference from the CP reference)",
        },
        DurBound {
            name: "dasd_read_miss",
            value: p.dasd_read_miss,
            min: Duration(US),
            max: ms(1000),
            why: device,
        },
        DurBound {
            name: "dasd_read_hit",
            value: p.dasd_read_hit,
            min: Duration(US),
            max: ms(1000),
            why: device,
        },
        DurBound {
            name: "dasd_write",
            value: p.dasd_write,
            min: Duration(US),
            max: ms(1000),
            why: device,
        },
        DurBound {
            name: "dasd_per_page",
            value: p.dasd_per_page,
            min: Duration(1),
            max: ms(1000),
            why: "moving 4 KB over a channel takes time (physics)",
        },
    ];
    for (name, value) in [
        ("cp_pagein_xstor", p.cp_pagein_xstor),
        ("cp_pagein_dasd", p.cp_pagein_dasd),
        ("cp_scan_frame", p.cp_scan_frame),
        ("cp_steal", p.cp_steal),
        ("cp_pageout_xstor", p.cp_pageout_xstor),
        ("cp_migrate", p.cp_migrate),
        ("cp_alloc_frame", p.cp_alloc_frame),
        ("cp_avail_search", p.cp_avail_search),
        ("cp_cmma_reclaim", p.cp_cmma_reclaim),
        ("essa", p.essa),
        ("linux_discard_fault", p.linux_discard_fault),
        ("linux_page_copy", p.linux_page_copy),
        ("linux_scan_page", p.linux_scan_page),
        ("linux_cmm_page", p.linux_cmm_page),
        ("linux_diag10", p.linux_diag10),
        ("cp_diag10_page", p.cp_diag10_page),
        ("cp_trial_invalidate", p.cp_trial_invalidate),
        ("cp_agelist_revalidate", p.cp_agelist_revalidate),
    ] {
        // Zero is allowed: a what-if study of a path made free.
        rows.push(DurBound {
            name,
            value,
            min: Duration(0),
            max: ms(10),
            why: cpu,
        });
    }
    for b in rows {
        if b.value < b.min || b.value > b.max {
            return Err(src.error(
                &field(b.name),
                format!(
                    "{} lies outside {} to {}: {}",
                    b.value,
                    if b.min.ns() == 0 {
                        "0".to_string()
                    } else {
                        b.min.to_string()
                    },
                    b.max,
                    b.why
                ),
            ));
        }
    }
    Ok(())
}
