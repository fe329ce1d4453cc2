//! The static evaluator at the leaves of a search.
//!
//! A 2-ply search of one play makes ~9,000 static evaluations, so the per-call cost
//! matters: the built-in nets are called through
//! [`NeuralEvaluator::evaluate_with`] with the searcher's own scratch space (no
//! thread-local look-up); any other [`Evaluator`] through its `evaluate`.
//!
//! [`Leaf`] is an enum rather than a type parameter on purpose: the search code is
//! then compiled once, inside this crate (built with `opt-level = 3` even in dev
//! profiles), instead of being instantiated unoptimised in every debug build of a
//! caller. The dispatch costs one predictable branch per evaluation of ~1 µs.

use crate::eval::neural::{EvalScratch, NeuralEvaluator};
use crate::eval::{Evaluator, Probs};
use crate::position::Position;

/// The evaluator a [`Searcher`](super::Searcher) calls at 0-ply.
#[derive(Clone, Copy)]
pub enum Leaf<'a> {
    /// The contact/race nets with optional exact endgames.
    Neural(&'a NeuralEvaluator<'a>),
    /// Any other evaluator. Its cache fingerprint is a hash of its name: give
    /// evaluators that share a cache distinct names.
    Other(&'a dyn Evaluator),
}

impl<'a, 'b: 'a> From<&'a NeuralEvaluator<'b>> for Leaf<'a> {
    fn from(e: &'a NeuralEvaluator<'b>) -> Self {
        Leaf::Neural(e)
    }
}

impl Leaf<'_> {
    /// Scratch space for [`Leaf::eval`] (one per searcher).
    pub fn scratch(&self) -> Option<EvalScratch> {
        match self {
            Leaf::Neural(n) => Some(n.scratch()),
            Leaf::Other(_) => None,
        }
    }

    /// Probabilities for the player on roll in `pos`, before the roll; `scratch`
    /// must come from [`Leaf::scratch`] of the same leaf.
    #[inline]
    pub fn eval(&self, pos: &Position, scratch: &mut Option<EvalScratch>) -> Probs {
        match (self, scratch) {
            (Leaf::Neural(n), Some(s)) => n.evaluate_with(pos, s),
            (Leaf::Neural(n), None) => n.evaluate(pos),
            (Leaf::Other(e), _) => e.evaluate(pos),
        }
    }

    /// Identifies the evaluator (weights, tables) in the evaluation cache's keys, so
    /// evaluators can share one cache without mixing their values. For the nets this
    /// hashes every weight (~0.1 ms for two 198x128 nets): compute it once.
    pub fn fingerprint(&self) -> u64 {
        match self {
            Leaf::Neural(n) => n.hash(),
            // FNV-1a 64 of the name.
            Leaf::Other(e) => e.name().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            }),
        }
    }
}
