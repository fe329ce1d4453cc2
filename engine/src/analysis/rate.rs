//! Rating each decision of a match: the played chequer move against the best at
//! n-ply, and each cube action against the best cube action of the n-ply cubeful
//! lookahead (`bgfarm cube --ply N`'s evaluation).
//!
//! Units. Every error is in EMG, GNU Backgammon's "normalised" unit: money play in
//! equity per unit of the current cube; match play converts a loss of match-winning
//! chances (MWC) to the money game with the same cube through GNU Backgammon's
//! documented mapping `EMG = (2 MWC - (MWC_win + MWC_lose)) / (MWC_win - MWC_lose)`,
//! where `MWC_win` and `MWC_lose` are the MWC after winning or losing the game with
//! the cube as it is (single game, cube value `c`). An error in MWC is therefore
//! `2 dMWC / (MWC_win - MWC_lose)` EMG. Reports show thousandths (mEMG).
//!
//! Chequer plays are ranked by the search (cubeless probabilities at n-ply), then
//! valued cubefully: the position after the play belongs to the opponent on roll,
//! whose Janowski cubeful value (money, or match with the match equity table; the
//! cube life index by position class, as `bgfarm cube` uses) is turned back to the
//! mover's side. The best play is the best by that value among the plays the ladder
//! took to the deepest ply; the played move is always evaluated at that ply.

use super::{Analyst, Setting};
use crate::cube::life::default_x;
use crate::cube::lookahead::Lookahead;
use crate::cube::matchplay::cubeful_mwc;
use crate::cube::{janowski, CubeSpot};
use crate::eval::odds::GameOdds;
use crate::eval::Probs;
use crate::met::MatchEquityTable;
use crate::notation::format_move;
use crate::search::{Candidate, Ladder};
use crate::{Dice, Move, Position};

/// GNU Backgammon's marks of a decision, by the EMG it lost: doubtful from 0.04,
/// bad from 0.08, very bad from 0.16.
pub const DOUBTFUL: f64 = 0.04;
pub const BAD: f64 = 0.08;
pub const VERY_BAD: f64 = 0.16;

/// A decision's evaluation: what was played, what was best, the loss.
#[derive(Clone, Debug, PartialEq)]
pub struct Rated {
    pub played: String,
    pub best: String,
    /// EMG lost by the choice (>= 0); `None` when not rated (a forced move, a cube
    /// action the score leaves no choice in).
    pub error: Option<f64>,
    /// The same loss in MWC (match play only).
    pub error_mwc: Option<f64>,
    /// The next best plays after `best` at the deepest ply, best first, other than
    /// the played one (at most [`ALSO`]): the "best few" a rollout of the decision
    /// may add (`bgfarm analyse --rollout-moves`). Empty for cube actions.
    pub also: Vec<String>,
}

/// Plays kept in [`Rated::also`].
pub const ALSO: usize = 2;

/// How a loss of MWC at this spot converts to EMG (1 for money).
pub fn emg_per_unit(set: &Setting, met: Option<&MatchEquityTable>) -> f64 {
    match (set.score, met) {
        (Some((_, score)), Some(met)) => {
            let c = set.cube.value;
            let spread = score.mwc_after(met, true, c) - score.mwc_after(met, false, c);
            if spread > 1e-12 {
                2.0 / spread
            } else {
                0.0
            }
        }
        _ => 1.0,
    }
}

/// The mover's cubeful value of a play (MWC in a match, money equity per unit
/// cube), from the play's probabilities for the mover at `result` (the position
/// after the play, seen by the opponent on roll).
pub fn play_value(
    probs: &Probs,
    result: &Position,
    set: &Setting,
    met: Option<&MatchEquityTable>,
) -> f64 {
    let odds = GameOdds::from_probs(&probs.flip());
    let x = default_x(result);
    let cube = set.cube.flip();
    match (set.score, met) {
        (Some((_, score)), Some(met)) => 1.0 - cubeful_mwc(met, score.flip(), cube, &odds, x),
        _ => -janowski::cubeful_equity(&odds, cube.owner, x, set.jacoby),
    }
}

/// Rates a chequer play searched `ply` deep through `ladder`; a forced move (one
/// legal play) comes back unrated.
pub fn chequer<A: Analyst + ?Sized>(
    engine: &A,
    pos: &Position,
    dice: Dice,
    played: &Move,
    (ply, ladder): (u8, &Ladder),
    set: &Setting,
    met: Option<&MatchEquityTable>,
) -> Rated {
    let played_text = format_move(played);
    let mut ranked = engine.rank(pos, dice, ply, ladder);
    if ranked.len() <= 1 {
        return Rated {
            best: played_text.clone(),
            played: played_text,
            error: None,
            error_mwc: None,
            also: Vec::new(),
        };
    }
    let deepest = ranked.iter().map(|c| c.ply).max().unwrap_or(0);
    let idx = ranked
        .iter()
        .position(|c| c.mv.result() == played.result())
        .unwrap_or_else(|| {
            // Every legal play is ranked; the played one is among them (the reader
            // checked it), but stay total.
            ranked.push(Candidate::new(*played));
            ranked.len() - 1
        });
    if ranked[idx].ply < deepest {
        let mut s = engine.searcher();
        s.evaluate_candidate(&mut ranked[idx], deepest);
    }
    let value = |c: &Candidate| play_value(&c.probs, &c.mv.next_position(), set, met);
    let played_value = value(&ranked[idx]);
    let (best_value, best_mv) = ranked
        .iter()
        .filter(|c| c.ply == deepest)
        .map(|c| (value(c), c.mv))
        .fold((played_value, *played), |acc, (v, m)| {
            if v > acc.0 {
                (v, m)
            } else {
                acc
            }
        });
    let loss = (best_value - played_value).max(0.0);
    let is_match = set.score.is_some();
    // The runners-up: by value, ties in ranking order (a stable sort).
    let mut rest: Vec<(f64, Move)> = ranked
        .iter()
        .filter(|c| c.ply == deepest)
        .filter(|c| c.mv.result() != best_mv.result() && c.mv.result() != played.result())
        .map(|c| (value(c), c.mv))
        .collect();
    rest.sort_by(|a, b| b.0.total_cmp(&a.0));
    Rated {
        played: played_text,
        best: format_move(&best_mv),
        error: Some(loss * emg_per_unit(set, met)),
        error_mwc: is_match.then_some(loss),
        also: rest
            .iter()
            .take(ALSO)
            .map(|(_, m)| format_move(m))
            .collect(),
    }
}

/// What a player did at a cube decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubeChoice {
    /// The player on roll rolled without doubling.
    NoDouble,
    Double,
    /// The opponent of the player on roll took.
    Take,
    Drop,
}

impl CubeChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            CubeChoice::NoDouble => "no_double",
            CubeChoice::Double => "double",
            CubeChoice::Take => "take",
            CubeChoice::Drop => "drop",
        }
    }
}

/// The best choice at a cube decision whose doubler's values are `nd` (no double),
/// `dt` (double/take) and `dp` (double/pass), and what `choice` loses against it
/// (>= 0, in the values' units): the doubler's best is `max(ND, min(DT, DP))`, the
/// taker's `min(DT, DP)`. Used with the n-ply lookahead's values ([`cube`]) and with
/// a rollout's (`bgfarm analyse --rollout-threshold`).
pub fn cube_choice_loss(choice: CubeChoice, nd: f64, dt: f64, dp: f64) -> (&'static str, f64) {
    let double = dt.min(dp);
    let (chosen, best, best_name) = match choice {
        CubeChoice::NoDouble | CubeChoice::Double => {
            let best_name = if double > nd { "double" } else { "no_double" };
            let chosen = if choice == CubeChoice::Double {
                double
            } else {
                nd
            };
            (chosen, nd.max(double), best_name)
        }
        // The taker minimises the doubler's value.
        CubeChoice::Take | CubeChoice::Drop => {
            let best_name = if dt <= dp { "take" } else { "drop" };
            let chosen = if choice == CubeChoice::Take { dt } else { dp };
            (-chosen, -double, best_name)
        }
    };
    (best_name, (best - chosen).max(0.0))
}

/// A cube decision's rating, and whether it counts as a decision (see
/// [`cube`]).
pub struct CubeRated {
    pub rated: Rated,
    pub counted: bool,
}

/// Rates a cube action at `pos` (seen by the player on roll, the doubler) with the
/// `plies`-ply cubeful lookahead. The doubler's best is `max(ND, min(DT, DP))`, the
/// taker's `min(DT, DP)`.
///
/// Like GNU Backgammon, not every roll is a cube decision worth counting: a no
/// double counts when doubling was right or would have cost less than 0.16 EMG (a
/// close decision); doubles, takes and drops always count. A double that the score
/// makes pointless (a dead cube) is not rated.
pub fn cube<A: Analyst + ?Sized>(
    engine: &A,
    pos: &Position,
    choice: CubeChoice,
    plies: u32,
    set: &Setting,
    met: Option<&MatchEquityTable>,
) -> CubeRated {
    let spot = match (set.score, met) {
        (Some((_, score)), Some(met)) => CubeSpot::Match {
            cube: set.cube,
            score,
            met,
        },
        _ => CubeSpot::Money {
            cube: set.cube,
            jacoby: set.jacoby,
        },
    };
    let unrated = |counted: bool| CubeRated {
        rated: Rated {
            played: choice.as_str().to_string(),
            best: choice.as_str().to_string(),
            error: None,
            error_mwc: None,
            also: Vec::new(),
        },
        counted,
    };
    if !spot.may_double() {
        return unrated(choice != CubeChoice::NoDouble);
    }
    let r = Lookahead::new(engine.evaluator(), None).analyse(pos, &spot, plies);
    let (Some(dt), Some(dp)) = (r.double_take, r.double_pass) else {
        return unrated(choice != CubeChoice::NoDouble);
    };
    let nd = r.no_double;
    let double = dt.min(dp);
    let (best_name, loss) = cube_choice_loss(choice, nd, dt, dp);
    let norm = emg_per_unit(set, met);
    let counted = match choice {
        CubeChoice::NoDouble => double > nd || (nd - double) * norm < 0.16,
        _ => true,
    };
    CubeRated {
        rated: Rated {
            played: choice.as_str().to_string(),
            best: best_name.to_string(),
            error: Some(loss * norm),
            error_mwc: set.score.is_some().then_some(loss),
            also: Vec::new(),
        },
        counted,
    }
}
