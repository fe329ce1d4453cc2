//! Kazaross-XG2, GNU Backgammon's default match equity table, as embedded here.
//!
//! Source: the numbers are GNU Backgammon's `met/Kazaross-XG2.xml` (XG rollouts to
//! 9-away, GNU Backgammon rollouts to 15-away, projected to 25-away by Neil Kazaross,
//! 2011), as exported to `engine/testdata/oracle/met.json` by GNU Backgammon 1.1: the
//! first 15 scores of the pre-Crawford table and of the post-Crawford row. Only those
//! 15 scores are embedded; every score beyond them (16- to 64-away) comes from GNU
//! Backgammon's own extension method ([`super::extend`]), the one it applies past any
//! table's size. Past 15-away the extension and GNU Backgammon's projected 25-away
//! values differ by up to about half a percent (20-away vs 10-away: 14.77% extended,
//! 15.26% in the file; 16-away vs 1-away: 0.86% vs 0.89%); load the full 25-away file
//! with [`MatchEquityTable::from_xml`] when those scores matter.

use super::MatchEquityTable;

/// Scores embedded natively (the rest is extended).
pub const SIZE: usize = 15;

/// `PRE_CRAWFORD[a - 1][b - 1]`: MWC of a player needing `a` points against one
/// needing `b`, at the start of a game that is not post-Crawford (row and column 0:
/// the Crawford game). Values from `met.json`, rounded there to 6 decimals.
#[rustfmt::skip]
pub const PRE_CRAWFORD: [[f64; SIZE]; SIZE] = [
    [0.5, 0.67736, 0.75076, 0.81436, 0.84179, 0.88731, 0.90724, 0.9325, 0.94402, 0.959275, 0.966442, 0.975534, 0.979845, 0.985273, 0.987893],
    [0.32264, 0.5, 0.59947, 0.6687, 0.74359, 0.7994, 0.84225, 0.87539, 0.90197, 0.923034, 0.939311, 0.95247, 0.962495, 0.970701, 0.976887],
    [0.24924, 0.40053, 0.5, 0.5715, 0.64795, 0.71123, 0.76209, 0.80468, 0.84017, 0.870638, 0.894417, 0.914831, 0.930702, 0.944426, 0.954931],
    [0.18564, 0.3313, 0.4285, 0.5, 0.57732, 0.64285, 0.69924, 0.74577, 0.78799, 0.824059, 0.853955, 0.879141, 0.900233, 0.91804, 0.932657],
    [0.15821, 0.25641, 0.35205, 0.42268, 0.5, 0.56635, 0.62638, 0.67786, 0.7254, 0.767055, 0.802732, 0.833654, 0.859934, 0.882866, 0.902013],
    [0.11269, 0.2006, 0.28877, 0.35715, 0.43365, 0.5, 0.56261, 0.61636, 0.66787, 0.713057, 0.753427, 0.788634, 0.819569, 0.846648, 0.869999],
    [0.09276, 0.15775, 0.23791, 0.30076, 0.37362, 0.43739, 0.5, 0.5548, 0.60854, 0.656283, 0.700209, 0.739054, 0.774121, 0.805203, 0.832566],
    [0.0675, 0.12461, 0.19532, 0.25423, 0.32214, 0.38364, 0.4452, 0.5, 0.55442, 0.603718, 0.649899, 0.691356, 0.729447, 0.763593, 0.794397],
    [0.05598, 0.09803, 0.15983, 0.21201, 0.2746, 0.33213, 0.39146, 0.44558, 0.5, 0.550196, 0.597926, 0.641481, 0.682119, 0.718927, 0.752814],
    [0.040725, 0.076966, 0.129362, 0.175941, 0.232945, 0.286943, 0.343717, 0.396282, 0.449804, 0.5, 0.548547, 0.593459, 0.63588, 0.67483, 0.711113],
    [0.033558, 0.060689, 0.105583, 0.146045, 0.197268, 0.246573, 0.299791, 0.350101, 0.402074, 0.451453, 0.5, 0.545552, 0.589242, 0.629736, 0.667927],
    [0.024466, 0.04753, 0.085169, 0.120859, 0.166346, 0.211366, 0.260946, 0.308644, 0.358519, 0.406541, 0.454448, 0.5, 0.544068, 0.585701, 0.625259],
    [0.020155, 0.037505, 0.069298, 0.099767, 0.140066, 0.180431, 0.225879, 0.270553, 0.317881, 0.36412, 0.410758, 0.455932, 0.5, 0.541943, 0.582545],
    [0.014727, 0.029299, 0.055574, 0.08196, 0.117134, 0.153352, 0.194797, 0.236407, 0.281073, 0.32517, 0.370264, 0.414299, 0.458057, 0.5, 0.54075],
    [0.012107, 0.023113, 0.045069, 0.067343, 0.097987, 0.130001, 0.167434, 0.205603, 0.247186, 0.288887, 0.332073, 0.374741, 0.417455, 0.45925, 0.5],
];

/// `POST_CRAWFORD[n - 1]`: MWC of the trailer needing `n` points against a 1-away
/// leader in a post-Crawford game (entry 0: both 1-away, 0.5).
#[rustfmt::skip]
pub const POST_CRAWFORD: [f64; SIZE] = [
    0.5, 0.48803, 0.32264, 0.31002, 0.19012, 0.18072, 0.11559, 0.10906, 0.06953, 0.065161, 0.042069, 0.03906, 0.025371, 0.023428, 0.015304,
];

/// The embedded Kazaross-XG2 table, extended to [`super::MAX_AWAY`].
pub fn kazaross_xg2() -> MatchEquityTable {
    let pre: Vec<Vec<f64>> = PRE_CRAWFORD.iter().map(|r| r.to_vec()).collect();
    match MatchEquityTable::from_given("Kazaross-XG2", &pre, &POST_CRAWFORD) {
        Ok(t) => t,
        // The constants above are checked by the tests; they cannot fail validation.
        Err(e) => unreachable!("embedded Kazaross-XG2 table is invalid: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::met::{MatchEquity, MAX_AWAY};

    /// GNU Backgammon's export, read at test time (never at run time).
    const MET_JSON: &str = include_str!("../../testdata/oracle/met.json");

    #[test]
    fn embedded_values_match_the_oracle_file() {
        let v: serde_json::Value = serde_json::from_str(MET_JSON).unwrap();
        let t = kazaross_xg2();
        assert_eq!(v["size"], 15);
        for a in 0..SIZE {
            for b in 0..SIZE {
                let want = v["pre_crawford"][a][b].as_f64().unwrap();
                assert_eq!(t.pre_crawford(a as u32 + 1, b as u32 + 1), want, "{a} {b}");
            }
            for player in 0..2 {
                let want = v["post_crawford"][player][a].as_f64().unwrap();
                assert_eq!(t.post_crawford(a as u32 + 1), want, "{a}");
            }
        }
    }

    #[test]
    fn spot_values_from_the_spec() {
        let t = kazaross_xg2();
        for (a, b, want) in [
            (1, 2, 0.67736),
            (1, 3, 0.75076),
            (2, 3, 0.59947),
            (2, 4, 0.66870),
            (3, 5, 0.64795),
            (4, 7, 0.69924),
            (5, 7, 0.62638),
            (9, 11, 0.59793),
        ] {
            // The spec rounds to 5 decimals (9a11a: 0.597926 in the table).
            assert!((t.pre_crawford(a, b) - want).abs() < 5e-6, "{a}a{b}a");
        }
        for (n, want) in [(2, 0.48803), (3, 0.32264), (4, 0.31002), (5, 0.19012)] {
            assert_eq!(t.post_crawford(n), want, "post-Crawford {n}-away");
        }
        for a in 1..=MAX_AWAY {
            assert_eq!(t.pre_crawford(a, a), 0.5);
            for b in 1..=MAX_AWAY {
                let sum = t.pre_crawford(a, b) + t.pre_crawford(b, a);
                assert!((sum - 1.0).abs() < 2e-6, "{a} {b}: {sum}");
            }
        }
    }

    #[test]
    fn extended_past_fifteen_away() {
        let t = kazaross_xg2();
        assert_eq!(t.native_size(), 15);
        assert!((t.pre_crawford(26, 1) - 0.000821).abs() < 5e-7);
        assert_eq!(
            t.pre_crawford(16, 3),
            super::super::extend::pre_crawford(16, 3)
        );
        // Post-Crawford continues from the given 15 entries: 16-away is
        // 0.375 * pc(14) + 0.125 * pc(12).
        let want = 0.375 * 0.023428 + 0.125 * 0.03906;
        assert!((t.post_crawford(16) - want).abs() < 1e-12);
        assert!(t.post_crawford(64) > 0.0 && t.post_crawford(64) < 1e-6);
    }
}
