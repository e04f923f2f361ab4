//! Privilege classes at the console: a class G guest is refused the class B DASD commands with
//! CP's answers and nothing changes; SET PRIVCLASS and the directory's CLASS statement give the
//! classes that let the same commands through.

use super::dasd_tests::{state, typed, BASE};
use super::Simulation;

#[test]
fn a_class_g_guest_is_refused_class_b_commands_and_nothing_changes() {
    let mut s = super::dasd_tests::sim();
    let before = state(&mut s);
    let mdc = typed(&mut s, "MAINT", "cp", "QUERY MDCACHE");
    for (cmd, want) in [
        (
            "ATTACH B9E2 SYSTEM",
            "HCPCMD001E Unknown CP command: ATTACH",
        ),
        ("cp att b9e2 to lnx01", "HCPCMD001E Unknown CP command: ATT"),
        (
            "SET MDCACHE SYSTEM OFF",
            "HCPCFC003E Invalid option - MDCACHE",
        ),
        (
            "SET MDCACHE MDISK LNX01 0200 OFF",
            "HCPCFC003E Invalid option - MDCACHE",
        ),
        ("SET PAGING ALIAS ON", "HCPCFC003E Invalid option - PAGING"),
        ("QUERY PAV", "HCPCQU003E Invalid option - PAV"),
        ("QUERY ALLOC PAGE", "HCPCQU003E Invalid option - ALLOC"),
        ("INDICATE I/O", "HCPIND003E Invalid option - I/O"),
    ] {
        assert_eq!(typed(&mut s, "LNX01", "cp", cmd), [want], "{cmd}");
        assert_eq!(state(&mut s), before, "{cmd} changed the state");
        assert_eq!(typed(&mut s, "MAINT", "cp", "QUERY MDCACHE"), mdc, "{cmd}");
    }
    // MAINT gives the guest class B: the same ATTACH now attaches.
    assert!(typed(&mut s, "MAINT", "cp", "SET PRIVCLASS LNX01 +B").is_empty());
    assert_eq!(
        typed(&mut s, "LNX01", "cp", "ATTACH B9E2 SYSTEM"),
        ["DASD B9E2 ATTACHED TO SYSTEM"]
    );
    // The guest cannot give itself classes: SET PRIVCLASS is class C.
    assert_eq!(
        typed(&mut s, "LNX01", "cp", "SET PRIVCLASS LNX01 +C"),
        ["HCPCFC003E Invalid option - PRIVCLASS"]
    );
    assert_eq!(
        typed(&mut s, "LNX01", "cp", "ATTACH B9E3 SYSTEM"),
        ["DASD B9E3 ATTACHED TO SYSTEM"],
        "class B still"
    );
}

#[test]
fn the_directory_class_statement_gives_the_guest_its_classes() {
    let toml = BASE.replace(
        r#"directory = ["MDISK 0200 3390 DEVNO B9D6 MR","#,
        r#"directory = ["CLASS GB", "MDISK 0200 3390 DEVNO B9D6 MR","#,
    );
    assert_ne!(toml, BASE);
    let mut s = Simulation::from_toml(&toml, "t.toml", None, &[]).expect("valid");
    s.step_until(1_200_000_000);
    assert_eq!(
        typed(&mut s, "LNX01", "cp", "ATTACH B9E2 SYSTEM"),
        ["DASD B9E2 ATTACHED TO SYSTEM"]
    );
    let bad = BASE.replace(
        r#"directory = ["MDISK 0200 3390 DEVNO B9D6 MR","#,
        r#"directory = ["CLASS G7", "MDISK 0200 3390 DEVNO B9D6 MR","#,
    );
    let e = Simulation::from_toml(&bad, "t.toml", None, &[])
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("privilege classes are 1 to 32 of A-Z and 1-6"),
        "{e}"
    );
}
