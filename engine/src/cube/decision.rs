//! Cube decisions at 0-ply: no double, double/take, double/pass or too good, from
//! the cubeful equities of the three outcomes.
//!
//! `ND` is the cubeful equity with the cube as it is; `DT` the equity after a double
//! and take (cube `2c`, opponent owns it); `DP` the value of a pass (+1 cube in money
//! play, `ME(win c)` in a match). The player on roll doubles when `DT >= ND` and
//! `DP >= ND`; the opponent then takes when `DT < DP`. Otherwise there is no double,
//! and when `ND > DP` the position is too good to double (playing on for the gammon
//! is worth more than a cash). No closed-form decision points are needed.
//!
//! Units: money equities are per unit of the current cube (so `DT` is twice the
//! equity at cube `2c` per unit of `2c`); match values are MWC.

use super::janowski;
use super::jump;
use super::jump_match;
use super::matchplay::cubeful_mwc_with;
use super::{Cube, Owner};
use crate::eval::odds::GameOdds;
use crate::met::{MatchEquityTable, MatchScore};
use std::fmt;

/// How a player values the cube.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CubeModel {
    /// Janowski's money model with cube life index `x`. In a match this is the
    /// deliberately match-unaware baseline ("money Janowski in a match"): money `W`
    /// and `L`, money equities, only the match's legality rules.
    JanowskiMoney { x: f64 },
    /// Janowski extended with the match equity table; in money play the same as
    /// [`CubeModel::JanowskiMoney`].
    JanowskiMatch { x: f64 },
    /// Money Janowski with the live curve capped at the cash for the player with cube
    /// access (see [`janowski::capped_cubeful_equity`]): too good only when the
    /// cubeless equity beats the cash. Match-unaware in a match, like
    /// [`CubeModel::JanowskiMoney`]. The model of Higgins's 2012 cube-life simulations.
    JanowskiCapped { x: f64 },
    /// [`CubeModel::JanowskiMatch`] with the live curve capped at the cash
    /// ([`crate::cube::matchplay::cubeful_mwc_with`]); in money play the same as
    /// [`CubeModel::JanowskiCapped`].
    JanowskiMatchCapped { x: f64 },
    /// Higgins's jump model with volatility `sigma` (money formulas; in a match,
    /// match-unaware like `JanowskiMoney`).
    Jump { sigma: f64 },
    /// The jump model in match play ([`crate::cube::jump_match`]): `W` and `L` from
    /// the match table at the score, MWC compared; in money play the same as
    /// [`CubeModel::Jump`].
    JumpMatch { sigma: f64 },
}

/// Where a cube decision is taken: money play, or a match score with its table.
#[derive(Clone, Copy, Debug)]
pub enum CubeSpot<'a> {
    Money {
        cube: Cube,
        /// Jacoby rule: gammons do not count before the first double.
        jacoby: bool,
    },
    Match {
        cube: Cube,
        score: MatchScore,
        met: &'a MatchEquityTable,
    },
}

impl CubeSpot<'_> {
    /// The cube.
    pub fn cube(&self) -> Cube {
        match *self {
            CubeSpot::Money { cube, .. } | CubeSpot::Match { cube, .. } => cube,
        }
    }

    /// True when the player on roll may double now: not when the opponent owns the
    /// cube, in the Crawford game, or when the cube is dead for them.
    pub fn may_double(&self) -> bool {
        match *self {
            CubeSpot::Money { cube, .. } => cube.owner != Owner::Opponent,
            CubeSpot::Match { cube, score, .. } => {
                cube.owner != Owner::Opponent && !score.cube_dead_for_mover(cube.value)
            }
        }
    }

    /// True when the opponent could double on their turn with this cube.
    pub fn opponent_may_double(&self) -> bool {
        match *self {
            CubeSpot::Money { cube, .. } => cube.owner != Owner::Mover,
            CubeSpot::Match { cube, score, .. } => {
                cube.owner != Owner::Mover && !score.flip().cube_dead_for_mover(cube.value)
            }
        }
    }
}

/// The proper cube action of the player on roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubeDecision {
    /// Not yet: keep the cube.
    NoDouble,
    /// Double; the opponent should take.
    DoubleTake,
    /// Double; the opponent should pass.
    DoublePass,
    /// Too good to double: play on for the gammon.
    TooGood,
    /// The player on roll may not double (the opponent owns the cube, Crawford game,
    /// or the cube is dead for them).
    Unavailable,
}

impl CubeDecision {
    /// Snake-case name for JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            CubeDecision::NoDouble => "no_double",
            CubeDecision::DoubleTake => "double_take",
            CubeDecision::DoublePass => "double_pass",
            CubeDecision::TooGood => "too_good",
            CubeDecision::Unavailable => "unavailable",
        }
    }

    /// The three-way rule of the module docs.
    pub fn from_equities(nd: f64, dt: f64, dp: f64) -> CubeDecision {
        if dt >= nd && dp >= nd {
            if dt < dp {
                CubeDecision::DoubleTake
            } else {
                CubeDecision::DoublePass
            }
        } else if nd > dp {
            CubeDecision::TooGood
        } else {
            CubeDecision::NoDouble
        }
    }
}

impl fmt::Display for CubeDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CubeDecision::NoDouble => "no double",
            CubeDecision::DoubleTake => "double, take",
            CubeDecision::DoublePass => "double, pass",
            CubeDecision::TooGood => "too good to double",
            CubeDecision::Unavailable => "no cube action (may not double)",
        })
    }
}

/// What the equities are measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Units {
    /// Money points per unit of the current cube.
    Money,
    /// Match-winning chances.
    Mwc,
}

/// A 0-ply cube analysis of the player on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeAnalysis {
    pub units: Units,
    /// Cubeless equity (money, per unit cube) or cubeless MWC.
    pub cubeless: f64,
    /// Cubeful equity without doubling.
    pub no_double: f64,
    /// Cubeful equity after double and take; `None` when doubling is not allowed.
    pub double_take: Option<f64>,
    /// Value of double and pass; `None` when doubling is not allowed.
    pub double_pass: Option<f64>,
    pub decision: CubeDecision,
    /// P(win) of the player on roll below which they should pass an opponent's
    /// double (same gammon ratios); `None` when the opponent may not double.
    pub take_point: Option<f64>,
    /// P(win) of the player on roll above which the opponent should pass their
    /// double; `None` when the player on roll may not double.
    pub cash_point: Option<f64>,
}

impl CubeAnalysis {
    /// Cubeful equity with the proper cube action.
    pub fn equity(&self) -> f64 {
        match (self.decision, self.double_take, self.double_pass) {
            (CubeDecision::DoubleTake, Some(dt), _) => dt,
            (CubeDecision::DoublePass, _, Some(dp)) => dp,
            _ => self.no_double,
        }
    }

    /// True when the player on roll should double.
    pub fn doubles(&self) -> bool {
        matches!(
            self.decision,
            CubeDecision::DoubleTake | CubeDecision::DoublePass
        )
    }

    /// True when, after a double, the opponent should take (`DT < DP`).
    pub fn opponent_takes(&self) -> bool {
        matches!((self.double_take, self.double_pass), (Some(dt), Some(dp)) if dt < dp)
    }
}

impl CubeModel {
    /// True for the models that read the match table (in a match).
    pub fn is_match_aware(&self) -> bool {
        matches!(
            self,
            CubeModel::JanowskiMatch { .. }
                | CubeModel::JanowskiMatchCapped { .. }
                | CubeModel::JumpMatch { .. }
        )
    }

    /// Cubeful MWC of the player on roll under a match-aware model (see
    /// [`CubeModel::is_match_aware`]; a money model is valued as match Janowski at
    /// its `x`, which no caller asks for).
    fn match_mwc(
        &self,
        met: &MatchEquityTable,
        score: MatchScore,
        cube: Cube,
        odds: &GameOdds,
    ) -> f64 {
        match *self {
            CubeModel::JumpMatch { sigma } | CubeModel::Jump { sigma } => {
                jump_match::cubeful_mwc(met, score, cube, odds, sigma)
            }
            CubeModel::JanowskiMatchCapped { x } | CubeModel::JanowskiCapped { x } => {
                cubeful_mwc_with(met, score, cube, odds, x, true)
            }
            CubeModel::JanowskiMatch { x } | CubeModel::JanowskiMoney { x } => {
                cubeful_mwc_with(met, score, cube, odds, x, false)
            }
        }
    }

    /// The 0-ply analysis of the player on roll with cubeless `odds` at `spot`.
    pub fn analyse(&self, odds: &GameOdds, spot: &CubeSpot<'_>) -> CubeAnalysis {
        match *spot {
            CubeSpot::Match { cube, score, met } if self.is_match_aware() => {
                match_analysis(*self, odds, spot, met, score, cube)
            }
            _ => money_analysis(*self, odds, spot),
        }
    }

    /// The proper action only, without the take and cash points (what a simulation
    /// needs at every turn: three cubeful values instead of a full analysis).
    pub fn decide(&self, odds: &GameOdds, spot: &CubeSpot<'_>) -> CubeDecision {
        if !spot.may_double() {
            return CubeDecision::Unavailable;
        }
        let nd = match *spot {
            CubeSpot::Match { cube, score, met } if self.is_match_aware() => {
                self.match_mwc(met, score, cube, odds)
            }
            CubeSpot::Money { cube, jacoby } => self.money_equity(odds, cube.owner, jacoby),
            CubeSpot::Match { cube, .. } => self.money_equity(odds, cube.owner, false),
        };
        let (dt, dp) = self.double_values(odds, spot);
        CubeDecision::from_equities(nd, dt, dp)
    }

    /// Whether a player using this model takes a double from an opponent whose
    /// odds (seen by the doubler, on roll) are `doubler_odds` at `doubler_spot`.
    pub fn takes(&self, doubler_odds: &GameOdds, doubler_spot: &CubeSpot<'_>) -> bool {
        let (dt, dp) = self.double_values(doubler_odds, doubler_spot);
        dt < dp
    }

    /// `(DT, DP)` of the player on roll under this model, whether or not a double is
    /// legal (the taker's view of a double it was offered).
    fn double_values(&self, odds: &GameOdds, spot: &CubeSpot<'_>) -> (f64, f64) {
        match *spot {
            CubeSpot::Match { cube, score, met } if self.is_match_aware() => (
                self.match_mwc(met, score, cube.doubled(), odds),
                score.mwc_after(met, true, cube.value),
            ),
            _ => (2.0 * self.money_equity(odds, Owner::Opponent, false), 1.0),
        }
    }

    /// Money cubeful equity per unit cube under a money model.
    fn money_equity(&self, odds: &GameOdds, owner: Owner, jacoby: bool) -> f64 {
        match *self {
            CubeModel::JanowskiMoney { x } | CubeModel::JanowskiMatch { x } => {
                janowski::cubeful_equity(odds, owner, x, jacoby)
            }
            CubeModel::JanowskiCapped { x } | CubeModel::JanowskiMatchCapped { x } => {
                janowski::capped_cubeful_equity(odds, owner, x, jacoby)
            }
            CubeModel::Jump { sigma } | CubeModel::JumpMatch { sigma } => {
                jump::equity(odds.p, odds.w(), odds.l(), owner, sigma)
            }
        }
    }
}

/// Money analysis (also money models used in a match: legality from the spot).
fn money_analysis(model: CubeModel, odds: &GameOdds, spot: &CubeSpot<'_>) -> CubeAnalysis {
    let cube = spot.cube();
    let jacoby = matches!(*spot, CubeSpot::Money { jacoby: true, .. });
    let nd = model.money_equity(odds, cube.owner, jacoby);
    let (w, l) = (odds.w(), odds.l());
    let (tp, cp) = match model {
        CubeModel::JanowskiMoney { x }
        | CubeModel::JanowskiMatch { x }
        | CubeModel::JanowskiCapped { x }
        | CubeModel::JanowskiMatchCapped { x } => {
            (janowski::take_point(w, l, x), janowski::cash_point(w, l, x))
        }
        CubeModel::Jump { sigma } | CubeModel::JumpMatch { sigma } => {
            (jump::take_point(w, l, sigma), jump::cash_point(w, l, sigma))
        }
    };
    let cubeless = if jacoby && cube.owner == Owner::Centred {
        2.0 * odds.p - 1.0
    } else {
        odds.money_equity()
    };
    finish(
        Units::Money,
        cubeless,
        nd,
        spot.may_double()
            .then(|| (2.0 * model.money_equity(odds, Owner::Opponent, false), 1.0)),
        spot.opponent_may_double().then_some(tp),
        spot.may_double().then_some(cp),
    )
}

/// Match analysis with the table (a match-aware model: match Janowski or the jump
/// model in match play).
fn match_analysis(
    model: CubeModel,
    odds: &GameOdds,
    spot: &CubeSpot<'_>,
    met: &MatchEquityTable,
    score: MatchScore,
    cube: Cube,
) -> CubeAnalysis {
    let c = cube.value;
    let value = |cube: Cube, o: &GameOdds| model.match_mwc(met, score, cube, o);
    let nd = value(cube, odds);
    let double = |o: &GameOdds| value(cube.doubled(), o);
    let dp = score.mwc_after(met, true, c);
    // Cash point: where a take is worth a pass. Take point: where the player on roll,
    // doubled by the opponent, does as well taking (owning 2c) as passing.
    let cash_point = spot
        .may_double()
        .then(|| crossing(|p| double(&odds.at(p)) - dp));
    let pass = score.mwc_after(met, false, c);
    let owned = Cube {
        value: 2 * c,
        owner: Owner::Mover,
    };
    let take_point = spot
        .opponent_may_double()
        .then(|| crossing(|p| value(owned, &odds.at(p)) - pass));
    finish(
        Units::Mwc,
        super::matchplay::cubeless_mwc(met, score, c, odds),
        nd,
        spot.may_double().then(|| (double(odds), dp)),
        take_point,
        cash_point,
    )
}

fn finish(
    units: Units,
    cubeless: f64,
    nd: f64,
    double: Option<(f64, f64)>,
    take_point: Option<f64>,
    cash_point: Option<f64>,
) -> CubeAnalysis {
    let decision = match double {
        Some((dt, dp)) => CubeDecision::from_equities(nd, dt, dp),
        None => CubeDecision::Unavailable,
    };
    CubeAnalysis {
        units,
        cubeless,
        no_double: nd,
        double_take: double.map(|d| d.0),
        double_pass: double.map(|d| d.1),
        decision,
        take_point,
        cash_point,
    }
}

/// The `p` in `[0, 1]` where the non-decreasing `f` crosses 0 (bisection to 1e-9);
/// 0 when `f(0) >= 0`, 1 when `f(1) < 0`.
fn crossing(f: impl Fn(f64) -> f64) -> f64 {
    if f(0.0) >= 0.0 {
        return 0.0;
    }
    if f(1.0) < 0.0 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while hi - lo > 1e-9 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests;
