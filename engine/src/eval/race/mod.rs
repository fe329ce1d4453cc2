//! Race evaluation beyond the bear-off tables: races (no contact left) where a side
//! is not yet home, answered from one-sided roll distributions.
//!
//! - [`distribution`]: a side's exact distribution of rolls to bear off (all, or
//!   the first checker), by memoised search from the one-sided bear-off table, and
//!   the win and gammon chances two distributions give; [`side_table`] is its memo
//!   index, [`side`] the packed race side they share;
//! - [`side_net`] and [`side_kernel`]: the one-sided race net that estimates those
//!   distributions where the search cannot reach in time, and its fast layout;
//!   [`one_roll`]: one roll of lookahead over it;
//! - [`escape`]: exact backgammon chances (stragglers leaving the opponent's home);
//! - [`gammon_save`]: exact gammon chances of a saver not yet home;
//! - [`side_race`], [`exact`], [`gammon_save::ExactGammons`]: layers
//!   ([`Endgame`]s) that put these in place of the race net's chances, on top of the
//!   bear-off tables, whose own [`Endgame`] (exact bear-offs, exact backgammon
//!   escapes) is here too;
//! - [`searched`]: race probabilities from the tables and searches alone, a referee
//!   for race move choices.

pub mod distribution;
pub mod escape;
pub mod exact;
pub mod gammon_save;
pub mod one_roll;
pub mod searched;
pub mod side;
pub mod side_kernel;
pub mod side_net;
pub mod side_race;
pub mod side_table;

use super::bearoff::{fnv1a, BearoffDb};
use super::endgame::Endgame;
use super::Probs;
use crate::position::Position;

/// The tables as the innermost endgame: exact bear-offs ([`BearoffDb::probs`]) and
/// the race net's chances refined with the exact backgammon escapes
/// ([`BearoffDb::refine_race`]).
impl Endgame for BearoffDb {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        BearoffDb::probs(self, pos)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        BearoffDb::refine_race(self, pos, probs)
    }

    fn checksum(&self) -> u64 {
        BearoffDb::checksum(self)
    }
}

/// Race chances put in the cumulative convention: backgammons within gammons within
/// wins (losses), once a layer has replaced some of them.
fn cumulative(w: f32, wg: f32, wbg: f32, lg: f32, lbg: f32) -> Probs {
    let wbg = wbg.min(w);
    let wg = wg.min(w).max(wbg);
    let lbg = lbg.min(1.0 - w);
    let lg = lg.min(1.0 - w).max(lbg);
    Probs([w, wg, wbg, lg, lbg])
}

/// The checksum of an analysis layer over `inner` (FNV-1a over the inner checksum,
/// the layer's `tag` and its size limit), so that results computed with the layer
/// carry their own engine fingerprint.
fn layer_checksum(inner: &dyn Endgame, tag: &[u8], limit: u64) -> u64 {
    let mut bytes = inner.checksum().to_le_bytes().to_vec();
    bytes.extend_from_slice(tag);
    bytes.extend_from_slice(&limit.to_le_bytes());
    fnv1a(&bytes)
}
