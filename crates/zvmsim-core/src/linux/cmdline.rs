//! The kernel's boot parameter line (the `parameters = "..."` line of zipl.conf, shown by
//! `cat /proc/cmdline`): split into parameters as the kernel splits it, and the ones the model
//! acts on, `cmma=` and `mem=`. Every other parameter (root=, vmpoff=, dasd=...) is kept and ignored, as
//! the kernel hands parameters it does not know to init.
//!
//! Splitting (the kernel's `next_arg`): words end at a blank outside double quotes; a double
//! quote at the start of a word or of its value and one at its end are removed; `name=value`
//! splits at the first `=`; a lone `--` ends the kernel's parameters (the rest goes to init).
//!
//! `cmma=` (the s390 `cmma` handler of arch/s390/mm/page-states.c as introduced with CMMA, the
//! code the SLES10 service packs carry): exactly `on` or `yes` turns CMMA on; `off`, `no` or any
//! other value (case matters: `ON` is no value it knows) turns it off; the last `cmma=` wins,
//! each being handled in turn. A bare `cmma` without `=` is not the parameter. Default: off, as
//! the study states for its guests ("default is cmma=off", seed 002). Later kernels (from
//! knowledge, not modelled) default to on and parse the value with kstrtobool (1/0, y/n too).

/// One kernel parameter: `name` or `name=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub value: Option<String>,
}

/// The kernel parameters of `line`, in order.
pub fn params(line: &str) -> Vec<Param> {
    let mut out = Vec::new();
    for word in words(line) {
        if word == "--" {
            break;
        }
        let w = word.strip_prefix('"').unwrap_or(&word);
        let (name, value) = match w.split_once('=') {
            Some((n, v)) => {
                let v = v.strip_prefix('"').unwrap_or(v);
                (n, Some(v.strip_suffix('"').unwrap_or(v).to_string()))
            }
            None => (w.strip_suffix('"').unwrap_or(w), None),
        };
        out.push(Param {
            name: name.to_string(),
            value,
        });
    }
    out
}

/// The `mem=` of a boot line, in pages (None: not given).
pub fn mem_pages(params: &str) -> Option<u64> {
    let v = params
        .split_whitespace()
        .find_map(|p| p.strip_prefix("mem="))?;
    let (n, m) = match v.chars().last()? {
        'K' | 'k' => (&v[..v.len() - 1], 1u64 << 10),
        'M' | 'm' => (&v[..v.len() - 1], 1 << 20),
        'G' | 'g' => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    // Saturating: a value past 16E is refused by validation as a map that does not fit.
    n.parse::<u64>().ok().map(|x| x.saturating_mul(m) / 4096)
}

/// Kernel pages the memory map above the guest's storage costs: 64 bytes per 4 KB page up to
/// the mem= limit (seed 001; one struct page per page frame).
pub fn mem_map_extra(params: &str, storage_pages: u64) -> u64 {
    mem_pages(params).map_or(0, |m| {
        m.saturating_sub(storage_pages).saturating_mul(64) / 4096
    })
}

/// The words of `line`: blank-separated, a double-quoted stretch keeping its blanks.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        if c == '"' {
            quoted = !quoted;
        }
        if c.is_ascii_whitespace() && !quoted {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The line asks for CMMA (see the module comment for the values the kernel accepts).
pub fn cmma(line: &str) -> bool {
    params(line)
        .iter()
        .filter(|p| p.name == "cmma")
        .filter_map(|p| p.value.as_deref())
        .next_back()
        .is_some_and(|v| matches!(v.trim(), "yes" | "on"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, value: Option<&str>) -> Param {
        Param {
            name: name.into(),
            value: value.map(Into::into),
        }
    }

    #[test]
    fn splits_as_the_kernel_does() {
        assert_eq!(
            params("  root=/dev/dasda1   cmma=on\tvmpoff=LOGOFF noinitrd "),
            vec![
                p("root", Some("/dev/dasda1")),
                p("cmma", Some("on")),
                p("vmpoff", Some("LOGOFF")),
                p("noinitrd", None),
            ]
        );
        // A quoted value keeps its blanks and loses its quotes.
        assert_eq!(
            params(r#"vmhalt="LOGOFF NOW" dasd=0.0.0150-0.0.0152"#),
            vec![
                p("vmhalt", Some("LOGOFF NOW")),
                p("dasd", Some("0.0.0150-0.0.0152")),
            ]
        );
        // `--` ends the kernel's parameters.
        assert_eq!(params("ro -- cmma=on"), vec![p("ro", None)]);
        assert!(params("   ").is_empty());
    }

    #[test]
    fn cmma_values() {
        for (line, on) in [
            ("root=/dev/dasda1 cmma=on", true),
            ("cmma=yes", true),
            ("cmma=off", false),
            ("cmma=no", false),
            // Values the SLES10-era handler does not know leave CMMA off.
            ("cmma=maybe", false),
            ("cmma=ON", false),
            ("cmma=1", false),
            ("cmma=", false),
            // Not the parameter.
            ("cmma", false),
            ("xcmma=on nocmma=on", false),
            ("root=/dev/dasda1", false),
            ("", false),
            // The last one wins.
            ("cmma=on cmma=off", false),
            ("cmma=off cmma=on", true),
            ("cmma=on cmma=maybe", false),
            (r#"cmma="on""#, true),
            // After `--` it is init's, not the kernel's.
            ("ro -- cmma=on", false),
        ] {
            assert_eq!(cmma(line), on, "{line}");
        }
    }
}
