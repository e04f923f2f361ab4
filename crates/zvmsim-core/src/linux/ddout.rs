//! What `dd` prints when it ends, as coreutils 6.12 (SLES 11) prints it: src/dd.c's
//! `print_stats` (records in and out, full+partial; the bytes copied, the seconds and the rate)
//! with gnulib's `human_readable` of 2008 (lib/human.c: autoscale, round to nearest, SI powers
//! of 1000 with `k` for kilo, a space before the unit, `B`), and its messages, which quote a
//! file name as gnulib's `quote` did then: `name'.

/// What a dd that ran prints when it ends: its records read and written (full, partial) and
/// the bytes it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DdEnd {
    pub rin: (u64, u64),
    pub rout: (u64, u64),
    pub bytes: u64,
}

/// SI power letters after `k` (human.c's `power_letter`).
const POWER: [char; 9] = [' ', 'k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];

/// A file name as dd's messages quote it.
pub fn quote(name: &str) -> String {
    format!("`{name}'")
}

/// `n` units of `from` bytes in units of `to`, as `human_readable(n, buf, opts, from, to)`
/// prints it with dd's options.
pub fn human(n: u64, from: u64, to: u64) -> String {
    let (mut amt, mut tenths, mut rounding): (u64, u64, u64);
    if to <= from && from % to == 0 && n.checked_mul(from / to).is_some() {
        (amt, tenths, rounding) = (n * (from / to), 0, 0);
    } else if to > from && from != 0 && to % from == 0 {
        let d = to / from;
        let r10 = (n % d) * 10;
        let r2 = (r10 % d) * 2;
        amt = n / d;
        tenths = r10 / d;
        rounding = if r2 < d {
            u64::from(r2 > 0)
        } else {
            2 + u64::from(d < r2)
        };
    } else {
        return human_float(n as f64 * (from as f64 / to as f64));
    }
    // The integer path (human.c's use_integer_arithmetic).
    let base = 1000u64;
    let mut exponent = 0usize;
    let mut point = None;
    if base <= amt {
        while base <= amt && exponent < POWER.len() - 1 {
            let r10 = (amt % base) * 10 + tenths;
            let r2 = (r10 % base) * 2 + (rounding >> 1);
            amt /= base;
            tenths = r10 / base;
            rounding = if r2 < base {
                u64::from(r2 + rounding != 0)
            } else {
                2 + u64::from(base < r2 + rounding)
            };
            exponent += 1;
        }
        if amt < 10 {
            if 2 < rounding + (tenths & 1) {
                tenths += 1;
                rounding = 0;
                if tenths == 10 {
                    amt += 1;
                    tenths = 0;
                }
            }
            if amt < 10 {
                point = Some(tenths);
                tenths = 0;
                rounding = 0;
            }
        }
    }
    if 5 < tenths + u64::from(0 < rounding + (amt & 1)) {
        amt += 1;
        if amt == base && exponent < POWER.len() - 1 {
            exponent += 1;
            point = Some(0);
            amt = 1;
        }
    }
    let num = match point {
        Some(t) => format!("{amt}.{t}"),
        None => amt.to_string(),
    };
    unit(num, exponent)
}

/// The floating-point path: one decimal unless the number has more than four characters.
fn human_float(damt: f64) -> String {
    let mut e = 1.0f64;
    let mut exponent = 0;
    loop {
        e *= 1000.0;
        exponent += 1;
        if !(e * 1000.0 <= damt && exponent < POWER.len() - 1) {
            break;
        }
    }
    let v = damt / e;
    let mut num = format!("{v:.1}");
    if num.len() > 4 {
        num = format!("{:.0}", v);
    }
    unit(num, exponent)
}

fn unit(num: String, exponent: usize) -> String {
    match exponent {
        0 => format!("{num} B"),
        e => format!("{num} {}B", POWER[e]),
    }
}

/// C's `%g` (6 significant digits, trailing zeros dropped), for the seconds.
pub fn g(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-4..6).contains(&exp) {
        let s = format!("{:.5e}", x);
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The lines dd prints at its end: `records` in and out as (full, partial), `bytes` written,
/// `elapsed_ns` from its start.
pub fn stats(rin: (u64, u64), rout: (u64, u64), bytes: u64, elapsed_ns: u64) -> Vec<String> {
    let rate = if elapsed_ns > 0 {
        human(bytes, 1_000_000_000, elapsed_ns)
    } else {
        "Infinity B".into()
    };
    vec![
        format!("{}+{} records in", rin.0, rin.1),
        format!("{}+{} records out", rout.0, rout.1),
        format!(
            "{bytes} {} ({}) copied, {} s, {rate}/s",
            if bytes == 1 { "byte" } else { "bytes" },
            human(bytes, 1, 1),
            g(elapsed_ns as f64 / 1e9)
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_rates_read_as_dd_prints_them() {
        assert_eq!(human(2_147_483_648, 1, 1), "2.1 GB");
        assert_eq!(human(104_857_600, 1, 1), "105 MB");
        assert_eq!(human(1_073_741_824, 1, 1), "1.1 GB");
        assert_eq!(human(512, 1, 1), "512 B");
        assert_eq!(human(0, 1, 1), "0 B");
        assert_eq!(human(4096, 1, 1), "4.1 kB");
        assert_eq!(human(999_999, 1, 1), "1.0 MB");
        // The rate: bytes per second over a time that is no whole number of seconds.
        assert_eq!(
            human(2_147_483_648, 1_000_000_000, 25_234_500_000),
            "85.1 MB"
        );
        assert_eq!(human(1_073_741_824, 1_000_000_000, 2_930_000_000), "366 MB");
        // A whole number of seconds takes the integer path.
        assert_eq!(human(2_000_000_000, 1_000_000_000, 2_000_000_000), "1.0 GB");
        assert_eq!(g(25.2345), "25.2345");
        assert_eq!(g(2.93), "2.93");
        assert_eq!(g(123.456789), "123.457");
        assert_eq!(g(0.0924), "0.0924");
        assert_eq!(g(1234567.0), "1.23457e+06");
        assert_eq!(
            stats((2048, 0), (2048, 0), 2_147_483_648, 25_234_500_000),
            [
                "2048+0 records in",
                "2048+0 records out",
                "2147483648 bytes (2.1 GB) copied, 25.2345 s, 85.1 MB/s"
            ]
        );
        assert_eq!(quote("/dev/dcssblk0"), "`/dev/dcssblk0'");
    }
}
