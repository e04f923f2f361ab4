//! Large arrays the hot loop reads at random (a page word, a block's buffer) in memory mapped
//! with transparent huge pages where the kernel offers them: one TLB entry then covers 2 MB
//! instead of 4 KB, so a random reference costs one cache miss rather than a miss and a page
//! walk. Elsewhere, or if the kernel refuses, the array is ordinary memory; results never
//! depend on which.

use super::populate::Background;
use std::ops::{Deref, DerefMut};

/// Arrays smaller than this stay ordinary vectors (a few huge pages at most would be saved).
const MIN_BYTES: usize = 8 << 20;
/// The host's page (a mapping starts on one): the unit of memory a write makes resident.
const PAGE: usize = 4096;

pub struct HugeArray<T: bytemuck::Pod> {
    map: Option<memmap2::MmapMut>,
    vec: Vec<T>,
    len: usize,
    /// The thread clearing memory ahead of first writes (`populate_later`), if started.
    bg: Option<Background>,
}

impl<T: bytemuck::Pod> HugeArray<T> {
    /// `len` copies of `value`.
    pub fn filled(len: usize, value: T) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        if bytes >= MIN_BYTES {
            if let Ok(map) = memmap2::MmapMut::map_anon(bytes) {
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                let mut a = HugeArray {
                    map: Some(map),
                    vec: Vec::new(),
                    len,
                    bg: None,
                };
                if bytemuck::bytes_of(&value).iter().any(|&b| b != 0) {
                    a.fill(value);
                }
                return a;
            }
        }
        HugeArray {
            map: None,
            vec: vec![value; len],
            len,
            bg: None,
        }
    }
}

impl<T: bytemuck::Pod> HugeArray<T> {
    /// Grows or shrinks to `len`, new entries `value`. Into a new zeroed mapping only the
    /// pages holding something other than zero are copied: a zero page copied would be a page
    /// of memory written, and arrays whose unused entries are zero (the page word) cost
    /// memory only for what is used, before a resize and after it.
    pub fn resize(&mut self, len: usize, value: T) {
        if self.map.is_none() && len * std::mem::size_of::<T>() < MIN_BYTES {
            self.vec.resize(len, value);
            self.len = len;
            return;
        }
        let mut next = HugeArray::filled(len, value);
        let keep = len.min(self.len);
        let zeroed = next.map.is_some() && bytemuck::bytes_of(&value).iter().all(|&b| b == 0);
        if zeroed {
            let from: &[u8] = bytemuck::cast_slice(&self[..keep]);
            let to: &mut [u8] = bytemuck::cast_slice_mut(&mut next[..keep]);
            for (t, f) in to.chunks_mut(PAGE).zip(from.chunks(PAGE)) {
                if f.iter().any(|&b| b != 0) {
                    t.copy_from_slice(f);
                }
            }
        } else {
            next[..keep].copy_from_slice(&self[..keep]);
        }
        *self = next;
    }
}

impl<T: bytemuck::Pod> HugeArray<T> {
    /// Has the kernel make the memory of entries `range` resident now (zeroed, as a first
    /// write would), so that the cost of clearing it can be paid on another thread before
    /// the entries are written. The values never change; a hint only (ordinary memory, or a
    /// kernel without `MADV_POPULATE_WRITE`, does nothing).
    pub fn populate(&self, range: std::ops::Range<usize>) {
        #[cfg(target_os = "linux")]
        if let (Some(m), Some((lo, len))) = (&self.map, self.span(range)) {
            let _ = m.advise_range(memmap2::Advice::PopulateWrite, lo, len);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = range;
    }

    /// As `populate`, but on a thread of its own (engine/populate.rs), so that the caller
    /// goes on at once: for memory about to be written for the first time.
    pub fn populate_later(&mut self, range: std::ops::Range<usize>) {
        let Some((lo, len)) = self.span(range) else {
            return;
        };
        if self.bg.is_none() {
            self.bg = Background::spawn();
        }
        if let (Some(bg), Some(m)) = (&self.bg, &self.map) {
            bg.send(m.as_ptr() as usize + lo, len);
        }
    }

    /// The mapping's bytes holding entries `range`, widened to whole host pages: (offset,
    /// length), or None for ordinary memory or an empty range.
    fn span(&self, range: std::ops::Range<usize>) -> Option<(usize, usize)> {
        let m = self.map.as_ref()?;
        let size = std::mem::size_of::<T>();
        let lo = (range.start.min(self.len) * size) / PAGE * PAGE;
        let hi = (range.end.min(self.len) * size).div_ceil(PAGE) * PAGE;
        let hi = hi.min(m.len());
        (lo < hi).then_some((lo, hi - lo))
    }
}

impl<T: bytemuck::Pod> Drop for HugeArray<T> {
    /// The populating thread ends before the mapping goes.
    fn drop(&mut self) {
        if let Some(bg) = self.bg.take() {
            bg.finish();
        }
    }
}

impl<T: bytemuck::Pod> Deref for HugeArray<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match &self.map {
            Some(m) => &bytemuck::cast_slice(&m[..])[..self.len],
            None => &self.vec,
        }
    }
}

impl<T: bytemuck::Pod> DerefMut for HugeArray<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.map {
            Some(m) => &mut bytemuck::cast_slice_mut(&mut m[..])[..self.len],
            None => &mut self.vec,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_and_plain_arrays_hold_the_same_values() {
        for len in [3usize, (MIN_BYTES / 4) + 5] {
            let mut a = HugeArray::filled(len, 7u32);
            assert_eq!((a.len(), a[0], a[len - 1]), (len, 7, 7));
            a[1] = 9;
            a.resize(len + 2, 5);
            assert_eq!((a.len(), a[1], a[len - 1], a[len + 1]), (len + 2, 9, 7, 5));
            let z = HugeArray::filled(len, 0u32);
            assert!(z.iter().all(|&x| x == 0));
            let mut z = HugeArray::filled(len, 0u32);
            z[len / 2] = 3;
            z.resize(len + 1, 0);
            assert_eq!(
                (z[len / 2 - 1], z[len / 2], z[len / 2 + 1], z[len]),
                (0, 3, 0, 0)
            );
            assert_eq!(z.iter().filter(|&&x| x != 0).count(), 1);
        }
    }

    /// Resident memory of the mapping holding `p`, in kB (/proc/self/smaps).
    #[cfg(target_os = "linux")]
    fn rss_kb(p: *const u8) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) =
                        (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                    {
                        inside = (a..b).contains(&(p as usize));
                        continue;
                    }
                }
            }
            if inside {
                if let Some(kb) = line.strip_prefix("Rss:") {
                    return kb.trim().trim_end_matches("kB").trim().parse().expect("kB");
                }
            }
        }
        panic!("no mapping holds the array")
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn growing_a_zeroed_array_writes_only_its_used_pages() {
        // 64 MB of page words, one used: after growing, a few pages resident, not the 64 MB a
        // full copy would write. How many depends on the host's transparent huge pages (the
        // kernel may back the used word and the new tail with 2 MB pages, and khugepaged may
        // collapse more): up to 8 MB and a few pages were seen, so the bound is a quarter.
        let len = 8 << 20;
        let mut a = HugeArray::filled(len, 0u64);
        a[len / 2] = 1;
        a.resize(len + 4096, 0);
        assert!(a.map.is_some());
        assert_eq!(a[len / 2], 1);
        let kb = rss_kb(a.as_ptr() as *const u8);
        assert!(kb <= 16 << 10, "{kb} kB resident after growing");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn populating_makes_memory_resident_and_changes_no_value() {
        // 32 MB of words: populating the second quarter (8 MB) makes it resident; the values
        // stay, zero or written.
        let len = 4 << 20;
        let mut a = HugeArray::filled(len, 0u64);
        a[len / 4 + 7] = 9;
        let before = rss_kb(a.as_ptr() as *const u8);
        a.populate(len / 4..len / 2);
        let after = rss_kb(a.as_ptr() as *const u8);
        assert!(after >= 8 << 10, "{before} kB, then {after} kB");
        assert_eq!(a[len / 4 + 7], 9);
        assert_eq!(a.iter().filter(|&&x| x != 0).count(), 1);
        // Ranges past the end are cut to it.
        a.populate(len - 3..len + 100);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn populating_later_makes_memory_resident_and_changes_no_value() {
        // 32 MB of words: the second quarter is populated on the worker while this thread
        // writes three entries (two in the quarter): at most three huge pages, 6 MB, would be
        // resident without the worker. Once it is done, the quarter's 8 MB are, and every
        // value is the one written.
        let len = 4 << 20;
        let mut a = HugeArray::filled(len, 0u64);
        a.populate_later(len / 4..len / 2);
        let written = [len / 4 + 5, len / 2 - 9, len - 1];
        for &i in &written {
            a[i] = i as u64;
        }
        a.bg.take().expect("a worker").finish();
        let kb = rss_kb(a.as_ptr() as *const u8);
        assert!(kb >= 8 << 10, "{kb} kB resident");
        for (i, &x) in a.iter().enumerate() {
            let want = if written.contains(&i) { i as u64 } else { 0 };
            assert_eq!(x, want, "entry {i}");
        }
        // Ordinary memory asks for nothing.
        let mut v = HugeArray::filled(16, 0u64);
        v.populate_later(0..16);
        assert!(v.bg.is_none());
    }
}
