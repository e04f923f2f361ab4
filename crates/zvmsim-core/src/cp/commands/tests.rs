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
        "INDICATE USER LNX01",
        "ind queues exp",
        "CP SET VDISK SYSLIM 1G",
        "q v dasd",
        "q pf12",
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
    for row in catalog::listing("5.3").unwrap() {
        if row.system != "cp" || !row.simulated {
            continue;
        }
        // SET MEMASSIST needs its operands.
        let ops = if row.command == "SET MEMASSIST" {
            " ON ALL"
        } else {
            ""
        };
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
