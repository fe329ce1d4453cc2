//! What an analysis needs of an engine: the n-ply ranking of a roll's plays, a
//! searcher for single positions and the evaluator of the cubeful lookahead. The
//! command line ranks a play's candidates on its whole pool; a worker ranks them
//! on the one thread its batch runs on ([`Sequential`]). Each candidate's value
//! depends only on its position, ply and the evaluator, so both give the same
//! figures bit for bit (the cache only saves time).

use crate::eval::neural::NeuralEvaluator;
use crate::search::{candidates, run_ladder, Candidate, EvalCache, Ladder, Pruning, Searcher};
use crate::{Dice, Position};

/// An engine an analysis runs on.
pub trait Analyst: Sync {
    /// Every play of `dice` at `pos` ranked by a `depth`-ply search through
    /// `ladder` (as `bgfarm hint` ranks them).
    fn rank(&self, pos: &Position, dice: Dice, depth: u8, ladder: &Ladder) -> Vec<Candidate>;
    /// A searcher for the current thread.
    fn searcher(&self) -> Searcher<'_>;
    /// The evaluator at the leaves of the cubeful lookahead.
    fn evaluator(&self) -> &NeuralEvaluator<'_>;
}

/// An analyst that ranks on the calling thread.
pub struct Sequential<'a> {
    pub eval: &'a NeuralEvaluator<'a>,
    pub prune: Pruning,
    pub cache: Option<&'a EvalCache>,
}

impl Analyst for Sequential<'_> {
    fn rank(&self, pos: &Position, dice: Dice, depth: u8, ladder: &Ladder) -> Vec<Candidate> {
        let mut cands = candidates(pos, dice);
        let mut s = self.searcher();
        run_ladder(&mut cands, depth, ladder, |slice, p| {
            for c in slice {
                s.evaluate_candidate(c, p);
            }
        });
        cands
    }

    fn searcher(&self) -> Searcher<'_> {
        Searcher::new(self.eval, self.prune, self.cache)
    }

    fn evaluator(&self) -> &NeuralEvaluator<'_> {
        self.eval
    }
}
