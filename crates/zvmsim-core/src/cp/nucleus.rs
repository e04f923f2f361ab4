//! CP's nucleus and fixed control blocks: the central storage CP keeps for itself, which no
//! guest page can use.

/// 128 MB, the order of magnitude of a z/VM 5.x nucleus with its fixed storage (inference
/// from QUERY FRAMES outputs of that era)...
const FIXED_FRAMES: u32 = 32_768;
/// ... and at most an eighth of a small LPAR.
const FIXED_MAX_SHARE: u32 = 8;

/// Frames CP keeps in an LPAR of `frames` frames of central storage.
pub fn fixed_frames(frames: u32) -> u32 {
    FIXED_FRAMES.min(frames / FIXED_MAX_SHARE)
}
