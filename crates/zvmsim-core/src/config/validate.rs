//! Semantic checks of a scenario: what serde's types cannot say. Every error is located.

use std::collections::BTreeSet;

use crate::config::scenario::{DasdUse, Scenario, ScenarioError, Source};
use crate::config::units::{Duration, PAGE_SIZE};

pub fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let err = |field: &str, detail: String| Err(src.error(field, detail));
    let l = &s.lpar;
    if l.ifls == 0 || l.ifls > 64 {
        return err(
            "lpar.ifls",
            format!("{} IFLs: an LPAR has 1 to 64 processors", l.ifls),
        );
    }
    if l.central.bytes() < (64 << 20) {
        return err(
            "lpar.central",
            format!(
                "central storage {} is too small (z/VM needs at least 64M)",
                l.central
            ),
        );
    }
    if l.central.bytes() % (1 << 20) != 0 {
        return err(
            "lpar.central",
            format!("central storage {} is not a multiple of 1M", l.central),
        );
    }
    if l.central > l.zvm_level.max_central() {
        return err(
            "lpar.central",
            format!(
                "z/VM {} supports at most {} of real storage; {} was given",
                l.zvm_level.as_str(),
                l.zvm_level.max_central(),
                l.central
            ),
        );
    }
    // The model's own bound (4 TB, the page word's frame field), equal to 7.3's: kept as a
    // check of its own so that a later release above it fails here, not in the model.
    let model_max = (crate::cp::storage::MAX_FRAMES as u64) << 12;
    if l.central.bytes() > model_max {
        return err(
            "lpar.central",
            format!(
                "zvmsim models at most {} of real storage (the page word's frame field); {} was given",
                crate::config::units::Size(model_max),
                l.central
            ),
        );
    }
    if l.zvm_level.has_agelist() && l.expanded.bytes() > 0 {
        return err(
            "lpar.expanded",
            format!(
                "z/VM {} has no expanded storage (z/VM 6.4 removed XSTOR support; IBM \
                 advised converting it to central storage from z/VM 6.3): set \
                 lpar.expanded to 0 and add {} to lpar.central",
                l.zvm_level.as_str(),
                l.expanded
            ),
        );
    }
    if let Some(why) = l.zvm_level.smt_refusal(l.smt) {
        return err("lpar.smt", why);
    }
    if let Some(a) = &l.agelist {
        if !l.zvm_level.has_agelist() {
            return err(
                "lpar.agelist",
                format!(
                    "z/VM {} has no global aging list (it replaced demand scan in z/VM 6.3): \
                     remove [lpar.agelist] or set lpar.zvm_level to \"6.4\" or \"7.1\"",
                    l.zvm_level.as_str()
                ),
            );
        }
        if let Some(crate::config::agelist::AgelistSize::Storage(s)) = a.size {
            if s > l.central || s.bytes() < PAGE_SIZE {
                return err(
                    "lpar.agelist.size",
                    format!(
                        "aging list size {s} must be at least 4K and at most central storage {}",
                        l.central
                    ),
                );
            }
        }
    }
    if l.expanded.bytes() > (128 << 30) {
        return err(
            "lpar.expanded",
            format!("expanded storage {} exceeds 128G", l.expanded),
        );
    }
    let r = &s.run;
    if r.measure.ns() == 0 {
        return err(
            "run.measure",
            "the measured window must be longer than 0".into(),
        );
    }
    if r.interval.ns() == 0 || r.interval > r.measure {
        return err(
            "run.interval",
            format!(
                "interval {} must be above 0 and at most the measured window {}",
                r.interval, r.measure
            ),
        );
    }
    if !(r.drift_tolerance > 0.0 && r.drift_tolerance < 1.0) {
        return err(
            "run.drift_tolerance",
            format!(
                "drift tolerance {} must be a fraction between 0 and 1 (exclusive), e.g. 0.05",
                r.drift_tolerance
            ),
        );
    }
    if s.guests.is_empty() {
        return err("guests", "at least one guest is needed ([[guests]])".into());
    }
    crate::config::bounds::check_counts(s, src)?;
    let mut names = BTreeSet::new();
    let mut virtual_pages: u64 = 0;
    for (i, g) in s.guests.iter().enumerate() {
        let f = |k: &str| format!("guests[{i}].{k}");
        if g.count == 0 {
            return err(&f("count"), "count must be at least 1".into());
        }
        if g.storage.bytes() < (16 << 20) {
            return err(
                &f("storage"),
                format!(
                    "guest storage {} is below the 16M a Linux guest needs",
                    g.storage
                ),
            );
        }
        if g.storage.bytes() % (1 << 20) != 0 {
            return err(
                &f("storage"),
                format!("guest storage {} is not a multiple of 1M", g.storage),
            );
        }
        if g.storage > l.zvm_level.max_guest_storage() {
            return err(
                &f("storage"),
                format!(
                    "guest storage {} exceeds z/VM {}'s maximum {}",
                    g.storage,
                    l.zvm_level.as_str(),
                    l.zvm_level.max_guest_storage()
                ),
            );
        }
        if g.vcpus == 0 || g.vcpus > 64 {
            return err(
                &f("vcpus"),
                format!("{} virtual CPUs: a virtual machine has 1 to 64", g.vcpus),
            );
        }
        for (j, d) in g.dasd.iter().enumerate() {
            if let Some(h) = d.cache_hit {
                if !(0.0..=1.0).contains(&h) {
                    return err(
                        &f(&format!("dasd[{j}].cache_hit")),
                        format!("cache hit ratio {h} must lie between 0 and 1"),
                    );
                }
            }
        }
        let kernel = g.linux.kernel_pages(g.storage.pages());
        if let Err((k, detail)) = crate::config::linux::check_guest_linux(g) {
            return err(&f(k), detail);
        }
        // RHEL 8 is built for the z13 and later (Red Hat's release notes, recalled), whose
        // oldest z/VM in service was 6.2 (IBM z13 Technical Guide, Table 7-1): no 5.x system
        // runs it.
        let rhel8 = g.linux.userland() == crate::linux::distro::Userland::Rhel8;
        if rhel8 && !l.zvm_level.has_agelist() {
            return err(
                &f("linux.distribution"),
                format!(
                    "RHEL 8 needs an IBM z13 or later, which z/VM {} does not run on (z/VM 6.2 \
                     and later do): set lpar.zvm_level to \"6.4\" or later, or the distribution \
                     to a SLES",
                    l.zvm_level.as_str()
                ),
            );
        }
        virtual_pages += g.storage.pages() * g.count as u64;
        if let Some(w) = &g.workload {
            // Linux keeps free pages and some page cache; the rest of a workload's anonymous
            // memory (shared memory, heap) must fit on swap, or Linux runs out of memory.
            let resident = crate::linux::memory::LinuxMemory::anon_capacity(
                g.linux.usable_pages(g.storage.pages()) as u32,
                kernel as u32,
                g.linux.min_free.pages() as u32,
            ) as u64;
            let Some(ws) = s.workloads.get(w) else {
                return err(&f("workload"), format!("no workload `{w}` in [workloads]"));
            };
            if let Some(db) = &ws.database {
                if !g.dasd.iter().any(|d| d.usage == DasdUse::Database) {
                    return err(&f("dasd"), format!("workload `{w}` has a database: give the guest DASD with use = \"database\""));
                }
                let shm = db.shared_memory.unwrap_or(db.cache);
                if shm.pages() > resident + g.linux.swap.pages() {
                    return err(
                        &format!("workloads.{w}.database.shared_memory"),
                        format!("database shared memory {} does not fit in guest {}'s storage {} (kernel {}) and swap {}: Linux would run out of memory", shm, g.name, g.storage, crate::config::units::Size(kernel * 4096), g.linux.swap),
                    );
                }
            }
            if let Some(a) = &ws.appserver {
                if a.heap.pages() > resident + g.linux.swap.pages() {
                    return err(
                        &format!("workloads.{w}.appserver.heap"),
                        format!("heap {} does not fit in guest {}'s storage {} (kernel {}) and swap {} at IPL: Linux would run out of memory", a.heap, g.name, g.storage, crate::config::units::Size(kernel * 4096), g.linux.swap),
                    );
                }
            }
        }
        for k in 0..g.count {
            let name = &crate::config::scenario::expand_name(&g.name, g.first, k, g.count);
            if name.is_empty()
                || name.len() > 8
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@#$_-".contains(c))
            {
                return err(
                    &f("name"),
                    format!("user ID `{name}` is not 1-8 letters, digits or @#$_-"),
                );
            }
            if !names.insert(name.clone()) {
                return err(&f("name"), format!("user ID `{name}` is defined twice"));
            }
        }
    }
    for (name, w) in &s.workloads {
        use crate::config::scenario::WorkloadKind as K;
        if matches!(w.kind, K::Fio | K::Iozone | K::Apache | K::Dbench) {
            // Their processes and options: io_check::check_io (apache's: config::apache).
            continue;
        }
        let f = |k: &str| format!("workloads.{name}.{k}");
        let app = w.kind == crate::config::scenario::WorkloadKind::Appserver;
        match &w.appserver {
            None if app => {
                return err(
                    &f("kind"),
                    "kind = \"appserver\" needs its [workloads.NAME.appserver] table".into(),
                )
            }
            Some(a)
                if app && (a.refs_per_request == 0 || !(0.0..=1.0).contains(&a.write_fraction)) =>
            {
                return err(
                    &f("appserver"),
                    "refs_per_request must be at least 1 and write_fraction within 0..1".into(),
                )
            }
            _ => {}
        }
        match (w.users, w.users_total) {
            (Some(_), Some(_)) => {
                return err(
                    &f("users_total"),
                    "give users (per guest) or users_total, not both".into(),
                )
            }
            (None, None) if w.kind == crate::config::scenario::WorkloadKind::Fio => {}
            (None, None) => {
                return err(&f("users"), "give users (per guest) or users_total".into())
            }
            (Some(0), _) | (_, Some(0)) => {
                return err(
                    &f(if w.users.is_some() {
                        "users"
                    } else {
                        "users_total"
                    }),
                    "a transactional workload needs at least 1 user".into(),
                )
            }
            _ => {}
        }
        if !app && w.transactions.is_empty() && w.cpu_per_tx.is_none() {
            return err(
                &f("cpu_per_tx"),
                "give cpu_per_tx or a [[transactions]] mix".into(),
            );
        }
        for (j, t) in w.transactions.iter().enumerate() {
            if !(t.weight > 0.0 && t.weight.is_finite()) {
                return err(
                    &f(&format!("transactions[{j}].weight")),
                    format!("weight {} must be a positive number", t.weight),
                );
            }
            if !(0.0..=1.0).contains(&t.write_fraction) {
                return err(
                    &f(&format!("transactions[{j}].write_fraction")),
                    "a fraction lies between 0 and 1".into(),
                );
            }
        }
        if let Some(db) = &w.database {
            if db.size.pages() == 0 {
                return err(&f("database.size"), "the database must not be empty".into());
            }
            if db.cache.pages() == 0 || db.cache > db.size {
                return err(
                    &f("database.cache"),
                    format!(
                        "cache {} must be above 0 and at most the database size {}",
                        db.cache, db.size
                    ),
                );
            }
            if let Some(shm) = db.shared_memory {
                if shm < db.cache {
                    return err(
                        &f("database.shared_memory"),
                        format!(
                            "shared memory {} is smaller than the cache {}",
                            shm, db.cache
                        ),
                    );
                }
            }
            if !(db.skew >= 0.0 && db.skew <= 10.0) {
                return err(
                    &f("database.skew"),
                    format!("skew {} must lie in [0, 10]", db.skew),
                );
            }
            if db.stripe.bytes() < PAGE_SIZE || db.stripe.bytes() % PAGE_SIZE != 0 {
                return err(
                    &f("database.stripe"),
                    format!("stripe {} must be a multiple of 4K", db.stripe),
                );
            }
            if let Some(c) = db.checkpoint {
                let wake = crate::workload::cleaner::WAKE_NS;
                if c.ns() < wake {
                    return err(
                        &f("database.checkpoint"),
                        format!(
                            "checkpoint {c} is shorter than the page cleaners' wake-up interval {}",
                            Duration(wake)
                        ),
                    );
                }
            }
        } else if w.transactions.iter().any(|t| t.db_refs > 0) || w.db_refs.unwrap_or(0) > 0 {
            return err(&f("database"), "db_refs need a [database]".into());
        }
    }
    if let (Some(_), Some(_)) = (s.paging.cache, s.paging.cache_hit) {
        return err(
            "paging.cache",
            "give either the cache (hits follow from it) or cache_hit, not both".into(),
        );
    }
    if s.paging.cache.is_some_and(|c| c.bytes() < 48 << 10) {
        return err(
            "paging.cache",
            "a cache holds at least one 3390 track (48K)".into(),
        );
    }
    if let Some(h) = s.paging.cache_hit {
        if !(0.0..=1.0).contains(&h) {
            return err(
                "paging.cache_hit",
                format!("cache hit ratio {h} must lie between 0 and 1"),
            );
        }
    }
    // Paging space: what cannot stay in central (less CP's own frames) or expanded storage
    // must fit on DASD.
    let central = l.central.pages();
    let frames = central
        - u64::from(crate::cp::nucleus::fixed_frames(
            central.min(u32::MAX as u64) as u32,
        ));
    let blocks = l.expanded.pages();
    let slots = s.paging_slots();
    if virtual_pages > frames + blocks && slots.saturating_add(frames + blocks) < virtual_pages {
        // Without a [paging] table, the storage the guests overcommit.
        let field = if s.paging.slots.is_some() {
            "paging.slots"
        } else if src.has("paging") {
            "paging"
        } else {
            "lpar.central"
        };
        return err(
            field,
            format!(
                "paging space of {slots} slots is too small for the overcommitment: guests define {virtual_pages} pages, central and expanded storage hold {} (central less the {} frames CP keeps for itself)",
                frames + blocks,
                central - frames
            ),
        );
    }
    check_vmrm(s, src)?;
    crate::config::bounds::check(s, src)?;
    let end = s.end_ns();
    for (i, c) in s.console.iter().enumerate() {
        let f = |k: &str| format!("console[{i}].{k}");
        let user = c.user.to_ascii_uppercase();
        let vmrmsvm = crate::cp::vmrm::VMRMSVM;
        let no_vmrm = || {
            err(
                &f("cp"),
                format!(
                    "{vmrmsvm} needs its VMRM CONFIG: add a [vmrm] table with config = \"...\""
                ),
            )
        };
        match (&c.cp, &c.linux, &c.cms) {
            // A real command that zvmsim does not model parses (as NotSimulated) and the run
            // answers it "not simulated by zvmsim"; what CP or Linux would reject is an error.
            // CP answers as the scenario's release does (a later release's command is unknown).
            (Some(cmd), None, None) => {
                if user.contains('*') {
                    return err(&f("user"), format!("`{}`: a CP command is typed by one user; a pattern with `*` is for Linux commands", c.user));
                }
                if let Some(Err(m)) = crate::cp::iocmds::parse(cmd, s.lpar.zvm_level.as_str()) {
                    return Err(src.error(&f("cp"), m));
                }
                let parsed = crate::cp::commands::parse_at(cmd, Some(s.lpar.zvm_level.as_str()))
                    .map_err(|m| src.error(&f("cp"), m))?;
                if matches!(parsed, crate::cp::commands::CpCommand::Xautolog { .. })
                    && s.vmrm.is_none()
                {
                    return no_vmrm();
                }
            }
            (None, Some(cmd), None) => {
                // A user ending in `*` types the command in every guest it matches.
                let pattern = crate::cp::vmrm::config::check_userid(&user, true);
                let matched = names
                    .iter()
                    .any(|n| crate::cp::vmrm::config::user_matches(&user, n));
                if pattern.is_err() || !matched {
                    return err(
                        &f("user"),
                        format!(
                            "`{}` is not a guest of this scenario (nor a pattern such as LNX0008* matching one): Linux commands run in a guest",
                            c.user
                        ),
                    );
                }
                // Each guest's shell parses it, as its distribution has it.
                for g in &s.guests {
                    let matches = (0..g.count).any(|k| {
                        let n = crate::config::scenario::expand_name(&g.name, g.first, k, g.count);
                        crate::cp::vmrm::config::user_matches(&user, &n)
                    });
                    if matches {
                        crate::linux::commands::parse_for(cmd, g.linux.userland())
                            .map_err(|m| src.error(&f("linux"), m))?;
                    }
                }
            }
            (None, None, Some(cmd)) => {
                if cmd.trim().is_empty() {
                    return err(&f("cms"), "the CMS command is empty".into());
                }
                // Seed 000's execs run in any CMS virtual machine; other CMS commands are
                // VMRMSVM's.
                let exec = ["SWAPGEN", "DEFDCSS", "SAVEDCSS"]
                    .iter()
                    .any(|e| crate::cp::segments::execs::call(cmd, e).is_some());
                if !exec && user != vmrmsvm {
                    return err(
                        &f("user"),
                        format!("`{}`: CMS commands are simulated on {vmrmsvm} only, besides the execs SWAPGEN, DEFDCSS and SAVEDCSS", c.user),
                    );
                }
                if !exec && s.vmrm.is_none() {
                    return no_vmrm();
                }
            }
            _ => {
                return err(
                    &f("cp"),
                    "give exactly one of cp = \"...\", linux = \"...\" or cms = \"...\"".into(),
                )
            }
        }
        if c.at.ns() > end {
            return err(
                &f("at"),
                format!("time {} is after the end of the run", c.at),
            );
        }
    }
    crate::config::io_check::check_io(s, src)
}

/// The [vmrm] table: its VMRM CONFIG parses (a bad statement is reported at its line of the
/// scenario) and its settings are in range.
fn check_vmrm(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let Some(v) = &s.vmrm else { return Ok(()) };
    crate::cp::vmrm::config::parse(&v.config)
        .map_err(|e| src.error_in_text("vmrm.config", e.line, e.detail))?;
    let err = |field: &str, detail: String| Err(src.error(field, detail));
    if v.interval.ns() == 0 {
        return err("vmrm.interval", "VMRM's interval must be above 0".into());
    }
    if !(v.relieved_paging >= 0.0
        && v.relieved_paging <= v.constrained_paging
        && v.constrained_paging.is_finite())
    {
        return err(
            "vmrm.relieved_paging",
            format!(
                "paging rates: relieved_paging {} must lie between 0 and constrained_paging {}",
                v.relieved_paging, v.constrained_paging
            ),
        );
    }
    for (field, x) in [
        ("vmrm.relief_step", v.relief_step),
        ("vmrm.max_shrink", v.max_shrink),
    ] {
        if !(0.0..=1.0).contains(&x) {
            return err(field, format!("{x} is a share: give 0 to 1"));
        }
    }
    Ok(())
}
