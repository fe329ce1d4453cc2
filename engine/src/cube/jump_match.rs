//! Higgins's jump model in match play: cubeful match-winning chances (MWC) from the
//! cubeless odds, a match equity table and the volatility `sigma`.
//!
//! The money model ([`super::jump`]) works in units of the cube: a cash is +1, the
//! opponent's cash -1, a won game `W`, a lost one `-L`. At a match score and cube
//! `c` the same units are had by mapping MWC linearly so that the cash `ME(win c)`
//! is +1 and the opponent's cash `ME(lose c)` is -1: with `mid = (ME(win c) +
//! ME(lose c))/2` and `half = (ME(win c) - ME(lose c))/2`,
//! - `W = (Mw - mid) / half`, `L = (mid - Ml) / half`, where `Mw`, `Ml` are the
//!   gammon-weighted MWC of winning and losing the game at cube `c` (as in match
//!   Janowski, `met::live_cube::win_value`);
//! - the cubeful MWC is `mid + half E`, `E` the jump model's equity for `p`, `W`, `L`
//!   and the cube's owner.
//!
//! The take and cash points are the jump model's for these `W` and `L`; a double is
//! valued by comparing MWC (`DT` = this value at cube `2c`, opponent owning, with
//! `W`, `L` taken at `2c`; `DP = ME(win c)`), so no closed-form decision point is
//! needed. What the mapping leaves out is the score-dependence of a recube's value
//! (money's recube is worth the same at every level); that is the model's
//! approximation, as Janowski's is its fixed `x`.
//!
//! Dead cubes, as match Janowski: the Crawford game, a cube dead for both and
//! 2-away/2-away are worth the cubeless MWC; a cube that only one player could
//! still turn is valued as owned by that player (the other's access is worth
//! nothing), and an owned cube its owner cannot turn is dead.
//!
//! Example (Kazaross-XG2, gammonless, 5-away/5-away, sigma = 0.08, tested): doubled
//! to 2, the taker owns the 2-cube, whose cashes are `ME(3a, 5a) = 0.64795` and
//! `ME(5a, 3a) = 0.35205`: `mid = 0.5`, `half = 0.14795`, `W = L = 1`. The owned curve
//! below its cash point is `-1 + p (S - (sigma/4) S^2 / ((W - 1/2)(L + 1)))` with `S =
//! 2.5`, slope `2.5 - 1.5625 sigma = 2.375`. A pass leaves `ME(5a, 4a) = 1 - 0.57732 =
//! 0.42268`, so the take point solves `0.5 + 0.14795 (-1 + 2.375 p) = 0.42268`:
//! `p = (1 - 0.07732 / 0.14795) / 2.375 = 0.201006`, below money's 0.210526 at the
//! same sigma (a pass costs less than a money point here: 0.07732 against half a
//! 2-cube's 0.14795 / 2 = 0.073975 would be money's ratio).

use super::jump;
use super::matchplay::cubeless_mwc;
use super::{Cube, Owner};
use crate::eval::odds::GameOdds;
use crate::met::live_cube::{loss_value, win_value};
use crate::met::{MatchEquity, MatchScore};

/// The jump model's `W` and `L` at `score` and cube `c`, with the `(mid, half)` of
/// the MWC mapping (module docs); `None` when a cash and the opponent's cash are
/// worth the same (a degenerate table).
pub fn match_w_l<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    c: u32,
    odds: &GameOdds,
) -> Option<(f64, f64, f64, f64)> {
    let cash = score.mwc_after(met, true, c);
    let opp_cash = score.mwc_after(met, false, c);
    let half = (cash - opp_cash) / 2.0;
    if half <= 1e-12 {
        return None;
    }
    let mid = (cash + opp_cash) / 2.0;
    // With a sane table a won game is worth at least the cash (`W >= 1`); the
    // floor keeps the model's `W - 1/2`, `L - 1/2` denominators away from 0.
    let w = ((win_value(met, score, c, odds) - mid) / half).max(1.0);
    let l = ((mid - loss_value(met, score, c, odds)) / half).max(1.0);
    Some((w, l, mid, half))
}

/// Cubeful MWC of the player on roll with `cube` under volatility `sigma`.
pub fn cubeful_mwc<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    cube: Cube,
    odds: &GameOdds,
    sigma: f64,
) -> f64 {
    let c = cube.value;
    let dead = cubeless_mwc(met, score, c, odds);
    if score.cubeless_only(c) {
        return dead;
    }
    let mover = !score.cube_dead_for_mover(c);
    let opponent = !score.flip().cube_dead_for_mover(c);
    let owner = match (cube.owner, mover, opponent) {
        (Owner::Centred, true, true) => Owner::Centred,
        (Owner::Centred | Owner::Mover, true, _) => Owner::Mover,
        (Owner::Centred | Owner::Opponent, _, true) => Owner::Opponent,
        _ => return dead,
    };
    match match_w_l(met, score, c, odds) {
        Some((w, l, mid, half)) => mid + half * jump::equity(odds.p, w, l, owner, sigma),
        None => dead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::met::MatchEquityTable;

    fn score(a: u32, b: u32) -> MatchScore {
        MatchScore::new(a, b, false).unwrap()
    }

    #[test]
    fn money_like_score_is_the_money_model() {
        // The module docs' example: at 5-away/5-away gammonless the mapping gives
        // W = L = 1 and the MWC is the money equity scaled by half = 0.07726.
        let met = MatchEquityTable::kazaross_xg2();
        let o = GameOdds::gammonless(0.3);
        let (w, l, mid, half) = match_w_l(&met, score(5, 5), 1, &o).unwrap();
        assert!((w - 1.0).abs() < 1e-12 && (l - 1.0).abs() < 1e-12);
        assert!((mid - 0.5).abs() < 1e-12, "{mid}");
        assert!((half - (met.pre_crawford(4, 5) - 0.5)).abs() < 1e-12);
        for owner in [Owner::Centred, Owner::Mover, Owner::Opponent] {
            let cube = Cube { value: 1, owner };
            let v = cubeful_mwc(&met, score(5, 5), cube, &o, 0.096);
            let e = jump::equity(0.3, 1.0, 1.0, owner, 0.096);
            assert!((v - (0.5 + half * e)).abs() < 1e-12, "{owner:?}");
        }
        assert!((jump::take_point(w, l, 0.096) - 0.212_766).abs() < 1e-6);
    }

    #[test]
    fn take_point_at_five_away_five_away_by_hand() {
        // The module docs' example: the taker's value owning the 2-cube equals the
        // pass at p = (1 - 0.07732 / 0.14795) / 2.375.
        let met = MatchEquityTable::kazaross_xg2();
        let s = score(5, 5);
        let tp: f64 = (1.0 - 0.07732 / 0.14795) / 2.375;
        assert!((tp - 0.201_006).abs() < 1e-6, "{tp}");
        let owned = Cube {
            value: 2,
            owner: Owner::Mover,
        };
        let take = cubeful_mwc(&met, s, owned, &GameOdds::gammonless(tp), 0.08);
        let pass = s.mwc_after(&met, false, 1);
        assert!((pass - 0.42268).abs() < 1e-12);
        assert!((take - pass).abs() < 1e-9, "{take} vs {pass}");
        // Money's take point at the same sigma is higher.
        assert!((jump::take_point(1.0, 1.0, 0.08) - 0.210_526).abs() < 1e-6);
    }

    #[test]
    fn dead_cubes_are_cubeless() {
        let met = MatchEquityTable::kazaross_xg2();
        let o = GameOdds::with_gammon_rate(0.6, 0.25);
        for (s, c) in [
            (MatchScore::new(1, 4, true).unwrap(), 1),
            (score(2, 2), 1),
            (score(2, 3), 4),
        ] {
            let cube = Cube {
                value: c,
                owner: Owner::Centred,
            };
            let v = cubeful_mwc(&met, s, cube, &o, 0.09);
            assert!((v - cubeless_mwc(&met, s, c, &o)).abs() < 1e-15, "{s:?}");
        }
        // 2-away/4-away, cube 2 owned by the 2-away player: dead for its owner.
        let own = Cube {
            value: 2,
            owner: Owner::Mover,
        };
        let v = cubeful_mwc(&met, score(2, 4), own, &o, 0.09);
        assert!((v - cubeless_mwc(&met, score(2, 4), 2, &o)).abs() < 1e-15);
    }
}
