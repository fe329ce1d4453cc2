//! Match-winning chances of a game's outcomes at a cube level, and the live-cube
//! cash points over cube levels (GNU Backgammon's `GetPoints`): what a match
//! equity table gives once a game is played for `c`, `2c`, `4c`, ... points.
//!
//! They live with the tables because computing a table needs them too: Tom Keith's
//! live-cube table ([`super::keith`]) takes each score's MWC from both players' cash
//! points. The cube's match-play model (`cube::matchplay`) builds its
//! cubeful MWC on them.

use super::{MatchEquity, MatchScore};
use crate::eval::odds::GameOdds;

/// Gammon-weighted MWC of the player on roll winning at cube `c`:
/// `(1 - g - b) ME(win c) + g ME(win 2c) + b ME(win 3c)`.
pub fn win_value<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    c: u32,
    odds: &GameOdds,
) -> f64 {
    let (g, b) = (odds.win_gammon, odds.win_backgammon);
    (1.0 - g - b) * score.mwc_after(met, true, c)
        + g * score.mwc_after(met, true, 2 * c)
        + b * score.mwc_after(met, true, 3 * c)
}

/// Gammon-weighted MWC of the player on roll losing at cube `c`.
pub fn loss_value<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    c: u32,
    odds: &GameOdds,
) -> f64 {
    let (g, b) = (odds.lose_gammon, odds.lose_backgammon);
    (1.0 - g - b) * score.mwc_after(met, false, c)
        + g * score.mwc_after(met, false, 2 * c)
        + b * score.mwc_after(met, false, 3 * c)
}

/// Live-cube cash points `[player on roll, opponent]` at cube `c`, each in its own
/// P(win): above `CP[0]` the opponent should pass the player on roll's double;
/// `1 - CP[1]` is the player on roll's take point. Centred-cube semantics; the
/// ratios of `odds` are held fixed (only `p` varies along the curves).
pub fn live_cash_points<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    c: u32,
    odds: &GameOdds,
) -> [f64; 2] {
    // GNU Backgammon's "away - 1" distances.
    let (i, j) = (score.away - 1, score.opp_away - 1);
    let mut top = c;
    let mut levels = 0usize;
    while i >= 2 * top && j >= 2 * top {
        levels += 1;
        top *= 2;
    }
    let sides = [(score, *odds), (score.flip(), odds.flip())];
    // cp[n][k]: cash point of player k (0 = on roll) for a double from c << n.
    let mut cp = vec![[1.0f64; 2]; levels + 2];
    for n in (0..=levels).rev() {
        let cube = c << n;
        for (k, &(sk, ok)) in sides.iter().enumerate() {
            let dp = sk.mwc_after(met, true, cube);
            let v = if i < 2 * cube || j < 2 * cube {
                // The doubled cube is dead. If it is dead for the doubler only, the
                // taker redoubles at once and the game is played for 4c.
                let (ik, jk) = (sk.away - 1, sk.opp_away - 1);
                let prime = if ik < 2 * cube && jk >= 2 * cube {
                    2 * cube
                } else {
                    cube
                };
                let dtl = loss_value(met, sk, 2 * prime, &ok);
                let dtw = win_value(met, sk, 2 * prime, &ok);
                ratio(dtl - dp, dtl - dtw)
            } else {
                let rdp = sk.mwc_after(met, false, 2 * cube);
                let dtw = win_value(met, sk, 2 * cube, &ok);
                1.0 - cp[n + 1][1 - k] * ratio(dp - dtw, rdp - dtw)
            };
            cp[n][k] = v.clamp(0.0, 1.0);
        }
    }
    cp[0]
}

/// Live-cube (x = 1) MWC of the player on roll with the cube centred at `c`: the
/// line through `(0, Ml)`, `(TP, ME(lose c))`, `(CP, ME(win c))`, `(1, Mw)` at
/// `odds.p`, `TP = 1 - CP_opp` (capped at `CP`) from [`live_cash_points`]. The
/// centred live curve of match Janowski (`cube::matchplay`), here because the
/// Janowski-consistent table ([`super::janowski`]) needs it and the tables do not
/// depend on the cube module.
pub fn centred_live_mwc<M: MatchEquity + ?Sized>(
    met: &M,
    score: MatchScore,
    c: u32,
    odds: &GameOdds,
) -> f64 {
    let [cp_me, cp_opp] = live_cash_points(met, score, c, odds);
    let tp = (1.0 - cp_opp).min(cp_me);
    let points = [
        (0.0, loss_value(met, score, c, odds)),
        (tp, score.mwc_after(met, false, c)),
        (cp_me, score.mwc_after(met, true, c)),
        (1.0, win_value(met, score, c, odds)),
    ];
    let p = odds.p.clamp(0.0, 1.0);
    for seg in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (seg[0], seg[1]);
        if p <= x1 {
            if x1 - x0 <= 1e-15 {
                return y1;
            }
            return y0 + (y1 - y0) * (p - x0).max(0.0) / (x1 - x0);
        }
    }
    points[3].1
}

/// `num / den`, or 1 when the denominator vanishes (a degenerate table where the
/// doubled game cannot change the MWC: the doubler never needs to cash).
fn ratio(num: f64, den: f64) -> f64 {
    if den.abs() < 1e-12 {
        1.0
    } else {
        num / den
    }
}
