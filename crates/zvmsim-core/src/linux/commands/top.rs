//! `top -b -n 1` (procps 3.2.7, SLES 11): one batch-mode frame.
//!
//! Layout from procps 3.2.7's top.c/top.h (github.com/credil/procps at 9049ffe, see
//! docs/console.md): the summary area (uptime's line after `top -`, the Tasks line, the
//! Cpu(s) line of a 2.6.11+ kernel with steal time, the Mem and Swap lines in KB), then a
//! newline before the column header of the default field group (PID USER PR NI VIRT RES SHR
//! S %CPU %MEM TIME+ COMMAND). In batch mode top uses the "dumb" terminal: no colours, 80
//! columns (a console with no window size, no COLUMNS variable: inference), so the COMMAND
//! heading is padded to the line's end as 3.2.7 does. The first frame's Cpu(s) percentages
//! average since boot (top's first /proc/stat reading).
//!
//! Per-process rows are not printed: zvmsim models the guest's tasks (workload users, kswapd,
//! the cmm thread) and their states, which the Tasks line counts, but not their PIDs, command
//! names, sizes or CPU times, which a row would show.

use super::{LinuxCommand, LinuxView};

/// top's usage line (parse_args).
const USAGE: &str =
    "usage:\ttop -hv | -bcisSH -d delay -n iterations [-u user | -U user] -p pid [,pid ...]";

/// Terminal width of a batch run on a console without a window size ("dumb": cols#80).
const COLUMNS: usize = 80;

/// top's own error: `std_err` prints `\ttop: <message>` (unknown options add the usage line).
fn top_error(msg: &str) -> String {
    format!("\ttop: {msg}")
}

/// The operand after a letter that takes one (`-n1` or `-n 1`), and the rest of the word.
fn operand<'a>(
    rest: &'a str,
    args: &mut std::slice::Iter<'a, &'a str>,
    letter: char,
) -> Result<&'a str, String> {
    if !rest.is_empty() {
        return Ok(rest);
    }
    args.next()
        .copied()
        .ok_or_else(|| top_error(&format!("-{letter} requires argument")))
}

/// Characters parse_args skips after an option letter (`strspn(..., "- ,.1234567890")`).
fn skip_numeric(s: &str) -> &str {
    s.trim_start_matches(|c: char| "- ,.1234567890".contains(c))
}

/// top's arguments, read as 3.2.7's parse_args reads them: each word letter by letter, `-`
/// ignored. Batch mode with one iteration is simulated; other real options are not.
pub(super) fn parse(args: &[&str]) -> Result<Option<LinuxCommand>, String> {
    let (mut batch, mut loops, mut other) = (false, None, false);
    let mut it = args.iter();
    while let Some(word) = it.next() {
        let mut cp: &str = word;
        while let Some(c) = cp.chars().next() {
            let rest = &cp[c.len_utf8()..];
            cp = match c {
                '-' => skip_numeric(rest),
                'b' => {
                    batch = true;
                    skip_numeric(rest)
                }
                'c' | 'H' | 'i' | 's' | 'S' => {
                    other = true;
                    skip_numeric(rest)
                }
                'n' => {
                    let arg = operand(rest, &mut it, 'n')?;
                    match leading_int(arg) {
                        Some(n) if n >= 1 => loops = Some(n),
                        _ => return Err(top_error(&format!("bad iterations arg '{arg}'"))),
                    }
                    skip_numeric(after_first(arg))
                }
                'd' => {
                    let arg = operand(rest, &mut it, 'd')?;
                    if !starts_float(arg) {
                        return Err(top_error(&format!("bad delay '{arg}'")));
                    }
                    other = true;
                    skip_numeric(after_first(arg))
                }
                // Help, version, users and PIDs: real forms zvmsim does not model.
                'h' | 'v' | 'V' | 'p' | 'u' | 'U' => return Ok(None),
                c => {
                    return Err(format!(
                        "{}\n{USAGE}",
                        top_error(&format!("unknown argument '{c}'"))
                    ))
                }
            };
        }
    }
    Ok((batch && loops == Some(1) && !other).then_some(LinuxCommand::Top))
}

/// `s` after its first character (where parse_args resumes after an option's operand).
fn after_first(s: &str) -> &str {
    s.char_indices().nth(1).map_or("", |(i, _)| &s[i..])
}

/// sscanf("%d"): an optional sign and digits at the start.
fn leading_int(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let sign = usize::from(t.starts_with(['-', '+']));
    let digits = t[sign..].chars().take_while(char::is_ascii_digit).count();
    (digits > 0).then(|| t[..sign + digits].parse().ok())?
}

/// sscanf("%f") would read a number at the start.
fn starts_float(s: &str) -> bool {
    let t = s.trim_start().trim_start_matches(['-', '+']);
    t.starts_with(|c: char| c.is_ascii_digit())
        || (t.starts_with('.') && t[1..].starts_with(|c: char| c.is_ascii_digit()))
}

/// The column header of the default window: the field heads with the first one's leading
/// blank dropped, COMMAND left-justified in what remains of the line.
fn header() -> String {
    let heads = "  PID USER      PR  NI  VIRT  RES  SHR S %CPU %MEM    TIME+ ";
    // maxcmdln: the width left for COMMAND after the other heads (with their leading blank).
    let cmd = COMMAND_WIDTH;
    format!("{heads} {:<cmd$.cmd$}", "COMMAND")
}

/// Width top gives the COMMAND column at 80 columns: 80 less the other heads (61 wide with
/// the first field's leading blank).
const COMMAND_WIDTH: usize = COLUMNS - 61;

/// A summary line as show_special cuts it at the screen width.
fn fit(line: String) -> String {
    line.chars().take(COLUMNS).collect()
}

/// The frame: summary area, the blank line, the column header.
pub(super) fn respond(v: &LinuxView) -> Vec<String> {
    let kib = |pages: u64| pages * 4;
    let sleeping = v.tasks.saturating_sub(v.running);
    // Since boot: the guest's virtual CPU time over its virtual CPUs' elapsed time is user
    // time; system, nice, I/O wait, interrupts and steal are not modelled (0).
    let elapsed = v.sample.t_s * f64::from(v.vcpus.max(1));
    let us = if elapsed > 0.0 {
        (100.0 * v.sample.cpu_ns as f64 / 1e9 / elapsed).min(100.0)
    } else {
        0.0
    };
    let pct = |x: f64| format!("{x:5.1}%");
    vec![
        fit(format!("top -{}", super::procps::uptime_line(v))),
        fit(format!(
            "Tasks: {:3} total, {:3} running, {:3} sleeping, {:3} stopped, {:3} zombie",
            v.tasks, v.running, sleeping, 0, 0
        )),
        fit(format!(
            "Cpu(s):{}us,{}sy,{}ni,{}id,{}wa,{}hi,{}si,{}st",
            pct(us),
            pct(0.0),
            pct(0.0),
            pct(100.0 - us),
            pct(0.0),
            pct(0.0),
            pct(0.0),
            pct(0.0)
        )),
        fit(format!(
            "Mem:  {:8}k total, {:8}k used, {:8}k free, {:8}k buffers",
            kib(v.total),
            kib(v.total - v.free),
            kib(v.free),
            0
        )),
        fit(format!(
            "Swap: {:8}k total, {:8}k used, {:8}k free, {:8}k cached",
            kib(v.swap_total),
            kib(v.swap_used),
            kib(v.swap_total - v.swap_used),
            kib(v.cached)
        )),
        String::new(),
        header(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::commands::{parse as parse_line, VmstatSample};

    #[test]
    fn batch_one_iteration_forms() {
        for cmd in [
            "top -b -n 1",
            "top -bn1",
            "top -n1 -b",
            "top -b -n1",
            "top -n 1 -b",
            "top b n1",
        ] {
            assert_eq!(parse_line(cmd), Ok(LinuxCommand::Top), "{cmd}");
        }
        // Real forms zvmsim does not model: interactive, several frames, other options.
        for cmd in [
            "top",
            "top -b",
            "top -b -n 2",
            "top -bn1 -d 5",
            "top -bn1 -c",
            "top -h",
        ] {
            assert_eq!(
                parse_line(cmd),
                Ok(LinuxCommand::NotSimulated {
                    command: cmd.into()
                }),
                "{cmd}"
            );
        }
    }

    #[test]
    fn top_errors_as_parse_args_prints_them() {
        assert_eq!(
            parse_line("top -bn1 -x").unwrap_err(),
            format!("\ttop: unknown argument 'x'\n{USAGE}")
        );
        assert_eq!(
            parse_line("top -b -n").unwrap_err(),
            "\ttop: -n requires argument"
        );
        assert_eq!(
            parse_line("top -b -n 0").unwrap_err(),
            "\ttop: bad iterations arg '0'"
        );
        assert_eq!(
            parse_line("top -b -nx").unwrap_err(),
            "\ttop: bad iterations arg 'x'"
        );
        assert_eq!(
            parse_line("top -b -d fast").unwrap_err(),
            "\ttop: bad delay 'fast'"
        );
    }

    #[test]
    fn frame_line_by_line() {
        // A 2 GB guest (524,288 pages, 6,000 reserved by its kernel), 3 hours 25 minutes
        // after IPL, 2 virtual CPUs that used 1.5 CPU-hours: 21.95 % user time since boot.
        let v = LinuxView {
            total: 518_288,
            free: 10_000,
            cached: 200_000,
            swap_total: 524_288,
            swap_used: 1_000,
            tasks: 33,
            running: 2,
            blocked: 4,
            uptime_s: 12_300.0,
            time_of_day_s: 12_305.0,
            loadavg: [2.5, 2.25, 1.0],
            vcpus: 2,
            sample: VmstatSample {
                t_s: 12_300.0,
                cpu_ns: 5_400 * 1_000_000_000,
                ..Default::default()
            },
            ..Default::default()
        };
        let out = respond(&v);
        let want = [
            "top - 03:25:05 up  3:25,  1 user,  load average: 2.50, 2.25, 1.00",
            "Tasks:  33 total,   2 running,  31 sleeping,   0 stopped,   0 zombie",
            "Cpu(s): 22.0%us,  0.0%sy,  0.0%ni, 78.0%id,  0.0%wa,  0.0%hi,  0.0%si,  0.0%st",
            "Mem:   2073152k total,  2033152k used,    40000k free,        0k buffers",
            "Swap:  2097152k total,     4000k used,  2093152k free,   800000k cached",
            "",
            "  PID USER      PR  NI  VIRT  RES  SHR S %CPU %MEM    TIME+  COMMAND            ",
        ];
        assert_eq!(out, want);
        assert_eq!(out[6].len(), COLUMNS);
        assert_eq!(respond_lines(&v), out);
    }

    fn respond_lines(v: &LinuxView) -> Vec<String> {
        crate::linux::commands::respond(&LinuxCommand::Top, v)
    }
}
