//! The system data files of saved segments in the spool, and their users. DEFSEG makes a
//! skeleton (class S); SAVESEG makes it available (A, or R when restricted by RSTD), and a file
//! of the same name that it replaces is purged, or, while someone still has it loaded, kept
//! as class P until its last user releases it. The pages of a file that users load are one
//! shared address space (`shared`), created by its first load and discarded by its purge.

use super::{extent, PageRange, PageType};
use crate::cp::storage::SpaceId;

/// A system data file's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Skeleton: defined, not saved; cannot be loaded.
    S,
    /// Available.
    A,
    /// Restricted: available to users with a NAMESAVE statement.
    R,
    /// Pending purge: replaced or purged while in use.
    P,
}

impl Class {
    pub fn letter(self) -> char {
        match self {
            Class::S => 'S',
            Class::A => 'A',
            Class::R => 'R',
            Class::P => 'P',
        }
    }
}

#[derive(Debug, Clone)]
pub struct NssFile {
    /// Spool file ID.
    pub id: u32,
    pub name: String,
    pub ranges: Vec<PageRange>,
    pub class: Class,
    pub loadnshr: bool,
    pub rstd: bool,
    pub space: Option<String>,
    /// Guests that have it loaded (shared or nonshared).
    pub users: Vec<u32>,
    /// The shared copy's address space (None until first loaded).
    pub shared: Option<SpaceId>,
    /// Its pages were read from spool into the shared copy (by its first load).
    pub loaded: bool,
    /// Who created it (QUERY NSS's ORIGINID) and when it was created or, once saved, closed
    /// (seconds after IPL; its DATE and TIME).
    pub origin: String,
    pub stamp_s: f64,
}

impl NssFile {
    /// (first page, pages) of the megabyte-rounded extent.
    pub fn extent(&self) -> (u32, u32) {
        extent(&self.ranges)
    }
    /// Pages whose contents the spool file keeps (saved types), plus its descriptor page.
    pub fn spool_pages(&self) -> u64 {
        1 + self
            .ranges
            .iter()
            .filter(|r| r.ty.saved())
            .map(|r| r.pages() as u64)
            .sum::<u64>()
    }
    /// The type a segment loads as: its one type, or EW/EN-mixed ("EWEN") for a segment of
    /// exclusive writable ranges; None for another mixture (Linux cannot load it).
    pub fn load_type(&self) -> Option<&'static str> {
        let first = self.ranges.first()?.ty;
        if self.ranges.iter().all(|r| r.ty == first) {
            return Some(first.name());
        }
        self.ranges
            .iter()
            .all(|r| matches!(r.ty, PageType::Ew | PageType::En))
            .then_some("EW/EN-MIXED")
    }
    /// Every page exclusive: each user gets a copy of its own.
    pub fn exclusive(&self) -> bool {
        self.ranges.iter().all(|r| r.ty.exclusive())
    }
    /// Shared read-only (SR, ER, SC): backed by the spool file, never written.
    pub fn read_only(&self) -> bool {
        self.ranges.iter().all(|r| !r.ty.writable())
    }
    pub fn filetype(&self) -> &'static str {
        if self.space.is_some() {
            "DCSS-M"
        } else if self.ranges.iter().any(|r| r.end >= super::LIMIT_PAGES_OLD) {
            "DCSSG"
        } else {
            "DCSS"
        }
    }
}

/// The saved segments' system data files.
#[derive(Debug, Default)]
pub struct Segments {
    pub files: Vec<NssFile>,
    next_id: u32,
    /// Spool pages in use by the files, of `spool_pages` in all.
    pub spool_used: u64,
    pub spool_pages: u64,
}

impl Segments {
    pub fn new(spool_pages: u64) -> Self {
        Segments {
            files: Vec::new(),
            next_id: 0,
            spool_used: 0,
            spool_pages,
        }
    }

    /// The file users load: the available (or restricted) one of that name.
    pub fn active(&self, name: &str) -> Option<usize> {
        self.files
            .iter()
            .position(|f| f.name == name && matches!(f.class, Class::A | Class::R))
    }

    pub fn skeleton(&self, name: &str) -> Option<usize> {
        self.files
            .iter()
            .position(|f| f.name == name && f.class == Class::S)
    }

    pub fn by_id(&self, id: u32) -> Option<usize> {
        self.files.iter().position(|f| f.id == id)
    }

    /// DEFSEG: a new skeleton replaces one of the same name. Returns CP's response.
    pub fn define(
        &mut self,
        name: &str,
        ranges: Vec<PageRange>,
        loadnshr: bool,
        rstd: bool,
        space: Option<String>,
    ) -> Result<String, String> {
        if let Some(sp) = &space {
            let members = self
                .files
                .iter()
                .filter(|f| f.space.as_deref() == Some(sp.as_str()))
                .count();
            if members >= super::defseg::SPACE_MEMBERS {
                return Err(format!("HCPNSD003E Invalid option - {sp}"));
            }
        }
        if let Some(i) = self.skeleton(name) {
            self.remove(i);
        }
        self.next_id = self.next_id % 9999 + 1;
        while self.by_id(self.next_id).is_some() {
            self.next_id = self.next_id % 9999 + 1;
        }
        let id = self.next_id;
        self.files.push(NssFile {
            id,
            name: name.to_string(),
            ranges,
            class: Class::S,
            loadnshr,
            rstd,
            space,
            users: Vec::new(),
            shared: None,
            loaded: false,
            origin: String::new(),
            stamp_s: 0.0,
        });
        Ok(format!(
            "HCPNSD440I Saved segment {name} was successfully defined in fileid {id:04}."
        ))
    }

    /// The skeleton `name` was created by `origin` at `at_s` (seconds after IPL).
    pub fn stamp(&mut self, name: &str, origin: &str, at_s: f64) {
        if let Some(i) = self.skeleton(name) {
            self.files[i].origin = origin.to_string();
            self.files[i].stamp_s = at_s;
        }
    }

    /// Spool pages the skeleton `i` needs to be saved, or CP's refusal when the spool has
    /// not that much room.
    pub fn room_for(&self, i: usize) -> Result<u64, String> {
        let need = self.files[i].spool_pages();
        if self.spool_used + need > self.spool_pages {
            return Err(format!(
                "not simulated by zvmsim: SAVESEG {} (spool space full: {} pages needed, {} free)",
                self.files[i].name,
                need,
                self.spool_pages - self.spool_used
            ));
        }
        Ok(need)
    }

    /// SAVESEG completed for skeleton `i`: it becomes available (or restricted), the file it
    /// replaces is purged or, while in use, pending purge. Returns the space of a replaced file
    /// purged now (for the caller to discard) and CP's message. The file is closed at `at_s`
    /// (seconds after IPL), its date and time from then on.
    pub fn saved(&mut self, i: usize, at_s: f64) -> (Option<SpaceId>, String) {
        let name = self.files[i].name.clone();
        let mut freed = None;
        if let Some(old) = self.active(&name) {
            if self.files[old].users.is_empty() {
                freed = self.remove(old);
            } else {
                self.files[old].class = Class::P;
            }
        }
        let i = self.skeleton(&name).unwrap_or(i);
        self.spool_used += self.files[i].spool_pages();
        let f = &mut self.files[i];
        f.class = if f.rstd { Class::R } else { Class::A };
        f.stamp_s = at_s;
        (
            freed,
            format!(
                "HCPNSS440I Saved segment {} was successfully saved in fileid {:04}.",
                f.name, f.id
            ),
        )
    }

    /// Take file `i` out of the spool. Returns its shared space, if it had one.
    pub fn remove(&mut self, i: usize) -> Option<SpaceId> {
        let f = self.files.remove(i);
        if f.class != Class::S {
            self.spool_used -= f.spool_pages();
        }
        f.shared
    }

    /// PURGE NSS: a file nobody uses goes at once (its shared space returned); one in use
    /// becomes pending purge.
    pub fn purge(&mut self, i: usize) -> Option<SpaceId> {
        if self.files[i].users.is_empty() {
            self.remove(i)
        } else {
            self.files[i].class = Class::P;
            None
        }
    }

    /// Guest `g` released file `i`: a pending-purge file whose last user left goes, and so
    /// does the shared copy of a no-data-saved segment (SN pages vanish). Returns the shared
    /// space to discard, if any.
    pub fn release(&mut self, i: usize, g: u32) -> Option<SpaceId> {
        let f = &mut self.files[i];
        f.users.retain(|&u| u != g);
        if !f.users.is_empty() {
            return None;
        }
        if f.class == Class::P {
            return self.remove(i);
        }
        let keeps_data = f.ranges.iter().any(|r| r.ty.saved());
        if !keeps_data || f.read_only() {
            // SN/EN data is lost; a saved segment's pages are read again from spool.
            f.loaded = false;
            return f.shared.take();
        }
        None
    }
}
