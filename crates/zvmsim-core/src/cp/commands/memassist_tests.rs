//! SET and QUERY MEMASSIST: parsing, CP's messages for what it rejects, and the responses.

use super::memassist::for_user;
use super::*;

fn view(guests: &[(&str, bool, bool)]) -> CpView<'static> {
    CpView {
        level: "5.3",
        central_bytes: 0,
        xstor_bytes: 0,
        xstor_used_blocks: 0,
        ifls: 1,
        guests: guests.iter().map(|(n, ..)| n.to_string()).collect(),
        slots_total: 0,
        slots_used: 0,
        avg_proc_pct: 0.0,
        paging_per_s: 0.0,
        xstor_per_s: 0.0,
        migrate_per_s: 0.0,
        memassist: guests
            .iter()
            .map(|(n, on, active)| (n.to_string(), *on, *active))
            .collect(),
        memassist_all: true,
        agelist: None,
        ..Default::default()
    }
}

fn user(u: &str) -> Target {
    Target::User(u.into())
}

#[test]
fn accepted_forms() {
    let at53 = |c: &str| parse_at(c, Some("5.3"));
    assert_eq!(
        at53("SET MEMASSIST ON ALL"),
        Ok(CpCommand::SetMemassist {
            on: true,
            target: Target::All
        })
    );
    // The seed's form, from a guest (leading CP), in lower case.
    assert_eq!(
        at53("cp set memassist off lnx01"),
        Ok(CpCommand::SetMemassist {
            on: false,
            target: user("LNX01")
        })
    );
    assert_eq!(
        at53("Q MEMASSIST"),
        Ok(CpCommand::QueryMemassist {
            target: Target::Own
        })
    );
    assert_eq!(
        at53("query memassist all"),
        Ok(CpCommand::QueryMemassist {
            target: Target::All
        })
    );
    // IBM's forms: FOR ALL, USER userid, FOR USER userid.
    assert_eq!(
        at53("SET MEMASSIST OFF FOR ALL"),
        Ok(CpCommand::SetMemassist {
            on: false,
            target: Target::All
        })
    );
    assert_eq!(
        at53("SET MEMASSIST ON FOR USER lnx03"),
        Ok(CpCommand::SetMemassist {
            on: true,
            target: user("LNX03")
        })
    );
    assert_eq!(
        at53("q memassist user lnx02"),
        Ok(CpCommand::QueryMemassist {
            target: user("LNX02")
        })
    );
    // The issuer's own virtual machine: `*`, or no user for SET (the class G form).
    for cmd in ["SET MEMASSIST ON *", "set memassist on"] {
        assert_eq!(
            at53(cmd),
            Ok(CpCommand::SetMemassist {
                on: true,
                target: Target::Own
            })
        );
    }
    assert_eq!(
        at53("Q MEMASSIST FOR *"),
        Ok(CpCommand::QueryMemassist {
            target: Target::Own
        })
    );
    assert_eq!(
        at53("q memassist lnx02"),
        Ok(CpCommand::QueryMemassist {
            target: user("LNX02")
        })
    );
}

#[test]
fn rejected_forms() {
    for (cmd, level, msg) in [
        // z/VM 5.2 has no MEMASSIST (CMMA came with 5.3).
        (
            "SET MEMASSIST ON ALL",
            "5.2",
            "HCPCFC003E Invalid option - MEMASSIST",
        ),
        (
            "QUERY MEMASSIST",
            "5.2",
            "HCPCQU003E Invalid option - MEMASSIST",
        ),
        // Operands missing.
        (
            "SET MEMASSIST",
            "5.3",
            "HCPCFC026E Operand missing or invalid",
        ),
        // Bad setting, extra operands.
        (
            "SET MEMASSIST MAYBE ALL",
            "5.3",
            "HCPCFC003E Invalid option - MAYBE",
        ),
        (
            "SET MEMASSIST ALL ON",
            "5.3",
            "HCPCFC003E Invalid option - ALL",
        ),
        (
            "SET MEMASSIST ON ALL NOW",
            "5.3",
            "HCPCFC003E Invalid option - NOW",
        ),
        (
            "SET MEMASSIST ON LNX01 LNX02",
            "5.3",
            "HCPCFC003E Invalid option - LNX02",
        ),
        (
            "Q MEMASSIST ALL LNX01",
            "5.3",
            "HCPCQU003E Invalid option - LNX01",
        ),
        (
            "SET MEMASSIST ON FOR",
            "5.3",
            "HCPCFC026E Operand missing or invalid",
        ),
        (
            "SET MEMASSIST ON USER",
            "5.3",
            "HCPCFC026E Operand missing or invalid",
        ),
        (
            "SET MEMASSIST ON FOR ALL LNX01",
            "5.3",
            "HCPCFC003E Invalid option - LNX01",
        ),
        (
            "Q MEMASSIST USER LNX01 NOW",
            "5.3",
            "HCPCQU003E Invalid option - NOW",
        ),
        // Too short an abbreviation is another (invalid) operand.
        (
            "SET MEMASS ON ALL",
            "5.3",
            "HCPCFC003E Invalid option - MEMASS",
        ),
    ] {
        assert_eq!(parse_at(cmd, Some(level)), Err(msg.to_string()), "{cmd}");
    }
}

#[test]
fn responses_read_each_guests_setting() {
    let v = view(&[
        ("LNX01", true, true),
        ("LNX02", false, false),
        ("LNX03", false, true),
    ]);
    let r = |c: &str| respond(&parse(c).unwrap(), &v);
    assert_eq!(
        r("Q MEMASSIST ALL"),
        vec![
            "ALL USERS SET - ON",
            "USER      SETTING   STATUS",
            "LNX01     ON        ACTIVE",
            "LNX02     OFF       INACTIVE",
            // Set off while the guest uses the assist: it keeps it until its next IPL.
            "LNX03     ON        ACTIVE,PENDING OFF",
        ]
    );
    assert_eq!(
        r("Q MEMASSIST LNX02"),
        vec![
            "ALL USERS SET - ON",
            "USER      SETTING   STATUS",
            "LNX02     OFF       INACTIVE",
        ]
    );
    assert_eq!(
        r("Q MEMASSIST LNX09"),
        vec!["HCPCQU045E LNX09 not logged on"]
    );
    // A SET that succeeds answers with nothing; one naming an absent user with HCP045E.
    assert!(r("SET MEMASSIST ON ALL").is_empty());
    assert!(r("SET MEMASSIST OFF LNX01").is_empty());
    assert_eq!(
        r("SET MEMASSIST ON LNX09"),
        vec!["HCPCFC045E LNX09 not logged on"]
    );
    // No users logged on: the all-users line and the heading only.
    assert_eq!(
        respond(&parse("Q MEMASSIST ALL").unwrap(), &view(&[])),
        vec!["ALL USERS SET - ON", "USER      SETTING   STATUS"]
    );
}

#[test]
fn targets() {
    let names = ["LNX01", "LNX02", "LNX03"];
    assert_eq!(
        memassist_targets(&Target::All, &names, "CFC"),
        Ok(vec![0, 1, 2])
    );
    assert_eq!(
        memassist_targets(&user("LNX02"), &names, "CFC"),
        Ok(vec![1])
    );
    // Longer than any userid (8 characters): no such user is logged on.
    assert_eq!(
        memassist_targets(&user("LNX0200000"), &names, "CFC"),
        Err("HCPCFC045E LNX0200000 not logged on".to_string())
    );
}

#[test]
fn initial_settings() {
    use crate::config::level::ZvmLevel;
    let dir = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // ON from z/VM 5.3 (the assist installed), OFF on 5.2 (no CMMA support).
    assert!(memassist_initial(ZvmLevel::V5R3, &[]));
    assert!(memassist_initial(
        ZvmLevel::V7R1,
        &dir(&["MDISK 0200 3390 DEVNO B9D5 MR"])
    ));
    assert!(!memassist_initial(ZvmLevel::V5R2, &[]));
    // OPTION NOMEMASSIST in the directory entry starts the user OFF.
    assert!(!memassist_initial(
        ZvmLevel::V5R3,
        &dir(&["OPTION NOMEMASSIST"])
    ));
}

#[test]
fn all_off_overrides_users() {
    let mut v = view(&[
        ("LNX01", true, false),
        ("LNX02", false, false),
        ("LNX03", true, true),
    ]);
    v.memassist_all = false;
    assert_eq!(
        respond(&parse("Q MEMASSIST ALL").unwrap(), &v),
        vec![
            "ALL USERS SET - OFF",
            "USER      SETTING   STATUS",
            "LNX01     (ON)      INACTIVE",
            "LNX02     OFF       INACTIVE",
            "LNX03     (ON)      ACTIVE,PENDING OFF",
        ]
    );
}

#[test]
fn another_user_or_all_needs_class_b() {
    let at53 = |c: &str| parse_at(c, Some("5.3")).unwrap();
    let run = |c: &str, user: &str, guest: bool, b: bool| for_user(at53(c), c, user, guest, b);
    // A guest (class G) sets and queries its own setting, in any form naming itself.
    let own = |on| CpCommand::SetMemassist {
        on,
        target: Target::User("LNX01".into()),
    };
    assert_eq!(
        run("CP SET MEMASSIST OFF", "LNX01", true, false),
        Ok(own(false))
    );
    assert_eq!(
        run("SET MEMASSIST ON *", "LNX01", true, false),
        Ok(own(true))
    );
    assert_eq!(
        run("SET MEMASSIST ON LNX01", "LNX01", true, false),
        Ok(own(true))
    );
    assert_eq!(
        run("Q MEMASSIST *", "LNX01", true, false),
        Ok(CpCommand::QueryMemassist {
            target: Target::User("LNX01".into())
        })
    );
    // ALL or another user: class B only; CP reads the class G form, where the word is invalid.
    for (cmd, msg) in [
        ("CP SET MEMASSIST ON ALL", "HCPCFC003E Invalid option - ALL"),
        (
            "SET MEMASSIST OFF FOR ALL",
            "HCPCFC003E Invalid option - FOR",
        ),
        (
            "SET MEMASSIST ON LNX02",
            "HCPCFC003E Invalid option - LNX02",
        ),
        ("Q MEMASSIST USER LNX02", "HCPCQU003E Invalid option - USER"),
    ] {
        assert_eq!(
            run(cmd, "LNX01", true, false),
            Err(msg.to_string()),
            "{cmd}"
        );
    }
    // A guest's plain QUERY is its own.
    assert_eq!(
        run("QUERY MEMASSIST", "LNX01", true, false),
        Ok(CpCommand::QueryMemassist {
            target: Target::User("LNX01".into())
        })
    );
    // Class B (MAINT): as parsed; its own machine is not in the model (its plain QUERY lists
    // the guests).
    assert_eq!(
        run("Q MEMASSIST", "MAINT", false, true),
        Ok(CpCommand::QueryMemassist {
            target: Target::All
        })
    );
    assert_eq!(
        run("SET MEMASSIST ON ALL", "MAINT", false, true),
        Ok(at53("SET MEMASSIST ON ALL"))
    );
    assert_eq!(
        run("SET MEMASSIST ON", "MAINT", false, true),
        Ok(CpCommand::NotSimulated {
            command: "SET MEMASSIST ON".into()
        })
    );
}
