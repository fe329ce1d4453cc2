//! How the shared chequer player of a simulation picks its play.
//!
//! - [`ChequerPlay::Cubeless`] (the default): the play with the best cubeless money
//!   equity of the 0-ply probabilities, whatever the score and the cube; what every
//!   simulation did before the option existed, so old specs keep their results.
//! - [`ChequerPlay::Match`]: the play with the best cubeful value for the mover at the
//!   current score and cube: the 0-ply probabilities after the play turned into the
//!   mover's match-winning chance by Janowski's match-aware model
//!   ([`cubeful_mwc_with`]) with the mover's cube life index `x` (a jump model's
//!   `sigma` converted back, `x = 1 - 3.125 sigma`) and its cap at the cash when the
//!   mover's strategy is a capped one. In money play the same with Janowski's money
//!   equity (Jacoby rule included). So at 2-away/1-away (post-Crawford, cube 2 for
//!   the trailer) or in a double-match-point game a gammon is worth nothing and the
//!   play that wins most often is chosen, where the cubeless player would go for the
//!   gammon. Both seats use it; with equal `x` they play their chequers alike and
//!   differ only in their cube decisions.
//! - [`ChequerPlay::Own`]: each seat by its own cube model, as in Mark Higgins's
//!   match-versus-money experiment: a match-unaware model (money Janowski, capped or
//!   not) picks the play with the best money cubeful equity at the cube, blind to the
//!   score, gammons worth their money value; a match-aware model (match Janowski, the
//!   jump model) plays as [`ChequerPlay::Match`]. In money play it is
//!   [`ChequerPlay::Match`]. The default of `study match-vs-money`, where `match`
//!   would give the money player the score it is meant not to see.
//!
//! A play that ends the game is valued exactly (its cubeless value: the outcome is
//! certain, so no cube life applies). Ties keep the first play in generation order,
//! so the choice is deterministic.

use crate::cube::janowski::{capped_cubeful_equity, cubeful_equity};
use crate::cube::matchplay::cubeful_mwc_with;
use crate::cube::{CubeModel, CubeSpot};
use crate::error::ParseError;
use crate::eval::odds::GameOdds;
use crate::eval::Probs;
use std::fmt;

/// The chequer-play rule of a simulation (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChequerPlay {
    /// Best cubeless equity (0-ply).
    #[default]
    Cubeless,
    /// Best cubeful match-winning chance (money play: cubeful equity) for the mover.
    Match,
    /// Each seat by its own cube model: money models by money cubeful equity,
    /// match-aware ones by match-winning chance (module docs).
    Own,
}

impl ChequerPlay {
    /// Both rules, in wire order.
    pub const ALL: [ChequerPlay; 3] = [ChequerPlay::Cubeless, ChequerPlay::Match, ChequerPlay::Own];

    /// The name on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ChequerPlay::Cubeless => "cubeless",
            ChequerPlay::Match => "match",
            ChequerPlay::Own => "own",
        }
    }

    /// Parses `cubeless`, `match` or `own`.
    pub fn parse(text: &str) -> Result<ChequerPlay, ParseError> {
        let t = text.trim();
        ChequerPlay::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(t))
            .ok_or_else(|| {
                ParseError::new(format!(
                    "unknown chequer play {t:?}: use cubeless, match or own"
                ))
            })
    }

    /// The value the mover maximises for a play whose resulting probabilities (the
    /// mover's view) are `probs`, with the mover's cube `model` at `spot` (the
    /// mover's score and cube). Only the order of the values matters.
    pub fn value(self, spot: &CubeSpot<'_>, model: CubeModel, probs: &Probs) -> f64 {
        match self {
            ChequerPlay::Cubeless => f64::from(probs.equity()),
            ChequerPlay::Own if !match_aware(model) => {
                // Score-blind: the money value of the play at the cube as it stands.
                let money = match *spot {
                    CubeSpot::Match { cube, .. } => CubeSpot::Money {
                        cube,
                        jacoby: false,
                    },
                    money => money,
                };
                ChequerPlay::Match.value(&money, model, probs)
            }
            ChequerPlay::Match | ChequerPlay::Own => {
                let odds = GameOdds::from_probs(probs);
                let (x, capped) = cube_life(model);
                // A finished game: its outcome is certain, no cube life applies.
                let x = if odds.p >= 1.0 { 0.0 } else { x };
                match *spot {
                    CubeSpot::Match { cube, score, met } => {
                        cubeful_mwc_with(met, score, cube, &odds, x, capped)
                    }
                    CubeSpot::Money { cube, jacoby } if capped => {
                        capped_cubeful_equity(&odds, cube.owner, x, jacoby)
                    }
                    CubeSpot::Money { cube, jacoby } => {
                        cubeful_equity(&odds, cube.owner, x, jacoby)
                    }
                }
            }
        }
    }
}

/// Whether a model reads the score (the match table), so plays by its seat under
/// [`ChequerPlay::Own`] value match-winning chances.
fn match_aware(model: CubeModel) -> bool {
    match model {
        CubeModel::JanowskiMoney { .. } | CubeModel::JanowskiCapped { .. } => false,
        CubeModel::JanowskiMatch { .. }
        | CubeModel::JanowskiMatchCapped { .. }
        | CubeModel::Jump { .. }
        | CubeModel::JumpMatch { .. } => true,
    }
}

/// The cube life index of a model and whether its live curve is capped at the cash.
fn cube_life(model: CubeModel) -> (f64, bool) {
    match model {
        CubeModel::JanowskiMatch { x } | CubeModel::JanowskiMoney { x } => (x, false),
        CubeModel::JanowskiMatchCapped { x } | CubeModel::JanowskiCapped { x } => (x, true),
        // The inverse of `jump::equivalent_sigma`.
        CubeModel::Jump { sigma } | CubeModel::JumpMatch { sigma } => {
            ((1.0 - 3.125 * sigma).clamp(0.0, 1.0), false)
        }
    }
}

impl fmt::Display for ChequerPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::Cube;
    use crate::met::{MatchEquityTable, MatchScore};

    /// The mover's probabilities `[win, win gammon, win bg, lose gammon, lose bg]`.
    fn probs(p: [f32; 5]) -> Probs {
        Probs(p)
    }

    #[test]
    fn names() {
        assert_eq!(ChequerPlay::default(), ChequerPlay::Cubeless);
        for c in ChequerPlay::ALL {
            assert_eq!(ChequerPlay::parse(c.as_str()).unwrap(), c);
        }
        assert_eq!(ChequerPlay::parse(" Match ").unwrap(), ChequerPlay::Match);
        assert!(ChequerPlay::parse("cubeful")
            .is_err_and(|e| e.to_string().contains("cubeless, match or own")));
    }

    #[test]
    fn gammons_are_worthless_for_the_leader_at_double_match_point() {
        // Two plays: a safe one (62% wins, no gammons) and a bold one (58% wins, a
        // third of them gammons, 5% gammon losses). Cubeless, the bold play is far
        // better (+0.39 against +0.24); at double match point (1-away/1-away, the
        // Crawford game is past) and for the leader at 1-away/2-away post-Crawford
        // (the trailer's cube is on 2 after the automatic double) only the wins
        // count, so the safe play is chosen.
        let safe = probs([0.62, 0.0, 0.0, 0.0, 0.0]);
        let bold = probs([0.58, 0.20, 0.0, 0.05, 0.0]);
        let cubeless = ChequerPlay::Cubeless;
        let money = CubeSpot::Money {
            cube: Cube::INITIAL,
            jacoby: false,
        };
        let model = CubeModel::JanowskiMatch { x: 0.7 };
        assert!(cubeless.value(&money, model, &bold) > cubeless.value(&money, model, &safe));
        let met = MatchEquityTable::kazaross_xg2();
        let post = |away, opp_away, value| CubeSpot::Match {
            cube: Cube {
                value,
                owner: crate::cube::Owner::Opponent,
            },
            score: MatchScore::new(away, opp_away, false).unwrap(),
            met: &met,
        };
        for spot in [post(1, 1, 1), post(1, 2, 2)] {
            let m = ChequerPlay::Match;
            assert!(
                m.value(&spot, model, &safe) > m.value(&spot, model, &bold),
                "{spot:?}"
            );
            // The cubeless rule ignores the score: still the bold play.
            assert!(cubeless.value(&spot, model, &bold) > cubeless.value(&spot, model, &safe));
        }
        // At a money-like score the gammons pay again: the bold play.
        let long = CubeSpot::Match {
            cube: Cube::INITIAL,
            score: MatchScore::new(15, 15, false).unwrap(),
            met: &met,
        };
        let m = ChequerPlay::Match;
        assert!(m.value(&long, model, &bold) > m.value(&long, model, &safe));
    }

    /// `own` at double match point (1-away/1-away): the match-aware seat counts
    /// only wins and plays safe (0.62 against 0.58), the money seat values the
    /// gammons as money does. Cubeless money equities by hand: safe 2(0.62) - 1 =
    /// +0.24, bold 2(0.58) - 1 + 0.20 - 0.05 = +0.31, so it plays bold; its value
    /// is exactly the money cubeful equity at the same cube, score unseen. In money
    /// play `own` is `match` for every model.
    #[test]
    fn own_plays_each_seat_by_its_model() {
        let safe = probs([0.62, 0.0, 0.0, 0.0, 0.0]);
        let bold = probs([0.58, 0.20, 0.0, 0.05, 0.0]);
        let met = MatchEquityTable::kazaross_xg2();
        let dmp = CubeSpot::Match {
            cube: Cube::INITIAL,
            score: MatchScore::new(1, 1, false).unwrap(),
            met: &met,
        };
        let money = CubeSpot::Money {
            cube: Cube::INITIAL,
            jacoby: false,
        };
        let own = ChequerPlay::Own;
        let aware = CubeModel::JanowskiMatchCapped { x: 0.7 };
        let blind = CubeModel::JanowskiCapped { x: 0.7 };
        assert!(own.value(&dmp, aware, &safe) > own.value(&dmp, aware, &bold));
        assert!(own.value(&dmp, blind, &bold) > own.value(&dmp, blind, &safe));
        for p in [safe, bold] {
            let m = ChequerPlay::Match;
            assert_eq!(own.value(&dmp, aware, &p), m.value(&dmp, aware, &p));
            assert_eq!(own.value(&dmp, blind, &p), m.value(&money, blind, &p));
            for model in [aware, blind, CubeModel::Jump { sigma: 0.1 }] {
                assert_eq!(own.value(&money, model, &p), m.value(&money, model, &p));
            }
        }
        assert!(!match_aware(blind) && !match_aware(CubeModel::JanowskiMoney { x: 0.5 }));
        assert!(match_aware(aware) && match_aware(CubeModel::Jump { sigma: 0.1 }));
    }

    #[test]
    fn finished_games_are_valued_exactly() {
        // A gammon win at 3-away/3-away, cube 1, capped model at x = 1: the live
        // curve capped at the cash would value it as a single win; the exact value
        // is ME(winning 2 points) = ME(1a, 3a).
        let met = MatchEquityTable::kazaross_xg2();
        let score = MatchScore::new(3, 3, false).unwrap();
        let spot = CubeSpot::Match {
            cube: Cube::INITIAL,
            score,
            met: &met,
        };
        let model = CubeModel::JanowskiMatchCapped { x: 1.0 };
        let gammon = probs([1.0, 1.0, 0.0, 0.0, 0.0]);
        let single = probs([1.0, 0.0, 0.0, 0.0, 0.0]);
        let m = ChequerPlay::Match;
        let v = m.value(&spot, model, &gammon);
        assert!((v - score.mwc_after(&met, true, 2)).abs() < 1e-12, "{v}");
        assert!(v > m.value(&spot, model, &single));
    }
}
