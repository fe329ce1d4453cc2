//! Cubeless game odds in the form the cube formulas use.

use crate::eval::Probs;

/// Below this P(win) (or above 1 minus it) the gammon ratios of that side are taken as
/// 0: a net's 1e-9 win chance carries no usable information about how it wins.
const EPS: f64 = 1e-7;

/// Cubeless odds for the player on roll: P(win), and how wins and losses split into
/// single games, gammons and backgammons (conditional ratios, as GNU Backgammon's
/// `GetPoints` uses them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameOdds {
    /// P(win).
    pub p: f64,
    /// P(gammon but not backgammon | win).
    pub win_gammon: f64,
    /// P(backgammon | win).
    pub win_backgammon: f64,
    /// P(gammon but not backgammon | loss).
    pub lose_gammon: f64,
    /// P(backgammon | loss).
    pub lose_backgammon: f64,
}

impl GameOdds {
    /// From the evaluator's cumulative probabilities (sanitized first).
    pub fn from_probs(probs: &Probs) -> GameOdds {
        let [w, wg, wbg, lg, lbg] = probs.sanitized().0.map(f64::from);
        let (win_gammon, win_backgammon) = if w > EPS {
            ((wg - wbg) / w, wbg / w)
        } else {
            (0.0, 0.0)
        };
        let (lose_gammon, lose_backgammon) = if 1.0 - w > EPS {
            ((lg - lbg) / (1.0 - w), lbg / (1.0 - w))
        } else {
            (0.0, 0.0)
        };
        GameOdds {
            p: w,
            win_gammon,
            win_backgammon,
            lose_gammon,
            lose_backgammon,
        }
    }

    /// Odds with no gammons.
    pub fn gammonless(p: f64) -> GameOdds {
        GameOdds::with_gammon_rate(p, 0.0)
    }

    /// Odds where a fraction `g` of every side's wins are gammons (no backgammons):
    /// the symmetric model of computed match equity tables.
    pub fn with_gammon_rate(p: f64, g: f64) -> GameOdds {
        GameOdds {
            p,
            win_gammon: g,
            win_backgammon: 0.0,
            lose_gammon: g,
            lose_backgammon: 0.0,
        }
    }

    /// The same game seen by the opponent.
    #[must_use]
    pub fn flip(&self) -> GameOdds {
        GameOdds {
            p: 1.0 - self.p,
            win_gammon: self.lose_gammon,
            win_backgammon: self.lose_backgammon,
            lose_gammon: self.win_gammon,
            lose_backgammon: self.win_backgammon,
        }
    }

    /// The same ratios at another P(win): cube models vary `p` along a line of
    /// fixed gammon ratios.
    #[must_use]
    pub fn at(&self, p: f64) -> GameOdds {
        GameOdds { p, ..*self }
    }

    /// Janowski's `W`: average points won per game won (1 + gammons + backgammons).
    pub fn w(&self) -> f64 {
        1.0 + self.win_gammon + 2.0 * self.win_backgammon
    }

    /// Janowski's `L`: average points lost per game lost.
    pub fn l(&self) -> f64 {
        1.0 + self.lose_gammon + 2.0 * self.lose_backgammon
    }

    /// Cubeless money equity `p W - (1 - p) L`, per unit cube.
    pub fn money_equity(&self) -> f64 {
        self.p * self.w() - (1.0 - self.p) * self.l()
    }

    /// The evaluator's cumulative form again.
    pub fn probs(&self) -> [f64; 5] {
        let (p, q) = (self.p, 1.0 - self.p);
        [
            p,
            p * (self.win_gammon + self.win_backgammon),
            p * self.win_backgammon,
            q * (self.lose_gammon + self.lose_backgammon),
            q * self.lose_backgammon,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_cumulative_form() {
        let probs = Probs([0.6, 0.2, 0.02, 0.1, 0.004]);
        let o = GameOdds::from_probs(&probs);
        for (a, b) in o.probs().iter().zip(probs.0) {
            assert!((a - f64::from(b)).abs() < 1e-6, "{a} {b}");
        }
        // W = 1 + (pWG + pWB) / p, the spec's definition.
        assert!((o.w() - (1.0 + 0.22 / 0.6)).abs() < 1e-6);
        assert!((o.l() - (1.0 + 0.104 / 0.4)).abs() < 1e-6);
        assert!((o.money_equity() - f64::from(probs.equity())).abs() < 1e-6);
        assert_eq!(o.flip().flip(), o);
    }

    #[test]
    fn certain_results_have_finite_ratios() {
        let o = GameOdds::from_probs(&Probs::win(true, false));
        assert_eq!((o.p, o.lose_gammon, o.w()), (1.0, 0.0, 2.0));
        let o = GameOdds::from_probs(&Probs::loss(false, false));
        assert_eq!((o.p, o.win_gammon, o.l()), (0.0, 0.0, 1.0));
    }
}
