//! CP's minidisk cache (MDC): whole 3390 tracks of minidisk data in CP-owned frames of central
//! storage, keyed by the REAL volume and track, so that every guest reading a shared minidisk
//! finds the copy another guest's read brought in. A read whose tracks are all cached
//! completes after CP's copy, with no real I/O (a "DASD avoid"); a miss reads the whole tracks
//! it touches from the real volume and inserts them when the read ends. Writes go through to
//! the volume (the cached copy is updated in place). The frames come off CP's available list
//! as a guest page's frame does, so a growing cache makes demand scan steal guest pages; the
//! arbiter (`arbiter`) gives frames back while guest pages are being stolen.
//!
//! Eligibility (IBM, z/VM performance tip "Minidisk Cache", vm.ibm.com/perf/tips/prgmdcar.html):
//! dedicated (attached) devices are not cached, nor minidisks over 32767 cylinders; virtual
//! HyperPAV alias reads bypass MDC (inference: CP runs them on real aliases as they come).
//! MDC in expanded storage is not simulated (its STORAGE part only). docs/mdc.md.

use crate::cp::mdcelig::{Eligibility, MdiskSetting};
use crate::cp::storage::{CpWork, Storage, NONE};

/// 4 KB records of a 3390 track (IBM 3390 reference: 12 records of 4096 bytes per track).
pub const TRACK_PAGES: u64 = 12;
/// Largest minidisk MDC caches, in cylinders (the performance tip above).
pub const MAX_CYLINDERS: u64 = 32767;
/// Tracks of a 3390 cylinder.
pub const CYL_TRACKS: u64 = 15;

/// What a read finds in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// Every track is cached: CP copies `pages` 4 KB pages into the guest's buffer.
    Hit,
    /// Read the whole tracks `block..block + pages` from the volume, then insert them.
    Miss { block: u64, pages: u32 },
    /// Not cached (MDC off, the volume not eligible): the read as the guest gave it.
    Bypass,
}

/// Cumulative counts since IPL.
#[derive(Debug, Default, Clone, Copy)]
pub struct MdcStats {
    /// Reads of eligible minidisks looked up while MDC was on, and those all in cache.
    pub reads: u64,
    pub hits: u64,
    /// Tracks inserted and dropped (replacement, the arbiter, SET MDCACHE).
    pub inserted: u64,
    pub dropped: u64,
    /// Writes to eligible minidisks (write-through).
    pub writes: u64,
    /// Frames the arbiter gave back to the available list.
    pub returned: u64,
}

pub struct Mdc {
    /// SET MDCACHE SYSTEM ON|OFF (ON at IPL, as z/VM's default).
    pub on: bool,
    /// SET MDCACHE STORAGE min max, in frames (default 0 and all of central storage).
    pub min_frames: u64,
    pub max_frames: u64,
    /// SET MDCACHE STORAGE BIAS: the weight the arbiter gives the cache (default 1).
    pub bias: f64,
    /// The arbiter's ceiling, in frames (at most `max_frames`).
    pub target: u64,
    /// Which minidisk extents of which real devices may be cached (cp/mdcelig.rs).
    pub elig: Eligibility,
    /// Per real device: its 4 KB blocks (to size its track index when first cacheable).
    vol_blocks: Vec<u64>,
    /// Per real device: track -> cache slot (NONE: not cached). Sized when made eligible.
    index: Vec<Vec<u32>>,
    slot_dev: Vec<u32>,
    slot_track: Vec<u32>,
    slot_ref: Vec<bool>,
    /// TRACK_PAGES frames per slot.
    frames: Vec<u32>,
    free: Vec<u32>,
    used: u64,
    hand: usize,
    /// The arbiter's period is running (started once some device is cacheable).
    pub arbiter_running: bool,
    /// Guest frames stolen up to the arbiter's last pass.
    steals_mark: u64,
    pub stats: MdcStats,
}

impl Mdc {
    pub fn new(central_frames: u64) -> Self {
        Mdc {
            on: true,
            min_frames: 0,
            max_frames: central_frames,
            bias: 1.0,
            target: central_frames,
            elig: Eligibility::default(),
            vol_blocks: Vec::new(),
            index: Vec::new(),
            slot_dev: Vec::new(),
            slot_track: Vec::new(),
            slot_ref: Vec::new(),
            frames: Vec::new(),
            free: Vec::new(),
            used: 0,
            hand: 0,
            arbiter_running: false,
            steals_mark: 0,
            stats: MdcStats::default(),
        }
    }

    /// Real device `dev` of `blocks` 4 KB blocks is one full-pack minidisk (the shared
    /// volumes of a scenario's `dasd` entries): MDC may cache it (`on`) when it has at most
    /// 32767 cylinders.
    pub fn set_eligible(&mut self, dev: u32, blocks: u64, on: bool) {
        let s = if on {
            MdiskSetting::Default
        } else {
            MdiskSetting::Off
        };
        self.add_minidisk(dev, blocks, 0, blocks, s);
    }

    /// A minidisk of `blocks` from block `start` of real device `dev` (`vol_blocks` in all),
    /// with its MINIOPT setting.
    pub fn add_minidisk(&mut self, dev: u32, vol: u64, start: u64, blocks: u64, s: MdiskSetting) {
        let d = dev as usize;
        if self.vol_blocks.len() <= d {
            self.vol_blocks.resize(d + 1, 0);
            self.index.resize(d + 1, Vec::new());
        }
        self.vol_blocks[d] = vol;
        self.elig.add(dev, start, blocks, s);
        self.refresh(dev);
    }

    /// After a setting changed: size the track index of a newly cacheable device; drop the
    /// cached tracks no longer eligible.
    pub fn refresh(&mut self, dev: u32) {
        let d = dev as usize;
        if d >= self.index.len() {
            return;
        }
        if self.elig.device(dev) && self.index[d].is_empty() {
            self.index[d] = vec![NONE; self.vol_blocks[d].div_ceil(TRACK_PAGES) as usize];
        }
    }

    /// Drop the tracks of `dev` its minidisks' settings no longer let the cache keep.
    pub fn drop_ineligible(&mut self, dev: u32, st: &mut Storage) {
        for s in 0..self.slot_dev.len() {
            if self.slot_dev[s] == dev {
                let t = self.slot_track[s] as u64;
                if !self.elig.read(dev, t * TRACK_PAGES, TRACK_PAGES) {
                    self.drop_slot(s, st);
                }
            }
        }
    }

    pub fn eligible(&self, dev: u32) -> bool {
        self.elig.device(dev)
    }

    /// Any device MDC may cache (the arbiter runs only then).
    pub fn any_eligible(&self) -> bool {
        (0..self.vol_blocks.len() as u32).any(|d| self.elig.device(d))
    }

    /// Frames the cache holds.
    pub fn frames_used(&self) -> u64 {
        self.used * TRACK_PAGES
    }

    fn tracks(&self, dev: u32, block: u64, pages: u32) -> Option<(u64, u64)> {
        let ix = &self.index[dev as usize];
        let t0 = block / TRACK_PAGES;
        let t1 = (block + pages.max(1) as u64 - 1) / TRACK_PAGES;
        (t1 < ix.len() as u64).then_some((t0, t1))
    }

    /// A read of `pages` blocks from `block` on real device `dev`.
    pub fn lookup(&mut self, dev: u32, block: u64, pages: u32) -> Lookup {
        if !self.on || !self.elig.read(dev, block, pages as u64) {
            return Lookup::Bypass;
        }
        let Some((t0, t1)) = self.tracks(dev, block, pages) else {
            return Lookup::Bypass;
        };
        self.stats.reads += 1;
        let ix = &self.index[dev as usize];
        if (t0..=t1).all(|t| ix[t as usize] != NONE) {
            for t in t0..=t1 {
                let s = self.index[dev as usize][t as usize];
                self.slot_ref[s as usize] = true;
            }
            self.stats.hits += 1;
            return Lookup::Hit;
        }
        Lookup::Miss {
            block: t0 * TRACK_PAGES,
            pages: ((t1 - t0 + 1) * TRACK_PAGES) as u32,
        }
    }

    /// A write to an eligible minidisk: through to the volume; a cached track is updated in
    /// place (no state changes).
    pub fn write(&mut self, dev: u32) {
        if self.on && self.eligible(dev) {
            self.stats.writes += 1;
        }
    }

    /// The read of whole tracks `block..block + pages` of `dev` ended: insert those not cached,
    /// each in TRACK_PAGES frames taken off the available list (CP's frame requests, so demand
    /// scan may steal guest pages for them), replacing the least recently used tracks beyond
    /// the ceiling.
    pub fn insert(&mut self, dev: u32, block: u64, pages: u32, st: &mut Storage, cp: &mut CpWork) {
        if !self.on || !self.elig.read(dev, block, pages as u64) {
            return;
        }
        let Some((t0, t1)) = self.tracks(dev, block, pages) else {
            return;
        };
        let ceiling = self.target.min(self.max_frames);
        for t in t0..=t1 {
            if self.index[dev as usize][t as usize] != NONE {
                continue;
            }
            while self.frames_used() + TRACK_PAGES > ceiling && self.used > 0 {
                self.evict(st);
            }
            if self.frames_used() + TRACK_PAGES > ceiling {
                return;
            }
            let s = match self.free.pop() {
                Some(s) => s,
                None => {
                    self.slot_dev.push(NONE);
                    self.slot_track.push(NONE);
                    self.slot_ref.push(false);
                    self.frames
                        .extend(std::iter::repeat(NONE).take(TRACK_PAGES as usize));
                    (self.slot_dev.len() - 1) as u32
                }
            };
            let si = s as usize;
            for k in 0..TRACK_PAGES as usize {
                self.frames[si * TRACK_PAGES as usize + k] = st.take_cp_frame(cp);
            }
            self.slot_dev[si] = dev;
            self.slot_track[si] = t as u32;
            self.slot_ref[si] = true;
            self.index[dev as usize][t as usize] = s;
            self.used += 1;
            self.stats.inserted += 1;
        }
    }

    /// Drop one track, the next unreferenced one under the clock hand; its frames go back to
    /// the available list.
    fn evict(&mut self, st: &mut Storage) {
        let n = self.slot_dev.len();
        loop {
            let s = self.hand;
            self.hand = (self.hand + 1) % n;
            if self.slot_dev[s] == NONE {
                continue;
            }
            if self.slot_ref[s] {
                self.slot_ref[s] = false;
                continue;
            }
            self.drop_slot(s, st);
            return;
        }
    }

    fn drop_slot(&mut self, s: usize, st: &mut Storage) {
        let (d, t) = (self.slot_dev[s] as usize, self.slot_track[s] as usize);
        self.index[d][t] = NONE;
        for k in 0..TRACK_PAGES as usize {
            let f = std::mem::replace(&mut self.frames[s * TRACK_PAGES as usize + k], NONE);
            st.give_cp_frame(f);
        }
        self.slot_dev[s] = NONE;
        self.slot_ref[s] = false;
        self.free.push(s as u32);
        self.used -= 1;
        self.stats.dropped += 1;
    }

    /// Shrink to at most `frames` (SET MDCACHE, the arbiter).
    fn shrink_to(&mut self, frames: u64, st: &mut Storage) -> u64 {
        let before = self.frames_used();
        while self.frames_used() > frames && self.used > 0 {
            self.evict(st);
        }
        before - self.frames_used()
    }

    /// Drop every cached track (SET MDCACHE SYSTEM OFF, a device made ineligible).
    pub fn flush(&mut self, dev: Option<u32>, st: &mut Storage) {
        for s in 0..self.slot_dev.len() {
            let d = self.slot_dev[s];
            if d != NONE && dev.map_or(true, |x| x == d) {
                self.drop_slot(s, st);
            }
        }
    }

    /// SET MDCACHE STORAGE min max (frames): a cache above the new maximum shrinks at once.
    pub fn set_storage(&mut self, min: u64, max: u64, st: &mut Storage) {
        self.min_frames = min;
        self.max_frames = max;
        self.target = self.target.clamp(min, max);
        self.shrink_to(max, st);
    }

    /// The arbiter's pass, every `[model] mdc_arbiter_period`: while demand scan steals guest
    /// pages, the cache gives back `return_share / bias` frames per frame stolen since the
    /// last pass (not below its minimum); with no steals its ceiling goes back to its maximum.
    /// Inference (IBM publishes no formula): z/VM's arbiter balances the cache against
    /// paging; BIAS weights the cache's side.
    pub fn arbiter(&mut self, st: &mut Storage, return_share: f64) {
        let steals = st.moved.steals;
        let stolen = steals - self.steals_mark.min(steals);
        self.steals_mark = steals;
        if stolen == 0 {
            self.target = self.max_frames;
            return;
        }
        let give = (stolen as f64 * return_share / self.bias.max(1e-3)) as u64;
        self.target = self
            .frames_used()
            .saturating_sub(give)
            .max(self.min_frames)
            .min(self.max_frames);
        let n = self.shrink_to(self.target, st);
        self.stats.returned += n;
    }

    /// For tests: the index and the slots agree, and the cache's frame count.
    pub fn check(&self) -> Result<(), String> {
        let mut n = 0u64;
        for (d, ix) in self.index.iter().enumerate() {
            for (t, &s) in ix.iter().enumerate() {
                if s == NONE {
                    continue;
                }
                n += 1;
                let si = s as usize;
                if self.slot_dev[si] as usize != d || self.slot_track[si] as usize != t {
                    return Err(format!(
                        "MDC slot {s} does not point back to track {t} of {d}"
                    ));
                }
            }
        }
        if n != self.used {
            return Err(format!(
                "MDC tracks indexed {n} != tracks in use {}",
                self.used
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "mdc_tests.rs"]
mod tests;
