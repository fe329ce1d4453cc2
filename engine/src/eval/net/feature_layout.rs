//! How many hand-crafted features there are and in which blocks: the sizes the
//! encoder, the race features and the file migrations all lay inputs out by.

use super::structure::THIRD_PER_SIDE;

/// Features per side in the first block (encodings v2 and v3).
pub const PER_SIDE: usize = 6;
/// The first block, both sides: all the features of encodings v2 and v3.
pub const BASE_FEATURES: usize = 2 * PER_SIDE;
/// Features per side in the second block (encoding v4, contact only): `pip_loss`,
/// `double`, `contain`, `back_trapped`, `enter`.
pub const EXTRA_PER_SIDE: usize = 5;
/// The first and second blocks, both sides: all the features of encoding v4.
pub const V4_FEATURES: usize = BASE_FEATURES + 2 * EXTRA_PER_SIDE;
/// Features of a position: the first block (mover, opponent), the second (mover,
/// opponent), then the third ([`super::structure`], mover, opponent). Older nets
/// load with zero rows for the blocks they did not have.
pub const FEATURES: usize = V4_FEATURES + 2 * THIRD_PER_SIDE;
