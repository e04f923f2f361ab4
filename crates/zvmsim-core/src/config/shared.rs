//! Checks of shared read-only minidisks (`dasd = [{ ..., shared = true }]`) and of a database
//! whose files live on a mounted file system (`[workloads.W.database] files_on`). The guests of
//! an entry LINK shared minidisks read-only (mode RR): Linux sees read-only DASD, so a workload
//! that writes to them cannot run there and is refused, located at the field that writes.

use crate::config::scenario::{DasdUse, Scenario, ScenarioError, Source, WorkloadKind};

pub fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let err = |field: &str, detail: String| Err(src.error(field, detail));
    for (i, g) in s.guests.iter().enumerate() {
        let Some(j) = g.dasd.iter().position(|d| d.shared) else {
            continue;
        };
        if let Some(k) = g
            .dasd
            .iter()
            .position(|d| d.shared && d.usage == DasdUse::Swap)
        {
            return err(
                &format!("guests[{i}].dasd[{k}].shared"),
                "a swap volume cannot be shared: Linux writes its swap (give shared = false)"
                    .into(),
            );
        }
        let Some(w) = g.workload.as_ref() else {
            continue;
        };
        let Some(ws) = s.workloads.get(w) else {
            continue;
        };
        let link = format!(
            "guests `{}` LINK their shared minidisks (guests[{i}].dasd[{j}]) read-only",
            g.name
        );
        match ws.kind {
            WorkloadKind::Transactional => {
                let db_shared = g
                    .dasd
                    .iter()
                    .any(|d| d.shared && d.usage == DasdUse::Database);
                for (t, tx) in ws.transactions.iter().enumerate() {
                    if db_shared && tx.write_fraction > 0.0 {
                        return err(
                            &format!("workloads.{w}.transactions[{t}].write_fraction"),
                            format!(
                                "{link}: transaction `{}` writes {} of its pages to the database on them; a read-only database needs write_fraction = 0",
                                tx.name, tx.write_fraction
                            ),
                        );
                    }
                }
            }
            WorkloadKind::Iozone => {
                return err(
                    &format!("workloads.{w}.kind"),
                    format!("{link}: iozone writes its files first"),
                );
            }
            WorkloadKind::Fio => {
                let rw = ws.fio.as_ref().map(|f| f.rw.as_str()).unwrap_or("");
                if rw.contains("write") || rw.contains("rw") || rw.contains("trim") {
                    return err(
                        &format!("workloads.{w}.fio.rw"),
                        format!("{link}: fio rw = {rw} writes"),
                    );
                }
            }
            WorkloadKind::Appserver | WorkloadKind::Apache | WorkloadKind::Dbench => {}
        }
    }
    for (w, ws) in &s.workloads {
        let Some(dir) = ws.database.as_ref().and_then(|d| d.files_on.as_ref()) else {
            continue;
        };
        if !dir.starts_with('/') || dir.len() < 2 || dir.contains(char::is_whitespace) {
            return err(
                &format!("workloads.{w}.database.files_on"),
                format!("`{dir}` is not a mount point: give an absolute path such as /oradata"),
            );
        }
    }
    Ok(())
}
