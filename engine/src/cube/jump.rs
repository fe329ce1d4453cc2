//! Higgins's jump model for money play (M. Higgins, "Cube handling in backgammon
//! money games under a jump model", arXiv 1203.5692): first-order closed forms.
//!
//! Janowski's live cube assumes the cubeless probability moves continuously, so a
//! player can always double exactly at the opponent's take point. In real games it
//! jumps: `sigma = E|dP|` per turn (Higgins measured 0.077-0.091 for bot self-play).
//! To first order in `sigma`, with `TPl`, `CPl` the live take and cash points and
//! `S = W + L + 1/2`:
//! - `TP = TPl (L + 1) / (L + 1 - (sigma/4) S / (W - 1/2))`;
//! - `CP = CPl - sigma (W - 1/2) / (2 (2LW + 2L - W - 1) - sigma S)`;
//! - owned, `p < CP`: `E = -L + p [S - (sigma/4) S^2 / ((W - 1/2)(L + 1))]`;
//! - opponent owns, `p > TP`: `E = W - (1 - p) [S - (sigma/4) S^2 / ((L - 1/2)(W + 1))]`;
//! - centred: the line through `(TPl, -1 + (sigma/6) S (L + 1)/(L - 1/2))` and
//!   `(CPl, 1 - (sigma/6) S (W + 1)/(W - 1/2))`, outer pieces linear to `(0, -L)` and
//!   `(1, W)`.
//!
//! The owned and opponent-owned curves outside the ranges above (`p > CP`, resp.
//! `p < TP`) are not given by the closed forms; they are taken linear to the
//! boundary `(1, W)`, resp. `(0, -L)`, like the centred cube's outer pieces. They
//! matter little: a player holding the cube beyond its cash point doubles the
//! opponent out, and the decision code compares with the double/pass value anyway.
//!
//! Consistency (tested): taking at `TP` and owning the 2-cube is worth exactly -1,
//! `2 E_owned(TP) = -1`, and at `CP` a take is worth a pass, `2 E_opp(CP) = 1`. At
//! `sigma = 0` everything reduces to Janowski's live cube. Gammonless, matching take
//! points gives the cube life index equivalent `x = 1 - 3.125 sigma` (x = 0.70 <->
//! sigma = 0.096).

use super::janowski;
use super::{piecewise, Owner};

/// Largest volatility the first-order forms are used with: sigma = 0.32 is x = 0
/// gammonless; beyond it the corrections are no longer small.
pub const MAX_SIGMA: f64 = 0.32;

/// Janowski's live take point `TPl = (L - 1/2) / (W + L + 1/2)`.
fn tpl(w: f64, l: f64) -> f64 {
    (l - 0.5) / (w + l + 0.5)
}

/// Janowski's live cash point `CPl = (L + 1) / (W + L + 1/2)`.
fn cpl(w: f64, l: f64) -> f64 {
    (l + 1.0) / (w + l + 0.5)
}

/// Slope of the owned curve below the cash point.
fn owned_slope(w: f64, l: f64, sigma: f64) -> f64 {
    let s = w + l + 0.5;
    s - sigma / 4.0 * s * s / ((w - 0.5) * (l + 1.0))
}

/// Slope of the opponent-owned curve above the take point.
fn opp_slope(w: f64, l: f64, sigma: f64) -> f64 {
    let s = w + l + 0.5;
    s - sigma / 4.0 * s * s / ((l - 0.5) * (w + 1.0))
}

/// Take point of the player on roll (their `W`, `L`) under volatility `sigma`.
pub fn take_point(w: f64, l: f64, sigma: f64) -> f64 {
    let s = w + l + 0.5;
    tpl(w, l) * (l + 1.0) / (l + 1.0 - sigma / 4.0 * s / (w - 0.5))
}

/// Cash point of the player on roll under volatility `sigma`.
pub fn cash_point(w: f64, l: f64, sigma: f64) -> f64 {
    let s = w + l + 0.5;
    cpl(w, l) - sigma * (w - 0.5) / (2.0 * (2.0 * l * w + 2.0 * l - w - 1.0) - sigma * s)
}

/// Cubeful money equity per unit cube of the player on roll with P(win) `p`.
pub fn equity(p: f64, w: f64, l: f64, owner: Owner, sigma: f64) -> f64 {
    let s = w + l + 0.5;
    match owner {
        Owner::Mover => {
            let cp = cash_point(w, l, sigma);
            let k = owned_slope(w, l, sigma);
            piecewise(p, &[(0.0, -l), (cp, -l + cp * k), (1.0, w)])
        }
        Owner::Opponent => {
            let tp = take_point(w, l, sigma);
            let k = opp_slope(w, l, sigma);
            piecewise(p, &[(0.0, -l), (tp, w - (1.0 - tp) * k), (1.0, w)])
        }
        Owner::Centred => {
            let low = -1.0 + sigma / 6.0 * s * (l + 1.0) / (l - 0.5);
            let high = 1.0 - sigma / 6.0 * s * (w + 1.0) / (w - 0.5);
            piecewise(
                p,
                &[(0.0, -l), (tpl(w, l), low), (cpl(w, l), high), (1.0, w)],
            )
        }
    }
}

/// The gammonless cube life index with the same take point as volatility `sigma`.
pub fn equivalent_x(sigma: f64) -> f64 {
    1.0 - 3.125 * sigma
}

/// The volatility with the same gammonless take point as cube life index `x`.
pub fn equivalent_sigma(x: f64) -> f64 {
    (1.0 - x) / 3.125
}

/// Janowski's live curve, for comparison at `sigma = 0`.
pub fn janowski_live(p: f64, w: f64, l: f64, owner: Owner) -> f64 {
    janowski::live_equity(p, w, l, owner, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WL: [(f64, f64); 4] = [(1.0, 1.0), (1.3, 1.2), (1.8, 1.4), (1.1, 1.6)];

    #[test]
    fn zero_volatility_is_janowski_live() {
        for (w, l) in WL {
            assert!((take_point(w, l, 0.0) - janowski::take_point(w, l, 1.0)).abs() < 1e-12);
            assert!((cash_point(w, l, 0.0) - janowski::cash_point(w, l, 1.0)).abs() < 1e-12);
            for i in 0..=20 {
                let p = f64::from(i) / 20.0;
                for owner in [Owner::Centred, Owner::Mover, Owner::Opponent] {
                    let d = equity(p, w, l, owner, 0.0) - janowski_live(p, w, l, owner);
                    assert!(d.abs() < 1e-12, "{w} {l} {p} {owner:?}: {d}");
                }
            }
        }
    }

    #[test]
    fn take_and_cash_points_are_indifference_points() {
        for (w, l) in WL {
            for sigma in [0.05, 0.077, 0.091, 0.15] {
                let tp = take_point(w, l, sigma);
                let taken = 2.0 * equity(tp, w, l, Owner::Mover, sigma);
                assert!((taken + 1.0).abs() < 1e-9, "{w} {l} {sigma}: {taken}");
                let cp = cash_point(w, l, sigma);
                let dt = 2.0 * equity(cp, w, l, Owner::Opponent, sigma);
                assert!((dt - 1.0).abs() < 1e-9, "{w} {l} {sigma}: {dt}");
            }
        }
    }

    #[test]
    fn gammonless_equivalent_cube_life() {
        // x = 0.70 <-> sigma = 0.096: the same take point, 0.2128.
        let sigma = 0.096;
        assert!((equivalent_x(sigma) - 0.70).abs() < 1e-12);
        assert!((equivalent_sigma(0.70) - sigma).abs() < 1e-12);
        let tp = take_point(1.0, 1.0, sigma);
        assert!(
            (tp - janowski::take_point(1.0, 1.0, 0.70)).abs() < 1e-12,
            "{tp}"
        );
        assert!((tp - 0.212_766).abs() < 1e-6);
    }

    #[test]
    fn volatility_costs_the_cube_holder() {
        // Jumps make the cube less efficient: the owner's equity drops, the
        // take point rises and the cash point falls.
        let (w, l) = (1.2, 1.2);
        assert!(take_point(w, l, 0.1) > take_point(w, l, 0.0));
        assert!(cash_point(w, l, 0.1) < cash_point(w, l, 0.0));
        for p in [0.3, 0.5, 0.7] {
            assert!(equity(p, w, l, Owner::Mover, 0.1) < equity(p, w, l, Owner::Mover, 0.0));
        }
    }
}
