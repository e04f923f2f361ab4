//! The DEFDCSS and SAVEDCSS execs of seed 000 ("Updating a DCSS for WebSphere and DB2"):
//! CMS execs that define and save a DCSS of several stacked segments. The seed shows one call
//! of each, `DEFDCSS DCSSOPT 4AF700 3 2047 SR` and `SAVEDCSS DCSSOPT 3`, and its Table 3
//! gives what they made: DCSSOPT1-3, 6 GB, pages 4AF700-62F3FF. From these, the execs' operands
//! are read as: the name's stem, the first page (hex), the number of segments, each one's
//! size in MB and the page type; the segments are named stem1, stem2, ... and follow one
//! another (three 2047 MB segments from 4AF700 end at 62F3FF, as Table 3 says). An SR segment
//! is defined with LOADNSHR, as the study did for SR ("When defining a DCSS of type SR, the
//! LOADNSHR option was also used"; inference that the exec adds it). The execs' own usage
//! messages are not in the seed: a call zvmsim cannot read answers "not simulated".

use super::MB_PAGES;

/// `name` and the words after it if `cmd` calls the exec `name` (`[EXEC|EX] name args`).
pub fn call<'a>(cmd: &'a str, name: &str) -> Option<&'a str> {
    let t = cmd.trim();
    let (first, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let (called, rest) = if first.eq_ignore_ascii_case("EX") || first.eq_ignore_ascii_case("EXEC") {
        let r = rest.trim_start();
        r.split_once(char::is_whitespace).unwrap_or((r, ""))
    } else {
        (first, rest)
    };
    called.eq_ignore_ascii_case(name).then_some(rest)
}

fn unreadable(exec: &str, args: &str) -> String {
    format!(
        "not simulated by zvmsim: {exec} {} (zvmsim reads the exec as seed 000 calls it: {})",
        args.trim(),
        match exec {
            "DEFDCSS" => "DEFDCSS stem firstpage count sizeMB type",
            _ => "SAVEDCSS stem count",
        }
    )
}

/// The segment count operand: 1 to 99 (a one- or two-digit suffix; inference).
fn count(w: &str) -> Option<u32> {
    w.parse().ok().filter(|n| (1..=99).contains(n))
}

/// The CP DEFSEG commands `DEFDCSS args` types, in order.
pub fn defdcss(args: &str) -> Result<Vec<String>, String> {
    let up = args.to_ascii_uppercase();
    let w: Vec<&str> = up.split_whitespace().collect();
    let [stem, first, n, mb, ty] = w.as_slice() else {
        return Err(unreadable("DEFDCSS", args));
    };
    let (Some(first), Some(n), Some(mb)) = (
        u32::from_str_radix(first, 16).ok(),
        count(n),
        mb.parse::<u32>().ok().filter(|m| *m > 0),
    ) else {
        return Err(unreadable("DEFDCSS", args));
    };
    let pages = mb * MB_PAGES;
    let option = if *ty == "SR" { " LOADNSHR" } else { "" };
    Ok((0..n)
        .map(|k| {
            let start = first as u64 + k as u64 * pages as u64;
            let end = start + pages as u64 - 1;
            format!("DEFSEG {stem}{} {start:X}-{end:X} {ty}{option}", k + 1)
        })
        .collect())
}

/// The CP SAVESEG commands `SAVEDCSS args` types, in order.
pub fn savedcss(args: &str) -> Result<Vec<String>, String> {
    let up = args.to_ascii_uppercase();
    let w: Vec<&str> = up.split_whitespace().collect();
    let [stem, n] = w.as_slice() else {
        return Err(unreadable("SAVEDCSS", args));
    };
    let n = count(n).ok_or_else(|| unreadable("SAVEDCSS", args))?;
    Ok((1..=n).map(|k| format!("SAVESEG {stem}{k}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_calls_make_table_3s_segments() {
        assert_eq!(
            defdcss("DCSSOPT 4AF700 3 2047 SR").unwrap(),
            [
                "DEFSEG DCSSOPT1 4AF700-52F5FF SR LOADNSHR",
                "DEFSEG DCSSOPT2 52F600-5AF4FF SR LOADNSHR",
                // Table 3: DCSSOPT1-3 end at 62F3FF.
                "DEFSEG DCSSOPT3 5AF500-62F3FF SR LOADNSHR",
            ]
        );
        assert_eq!(
            defdcss("x 20000 1 1024 sn").unwrap(),
            ["DEFSEG X1 20000-5FFFF SN"]
        );
        assert_eq!(
            savedcss("DCSSOPT 3").unwrap(),
            ["SAVESEG DCSSOPT1", "SAVESEG DCSSOPT2", "SAVESEG DCSSOPT3"]
        );
        assert_eq!(call("ex DEFDCSS a b", "DEFDCSS"), Some("a b"));
        assert_eq!(call("savedcss a 1", "SAVEDCSS"), Some("a 1"));
        assert_eq!(call("SWAPGEN 300 10", "SAVEDCSS"), None);
        for bad in [
            "DCSSOPT 4AF700 3 2047",
            "D ZZ 3 2047 SR",
            "D 100 0 10 SR",
            "D 100 1 0 SN",
        ] {
            assert!(
                defdcss(bad).unwrap_err().starts_with("not simulated"),
                "{bad}"
            );
        }
        assert!(savedcss("DCSSOPT").is_err());
        assert!(savedcss("DCSSOPT x").is_err());
    }
}
