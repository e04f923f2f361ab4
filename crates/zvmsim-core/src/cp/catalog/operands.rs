//! Operand tables of the CP catalog: what may follow QUERY, QUERY ALLOC, INDICATE, SET and
//! DEFINE. Kept apart from the lookup logic so that a release's additions touch only data.

use super::{w, wa, Word, RELEASE};

/// QUERY operands. The six zvmsim models come first, with the minimums its parser uses.
pub static QUERY: &[Word] = &[
    w("STORAGE", 3),
    // Expanded storage support ended with z/VM 6.3; 6.4 has no XSTORE commands (IBM's 6.4
    // announcement, from knowledge: not confirmed in the stored corpora).
    w("XSTORE", 2).until("6.3").note(RELEASE),
    w("PROCESSORS", 4),
    w("NAMES", 1),
    w("CPLEVEL", 5),
    w("ALLOC", 5),
    wa("ABEND", 5),
    wa("CACHE", 5),
    wa("CACHEFW", 7),
    wa("CAPABILITY", 10),
    wa("CHPID", 5),
    wa("CPCMDS", 6),
    wa("CPDISKS", 6),
    wa("CPLANGLIST", 10),
    wa("CPOWNED", 5),
    wa("CPTRAP", 6),
    wa("CPUAFFINITY", 11),
    wa("CPUID", 5),
    wa("CRYPTO", 6),
    wa("CTCA", 4),
    wa("DASD", 2),
    wa("DATEFORMAT", 10),
    wa("DIAGNOSE", 8),
    wa("DUMP", 4),
    wa("DUPLEX", 6),
    wa("EDEVICE", 4),
    wa("EXITS", 5),
    wa("FCP", 3),
    wa("FILES", 5),
    wa("FRAMES", 6),
    wa("GRAF", 4),
    wa("HOLD", 4),
    wa("HOTIO", 5),
    wa("IMSG", 4),
    wa("IOASSIST", 8),
    wa("IOPRIORITY", 10),
    wa("ISLINK", 6),
    wa("JOURNAL", 7),
    wa("LAN", 3),
    wa("LDEVS", 5),
    wa("LINES", 5),
    wa("LINKS", 5),
    wa("LOADDEV", 7),
    wa("LOGMSG", 3),
    wa("MAXUSERS", 8),
    wa("MDCACHE", 3),
    wa("MDISK", 5),
    // CMMA: "initially available with z/VM 5.3" (seed: z/VM Large Memory study).
    wa("MEMASSIST", 9).since("5.3"),
    wa("MITIME", 6),
    wa("MONITOR", 3),
    w("NSS", 3), // QUERY NSS [ALL|NAME name] [MAP] (seeds; the list without MAP)
    w("OSA", 3),
    w("PAV", 3), // seeds
    wa("PATHS", 5),
    wa("PENDING", 7),
    w("PER", 3),
    wa("PF", 2),
    wa("PRINTER", 7),
    wa("PRT", 3),
    wa("PRIVCLASS", 9),
    wa("PUNCH", 5),
    wa("PUN", 3),
    wa("QIOASSIST", 9),
    wa("QUICKDSP", 8),
    wa("READER", 6),
    wa("RDR", 3),
    wa("RECORDING", 9),
    wa("RESERVED", 8),
    wa("SECUSER", 7),
    w("SET", 3),
    wa("SHARE", 5),
    wa("SIGNALS", 7),
    wa("SPACES", 6),
    w("SRM", 3),
    wa("SYSOPER", 7),
    wa("SYSTEM", 6),
    w("TAG", 3),
    wa("TAPES", 5),
    wa("TDISK", 5),
    wa("TERMINAL", 4),
    wa("TIME", 4),
    wa("TODENABLE", 9),
    wa("TRACE", 5),
    wa("TRFILES", 7),
    wa("TRSAVE", 6),
    w("UCR", 3),
    w("USERID", 6),
    wa("USERS", 5),
    wa("VDISK", 5),
    w("VIRTUAL", 1), // Q V DASD
    wa("VMLAN", 5),
    wa("VSWITCH", 3),
    // Later releases (not simulated levels; listed to show the pattern).
    wa("SSI", 3)
        .since("6.2")
        .note("single system image came with z/VM 6.2"),
    wa("VMRELOCATE", 10)
        .since("6.2")
        .note("live guest relocation came with z/VM 6.2"),
    // The global aging list replaced demand scan in z/VM 6.3 (reference/interfaces.md; IBM's
    // z/VM 6.3 memory management report); QUERY/SET AGELIST are dated with it. AGELIST is
    // required in full (inference: no abbreviation found).
    wa("AGELIST", 7).since("6.3").note(RELEASE),
    wa("MULTITHREAD", 11).since("6.3").note(RELEASE),
    // SET PAGING ALIAS: "z/VM 7.1 and 6.4 support HyperPAV alias devices for paging" (seed).
    wa("PAGING", 6).since("6.4").note(RELEASE),
];

/// Operands of QUERY ALLOC (only PAGE is simulated).
pub static QUERY_ALLOC: &[Word] = &[
    w("PAGE", 4),
    wa("ALL", 3),
    wa("DRCT", 4),
    wa("MAP", 3),
    wa("SPOOL", 5),
    wa("TDISK", 5),
];

/// INDICATE operands (only LOAD, the default, is simulated).
pub static INDICATE: &[Word] = &[
    w("LOAD", 1),
    wa("ACTIVE", 3),
    w("I/O", 3), // seeds
    w("NSS", 3),
    wa("PAGING", 3),
    wa("QUEUES", 1),
    wa("SPACES", 2),
    w("USER", 4), // seeds
    wa("MULTITHREAD", 11).since("6.3").note(RELEASE),
];

/// SET operands (none is simulated: the scenario sets the system up).
pub static SET: &[Word] = &[
    wa("ABEND", 5),
    wa("CACHE", 5),
    wa("CACHEFW", 7),
    wa("CCWTRAN", 7),
    wa("CONCEAL", 7),
    wa("CPCONIO", 7),
    wa("CPLANGUAGE", 10),
    wa("CPTRACE", 7),
    wa("CPUAFFINITY", 11),
    wa("CRYPTO", 6),
    wa("DATEFORMAT", 10),
    wa("DUMP", 4),
    wa("EDEVICE", 7),
    w("EMSG", 4),
    wa("HOTIO", 5),
    w("IMSG", 4),
    wa("IOASSIST", 8),
    wa("IOPRIORITY", 10),
    wa("JOURNAL", 7),
    wa("LAN", 3),
    wa("LINEDIT", 7),
    wa("LOADDEV", 7),
    wa("LOGMSG", 6),
    wa("MACHINE", 7),
    wa("MAXUSERS", 8),
    wa("MDCACHE", 3),
    // SET MEMASSIST ON ALL (seed); CMMA "initially available with z/VM 5.3" (seed).
    wa("MEMASSIST", 9).since("5.3"),
    wa("MITIME", 6),
    w("MSG", 3),
    wa("NOPDATA", 7),
    wa("OBSERVER", 8),
    wa("PAGEX", 5),
    wa("PF", 2),
    wa("PRIVCLASS", 9),
    wa("QIOASSIST", 9),
    wa("QUICKDSP", 8),
    wa("RDEVICE", 7),
    wa("RESERVED", 8),
    w("RUN", 3),
    wa("SECUSER", 7),
    wa("SHARE", 5),
    wa("SHUTDOWNTIME", 12),
    wa("SIGNAL", 6),
    w("SMSG", 4),
    w("SRM", 3), // SET SRM STORBUF / LDUBUF / XSTORE ...
    wa("STBYPASS", 8),
    wa("SVC76", 5),
    wa("THROTTLE", 8),
    wa("TIMER", 5),
    wa("TRACEFRAMES", 11),
    w("VDISK", 5), // SET VDISK SYSLIM / USERLIM (seed)
    wa("VMCONIO", 7),
    wa("VSWITCH", 7),
    w("WNG", 3),
    wa("370ACCOM", 8),
    wa("AGELIST", 7).since("6.3").note(RELEASE),
    wa("MULTITHREAD", 11).since("6.3").note(RELEASE),
    wa("PAGING", 6).since("6.4").note(RELEASE),
];

/// DEFINE operands that matter here (DEFINE has many more; those not listed are accepted).
pub static DEFINE: &[Word] = &[
    w("STORAGE", 4), // DEF STOR 512M (seed)
    wa("CPU", 3),
    wa("NIC", 3),
    w("VFB-512", 7), // DEF VFB-512 ... for a VDISK (seed)
    wa("T3390", 5),
    wa("MDISK", 5),
    wa("GRAF", 4),
    wa("CTCA", 4),
    wa("LAN", 3),
    wa("VSWITCH", 7),
    // Basic PAV for minidisks was there in z/VM 5.2 (IBM's HyperPAV page).
    wa("PAVALIAS", 8).note(RELEASE),
    // HyperPAV was announced for z/VM 5.3 (Feb 2007), including minidisks for guests that
    // exploit it; DEFINE HYPERPAVALIAS (seed) is dated with it.
    w("HYPERPAVALIAS", 13).since("5.3").note(RELEASE),
];
