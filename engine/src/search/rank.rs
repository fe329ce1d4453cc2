//! Ranking the plays of one decision: every play at 0-ply, then a [`Ladder`] of
//! filter steps decides which plays are searched at each deeper ply.
//!
//! [`run_ladder`] holds the procedure and takes the evaluation as a callback, so the
//! same code ranks with one [`Searcher`] ([`Searcher::rank_moves`]), with a pool of
//! threads (the CLI evaluates the survivors of a step in parallel), or from recorded
//! values (`bgfarm-lab filter-study` replays every filter on one full search).

use super::filter::Ladder;
use super::nply::Searcher;
use crate::dice::Dice;
use crate::eval::Probs;
use crate::movegen::Move;
use crate::position::Position;

/// A play with its deepest evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The play.
    pub mv: Move,
    /// Its probabilities for the player who made it, at `ply`.
    pub probs: Probs,
    /// The ply of `probs`.
    pub ply: u8,
}

impl Candidate {
    /// A play not yet evaluated.
    pub fn new(mv: Move) -> Candidate {
        Candidate {
            mv,
            probs: Probs::default(),
            ply: 0,
        }
    }

    /// Cubeless equity of `probs`.
    pub fn equity(&self) -> f32 {
        self.probs.equity()
    }
}

/// Ranks `cands` for a search of `depth` plies with `ladder`, GNU Backgammon's way:
///
/// 1. `eval_at(all, 0)`; sort by equity.
/// 2. For each ply `p` in `0..depth` with a step in the ladder: evaluate the survivors
///    at `p` (for `p > 0`), sort them, keep
///    [`FilterStep::survivors`](super::FilterStep::survivors); when a single play
///    survives, stop: it is the choice (its value stays at the ply it reached).
///    Plies without a step are skipped.
/// 3. `eval_at(survivors, depth)`; sort them.
///
/// `eval_at(slice, p)` must set `probs` (for the mover) and `ply = p` of every
/// candidate in the slice. Afterwards `cands` is ordered by the ply each play reached
/// (deepest first), then by equity; sorts are stable, so ties keep the generation
/// order. Returns the number of plays evaluated at the last stage reached.
pub fn run_ladder<F>(cands: &mut [Candidate], depth: u8, ladder: &Ladder, mut eval_at: F) -> usize
where
    F: FnMut(&mut [Candidate], u8),
{
    if cands.is_empty() {
        return 0;
    }
    let by_equity = |a: &Candidate, b: &Candidate| b.equity().total_cmp(&a.equity());
    eval_at(cands, 0);
    cands.sort_by(by_equity);
    let mut live = cands.len();
    for p in 0..depth {
        let Some(step) = ladder.step_at(p) else {
            continue;
        };
        if p > 0 {
            eval_at(&mut cands[..live], p);
            cands[..live].sort_by(by_equity);
        }
        live = step.survivors(&cands[..live], Candidate::equity);
        if live == 1 {
            return 1;
        }
    }
    if depth > 0 {
        eval_at(&mut cands[..live], depth);
        cands[..live].sort_by(by_equity);
    }
    live
}

impl Searcher<'_> {
    /// Every legal play of `dice` in `pos`, ranked by [`run_ladder`] with `depth`
    /// plies and `ladder`; empty when the roll cannot be played.
    pub fn rank_moves(
        &mut self,
        pos: &Position,
        dice: Dice,
        depth: u8,
        ladder: &Ladder,
    ) -> Vec<Candidate> {
        let mut cands = self.candidates(pos, dice);
        self.rank(&mut cands, depth, ladder);
        cands
    }

    /// The play a `depth`-ply search with `ladder` chooses, with its value; `None`
    /// when the roll cannot be played. A single legal play is returned unevaluated
    /// (`ply` 0, default probabilities): there is nothing to choose.
    pub fn best_move(
        &mut self,
        pos: &Position,
        dice: Dice,
        depth: u8,
        ladder: &Ladder,
    ) -> Option<Candidate> {
        let mut cands = self.candidates(pos, dice);
        if cands.len() > 1 {
            self.rank(&mut cands, depth, ladder);
        }
        cands.first().copied()
    }

    fn candidates(&mut self, pos: &Position, dice: Dice) -> Vec<Candidate> {
        let moves = self.generator().generate(pos, dice);
        moves.iter().copied().map(Candidate::new).collect()
    }

    /// Evaluates one candidate at `ply` (what [`run_ladder`]'s callback does to each).
    pub fn evaluate_candidate(&mut self, c: &mut Candidate, ply: u8) {
        c.probs = self.move_probs(&c.mv, ply);
        c.ply = ply;
    }

    fn rank(&mut self, cands: &mut [Candidate], depth: u8, ladder: &Ladder) {
        run_ladder(cands, depth, ladder, |slice, p| {
            for c in slice {
                self.evaluate_candidate(c, p);
            }
        });
    }
}

/// Every legal play of `dice` in `pos`, unevaluated, in generation order.
pub fn candidates(pos: &Position, dice: Dice) -> Vec<Candidate> {
    crate::movegen::legal_moves(pos, dice)
        .into_iter()
        .map(Candidate::new)
        .collect()
}
