//! The doubling cube inside a rollout trial: cube actions before each roll, the
//! cubeful result, and luck measured in cubeful units.
//!
//! Cube play follows the 0-ply cube decision of [`CubeModel::JanowskiMatch`] with the
//! cube life index of the position class ([`default_x`]): before rolling, a player
//! who may double does so when the decision says double/take or double/pass, and the
//! opponent takes when `DT < DP` by the same model. A pass ends the game for the
//! cube's value. Gammons count double and backgammons triple the cube, except under
//! the Jacoby rule before the first double. Match play uses the Kazaross-XG2 table
//! (Crawford and dead-cube rules from [`CubeSpot`]).
//!
//! Units: money results are points per unit of [`CubeStart::unit`], the cube before
//! the decision rolled out (a rollout of double/take starts with cube 2 and reports
//! its points per cube 1, as GNU Backgammon's normalised cubeful equity does); match
//! results are the match winning chances (MWC) of the player on roll at the start.
//!
//! Luck: the value of roll `r` at a state is the opponent's cubeful equity (no
//! double: Janowski with the current cube, `x` of the position before the roll)
//! after the mover's chosen reply, turned to the mover's side. It is a fixed function
//! of (state, roll), so the adjusted result stays unbiased; cube actions carry no
//! luck. Once a pass has decided the cubeful result, the cubeless game still plays
//! out (so the cubeless outputs of the trial stay unbiased too), without cube luck.

use crate::cube::janowski::cubeful_equity;
use crate::cube::life::default_x;
use crate::cube::lookahead::Lookahead;
use crate::cube::matchplay::cubeful_mwc;
use crate::cube::{Cube, CubeDecision, CubeModel, CubeSpot, Owner};
use crate::eval::odds::GameOdds;
use crate::eval::{Evaluator, Probs};
use crate::met::{MatchEquityTable, MatchScore};
use crate::position::Position;
use std::sync::OnceLock;

/// Largest cube a money trial turns (2^12, as the match simulator): doubling stops
/// there, which no real game reaches.
pub const MONEY_CUBE_CAP: u32 = 1 << 12;

/// The match equity table of cubeful match rollouts.
pub fn met() -> &'static MatchEquityTable {
    static MET: OnceLock<MatchEquityTable> = OnceLock::new();
    MET.get_or_init(MatchEquityTable::kazaross_xg2)
}

/// Money or match, seen from the player on roll at a trial's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubeRules {
    Money {
        /// Gammons count only once the cube has been turned.
        jacoby: bool,
    },
    Match {
        /// The match score of the player on roll at the start (checked).
        score: MatchScore,
    },
}

impl CubeRules {
    /// True when results are MWC (flip as `1 - x`), false for money (`-x`).
    pub fn is_match(&self) -> bool {
        matches!(self, CubeRules::Match { .. })
    }

    /// The same rules seen by the other player (the match score flipped).
    #[must_use]
    pub fn flipped(&self) -> CubeRules {
        match *self {
            CubeRules::Match { score } => CubeRules::Match {
                score: score.flip(),
            },
            money => money,
        }
    }

    /// The match score of the player these rules are seen from (`None` for money).
    pub fn score(&self) -> Option<MatchScore> {
        match *self {
            CubeRules::Match { score } => Some(score),
            CubeRules::Money { .. } => None,
        }
    }

    /// The decision spot of the player on roll holding `cube` under these rules.
    pub fn spot(&self, cube: Cube) -> CubeSpot<'static> {
        match *self {
            CubeRules::Match { score } => CubeSpot::Match {
                cube,
                score,
                met: met(),
            },
            CubeRules::Money { jacoby } => CubeSpot::Money { cube, jacoby },
        }
    }

    /// A cubeful value of the player on roll turned to the other side.
    pub fn flip_value(&self, v: f64) -> f64 {
        if self.is_match() {
            1.0 - v
        } else {
            -v
        }
    }
}

/// The cube at a trial's start (seen from the player on roll there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CubeStart {
    pub cube: Cube,
    /// Money results are in units of this cube value: the cube before the decision
    /// being rolled out, so "no double" and "double/take" compare directly (a won
    /// single game after a double and take is +2).
    pub unit: u32,
    /// The player on roll may not double before the first roll (the "no double"
    /// branch of a cube decision rollout).
    pub no_double_first: bool,
}

impl Default for CubeStart {
    fn default() -> Self {
        CubeStart {
            cube: Cube::INITIAL,
            unit: 1,
            no_double_first: false,
        }
    }
}

/// The cube's state during one trial, from the side of the player on roll now.
pub(super) struct CubeTrack {
    /// The rules seen by the player on roll now (the score flips every turn).
    rules: CubeRules,
    start_value: u32,
    cube: Cube,
    /// No cube action on the coming turn.
    hold: bool,
    /// The cubeful result, once a pass decided it (root player's side).
    pub decided: Option<f64>,
}

impl CubeTrack {
    pub(super) fn new(rules: CubeRules, start: CubeStart) -> CubeTrack {
        CubeTrack {
            rules,
            start_value: start.unit.max(1),
            cube: start.cube,
            hold: start.no_double_first,
            decided: None,
        }
    }

    fn spot(&self) -> CubeSpot<'static> {
        self.rules.spot(self.cube)
    }

    /// The Jacoby rule is in force (money play only).
    fn jacoby(&self) -> bool {
        matches!(self.rules, CubeRules::Money { jacoby: true })
    }

    /// Scale of money values: the current cube in units of the starting cube.
    fn scale(&self) -> f64 {
        f64::from(self.cube.value) / f64::from(self.start_value)
    }

    /// A value of the player on roll now, in result units, turned to the root side.
    fn to_root(&self, v: f64, root_moves: bool) -> f64 {
        if root_moves {
            v
        } else {
            self.rules.flip_value(v)
        }
    }

    /// Whether the player on roll may consider doubling now (costs an evaluation).
    pub(super) fn may_act(&self) -> bool {
        if self.decided.is_some() || self.hold {
            return false;
        }
        let spot = self.spot();
        spot.may_double()
            && !(matches!(self.rules, CubeRules::Money { .. }) && self.cube.value >= MONEY_CUBE_CAP)
    }

    /// The cube action of the player on roll in `pos` with 0-ply `probs`: doubles
    /// when the model says so; a pass decides the result, a take turns the cube.
    pub(super) fn act(&mut self, pos: &Position, probs: &Probs, root_moves: bool) {
        let odds = GameOdds::from_probs(probs);
        let model = CubeModel::JanowskiMatch { x: default_x(pos) };
        let spot = self.spot();
        if !matches!(
            model.decide(&odds, &spot),
            CubeDecision::DoubleTake | CubeDecision::DoublePass
        ) {
            return;
        }
        self.double(model.takes(&odds, &spot), root_moves);
    }

    /// [`CubeTrack::act`] with the cube decision (and the opponent's take or pass)
    /// of an `plies`-ply cubeful lookahead ([`Lookahead`]): Janowski at its leaves,
    /// about 21 x 20 evaluations per decision at 1 ply.
    pub(super) fn act_searched(
        &mut self,
        eval: &dyn Evaluator,
        pos: &Position,
        plies: u32,
        root_moves: bool,
    ) {
        let r = Lookahead::new(eval, None).analyse(pos, &self.spot(), plies);
        if !matches!(
            r.decision,
            CubeDecision::DoubleTake | CubeDecision::DoublePass
        ) {
            return;
        }
        let takes = matches!((r.double_take, r.double_pass), (Some(dt), Some(dp)) if dt < dp);
        self.double(takes, root_moves);
    }

    /// The player on roll doubles: a take turns the cube, a pass decides the result.
    fn double(&mut self, takes: bool, root_moves: bool) {
        if takes {
            self.cube = self.cube.doubled();
        } else {
            // The opponent passes: the mover wins the cube as it was.
            let v = match self.rules.score() {
                Some(score) => score.mwc_after(met(), true, self.cube.value),
                None => self.scale(),
            };
            self.decided = Some(self.to_root(v, root_moves));
        }
    }

    /// Cubeful value (root side) of a roll whose reply leaves the mover with `after`
    /// (mover's cubeless probabilities, the opponent on roll next); `x` is the cube
    /// life of the position before the roll.
    pub(super) fn roll_value(&self, after: &Probs, x: f64, root_moves: bool) -> f64 {
        let opp_odds = GameOdds::from_probs(&after.flip());
        let opp_cube = self.cube.flip();
        let opp_value = match self.rules.score() {
            Some(score) => cubeful_mwc(met(), score.flip(), opp_cube, &opp_odds, x),
            None => self.scale() * cubeful_equity(&opp_odds, opp_cube.owner, x, self.jacoby()),
        };
        // Seen from the mover, then from the root.
        self.to_root(self.rules.flip_value(opp_value), root_moves)
    }

    /// The turn passes to the other player.
    pub(super) fn switch(&mut self) {
        self.cube = self.cube.flip();
        self.rules = self.rules.flipped();
        self.hold = false;
    }

    /// The result (root side) when the game ended with `terminal` as the cubeless
    /// outcome of the player on roll now (the loser: probabilities 0 or 1).
    pub(super) fn finished(&self, terminal: &Probs, root_moves: bool) -> f64 {
        if let Some(v) = self.decided {
            return v;
        }
        let t = terminal.0;
        let won = t[0] > 0.5;
        let (gammon, backgammon) = if won {
            (t[1] > 0.5, t[2] > 0.5)
        } else {
            (t[3] > 0.5, t[4] > 0.5)
        };
        let counts = !matches!(self.rules, CubeRules::Money { jacoby: true })
            || self.cube.owner != Owner::Centred;
        let mult = if counts {
            1 + u32::from(gammon) + u32::from(backgammon)
        } else {
            1
        };
        let v = match self.rules.score() {
            Some(score) => score.mwc_after(met(), won, self.cube.value * mult),
            None => {
                let pts = self.scale() * f64::from(mult);
                if won {
                    pts
                } else {
                    -pts
                }
            }
        };
        self.to_root(v, root_moves)
    }

    /// The result (root side) when the trial stops early at `pos` (truncation or the
    /// bear-off tables) with 0-ply `probs` for the player on roll: the cubeful equity
    /// with the proper cube action by the model.
    pub(super) fn stopped(&self, pos: &Position, probs: &Probs, root_moves: bool) -> f64 {
        if let Some(v) = self.decided {
            return v;
        }
        let odds = GameOdds::from_probs(probs);
        let model = CubeModel::JanowskiMatch { x: default_x(pos) };
        let a = model.analyse(&odds, &self.spot());
        // On a held turn (the no-double branch) the cube stays where it is.
        let eq = if self.hold { a.no_double } else { a.equity() };
        let v = match self.rules.score() {
            Some(_) => eq,
            None => self.scale() * eq,
        };
        self.to_root(v, root_moves)
    }

    /// The cube value now (for tests and reports).
    #[cfg(test)]
    pub(super) fn cube(&self) -> Cube {
        self.cube
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_results_count_gammons_and_the_jacoby_rule() {
        let gammon_loss = Probs([0.0, 0.0, 0.0, 1.0, 0.0]);
        let mut t = CubeTrack::new(CubeRules::Money { jacoby: false }, CubeStart::default());
        assert_eq!(t.finished(&gammon_loss, true), -2.0);
        assert_eq!(t.finished(&gammon_loss, false), 2.0);
        let j = CubeTrack::new(CubeRules::Money { jacoby: true }, CubeStart::default());
        assert_eq!(j.finished(&gammon_loss, true), -1.0);
        // A turned cube: gammons count again, at twice the stake.
        t.cube = t.cube.doubled();
        assert_eq!(t.finished(&gammon_loss, true), -4.0);
        // Double/take rollouts report per cube before the double.
        let dt = CubeTrack::new(
            CubeRules::Money { jacoby: false },
            CubeStart {
                cube: Cube::INITIAL.doubled(),
                unit: 1,
                no_double_first: false,
            },
        );
        assert_eq!(dt.finished(&Probs([1.0, 0.0, 0.0, 0.0, 0.0]), true), 2.0);
    }

    #[test]
    fn a_certain_win_is_doubled_out_and_match_results_are_mwc() {
        // A hopeless position for the opponent: the mover doubles, the opponent passes.
        let mut t = CubeTrack::new(CubeRules::Money { jacoby: false }, CubeStart::default());
        let sure = Probs([0.99, 0.0, 0.0, 0.0, 0.0]);
        assert!(t.may_act());
        t.act(&Position::STARTING, &sure, false);
        assert_eq!(t.decided, Some(-1.0));
        assert!(!t.may_act());
        // A close position: no double, cube unchanged.
        let mut u = CubeTrack::new(CubeRules::Money { jacoby: false }, CubeStart::default());
        u.act(&Position::STARTING, &Probs([0.5, 0.1, 0.0, 0.1, 0.0]), true);
        assert_eq!((u.decided, u.cube()), (None, Cube::INITIAL));
        // Match: 3-away vs 5-away, a single win at cube 1 gives the MWC of 2-away/5-away.
        let score = MatchScore::new(3, 5, false).unwrap();
        let m = CubeTrack::new(CubeRules::Match { score }, CubeStart::default());
        let win = Probs([1.0, 0.0, 0.0, 0.0, 0.0]);
        let expected = score.mwc_after(met(), true, 1);
        assert!((m.finished(&win, true) - expected).abs() < 1e-12);
        assert!((m.finished(&win, false) - (1.0 - expected)).abs() < 1e-12);
    }

    #[test]
    fn the_no_double_branch_holds_the_cube_for_one_turn() {
        let mut t = CubeTrack::new(
            CubeRules::Money { jacoby: false },
            CubeStart {
                no_double_first: true,
                ..CubeStart::default()
            },
        );
        assert!(!t.may_act());
        t.switch();
        assert!(t.may_act());
    }
}
