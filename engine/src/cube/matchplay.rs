//! Janowski's model in match play: cubeful match-winning chances (MWC) from the
//! cubeless odds, a match equity table and the cube life index `x`.
//!
//! - Outcome values at cube `c`: win `Mw = (1 - g0 - b0) ME(win c) + g0 ME(win 2c) +
//!   b0 ME(win 3c)`, loss `Ml` likewise; `Mcash = ME(win c)`, `Mopp = ME(lose c)`.
//!   Dead (cubeless) MWC: `p Mw + (1 - p) Ml`.
//! - Live cash points over cube levels ([`live_cash_points`], GNU Backgammon's
//!   `GetPoints`): at the highest level where a redouble would be dead the cash point
//!   is `(DTL - DP) / (DTL - DTW)` with gammons counted (and the taker's automatic
//!   redouble when the doubled cube is dead for the doubler only); below it
//!   `CP_k(c) = 1 - CP_opp(2c) (DP - DTW) / (RDP - DTW)`.
//! - Live MWC is piecewise linear in `p` with the money shapes: centred
//!   (0, Ml), (TP, Mopp), (CP, Mcash), (1, Mw); owned (0, Ml), (CP, Mcash), (1, Mw);
//!   opponent owns (0, Ml), (TP, Mopp), (1, Mw), where `TP = 1 - CP_opp`.
//!   `MWC = (1 - x) dead + x live`.
//! - The Crawford game, a cube dead for both players, and 2-away/2-away are worth
//!   their cubeless MWC ([`MatchScore::cubeless_only`]).
//!
//! Example (Kazaross-XG2, gammonless, 2-away vs 4-away, cube 1): a double is dead
//! for the leader, the trailer redoubles to 4 at once and the game decides the
//! match, so the leader's cash point is its MWC on a pass, `ME(1a, 4a) = 0.81436`;
//! the trailer's is `ME(3a, 2a) / ME(2a, 2a) = 0.40053 / 0.5 = 0.80106`.

use super::{piecewise, Cube, Owner};
use crate::eval::odds::GameOdds;
use crate::met::live_cube::{live_cash_points, loss_value, win_value};
use crate::met::{MatchEquity, MatchScore};

/// Cubeless (dead cube) MWC of the player on roll at cube `c`.
pub fn cubeless_mwc<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    c: u32,
    odds: &GameOdds,
) -> f64 {
    odds.p * win_value(met, score, c, odds) + (1.0 - odds.p) * loss_value(met, score, c, odds)
}

/// Gammon price at cube `c` for the player on roll, `2 (ME_wg - ME_w) / (ME_w - ME_l)`:
/// what a gammon win adds relative to a single game's swing (1 in money play).
pub fn gammon_price<M: MatchEquity + ?Sized>(met: &M, score: MatchScore, c: u32) -> f64 {
    let w = score.mwc_after(met, true, c);
    let wg = score.mwc_after(met, true, 2 * c);
    let l = score.mwc_after(met, false, c);
    if w - l <= 1e-12 {
        return 0.0;
    }
    2.0 * (wg - w) / (w - l)
}

/// Cubeful MWC of the player on roll with cube `cube`, at cube life `x`.
pub fn cubeful_mwc<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    cube: Cube,
    odds: &GameOdds,
    x: f64,
) -> f64 {
    cubeful_mwc_with(met, score, cube, odds, x, false)
}

/// [`cubeful_mwc`], optionally with the live curve of a player with cube access
/// capped at the cash above their cash point (the match form of
/// [`super::janowski::capped_cubeful_equity`]: too good only when the dead-cube MWC
/// beats the cash, and a cube life of 1 still doubles and cashes).
pub fn cubeful_mwc_with<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    cube: Cube,
    odds: &GameOdds,
    x: f64,
    capped: bool,
) -> f64 {
    let c = cube.value;
    let dead = cubeless_mwc(met, score, c, odds);
    if score.cubeless_only(c) {
        return dead;
    }
    let [cp_me, cp_opp] = live_cash_points(met, score, c, odds);
    // Overlapping windows cannot happen with a sane table; keep the curve ordered.
    let tp = (1.0 - cp_opp).min(cp_me);
    let mw = win_value(met, score, c, odds);
    let ml = loss_value(met, score, c, odds);
    let cash = score.mwc_after(met, true, c);
    let opp_cash = score.mwc_after(met, false, c);
    let p = odds.p;
    let live = match cube.owner {
        Owner::Centred => piecewise(p, &[(0.0, ml), (tp, opp_cash), (cp_me, cash), (1.0, mw)]),
        Owner::Mover => piecewise(p, &[(0.0, ml), (cp_me, cash), (1.0, mw)]),
        Owner::Opponent => piecewise(p, &[(0.0, ml), (tp, opp_cash), (1.0, mw)]),
    };
    let live = if capped && cube.owner != Owner::Opponent {
        live.min(cash)
    } else {
        live
    };
    (1.0 - x) * dead + x * live
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::met::{MatchEquity, MatchEquityTable};

    fn score(a: u32, b: u32) -> MatchScore {
        MatchScore::new(a, b, false).unwrap()
    }

    #[test]
    fn dead_cash_point_at_two_away_four_away() {
        // 2-away vs 4-away, cube 1, gammonless: a double to 2 is dead for the leader
        // (2 points win), so the trailer redoubles to 4 at once and the game decides
        // the match: the trailer's take point is the leader's MWC on a pass,
        // CP = (DTL - DP) / (DTL - DTW) = (0 - ME(1, 4)) / (0 - 1) = ME(1a, 4a).
        let met = MatchEquityTable::kazaross_xg2();
        let cps = live_cash_points(&met, score(2, 4), 1, &GameOdds::gammonless(0.5));
        assert!((cps[0] - 0.81436).abs() < 1e-12, "{cps:?}");
        // The trailer doubling to 2: DTW = ME(2a, 2a) = 0.5, DTL = 0, DP = ME(3a, 2a).
        let want = (0.0 - (1.0 - 0.59947)) / (0.0 - 0.5);
        assert!((cps[1] - want).abs() < 1e-12, "{cps:?}");
    }

    #[test]
    fn money_like_score_has_sensible_points() {
        // Long match, gammonless: take points near money's live 20% and cash points
        // near 80%.
        let met = MatchEquityTable::kazaross_xg2();
        let cps = live_cash_points(&met, score(25, 25), 1, &GameOdds::gammonless(0.5));
        for cp in cps {
            assert!((0.76..0.84).contains(&cp), "{cps:?}");
        }
    }

    #[test]
    fn cubeful_mwc_shapes() {
        let met = MatchEquityTable::kazaross_xg2();
        let s = score(5, 7);
        let o = GameOdds::with_gammon_rate(0.5, 0.2);
        let dead = cubeless_mwc(&met, s, 1, &o);
        // x = 0 is the cubeless value for every owner.
        for owner in [Owner::Centred, Owner::Mover, Owner::Opponent] {
            let cube = Cube { value: 1, owner };
            assert!((cubeful_mwc(&met, s, cube, &o, 0.0) - dead).abs() < 1e-12);
        }
        // Owning the cube helps; the opponent owning it hurts.
        let at = |owner| cubeful_mwc(&met, s, Cube { value: 2, owner }, &o, 0.68);
        assert!(at(Owner::Mover) > at(Owner::Centred));
        assert!(at(Owner::Opponent) < at(Owner::Centred));
        // The end points are the certain results.
        let sure = o.at(1.0);
        let c = Cube::INITIAL;
        assert!((cubeful_mwc(&met, s, c, &sure, 1.0) - win_value(&met, s, 1, &sure)).abs() < 1e-12);
    }

    #[test]
    fn janowski_table_entries_are_this_model_at_one_half() {
        // `met::janowski` builds its entries without this module (no import
        // circle); each must be match Janowski's cubeful MWC at p = 1/2, cube 1
        // centred, read from the table itself.
        for (x, g) in [(0.68, 0.26), (0.3, 0.2), (1.0, 0.0)] {
            let t = MatchEquityTable::janowski(x, g).unwrap();
            let o = GameOdds::with_gammon_rate(0.5, g);
            for (a, b) in [(2, 3), (2, 4), (3, 5), (4, 7), (7, 5), (9, 11), (25, 24)] {
                let v = cubeful_mwc(&t, score(a, b), Cube::INITIAL, &o, x);
                assert!((v - t.pre_crawford(a, b)).abs() < 1e-12, "{x} {g} {a}a{b}a");
            }
        }
    }

    #[test]
    fn crawford_game_is_cubeless() {
        let met = MatchEquityTable::kazaross_xg2();
        let s = MatchScore::new(1, 4, true).unwrap();
        let o = GameOdds::with_gammon_rate(0.4, 0.25);
        let v = cubeful_mwc(&met, s, Cube::INITIAL, &o, 1.0);
        assert!((v - cubeless_mwc(&met, s, 1, &o)).abs() < 1e-15);
    }

    #[test]
    fn gammon_price_of_money_like_and_dead_scores() {
        let met = MatchEquityTable::kazaross_xg2();
        // At 2-away vs 4-away with the cube on 2 a gammon is worth nothing extra.
        assert!(gammon_price(&met, score(2, 4), 2).abs() < 1e-12);
        // Long matches approach money's 1.
        let gp = gammon_price(&met, score(25, 25), 1);
        assert!((0.8..1.2).contains(&gp), "{gp}");
    }

    #[test]
    fn capped_curve_stops_at_the_cash() {
        // 7-away/7-away, gammonish odds: capped and uncapped agree up to the live
        // cash point and whenever the opponent owns the cube; above it the capped
        // live part is the cash, so at x = 1 no double is worth at most the cash.
        let met = MatchEquityTable::kazaross_xg2();
        let sc = score(7, 7);
        let cash = sc.mwc_after(&met, true, 1);
        for i in 0..=100 {
            let p = f64::from(i) / 100.0;
            let odds = GameOdds {
                p,
                win_gammon: 0.25 * p,
                win_backgammon: 0.0,
                lose_gammon: 0.25 * (1.0 - p),
                lose_backgammon: 0.0,
            };
            for owner in [Owner::Centred, Owner::Mover, Owner::Opponent] {
                let cube = Cube { value: 1, owner };
                let a = cubeful_mwc_with(&met, sc, cube, &odds, 1.0, false);
                let b = cubeful_mwc_with(&met, sc, cube, &odds, 1.0, true);
                assert!(b <= a + 1e-12, "{p} {owner:?}");
                if owner == Owner::Opponent {
                    assert_eq!(a, b);
                } else {
                    assert!(b <= cash + 1e-12, "{p} {owner:?}: {b} > cash {cash}");
                    if a <= cash {
                        assert_eq!(a, b, "{p} {owner:?}");
                    }
                }
            }
        }
    }
}
