//! The input encodings weights files are written for, and how files of older
//! encodings are read: the rows of inputs they lack are zero, so their nets compute
//! exactly what they did.

use super::encode::{INPUTS, RAW_INPUTS};
use super::feature_layout as features;

/// Name of the input encoding written into every weights file: the 198 raw inputs
/// plus the hand-crafted [`features`] (three blocks), the [`race_features`] in races.
pub const ENCODING: &str = "bgfarm-198f-v5";

/// The encoding before the features' third block ([`structure`](super::structure)),
/// still read: the same inputs up to the second block's end. Its nets load with zero
/// rows for the third block, so they compute exactly what they did.
pub const V4_ENCODING: &str = "bgfarm-198f-v4";

/// Inputs of a [`V4_ENCODING`] file.
pub(super) const V4_INPUTS: usize = RAW_INPUTS + features::V4_FEATURES;

/// The encoding before the features' second block, still read: the
/// same inputs up to the first block's end. Its nets load with zero rows for the
/// second block, so they compute exactly what they did.
pub const V3_ENCODING: &str = "bgfarm-198f-v3";

/// Inputs of a [`V3_ENCODING`] or [`PREVIOUS_ENCODING`] file.
pub(super) const V3_INPUTS: usize = RAW_INPUTS + features::BASE_FEATURES;

/// The encoding before the race features, still read: the
/// same inputs except in races, where five slots per side were always 0. A race net
/// of that encoding has its rows there zeroed on load (they never received a
/// gradient, but a net trained from random weights kept random ones), so it computes
/// exactly what it did.
pub const PREVIOUS_ENCODING: &str = "bgfarm-198f-v2";

/// The first encoding (the raw 198 inputs only). Its files still load: the feature
/// rows of the first layer are zero, so such a net computes exactly what it did.
pub const LEGACY_ENCODING: &str = "bgfarm-198-v1";

/// Feature slots (of [`features::FEATURES`]) that hold race features in races and
/// were always 0 there before: all but `prime` (3 and 9).
pub(super) const RACE_ONLY_SLOTS: [usize; 10] = [0, 1, 2, 4, 5, 6, 7, 8, 10, 11];

/// What a net is used for: it decides how files of an older encoding are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Positions with contact.
    Contact,
    /// Pure races: reads the [`race_features`].
    Race,
}

/// How many first-layer rows a file of `encoding` holds (they are the first ones:
/// every encoding extends the one before at the end); an error naming the
/// encodings this build reads for any other.
pub fn stored_rows(encoding: &str) -> Result<usize, String> {
    match encoding {
        e if e == ENCODING => Ok(INPUTS),
        e if e == V4_ENCODING => Ok(V4_INPUTS),
        e if e == V3_ENCODING || e == PREVIOUS_ENCODING => Ok(V3_INPUTS),
        e if e == LEGACY_ENCODING => Ok(RAW_INPUTS),
        e => Err(format!(
            "input encoding {e:?}, this build reads {ENCODING:?}, {V4_ENCODING:?}, \
             {V3_ENCODING:?}, {PREVIOUS_ENCODING:?} and {LEGACY_ENCODING:?}"
        )),
    }
}

/// `w1`, read from a file of `encoding` with [`stored_rows`] rows of `hidden`
/// weights, completed to every input: zero rows for the inputs the file did not
/// have, and for a [`PREVIOUS_ENCODING`] race net zero rows at the race-only slots,
/// which it never trained.
pub fn complete_first_layer(w1: &mut Vec<f32>, hidden: usize, encoding: &str, role: Role) {
    w1.resize(INPUTS * hidden, 0.0);
    if encoding == PREVIOUS_ENCODING && role == Role::Race {
        for slot in RACE_ONLY_SLOTS {
            let row = RAW_INPUTS + slot;
            w1[row * hidden..(row + 1) * hidden].fill(0.0);
        }
    }
}

/// Whether any weight of the features' third block is non-zero in `w1` (`hidden`
/// weights a row): a net of an older file skips that block's cost.
pub fn third_block_used(w1: &[f32], hidden: usize) -> bool {
    w1[V4_INPUTS * hidden..].iter().any(|&w| w != 0.0)
}
