//! Position evaluation: cubeless outcome probabilities for the player on roll.
//!
//! Every evaluator answers the same question, GNU Backgammon's: "the player on roll in
//! this position, before rolling: how likely are a win, a gammon win, ... ?" To judge
//! a move, evaluate the position after it *as seen by the opponent* (who rolls next)
//! and flip the result ([`Probs::flip`]).

pub mod bearoff;
pub mod crashed;
pub mod default_nets;
pub mod endgame;
pub mod fingerprint;
pub mod net;
pub mod net_rank;
pub mod neural;
pub mod odds;
pub mod probs;
pub mod pubeval;
pub mod race;
pub mod top_ranked;

pub use probs::Probs;

use crate::dice::Dice;
use crate::movegen::Move;
use crate::position::Position;

/// A static (0-ply) evaluator.
pub trait Evaluator: Send + Sync {
    /// Cubeless probabilities for the player on roll in `pos`, before the roll.
    /// Game-over positions need not be handled: callers use [`terminal_probs`] first.
    fn evaluate(&self, pos: &Position) -> Probs;

    /// Probabilities of every move's resulting position from the view of the player
    /// who rolls next (what `evaluate(&m.next_position())` gives, finished games by
    /// [`terminal_probs`]), into `out` (cleared first). Evaluators that score
    /// siblings faster than one by one (the neural one: incremental first layer)
    /// override it.
    fn evaluate_candidates(&self, parent: &Position, moves: &[Move], out: &mut Vec<Probs>) {
        let _ = parent;
        out.clear();
        out.extend(moves.iter().map(|m| {
            let next = m.next_position();
            terminal_probs(&next).unwrap_or_else(|| self.evaluate(&next))
        }));
    }

    /// The 0-ply choice among `moves` from `parent` (an index into `moves`; `None`
    /// when there is none): by default the best of [`Evaluator::evaluate_candidates`].
    /// The neural evaluator with a screen net values only the screen's best few
    /// candidates with its contact net ([`neural::NeuralEvaluator::screened_choice`]),
    /// as its rollouts do.
    fn choose_index(&self, parent: &Position, moves: &[Move]) -> Option<usize> {
        let mut probs = Vec::with_capacity(moves.len());
        self.evaluate_candidates(parent, moves, &mut probs);
        best_move_index(&probs)
    }

    /// A short name for reports (`"default"`, `"pubeval"`, a file name).
    fn name(&self) -> String;
}

/// The greedy (0-ply) choice among candidates scored from the next player's view
/// (as [`Evaluator::evaluate_candidates`] and `NeuralEvaluator::evaluate_moves` give
/// them): the index of the best cubeless equity for the player who moves, the first
/// one on ties; `None` when there is no candidate.
pub fn best_move_index(next_probs: &[Probs]) -> Option<usize> {
    if next_probs.is_empty() {
        return None;
    }
    let mut best = 0;
    let mut best_eq = f32::NEG_INFINITY;
    for (i, p) in next_probs.iter().enumerate() {
        // Same arithmetic as `after_move(..).equity()`, so choices match it exactly.
        let eq = p.flip().equity();
        if eq > best_eq {
            best_eq = eq;
            best = i;
        }
    }
    Some(best)
}

/// Chooses one move among the legal ones: what a duel or a rollout needs of a player.
pub trait Player: Send + Sync {
    /// Index into `moves` (never empty) of the chosen move for `dice` in `pos`.
    fn choose(&self, pos: &Position, dice: Dice, moves: &[Move]) -> usize;

    /// A short name for reports.
    fn name(&self) -> String;
}

/// Exact probabilities when the game is over, from the view of the player on roll in
/// `pos`; `None` while both sides still have checkers.
///
/// The winner's opponent loses a gammon with no checker off, a backgammon if it also
/// still has a checker on the bar or in the winner's home board.
pub fn terminal_probs(pos: &Position) -> Option<Probs> {
    let p = pos.pips();
    if pos.opponent_checkers() == 0 {
        // The opponent (who just moved) has won.
        let gammon = pos.mover_off() == 0;
        let backgammon = gammon && (19..=25).any(|i| p[i] > 0);
        return Some(Probs::loss(gammon, backgammon));
    }
    if pos.mover_checkers() == 0 {
        let gammon = pos.opponent_off() == 0;
        let backgammon = gammon && (0..=6).any(|i| p[i] < 0);
        return Some(Probs::win(gammon, backgammon));
    }
    None
}

/// Probabilities of a position after a move, from the view of the player who moved.
pub fn after_move<E: Evaluator + ?Sized>(eval: &E, m: &Move) -> Probs {
    let next = m.next_position();
    terminal_probs(&next)
        .unwrap_or_else(|| eval.evaluate(&next))
        .flip()
}

/// A 0-ply player: the move with the best cubeless equity by `E`.
pub struct Greedy<E>(pub E);

impl<E: Evaluator> Player for Greedy<E> {
    fn choose(&self, pos: &Position, _dice: Dice, moves: &[Move]) -> usize {
        self.0.choose_index(pos, moves).unwrap_or(0)
    }

    fn name(&self) -> String {
        self.0.name()
    }
}
