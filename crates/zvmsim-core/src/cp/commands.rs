//! CP commands as typed on a z/VM console: parsing (with CP's minimum abbreviations) and the
//! responses CP writes, from the simulated system's state. A rejected command answers with the
//! CP message and changes nothing.

use crate::config::units::PAGE_SIZE;

/// A parsed CP command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpCommand {
    QueryStorage,
    QueryXstore,
    QueryProcessors,
    QueryNames,
    QueryAllocPage,
    QueryCplevel,
    IndicateLoad,
}

/// What a CP command needs to see of the system to answer.
pub struct CpView<'a> {
    pub level: &'a str,
    pub central_bytes: u64,
    pub xstor_bytes: u64,
    pub xstor_used_blocks: u64,
    pub ifls: u32,
    pub guests: Vec<String>,
    pub slots_total: u64,
    pub slots_used: u64,
    pub avg_proc_pct: f64,
    pub paging_per_s: f64,
    pub xstor_per_s: f64,
    pub migrate_per_s: f64,
}

/// `word` matches `full` if it is at least `min` characters long and a prefix of it.
fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && word.len() <= full.len() && full.starts_with(word)
}

fn unknown(cmd: &str) -> String {
    format!("HCPCMD001E Unknown CP command: {cmd}")
}

/// Parse one CP command line (an optional leading `CP ` is accepted, as from a guest).
pub fn parse(line: &str) -> Result<CpCommand, String> {
    let upper = line.trim().to_ascii_uppercase();
    let mut words: Vec<&str> = upper.split_whitespace().collect();
    if words.first() == Some(&"CP") {
        words.remove(0);
    }
    let Some(&verb) = words.first() else {
        return Err("HCPCMD001E Unknown CP command: (empty)".into());
    };
    let ops = &words[1..];
    if abbrev(verb, "QUERY", 1) {
        let Some(&what) = ops.first() else {
            return Err("HCPCQU026E Operand missing or invalid".into());
        };
        let cmd = if abbrev(what, "STORAGE", 3) {
            CpCommand::QueryStorage
        } else if abbrev(what, "XSTORE", 2) || what == "XSTORAGE" {
            CpCommand::QueryXstore
        } else if abbrev(what, "PROCESSORS", 4) {
            CpCommand::QueryProcessors
        } else if abbrev(what, "NAMES", 1) {
            CpCommand::QueryNames
        } else if abbrev(what, "CPLEVEL", 5) {
            CpCommand::QueryCplevel
        } else if abbrev(what, "ALLOC", 5) {
            match ops.get(1) {
                Some(w) if abbrev(w, "PAGE", 4) => CpCommand::QueryAllocPage,
                Some(w) => return Err(format!("HCPQAL003E Invalid option - {w}")),
                None => return Err("HCPQAL026E Operand missing or invalid".into()),
            }
        } else {
            return Err(format!("HCPCQU003E Invalid option - {what}"));
        };
        let extra = if cmd == CpCommand::QueryAllocPage {
            2
        } else {
            1
        };
        if let Some(w) = ops.get(extra) {
            return Err(format!("HCPCQU003E Invalid option - {w}"));
        }
        return Ok(cmd);
    }
    if abbrev(verb, "INDICATE", 3) {
        return match ops.first() {
            None => Ok(CpCommand::IndicateLoad),
            Some(w) if abbrev(w, "LOAD", 1) && ops.len() == 1 => Ok(CpCommand::IndicateLoad),
            Some(w) => Err(format!("HCPIND003E Invalid option - {w}")),
        };
    }
    Err(unknown(verb))
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 {
        format!("{}G", bytes >> 30)
    } else {
        format!("{}M", bytes >> 20)
    }
}

/// CP's response lines.
pub fn respond(cmd: &CpCommand, v: &CpView) -> Vec<String> {
    match cmd {
        CpCommand::QueryStorage => vec![format!(
            "STORAGE = {0} CONFIGURED = {0} INC = 256M STANDBY = 0 RESERVED = 0",
            size_text(v.central_bytes)
        )],
        CpCommand::QueryXstore => {
            if v.xstor_bytes == 0 {
                vec!["HCPQXS2053I No XSTORE is attached to the system".into()]
            } else {
                let usage =
                    100.0 * v.xstor_used_blocks as f64 * PAGE_SIZE as f64 / v.xstor_bytes as f64;
                vec![
                    format!(
                        "XSTORE= {}M online= {}M",
                        v.xstor_bytes >> 20,
                        v.xstor_bytes >> 20
                    ),
                    format!(
                        "XSTORE= {}M userid= SYSTEM usage= {:.0}% retained= 0M pending= 0M",
                        v.xstor_bytes >> 20,
                        usage
                    ),
                ]
            }
        }
        CpCommand::QueryProcessors => (0..v.ifls)
            .map(|i| {
                format!(
                    "PROCESSOR {i:02X} {}",
                    if i == 0 {
                        "MASTER IFL"
                    } else {
                        "ALTERNATE IFL"
                    }
                )
            })
            .collect(),
        CpCommand::QueryNames => {
            let mut lines = Vec::new();
            for chunk in v.guests.chunks(4) {
                lines.push(
                    chunk
                        .iter()
                        .map(|g| format!("{g:<8} - DSC"))
                        .collect::<Vec<_>>()
                        .join(" , "),
                );
            }
            lines
        }
        CpCommand::QueryCplevel => vec![format!(
            "z/VM Version {} Release {}.0",
            &v.level[..1],
            &v.level[2..]
        )],
        CpCommand::QueryAllocPage => {
            let pct = if v.slots_total == 0 {
                0.0
            } else {
                100.0 * v.slots_used as f64 / v.slots_total as f64
            };
            vec![
                "                  TOTAL    PAGES   PAGES    %".into(),
                "                  PAGES    IN USE  AVAIL  USED".into(),
                format!(
                    "SUMMARY      {:>10} {:>9} {:>9} {:>4.0}%",
                    v.slots_total,
                    v.slots_used,
                    v.slots_total - v.slots_used,
                    pct
                ),
            ]
        }
        CpCommand::IndicateLoad => vec![
            format!("AVGPROC-{:03.0}% {:02}", v.avg_proc_pct, v.ifls),
            format!(
                "XSTORE-{:06.0}/SEC MIGRATE-{:04.0}/SEC",
                v.xstor_per_s, v.migrate_per_s
            ),
            format!("PAGING-{:04.0}/SEC", v.paging_per_s),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_and_errors() {
        assert_eq!(parse("q stor").unwrap(), CpCommand::QueryStorage);
        assert_eq!(parse("CP QUERY XSTORE").unwrap(), CpCommand::QueryXstore);
        assert_eq!(parse("q alloc page").unwrap(), CpCommand::QueryAllocPage);
        assert_eq!(parse("ind").unwrap(), CpCommand::IndicateLoad);
        assert_eq!(
            parse("frobnicate all").unwrap_err(),
            "HCPCMD001E Unknown CP command: FROBNICATE"
        );
        assert!(parse("q bogus").unwrap_err().starts_with("HCPCQU003E"));
        assert!(parse("q").unwrap_err().contains("026E"));
        // QU is not an abbreviation CP accepts for ... it is: QUERY's minimum is Q.
        assert_eq!(parse("qu n").unwrap(), CpCommand::QueryNames);
    }
}
