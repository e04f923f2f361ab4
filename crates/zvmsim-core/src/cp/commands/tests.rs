use super::*;

#[test]
fn abbreviations_and_errors() {
    assert_eq!(parse("q stor").unwrap(), CpCommand::QueryStorage);
    assert_eq!(parse("CP QUERY XSTORE").unwrap(), CpCommand::QueryXstore);
    assert_eq!(parse("q alloc page").unwrap(), CpCommand::QueryAllocPage);
    assert_eq!(parse("ind").unwrap(), CpCommand::IndicateLoad);
    assert_eq!(
        parse("frobnicate all").unwrap_err(),
        "HCPCMD001E Unknown CP command: FROBNICATE"
    );
    assert!(parse("q bogus").unwrap_err().starts_with("HCPCQU003E"));
    assert!(parse("q").unwrap_err().contains("026E"));
    // QU is not an abbreviation CP accepts for ... it is: QUERY's minimum is Q.
    assert_eq!(parse("qu n").unwrap(), CpCommand::QueryNames);
}

fn ns(cmd: &str) -> CpCommand {
    CpCommand::NotSimulated {
        command: cmd.trim().to_string(),
    }
}

/// Issue 12 item 5: the CP commands whose response layouts were not found in any source
/// (docs/console.md) answer "not simulated by zvmsim" at every simulated release, in full and
/// abbreviated, and change nothing.
#[test]
fn layouts_not_found_stay_not_simulated() {
    for level in ["5.2", "5.3", "5.4", "6.4", "7.1"] {
        for cmd in [
            "INDICATE QUEUES",
            "IND Q",
            "ind queues exp",
            "QUERY SRM",
            "Q SRM",
            "q srm storbuf",
            "QUERY FRAMES",
            "Q FRAMES",
            "QUERY RESERVED",
            "Q RESERVED",
        ] {
            assert_eq!(parse_at(cmd, Some(level)), Ok(ns(cmd)), "{cmd} at {level}");
        }
    }
}

#[test]
fn real_commands_not_simulated() {
    // Real CP commands and operands zvmsim does not model: as typed, trimmed.
    for cmd in [
        "SET SRM STORBUF 300 250 200",
        "DEFINE STORAGE 512M",
        "def vfb-512 2000 2097152",
        "att 5680 LNX01",
        "defseg DCSS1G 20000-5FFFF sn",
        "saveseg DCSS1G",
        "xautolog TCPIP",
        "XAUTOLOG VMRMSVM SYNC",
        "SMSG LNX01",
        "q nss name map dcssname",
        "Q PAV",
        "query vdisk userlim",
        "q alloc spool",
        "IND I/O",
        "INDICATE USER *",
        "IND PAGING ALL",
        "ind queues exp",
        "CP SET VDISK SYSLIM 1G",
        "q v dasd",
        "q pf12",
        // QUERY Real Device: a device number or a range.
        "QUERY B9D5",
        "q 0c01-0c03",
        "LOGOFF",
    ] {
        assert_eq!(parse(cmd), Ok(ns(cmd)), "{cmd}");
    }
    let v = CpView {
        level: "5.3",
        central_bytes: 0,
        xstor_bytes: 0,
        xstor_used_blocks: 0,
        ifls: 1,
        guests: vec![],
        slots_total: 0,
        slots_used: 0,
        avg_proc_pct: 0.0,
        paging_per_s: 0.0,
        xstor_per_s: 0.0,
        migrate_per_s: 0.0,
        memassist: vec![],
        agelist: None,
        ..Default::default()
    };
    assert_eq!(
        respond(&parse(" set srm storbuf 300 250 200 ").unwrap(), &v),
        vec!["not simulated by zvmsim: set srm storbuf 300 250 200".to_string()]
    );
}

#[test]
fn unknown_verbs_and_bad_operands() {
    // Verbs CP does not have.
    for (cmd, verb) in [
        ("FROB IT", "FROB"),
        ("modprobe cmm", "MODPROBE"),
        ("IN", "IN"),
    ] {
        assert_eq!(
            parse(cmd).unwrap_err(),
            format!("HCPCMD001E Unknown CP command: {verb}")
        );
    }
    // Operands CP rejects, for modelled and not modelled verbs alike.
    assert_eq!(
        parse("SET FROB ON").unwrap_err(),
        "HCPCFC003E Invalid option - FROB"
    );
    assert!(parse("SET").unwrap_err().contains("026E"));
    assert_eq!(
        parse("IND FROB").unwrap_err(),
        "HCPIND003E Invalid option - FROB"
    );
    assert_eq!(
        parse("Q ALLOC FROB").unwrap_err(),
        "HCPQAL003E Invalid option - FROB"
    );
    assert_eq!(
        parse("q stor now").unwrap_err(),
        "HCPCQU003E Invalid option - NOW"
    );
    // Too short an abbreviation is no abbreviation.
    assert!(parse("q st").unwrap_err().starts_with("HCPCQU003E"));
    assert_eq!(
        parse("SE SRM").unwrap_err(),
        "HCPCMD001E Unknown CP command: SE"
    );
    // Modelled commands are unchanged.
    assert_eq!(parse("CP IND LOAD").unwrap(), CpCommand::IndicateLoad);
    assert_eq!(parse("q xstorage").unwrap(), CpCommand::QueryXstore);
}

#[test]
fn xautolog_and_smsg() {
    assert_eq!(
        parse("xautolog vmrmsvm").unwrap(),
        CpCommand::Xautolog {
            user: "VMRMSVM".into()
        }
    );
    assert_eq!(
        parse(" CP SM lnx00080  CMM SHRINK 0x100 ").unwrap(),
        CpCommand::Smsg {
            to: "LNX00080".into(),
            text: "CMM SHRINK 0x100".into()
        }
    );
    assert_eq!(
        parse("SMSG LNX01 cmm shrink 5").unwrap(),
        CpCommand::Smsg {
            to: "LNX01".into(),
            text: "cmm shrink 5".into()
        }
    );
}

#[test]
fn release_levels() {
    // CMMA (SET/QUERY MEMASSIST) came with z/VM 5.3.
    assert!(parse_at("SET MEMASSIST ON ALL", Some("5.3")).is_ok());
    assert_eq!(
        parse_at("SET MEMASSIST ON ALL", Some("5.2")).unwrap_err(),
        "HCPCFC003E Invalid option - MEMASSIST"
    );
    assert_eq!(
        parse_at("Q MEMASSIST", Some("5.2")).unwrap_err(),
        "HCPCQU003E Invalid option - MEMASSIST"
    );
    // A verb of a later release is unknown to an earlier CP.
    assert_eq!(
        parse_at("VMRELOCATE TEST LNX01 TO B", Some("5.3")).unwrap_err(),
        "HCPCMD001E Unknown CP command: VMRELOCATE"
    );
    assert!(parse_at("VMRELOCATE TEST LNX01 TO B", Some("6.2")).is_ok());
    assert!(parse_at("Q AGELIST", Some("5.3")).is_err());
    assert!(parse_at("DEFINE HYPERPAVALIAS 1234 FOR BASE 100", Some("5.2")).is_err());
    assert!(parse_at("DEFINE HYPERPAVALIAS 1234 FOR BASE 100", Some("5.3")).is_ok());
    // Operands DEFINE has that the catalog does not list are accepted.
    assert!(parse_at("DEFINE CONSOLE 009", Some("5.2")).is_ok());
    assert_eq!(
        parse_at("q stor", Some("5.2")).unwrap(),
        CpCommand::QueryStorage
    );
}

#[test]
fn simulated_names_match_the_parser() {
    // Every simulated catalog entry parses, in full and at its minimum abbreviation, to
    // a modelled command; one character less does not.
    let rows = catalog::listing("5.3").unwrap();
    let later = catalog::listing("7.1").unwrap();
    for row in rows.iter().chain(&later) {
        if row.system != "cp" || !row.simulated {
            continue;
        }
        // SET MEMASSIST and SET AGELIST need their operands.
        let ops = match row.command.as_str() {
            "SET MEMASSIST" => " ON ALL",
            "SET AGELIST" => " SIZE 2%",
            "INDICATE USER" => " LNX01",
            "SET MDCACHE" => " SYSTEM ON",
            "ATTACH" => " 1234 TO LNX01",
            "DEFINE HYPERPAVALIAS" => " 1234 FOR BASE 0100",
            "QUERY VIRTUAL" => " DASD",
            "SET PAGING" => " ALIAS ON",
            "DEFINE VFB-512" => " AS 0200 BLK 2000",
            "SET VDISK" => " SYSLIM 1000",
            "DEFSEG" => " DCSS1 20000-2FFFF SR",
            "SAVESEG" => " DCSS1",
            "XAUTOLOG" => " VMRMSVM",
            "PURGE" => " NSS NAME DCSS1",
            "SET PRIVCLASS" => " LNX01 +E",
            "SMSG" => " LNX01 CMM SHRINK 10",
            "DEFINE STORAGE" => " 512M",
            _ => "",
        };
        // Saved segments' and VDISKs' commands have their own parsers (the console tries
        // them first, as here).
        let other = |c: &str| {
            let line = format!("{c}{ops}");
            if let Some(r) = crate::cp::segments::parse(&line, "7.1") {
                return Some(format!("{:?}", r.unwrap()));
            }
            if let Some(r) = crate::cp::defstor::parse(&line) {
                return Some(format!("{:?}", r.unwrap()));
            }
            crate::cp::vdisk::parse(&line).map(|r| format!("{:?}", r.unwrap()))
        };
        if let Some(full) = other(&row.command) {
            let short = other(row.abbreviation.as_deref().unwrap());
            assert_eq!(Some(full), short, "{}", row.command);
            continue;
        }
        // The minidisk cache's commands are the DASD parser's (cp/iocmds.rs, cp/mdccmds.rs).
        let io = |c: &str| crate::cp::iocmds::parse(&format!("{c}{ops}"), "7.1");
        if let Some(r) = io(&row.command) {
            use crate::cp::iocmds::IoCommand;
            use crate::cp::mdccmds::MdcCommand;
            let full = r.unwrap();
            let short = io(row.abbreviation.as_deref().unwrap()).unwrap().unwrap();
            assert!(
                !matches!(
                    full,
                    IoCommand::NotSimulated(_) | IoCommand::Mdc(MdcCommand::NotSimulated(_))
                ),
                "{}",
                row.command
            );
            assert_eq!(full, short, "{}", row.command);
            continue;
        }
        let full = parse(&format!("{}{ops}", row.command)).unwrap();
        let short = parse(&format!("{}{ops}", row.abbreviation.as_deref().unwrap())).unwrap();
        assert!(
            !matches!(full, CpCommand::NotSimulated { .. }),
            "{}",
            row.command
        );
        assert_eq!(full, short, "{}", row.command);
    }
}

fn agelist_view(level: &'static str) -> CpView<'static> {
    use crate::config::agelist::AgelistSettings;
    CpView {
        level,
        central_bytes: 0,
        xstor_bytes: 0,
        xstor_used_blocks: 0,
        ifls: 2,
        guests: vec![],
        slots_total: 0,
        slots_used: 0,
        avg_proc_pct: 50.0,
        paging_per_s: 120.0,
        xstor_per_s: 0.0,
        migrate_per_s: 0.0,
        memassist: vec![],
        agelist: Some(crate::cp::storage::AgelistState {
            settings: AgelistSettings {
                size: AgelistSize::Percent(250),
                early_writes: false,
                keep_slot: true,
            },
            target_frames: 262_144,
            frames: 1000,
            early_frames: 0,
        }),
        ..Default::default()
    }
}

#[test]
fn set_agelist_operands_and_errors() {
    let at = |cmd: &str| parse_at(cmd, Some("7.1"));
    let set = |size, early_writes, keep_slot| {
        Ok(CpCommand::SetAgelist {
            size,
            early_writes,
            keep_slot,
        })
    };
    assert_eq!(
        at("SET AGELIST SIZE 5%"),
        set(Some(AgelistSize::Percent(500)), None, None)
    );
    assert_eq!(
        at("cp set agelist keepslot no earlyw yes size 2.5 percent"),
        set(Some(AgelistSize::Percent(250)), Some(true), Some(false))
    );
    assert_eq!(
        at("SET AGELIST SIZE 512M EARLYWRITES NO"),
        set(
            Some(AgelistSize::Storage(crate::config::units::Size(512 << 20))),
            Some(false),
            None
        )
    );
    for (cmd, msg) in [
        ("SET AGELIST", "HCPCFC026E Operand missing or invalid"),
        ("SET AGELIST SIZE", "HCPCFC026E Operand missing or invalid"),
        ("SET AGELIST SIZE 150%", "HCPCFC002E Invalid operand - 150%"),
        ("SET AGELIST SIZE 2", "HCPCFC002E Invalid operand - 2"),
        (
            "SET AGELIST EARLYWRITES MAYBE",
            "HCPCFC002E Invalid operand - MAYBE",
        ),
        ("SET AGELIST EARLY YES", "HCPCFC003E Invalid option - EARLY"),
        (
            "SET AGELIST KEEPSLOT",
            "HCPCFC026E Operand missing or invalid",
        ),
        ("SET AGELIST KEEP YES", "HCPCFC003E Invalid option - KEEP"),
        ("SET AGELIST SIZE 2% NOW", "HCPCFC003E Invalid option - NOW"),
        (
            "SET AGELIST SIZE 2% NOW YES",
            "HCPCFC003E Invalid option - NOW",
        ),
        ("Q AGELIST ALL", "HCPCQU003E Invalid option - ALL"),
    ] {
        assert_eq!(at(cmd).unwrap_err(), msg, "{cmd}");
    }
    assert_eq!(at("QUERY AGELIST"), Ok(CpCommand::QueryAgelist));
    // z/VM 6.4 has them too; 5.x CP has no AGELIST operand.
    assert!(parse_at("SET AGELIST SIZE 5%", Some("6.4")).is_ok());
    for level in ["5.2", "5.3", "5.4"] {
        assert_eq!(
            parse_at("SET AGELIST SIZE 5%", Some(level)).unwrap_err(),
            "HCPCFC003E Invalid option - AGELIST"
        );
        assert_eq!(
            parse_at("QUERY AGELIST", Some(level)).unwrap_err(),
            "HCPCQU003E Invalid option - AGELIST"
        );
    }
}

#[test]
fn agelist_responses_and_no_xstore_from_6_4() {
    let v = agelist_view("7.1");
    assert_eq!(
        respond(&CpCommand::QueryAgelist, &v),
        vec!["AGELIST SIZE 2.5% (1024M) EARLYWRITES NO KEEPSLOT YES".to_string()]
    );
    let set = CpCommand::SetAgelist {
        size: None,
        early_writes: Some(true),
        keep_slot: None,
    };
    assert!(respond(&set, &v).is_empty());
    // No expanded storage from z/VM 6.4: QUERY XSTORE is gone, INDICATE LOAD has no line.
    for level in ["6.4", "7.1"] {
        assert_eq!(
            parse_at("QUERY XSTORE", Some(level)).unwrap_err(),
            "HCPCQU003E Invalid option - XSTORE"
        );
        assert_eq!(
            parse_at("q xs", Some(level)).unwrap_err(),
            "HCPCQU003E Invalid option - XS"
        );
    }
    assert_eq!(parse_at("q xs", Some("5.4")), Ok(CpCommand::QueryXstore));
    let load = respond(&CpCommand::IndicateLoad, &v);
    assert_eq!(
        load[..3],
        [
            "AVGPROC-050% 02",
            "MDC READS-000000/SEC WRITES-000000/SEC HIT RATIO-000%",
            "PAGING-120/SEC"
        ]
    );
    assert!(!load.iter().any(|l| l.starts_with("XSTORE")));
    let v53 = CpView {
        level: "5.3",
        ..agelist_view("5.3")
    };
    let load = respond(&CpCommand::IndicateLoad, &v53);
    assert_eq!(load[1], "XSTORE-000000/SEC MIGRATE-0000/SEC");
}
