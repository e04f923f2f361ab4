//! Linux shell commands typed in a guest: parsing and the output Linux prints, from the
//! simulated guest's memory state. A real command that zvmsim does not model answers
//! `not simulated by zvmsim: <command>`; an unknown command answers as bash does.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinuxCommand {
    /// `free` with its unit flag (divisor in KiB).
    Free {
        unit_kib: u64,
    },
    Meminfo,
    Vmstat,
    /// `swapon -s` or `cat /proc/swaps`.
    Swaps,
    /// `sysctl vm.swappiness`, `cat /proc/sys/vm/swappiness`.
    ShowVm {
        tunable: VmTunable,
        sysctl: bool,
    },
    /// `sysctl -w vm.swappiness=N`, `echo N > /proc/sys/vm/swappiness`: the caller sets it.
    SetVm {
        tunable: VmTunable,
        value: u32,
        sysctl: bool,
    },
    /// A real command (see [`super::catalog`]) that zvmsim does not model, as typed.
    NotSimulated {
        command: String,
    },
}

/// The VM tunables the model uses, as sysctl and /proc/sys/vm name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmTunable {
    Swappiness,
    PageCluster,
}

impl VmTunable {
    const ALL: [VmTunable; 2] = [VmTunable::Swappiness, VmTunable::PageCluster];

    pub fn key(self) -> &'static str {
        match self {
            VmTunable::Swappiness => "vm.swappiness",
            VmTunable::PageCluster => "vm.page-cluster",
        }
    }

    fn path(self) -> String {
        format!("/proc/sys/vm/{}", &self.key()[3..])
    }

    /// Values the simulation accepts (Linux bounds swappiness to 0-100; page-cluster is
    /// simulated up to 8, reads of 256 pages).
    fn valid(self, v: u32) -> bool {
        match self {
            VmTunable::Swappiness => v <= 100,
            VmTunable::PageCluster => v <= 8,
        }
    }

    fn by_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }

    fn by_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.path() == path)
    }
}

/// Linux's name of the guest's `i`-th DASD (0: dasda, 25: dasdz, 26: dasdaa).
pub fn dasd_name(i: u32) -> String {
    let letter = |k: u32| char::from(b'a' + k as u8);
    if i < 26 {
        format!("dasd{}", letter(i))
    } else {
        format!("dasd{}{}", letter(i / 26 - 1), letter(i % 26))
    }
}

/// The guest memory view these commands print (all in 4 KB pages).
pub struct LinuxView {
    pub total: u64,
    pub free: u64,
    pub cached: u64,
    pub anon: u64,
    pub kernel: u64,
    pub swap_total: u64,
    pub swap_used: u64,
    pub swap_cached: u64,
    pub pgmajfault: u64,
    pub pgscan_direct: u64,
    pub pgscan_kswapd: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    pub swappiness: u32,
    pub page_cluster: u32,
    /// Swap partitions and their size and use in pages (slots are spread round robin).
    pub swap_devices: Vec<String>,
}

/// The simulated command forms, as `zvmsim commands` lists them, with a note where the answer
/// differs from the real command's.
pub const SIMULATED: &[(&str, Option<&str>)] = &[
    ("free [-k|-m|-g]", None),
    ("cat /proc/meminfo", None),
    ("cat /proc/vmstat", None),
    ("vmstat", Some("answers with the /proc/vmstat counters")),
    ("cat /proc/swaps", None),
    ("swapon -s", None),
    ("sysctl [-w] vm.swappiness[=N]", None),
    ("sysctl [-w] vm.page-cluster[=N]", None),
    ("cat /proc/sys/vm/swappiness", None),
    ("cat /proc/sys/vm/page-cluster", None),
    ("echo N > /proc/sys/vm/swappiness", None),
    ("echo N > /proc/sys/vm/page-cluster", None),
];

/// A word of the command line after quote removal; `quoted` words are never operators.
struct Word {
    text: String,
    quoted: bool,
}

/// A command line split as bash would: simple commands (separated by `|`, `;`, `&&`, `||`,
/// `&`), and whether it needs more than one simple command or a substitution.
struct Lexed {
    commands: Vec<Vec<Word>>,
    compound: bool,
}

fn lex(line: &str) -> Result<Lexed, String> {
    let mut commands: Vec<Vec<Word>> = vec![Vec::new()];
    let mut compound = false;
    let mut text = String::new();
    let mut quoted = false;
    let mut started = false;
    let mut quote: Option<char> = None;
    let chars: Vec<char> = line.chars().collect();
    let flush = |commands: &mut Vec<Vec<Word>>,
                 text: &mut String,
                 quoted: &mut bool,
                 started: &mut bool| {
        if *started {
            commands
                .last_mut()
                .expect("one command at least")
                .push(Word {
                    text: std::mem::take(text),
                    quoted: *quoted,
                });
        }
        *quoted = false;
        *started = false;
    };
    for (i, &c) in chars.iter().enumerate() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '`') | (None, '`') => {
                compound = true;
                text.push(c);
            }
            (Some('"'), '$') | (None, '$') if chars.get(i + 1) == Some(&'(') => {
                compound = true;
                text.push(c);
            }
            (Some(_), c) => text.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                quoted = true;
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                flush(&mut commands, &mut text, &mut quoted, &mut started)
            }
            // `2>&1`, `&>file`: part of a redirection, not a list operator.
            (None, '&') if text.ends_with(['>', '<']) || chars.get(i + 1) == Some(&'>') => {
                text.push(c);
                started = true;
            }
            (None, '|' | ';' | '&') => {
                flush(&mut commands, &mut text, &mut quoted, &mut started);
                compound = true;
                if !commands.last().expect("one command at least").is_empty() {
                    commands.push(Vec::new());
                }
            }
            (None, c) => {
                text.push(c);
                started = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!(
            "-bash: unexpected EOF while looking for matching `{q}'"
        ));
    }
    flush(&mut commands, &mut text, &mut quoted, &mut started);
    commands.retain(|c| !c.is_empty());
    Ok(Lexed { commands, compound })
}

/// `NAME=value` before a command sets a variable for it.
fn is_assignment(w: &Word) -> bool {
    !w.quoted
        && w.text.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// A redirection operator at the start of an unquoted word: its length (`>`, `>>`, `2>`,
/// `2>&`, `&>`, `<`...).
fn redirection(w: &Word) -> Option<usize> {
    if w.quoted {
        return None;
    }
    let t = w.text.as_str();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &t[digits..];
    let op = if rest.starts_with("&>>") {
        3
    } else if rest.starts_with("&>")
        || rest.starts_with(">>")
        || rest.starts_with(">&")
        || rest.starts_with("<&")
    {
        2
    } else if rest.starts_with(['>', '<']) {
        1
    } else {
        return None;
    };
    Some(digits + op)
}

/// A redirection: its operator and target.
struct Redirect {
    op: String,
    target: String,
}

impl Redirect {
    /// Redirects standard output (where `echo` writes).
    fn stdout(&self) -> bool {
        matches!(
            self.op.as_str(),
            ">" | ">>" | "1>" | "1>>" | "&>" | "&>>" | ">|"
        )
    }
}

fn split_redirections(words: &[Word]) -> Result<(Vec<&str>, Vec<Redirect>), String> {
    let mut args = Vec::new();
    let mut redirects = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        match redirection(w) {
            Some(n) => {
                let (op, rest) = w.text.split_at(n);
                let target = if rest.is_empty() {
                    i += 1;
                    match words.get(i) {
                        Some(t) if redirection(t).is_none() => t.text.clone(),
                        Some(t) => {
                            return Err(format!(
                                "-bash: syntax error near unexpected token `{}'",
                                t.text
                            ))
                        }
                        None => {
                            return Err("-bash: syntax error near unexpected token `newline'".into())
                        }
                    }
                } else {
                    rest.to_string()
                };
                redirects.push(Redirect {
                    op: op.to_string(),
                    target,
                });
            }
            None => args.push(w.text.as_str()),
        }
        i += 1;
    }
    Ok((args, redirects))
}

/// The shell's answer to a command it cannot find.
fn find_command(name: &str) -> Result<(), String> {
    if super::catalog::command_exists(name) {
        Ok(())
    } else if name.contains('/') {
        Err(format!("-bash: {name}: No such file or directory"))
    } else {
        Err(format!("-bash: {name}: command not found"))
    }
}

/// Parse one command line typed in a guest. A real command (see [`super::catalog`]) that
/// zvmsim does not model, or a modelled one in a form it does not model (options, pipes,
/// redirections), is [`LinuxCommand::NotSimulated`]; errors are the shell's or the command's.
pub fn parse(line: &str) -> Result<LinuxCommand, String> {
    let typed = line.trim();
    let not_simulated = || LinuxCommand::NotSimulated {
        command: typed.to_string(),
    };
    let lexed = lex(typed)?;
    if lexed.commands.is_empty() {
        return Err("-bash: syntax error: empty command".into());
    }
    let program = |c: &Vec<Word>| {
        c.iter()
            .position(|w| !is_assignment(w) && redirection(w).is_none())
    };
    if lexed.compound || lexed.commands.len() > 1 {
        for c in &lexed.commands {
            if let Some(i) = program(c) {
                find_command(&c[i].text)?;
            }
        }
        return Ok(not_simulated());
    }
    let words = &lexed.commands[0];
    let Some(first) = program(words) else {
        return Ok(not_simulated()); // only variable assignments or redirections
    };
    let (args, redirects) = split_redirections(&words[first..])?;
    let Some((&cmd, args)) = args.split_first() else {
        return Ok(not_simulated());
    };
    if cmd == "echo" {
        return echo(args, &redirects).map(|c| c.unwrap_or_else(not_simulated));
    }
    let parsed = match cmd {
        "free" => free(args)?,
        "cat" => cat(args)?,
        "vmstat" if args.is_empty() => Some(LinuxCommand::Vmstat),
        "swapon" => swapon(args)?,
        "sysctl" => sysctl(args)?,
        _ => {
            find_command(cmd)?;
            None
        }
    };
    // A modelled command whose output goes elsewhere, or with variables set, prints nothing
    // here: not simulated.
    Ok(match parsed {
        Some(c) if redirects.is_empty() && first == 0 => c,
        _ => not_simulated(),
    })
}

/// `free` (procps 3.2): -k, -m, -g are simulated; -b, -l, -o, -t, -s N, -V are not.
fn free(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut unit_kib = 1;
    let mut other = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(flags) = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !f.starts_with('-'))
        else {
            return Err(format!(
                "free: invalid option -- '{}'",
                a.trim_start_matches('-')
            ));
        };
        for (i, c) in flags.char_indices() {
            match c {
                'k' => unit_kib = 1,
                'm' => unit_kib = 1024,
                'g' => unit_kib = 1024 * 1024,
                'b' | 'l' | 'o' | 't' | 'V' => other = true,
                's' => {
                    other = true;
                    if i + 1 == flags.len() && it.next().is_none() {
                        return Err("free: option requires an argument -- 's'".into());
                    }
                    break; // the rest of the word is the delay
                }
                c => return Err(format!("free: invalid option -- '{c}'")),
            }
        }
    }
    Ok((!other).then_some(LinuxCommand::Free { unit_kib }))
}

/// `cat` (coreutils): one of the modelled files is simulated; other files that exist are not.
fn cat(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    const LONG: [&str; 9] = [
        "show-all",
        "number-nonblank",
        "show-ends",
        "number",
        "squeeze-blank",
        "show-tabs",
        "show-nonprinting",
        "help",
        "version",
    ];
    let mut files = Vec::new();
    let mut options = false;
    for a in args {
        if let Some(long) = a.strip_prefix("--") {
            if !long.is_empty() && !LONG.contains(&long) {
                return Err(format!("cat: unrecognized option '{a}'"));
            }
            options = true;
        } else if a.len() > 1 && a.starts_with('-') {
            if let Some(c) = a[1..].chars().find(|c| !"AbeEnstTuv".contains(*c)) {
                return Err(format!("cat: invalid option -- '{c}'"));
            }
            options = true;
        } else {
            files.push(*a);
        }
    }
    if let ([path], false) = (files.as_slice(), options) {
        match *path {
            "/proc/meminfo" => return Ok(Some(LinuxCommand::Meminfo)),
            "/proc/vmstat" => return Ok(Some(LinuxCommand::Vmstat)),
            "/proc/swaps" => return Ok(Some(LinuxCommand::Swaps)),
            p => {
                if let Some(tunable) = VmTunable::by_path(p) {
                    return Ok(Some(LinuxCommand::ShowVm {
                        tunable,
                        sysctl: false,
                    }));
                }
            }
        }
    }
    for f in files.iter().filter(|f| **f != "-") {
        match super::catalog::file(f) {
            Some(e) if e.access.readable() => {}
            Some(_) => return Err(format!("cat: {f}: Permission denied")),
            None => return Err(format!("cat: {f}: No such file or directory")),
        }
    }
    Ok(None) // reads standard input, several files, or a file zvmsim does not model
}

/// `swapon` (util-linux): `-s` is simulated; activating swap space is not (the scenario's
/// guests.linux.swap sets it up).
fn swapon(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    if let ["-s"] | ["--summary"] = args {
        return Ok(Some(LinuxCommand::Swaps));
    }
    const LONG: [&str; 6] = ["all", "help", "ifexists", "summary", "verbose", "version"];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if !LONG.contains(&name) && name != "priority" {
                return Err(format!("swapon: unrecognized option '{a}'"));
            }
        } else if a.len() > 1 && a.starts_with('-') {
            for (i, c) in a.char_indices().skip(1) {
                match c {
                    'a' | 'e' | 'h' | 's' | 'v' | 'V' => {}
                    'p' | 'L' | 'U' => {
                        if i + 1 == a.len() && it.next().is_none() {
                            return Err(format!("swapon: option requires an argument -- '{c}'"));
                        }
                        break;
                    }
                    c => return Err(format!("swapon: invalid option -- '{c}'")),
                }
            }
        }
    }
    Ok(None)
}

/// `sysctl` (procps 3.2): reading or setting vm.swappiness and vm.page-cluster is simulated;
/// other keys that exist, several keys, and -a/-p/-n... are not.
fn sysctl(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let mut keys = Vec::new();
    let mut other = false;
    for a in args {
        match *a {
            "-w" => {}
            "-a" | "-A" | "-X" | "-p" => return Ok(None),
            "-n" | "-N" | "-e" | "-q" => other = true,
            o if o.len() > 1 && o.starts_with('-') => {
                return Err(format!("error: Unknown parameter \"{o}\""))
            }
            k => keys.push(k),
        }
    }
    if keys.is_empty() {
        return if other {
            Ok(None)
        } else {
            Err("sysctl: no variables specified".into())
        };
    }
    let mut simulated = None;
    for kv in &keys {
        let (key, value) = match kv.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (*kv, None),
        };
        if let Some(tunable) = VmTunable::by_key(key) {
            simulated = match value.map(|v| v.parse::<u32>()) {
                None => Some(LinuxCommand::ShowVm {
                    tunable,
                    sysctl: true,
                }),
                Some(Ok(value)) if tunable.valid(value) => Some(LinuxCommand::SetVm {
                    tunable,
                    value,
                    sysctl: true,
                }),
                Some(_) => {
                    return Err(format!("error: \"Invalid argument\" setting key \"{key}\""))
                }
            };
            continue;
        }
        match super::catalog::sysctl_file(key) {
            Some(f) if value.is_some() && !f.access.writable() => {
                return Err(format!("error: permission denied on key '{key}'"))
            }
            Some(_) => {}
            None => return Err(format!("error: \"{key}\" is an unknown key")),
        }
    }
    Ok(if keys.len() == 1 && !other {
        simulated
    } else {
        None
    })
}

/// `echo` (the bash builtin): writing a number to /proc/sys/vm/swappiness or page-cluster is
/// simulated; other writes to files that exist are not; printing is not.
fn echo(args: &[&str], redirects: &[Redirect]) -> Result<Option<LinuxCommand>, String> {
    let Some(out) = redirects.iter().rev().find(|r| r.stdout()) else {
        return Ok(None);
    };
    let values: Vec<&str> = args
        .iter()
        .copied()
        .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    let path = out.target.as_str();
    if let Some(tunable) = VmTunable::by_path(path) {
        return match values.as_slice() {
            [value] => match value.parse::<u32>() {
                Ok(v) if tunable.valid(v) => Ok(Some(LinuxCommand::SetVm {
                    tunable,
                    value: v,
                    sysctl: false,
                })),
                _ => Err("-bash: echo: write error: Invalid argument".into()),
            },
            _ => Err("-bash: echo: write error: Invalid argument".into()),
        };
    }
    match super::catalog::file(path) {
        Some(f) if f.access.writable() => Ok(None),
        Some(_) => Err(format!("-bash: {path}: Permission denied")),
        // Linux's /proc and /sys do not create files.
        None if super::catalog::in_kernel_fs(path) => {
            Err(format!("-bash: {path}: Permission denied"))
        }
        None => Ok(None),
    }
}

pub fn respond(cmd: &LinuxCommand, v: &LinuxView) -> Vec<String> {
    let kib = |pages: u64| pages * 4;
    match cmd {
        LinuxCommand::Free { unit_kib } => {
            let u = |p: u64| kib(p) / unit_kib;
            let used = v.total - v.free;
            vec![
                "             total       used       free     shared    buffers     cached".into(),
                format!(
                    "Mem:    {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                    u(v.total),
                    u(used),
                    u(v.free),
                    0,
                    0,
                    u(v.cached)
                ),
                format!(
                    "-/+ buffers/cache: {:>10} {:>10}",
                    u(used - v.cached),
                    u(v.free + v.cached)
                ),
                format!(
                    "Swap:   {:>10} {:>10} {:>10}",
                    u(v.swap_total),
                    u(v.swap_used),
                    u(v.swap_total - v.swap_used)
                ),
            ]
        }
        LinuxCommand::Meminfo => vec![
            format!("MemTotal:     {:>10} kB", kib(v.total)),
            format!("MemFree:      {:>10} kB", kib(v.free)),
            format!("Cached:       {:>10} kB", kib(v.cached)),
            format!("SwapCached:   {:>10} kB", kib(v.swap_cached)),
            format!("AnonPages:    {:>10} kB", kib(v.anon)),
            format!("Slab:         {:>10} kB", kib(v.kernel)),
            format!("SwapTotal:    {:>10} kB", kib(v.swap_total)),
            format!("SwapFree:     {:>10} kB", kib(v.swap_total - v.swap_used)),
        ],
        LinuxCommand::Vmstat => vec![
            format!("nr_free_pages {}", v.free),
            format!("nr_file_pages {}", v.cached),
            format!("nr_anon_pages {}", v.anon),
            format!("pswpin {}", v.pswpin),
            format!("pswpout {}", v.pswpout),
            format!("pgmajfault {}", v.pgmajfault),
            format!("pgscan_kswapd {}", v.pgscan_kswapd),
            format!("pgscan_direct {}", v.pgscan_direct),
        ],
        LinuxCommand::Swaps => {
            let mut out = vec![
                "Filename                                Type            Size    Used    Priority"
                    .to_string(),
            ];
            let n = v.swap_devices.len().max(1) as u64;
            for (k, dev) in v.swap_devices.iter().enumerate() {
                // Slots are spread round robin: device k has every n-th one.
                let share = |total: u64| total / n + u64::from((k as u64) < total % n);
                out.push(format!(
                    "{:<40}partition       {:<8}{:<8}-{}",
                    dev,
                    kib(share(v.swap_total)),
                    kib(share(v.swap_used)),
                    k + 1
                ));
            }
            out
        }
        LinuxCommand::ShowVm { tunable, sysctl } => {
            let value = match tunable {
                VmTunable::Swappiness => v.swappiness,
                VmTunable::PageCluster => v.page_cluster,
            };
            if *sysctl {
                vec![format!("{} = {value}", tunable.key())]
            } else {
                vec![value.to_string()]
            }
        }
        LinuxCommand::SetVm {
            tunable,
            value,
            sysctl: true,
        } => {
            vec![format!("{} = {value}", tunable.key())]
        }
        LinuxCommand::SetVm { sysctl: false, .. } => vec![],
        LinuxCommand::NotSimulated { command } => {
            vec![format!("not simulated by zvmsim: {command}")]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(
            parse("free -m").unwrap(),
            LinuxCommand::Free { unit_kib: 1024 }
        );
        assert_eq!(parse("cat /proc/meminfo").unwrap(), LinuxCommand::Meminfo);
        assert_eq!(parse("frob").unwrap_err(), "-bash: frob: command not found");
        assert!(parse("free -z").unwrap_err().contains("invalid option"));
        assert!(parse("cat /proc/nothing")
            .unwrap_err()
            .contains("No such file"));
        assert_eq!(
            parse("sysctl -w vm.swappiness=10").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::Swappiness,
                value: 10,
                sysctl: true
            }
        );
        assert_eq!(
            parse("echo 0 > /proc/sys/vm/swappiness").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::Swappiness,
                value: 0,
                sysctl: false
            }
        );
        assert!(parse("sysctl vm.swappiness=101")
            .unwrap_err()
            .contains("Invalid argument"));
        assert!(parse("echo x > /proc/sys/vm/swappiness")
            .unwrap_err()
            .contains("write error"));
        assert!(parse("sysctl vm.nosuch=1")
            .unwrap_err()
            .contains("unknown key"));
        assert_eq!(parse("swapon -s").unwrap(), LinuxCommand::Swaps);
        assert_eq!(
            parse("sysctl vm.page-cluster=0").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::PageCluster,
                value: 0,
                sysctl: true
            }
        );
        assert_eq!(
            parse("cat /proc/sys/vm/page-cluster").unwrap(),
            LinuxCommand::ShowVm {
                tunable: VmTunable::PageCluster,
                sysctl: false
            }
        );
        assert!(parse("sysctl vm.page-cluster=9")
            .unwrap_err()
            .contains("Invalid argument"));
        assert_eq!(dasd_name(0), "dasda");
        assert_eq!(dasd_name(8), "dasdi");
        assert_eq!(dasd_name(27), "dasdab");
    }

    fn ns(cmd: &str) -> LinuxCommand {
        LinuxCommand::NotSimulated {
            command: cmd.trim().to_string(),
        }
    }

    #[test]
    fn real_commands_not_simulated() {
        for cmd in [
            "modprobe cmm",
            "/sbin/modprobe cmm sender=VMRMSVM",
            "mount -t ext2 -o xip /dev/dcssblk0 /mnt",
            "mkswap /dev/dasdb1",
            "swapon /dev/dasdb1",
            "swapon -a",
            "swapoff -a",
            "lsdasd -u",
            "iostat -x 5",
            "top -b -n 1",
            "ps aux",
            "vmstat 1 5",
            "free -t",
            "free -m -s 5",
            "echo \"DCSS1G\" > /sys/devices/dcssblk/add",
            "echo DCSS4G1:DCSS4G2 > /sys/devices/dcssblk/add",
            "echo 1 > /sys/devices/dcssblk/DCSSOPT1/save",
            "echo 3 > /proc/sys/vm/drop_caches",
            "echo hello",
            "cat /proc/dasd/devices",
            "cat /proc/meminfo /proc/vmstat",
            "cat -n /proc/meminfo",
            "cat /proc/meminfo > /tmp/mem",
            "cat /proc/dasd/devices | grep dasdb",
            "sysctl vm.dirty_ratio",
            "sysctl -w vm.dirty_ratio=20",
            "sysctl -a",
            "sysctl -n vm.swappiness",
            "sysctl vm.swappiness vm.page-cluster",
            "free -m; vmstat",
            "LANG=C free -m",
        ] {
            assert_eq!(parse(cmd), Ok(ns(cmd)), "{cmd}");
        }
        let v = LinuxView {
            total: 0,
            free: 0,
            cached: 0,
            anon: 0,
            kernel: 0,
            swap_total: 0,
            swap_used: 0,
            swap_cached: 0,
            pgmajfault: 0,
            pgscan_direct: 0,
            pgscan_kswapd: 0,
            pswpin: 0,
            pswpout: 0,
            swappiness: 60,
            page_cluster: 3,
            swap_devices: vec![],
        };
        assert_eq!(
            respond(&parse(" modprobe cmm ").unwrap(), &v),
            vec!["not simulated by zvmsim: modprobe cmm".to_string()]
        );
    }

    #[test]
    fn unknown_commands_and_bad_operands() {
        assert_eq!(parse("FREE").unwrap_err(), "-bash: FREE: command not found");
        assert_eq!(
            parse("chzdev dasd 1000 -e").unwrap_err(),
            "-bash: chzdev: command not found"
        );
        assert_eq!(
            parse("./frob").unwrap_err(),
            "-bash: ./frob: No such file or directory"
        );
        // A `|` inside quotes does not split the pipeline (`56BF"` is no command).
        let piped = "cat /proc/subchannels | egrep \"5680|56BF\"";
        assert_eq!(parse(piped), Ok(ns(piped)));
        assert_eq!(
            parse("ps aux | frob").unwrap_err(),
            "-bash: frob: command not found"
        );
        assert_eq!(
            parse("swapon -z").unwrap_err(),
            "swapon: invalid option -- 'z'"
        );
        assert_eq!(
            parse("free -mz").unwrap_err(),
            "free: invalid option -- 'z'"
        );
        assert_eq!(
            parse("cat -z /proc/meminfo").unwrap_err(),
            "cat: invalid option -- 'z'"
        );
        assert_eq!(
            parse("cat /sys/devices/dcssblk/add").unwrap_err(),
            "cat: /sys/devices/dcssblk/add: Permission denied"
        );
        assert_eq!(
            parse("echo 1 > /proc/meminfo").unwrap_err(),
            "-bash: /proc/meminfo: Permission denied"
        );
        assert_eq!(
            parse("echo 1 > /proc/nothing").unwrap_err(),
            "-bash: /proc/nothing: Permission denied"
        );
        assert_eq!(
            parse("sysctl vm.dirty_ratio vm.nosuch").unwrap_err(),
            "error: \"vm.nosuch\" is an unknown key"
        );
        assert_eq!(
            parse("sysctl -w kernel.osrelease=9").unwrap_err(),
            "error: permission denied on key 'kernel.osrelease'"
        );
        assert_eq!(
            parse("sysctl -z vm.swappiness").unwrap_err(),
            "error: Unknown parameter \"-z\""
        );
        assert_eq!(
            parse("echo \"DCSS1G > /sys/devices/dcssblk/add").unwrap_err(),
            "-bash: unexpected EOF while looking for matching `\"'"
        );
        assert_eq!(
            parse("free -m >").unwrap_err(),
            "-bash: syntax error near unexpected token `newline'"
        );
        // Modelled commands are unchanged, quotes removed as the shell does.
        assert_eq!(
            parse("echo \"5\" > /proc/sys/vm/swappiness").unwrap(),
            LinuxCommand::SetVm {
                tunable: VmTunable::Swappiness,
                value: 5,
                sysctl: false
            }
        );
        assert_eq!(parse("vmstat").unwrap(), LinuxCommand::Vmstat);
        assert_eq!(
            parse("free -g").unwrap(),
            LinuxCommand::Free { unit_kib: 1 << 20 }
        );
    }
}
