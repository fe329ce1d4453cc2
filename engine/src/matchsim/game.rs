//! One game with the doubling cube between two cube strategies that share a chequer
//! player (the evaluator's best 0-ply move by the simulation's [`ChequerPlay`] rule:
//! cubeless equity by default).
//!
//! Turn order: before rolling, the player on roll may double (not on the opening
//! roll); the opponent takes or passes; a pass ends the game for the cube's value
//! before the double. Then the roll is played. Gammons and backgammons count double
//! and triple the cube (money play with the Jacoby rule: only once the cube was
//! turned). In a match the points are simply capped by the match's end, and the
//! legality rules come from [`CubeSpot::may_double`]: no doubles in the Crawford
//! game, none with a cube that is dead for the doubler.
//!
//! Luck (optional): before each roll, `V(S, r)` is the roller's value after their best
//! move for each of the 21 rolls (the 15 non-doubles for the opening roll): money
//! points (cube times cubeless equity) or cubeless MWC at the current cube. The luck
//! of the actual roll is `V(S, R) - mean_r V(S, r)`: zero-mean whatever `V` is, so
//! subtracting the summed luck from a result leaves an unbiased estimate with
//! less variance. It costs the 20 other rolls' moves, about 20 times the game.
//! Cube actions carry no luck.

use crate::cube::matchplay::cubeless_mwc;
use crate::cube::volatility::position_sigma;
use crate::cube::{Cube, CubeDecision, CubeSpot, Owner};
use crate::dice::Dice;
use crate::eval::odds::GameOdds;
use crate::eval::{after_move, terminal_probs, Evaluator, Probs};
use crate::met::{MatchEquityTable, MatchScore};
use crate::movegen::{Move, MoveGenerator};
use crate::position::Position;
use crate::rng::Rng;

use super::chequer::ChequerPlay;
use super::strategy::CubeStrategy;

/// Largest cube in money play (2^12): a cap a real session never reaches.
pub const MONEY_CUBE_CAP: u32 = 1 << 12;

/// The rules a game is played under, per seat.
#[derive(Clone, Copy, Debug)]
pub enum Rules<'a> {
    Money {
        jacoby: bool,
    },
    Match {
        /// Points each seat needs.
        away: [u32; 2],
        /// This is the Crawford game.
        crawford: bool,
        /// The table the luck is measured with.
        met: &'a MatchEquityTable,
        /// The table each seat decides with (its cube actions and, under
        /// `ChequerPlay::Match`/`Own`, its plays): `met` unless a player has its own.
        mets: [&'a MatchEquityTable; 2],
    },
}

/// How a game ended, by seat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameOutcome {
    /// Seat (0 or 1) that won.
    pub winner: usize,
    /// Points won: the cube times 1, 2 or 3, or the cube on a passed double.
    pub points: u32,
    /// Cube value at the end (before a passed double).
    pub cube: u32,
    /// The game ended with a passed double.
    pub dropped: bool,
    /// Borne to the end as a gammon (backgammons included).
    pub gammon: bool,
    pub backgammon: bool,
    /// Doubles taken in the game.
    pub doubles: u32,
    pub turns: u32,
    /// Summed luck of each seat, in its own units (money points or MWC).
    pub luck: [f64; 2],
}

/// The shared chequer player and its buffers.
pub struct Table<'a> {
    pub eval: &'a dyn Evaluator,
    pub luck: bool,
    pub chequer: ChequerPlay,
    gen: MoveGenerator,
}

impl<'a> Table<'a> {
    /// A table playing with `eval` by the `chequer` rule; `luck` turns the luck
    /// measurement on.
    pub fn new(eval: &'a dyn Evaluator, luck: bool, chequer: ChequerPlay) -> Table<'a> {
        Table {
            eval,
            luck,
            chequer,
            gen: MoveGenerator::new(),
        }
    }

    /// Best move of `dice` by `value` of the mover's probabilities after it (the
    /// first of equal ones), with those probabilities; `None` when the roll cannot
    /// be played.
    fn best(
        &mut self,
        pos: &Position,
        dice: Dice,
        value: &dyn Fn(&Probs) -> f64,
    ) -> Option<(Move, Probs)> {
        let mut best: Option<(Move, Probs)> = None;
        let mut best_eq = f64::NEG_INFINITY;
        for m in self.gen.generate(pos, dice) {
            let p = after_move(self.eval, m);
            let eq = value(&p);
            if eq > best_eq {
                best_eq = eq;
                best = Some((*m, p));
            }
        }
        best
    }

    /// Probabilities of the mover when the roll cannot be played.
    fn pass_probs(&self, pos: &Position) -> Probs {
        self.eval.evaluate(&pos.switch_sides()).flip()
    }

    /// Plays one game; `strategies[s]` is seat `s`'s, `opener` rolls first.
    pub fn play(
        &mut self,
        rules: &Rules<'_>,
        strategies: [&CubeStrategy; 2],
        rng: &mut Rng,
        opener: usize,
    ) -> GameOutcome {
        let mut pos = Position::STARTING;
        let mut side = opener;
        let mut cube = 1u32;
        let mut owner: Option<usize> = None;
        let mut luck = [0.0f64; 2];
        let mut doubles = 0u32;
        let mut turns = 0u32;
        let mut dice = loop {
            let d = rng.roll();
            if !d.is_double() {
                break d;
            }
        };
        let mut opening = true;
        loop {
            if !opening {
                let spot_cube = seat_cube(cube, owner, side);
                if let Some(verdict) = self.cube_action(rules, strategies, &pos, side, spot_cube) {
                    if verdict {
                        cube *= 2;
                        owner = Some(1 - side);
                        doubles += 1;
                    } else {
                        return GameOutcome {
                            winner: side,
                            points: cube,
                            cube,
                            dropped: true,
                            gammon: false,
                            backgammon: false,
                            doubles,
                            turns,
                            luck,
                        };
                    }
                }
                dice = rng.roll();
            }
            turns += 1;
            let (chequer, spot) = (
                self.chequer,
                seat_spot(rules, side, seat_cube(cube, owner, side)),
            );
            let model = strategies[side].model;
            let choose = move |p: &Probs| chequer.value(&spot, model, p);
            let chosen = if self.luck {
                let (m, l) = self.with_luck(rules, &pos, side, cube, dice, opening, &choose);
                luck[side] += l;
                m
            } else {
                self.best(&pos, dice, &choose).map(|(m, _)| m)
            };
            opening = false;
            match chosen {
                None => pos = pos.switch_sides(),
                Some(m) => {
                    pos = m.next_position();
                    if let Some(t) = terminal_probs(&pos) {
                        // `pos` is seen by the loser.
                        let gammon = t.0[3] > 0.5;
                        let backgammon = t.0[4] > 0.5;
                        let counts =
                            !matches!(rules, Rules::Money { jacoby: true } if owner.is_none());
                        let mult = if counts {
                            1 + u32::from(gammon) + u32::from(backgammon)
                        } else {
                            1
                        };
                        return GameOutcome {
                            winner: side,
                            points: cube * mult,
                            cube,
                            dropped: false,
                            gammon,
                            backgammon,
                            doubles,
                            turns,
                            luck,
                        };
                    }
                }
            }
            side = 1 - side;
        }
    }

    /// The cube action of `side` before rolling: `None` without a double,
    /// `Some(true)` for double/take, `Some(false)` for double/pass.
    fn cube_action(
        &mut self,
        rules: &Rules<'_>,
        strategies: [&CubeStrategy; 2],
        pos: &Position,
        side: usize,
        cube: Cube,
    ) -> Option<bool> {
        let spot = seat_spot(rules, side, cube);
        if !spot.may_double()
            || (matches!(rules, Rules::Money { .. }) && cube.value >= MONEY_CUBE_CAP)
        {
            return None;
        }
        let me = strategies[side];
        let odds = GameOdds::from_probs(&self.eval.evaluate(pos));
        let automatic = me.automatic_post_crawford_double()
            && matches!(spot, CubeSpot::Match { score, .. } if score.is_post_crawford() && score.opp_away == 1);
        // A `sigma=auto` strategy's volatility of this position, measured at most
        // once for both players' decisions, and only when one of them needs it.
        let mut sigma: Option<f64> = None;
        let (eval, gen) = (self.eval, &mut self.gen);
        let mut sigma_of = || *sigma.get_or_insert_with(|| position_sigma(eval, pos, gen));
        let doubles = automatic
            || matches!(
                me.model_at(&mut sigma_of).decide(&odds, &spot),
                CubeDecision::DoubleTake | CubeDecision::DoublePass
            );
        if !doubles {
            return None;
        }
        // The taker judges the doubler's position with its own table.
        let taker_spot = match spot {
            CubeSpot::Match { cube, score, .. } => match rules {
                Rules::Match { mets, .. } => CubeSpot::Match {
                    cube,
                    score,
                    met: mets[1 - side],
                },
                Rules::Money { .. } => spot,
            },
            money => money,
        };
        Some(
            strategies[1 - side]
                .model_at(&mut sigma_of)
                .takes(&odds, &taker_spot),
        )
    }

    /// Chooses the move for `dice` by `choose` and measures the roll's luck for the
    /// mover.
    #[allow(clippy::too_many_arguments)]
    fn with_luck(
        &mut self,
        rules: &Rules<'_>,
        pos: &Position,
        side: usize,
        cube: u32,
        dice: Dice,
        opening: bool,
        choose: &dyn Fn(&Probs) -> f64,
    ) -> (Option<Move>, f64) {
        let value = |p: &Probs| -> f64 {
            match rules {
                Rules::Money { .. } => f64::from(cube) * f64::from(p.equity()),
                Rules::Match {
                    away,
                    crawford,
                    met,
                    ..
                } => {
                    let score = MatchScore {
                        away: away[side],
                        opp_away: away[1 - side],
                        crawford: *crawford,
                    };
                    cubeless_mwc(*met, score, cube, &GameOdds::from_probs(p))
                }
            }
        };
        let mut sum = 0.0;
        let mut weight = 0.0;
        let mut actual: Option<(Option<Move>, f64)> = None;
        for &(d, w) in &Dice::ALL_21 {
            if opening && d.is_double() {
                continue;
            }
            let (m, v) = match self.best(pos, d, choose) {
                Some((m, p)) => (Some(m), value(&p)),
                None => (None, value(&self.pass_probs(pos))),
            };
            sum += f64::from(w) * v;
            weight += f64::from(w);
            if d.high_low() == dice.high_low() {
                actual = Some((m, v));
            }
        }
        match actual {
            Some((m, v)) => (m, v - sum / weight),
            // Unreachable: `dice` is one of the 21 rolls (a non-double when opening).
            None => (self.best(pos, dice, choose).map(|(m, _)| m), 0.0),
        }
    }
}

/// The cube as seat `side` sees it.
fn seat_cube(value: u32, owner: Option<usize>, side: usize) -> Cube {
    Cube {
        value,
        owner: match owner {
            None => Owner::Centred,
            Some(o) if o == side => Owner::Mover,
            Some(_) => Owner::Opponent,
        },
    }
}

/// The decision spot of seat `side`.
fn seat_spot<'a>(rules: &Rules<'a>, side: usize, cube: Cube) -> CubeSpot<'a> {
    match *rules {
        Rules::Money { jacoby } => CubeSpot::Money { cube, jacoby },
        Rules::Match {
            away,
            crawford,
            mets,
            ..
        } => CubeSpot::Match {
            cube,
            score: MatchScore {
                away: away[side],
                opp_away: away[1 - side],
                crawford,
            },
            met: mets[side],
        },
    }
}
