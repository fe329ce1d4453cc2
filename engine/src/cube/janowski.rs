//! Janowski's money cube model (Rick Janowski, "Take-points in money games", 1993).
//!
//! All equities are per unit of the current cube, for the player on roll, from the
//! cubeless odds `p`, `W`, `L` ([`GameOdds`]) and the cube life index `x` (0 = dead
//! cube, 1 = fully live).
//!
//! - Take and cash points: `TP = (L - 1/2) / (W + L + x/2)`,
//!   `CP = (L + 1/2 + x/2) / (W + L + x/2)`. Gammonless: TP = 25% dead, 20% live;
//!   CP = 75% dead, 80% live.
//! - Cubeful equity `E = (1 - x) D(p) + x Elive(p)`: the dead-cube equity
//!   `D = p (W + L) - L` mixed with the piecewise-linear live-cube equity (see
//!   [`live_equity`]). This is the form GNU Backgammon and Higgins use. Janowski's
//!   own closed form for the centred cube, [`closed_form_centred`], is not this mix:
//!   gammonless at x = 0.68 the two differ by 0.025 at the take point (and agree at
//!   p = 1/2). The mix is what makes the decision points exact: at `p = CP(x)` a
//!   take is worth exactly a pass, `2 E_opp-owned(2c) = 1`.
//! - Jacoby rule (centred cube only): gammons do not count before the first double,
//!   so the dead part is `2p - 1` and the live curve is flat at -1 below `TPl` and
//!   +1 above `CPl`.
//! - Cash-capped variant ([`capped_cubeful_equity`]): the live curve of a player with
//!   access to the cube stops at the cash (+1) above `CPl` instead of rising to `W`,
//!   so only the dead part values playing on for the gammon and the position is too
//!   good to double exactly when its cubeless equity beats the cash (at x = 1:
//!   never). The uncapped mix has a degenerate limit: at x = 1 with any gammons the
//!   doubling window closes (the doubling point, the cash point and the too-good
//!   point all equal `CPl`), so a player at x = 1 never doubles and never cashes.
//!   Capped, x = 1 doubles past the cash point and cashes. This reproduces Mark
//!   Higgins's published money simulations (2012, fixed x = 0.7 opponent) at x = 1:
//!   his win rate 58.3% and average cube 1.45 against our 58.6% and 1.42 capped,
//!   48.1% and 1.49 uncapped (20,000 games); for x = 0 to 0.75 both variants agree
//!   with his table within about 0.5% and 0.04.

use super::{piecewise, Owner};
use crate::eval::odds::GameOdds;

/// Janowski's take point for the player on roll at cube life `x`: the P(win) below
/// which they should pass a double (their `W`, `L`).
pub fn take_point(w: f64, l: f64, x: f64) -> f64 {
    (l - 0.5) / (w + l + x / 2.0)
}

/// Janowski's cash point for the player on roll at cube life `x`: the P(win) above
/// which the opponent should pass their double. `1 - CP` is the opponent's take
/// point.
pub fn cash_point(w: f64, l: f64, x: f64) -> f64 {
    (l + 0.5 + x / 2.0) / (w + l + x / 2.0)
}

/// Dead-cube equity `D(p) = p (W + L) - L`.
pub fn dead_equity(p: f64, w: f64, l: f64) -> f64 {
    p * (w + l) - l
}

/// Fully live cube (x = 1) equity, piecewise linear in `p` through
/// `TPl = (L - 1/2) / (W + L + 1/2)` and `CPl = (L + 1) / (W + L + 1/2)`:
/// - centred: (0, -L), (TPl, -1), (CPl, +1), (1, W);
/// - owned by the player on roll: (0, -L), (CPl, +1), (1, W);
/// - owned by the opponent: (0, -L), (TPl, -1), (1, W).
///
/// With `jacoby` and a centred cube: (0, -1), (TPl, -1), (CPl, +1), (1, +1).
pub fn live_equity(p: f64, w: f64, l: f64, owner: Owner, jacoby: bool) -> f64 {
    let tp = take_point(w, l, 1.0);
    let cp = (l + 1.0) / (w + l + 0.5);
    match owner {
        Owner::Centred if jacoby => piecewise(p, &[(0.0, -1.0), (tp, -1.0), (cp, 1.0), (1.0, 1.0)]),
        Owner::Centred => piecewise(p, &[(0.0, -l), (tp, -1.0), (cp, 1.0), (1.0, w)]),
        Owner::Mover => piecewise(p, &[(0.0, -l), (cp, 1.0), (1.0, w)]),
        Owner::Opponent => piecewise(p, &[(0.0, -l), (tp, -1.0), (1.0, w)]),
    }
}

/// Cubeful money equity per unit cube, `(1 - x) D(p) + x Elive(p)` (Jacoby: see the
/// module docs).
pub fn cubeful_equity(odds: &GameOdds, owner: Owner, x: f64, jacoby: bool) -> f64 {
    mix(odds, owner, x, jacoby, false)
}

/// The live curve capped at the cash: as [`live_equity`], but a player who may double
/// (centred cube or their own) is worth +1 above `CPl` (see the module docs).
pub fn capped_live_equity(p: f64, w: f64, l: f64, owner: Owner, jacoby: bool) -> f64 {
    let live = live_equity(p, w, l, owner, jacoby);
    // Both curves with cube access rise monotonically through +1 at `CPl`, so the
    // cap only bites above it.
    if owner == Owner::Opponent {
        live
    } else {
        live.min(1.0)
    }
}

/// Cubeful money equity with the cash-capped live curve, `(1 - x) D(p) + x
/// min(Elive(p), 1)` for a player with cube access (module docs).
pub fn capped_cubeful_equity(odds: &GameOdds, owner: Owner, x: f64, jacoby: bool) -> f64 {
    mix(odds, owner, x, jacoby, true)
}

/// `(1 - x) D(p) + x Elive(p)`, the live curve capped or not.
fn mix(odds: &GameOdds, owner: Owner, x: f64, jacoby: bool, capped: bool) -> f64 {
    let (p, w, l) = (odds.p, odds.w(), odds.l());
    let jacoby = jacoby && owner == Owner::Centred;
    let dead = if jacoby {
        2.0 * p - 1.0
    } else {
        dead_equity(p, w, l)
    };
    let live = if capped {
        capped_live_equity(p, w, l, owner, jacoby)
    } else {
        live_equity(p, w, l, owner, jacoby)
    };
    (1.0 - x) * dead + x * live
}

/// Janowski's closed form for the centred cube, `4/(4 - x) [p (W + L + x/2) - L - x/4]`,
/// kept for comparison with the linear mix ([`cubeful_equity`]).
pub fn closed_form_centred(p: f64, w: f64, l: f64, x: f64) -> f64 {
    4.0 / (4.0 - x) * (p * (w + l + x / 2.0) - l - x / 4.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn gammonless_take_and_cash_points() {
        assert!(close(take_point(1.0, 1.0, 0.0), 0.25));
        assert!(close(take_point(1.0, 1.0, 1.0), 0.20));
        assert!(close(cash_point(1.0, 1.0, 0.0), 0.75));
        assert!(close(cash_point(1.0, 1.0, 1.0), 0.80));
    }

    #[test]
    fn take_and_cash_points_are_indifference_points() {
        // For any W, L and x: at the cash point a take (opponent owns the 2-cube) is
        // worth exactly a pass, and at the take point taking (owning the 2-cube)
        // loses exactly one unit.
        for &(w, l) in &[(1.0, 1.0), (1.3, 1.2), (2.0, 1.5), (1.05, 1.6)] {
            for &x in &[0.0, 0.25, 0.5, 0.68, 1.0] {
                let cp = cash_point(w, l, x);
                let o = GameOdds {
                    p: cp,
                    win_gammon: w - 1.0,
                    win_backgammon: 0.0,
                    lose_gammon: l - 1.0,
                    lose_backgammon: 0.0,
                };
                let dt = 2.0 * cubeful_equity(&o, Owner::Opponent, x, false);
                assert!((dt - 1.0).abs() < 1e-12, "w {w} l {l} x {x}: {dt}");
                let tp = take_point(w, l, x);
                let take = 2.0 * cubeful_equity(&o.at(tp), Owner::Mover, x, false);
                assert!((take + 1.0).abs() < 1e-12, "w {w} l {l} x {x}: {take}");
            }
        }
    }

    #[test]
    fn live_curves_pass_through_their_corners() {
        let (w, l) = (1.4, 1.25);
        let tp = take_point(w, l, 1.0);
        let cp = (l + 1.0) / (w + l + 0.5);
        for owner in [Owner::Centred, Owner::Mover, Owner::Opponent] {
            assert!(close(live_equity(0.0, w, l, owner, false), -l));
            assert!(close(live_equity(1.0, w, l, owner, false), w));
        }
        assert!(close(live_equity(tp, w, l, Owner::Centred, false), -1.0));
        assert!(close(live_equity(cp, w, l, Owner::Centred, false), 1.0));
        assert!(close(live_equity(cp, w, l, Owner::Mover, false), 1.0));
        assert!(close(live_equity(tp, w, l, Owner::Opponent, false), -1.0));
        // Cube ownership is worth something to the owner.
        for p in [0.3, 0.5, 0.7] {
            let c = live_equity(p, w, l, Owner::Centred, false);
            assert!(live_equity(p, w, l, Owner::Mover, false) >= c);
            assert!(live_equity(p, w, l, Owner::Opponent, false) <= c);
        }
    }

    #[test]
    fn dead_cube_is_cubeless_equity() {
        let o = GameOdds {
            p: 0.62,
            win_gammon: 0.3,
            win_backgammon: 0.02,
            lose_gammon: 0.2,
            lose_backgammon: 0.01,
        };
        for owner in [Owner::Centred, Owner::Mover, Owner::Opponent] {
            assert!(close(
                cubeful_equity(&o, owner, 0.0, false),
                o.money_equity()
            ));
        }
    }

    #[test]
    fn jacoby_ignores_gammons_with_a_centred_cube() {
        let o = GameOdds {
            p: 0.5,
            win_gammon: 0.5,
            win_backgammon: 0.0,
            lose_gammon: 0.0,
            lose_backgammon: 0.0,
        };
        // Dead part 2p - 1 = 0; the live part is on the -1..+1 segment.
        let e = cubeful_equity(&o, Owner::Centred, 0.0, true);
        assert!(close(e, 0.0));
        assert!(cubeful_equity(&o.at(0.99), Owner::Centred, 1.0, true) <= 1.0);
        // Jacoby does not apply once the cube is turned.
        assert!(
            cubeful_equity(&o, Owner::Mover, 0.0, true) > 0.0,
            "gammons count on an owned cube"
        );
    }

    #[test]
    fn closed_form_versus_linear_mix() {
        // Gammonless, x = 0.68: they agree at p = 1/2 and differ by ~0.025 at the
        // take point (the figure quoted in the module docs).
        let x = 0.68;
        let o = GameOdds::gammonless(0.5);
        assert!(close(closed_form_centred(0.5, 1.0, 1.0, x), 0.0));
        assert!(close(cubeful_equity(&o, Owner::Centred, x, false), 0.0));
        let mut max = 0.0f64;
        let (tp, cp) = (take_point(1.0, 1.0, x), cash_point(1.0, 1.0, x));
        for i in 0..=100 {
            let p = tp + (cp - tp) * f64::from(i) / 100.0;
            let d = closed_form_centred(p, 1.0, 1.0, x)
                - cubeful_equity(&o.at(p), Owner::Centred, x, false);
            max = max.max(d.abs());
        }
        assert!((0.02..0.03).contains(&max), "{max}");
    }

    #[test]
    fn capped_curve_closes_the_degenerate_x1_window() {
        use crate::cube::CubeDecision;
        // W = L = 1.25: CPl = 2.25 / 3 = 0.75. Uncapped at x = 1 the player on roll
        // has no doubling window at all: below CPl a take is worth less than keeping
        // the cube, above it no double is worth more than the cash (too good).
        let odds = |p: f64| GameOdds {
            p,
            win_gammon: 0.25 * p,
            win_backgammon: 0.0,
            lose_gammon: 0.25 * (1.0 - p),
            lose_backgammon: 0.0,
        };
        let decide_at = |p: f64, x: f64, capped: bool| {
            let o = odds(p);
            let eq = |owner| {
                if capped {
                    capped_cubeful_equity(&o, owner, x, false)
                } else {
                    cubeful_equity(&o, owner, x, false)
                }
            };
            CubeDecision::from_equities(eq(Owner::Centred), 2.0 * eq(Owner::Opponent), 1.0)
        };
        let decide = |p: f64, capped: bool| decide_at(p, 1.0, capped);
        // (Exactly at CPl the two values tie: a measure-zero window.)
        for i in 0..100 {
            let p = (f64::from(i) + 0.5) / 100.0;
            let d = decide(p, false);
            assert!(
                matches!(d, CubeDecision::NoDouble | CubeDecision::TooGood),
                "uncapped x=1 at p {p}: {d:?}"
            );
        }
        // Capped, x = 1 cashes from CPl up (never too good: no dead part); x < 1 is
        // too good exactly above the dead too-good point (L + 1) / (W + L) = 0.9.
        assert_eq!(decide(0.74, true), CubeDecision::NoDouble);
        assert_eq!(decide(0.80, true), CubeDecision::DoublePass);
        assert_eq!(decide(0.99, true), CubeDecision::DoublePass);
        assert_eq!(decide_at(0.89, 0.7, true), CubeDecision::DoublePass);
        assert_eq!(decide_at(0.91, 0.7, true), CubeDecision::TooGood);
        // Uncapped x = 0.7 is too good earlier, where the live part credits the gammons.
        assert_eq!(decide_at(0.89, 0.7, false), CubeDecision::TooGood);
        // Below CPl, and whenever the opponent owns the cube, the curves agree.
        for i in 0..=100 {
            let p = f64::from(i) / 100.0;
            let o = odds(p);
            for x in [0.0, 0.5, 0.7, 1.0] {
                let a = capped_cubeful_equity(&o, Owner::Opponent, x, false);
                assert!(close(a, cubeful_equity(&o, Owner::Opponent, x, false)));
                if p <= 0.75 {
                    for owner in [Owner::Centred, Owner::Mover] {
                        let a = capped_cubeful_equity(&o, owner, x, false);
                        assert!(close(a, cubeful_equity(&o, owner, x, false)), "{p} {x}");
                    }
                }
            }
        }
    }
}
