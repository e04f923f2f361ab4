//! QUERY STORAGE, QUERY CPLEVEL and QUERY ALLOC PAGE, in the layout of the release simulated.
//!
//! Sources of the layouts (docs/console.md lists them): QUERY STORAGE and QUERY ALLOC PAGE as
//! real z/VM 6.3 consoles print them (a z/VM workshop's captured sessions); QUERY STORAGE's
//! one-field form before z/VM 5.4, which added standby and reserved storage (dynamic storage
//! reconfiguration), and QUERY CPLEVEL's three lines, from IBM's CP Commands and Utilities
//! Reference as known (not confirmed in the stored corpora).

use super::{size_text, CpCommand, CpView};

/// Storage increment of the machine (QUERY STORAGE's INC): the hardware's granule of
/// central storage; a z10/z196 LPAR's is 256 MB at the studies' sizes. Not in the scenario
/// (inference).
const STORAGE_INCREMENT: u64 = 256 << 20;

/// Pages per 3390 cylinder (15 tracks of 12 4 KB records).
const PAGES_PER_CYLINDER: u64 = 180;

/// First real device number given to the paging volumes, which the scenario does not number
/// (inference: any free range; the volumes follow in the scenario's order).
const PAGING_RDEV_BASE: u32 = 0x0300;

/// The volume label and real device number of paging volume `k` (0-based, the scenario's
/// order), as QUERY ALLOC PAGE and the paging-volume rows show them. Volume labels are not in
/// the scenario: PAG001, PAG002... (inference).
pub fn paging_volume_id(k: usize) -> (String, u32) {
    (format!("PAG{:03}", k + 1), PAGING_RDEV_BASE + k as u32)
}

/// What a release's QUERY CPLEVEL names: its service level (the RSU it was installed from,
/// `yynn`) and the date its CP nucleus was generated (the release's general availability).
/// Neither is in the scenario: zvmsim shows the release's base level (inference).
fn build(level: &str) -> (&'static str, &'static str) {
    match level {
        "5.2" => ("0501", "12/16/05"),
        "5.3" => ("0701", "06/29/07"),
        "5.4" => ("0801", "09/12/08"),
        "6.4" => ("1601", "11/11/16"),
        "7.3" => ("2201", "09/16/22"),
        _ => ("1801", "09/14/18"),
    }
}

/// The simulated calendar: zvmsim has no date, so CP is taken to IPL at midnight UTC on the
/// day its nucleus was generated, and the clock runs from there (`now_s` after IPL).
pub(crate) fn clock(level: &str, seconds: f64) -> (String, String) {
    let (_, date) = build(level);
    let s = seconds.max(0.0) as u64;
    let days = s / 86_400;
    let time = format!("{:02}:{:02}:{:02}", (s / 3600) % 24, (s / 60) % 60, s % 60);
    (add_days(date, days), time)
}

/// The IPL of zvmsim's calendar (see `clock`) in seconds since 1970-01-01 UTC, for the wall
/// clock Linux prints (days from the civil date, H. Hinnant's `days_from_civil`).
pub(crate) fn ipl_unix_s(level: &str) -> u64 {
    let (_, date) = build(level);
    let p: Vec<i64> = date.split('/').map(|x| x.parse().unwrap_or(1)).collect();
    let (m, d, y) = (p[0], p[1], 2000 + p[2]);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    ((era * 146_097 + doe - 719_468) * 86_400) as u64
}

/// `mm/dd/yy` plus `days` (a proleptic Gregorian calendar, 2000-2099).
fn add_days(date: &str, days: u64) -> String {
    let p: Vec<u64> = date.split('/').map(|x| x.parse().unwrap_or(1)).collect();
    let (mut m, mut d, mut y) = (p[0], p[1], 2000 + p[2]);
    let len = |m: u64, y: u64| match m {
        2 if y % 4 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    for _ in 0..days {
        d += 1;
        if d > len(m, y) {
            d = 1;
            m += 1;
            if m > 12 {
                m = 1;
                y += 1;
            }
        }
    }
    format!("{m:02}/{d:02}/{:02}", y % 100)
}

/// True before z/VM 5.4 (the releases whose QUERY STORAGE shows one field).
fn before_5_4(level: &str) -> bool {
    matches!(level, "5.2" | "5.3")
}

/// A count in a six-character column: over 999999 it is shown in K (1024s), then M.
fn six(n: u64) -> String {
    if n <= 999_999 {
        n.to_string()
    } else if n / 1024 <= 99_999 {
        format!("{}K", n / 1024)
    } else {
        format!("{}M", n >> 20)
    }
}

/// Percent used, rounded up: a volume with any page in use shows at least 1%.
fn pct_used(used: u64, total: u64) -> u64 {
    if total == 0 {
        0
    } else {
        (100 * used).div_ceil(total)
    }
}

pub(super) fn respond(cmd: &CpCommand, v: &CpView) -> Vec<String> {
    match cmd {
        CpCommand::QueryStorage if before_5_4(v.level) => {
            vec![format!("STORAGE = {}", size_text(v.central_bytes))]
        }
        // Standby and reserved storage: none (the scenario configures central storage only).
        CpCommand::QueryStorage => vec![format!(
            "STORAGE = {0} CONFIGURED = {0} INC = {1} STANDBY = 0  RESERVED = 0",
            size_text(v.central_bytes),
            size_text(STORAGE_INCREMENT)
        )],
        CpCommand::QueryCplevel => {
            let (service, generated) = build(v.level);
            let (ipl_date, ipl_time) = clock(v.level, 0.0);
            vec![
                format!(
                    "z/VM Version {} Release {}.0, service level {service} (64-bit)",
                    &v.level[..1],
                    &v.level[2..]
                ),
                format!("Generated at {generated} 00:00:00 UTC"),
                format!("IPL at {ipl_date} {ipl_time} UTC"),
            ]
        }
        CpCommand::QueryAllocPage => alloc_page(v),
        _ => vec![],
    }
}

/// QUERY ALLOC PAGE: one row per paging volume (its page extent from cylinder 0, its slots,
/// slots in use and highest slot used), the totals, and the usable totals (every volume is
/// usable: zvmsim drains none).
fn alloc_page(v: &CpView) -> Vec<String> {
    let mut out = vec![
        "                EXTENT     EXTENT  TOTAL  PAGES   HIGH    %".to_string(),
        "VOLID  RDEV      START        END  PAGES IN USE   PAGE USED".to_string(),
        "------ ---- ---------- ---------- ------ ------ ------ ----".to_string(),
    ];
    let (mut total, mut used) = (0, 0);
    for (k, vol) in v.volumes.iter().enumerate() {
        let cylinders = vol.slots.div_ceil(PAGES_PER_CYLINDER).max(1);
        let (volid, rdev) = paging_volume_id(k);
        out.push(format!(
            "{:<6} {:04X} {:>10} {:>10} {:>6} {:>6} {:>6} {:>3}%",
            volid,
            rdev,
            0,
            cylinders - 1,
            six(vol.slots),
            six(vol.used),
            six(vol.high),
            pct_used(vol.used, vol.slots)
        ));
        total += vol.slots;
        used += vol.used;
    }
    out.push(format!("{:34}------ ------        ----", ""));
    for label in ["SUMMARY", "USABLE"] {
        out.push(format!(
            "{label:<34}{:>6} {:>6} {:6} {:>3}%",
            six(total),
            six(used),
            "",
            pct_used(used, total)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_and_columns() {
        // 5.2's nucleus date, 12/16/05, is 2005-12-16 00:00 UTC.
        assert_eq!(ipl_unix_s("5.2"), 1_134_691_200);
        assert_eq!(add_days("12/31/07", 1), "01/01/08");
        assert_eq!(add_days("02/28/08", 1), "02/29/08");
        assert_eq!(
            clock("5.3", 90_061.0),
            ("06/30/07".into(), "01:01:01".into())
        );
        assert_eq!(six(450_180), "450180");
        assert_eq!(six(1_050_840), "1026K");
        assert_eq!(pct_used(25, 600_660), 1);
        assert_eq!(pct_used(0, 600_660), 0);
        assert_eq!(pct_used(3, 4), 75);
    }
}
