//! Large arrays the hot loop reads at random (a page word, a block's buffer) in memory mapped
//! with transparent huge pages where the kernel offers them: one TLB entry then covers 2 MB
//! instead of 4 KB, so a random reference costs one cache miss rather than a miss and a page
//! walk. Elsewhere, or if the kernel refuses, the array is ordinary memory; results never
//! depend on which.

use std::ops::{Deref, DerefMut};

/// Arrays smaller than this stay ordinary vectors (a few huge pages at most would be saved).
const MIN_BYTES: usize = 8 << 20;

pub struct HugeArray<T: bytemuck::Pod> {
    map: Option<memmap2::MmapMut>,
    vec: Vec<T>,
    len: usize,
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
        }
    }
}

impl<T: bytemuck::Pod> HugeArray<T> {
    /// Grows or shrinks to `len`, new entries `value`.
    pub fn resize(&mut self, len: usize, value: T) {
        if self.map.is_none() && len * std::mem::size_of::<T>() < MIN_BYTES {
            self.vec.resize(len, value);
            self.len = len;
            return;
        }
        let mut next = HugeArray::filled(len, value);
        let keep = len.min(self.len);
        next[..keep].copy_from_slice(&self[..keep]);
        *self = next;
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
        }
    }
}
