//! A match equity table consistent with Janowski's match model at cube life `x`:
//! every pre-Crawford entry is the cubeful MWC that the match-aware Janowski model
//! (`cube::matchplay::cubeful_mwc`) gives the start of a game, `p = 1/2` with gammon
//! rate `G` for both sides and the cube centred at 1, computed with the table being
//! built for the scores the game can lead to.
//!
//! Why: a match-aware Janowski player reads its take and cash points off a table.
//! Kazaross-XG2 was made by rollouts of strong bots, whose cube is about as live as
//! theirs; a player whose cube is live to degree `x` by assumption may be better
//! served by a table whose later scores are valued by the same assumption.
//!
//! Dynamic programming over the scores, as Keith's table ([`super::keith`]):
//! - post-Crawford: the usual trailer's automatic double, with the leader's free drop
//!   at even distances (0.015 at 2-away, 0.004 at 4-away): Keith's row, which does not
//!   depend on `x` (once the trailer has doubled the cube is dead);
//! - the Crawford game: cubeless, `(1 - G)/2 Epc(n - 1) + G/2 Epc(n - 2)` for the
//!   trailer needing `n`;
//! - pre-Crawford `a`-away vs `b`-away (both >= 2), filled in order of increasing
//!   `a + b`: `E = (1 - x) dead + x live` at `p = 1/2`, the dead part `(Mw + Ml)/2`
//!   (gammon-weighted outcomes of a game played for the 1-cube) and the live part the
//!   centred live-cube line through the take point and the cash point (live cash
//!   points over cube levels, GNU Backgammon's `GetPoints`). Every score they read
//!   (after winning or losing 1, 2, 4, ... points, gammons doubling them) has a
//!   smaller `a + b`, so one pass is the fixed point: no iteration is needed.
//!   Equal distances are 0.5 exactly; `ME(b, a) = 1 - ME(a, b)`.
//!
//! At `x = 1` the live part is Keith's chord, so the table is Keith's (tested). At
//! `x = 0` it is the dead-cube table: a game is worth its cubeless MWC.
//!
//! Worked example (gammonless, `G = 0`, tested): the Crawford game 1-away/3-away is
//! `1 - Epc(2)/2 = 1 - 0.485/2 = 0.7575` (`Epc(2) = 1/2 - 0.015`); 1-away/2-away
//! `0.75`. At 2-away/3-away the dead part is `(0.7575 + 0.5)/2 = 0.62875`; the
//! leader's cash point is `ME(1a, 3a) = 0.7575` (its double is dead for it, the
//! trailer redoubles to 4 and the game decides the match), the trailer's is
//! `ME(2a, 2a) / ME(1a, 2a) = 0.5 / 0.75 = 2/3`, so the leader's take point is 1/3 and
//! the live part `0.5 + 0.2575 (1/2 - 1/3) / (0.7575 - 1/3) = 0.601179`. At `x =
//! 0.68`: `0.32 x 0.62875 + 0.68 x 0.601179 = 0.610002`.

use super::keith::{crawford_start, N};
use super::live_cube::{centred_live_mwc, loss_value, win_value};
use super::{MatchEquityTable, MatchScore, MetError, MAX_AWAY};
use crate::eval::odds::GameOdds;

/// Gammon rate of `janowski:x=X` without `G=`: 0.26, the rate of Tom Keith's
/// published "mec26" table, which the spec's Keith check reproduces within 0.002.
/// It is the cubeful counterpart of the ~27.6% cubeless gammon-and-backgammon rate
/// Mark Higgins measured for bot self-play (some of those games end earlier on a
/// passed double in cubeful play); `--met keith:measured` gives 0.266 for the
/// built-in nets.
pub const DEFAULT_GAMMON_RATE: f64 = 0.26;

/// The Janowski-consistent table for cube life `x` (0 to 1) and gammon rate `g`
/// (0 to 0.9), 1- to [`MAX_AWAY`]-away (module docs).
pub fn janowski_table(x: f64, g: f64) -> Result<MatchEquityTable, MetError> {
    if !(0.0..=1.0).contains(&x) {
        return Err(MetError::new(format!(
            "cube life x = {x} is outside 0..1 (typical: 0.68)"
        )));
    }
    if !(0.0..=0.9).contains(&g) {
        return Err(MetError::new(format!(
            "gammon rate G = {g} is outside 0..0.9 (typical: 0.20 to 0.26)"
        )));
    }
    let mut t = crawford_start(g);
    let odds = GameOdds::with_gammon_rate(0.5, g);
    for total in 4..=2 * MAX_AWAY {
        for a in 2..=MAX_AWAY {
            let Some(b) = total.checked_sub(a) else {
                break;
            };
            if b < a || b > MAX_AWAY {
                continue;
            }
            let e = if a == b {
                0.5
            } else {
                let score = MatchScore {
                    away: a,
                    opp_away: b,
                    crawford: false,
                };
                // Match Janowski's cubeful MWC at p = 1/2 (`cube::matchplay`,
                // which this equals: tested there), the cube centred at 1.
                let dead =
                    0.5 * win_value(&t, score, 1, &odds) + 0.5 * loss_value(&t, score, 1, &odds);
                let live = centred_live_mwc(&t, score, 1, &odds);
                ((1.0 - x) * dead + x * live).clamp(0.0, 1.0)
            };
            t.set(a, b, e);
            t.set(b, a, 1.0 - e);
        }
    }
    debug_assert_eq!(t.pre.len(), N * N);
    let post = t.post.clone();
    Ok(MatchEquityTable::from_full(
        &format!("Janowski x={x} G={g}"),
        t.pre,
        post,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::met::keith::keith_table;
    use crate::met::MatchEquity;

    #[test]
    fn the_worked_example_by_hand() {
        // The module docs' example: gammonless, 2-away vs 3-away.
        let x = 0.68;
        let t = janowski_table(x, 0.0).unwrap();
        assert!((t.pre_crawford(1, 3) - 0.7575).abs() < 1e-12);
        assert!((t.pre_crawford(1, 2) - 0.75).abs() < 1e-12);
        assert!((t.post_crawford(2) - 0.485).abs() < 1e-12);
        assert_eq!(t.pre_crawford(2, 2), 0.5);
        let dead: f64 = (0.7575 + 0.5) / 2.0;
        let (tp, cp): (f64, f64) = (1.0 / 3.0, 0.7575);
        let live = 0.5 + (0.7575 - 0.5) * (0.5 - tp) / (cp - tp);
        assert!((live - 0.601_179).abs() < 1e-6, "{live}");
        let want = (1.0 - x) * dead + x * live;
        assert!((want - 0.610_002).abs() < 1e-6, "{want}");
        assert!((t.pre_crawford(2, 3) - want).abs() < 1e-12);
        assert!((t.pre_crawford(3, 2) - (1.0 - want)).abs() < 1e-12);
        // x = 0: the dead-cube value.
        let d = janowski_table(0.0, 0.0).unwrap();
        assert!((d.pre_crawford(2, 3) - dead).abs() < 1e-12);
    }

    #[test]
    fn full_life_is_keith() {
        // At x = 1 the entry is the live line at p = 1/2: Keith's chord.
        for g in [0.0, 0.2, 0.26] {
            let j = janowski_table(1.0, g).unwrap();
            let k = keith_table(g).unwrap();
            for a in 1..=MAX_AWAY {
                for b in 1..=MAX_AWAY {
                    let d = j.pre_crawford(a, b) - k.pre_crawford(a, b);
                    assert!(d.abs() < 1e-12, "G {g} {a}a{b}a: {d}");
                }
                assert_eq!(j.post_crawford(a), k.post_crawford(a));
            }
        }
    }

    #[test]
    fn consistent_and_checked() {
        let t = janowski_table(0.68, DEFAULT_GAMMON_RATE).unwrap();
        assert_eq!(t.name(), "Janowski x=0.68 G=0.26");
        for a in 1..=MAX_AWAY {
            assert_eq!(t.pre_crawford(a, a), 0.5);
            for b in 1..=MAX_AWAY {
                let v = t.pre_crawford(a, b);
                assert!((0.0..=1.0).contains(&v));
                assert!((v + t.pre_crawford(b, a) - 1.0).abs() < 1e-12, "{a} {b}");
                if b < MAX_AWAY {
                    // Needing fewer points is never worse.
                    assert!(t.pre_crawford(a, b + 1) >= v - 1e-12, "{a} {b}");
                }
            }
        }
        // Close to the published tables where they agree with each other: within
        // 0.03 of Kazaross-XG2 up to 11-away.
        let kx = MatchEquityTable::kazaross_xg2();
        for a in 1..=11 {
            for b in 1..=11 {
                let d = t.pre_crawford(a, b) - kx.pre_crawford(a, b);
                assert!(d.abs() < 0.03, "{a}a{b}a: {d}");
            }
        }
        for (x, g) in [
            (-0.1, 0.26),
            (1.1, 0.26),
            (f64::NAN, 0.26),
            (0.5, 0.95),
            (0.5, -0.1),
        ] {
            assert!(janowski_table(x, g).is_err(), "{x} {g}");
        }
    }
}
