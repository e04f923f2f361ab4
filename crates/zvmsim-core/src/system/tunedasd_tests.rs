//! `tunedasd` on a running guest: `-P [-I ITEM]` and `-R`, the device's own profile, counted
//! while the driver's profile is on, printed in tunedasd's layout; `-g` and `-c MODE [-n CYL]`,
//! the cache attribute its channel programs' Define Extent carries; the tool's refusals change
//! nothing.

use super::dasd_tests::{sim, state, typed};

/// The guest's device dasda (the minidisk fio drives: its directory's MDISK comes online
/// at logon, before the volume the console attaches).
fn dasda(s: &super::Simulation) -> usize {
    let devs = &s.m.guests[0].dasd.devs;
    devs.iter()
        .position(|d| d.name.as_deref() == Some("dasda"))
        .expect("dasda")
}

#[test]
fn tunedasd_prints_and_resets_the_devices_profile() {
    let mut s = sim();
    let lnx = |s: &mut super::Simulation, cmd: &str| typed(s, "LNX01", "linux", cmd);
    assert_eq!(
        lnx(&mut s, "tunedasd -P /dev/dasda"),
        ["Error: Profiling (on device </dev/dasda>) is not active."]
    );
    let before = state(&mut s);
    let profile = s.m.guests[0].dasd.devs[dasda(&s)].profile.clone();
    for (bad, want) in [
        (
            "tunedasd -P -I bogus /dev/dasda",
            "Error: Invalid profile item 'bogus' given",
        ),
        (
            "tunedasd -I reqs /dev/dasda",
            "Error: Option 'profile' required when specifying 'prof_item'",
        ),
        (
            "tunedasd -P -R /dev/dasda",
            "Error: Only one of options 'profile' and 'reset_prof' allowed",
        ),
        (
            "tunedasd -q /dev/dasda",
            "tunedasd: invalid option -- 'q'|Try 'tunedasd --help' for more information.",
        ),
    ] {
        assert_eq!(lnx(&mut s, bad).join("|"), want, "{bad}");
        assert_eq!(state(&mut s), before, "{bad}");
        assert_eq!(s.m.guests[0].dasd.devs[dasda(&s)].profile, profile, "{bad}");
    }
    assert_eq!(
        lnx(&mut s, "tunedasd -S /dev/dasda"),
        ["not simulated by zvmsim: tunedasd -S /dev/dasda"]
    );
    assert!(lnx(&mut s, "echo set on > /proc/dasd/statistics").is_empty());
    s.step_until(1_700_000_000);
    let out = lnx(&mut s, "tunedasd -P /dev/dasda");
    let p = s.m.guests[0].dasd.devs[dasda(&s)].profile.clone();
    let global = s.m.guests[0].dasd.profile.clone();
    // fio drives only dasda: its profile is the driver's, request for request.
    assert!(p.reqs > 10);
    assert_eq!(
        (p.reqs, p.sects, p.secs),
        (global.reqs, global.sects, global.secs)
    );
    assert_eq!(out[0], "");
    assert_eq!(out[1], format!("{} dasd I/O requests", p.reqs));
    assert_eq!(out[2], format!("with {} sectors(512B each)", p.sects));
    assert_eq!(out[3], "Scale factor is 1 ");
    assert!(out[5].starts_with("   __<4    ___8    __16 ") && out[5].ends_with("    128k"));
    assert!(out[6].ends_with("    __4G    _>4G"));
    assert_eq!(out[7], "Histogram of sizes (512B secs)");
    assert_eq!(
        out[8],
        p.secs[..16]
            .iter()
            .map(|v| format!("{v:7} "))
            .collect::<String>()
    );
    assert_eq!(out.len(), 7 + 8 * 3);
    assert_eq!(
        lnx(&mut s, "tunedasd -P -I reqs /dev/dasda /dev/dasdz"),
        [
            p.reqs.to_string(),
            "Error: </dev/dasdz> - No such file or directory".into()
        ]
    );
    let sizes = lnx(&mut s, "tunedasd --profile --prof_item=sizes /dev/dasda1");
    assert_eq!(sizes[0].matches('|').count(), 32);
    // Switching the driver's profile off keeps the device's counts but refuses the ioctl.
    assert!(lnx(&mut s, "echo set off > /proc/dasd/statistics").is_empty());
    assert_eq!(s.m.guests[0].dasd.devs[dasda(&s)].profile.reqs, p.reqs);
    assert_eq!(
        lnx(&mut s, "tunedasd -R /dev/dasda"),
        ["Resetting profile info for device </dev/dasda>...", "Done."]
    );
    assert_eq!(s.m.guests[0].dasd.devs[dasda(&s)].profile.reqs, 0);
}

#[test]
fn tunedasd_gets_and_sets_the_cache_attribute() {
    use crate::config::linux::{DasdCache, DasdCacheMode};
    let mut s = sim();
    let lnx = |s: &mut super::Simulation, cmd: &str| typed(s, "LNX01", "linux", cmd);
    // The driver's default (dasd_eckd.c: DASD_NORMAL_CACHE, 0 cylinders).
    assert_eq!(lnx(&mut s, "tunedasd -g /dev/dasda"), ["normal (0 cyl)"]);
    let before = state(&mut s);
    for (bad, want) in [
        (
            "tunedasd -c fast /dev/dasda",
            "Error: Invalid caching mode 'fast' given",
        ),
        (
            "tunedasd -c prestage -n 3x /dev/dasda",
            "Error: Invalid number of cylinders given '3x'",
        ),
        (
            "tunedasd -n 4 /dev/dasda",
            "Error: Option 'cache' required when specifying 'no_cyl'",
        ),
        (
            "tunedasd -g -c normal /dev/dasda",
            "Error: Only one of options 'get_cache' and 'cache' allowed",
        ),
        (
            "tunedasd -c normal -P /dev/dasda",
            "Error: Only one of options 'cache' and 'profile' allowed",
        ),
        (
            "tunedasd -g -g /dev/dasda",
            "Error: Option 'get_cache' specified more than once",
        ),
        (
            "tunedasd -g /dev/dasdz",
            "Error: </dev/dasdz> - No such file or directory",
        ),
    ] {
        assert_eq!(lnx(&mut s, bad).join("|"), want, "{bad}");
        assert_eq!(state(&mut s), before, "{bad} changed the state");
    }
    // A negative count fails quietly, as check_no_cyl's -1 is its error code.
    assert!(lnx(&mut s, "tunedasd -c prestage -n -1 /dev/dasda").is_empty());
    let d = dasda(&s);
    assert_eq!(s.m.guests[0].dasd.devs[d].cache, DasdCache::default());
    // Without -n, 2 cylinders; strtoul's base 0 reads 0x30 as 48, which draws the warning.
    assert_eq!(
        lnx(&mut s, "tunedasd -c sequential /dev/dasda"),
        ["Setting cache mode for device </dev/dasda>...", "Done."]
    );
    assert_eq!(
        lnx(&mut s, "tunedasd -g /dev/dasda1"),
        ["sequential (2 cyl)"]
    );
    assert_eq!(
        lnx(&mut s, "tunedasd --cache=prestage --no_cyl 0x30 /dev/dasda"),
        [
            "WARNING: This is a very large number of cylinders ;) 48",
            "Setting cache mode for device </dev/dasda>...",
            "Done."
        ]
    );
    assert_eq!(
        s.m.guests[0].dasd.devs[d].cache,
        DasdCache {
            mode: DasdCacheMode::Prestage,
            cylinders: 48
        }
    );
}
