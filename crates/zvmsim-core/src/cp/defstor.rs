//! `DEFINE STORAGE size` (class G, IBM's CP Commands and Utilities Reference 7.3): the size of
//! the issuer's virtual machine. Seed 000 has the CMS user that saves a DCSS define storage
//! that maps the segment's highest page ("CP def stor command"), and its Linux guest
//! `def stor 512M` before a restart. The response, `STORAGE = size` and
//! `Storage cleared - system reset.`, is as z/VM consoles show it (the reset line as IBM's
//! tessia automation waits for it; the first line recalled from console transcripts).

use crate::cp::{catalog, input};

/// Bytes in each unit DEFINE STORAGE takes.
const UNITS: [(char, u64); 4] = [
    ('K', 1 << 10),
    ('M', 1 << 20),
    ('G', 1 << 30),
    ('T', 1 << 40),
];

/// `DEFINE STORAGE size` (`DEF STOR`, `DEFINE STORAGE AS size`): the size in bytes, or CP's
/// message for a bad operand; None when `line` is another command.
pub fn parse(line: &str) -> Option<Result<u64, String>> {
    let upper = line.to_ascii_uppercase();
    let mut w: Vec<&str> = input::words(&upper).collect();
    if w.first() == Some(&"CP") {
        w.remove(0);
    }
    // The verb and operand as CP's catalog abbreviates them (DEF, STOR).
    let verb = catalog::find_verb(w.first()?, None)?.word.name;
    let what = catalog::find(catalog::DEFINE, w.get(1)?, None)?.name;
    if (verb, what) != ("DEFINE", "STORAGE") {
        return None;
    }
    let ops = match &w[2..] {
        ["AS", rest @ ..] => rest,
        rest => rest,
    };
    Some(match ops {
        [] => Err("HCP026E Operand missing or invalid".into()),
        [size] => bytes(size).ok_or_else(|| format!("HCP002E Invalid operand - {size}")),
        [_, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
    })
}

/// `nnnK|M|G|T`, more than zero, a whole number of 64 KB (inference: storage is defined in
/// 64 KB increments).
fn bytes(w: &str) -> Option<u64> {
    let unit = w.chars().last()?;
    let mult = UNITS.iter().find(|(c, _)| *c == unit)?.1;
    let n: u64 = w[..w.len() - 1].parse().ok()?;
    let b = n.checked_mul(mult)?;
    (b > 0 && b % (64 << 10) == 0).then_some(b)
}

/// A size as CP shows it: in the largest unit that divides it.
pub fn show(b: u64) -> String {
    let (c, m) = UNITS
        .iter()
        .rev()
        .find(|(_, m)| b % m == 0)
        .copied()
        .unwrap_or(('K', 1 << 10));
    format!("{}{c}", b / m)
}

/// The response to a DEFINE STORAGE that took effect.
pub fn response(b: u64) -> Vec<String> {
    vec![
        format!("STORAGE = {}", show(b)),
        "Storage cleared - system reset.".into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_show_as_cp_does() {
        assert_eq!(parse("def stor 512M"), Some(Ok(512 << 20)));
        assert_eq!(parse("CP DEFINE STORAGE AS 17G"), Some(Ok(17 << 30)));
        assert_eq!(
            parse("def stor 1024m").map(|r| show(r.unwrap())),
            Some("1G".into())
        );
        assert_eq!(show(1536 << 20), "1536M");
        assert_eq!(response(512 << 20)[0], "STORAGE = 512M");
        assert_eq!(parse("define vfb-512 300 10"), None);
        assert_eq!(parse("q stor"), None);
        for (bad, msg) in [
            ("def stor", "HCP026E"),
            ("def stor 12X", "HCP002E Invalid operand - 12X"),
            ("def stor 0M", "HCP002E"),
            ("def stor 100K", "HCP002E"),
            ("def stor 1G now", "HCP003E Invalid option - NOW"),
        ] {
            let e = parse(bad).expect("DEFINE STORAGE").unwrap_err();
            assert!(e.starts_with(msg), "{bad}: {e}");
        }
    }
}
