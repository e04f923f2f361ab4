//! Monotone radix heaps with `2^BITS`-ary digits (`gen_radix*`): the digit
//! sizes measured against the chosen [`EventQueue`]'s 64-ary digits.
//!
//! [`EventQueue`]: zvmsim_core::engine::queue::EventQueue

use super::QueueImpl;

// ---------------------------------------------------------------------------
// Radix heaps with 2^BITS-ary digits.
// ---------------------------------------------------------------------------

/// Monotone radix heap with `2^BITS`-ary digits (`BITS` in 1..=8).
///
/// Let `last` be the last popped time.  An event with time `t` whose
/// `t ^ last` has its most significant bit at level `L = msb / BITS >= 1` is
/// filed in bucket `(L, digit_L(t))` together with its time; the bucket
/// minima are maintained on insertion.  Level 0 (same high part as `last`)
/// is a direct-mapped calendar of `2^BITS` payload FIFOs, one per time value:
/// popping walks it by its occupancy bitmap, and only when it is empty is the
/// lowest non-empty bucket redistributed (around its minimum, into strictly
/// lower levels).  An event moves at most once per level.  As in every bucket
/// the order is insertion order, FIFO among equal times needs no sequence
/// number.
///
/// This is the plain form used to compare digit sizes (`BITS = 1` is the
/// classic binary radix heap).  [`EventQueue`] is the same scheme with
/// `BITS = 6`, fixed-size arrays and bounded memory: here every bucket keeps
/// the largest capacity it ever had (measured: ~140 MB retained for 100k
/// pending events in the hold model), and a level-0 FIFO that keeps receiving
/// events at the current time never releases its popped prefix.
///
/// [`EventQueue`]: zvmsim_core::engine::queue::EventQueue
#[derive(Debug, Clone)]
pub struct RadixHeapQueue<const BITS: u32> {
    l0: Vec<Vec<u64>>,
    l0_mask: [u64; 4],
    head: usize,
    buckets: Vec<Vec<(u64, u64)>>,
    bmin: Vec<u64>,
    dmask: Vec<[u64; 4]>,
    level_mask: u64,
    last: u64,
    len: usize,
}

#[inline(always)]
fn lowest_bit(m: &[u64; 4], words: usize) -> Option<usize> {
    for (w, &x) in m.iter().enumerate().take(words) {
        if x != 0 {
            return Some(w * 64 + x.trailing_zeros() as usize);
        }
    }
    None
}

impl<const BITS: u32> RadixHeapQueue<BITS> {
    const D: usize = 1 << BITS;
    const W: usize = Self::D.div_ceil(64);
    const LEVELS: usize = 64usize.div_ceil(BITS as usize);

    #[inline(always)]
    fn file(&mut self, t: u64, p: u64) {
        let x = t ^ self.last;
        if x >> BITS == 0 {
            let d = t as usize & (Self::D - 1);
            self.l0[d].push(p);
            self.l0_mask[d >> 6] |= 1u64 << (d & 63);
        } else {
            let l = ((63 - x.leading_zeros()) / BITS) as usize;
            let d = (t >> (l as u32 * BITS)) as usize & (Self::D - 1);
            let i = l * Self::D + d;
            self.buckets[i].push((t, p));
            self.bmin[i] = self.bmin[i].min(t);
            self.dmask[l][d >> 6] |= 1u64 << (d & 63);
            self.level_mask |= 1u64 << l;
        }
    }

    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let l = self.level_mask.trailing_zeros() as usize;
        let d = lowest_bit(&self.dmask[l], Self::W).unwrap_or(0);
        self.dmask[l][d >> 6] &= !(1u64 << (d & 63));
        if self.dmask[l] == [0; 4] {
            self.level_mask &= !(1u64 << l);
        }
        let i = l * Self::D + d;
        let mut src = std::mem::take(&mut self.buckets[i]);
        self.last = self.bmin[i];
        self.bmin[i] = u64::MAX;
        for &(t, p) in &src {
            self.file(t, p);
        }
        src.clear();
        self.buckets[i] = src;
    }
}

impl<const BITS: u32> Default for RadixHeapQueue<BITS> {
    fn default() -> Self {
        <Self as QueueImpl>::with_capacity(0)
    }
}

impl<const BITS: u32> QueueImpl for RadixHeapQueue<BITS> {
    const NAME: &'static str = match BITS {
        1 => "gen_radix2",
        2 => "gen_radix4",
        3 => "gen_radix8",
        4 => "gen_radix16",
        5 => "gen_radix32",
        6 => "gen_radix64",
        7 => "gen_radix128",
        8 => "gen_radix256",
        _ => panic!("RadixHeapQueue: BITS must be in 1..=8"),
    };
    fn with_capacity(n: usize) -> Self {
        let nb = Self::LEVELS * Self::D;
        let per = n.div_ceil(64).min(1 << 8);
        Self {
            l0: (0..Self::D).map(|_| Vec::with_capacity(per)).collect(),
            l0_mask: [0; 4],
            head: 0,
            buckets: (0..nb).map(|_| Vec::with_capacity(per)).collect(),
            bmin: vec![u64::MAX; nb],
            dmask: vec![[0; 4]; Self::LEVELS],
            level_mask: 0,
            last: 0,
            len: 0,
        }
    }
    #[inline]
    fn push(&mut self, time: u64, payload: u64) {
        debug_assert!(time >= self.last, "push earlier than last popped time");
        self.len += 1;
        self.file(time, payload);
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, u64)> {
        let d = match lowest_bit(&self.l0_mask, Self::W) {
            Some(d) => d,
            None => {
                if self.len == 0 {
                    return None;
                }
                self.refill();
                lowest_bit(&self.l0_mask, Self::W)?
            }
        };
        let t = (self.last & !(Self::D as u64 - 1)) | d as u64;
        self.last = t;
        let b = &mut self.l0[d];
        let p = b[self.head];
        self.head += 1;
        if self.head == b.len() {
            b.clear();
            self.head = 0;
            self.l0_mask[d >> 6] &= !(1u64 << (d & 63));
        }
        self.len -= 1;
        Some((t, p))
    }
    #[inline]
    fn peek_time(&self) -> Option<u64> {
        if let Some(d) = lowest_bit(&self.l0_mask, Self::W) {
            Some((self.last & !(Self::D as u64 - 1)) | d as u64)
        } else if self.level_mask != 0 {
            let l = self.level_mask.trailing_zeros() as usize;
            let d = lowest_bit(&self.dmask[l], Self::W)?;
            Some(self.bmin[l * Self::D + d])
        } else {
            None
        }
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    fn clear(&mut self) {
        for b in &mut self.l0 {
            b.clear();
        }
        self.l0_mask = [0; 4];
        self.head = 0;
        for b in &mut self.buckets {
            b.clear();
        }
        self.bmin.fill(u64::MAX);
        self.dmask.fill([0; 4]);
        self.level_mask = 0;
        self.last = 0;
        self.len = 0;
    }
}
