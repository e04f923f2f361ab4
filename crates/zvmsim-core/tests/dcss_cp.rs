//! Saved segments on CP's side: class E for DEFSEG and SAVESEG (a Linux save too), one
//! DEFSEG or SAVESEG at a time, seed 000's DEFDCSS and SAVEDCSS execs, and the CMS user's
//! storage that must map the segment it saves.

mod common;

use common::dcss::{answer, lines, sim, started_and_elapsed, SMALL};
use zvmsim_core::system::Simulation;

#[test]
fn a_linux_save_without_class_e_saves_nothing() {
    // dcssblk's save runs CP's DEFSEG and SAVESEG for the guest (extmem.c, segment_save);
    // without class E CP refuses DEFSEG, the kernel logs its return code and nothing is saved.
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSUSER +E"),
        ("CMSUSER", "cp", "DEFSEG DCSS1G 20000-5FFFF SR LOADNSHR"),
        ("CMSUSER", "cp", "SAVESEG DCSS1G"),
        ("LNX001", "linux", "modprobe dcssblk"),
        ("LNX001", "linux", "echo DCSS1G > /sys/devices/dcssblk/add"),
        (
            "LNX001",
            "linux",
            "echo 0 > /sys/devices/dcssblk/DCSS1G/shared",
        ),
        (
            "LNX001",
            "linux",
            "echo 1 > /sys/devices/dcssblk/DCSS1G/save",
        ),
        ("LNX001", "linux", "dmesg"),
        ("CMSUSER", "cp", "QUERY NSS MAP"),
    ];
    let s = sim(&script);
    s.check_invariants().expect("invariants");
    let got: Vec<Vec<String>> = lines(&s).into_iter().map(|x| x.1).collect();
    assert_eq!(got[6], Vec::<String>::new(), "the write itself succeeds");
    let failed = "Saving a DCSS failed with DEFSEG response code 1";
    assert_eq!(got[7].iter().filter(|l| l.ends_with(failed)).count(), 1);
    // Only the CMS user's file: no new one, the old one not replaced (class A, not P).
    assert_eq!(
        got[8],
        vec![
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0001 DCSS1G DCSS 0000000020000 000000005FFFF SR A 00001",
        ]
    );
}

#[test]
fn cp_processes_one_defseg_or_saveseg_at_a_time() {
    // DEFSEG's usage notes: while CP processes a DEFSEG or SAVESEG, for any name, a later
    // one is delayed. Two CMS users save 1 GB segments at the same moment.
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSA +E"),
        ("MAINT", "cp", "SET PRIVCLASS CMSB +E"),
        ("CMSA", "cp", "DEFSEG SEGA 20000-5FFFF SR"),
        ("CMSA", "cp", "SAVESEG SEGA"),
        ("CMSB", "cp", "DEFSEG SEGB 60000-9FFFF SR"),
        ("CMSB", "cp", "SAVESEG SEGB"),
        ("CMSA", "cp", "QUERY NSS MAP"),
    ];
    let s = sim(&script);
    s.check_invariants().expect("invariants");
    let at = |cmd: &str| started_and_elapsed(&s, cmd);
    let (a0, a) = at("SAVESEG SEGA");
    let (d0, _) = at("DEFSEG SEGB 60000-9FFFF SR");
    let (b0, b) = at("SAVESEG SEGB");
    assert_eq!(a0, 1.0);
    assert!(a > 30.0, "a 1 GB SAVESEG takes a while: {a} s");
    // CMSB's DEFSEG waited for SEGA's SAVESEG to end; its SAVESEG then took as long alone.
    assert!((d0 - (a0 + a)).abs() < 1e-6, "{d0} vs {}", a0 + a);
    assert!((b0 - d0).abs() < 1e-6);
    assert!((b - a).abs() / a < 0.01, "{b} vs {a}");
    let map = &lines(&s)[6].1;
    assert_eq!(map.len(), 3, "{map:?}");
    assert!(
        map[1].starts_with("0001 SEGA") && map[2].starts_with("0002 SEGB"),
        "{map:?}"
    );
}

#[test]
fn a_linux_save_waits_for_a_cms_saveseg() {
    // The guest's save is CP's DEFSEG and SAVESEG (extmem.c, through DIAGNOSE X'08', which
    // waits): while a CMS user's SAVESEG runs, the guest's command waits for it.
    let mut text = String::from(SMALL);
    for (at, user, kind, cmd) in [
        ("1s", "MAINT", "cp", "SET PRIVCLASS CMSA +E"),
        ("1s", "MAINT", "cp", "SET PRIVCLASS LNX001 +E"),
        ("1s", "CMSA", "cp", "DEFSEG SEGA 20000-5FFFF SR LOADNSHR"),
        ("1s", "CMSA", "cp", "SAVESEG SEGA"),
        ("5m", "LNX001", "linux", "modprobe dcssblk"),
        (
            "5m",
            "LNX001",
            "linux",
            "echo SEGA > /sys/devices/dcssblk/add",
        ),
        (
            "5m",
            "LNX001",
            "linux",
            "echo 0 > /sys/devices/dcssblk/SEGA/shared",
        ),
        ("10m", "CMSA", "cp", "DEFSEG SEGB 60000-9FFFF SR"),
        ("10m", "CMSA", "cp", "SAVESEG SEGB"),
        (
            "10m",
            "LNX001",
            "linux",
            "echo 1 > /sys/devices/dcssblk/SEGA/save",
        ),
    ] {
        text += &format!("\n[[console]]\nat = \"{at}\"\nuser = \"{user}\"\n{kind} = \"{cmd}\"\n");
    }
    let mut s = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    s.run();
    s.check_invariants().expect("invariants");
    let at = |cmd: &str| started_and_elapsed(&s, cmd);
    let (b0, b) = at("SAVESEG SEGB");
    let (e0, e) = at("echo 1 > /sys/devices/dcssblk/SEGA/save");
    assert_eq!((b0, e0), (600.0, 600.0));
    // The echo returns when its own save has ended: after SEGB's SAVESEG and as long again.
    assert!(e > 1.9 * b && e < 2.1 * b, "echo {e} s, SAVESEG {b} s");
}

/// Seed 000 measured load times at 1, 2, 4, 8 and 16 GB; the 1 and 2 GB DCSSs are one segment
/// each (Table 3: DCSS1G at 20000-5FFFF, DCSS2G at 20000-9FEFF), set up as the larger ones.
#[test]
fn the_seeds_defdcss_and_savedcss_execs_define_and_save_stacked_segments() {
    // Seed 000: "DEFDCSS DCSSOPT 4AF700 3 2047 SR" and "SAVEDCSS DCSSOPT 3", here with two
    // 1 GB segments. The execs type DEFSEG and SAVESEG for each, one after the other.
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSA +E"),
        ("CMSA", "cms", "DEFDCSS SEG 20000 2 1024 SR"),
        ("CMSA", "cms", "ex SAVEDCSS SEG 2"),
        ("CMSB", "cms", "DEFDCSS NOE 20000 1 1024 SN"),
        ("CMSA", "cp", "QUERY NSS MAP"),
    ];
    let s = sim(&script);
    s.check_invariants().expect("invariants");
    // The execs' commands run from a queue of their own: the scenario stays as written.
    assert_eq!(s.scenario.console.len(), script.len());
    let l = lines(&s);
    let cmds: Vec<&str> = l.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(
        cmds,
        [
            "SET PRIVCLASS CMSA +E",
            "DEFDCSS SEG 20000 2 1024 SR",
            "DEFSEG SEG1 20000-5FFFF SR LOADNSHR",
            "DEFSEG SEG2 60000-9FFFF SR LOADNSHR",
            "ex SAVEDCSS SEG 2",
            "DEFDCSS NOE 20000 1 1024 SN",
            // CMSB has no class E: CP does not know DEFSEG for it.
            "DEFSEG NOE1 20000-5FFFF SN",
            "SAVESEG SEG1",
            "SAVESEG SEG2",
            "QUERY NSS MAP",
        ]
    );
    assert_eq!(l[6].1, ["HCPCMD001E Unknown CP command: DEFSEG"]);
    let (a0, a) = started_and_elapsed(&s, "SAVESEG SEG1");
    let (b0, b) = started_and_elapsed(&s, "SAVESEG SEG2");
    assert_eq!(a0, 1.0);
    assert!(a > 30.0, "a 1 GB SAVESEG takes a while: {a} s");
    assert!((b0 - (a0 + a)).abs() < 1e-6, "the second waits: {b0}");
    assert!((b - a).abs() / a < 0.01, "{b} vs {a}");
    let map = &l[9].1;
    assert_eq!(map.len(), 3, "{map:?}");
    assert!(
        map[1].starts_with("0001 SEG1 DCSS 0000000020000 000000005FFFF SR A"),
        "{map:?}"
    );
    assert!(
        map[2].starts_with("0002 SEG2 DCSSG 0000000060000 000000009FFFF SR A"),
        "{map:?}"
    );
}

#[test]
fn the_cms_users_storage_must_map_the_segment_to_save_it() {
    // Seed 000: "Ensure that the CMS user ID has sufficient storage to save the DCSS ...
    // storage that maps the highest address specified in the DEFSEG command".
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSA +E"),
        ("CMSA", "cp", "def stor 1G"),
        ("CMSA", "cp", "DEFSEG SEGA 20000-5FFFF SR"),
        ("CMSA", "cp", "SAVESEG SEGA"),
        ("CMSA", "cp", "QUERY NSS MAP"),
        ("CMSA", "cp", "DEFINE STORAGE 1536M"),
        ("CMSA", "cp", "saveseg sega"),
        ("LNX001", "cp", "def stor 512M"),
        ("CMSA", "cp", "QUERY NSS MAP"),
    ];
    let s = sim(&script);
    let l = lines(&s);
    assert_eq!(
        answer(&l, "def stor 1G").1,
        ["STORAGE = 1G", "Storage cleared - system reset."]
    );
    let refused = &answer(&l, "SAVESEG SEGA").1;
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].starts_with("not simulated by zvmsim: SAVESEG SEGA: its pages end at 1536M, beyond CMSA's storage (1G)"),
        "{refused:?}"
    );
    // Nothing was saved: the skeleton is still class S.
    let map = &answer(&l, "QUERY NSS MAP").1;
    assert!(map[1].contains(" SR S "), "{map:?}");
    assert_eq!(answer(&l, "DEFINE STORAGE 1536M").1[0], "STORAGE = 1536M");
    assert_eq!(
        answer(&l, "saveseg sega").1,
        ["HCPNSS440I Saved segment SEGA was successfully saved in fileid 0001."]
    );
    assert!(answer(&l, "def stor 512M").1[0]
        .starts_with("not simulated by zvmsim: DEFINE STORAGE in guest LNX001"));
}

/// QUERY NSS without MAP lists the system data files as CP lists spool files: owner *NSS,
/// file ID, type NSS, class, records, date and time, name, file type, originator.
#[test]
fn query_nss_lists_the_files_as_spool_files() {
    let script: Vec<(&str, &str, &str)> = vec![
        ("MAINT", "cp", "SET PRIVCLASS CMSA +E"),
        ("CMSA", "cp", "DEFSEG SEGA 20000-5FFFF SR"),
        ("CMSA", "cp", "SAVESEG SEGA"),
        ("CMSA", "cp", "DEFSEG SEGB 60000-600FF SN"),
        ("CMSA", "cp", "QUERY NSS"),
        ("CMSA", "cp", "QUERY NSS NAME SEGB"),
    ];
    let s = sim(&script);
    let raw = |k: usize| -> Vec<String> {
        s.console()[k]["response"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let n = s.console().len();
    let q = raw(n - 2);
    assert_eq!(
        q[0],
        "OWNERID  FILE TYPE CL RECS DATE  TIME     FILENAME FILETYPE ORIGINID"
    );
    // SEGA: 262,144 saved pages and the descriptor, closed when its SAVESEG ended; SEGB: a
    // skeleton, no records yet, stamped at its DEFSEG, which waited for that SAVESEG.
    assert_eq!(q.len(), 3, "{q:?}");
    assert!(
        q[1].starts_with("*NSS     0001 NSS  A  256K 09/12 00:0"),
        "{q:?}"
    );
    assert!(q[1].ends_with(" SEGA     DCSS     CMSA"), "{q:?}");
    let segb = "*NSS     0002 NSS  S  0000 09/12 00:02:43 SEGB     DCSS     CMSA";
    assert_eq!(q[2], segb);
    assert_eq!(
        &q[1][33..41],
        "00:02:43",
        "SEGA closed as SEGB was defined: {q:?}"
    );
    // NAME narrows the list.
    assert_eq!(raw(n - 1), [q[0].as_str(), segb]);
}
