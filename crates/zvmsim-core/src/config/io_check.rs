//! Counts and rates of `[io.channels]` and `[io.server]` that no real configuration has: a
//! zero would otherwise be taken silently as 1 (or as a floor) by the stage that uses it, or
//! stretch every transfer to hours. Each message names its field ("io.x.y: detail"), which
//! `check_io` locates in the file. `[io.fcp]`'s counts are here, its rates in
//! `io/fcp.rs`.

use crate::config::io::{ChannelSpec, IoSpec, ServerSpec};
use crate::config::scenario::{Scenario, ScenarioError, Source};

/// Every count and rate of the channels and the server is above 0; a RAID-5 rank has at
/// least 3 disks (two data strips and the parity of a row).
pub fn check(io: &IoSpec) -> Result<(), String> {
    check_channels(&io.channels)?;
    check_server(&io.server)?;
    if let Some(f) = &io.fcp {
        if f.chpids == 0 {
            return Err("io.fcp.chpids: 0 FCP channels reach no LUN; give at least 1".into());
        }
        // A CHPID is one byte: an LPAR has at most 256 channel paths.
        if f.chpids > 256 {
            return Err(format!(
                "io.fcp.chpids: {} channels; CHPIDs are one byte, 00 to FF (at most 256)",
                f.chpids
            ));
        }
        // Each command slot takes a device number (io/fcp.rs): 0000-FFFF.
        if f.queue_depth > 65_536 {
            return Err(format!(
                "io.fcp.queue_depth: {} commands per LUN; each takes a device number, 0000-FFFF",
                f.queue_depth
            ));
        }
        if f.queue_depth == 0 {
            return Err(
                "io.fcp.queue_depth: zfcp with 0 commands in flight runs none; give at least 1"
                    .into(),
            );
        }
    }
    Ok(())
}

fn check_channels(c: &ChannelSpec) -> Result<(), String> {
    // A subchannel's path-installed mask has 8 bits: at most 8 channel paths per device.
    if c.count == 0 || c.count > 8 {
        return Err(format!(
            "io.channels.count: {} channel paths; a device's path group has 1 to 8 (its subchannel's path mask is 8 bits)",
            c.count
        ));
    }
    if !c.chpids.is_empty() {
        let valid = |x: &String| (1..=2).contains(&x.len()) && u8::from_str_radix(x, 16).is_ok();
        if let Some(bad) = c.chpids.iter().find(|x| !valid(x)) {
            return Err(format!(
                "io.channels.chpids: `{bad}` is not a CHPID (two hex digits, 00 to FF)"
            ));
        }
        let mut ids: Vec<u32> = (0..c.count).map(|i| c.chpid(i) as u32).collect();
        ids.sort_unstable();
        ids.dedup();
        if c.chpids.len() != c.count as usize || ids.len() != c.chpids.len() {
            return Err(format!(
                "io.channels.chpids: {} CHPIDs for count = {} channel paths; give one distinct CHPID per path",
                c.chpids.len(),
                c.count
            ));
        }
    }
    if c.speed == 0 {
        return Err(
            "io.channels.speed: a link of 0 Gbit/s moves no data; give the link speed (1 for 1 Gbit/s FICON, 16 for FICON Express16S)".into(),
        );
    }
    if c.exchanges == 0 {
        return Err(
            "io.channels.exchanges: a channel with 0 open exchanges runs no I/O; give at least 1 (64 for command-mode FICON)".into(),
        );
    }
    Ok(())
}

fn check_server(s: &ServerSpec) -> Result<(), String> {
    for (field, n, what) in [
        ("host_adapters", s.host_adapters, "host-adapter ports"),
        ("ports_per_adapter", s.ports_per_adapter, "ports on a card"),
        ("ranks", s.ranks, "ranks"),
        ("rpm", s.rpm, "revolutions a minute"),
    ] {
        if n == 0 {
            return Err(format!(
                "io.server.{field}: 0 {what}; give a number above 0"
            ));
        }
    }
    // zvmsim's bounds, above any storage server's (a DS8000 has at most 128 host-adapter
    // ports, 4 or 8 on a card, and 8-disk array sites; inference): they keep the adapter and
    // disk tables, allocated at validation, small.
    for (field, n, max) in [
        ("host_adapters", s.host_adapters, 1024),
        ("ports_per_adapter", s.ports_per_adapter, 64),
        ("ranks", s.ranks, 4096),
        ("disks_per_rank", s.disks_per_rank, 32),
    ] {
        if n > max {
            return Err(format!(
                "io.server.{field}: {n} is over zvmsim's bound of {max} (above any storage server's)"
            ));
        }
    }
    if s.disks_per_rank < 3 {
        return Err(format!(
            "io.server.disks_per_rank: {} disks; a RAID-5 rank has at least 3 (two data strips and the parity of a row; 8 in the ESS and DS8000)",
            s.disks_per_rank
        ));
    }
    for (field, rate) in [
        ("ha_rate", s.ha_rate),
        ("nvs_rate", s.nvs_rate),
        ("ckd_write_rate", s.ckd_write_rate),
        ("cluster_rate", s.cluster_rate),
        ("disk_rate", Some(s.disk_rate)),
    ] {
        if rate.is_some_and(|r| r.bytes() == 0) {
            return Err(format!(
                "io.server.{field}: a rate of 0 moves no data; give bytes per second above 0"
            ));
        }
    }
    for (field, size) in [
        ("disk_size", s.disk_size),
        ("strip", s.strip),
        ("extent", s.extent),
    ] {
        if size.bytes() == 0 {
            return Err(format!(
                "io.server.{field}: a size of 0 holds no data; give a size above 0"
            ));
        }
    }
    Ok(())
}

/// The `[io]` table, the directory's device statements and fio's options.
pub(super) fn check_io(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    if let Some(io) = &s.io {
        // HyperPAV came with z/VM 5.3 ("On Feb. 6, 2007, IBM announced that z/VM V5.3 supports
        // the IBM Hyper Parallel Access Volume (HyperPAV) function"; 5.2 has basic PAV:
        // IBM, "IBM HyperPAV Support on z/VM", vm.ibm.com/storman/pav/pav3.html).
        let hyperpav = io.lcus.iter().position(|l| {
            l.aliases
                .as_ref()
                .is_some_and(|a| a.kind == crate::config::io::AliasKind::Hyperpav)
        });
        if let (Some(i), crate::config::level::ZvmLevel::V5R2) = (hyperpav, s.lpar.zvm_level) {
            return Err(src.error(
                &format!("io.lcus[{i}].aliases.kind"),
                "z/VM 5.2 has no HyperPAV (it came with z/VM 5.3; 5.2 has static PAV, kind = \"pav\"): \
                 set lpar.zvm_level to \"5.3\" or later",
            ));
        }
        let mut sys = crate::io::IoSystem::new(&s.model, crate::engine::rng::Stream::new(1, 1));
        sys.configure(
            io,
            crate::engine::rng::Stream::new(1, 3),
            crate::engine::rng::Stream::new(1, 4),
        )
        .map_err(|e| {
            // "io.x.y: detail" names its field; a message without one is the table's.
            match e.split_once(": ") {
                Some((field, detail)) if field.starts_with("io.") && !field.contains(' ') => {
                    src.error(field, detail)
                }
                _ => src.error("io", e),
            }
        })?;
    }
    crate::config::directory::check(s, src)?;
    for (name, w) in &s.workloads {
        let field = format!("workloads.{name}.fio");
        match (&w.kind, &w.fio) {
            (crate::config::scenario::WorkloadKind::Fio, None) => {
                return Err(src.error(
                    &format!("workloads.{name}"),
                    "kind = \"fio\" needs a [workloads.NAME.fio] table with fio's options",
                ))
            }
            (_, Some(f)) => f.check().map_err(|e| src.error(&field, e))?,
            _ => {}
        }
        match (&w.kind, &w.iozone) {
            (crate::config::scenario::WorkloadKind::Iozone, None) => {
                return Err(src.error(
                    &format!("workloads.{name}"),
                    "kind = \"iozone\" needs a [workloads.NAME.iozone] table with iozone's options",
                ))
            }
            (_, Some(z)) => z
                .check()
                .map_err(|e| src.error(&format!("workloads.{name}.iozone"), e))?,
            _ => {}
        }
        crate::config::dbench::check_workload(s, src, name, w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io() -> IoSpec {
        IoSpec {
            channels: ChannelSpec::default(),
            server: ServerSpec::default(),
            lcus: Vec::new(),
            fcp: None,
            cost: Default::default(),
            paging: Vec::new(),
        }
    }

    /// The defaults pass; each zero is refused naming its own field.
    #[test]
    fn zero_counts_and_rates_are_refused_by_field() {
        assert_eq!(check(&io()), Ok(()));
        let mut a = io();
        a.channels.speed = 0;
        assert!(check(&a).unwrap_err().starts_with("io.channels.speed: "));
        let mut b = io();
        b.server.nvs_rate = Some(crate::config::units::Size(0));
        assert!(check(&b).unwrap_err().starts_with("io.server.nvs_rate: "));
        let mut c = io();
        c.server.disks_per_rank = 2;
        assert!(check(&c)
            .unwrap_err()
            .starts_with("io.server.disks_per_rank: 2 disks"));
        let mut d = io();
        d.server.rpm = 0;
        assert!(check(&d).unwrap_err().starts_with("io.server.rpm: "));
        // CHPIDs: hex, one per path, distinct.
        let mut e = io();
        e.channels.count = 2;
        e.channels.chpids = vec!["C6".into(), "C7".into()];
        assert_eq!(check(&e), Ok(()));
        assert_eq!(e.channels.chpid(1), 0xC7);
        e.channels.chpids = vec!["C6".into(), "C6".into()];
        assert!(check(&e)
            .unwrap_err()
            .starts_with("io.channels.chpids: 2 CHPIDs"));
        e.channels.chpids = vec!["C6".into(), "XY".into()];
        assert!(check(&e).unwrap_err().contains("`XY` is not a CHPID"));
    }
}
