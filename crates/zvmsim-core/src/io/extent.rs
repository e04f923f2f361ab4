//! Extent conflicts in the control unit. An ECKD channel program opens with Define Extent:
//! the tracks it may touch (Linux's DASD driver: from the request's first track to its last,
//! and in sequential-access caching mode further, by `tunedasd -n` cylinders: the request's
//! `reach`) and whether it may write. A control unit runs channel programs of one volume side by side
//! (PAV: base and aliases) unless their extents overlap and one of them may write; then the
//! later one waits until the earlier has ended (and a read arriving after a waiting writer
//! waits too). Sequential writes in requests that do not end on a track boundary share a
//! track with the next request, so through several paths they run one after another.

use super::cache::BLOCKS_PER_TRACK;

#[derive(Debug, Clone, Copy)]
struct Running {
    first: u64,
    last: u64,
    write: bool,
    end: u64,
}

/// The channel programs of one volume running in the control unit.
#[derive(Debug, Clone, Default)]
pub struct Extents {
    running: Vec<Running>,
    /// Channel programs that waited for a conflicting one, and their total wait.
    pub waits: u64,
    pub wait_ns: u64,
}

/// The Define Extent of `pages` at `block` reaching `reach` tracks past the data.
fn tracks(block: u64, pages: u32, reach: u32) -> (u64, u64) {
    (
        block / BLOCKS_PER_TRACK,
        (block + pages.max(1) as u64 - 1) / BLOCKS_PER_TRACK + reach as u64,
    )
}

impl Extents {
    /// A channel program for `pages` at `block` reaches the control unit at `at`: returns
    /// when the control unit starts it.
    pub fn admit(&mut self, at: u64, block: u64, pages: u32, reach: u32, write: bool) -> u64 {
        self.running.retain(|r| r.end > at);
        let (first, last) = tracks(block, pages, reach);
        let start = self
            .running
            .iter()
            .filter(|r| (write || r.write) && r.first <= last && first <= r.last)
            .map(|r| r.end)
            .max()
            .unwrap_or(at)
            .max(at);
        if start > at {
            self.waits += 1;
            self.wait_ns += start - at;
        }
        start
    }

    /// The channel program admitted last runs until `end`.
    pub fn running(&mut self, block: u64, pages: u32, reach: u32, write: bool, end: u64) {
        let (first, last) = tracks(block, pages, reach);
        self.running.push(Running {
            first,
            last,
            write,
            end,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_sharing_a_track_run_one_after_another_reads_side_by_side() {
        let mut e = Extents::default();
        // 31 blocks from block 0: tracks 0-2; the next request starts on track 2.
        assert_eq!(e.admit(0, 0, 31, 0, true), 0);
        e.running(0, 31, 0, true, 1_000);
        assert_eq!(
            e.admit(10, 31, 31, 0, true),
            1_000,
            "shares track 2 with a writer"
        );
        e.running(31, 31, 0, true, 2_000);
        // A read of track 10 conflicts with nothing.
        assert_eq!(e.admit(20, 120, 4, 0, false), 20);
        // Two reads of the same tracks run side by side.
        let mut r = Extents::default();
        r.running(0, 31, 0, false, 1_000);
        assert_eq!(r.admit(5, 0, 31, 0, false), 5);
        // A read of a track a writer holds waits.
        assert_eq!(e.admit(30, 40, 1, 0, false), 2_000);
        assert_eq!(e.waits, 2);
    }

    #[test]
    fn a_reach_past_the_data_makes_writes_on_nearby_tracks_conflict() {
        // Two 31-block writes two requests apart (blocks 0-30 and 62-92: tracks 0-2 and
        // 5-7) share no track; with a 30-track reach (2 cylinders) the first one's extent
        // covers tracks 0-32, so the second waits for it.
        let mut e = Extents::default();
        e.running(0, 31, 0, true, 1_000);
        assert_eq!(e.admit(10, 62, 31, 0, true), 10, "no shared track");
        let mut e = Extents::default();
        e.running(0, 31, 30, true, 1_000);
        assert_eq!(e.admit(10, 62, 31, 30, true), 1_000);
        // Beyond the reach (track 33 on) it runs at once; reads still never conflict.
        assert_eq!(e.admit(20, 33 * 12, 31, 30, true), 20);
        let mut r = Extents::default();
        r.running(0, 31, 30, false, 1_000);
        assert_eq!(r.admit(5, 62, 31, 30, false), 5);
    }
}
