//! One rollout trial: a game played from a position to its end (or to a truncation
//! point), with the luck of every roll measured and subtracted.
//!
//! Variance reduction (spec section 5): before each roll at state S the trial knows a
//! value `V(S, r)` for each of the 21 rolls; the luck of the roll that came is
//! `V(S, R) - sum_r w_r V(S, r)`, and the trial reports its outcome minus the summed
//! luck. Whatever `V` is, the luck has mean zero given S, so the estimate stays
//! unbiased; a better `V` only removes more noise. Two value functions:
//!
//! - [`Luck::Full`]: for every roll, the best move at 0-ply and its 0-ply value (GNU
//!   Backgammon's choice at 0-ply chequer play). With 0-ply play the actual roll's best
//!   move is also the move played, so the policy costs nothing extra.
//! - [`Luck::Ranked`]: for every roll the moves are ranked by PubEval (a linear
//!   function, ~20x cheaper than the net) and only the top one is valued by the net.
//!   About 4x cheaper per ply than `Full`; measure the trade-off with
//!   `bgfarm bench rollout-vr`.
//!
//! Outcomes are the five cubeless probabilities and the cubeless equity, all from the
//! side of the player on roll at the trial's start.

use super::dice::TrialDice;
use crate::dice::Dice;
use crate::eval::neural::{Class, EvalScratch, NeuralEvaluator};
use crate::eval::pubeval;
use crate::eval::{terminal_probs, Player, Probs};
use crate::movegen::MoveGenerator;
use crate::position::Position;

/// Outputs per trial: win, win gammon, win backgammon, lose gammon, lose backgammon,
/// cubeless equity.
pub const OUTPUTS: usize = 6;

/// Which value function measures luck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Luck {
    /// No variance reduction.
    Off,
    /// Best move for every roll at 0-ply by the net.
    Full,
    /// Best move for every roll by PubEval, valued by the net.
    Ranked,
}

/// How trials are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrialSettings {
    pub luck: Luck,
    /// Stop after this many plies and use the static evaluation there.
    pub truncate: Option<u32>,
    /// Stop as soon as the exact bear-off tables cover the position.
    pub bearoff_truncation: bool,
}

impl Default for TrialSettings {
    fn default() -> Self {
        TrialSettings { luck: Luck::Full, truncate: None, bearoff_truncation: true }
    }
}

/// Reusable buffers for trials on one thread.
pub struct TrialScratch {
    gen: MoveGenerator,
    eval: EvalScratch,
}

impl TrialScratch {
    /// Buffers for `eval`.
    pub fn new(eval: &NeuralEvaluator<'_>) -> TrialScratch {
        TrialScratch { gen: MoveGenerator::new(), eval: eval.scratch() }
    }
}

/// A probability vector from the side of the player on roll at the trial's start.
#[inline]
fn to_root(p: Probs, root_moves: bool) -> Probs {
    if root_moves {
        p
    } else {
        p.flip()
    }
}

/// The best 0-ply successor value of `dice` in `pos` (from the mover's side) and the
/// next position. No legal move: the position passes to the opponent unchanged.
fn best_0ply(
    eval: &NeuralEvaluator<'_>,
    s: &mut TrialScratch,
    pos: &Position,
    dice: Dice,
) -> (Probs, Position) {
    let moves = s.gen.generate(pos, dice);
    if moves.is_empty() {
        let next = pos.switch_sides();
        return (eval.evaluate_with(&next, &mut s.eval).flip(), next);
    }
    let mut best: Option<(Probs, Position)> = None;
    let mut best_eq = f32::NEG_INFINITY;
    for m in moves {
        let next = m.next_position();
        let v = eval.evaluate_with(&next, &mut s.eval).flip();
        let eq = v.equity();
        if eq > best_eq {
            best_eq = eq;
            best = Some((v, next));
        }
    }
    match best {
        Some(b) => b,
        None => unreachable!("moves is not empty"),
    }
}

/// The PubEval-ranked successor of `dice` in `pos` valued by the net.
fn ranked(eval: &NeuralEvaluator<'_>, s: &mut TrialScratch, pos: &Position, dice: Dice) -> Probs {
    let moves = s.gen.generate(pos, dice);
    if moves.is_empty() {
        return eval.evaluate_with(&pos.switch_sides(), &mut s.eval).flip();
    }
    let race = pubeval::is_race(pos);
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, m) in moves.iter().enumerate() {
        let sc = pubeval::score(m.result(), race);
        if sc > best_score {
            best_score = sc;
            best = i;
        }
    }
    let next = moves[best].next_position();
    eval.evaluate_with(&next, &mut s.eval).flip()
}

/// Plays trial `trial` from `start` (player on roll, before the roll) and returns the
/// luck-adjusted outputs from that player's side. `policy` chooses the moves; `None`
/// plays the best move at 0-ply by `eval`.
pub fn run_trial(
    eval: &NeuralEvaluator<'_>,
    policy: Option<&dyn Player>,
    settings: &TrialSettings,
    start: &Position,
    seed: u64,
    trial: u64,
    s: &mut TrialScratch,
) -> [f64; OUTPUTS] {
    let mut dice = TrialDice::new(seed, trial);
    let mut pos = *start;
    let mut root_moves = true;
    let mut luck = [0f64; 5];
    let mut ply = 0u32;
    let outcome: Probs = loop {
        if let Some(p) = terminal_probs(&pos) {
            break to_root(p, root_moves);
        }
        if settings.bearoff_truncation && eval.class(&pos) == Class::Endgame {
            break to_root(eval.evaluate_with(&pos, &mut s.eval), root_moves);
        }
        if settings.truncate.is_some_and(|t| ply >= t) {
            break to_root(eval.evaluate_with(&pos, &mut s.eval), root_moves);
        }
        let roll = dice.roll();
        let mut chosen: Option<Position> = None;
        if settings.luck != Luck::Off {
            let mut mean = [0f64; 5];
            let mut actual = [0f64; 5];
            for &(r, w) in Dice::ALL_21.iter() {
                let v = match settings.luck {
                    Luck::Full => {
                        let (v, next) = best_0ply(eval, s, &pos, r);
                        if same_roll(r, roll) && policy.is_none() {
                            chosen = Some(next);
                        }
                        v
                    }
                    _ => ranked(eval, s, &pos, r),
                };
                let v = to_root(v, root_moves);
                for k in 0..5 {
                    mean[k] += f64::from(w) / 36.0 * f64::from(v.0[k]);
                }
                if same_roll(r, roll) {
                    actual = v.0.map(f64::from);
                }
            }
            for k in 0..5 {
                luck[k] += actual[k] - mean[k];
            }
        }
        let next = match (chosen, policy) {
            (Some(n), _) => n,
            (None, None) => best_0ply(eval, s, &pos, roll).1,
            (None, Some(p)) => {
                let moves = s.gen.generate(&pos, roll);
                if moves.is_empty() {
                    pos.switch_sides()
                } else {
                    moves[p.choose(&pos, roll, moves)].next_position()
                }
            }
        };
        pos = next;
        root_moves = !root_moves;
        ply += 1;
    };
    let mut out = [0f64; OUTPUTS];
    for k in 0..5 {
        out[k] = f64::from(outcome.0[k]) - luck[k];
    }
    out[5] = 2.0 * out[0] - 1.0 + out[1] - out[3] + out[2] - out[4];
    out
}

#[inline]
fn same_roll(a: Dice, b: Dice) -> bool {
    a.high_low() == b.high_low()
}
