//! The one-sided race net's training: exact and bootstrapped samples
//! ([`targets`]), their file ([`samples`]) and the fit ([`fit`]). The items are
//! re-exported here, the paths `train sides` and `train side-fit` use.

pub mod fit;
pub mod samples;
pub mod targets;

use bgfarm_engine::eval::race::side::{Side, RACE_ROLLS};
use bgfarm_engine::eval::race::side_net::Head;

pub use fit::{evaluate, fit, SideFitOptions, SideFitReport, FAR_FIRST_PIPS, FAR_PIPS};
pub use samples::{decode_samples, encode_samples};
pub use targets::{bootstrap_target, bootstrap_walk, lookahead_target, Lookahead, BOOTSTRAP_EXACT};

/// One training sample: a side (with a checker outside its home board), which head,
/// and the exact distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct SideSample {
    pub side: Side,
    pub head: Head,
    pub target: [f32; RACE_ROLLS],
}
