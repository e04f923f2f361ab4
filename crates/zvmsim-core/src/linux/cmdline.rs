//! The kernel's boot parameter line (the `parameters = "..."` line of zipl.conf, shown by
//! `cat /proc/cmdline`): split into words as the kernel splits it, and the words the model
//! acts on. Every other word (root=, vmpoff=, dasd=...) is kept and ignored, as the kernel
//! hands parameters it does not know to init.
//!
//! Sources. Word splitting: the kernel's `next_arg` (words end at a blank outside double
//! quotes; quotes group a value with blanks and are removed around the value). `cmma=`: the
//! s390 `cmma` __setup handler of arch/s390/mm/page-states.c as introduced with CMMA (kernel
//! 2.6.25, the code SLES10 SP2 carries): exactly `on` or `yes` turns CMMA on; any other value
//! turns it off (`off`/`no` are accepted, anything else is also reported as not handled), and
//! the last `cmma=` word wins. Later kernels parse the value with kstrtobool and leave the
//! setting unchanged on a malformed value; with zvmsim's default (off) that is the same result
//! except after an earlier `cmma=on`. Default: off, as the study states for its guests ("default
//! is cmma=off", seed 002); mainline kernels later default to on.

/// The words of a boot parameter line, as the kernel splits it.
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_ascii_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// CMMA requested by the boot parameters (`cmma=on` or `cmma=yes`; see the module comment).
pub fn cmma(line: &str) -> bool {
    words(line)
        .iter()
        .filter_map(|w| w.strip_prefix("cmma="))
        .last()
        .is_some_and(|v| v == "on" || v == "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_as_the_kernel_splits_them() {
        assert_eq!(
            words("  root=/dev/dasda1   cmma=on\tvmpoff=\"LOGOFF\" "),
            vec!["root=/dev/dasda1", "cmma=on", "vmpoff=LOGOFF"]
        );
        // Quotes keep blanks inside one word.
        assert_eq!(
            words("vmhalt=\"MSG OP HALT\" dasd=100-1ff"),
            vec!["vmhalt=MSG OP HALT", "dasd=100-1ff"]
        );
        assert!(words("   ").is_empty());
    }

    #[test]
    fn cmma_values() {
        assert!(cmma("root=/dev/dasda1 cmma=on"));
        assert!(cmma("cmma=yes"));
        assert!(!cmma("root=/dev/dasda1"));
        assert!(!cmma(""));
        assert!(!cmma("cmma=off"));
        assert!(!cmma("cmma=no"));
        // The 2.6.25 handler compares exactly: anything else is off.
        assert!(!cmma("cmma=maybe"));
        assert!(!cmma("cmma=ON"));
        assert!(!cmma("cmma=1"));
        assert!(!cmma("cmma="));
        // The last cmma= word wins.
        assert!(!cmma("cmma=on cmma=off"));
        assert!(cmma("cmma=off cmma=on"));
        // Not a cmma= word.
        assert!(!cmma("xcmma=on nocmma=on"));
    }
}
