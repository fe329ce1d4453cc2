//! What an evaluator asks of exact endgame knowledge: the bear-off tables
//! (`BearoffDb`) and the race layers stacked on them
//! (`eval::race`). A trait of its own, so that the neural evaluator, which asks,
//! and the tables and layers, which answer, need nothing from each other.

use super::Probs;
use crate::position::Position;

/// Exact values for some endgames (the bear-off databases).
pub trait Endgame: Send + Sync {
    /// Probabilities for the player on roll, when `pos` is covered.
    fn probs(&self, pos: &Position) -> Option<Probs>;

    /// A hash of the tables, for the engine fingerprint.
    fn checksum(&self) -> u64;

    /// The race net's `probs` for the race `pos`, with what the tables know exactly
    /// put in their place (by default nothing).
    fn refine_race(&self, _pos: &Position, probs: Probs) -> Probs {
        probs
    }
}
