//! Each console command's response line by line against the real layout, per release where
//! it differs (docs/console.md gives each layout's source).

use super::*;
use crate::cp::storage::VolumeUsage;

fn user(name: &str, vcpus: Vec<UserState>, resident: u64) -> UserView {
    UserView {
        name: name.into(),
        storage_bytes: 2 << 30,
        vcpus,
        resident,
        xstor: 7,
        dasd: 1234,
        page_reads: 56,
        xstor_reads: 9,
        cpu_ns: 125_000_000_000,
        cp_ns: 5_000_000_000,
        io: 603,
        ..Default::default()
    }
}

fn view(level: &'static str) -> CpView<'static> {
    CpView {
        level,
        central_bytes: 8 << 30,
        ifls: 3,
        avg_proc_pct: 38.4,
        paging_per_s: 2.0,
        now_s: 2.0 * 3600.0 + 38.0 * 60.0 + 5.0,
        pageable_frames: 2_000_000,
        steals_per_s: 10.0,
        volumes: vec![
            VolumeUsage {
                slots: 450_180,
                used: 0,
                high: 0,
            },
            VolumeUsage {
                slots: 600_660,
                used: 25,
                high: 34,
            },
        ],
        users: vec![
            user("LNX01", vec![UserState::Running], 400_000),
            user("LNX02", vec![UserState::PageWait, UserState::Idle], 100_000),
            user("LNX03", vec![UserState::Idle], 500_000),
        ],
        ..Default::default()
    }
}

#[test]
fn query_storage_changed_with_5_4() {
    for level in ["5.2", "5.3"] {
        assert_eq!(
            respond(&CpCommand::QueryStorage, &view(level)),
            ["STORAGE = 8G"]
        );
    }
    for level in ["5.4", "6.4", "7.1"] {
        assert_eq!(
            respond(&CpCommand::QueryStorage, &view(level)),
            ["STORAGE = 8G CONFIGURED = 8G INC = 256M STANDBY = 0  RESERVED = 0"]
        );
    }
}

#[test]
fn query_alloc_page_rows_totals_usable() {
    // The real layout (z/VM 6.3 console): the same two volumes print these lines.
    let want = [
        "                EXTENT     EXTENT  TOTAL  PAGES   HIGH    %",
        "VOLID  RDEV      START        END  PAGES IN USE   PAGE USED",
        "------ ---- ---------- ---------- ------ ------ ------ ----",
        "PAG001 0300          0       2500 450180      0      0   0%",
        "PAG002 0301          0       3336 600660     25     34   1%",
        "                                  ------ ------        ----",
        "SUMMARY                            1026K     25          1%",
        "USABLE                             1026K     25          1%",
    ];
    for level in ["5.2", "7.1"] {
        assert_eq!(respond(&CpCommand::QueryAllocPage, &view(level)), want);
    }
}

#[test]
fn query_cplevel_per_release() {
    let r = respond(&CpCommand::QueryCplevel, &view("5.3"));
    assert_eq!(
        r,
        [
            "z/VM Version 5 Release 3.0, service level 0701 (64-bit)",
            "Generated at 06/29/07 00:00:00 UTC",
            "IPL at 06/29/07 00:00:00 UTC",
        ]
    );
    let r = respond(&CpCommand::QueryCplevel, &view("7.1"));
    assert_eq!(
        r[0],
        "z/VM Version 7 Release 1.0, service level 1801 (64-bit)"
    );
}

#[test]
fn indicate_load_per_release() {
    // LNX01 and LNX02 are in the dispatch list (Q3), LNX02 loading (in page wait); LNX03
    // idles (dormant). STORAGE: 500,000 in-queue resident pages of 2,000,000 pageable.
    // STEAL: their share of the resident pages (500,000 of 1,000,000).
    let v52 = respond(&CpCommand::IndicateLoad, &view("5.2"));
    assert_eq!(
        v52,
        [
            "AVGPROC-038% 03",
            "XSTORE-000000/SEC MIGRATE-0000/SEC",
            "MDC READS-000000/SEC WRITES-000000/SEC HIT RATIO-000%",
            "STORAGE-025% PAGING-0002/SEC STEAL-050%",
            "Q0-00000(00000)                           DORMANT-00001",
            "Q1-00000(00000)           E1-00000(00000)",
            "Q2-00000(00000) EXPAN-001 E2-00000(00000)",
            "Q3-00002(00001) EXPAN-001 E3-00000(00000)",
            "",
            "PROC 0000-038%             PROC 0001-038%",
            "PROC 0002-038%",
            "",
            "LIMITED-00000",
        ]
    );
    // 5.3 and 5.4 name the processor type.
    let v54 = respond(&CpCommand::IndicateLoad, &view("5.4"));
    assert_eq!(v54[9], "PROC 0000-038% IFL         PROC 0001-038% IFL");
    // 6.4 and 7.1: no XSTORE line, PAGING alone, polarization shown.
    for level in ["6.4", "7.1"] {
        let r = respond(&CpCommand::IndicateLoad, &view(level));
        assert_eq!(r.len(), 12, "{level}");
        assert_eq!(
            r[1],
            "MDC READS-000000/SEC WRITES-000000/SEC HIT RATIO-000%"
        );
        assert_eq!(r[2], "PAGING-2/SEC");
        assert_eq!(r[7], "", "{level}");
        assert_eq!(r[8], "PROC 0000-038% IFL  HZ     PROC 0001-038% IFL  HZ");
        assert_eq!(r[9], "PROC 0002-038% IFL  HZ");
        assert_eq!(r[11], "LIMITED-00000");
    }
}

#[test]
fn indicate_user_per_release() {
    let cmd = parse("IND USER lnx02").unwrap();
    assert_eq!(
        cmd,
        CpCommand::IndicateUser {
            user: "LNX02".into()
        }
    );
    // 5.x: fixed-width counts and the XSTORE line; one CPU block per virtual CPU; CPU time
    // 125 s spread over the two, CP's 5 s added in TTIME; connect time 2:38.
    assert_eq!(
        respond(&cmd, &view("5.3")),
        [
            "USERID=LNX02    MACH=ESA STOR=2G VIRT=V XSTORE=NONE",
            "IPLSYS=DEV 0200 DEVNUM=00005",
            "PAGES: RES=00100000 WS=00100000 LOCK=00000000 RESVD=00000000",
            "NPREF=00000000 PREF=00000000 READS=00000056 WRITES=00000000",
            "XSTORE=000007 READS=000009 WRITES=000000 MIGRATES=000000",
            "CPU 00: CTIME=02:38 VTIME=001:02 TTIME=001:05 IO=000603",
            "        RDR=000000 PRT=000000 PCH=000000",
            "CPU 01: CTIME=02:38 VTIME=001:02 TTIME=001:05 IO=000000",
            "        RDR=000000 PRT=000000 PCH=000000",
        ]
    );
    let r = respond(&cmd, &view("7.1"));
    assert_eq!(r[2], "PAGES: RES=100000  WS=100000  LOCKEDREAL=0  RESVD=0");
    assert_eq!(r[3], "       INSTAN=100000");
    assert_eq!(r[4], "NPREF=0  PREF=0  READS=56  WRITES=0");
    assert_eq!(
        r[6],
        "        RDR=000000 PRT=000000 PCH=000000 TYPE=CP   CPUAFFIN=ON"
    );
    // With `[model] working_set_steal`, WS= is CP's projection, not the resident count.
    let mut v = view("5.3");
    v.users[1].working_set = Some(4321);
    assert_eq!(
        respond(&cmd, &v)[2],
        "PAGES: RES=00100000 WS=00004321 LOCK=00000000 RESVD=00000000"
    );
    let bad = parse("IND USER LNX09").unwrap();
    assert_eq!(
        respond(&bad, &view("7.1")),
        ["HCPIND045E LNX09 not logged on"]
    );
    assert_eq!(
        parse("IND USER LNX01 NOW").unwrap_err(),
        "HCPIND003E Invalid option - NOW"
    );
}

#[test]
fn indicate_paging_lists_users_in_page_wait() {
    let cmd = parse("ind paging").unwrap();
    assert_eq!(cmd, CpCommand::IndicatePaging);
    assert_eq!(parse("IND PAG WAIT").unwrap(), cmd);
    assert_eq!(respond(&cmd, &view("5.3")), ["LNX02    000007:001234"]);
    let mut v = view("5.3");
    v.users.remove(1);
    assert_eq!(respond(&cmd, &v), ["No users in page wait"]);
    assert_eq!(
        parse("IND PAGING SOON").unwrap_err(),
        "HCPIND003E Invalid option - SOON"
    );
}
