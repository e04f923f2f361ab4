//! Consistency checks of CP's storage bookkeeping, for the tests: every page in one place (plus
//! the allowed frame-and-slot copy), every counter equal to the sum over pages, frames and
//! slots conserved.

use super::{Storage, CHANGED, CP_OWNED, FRAMES_BELOW_2G, NONE};

impl Storage {
    /// Checks that every page is in exactly one place (plus the allowed frame-and-slot copy)
    /// and that the counters equal the sums over pages. For tests; O(pages + frames).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut res = 0u64;
        let mut xs = 0u64;
        let mut sl = 0u64;
        let ng = self.space_resident.len();
        let mut per = vec![[0u64; 4]; ng];
        for i in 0..self.pg.len() {
            // A page on the aging list holds its frame as a valid page does.
            let f = self.held_frame(i).unwrap_or(NONE);
            let (x, s) = (self.xstor_block(i), self.slot(i));
            let places = (f != NONE) as u32 + (x != NONE) as u32 + (s != NONE) as u32;
            if places > 1 && !(places == 2 && f != NONE && s != NONE) {
                return Err(format!(
                    "page {i} in {places} places (frame {f}, xstor {x}, slot {s})"
                ));
            }
            let stale_ok = self.p.keep_stale_slots && f != NONE;
            if s != NONE && self.pg[i] & CHANGED != 0 && !stale_ok {
                return Err(format!("page {i} is changed and keeps slot {s} while out of storage or with stale slots off"));
            }
            if f != NONE {
                res += 1;
                if self.fr_page.get(f) != i as u32 {
                    return Err(format!("frame {f} does not point back to page {i}"));
                }
            }
            if x != NONE {
                xs += 1;
                if self.xstor.owner(x) != i as u32 {
                    return Err(format!("xstor block {x} does not point back to page {i}"));
                }
            }
            if s != NONE {
                sl += 1;
                if !self.slot_page[s as usize] != i as u32 {
                    return Err(format!("slot {s} does not point back to page {i}"));
                }
            }
            let c = &mut per[self.space_of(i as u32)];
            c[0] += (f != NONE) as u64;
            c[1] += (f != NONE && f < FRAMES_BELOW_2G) as u64;
            c[2] += (x != NONE) as u64;
            c[3] += (s != NONE) as u64;
        }
        for (g, c) in per.iter().enumerate() {
            let kept = [
                self.space_resident[g],
                self.space_below[g],
                self.space_xstor[g],
                self.space_slots[g],
            ];
            if *c != kept {
                return Err(format!(
                    "space {g}: resident, below 2 GB, XSTOR, slots counted {kept:?}, summed over pages {c:?}"
                ));
            }
        }
        let mut states = vec![(0u64, 0u64); ng];
        for i in 0..self.pg.len() {
            let c = &mut states[self.space_of(i as u32)];
            match self.guest_state(i) {
                super::cmma::UNUSED => c.0 += 1,
                super::cmma::VOLATILE => c.1 += 1,
                _ => {}
            }
        }
        for (g, &(u, v)) in states.iter().enumerate() {
            let c = self.cmma[g];
            if (c.unused, c.volatile) != (u, v) {
                return Err(format!(
                    "space {g}: CMMA unused/volatile counted {}/{}, summed over pages {u}/{v}",
                    c.unused, c.volatile
                ));
            }
        }
        // A used page always has a place (pages released by DIAGNOSE X'10' are unused again),
        // but for those a PGT004 abend without any paging space stopped between two places.
        let placed = (0..self.pg.len())
            .filter(|&i| {
                self.held_frame(i).is_some() || self.xstor_block(i) != NONE || self.slot(i) != NONE
            })
            .count() as u64;
        if placed + self.lost_at_abend != self.touched {
            return Err(format!(
                "pages used {} != pages with a place {placed} (+ {} at the abend)",
                self.touched, self.lost_at_abend
            ));
        }
        if res != self.resident || xs != self.on_xstor || sl != self.on_slot {
            return Err(format!(
                "counters: resident {}/{res}, xstor {}/{xs}, slots {}/{sl}",
                self.resident, self.on_xstor, self.on_slot
            ));
        }
        let owned = self.fr_page.iter().filter(|&p| p < CP_OWNED).count() as u64;
        if owned != res {
            return Err(format!(
                "frames owned by pages {owned} != resident pages {res}"
            ));
        }
        let free = self.fr_page.iter().filter(|&p| p == NONE).count() as u64;
        let cp = self.fr_page.iter().filter(|&p| p == CP_OWNED).count() as u64;
        if free + cp + owned != self.fr_page.len() as u64 {
            return Err("frames not conserved".into());
        }
        let live = self.slot_page.iter().filter(|&&e| e != 0).count() as u64;
        if live != sl {
            return Err(format!("slots holding a page {live} != slots in use {sl}"));
        }
        for (v, &used) in self.vol_used.iter().enumerate() {
            let b = self.block as usize;
            let (lo, hi) = (
                self.vol_group_base[v] as usize,
                self.vol_group_base[v + 1] as usize,
            );
            let held = self.slot_page[lo * b..hi * b]
                .iter()
                .filter(|&&e| e != 0)
                .count();
            if held as u64 != used {
                return Err(format!(
                    "paging volume {v}: {used} slots counted used, {held} hold a page"
                ));
            }
        }
        let lo: u64 = self.lo_free.iter().map(|w| w.count_ones() as u64).sum();
        if lo != self.lo_free_count {
            return Err(format!(
                "free frames below 2 GB: counter {} != bitmap {lo}",
                self.lo_free_count
            ));
        }
        self.check_agelist()?;
        self.check_segments()?;
        if self.xstor.used() != xs {
            return Err(format!(
                "xstor used {} != pages in xstor {xs}",
                self.xstor.used()
            ));
        }
        Ok(())
    }
}
