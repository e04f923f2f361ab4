//! Small storage configurations for the unit tests of the storage mechanisms.

use super::{CpWork, Owner, SpaceId, SpaceSpec, Storage};
use crate::config::params::ModelParams;
use crate::config::scenario::ZvmLevel;

/// Frames CP keeps for itself in the test configurations.
pub(super) const CP_FRAMES: u32 = 64;

/// `frames` of central storage, `xstor` blocks of expanded storage, paging volumes of
/// `volumes` slots each, one address space per entry of `spaces` (pages), default parameters.
pub(super) fn storage(
    level: ZvmLevel,
    frames: u32,
    xstor: u32,
    volumes: &[u64],
    spaces: &[u32],
) -> Storage {
    with_params(
        level,
        &ModelParams::default(),
        frames,
        xstor,
        volumes,
        spaces,
    )
}

pub(super) fn with_params(
    level: ZvmLevel,
    p: &ModelParams,
    frames: u32,
    xstor: u32,
    volumes: &[u64],
    spaces: &[u32],
) -> Storage {
    let specs: Vec<SpaceSpec> = spaces
        .iter()
        .enumerate()
        .map(|(g, &pages)| SpaceSpec {
            owner: Owner::Guest(g as u32),
            pages,
        })
        .collect();
    Storage::new(level, p, frames, CP_FRAMES, xstor, volumes, &specs)
}

/// Touch pages `pages` of space 0 (writes), returning the CP time charged.
pub(super) fn write_pages(st: &mut Storage, pages: std::ops::Range<u32>) -> u64 {
    let mut cp = CpWork::default();
    for page in pages {
        st.touch(st.space(SpaceId(0)), page, super::Access::Write, &mut cp);
    }
    cp.ns
}

/// The frame holding page `page` of space 0 (panics when not resident).
pub(super) fn frame_of(st: &Storage, page: u32) -> u32 {
    st.held_frame(st.global(SpaceId(0), page) as usize)
        .unwrap_or_else(|| panic!("page {page} not resident"))
}
