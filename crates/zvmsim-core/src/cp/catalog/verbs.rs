//! The verb table of the CP catalog: every CP command verb with its minimum abbreviation and
//! what its operands are checked against. Kept apart from the lookup logic, like the operands.

use super::operands::{DEFINE, INDICATE, QUERY, SET};
use super::{any, w, wa, Operands, Verb};

const CFC: &str = "CFC"; // CP's generic command-function module (inferred for SET/DEFINE)

/// CP command verbs of z/VM 5.2/5.3, with a few later ones. QUERY and INDICATE are parsed
/// before this table is consulted; they are here for the listing and for completeness.
pub static VERBS: &[Verb] = &[
    Verb {
        word: w("QUERY", 1),
        operands: Operands::Strict {
            words: QUERY,
            module: "CQU",
        },
    },
    Verb {
        word: w("INDICATE", 3),
        operands: Operands::Strict {
            words: INDICATE,
            module: "IND",
        },
    },
    Verb {
        word: w("SET", 3),
        operands: Operands::Strict {
            words: SET,
            module: CFC,
        },
    },
    Verb {
        word: w("DEFINE", 3),
        operands: Operands::Open {
            words: DEFINE,
            module: CFC,
        },
    },
    any(wa("ACNT", 4)),
    any(wa("ACTIVATE", 3)),
    any(wa("ADSTOP", 6)),
    any(wa("ASSOCIATE", 5)),
    any(w("ATTACH", 3)), // ATTACH ... / att rdev SYSTEM (seeds)
    any(wa("ATTN", 4)),
    any(wa("AUTOLOG", 4)),
    any(wa("BACKSPAC", 5)),
    any(w("BEGIN", 1)),
    any(w("CHANGE", 2)),
    any(w("CLOSE", 2)),
    any(wa("COMMANDS", 3)),
    any(wa("COUPLE", 3)),
    any(wa("CPACCESS", 5)),
    any(wa("CPCACHE", 7)),
    any(wa("CPHX", 4)),
    any(wa("CPLISTFILE", 6)),
    any(wa("CPRELEASE", 5)),
    any(wa("CPTYPE", 6)),
    any(wa("CPXLOAD", 7)),
    any(wa("CPXUNLOAD", 9)),
    any(wa("DEACTIVE", 5)),
    any(wa("DEDICATE", 3)),
    any(w("DEFSEG", 6)), // defseg DCSS1G 20000-5FFFF sn (seeds)
    any(wa("DEFSYS", 6)),
    any(wa("DELETE", 3)),
    any(w("DETACH", 3)),
    any(wa("DIAL", 4)),
    any(wa("DISABLE", 4)),
    any(w("DISCONNECT", 4)),
    any(w("DISPLAY", 1)),
    any(wa("DRAIN", 2)),
    any(wa("DUMP", 2)),
    any(w("ECHO", 4)),
    any(wa("ENABLE", 2)),
    any(wa("EXTERNAL", 3)),
    any(wa("FLASHCOPY", 6)),
    any(wa("FLUSH", 2)),
    any(w("FORCE", 5)),
    any(wa("FREE", 4)),
    any(wa("GIVE", 4)),
    any(w("HALT", 4)),
    any(wa("HOLD", 4)),
    any(w("IPL", 1)),
    any(wa("LINK", 4)),
    any(wa("LOADBUF", 7)),
    any(wa("LOADVFCB", 8)),
    any(wa("LOCATE", 3)),
    any(wa("LOCK", 4)),
    any(w("LOGOFF", 3)),
    any(wa("LOGON", 1)),
    any(w("MESSAGE", 1)),
    any(w("MSG", 3)),
    any(wa("MODIFY", 3)),
    any(wa("MONITOR", 3)),
    any(w("MSGNOH", 6)),
    any(wa("NOTREADY", 4)),
    any(wa("ORDER", 3)),
    any(w("PER", 3)),
    any(w("PURGE", 3)),
    any(w("READY", 5)),
    any(wa("RECORDING", 3)),
    any(wa("REPEAT", 3)),
    any(wa("REQUEST", 3)),
    any(w("RESET", 5)),
    any(wa("RETAIN", 6)), // RETAIN XSTORE
    any(wa("REWIND", 3)),
    any(w("SAVESEG", 7)), // saveseg DCSS1G (seeds)
    any(wa("SAVESYS", 7)),
    any(wa("SCREEN", 3)),
    any(w("SEND", 4)),
    any(w("SHUTDOWN", 8)),
    any(wa("SIGNAL", 3)),
    any(wa("SLEEP", 2)),
    any(wa("SMSG", 2)), // VMRM sends CMM SHRINK by SMSG (seeds)
    any(wa("SPACE", 5)),
    any(w("SPOOL", 2)),
    any(wa("SPXTAPE", 3)),
    any(wa("START", 3)),
    any(w("STOP", 4)),
    any(wa("STORE", 2)),
    any(wa("SYNCMDRS", 8)),
    any(wa("SYSTEM", 3)),
    any(wa("TAG", 3)),
    any(w("TERMINAL", 4)),
    any(w("TRACE", 2)),
    any(wa("TRANSFER", 4)),
    any(wa("TRSAVE", 4)),
    any(wa("TRSOURCE", 4)),
    any(wa("UNDEDICATE", 5)),
    any(wa("UNLOCK", 6)),
    any(wa("VARY", 3)),
    any(wa("VINPUT", 3)),
    any(wa("VMDUMP", 6)),
    any(wa("WARNING", 2)),
    any(w("XAUTOLOG", 5)), // xautolog VMRMSVM (seeds)
    any(wa("XSPOOL", 3)),
    // Later releases.
    any(wa("VMRELOCATE", 6)
        .since("6.2")
        .note("live guest relocation came with z/VM 6.2")),
];
