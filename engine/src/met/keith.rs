//! Tom Keith's live-cube match equity table for equal players with gammon rate `G`.
//!
//! Computed backwards from the end of the match:
//! - post-Crawford, the trailer doubles at once and the game is played for 2 points:
//!   `Epc(n) = (1 - G)/2 Epc(n - 2) + G/2 Epc(n - 4)`, `Epc(<= 0) = 1`, `Epc(1) = 1/2`;
//!   at even distances the leader has a free drop (it can pass the trailer's double
//!   when the game starts badly, at no cost in distance). Its value is taken as GNU
//!   Backgammon's: 0.015 at 2-away, 0.004 at 4-away, negligible beyond.
//! - the Crawford game, for the trailer needing `n`: `(1 - G)/2 Epc(n - 1) + G/2
//!   Epc(n - 2)` (no cube).
//! - pre-Crawford, at `a`-away vs `b`-away, cube 1 centred: both players' live cash
//!   points `p_me`, `1 - p_opp` are computed over cube levels exactly as in match
//!   Janowski ([`live_cash_points`], gammon ratio `G` for both sides), and the MWC at
//!   the start of the game is the live-cube line between the two cash points taken
//!   at `p = 1/2`: `E = E_oppcash + (E_mycash - E_oppcash) (1/2 - p_opp) / (p_me -
//!   p_opp)`, with `E_mycash = ME(a - 1, b)` and `E_oppcash = ME(a, b - 1)`.
//!
//! Scores are filled in order of increasing `a + b`, so every look-up the cash
//! points make (after winning or losing `c`, `2c`, `4c`, ... points) is already
//! known. Check (tested): with `G = 0.26` the table is within 0.002 of the published
//! "mec26" values 1a2a .685, 2a3a .5945, 2a4a .6641, 3a5a .646, 5a7a .6232.

use super::live_cube::live_cash_points;
use super::{MatchEquity, MatchEquityTable, MatchScore, MetError, MAX_AWAY};
use crate::eval::odds::GameOdds;

/// The leader's free drop at 1-away/2-away post-Crawford (GNU Backgammon's value).
pub const FREE_DROP_2: f64 = 0.015;
/// The leader's free drop at 1-away/4-away post-Crawford.
pub const FREE_DROP_4: f64 = 0.004;

pub(super) const N: usize = MAX_AWAY as usize;

/// A table being filled (also by [`super::janowski`]'s table).
pub(super) struct Partial {
    pub(super) pre: Vec<f64>,
    pub(super) post: Vec<f64>,
}

impl Partial {
    pub(super) fn set(&mut self, a: u32, b: u32, v: f64) {
        self.pre[(a as usize - 1) * N + (b as usize - 1)] = v;
    }
}

impl MatchEquity for Partial {
    fn pre_crawford(&self, a: u32, b: u32) -> f64 {
        self.pre[(a as usize - 1) * N + (b as usize - 1)]
    }

    fn post_crawford(&self, n: u32) -> f64 {
        self.post[n as usize - 1]
    }
}

/// The post-Crawford row `Epc(1..=len)` for gammon rate `g`.
pub fn post_crawford(g: f64, len: usize) -> Vec<f64> {
    let mut epc: Vec<f64> = Vec::with_capacity(len);
    for n in 1..=len {
        let back = |k: usize| if n > k { epc[n - k - 1] } else { 1.0 };
        let mut v = if n == 1 {
            0.5
        } else {
            (1.0 - g) / 2.0 * back(2) + g / 2.0 * back(4)
        };
        if n == 2 {
            v -= FREE_DROP_2;
        }
        if n == 4 {
            v -= FREE_DROP_4;
        }
        epc.push(v);
    }
    epc
}

/// A table with the post-Crawford row and the Crawford games (1-away entries) for
/// gammon rate `g` filled in, the rest 0: where every computed table starts.
pub(super) fn crawford_start(g: f64) -> Partial {
    let post = post_crawford(g, N);
    let epc = |n: i64| if n <= 0 { 1.0 } else { post[n as usize - 1] };
    let mut t = Partial {
        pre: vec![0.0; N * N],
        post: post.clone(),
    };
    t.set(1, 1, 0.5);
    for b in 2..=MAX_AWAY {
        let n = i64::from(b);
        let trailer = (1.0 - g) / 2.0 * epc(n - 1) + g / 2.0 * epc(n - 2);
        t.set(1, b, 1.0 - trailer);
        t.set(b, 1, trailer);
    }
    t
}

/// Keith's table for gammon rate `g` (the fraction of games that end in a gammon),
/// 1- to [`MAX_AWAY`]-away.
pub fn keith_table(g: f64) -> Result<MatchEquityTable, MetError> {
    if !(0.0..=0.9).contains(&g) {
        return Err(MetError::new(format!(
            "gammon rate {g} is outside 0..0.9 (typical: 0.20 to 0.26)"
        )));
    }
    let mut t = crawford_start(g);
    let post = t.post.clone();
    let odds = GameOdds::with_gammon_rate(0.5, g);
    for total in 4..=2 * MAX_AWAY {
        for a in 2..=MAX_AWAY {
            let Some(b) = total.checked_sub(a) else {
                break;
            };
            if b < a || b > MAX_AWAY {
                continue;
            }
            let score = MatchScore {
                away: a,
                opp_away: b,
                crawford: false,
            };
            let [cp_me, cp_opp] = live_cash_points(&t, score, 1, &odds);
            let p_opp = 1.0 - cp_opp;
            let my_cash = t.pre_crawford(a - 1, b);
            let opp_cash = t.pre_crawford(a, b - 1);
            let e = if a == b {
                0.5
            } else if cp_me - p_opp > 1e-12 {
                opp_cash + (my_cash - opp_cash) * (0.5 - p_opp) / (cp_me - p_opp)
            } else {
                (my_cash + opp_cash) / 2.0
            };
            let e = e.clamp(0.0, 1.0);
            t.set(a, b, e);
            t.set(b, a, 1.0 - e);
        }
    }
    Ok(MatchEquityTable::from_full(
        &format!("Keith live-cube G={g}"),
        t.pre,
        post,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_the_published_mec26_values() {
        let t = keith_table(0.26).unwrap();
        for (a, b, want) in [
            (1, 2, 0.685),
            (2, 3, 0.5945),
            (2, 4, 0.6641),
            (3, 5, 0.646),
            (5, 7, 0.6232),
        ] {
            let got = t.pre_crawford(a, b);
            assert!((got - want).abs() < 0.002, "{a}a{b}a: {got} vs {want}");
        }
    }

    #[test]
    fn table_is_consistent() {
        let t = keith_table(0.22).unwrap();
        for a in 1..=MAX_AWAY {
            assert!((t.pre_crawford(a, a) - 0.5).abs() < 1e-12);
            for b in 1..=MAX_AWAY {
                let sum = t.pre_crawford(a, b) + t.pre_crawford(b, a);
                assert!((sum - 1.0).abs() < 1e-12, "{a} {b}");
                if b < MAX_AWAY {
                    // Needing fewer points is never worse.
                    assert!(
                        t.pre_crawford(a, b + 1) >= t.pre_crawford(a, b) - 1e-12,
                        "{a} {b}"
                    );
                }
            }
        }
        assert_eq!(t.post_crawford(1), 0.5);
        assert!((t.post_crawford(2) - 0.485).abs() < 1e-12);
        assert!(keith_table(-0.1).is_err());
        assert!(keith_table(f64::NAN).is_err());
    }
}
