//! Typed counters, owned by the components that count them. A counter is a field incremented
//! where the event happens; the interval rows and the summary are built from these structs, so
//! a new metric is one field here, one increment where it happens, and one row field.

use crate::linux::memory::LinuxMemory;

/// Declares a struct of `u64`-like counters with `add` (sum another set into this one).
macro_rules! counters {
    ($(#[$m:meta])* $name:ident { $( $(#[doc = $d:expr])* $f:ident : $t:ty, )* }) => {
        $(#[$m])*
        #[derive(Debug, Default, Clone)]
        pub struct $name { $( $(#[doc = $d])* pub $f: $t, )* }
        impl $name {
            /// Adds `o`'s counts to these.
            pub fn add(&mut self, o: &$name) {
                $( self.$f += o.$f; )*
            }
        }
    };
}

counters! {
    /// A guest's counts over an interval (and, summed, over the measured window): its
    /// transactions, CPU, I/O, host page faults, and its Linux's /proc/vmstat differences.
    GuestCounters {
        tx: u64,
        resp_ns: u128,
        /// Virtual CPU time.
        cpu_ns: u64,
        /// CP time spent for the guest: its page faults and the demand scans its frame
        /// requests run, its page-ins' completion, its I/O.
        cp_ns: u64,
        db_reads: u64,
        db_writes: u64,
        page_faults_dasd: u64,
        /// Of those, the faults that stopped the whole virtual CPU until the page-in ended
        /// (kernel mode, or no pfault handshake).
        page_faults_stopped: u64,
        page_faults_xstor: u64,
        /// Time transactions spent waiting for database reads, host page-ins and swap-ins.
        wait_db_ns: u64,
        wait_fault_ns: u64,
        wait_swap_ns: u64,
        /// Linux swap-outs of pages CP had paged out and must bring back first.
        double_paging: u64,
        pgmajfault: u64,
        pswpin: u64,
        pswpout: u64,
        pgscan_direct: u64,
        pgscan_kswapd: u64,
        /// ESSA page-state changes (CMMA).
        essa: u64,
        /// Discard faults: references to clean page-cache pages CP had discarded (CMMA).
        discard_faults: u64,
        /// Pages the cmm balloon gave to CP with DIAGNOSE X'10'.
        cmm_diag10_pages: u64,
        /// VMRM's `CMM SHRINK` notifications (SMSGs) to this guest.
        vmrm_notifications: u64,
        /// Bytes the guest's DASD driver moved (direct I/O of its workload).
        dasd_bytes: u64,
        /// Swap I/Os to VDISKs, and CP's time spinning for the VDISK lock in them.
        vdisk_io: u64,
        vdisk_spin_ns: u64,
        /// Swap I/Os to dcssblk devices.
        dcss_swap_io: u64,
    }
}

counters! {
    /// The LPAR's CPU over an interval.
    SysCounters {
        cp_ns: u64,
        /// CP time not done for any guest (CP's own system work).
        cp_system_ns: u64,
        guest_ns: u64,
        /// SMSGs VMRM sent to the NOTIFY MEMORY guests.
        vmrm_notifications: u64,
        /// Virtual I/O requests of the guests (each read or write a guest starts on a
        /// minidisk, an attached device or a VDISK, whether CP answers it from its minidisk
        /// cache or by a real I/O).
        virtual_io: u64,
    }
}

/// Cumulative Linux counters at the last interval boundary.
#[derive(Default, Clone, Copy)]
pub struct VmMark {
    pub pgmajfault: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    pub pgscan_direct: u64,
    pub pgscan_kswapd: u64,
}

impl VmMark {
    pub fn of(m: &LinuxMemory) -> Self {
        VmMark {
            pgmajfault: m.pgmajfault,
            pswpin: m.pswpin,
            pswpout: m.pswpout,
            pgscan_direct: m.pgscan_direct,
            pgscan_kswapd: m.pgscan_kswapd,
        }
    }

    /// Counts since `earlier`, into the interval's counters.
    pub fn since(&self, earlier: &VmMark, s: &mut GuestCounters) {
        s.pgmajfault = self.pgmajfault - earlier.pgmajfault;
        s.pswpin = self.pswpin - earlier.pswpin;
        s.pswpout = self.pswpout - earlier.pswpout;
        s.pgscan_direct = self.pgscan_direct - earlier.pgscan_direct;
        s.pgscan_kswapd = self.pgscan_kswapd - earlier.pgscan_kswapd;
    }
}
