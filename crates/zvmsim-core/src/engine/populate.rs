//! Clearing memory on the idle core. The first write to a never-used part of a huge array
//! (a guest's page words, as its Linux first hands out a page) makes the kernel clear a 2 MB
//! huge page on the simulating thread: half a second of a ten-guest study run on a virtual
//! machine. A `Background` worker asks the kernel to make such ranges resident ahead of the
//! writes (`MADV_POPULATE_WRITE`), on a thread of its own, while the simulation steps on the
//! other core. Populating changes no value (the memory reads zero before and after), so
//! results never depend on whether, or when, the worker got there.

use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// A thread that populates the byte ranges it is sent, one after another.
pub(crate) struct Background {
    tx: Sender<(usize, usize)>,
    worker: JoinHandle<()>,
}

impl Background {
    pub(crate) fn spawn() -> Option<Self> {
        let (tx, rx) = channel::<(usize, usize)>();
        let worker = std::thread::Builder::new()
            .name("zvmsim-populate".into())
            .spawn(move || {
                while let Ok((addr, len)) = rx.recv() {
                    populate_write(addr, len);
                }
            })
            .ok()?;
        Some(Background { tx, worker })
    }

    /// Queue `len` bytes from `addr` (page aligned, inside a mapping that outlives this
    /// worker: the owner calls `finish` before unmapping).
    pub(crate) fn send(&self, addr: usize, len: usize) {
        let _ = self.tx.send((addr, len));
    }

    /// Wait until every range sent is done and the thread has ended.
    pub(crate) fn finish(self) {
        drop(self.tx);
        let _ = self.worker.join();
    }
}

#[cfg(target_os = "linux")]
fn populate_write(addr: usize, len: usize) {
    // SAFETY: madvise reads and writes no memory of ours. MADV_POPULATE_WRITE faults the
    // range's pages in writable, as a write would, without writing: a page already present
    // keeps its contents, a new one reads zero as the untouched page did, so the simulating
    // thread, which may be using the same pages, sees no change. The range lies in a
    // mapping its owner keeps until this worker has finished (HugeArray's drop and resize);
    // a failure (an old kernel: EINVAL) leaves everything as it was.
    #[allow(unsafe_code)]
    unsafe {
        libc::madvise(addr as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn populate_write(_addr: usize, _len: usize) {}
