//! VMRM CONFIG, the file the VM Resource Manager service machine (VMRMSVM) reads from its
//! A-disk at start: ADMIN, GOAL, MANAGE, NOTIFY and WORKLOAD statements (z/VM Performance,
//! "VMRM Tuning Parameters"; the large-memory study, seed 002, for NOTIFY MEMORY and ADMIN
//! MSGUSER). zvmsim acts on NOTIFY MEMORY and ADMIN MSGUSER; GOAL, MANAGE and WORKLOAD are
//! checked and kept, but VMRM's CPU and DASD goal management is not simulated.
//!
//! File rules as the model applies them. Keywords are not case-sensitive and values are
//! upper-cased, as CMS files hold them. A statement may go on over several records when a
//! record ends in a comma (inference from VMRM's sample files). A record whose first
//! non-blank character is `*`, and text between `/*` and `*/`, are comments. A user ID is 1 to
//! 8 characters; `*` at its end is a wildcard (`LNX0008*`, seed 002). IBM's messages for bad
//! statements are not reproduced (their texts are not verified here): a bad record is a
//! located scenario error that says what is wrong.

/// Values a GOAL's CPU or DASD velocity may take (IBM: 1 to 100).
pub const VELOCITY_MAX: u32 = 100;
/// Values a MANAGE statement's IMPORTANCE may take (IBM: 1 to 10).
pub const IMPORTANCE_MAX: u32 = 10;
/// Longest z/VM user ID.
const USERID_MAX: usize = 8;

/// A GOAL statement: velocity goals for CPU and DASD I/O.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goal {
    pub name: String,
    pub cpu: Option<u32>,
    pub dasd: Option<u32>,
}

/// How a WORKLOAD statement names its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    User,
    Account,
    AciGroup,
}

/// A WORKLOAD statement: a named group of virtual machines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadDef {
    pub name: String,
    pub kind: MemberKind,
    pub members: Vec<String>,
}

/// A MANAGE statement: a workload managed to a goal with an importance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manage {
    pub workload: String,
    pub goal: String,
    pub importance: u32,
}

/// The statements of one VMRM CONFIG file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VmrmConfig {
    /// NOTIFY MEMORY: user IDs (a trailing `*` is a wildcard) told to shrink by SMSG.
    pub notify_memory: Vec<String>,
    /// ADMIN MSGUSER: who gets VMRM's log messages on the console too.
    pub msguser: Option<String>,
    /// ADMIN NEWCFG: the file VMRM reads instead on its next start (fn ft fm).
    pub newcfg: Option<[String; 3]>,
    pub goals: Vec<Goal>,
    pub workloads: Vec<WorkloadDef>,
    pub manages: Vec<Manage>,
}

/// A bad statement: the line (from 0) of the file where it starts, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub line: usize,
    pub detail: String,
}

impl VmrmConfig {
    /// Whether NOTIFY MEMORY names `userid`.
    pub fn notified(&self, userid: &str) -> bool {
        self.notify_memory.iter().any(|p| user_matches(p, userid))
    }
}

/// `userid` is `pattern`, or starts with what precedes `pattern`'s trailing `*`.
pub fn user_matches(pattern: &str, userid: &str) -> bool {
    let (p, u) = (pattern.to_ascii_uppercase(), userid.to_ascii_uppercase());
    match p.strip_suffix('*') {
        Some(prefix) => u.starts_with(prefix),
        None => p == u,
    }
}

/// A user ID or user ID pattern: 1 to 8 letters, digits or @#$_-, with `*` only at the end
/// (a lone `*` names every user).
pub fn check_userid(word: &str, wildcard: bool) -> Result<(), String> {
    let stem = if wildcard {
        word.strip_suffix('*').unwrap_or(word)
    } else {
        word
    };
    if word.len() > USERID_MAX {
        return Err(format!("user ID `{word}` is longer than 8 characters"));
    }
    if stem.contains('*') {
        return Err(format!(
            "user ID `{word}`: the wildcard `*` may only end a user ID"
        ));
    }
    if (stem.is_empty() && !word.ends_with('*'))
        || !stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@#$_-".contains(c))
    {
        return Err(format!(
            "user ID `{word}` is not 1-8 letters, digits or @#$_-"
        ));
    }
    Ok(())
}

/// The file's statements, each with the line it starts on: comments dropped, records ending
/// in a comma joined with the next.
fn statements(text: &str) -> Result<Vec<(usize, String)>, ConfigError> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut in_comment: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let mut rec = String::new();
        let mut rest = raw;
        loop {
            if in_comment.is_some() {
                match rest.find("*/") {
                    Some(k) => {
                        rest = &rest[k + 2..];
                        in_comment = None;
                    }
                    None => break,
                }
            }
            match rest.find("/*") {
                Some(k) => {
                    rec.push_str(&rest[..k]);
                    rec.push(' ');
                    rest = &rest[k + 2..];
                    in_comment = Some(i);
                }
                None => {
                    rec.push_str(rest);
                    break;
                }
            }
        }
        let rec = rec.trim();
        if rec.starts_with('*') && open.is_none() {
            continue;
        }
        if rec.is_empty() {
            continue;
        }
        let (body, more) = match rec.strip_suffix(',') {
            Some(b) => (b.trim_end(), true),
            None => (rec, false),
        };
        let mut st = match open.take() {
            Some((l, mut s)) => {
                s.push(' ');
                s.push_str(body);
                (l, s)
            }
            None => (i, body.to_string()),
        };
        if more {
            open = Some(st);
        } else {
            st.1 = st.1.to_ascii_uppercase();
            out.push(st);
        }
    }
    if let Some(l) = in_comment {
        return Err(ConfigError {
            line: l,
            detail: "comment `/*` is not closed by `*/`".into(),
        });
    }
    if let Some((l, _)) = open {
        return Err(ConfigError {
            line: l,
            detail: "the statement ends in a comma (continued) but no record follows".into(),
        });
    }
    Ok(out)
}

fn number(word: Option<&&str>, what: &str, max: u32) -> Result<u32, String> {
    let Some(w) = word else {
        return Err(format!("{what} needs a value from 1 to {max}"));
    };
    match w.parse::<u32>() {
        Ok(v) if (1..=max).contains(&v) => Ok(v),
        _ => Err(format!("{what} `{w}` is not a number from 1 to {max}")),
    }
}

fn name<'a>(word: Option<&&'a str>, what: &str) -> Result<&'a str, String> {
    word.copied().ok_or_else(|| format!("{what} needs a name"))
}

/// Parse VMRM CONFIG. The first bad statement is the error.
pub fn parse(text: &str) -> Result<VmrmConfig, ConfigError> {
    let mut c = VmrmConfig::default();
    let mut refs: Vec<(usize, Manage)> = Vec::new();
    for (line, st) in statements(text)? {
        let err = |detail: String| ConfigError { line, detail };
        let w: Vec<&str> = st.split_whitespace().collect();
        let ops = &w[1..];
        match w[0] {
            "NOTIFY" => {
                match ops.first() {
                    Some(&"MEMORY") => {}
                    Some(k) => {
                        return Err(err(format!(
                            "NOTIFY `{k}`: the only NOTIFY keyword is MEMORY"
                        )))
                    }
                    None => return Err(err("NOTIFY needs the keyword MEMORY".into())),
                }
                if ops.len() < 2 {
                    return Err(err("NOTIFY MEMORY needs at least one user ID".into()));
                }
                for u in &ops[1..] {
                    check_userid(u, true).map_err(&err)?;
                    c.notify_memory.push(u.to_string());
                }
            }
            "ADMIN" => {
                if ops.is_empty() {
                    return Err(err("ADMIN needs MSGUSER userid or NEWCFG fn ft fm".into()));
                }
                let mut k = 0;
                while k < ops.len() {
                    match ops[k] {
                        "MSGUSER" => {
                            let u = ops
                                .get(k + 1)
                                .ok_or_else(|| err("ADMIN MSGUSER needs a user ID".into()))?;
                            check_userid(u, false).map_err(&err)?;
                            c.msguser = Some(u.to_string());
                            k += 2;
                        }
                        "NEWCFG" => {
                            let f = ops.get(k + 1..k + 4).ok_or_else(|| {
                                err("ADMIN NEWCFG needs a file name, type and mode".into())
                            })?;
                            c.newcfg = Some([f[0].into(), f[1].into(), f[2].into()]);
                            k += 4;
                        }
                        o => {
                            return Err(err(format!(
                                "ADMIN `{o}`: the ADMIN keywords are MSGUSER and NEWCFG"
                            )))
                        }
                    }
                }
            }
            "GOAL" => {
                let goal = name(ops.first(), "GOAL").map_err(&err)?;
                if ops.get(1) != Some(&"VELOCITY") {
                    return Err(err(format!("GOAL {goal} needs the keyword VELOCITY")));
                }
                let (mut cpu, mut dasd) = (None, None);
                let mut k = 2;
                while k < ops.len() {
                    let v = number(ops.get(k + 1), ops[k], VELOCITY_MAX);
                    match ops[k] {
                        "CPU" => cpu = Some(v.map_err(&err)?),
                        "DASD" => dasd = Some(v.map_err(&err)?),
                        o => {
                            return Err(err(format!(
                                "GOAL {goal} VELOCITY `{o}`: give CPU n and/or DASD n"
                            )))
                        }
                    }
                    k += 2;
                }
                if cpu.is_none() && dasd.is_none() {
                    return Err(err(format!(
                        "GOAL {goal} VELOCITY needs CPU n or DASD n (1 to 100)"
                    )));
                }
                c.goals.push(Goal {
                    name: goal.into(),
                    cpu,
                    dasd,
                });
            }
            "WORKLOAD" => {
                let wl = name(ops.first(), "WORKLOAD").map_err(&err)?;
                let kind = match ops.get(1) {
                    Some(&"USER") => MemberKind::User,
                    Some(&"ACCOUNT") => MemberKind::Account,
                    Some(&"ACIGROUP") => MemberKind::AciGroup,
                    _ => {
                        return Err(err(format!(
                            "WORKLOAD {wl} needs USER, ACCOUNT or ACIGROUP and its values"
                        )))
                    }
                };
                if ops.len() < 3 {
                    return Err(err(format!("WORKLOAD {wl} {} names no member", ops[1])));
                }
                if kind == MemberKind::User {
                    for u in &ops[2..] {
                        check_userid(u, true).map_err(&err)?;
                    }
                }
                c.workloads.push(WorkloadDef {
                    name: wl.into(),
                    kind,
                    members: ops[2..].iter().map(|s| s.to_string()).collect(),
                });
            }
            "MANAGE" => {
                let wl = name(ops.first(), "MANAGE").map_err(&err)?;
                if ops.get(1) != Some(&"GOAL") || ops.len() < 3 {
                    return Err(err(format!(
                        "MANAGE {wl} needs GOAL goal IMPORTANCE n"
                    )));
                }
                if ops.get(3) != Some(&"IMPORTANCE") || ops.len() > 5 {
                    return Err(err(format!(
                        "MANAGE {wl} GOAL {} needs IMPORTANCE n (1 to 10) and nothing after",
                        ops[2]
                    )));
                }
                let importance = number(ops.get(4), "IMPORTANCE", IMPORTANCE_MAX).map_err(&err)?;
                refs.push((
                    line,
                    Manage {
                        workload: wl.into(),
                        goal: ops[2].into(),
                        importance,
                    },
                ));
            }
            other => {
                return Err(err(format!(
                    "unknown statement `{other}`: VMRM CONFIG has ADMIN, GOAL, MANAGE, NOTIFY and WORKLOAD"
                )))
            }
        }
    }
    // A MANAGE statement names a workload and a goal defined in the file.
    for (line, m) in refs {
        if !c.workloads.iter().any(|w| w.name == m.workload) {
            return Err(ConfigError {
                line,
                detail: format!(
                    "MANAGE names workload {}, which no WORKLOAD statement defines",
                    m.workload
                ),
            });
        }
        if !c.goals.iter().any(|g| g.name == m.goal) {
            return Err(ConfigError {
                line,
                detail: format!(
                    "MANAGE names goal {}, which no GOAL statement defines",
                    m.goal
                ),
            });
        }
        c.manages.push(m);
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_s_statements_and_the_others() {
        let c = parse(
            "* VMRM CONFIG A1\n\
             NOTIFY MEMORY LNX00080 LNX00081,\n   LNX0009*\n\
             admin msguser maint /* VMRMSVM messages to MAINT */\n\
             GOAL MAX VELOCITY CPU 100 DASD 100\n\
             WORKLOAD WORK1 USER LINUX*\n\
             MANAGE WORK1 GOAL MAX IMPORTANCE 10\n",
        )
        .unwrap();
        assert_eq!(c.notify_memory, ["LNX00080", "LNX00081", "LNX0009*"]);
        assert_eq!(c.msguser.as_deref(), Some("MAINT"));
        assert!(c.notified("LNX00095") && c.notified("lnx00081") && !c.notified("LNX00082"));
        assert_eq!(c.goals[0].cpu, Some(100));
        assert_eq!(c.manages[0].importance, 10);
        assert!(user_matches("*", "ANYONE"));
    }

    /// Each bad record is reported at its own line with what is wrong; nothing is kept.
    #[test]
    fn bad_statements_name_their_line_and_fault() {
        let cases: &[(&str, usize, &str)] = &[
            ("NOTIFY MEMORY\n", 0, "at least one user ID"),
            ("\nNOTIFY CPU LNX01\n", 1, "only NOTIFY keyword is MEMORY"),
            ("NOTIFY MEMORY LNX*08\n", 0, "may only end a user ID"),
            ("NOTIFY MEMORY LNX000801\n", 0, "longer than 8"),
            ("* c\nADMIN MSGUSER\n", 1, "needs a user ID"),
            ("ADMIN OPERATOR MAINT\n", 0, "MSGUSER and NEWCFG"),
            ("GOAL G1 VELOCITY CPU 0\n", 0, "from 1 to 100"),
            ("GOAL G1 VELOCITY\n", 0, "CPU n or DASD n"),
            ("GOAL G1 CPU 50\n", 0, "VELOCITY"),
            ("MANAGE W1 GOAL G1 IMPORTANCE 11\n", 0, "from 1 to 10"),
            (
                "GOAL G1 VELOCITY CPU 5\nMANAGE W1 GOAL G1 IMPORTANCE 1\n",
                1,
                "no WORKLOAD",
            ),
            ("WORKLOAD W1 USER\n", 0, "names no member"),
            ("SHRINK LNX01 100\n", 0, "unknown statement `SHRINK`"),
            ("NOTIFY MEMORY LNX01,\n", 0, "no record follows"),
            ("/* open\nNOTIFY MEMORY LNX01\n", 0, "not closed"),
        ];
        for (text, line, what) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, *line, "{text:?}: {e:?}");
            assert!(e.detail.contains(what), "{text:?}: {}", e.detail);
        }
    }
}
