//! Software prefetch. The hot loop is bound by memory latency: each page reference and each
//! buffer-pool lookup is a random index into an array of hundreds of megabytes. A workload
//! that knows its next references asks for their cache lines early, so that the misses overlap
//! with the work in between instead of following one another.

/// Ask for the cache line of `slice[i]` (nothing when `i` is out of range).
#[inline(always)]
pub fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < slice.len() {
        let p = slice.as_ptr().wrapping_add(i).cast::<i8>();
        // SAFETY: PREFETCHT0 is a hint: it never faults, reads nothing into a register and
        // changes no architectural state; `p` points into `slice` besides.
        #[allow(unsafe_code)]
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}
