//! Cubeful lookahead: cube decisions at n-ply.
//!
//! The value of a node (a position before its player rolls, with a cube state) is
//! the player's best cube action, `max(ND, min(DT, DP))` when they may double and
//! `ND` otherwise. At 0-ply `ND` and `DT` are Janowski's (money or match) on the
//! static evaluation; at `n` plies `ND` is the average over the 21 rolls (1/36 for
//! doubles, 2/36 for the others) of the value after the best move, that is of the
//! opponent's node at `n - 1` plies (with their own cube decision), seen back from
//! the mover's side; `DT` is the same with the cube doubled and owned by the
//! opponent. Janowski's formulas are applied only at the leaves, as GNU Backgammon
//! does.
//!
//! Moves are chosen by cubeless 0-ply equity, the same choice for every cube state
//! (cube-dependent chequer play is second order for cube decisions). One roll
//! expansion serves every cube state of a node: the states (no double / doubled at
//! each level) are carried down as a list. Cost: about `21^n x 20` evaluations
//! (2-ply: ~10,000; 3-ply: ~200,000).

use super::decision::{CubeDecision, CubeSpot, Units};
use super::janowski;
use super::life::default_x;
use super::matchplay::cubeful_mwc;
use super::{Cube, Owner};
use crate::dice::Dice;
use crate::eval::odds::GameOdds;
use crate::eval::{after_move, terminal_probs, Evaluator};
use crate::met::{MatchEquityTable, MatchScore};
use crate::movegen::MoveGenerator;
use crate::position::Position;

/// Deepest lookahead accepted: 3-ply is ~200,000 evaluations, 4-ply would be ~4M.
pub const MAX_PLIES: u32 = 3;

/// A cube state seen by the player on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
enum State<'a> {
    Money {
        owner: Owner,
        jacoby: bool,
    },
    Match {
        score: MatchScore,
        cube: Cube,
        met: &'a MatchEquityTable,
    },
}

impl<'a> State<'a> {
    fn from_spot(spot: &CubeSpot<'a>) -> State<'a> {
        match *spot {
            CubeSpot::Money { cube, jacoby } => State::Money {
                owner: cube.owner,
                jacoby,
            },
            CubeSpot::Match { cube, score, met } => State::Match { score, cube, met },
        }
    }

    fn spot(&self) -> CubeSpot<'a> {
        match *self {
            State::Money { owner, jacoby } => CubeSpot::Money {
                cube: Cube { value: 1, owner },
                jacoby,
            },
            State::Match { score, cube, met } => CubeSpot::Match { cube, score, met },
        }
    }

    /// After the player on roll doubles and the opponent takes.
    fn doubled(&self) -> State<'a> {
        match *self {
            State::Money { jacoby, .. } => State::Money {
                owner: Owner::Opponent,
                jacoby,
            },
            State::Match { score, cube, met } => State::Match {
                score,
                cube: cube.doubled(),
                met,
            },
        }
    }

    /// The same state seen by the opponent.
    fn flip(&self) -> State<'a> {
        match *self {
            State::Money { owner, jacoby } => State::Money {
                owner: owner.flip(),
                jacoby,
            },
            State::Match { score, cube, met } => State::Match {
                score: score.flip(),
                cube: cube.flip(),
                met,
            },
        }
    }

    /// The player on roll's value seen by the opponent (money: negated, per unit
    /// of the same cube; match: complementary MWC).
    fn other_side(&self, v: f64) -> f64 {
        match self {
            State::Money { .. } => -v,
            State::Match { .. } => 1.0 - v,
        }
    }

    /// Value of a double/take from the value at the doubled state.
    fn dt(&self, doubled_value: f64) -> f64 {
        match self {
            State::Money { .. } => 2.0 * doubled_value,
            State::Match { .. } => doubled_value,
        }
    }

    /// Value of a double/pass.
    fn dp(&self) -> f64 {
        match *self {
            State::Money { .. } => 1.0,
            State::Match { score, cube, met } => score.mwc_after(met, true, cube.value),
        }
    }

    /// Exact value for the player who just won with `mult` (1, 2, 3) times the cube.
    fn won(&self, mult: u32) -> f64 {
        match *self {
            State::Money { owner, jacoby } => {
                if jacoby && owner == Owner::Centred {
                    1.0
                } else {
                    f64::from(mult)
                }
            }
            State::Match { score, cube, met } => score.mwc_after(met, true, cube.value * mult),
        }
    }

    /// Janowski's no-double value on `odds` at cube life `x`.
    fn janowski_nd(&self, odds: &GameOdds, x: f64) -> f64 {
        match *self {
            State::Money { owner, jacoby } => janowski::cubeful_equity(odds, owner, x, jacoby),
            State::Match { score, cube, met } => cubeful_mwc(met, score, cube, odds, x),
        }
    }
}

/// An n-ply cube analysis: the three values and the decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookaheadResult {
    pub units: Units,
    pub no_double: f64,
    pub double_take: Option<f64>,
    pub double_pass: Option<f64>,
    pub decision: CubeDecision,
}

/// The searcher: an evaluator, the cube life index at the leaves, move buffers.
pub struct Lookahead<'e> {
    eval: &'e dyn Evaluator,
    /// Cube life index at the leaves; `None`: each leaf's class default.
    x: Option<f64>,
    gens: Vec<MoveGenerator>,
}

impl<'e> Lookahead<'e> {
    /// A searcher with `eval` (fixed `x`, or the leaf's default when `None`).
    pub fn new(eval: &'e dyn Evaluator, x: Option<f64>) -> Lookahead<'e> {
        Lookahead {
            eval,
            x,
            gens: Vec::new(),
        }
    }

    /// The cube decision of the player on roll in `pos` at `spot`, looking `plies`
    /// rolls ahead (0: Janowski on the static evaluation).
    ///
    /// # Panics
    /// When `plies > MAX_PLIES` or `pos` is a finished game (callers check both).
    pub fn analyse(&mut self, pos: &Position, spot: &CubeSpot<'_>, plies: u32) -> LookaheadResult {
        assert!(plies <= MAX_PLIES, "lookahead of {plies} plies");
        assert!(
            terminal_probs(pos).is_none(),
            "no cube decision in a finished game"
        );
        let s = State::from_spot(spot);
        let may = spot.may_double();
        let states = if may { vec![s, s.doubled()] } else { vec![s] };
        let vals = self.play(pos, &states, plies, 0);
        let units = match s {
            State::Money { .. } => Units::Money,
            State::Match { .. } => Units::Mwc,
        };
        let nd = vals[0];
        if !may {
            return LookaheadResult {
                units,
                no_double: nd,
                double_take: None,
                double_pass: None,
                decision: CubeDecision::Unavailable,
            };
        }
        let (dt, dp) = (s.dt(vals[1]), s.dp());
        LookaheadResult {
            units,
            no_double: nd,
            double_take: Some(dt),
            double_pass: Some(dp),
            decision: CubeDecision::from_equities(nd, dt, dp),
        }
    }

    /// Node values: each state's value with its player's best cube action.
    fn node(&mut self, pos: &Position, states: &[State<'_>], plies: u32, level: usize) -> Vec<f64> {
        let mut play_states: Vec<State<'_>> = states.to_vec();
        let mut doubled_at: Vec<Option<usize>> = Vec::with_capacity(states.len());
        for s in states {
            if s.spot().may_double() {
                let d = s.doubled();
                let i = match play_states.iter().position(|t| *t == d) {
                    Some(i) => i,
                    None => {
                        play_states.push(d);
                        play_states.len() - 1
                    }
                };
                doubled_at.push(Some(i));
            } else {
                doubled_at.push(None);
            }
        }
        let vals = self.play(pos, &play_states, plies, level);
        states
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let nd = vals[k];
                match doubled_at[k] {
                    Some(i) => nd.max(s.dt(vals[i]).min(s.dp())),
                    None => nd,
                }
            })
            .collect()
    }

    /// No-double values of `states` (the player on roll keeps the cube as it is and
    /// rolls): Janowski at 0 plies, else the average over the rolls.
    fn play(&mut self, pos: &Position, states: &[State<'_>], plies: u32, level: usize) -> Vec<f64> {
        if plies == 0 {
            let odds = GameOdds::from_probs(&self.eval.evaluate(pos));
            let x = self.x.unwrap_or_else(|| default_x(pos));
            return states.iter().map(|s| s.janowski_nd(&odds, x)).collect();
        }
        if self.gens.len() <= level {
            self.gens.resize_with(level + 1, MoveGenerator::new);
        }
        let child_states: Vec<State<'_>> = states.iter().map(State::flip).collect();
        let mut sum = vec![0.0f64; states.len()];
        for &(dice, weight) in &Dice::ALL_21 {
            let w = f64::from(weight) / 36.0;
            let next = self.best_next(pos, dice, level);
            let vals: Vec<f64> = match terminal_probs(&next) {
                Some(t) => {
                    // `next` is seen by the loser, the opponent: the mover has won.
                    let mult = 1 + u32::from(t.0[3] > 0.5) + u32::from(t.0[4] > 0.5);
                    states.iter().map(|s| s.won(mult)).collect()
                }
                None => self
                    .node(&next, &child_states, plies - 1, level + 1)
                    .iter()
                    .zip(states)
                    .map(|(v, s)| s.other_side(*v))
                    .collect(),
            };
            for (acc, v) in sum.iter_mut().zip(vals) {
                *acc += w * v;
            }
        }
        sum
    }

    /// The position after the best move of `dice` (cubeless 0-ply), seen by the next
    /// player; the position passed over when the roll cannot be played.
    fn best_next(&mut self, pos: &Position, dice: Dice, level: usize) -> Position {
        let eval = self.eval;
        let mut best: Option<Position> = None;
        let mut best_eq = f32::NEG_INFINITY;
        for m in self.gens[level].generate(pos, dice) {
            let eq = after_move(eval, m).equity();
            if eq > best_eq {
                best_eq = eq;
                best = Some(m.next_position());
            }
        }
        best.unwrap_or_else(|| pos.switch_sides())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::CubeModel;
    use crate::eval::Probs;

    /// A race evaluator from the pip counts: deterministic and cheap.
    struct Pips;

    impl Evaluator for Pips {
        fn evaluate(&self, pos: &Position) -> Probs {
            let (me, opp) = pos.pip_counts();
            let d = (f64::from(opp) - f64::from(me) + 8.0) / 12.0;
            let p = 1.0 / (1.0 + (-d).exp());
            Probs([p as f32, 0.0, 0.0, 0.0, 0.0])
        }

        fn name(&self) -> String {
            "pips".into()
        }
    }

    fn race() -> Position {
        let mut m = [0u8; 25];
        let mut o = [0u8; 25];
        m[7] = 8;
        m[3] = 7;
        o[9] = 8;
        o[4] = 7;
        Position::from_arrays(&m, &o).unwrap()
    }

    #[test]
    fn zero_plies_is_the_static_analysis() {
        let met = MatchEquityTable::kazaross_xg2();
        let pos = race();
        let spots = [
            CubeSpot::Money {
                cube: Cube::INITIAL,
                jacoby: false,
            },
            CubeSpot::Match {
                cube: Cube::INITIAL,
                score: MatchScore::new(5, 7, false).unwrap(),
                met: &met,
            },
        ];
        for spot in &spots {
            let mut la = Lookahead::new(&Pips, Some(0.68));
            let r = la.analyse(&pos, spot, 0);
            let odds = GameOdds::from_probs(&Pips.evaluate(&pos));
            let model = match spot {
                CubeSpot::Money { .. } => CubeModel::JanowskiMoney { x: 0.68 },
                CubeSpot::Match { .. } => CubeModel::JanowskiMatch { x: 0.68 },
            };
            let a = model.analyse(&odds, spot);
            assert!((r.no_double - a.no_double).abs() < 1e-12);
            assert!((r.double_take.unwrap() - a.double_take.unwrap()).abs() < 1e-12);
            assert_eq!(r.double_pass, a.double_pass);
            assert_eq!(r.decision, a.decision);
        }
    }

    #[test]
    fn one_ply_values_are_roll_averages_and_bounded() {
        let met = MatchEquityTable::kazaross_xg2();
        let pos = race();
        let mut la = Lookahead::new(&Pips, Some(0.68));
        let money = CubeSpot::Money {
            cube: Cube::INITIAL,
            jacoby: false,
        };
        for plies in 1..=2 {
            let r = la.analyse(&pos, &money, plies);
            assert!(r.no_double.abs() <= 1.0 + 1e-9, "{r:?}");
            assert!(r.double_take.unwrap().abs() <= 2.0 + 1e-9, "{r:?}");
            // Being ahead in the race, the player on roll is a favourite.
            assert!(r.no_double > 0.0, "{r:?}");
            let m = la.analyse(
                &pos,
                &CubeSpot::Match {
                    cube: Cube::INITIAL,
                    score: MatchScore::new(3, 3, false).unwrap(),
                    met: &met,
                },
                plies,
            );
            assert!((0.0..=1.0).contains(&m.no_double), "{m:?}");
        }
        // The opponent owns the cube: nothing to decide, but a value still.
        let owned = CubeSpot::Money {
            cube: Cube {
                value: 2,
                owner: Owner::Opponent,
            },
            jacoby: false,
        };
        let r = la.analyse(&pos, &owned, 1);
        assert_eq!(r.decision, CubeDecision::Unavailable);
        assert!(r.no_double < la.analyse(&pos, &money, 1).no_double);
    }
}
