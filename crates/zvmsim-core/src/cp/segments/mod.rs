//! Saved segments (DCSS): CP's DEFSEG, SAVESEG, PURGE NSS and QUERY NSS, the system data
//! files in the spool that hold them (classes S, A, R, P) and who has each loaded.
//!
//! * `defseg.rs`: the commands' syntax and CP's limits (page ranges, types, options).
//! * `nss.rs`: the system data files and their life: a skeleton (S) made active (A, or R
//!   when restricted) by SAVESEG; a file replaced while in use stays as P until its last user
//!   releases it.
//! * `query.rs`: QUERY NSS in CP's column layout.
//!
//! The pages themselves are address spaces of `cp::storage` (a shared copy per segment, one
//! per guest for a nonshared copy); the spool I/O that saves and loads them is `cp::spool`.

pub mod defseg;
pub mod execs;
pub mod nss;
pub mod query;

pub use defseg::{parse, SegCommand};
pub use nss::{Class, NssFile, Segments};

/// Pages in 1 MB.
pub const MB_PAGES: u32 = 256;
/// A saved segment is at most 2047 MB (CP's limit, seeds 000 and 001).
pub const MAX_SEGMENT_PAGES: u32 = 2047 * MB_PAGES;
/// Since z/VM 5.4 a saved segment may lie anywhere below 512 GB (page X'7FFFFFF' the last).
pub const LIMIT_PAGES_54: u32 = 0x800_0000;
/// Before z/VM 5.4: below 2 GB.
pub const LIMIT_PAGES_OLD: u32 = 0x8_0000;

/// A page range's descriptor code: who may access its pages, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageType {
    /// Exclusive read/write.
    Ew,
    /// Exclusive read/write, no data saved.
    En,
    /// Exclusive read-only.
    Er,
    /// Shared read/write.
    Sw,
    /// Shared read/write, no data saved.
    Sn,
    /// Shared read-only.
    Sr,
    /// CP-writable, shared read-only for virtual machines, no data saved.
    Sc,
}

impl PageType {
    pub fn parse(w: &str) -> Option<Self> {
        Some(match w {
            "EW" => PageType::Ew,
            "EN" => PageType::En,
            "ER" => PageType::Er,
            "SW" => PageType::Sw,
            "SN" => PageType::Sn,
            "SR" => PageType::Sr,
            "SC" => PageType::Sc,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            PageType::Ew => "EW",
            PageType::En => "EN",
            PageType::Er => "ER",
            PageType::Sw => "SW",
            PageType::Sn => "SN",
            PageType::Sr => "SR",
            PageType::Sc => "SC",
        }
    }
    /// Each user gets its own copy.
    pub fn exclusive(self) -> bool {
        matches!(self, PageType::Ew | PageType::En | PageType::Er)
    }
    /// The pages' contents are kept in the spool file.
    pub fn saved(self) -> bool {
        !matches!(self, PageType::En | PageType::Sn | PageType::Sc)
    }
    /// A virtual machine may write the pages.
    pub fn writable(self) -> bool {
        matches!(
            self,
            PageType::Ew | PageType::En | PageType::Sw | PageType::Sn
        )
    }
    /// The Linux kernel's number of the type (arch/s390 extmem: SW 0 ... SC 6).
    pub fn linux_code(self) -> u32 {
        match self {
            PageType::Sw => 0,
            PageType::Ew => 1,
            PageType::Sr => 2,
            PageType::Er => 3,
            PageType::Sn => 4,
            PageType::En => 5,
            PageType::Sc => 6,
        }
    }
}

/// One page range of a DEFSEG: pages `beg..=end` (4 KB page numbers) of type `ty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRange {
    pub beg: u32,
    pub end: u32,
    pub ty: PageType,
}

impl PageRange {
    pub fn pages(&self) -> u32 {
        self.end - self.beg + 1
    }
}

/// The megabyte-rounded extent of `ranges`: (first page, pages). A saved segment begins and
/// ends on a 1 MB boundary, whatever page its ranges start at.
pub fn extent(ranges: &[PageRange]) -> (u32, u32) {
    let lo = ranges.iter().map(|r| r.beg).min().unwrap_or(0) / MB_PAGES * MB_PAGES;
    let hi = ranges.iter().map(|r| r.end).max().unwrap_or(0) / MB_PAGES * MB_PAGES + MB_PAGES;
    (lo, hi - lo)
}
