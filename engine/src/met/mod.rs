//! Match equity tables (METs): the probability of winning a match from a score.
//!
//! A table answers two questions, as GNU Backgammon's do:
//! - pre-Crawford: `ME(a, b)`, the match-winning chances (MWC) of a player needing `a`
//!   points against one needing `b`, at the start of a game that is not
//!   post-Crawford. With `a = 1` or `b = 1` that game is the Crawford game.
//! - post-Crawford: the MWC of a trailer needing `n` points against a leader needing
//!   1, after the Crawford game (`n = 1`: 0.5).
//!
//! Every table here covers 1- to [`MAX_AWAY`]-away: shorter sources (Kazaross-XG2's
//! 15 embedded scores, a 25-away XML file) are extended with GNU Backgammon's method
//! ([`extend`]); Tom Keith's computed tables ([`keith`]) are computed to the full size.
//!
//! [`MatchScore`] turns a table into the values the cube formulas need: the MWC at
//! the current score and after a game won or lost for a number of points.

pub mod extend;
pub mod janowski;
pub mod kazaross;
pub mod keith;
pub mod live_cube;
pub mod score;
pub mod xml;

pub use score::MatchScore;

use std::fmt;

/// Longest distance (points to go) any table covers: GNU Backgammon's `MAXSCORE`.
pub const MAX_AWAY: u32 = 64;

/// Why a table could not be built or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetError(String);

impl MetError {
    /// An error with a one-line message.
    pub fn new(message: impl Into<String>) -> Self {
        MetError(message.into())
    }
}

impl fmt::Display for MetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MetError {}

/// What the cube code needs of a table. Both methods take distances in
/// `1..=MAX_AWAY`; callers handle finished matches (0 to go) themselves.
pub trait MatchEquity {
    /// MWC of a player needing `a` against one needing `b`, pre-Crawford (or the
    /// Crawford game when either is 1).
    fn pre_crawford(&self, a: u32, b: u32) -> f64;

    /// MWC of a trailer needing `n` against a 1-away leader, post-Crawford.
    fn post_crawford(&self, n: u32) -> f64;
}

/// A full table, 1- to [`MAX_AWAY`]-away.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchEquityTable {
    name: String,
    /// How many scores came from the source before extension.
    native: u32,
    /// Row-major `MAX_AWAY x MAX_AWAY`: entry `(a - 1) * MAX_AWAY + (b - 1)`.
    pre: Vec<f64>,
    /// Entry `n - 1`.
    post: Vec<f64>,
}

impl MatchEquityTable {
    /// A table from a source's pre-Crawford square (`pre[a - 1][b - 1]`) and its
    /// post-Crawford row (`post[n - 1]`), extended to [`MAX_AWAY`] with
    /// [`extend`]. Every value must be a probability; the square must be square and
    /// no larger than `MAX_AWAY`; the post-Crawford row may be one shorter than the
    /// square (GNU Backgammon files often stop there, as the first legal
    /// post-Crawford score of an `n`-point match is `n - 1`-away).
    pub fn from_given(name: &str, pre: &[Vec<f64>], post: &[f64]) -> Result<Self, MetError> {
        let n = pre.len();
        if n == 0 {
            return Err(MetError::new("the pre-Crawford table is empty"));
        }
        if n > MAX_AWAY as usize {
            return Err(MetError::new(format!(
                "the pre-Crawford table has {n} rows; at most {MAX_AWAY} are supported"
            )));
        }
        for (i, row) in pre.iter().enumerate() {
            if row.len() != n {
                return Err(MetError::new(format!(
                    "pre-Crawford row {} has {} entries; a {n}x{n} table needs {n}",
                    i + 1,
                    row.len()
                )));
            }
        }
        if post.is_empty() || post.len() + 1 < n || post.len() > MAX_AWAY as usize {
            return Err(MetError::new(format!(
                "the post-Crawford row has {} entries; a {n}-away table needs {} to {}",
                post.len(),
                n.saturating_sub(1).max(1),
                MAX_AWAY
            )));
        }
        let bad = |v: f64| !(0.0..=1.0).contains(&v);
        for (i, row) in pre.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                if bad(v) {
                    return Err(MetError::new(format!(
                        "pre-Crawford entry {}-away vs {}-away is {v}: not a probability",
                        i + 1,
                        j + 1
                    )));
                }
            }
        }
        if let Some((i, &v)) = post.iter().enumerate().find(|(_, &v)| bad(v)) {
            return Err(MetError::new(format!(
                "post-Crawford entry {}-away is {v}: not a probability",
                i + 1
            )));
        }
        let size = MAX_AWAY as usize;
        let mut full = vec![0.0; size * size];
        for a in 1..=MAX_AWAY {
            for b in 1..=MAX_AWAY {
                let (ai, bi) = (a as usize - 1, b as usize - 1);
                full[ai * size + bi] = if ai < n && bi < n {
                    pre[ai][bi]
                } else {
                    extend::pre_crawford(a, b)
                };
            }
        }
        Ok(MatchEquityTable {
            name: name.to_string(),
            native: n as u32,
            pre: full,
            post: extend::post_crawford(post, MAX_AWAY),
        })
    }

    /// Builds a table from complete `MAX_AWAY`-sized data (computed tables).
    pub(crate) fn from_full(name: &str, pre: Vec<f64>, post: Vec<f64>) -> Self {
        debug_assert_eq!(pre.len(), (MAX_AWAY * MAX_AWAY) as usize);
        debug_assert_eq!(post.len(), MAX_AWAY as usize);
        MatchEquityTable {
            name: name.to_string(),
            native: MAX_AWAY,
            pre,
            post,
        }
    }

    /// GNU Backgammon's default table, Kazaross-XG2 (see [`kazaross`]).
    pub fn kazaross_xg2() -> Self {
        kazaross::kazaross_xg2()
    }

    /// Tom Keith's live-cube table for `gammon_rate` (see [`keith`]).
    pub fn keith(gammon_rate: f64) -> Result<Self, MetError> {
        keith::keith_table(gammon_rate)
    }

    /// The table consistent with Janowski's match model at cube life `x` and
    /// gammon rate `gammon_rate` (see [`janowski`]).
    pub fn janowski(x: f64, gammon_rate: f64) -> Result<Self, MetError> {
        janowski::janowski_table(x, gammon_rate)
    }

    /// Reads a GNU Backgammon MET XML file's text (see [`xml`]).
    pub fn from_xml(text: &str) -> Result<Self, MetError> {
        xml::parse(text)
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Same name and entries (how many scores were native to the source aside):
    /// what a worker would play with either table.
    pub fn same_entries(&self, other: &MatchEquityTable) -> bool {
        self.name == other.name && self.pre == other.pre && self.post == other.post
    }

    /// Scores that came from the source itself; the rest up to [`MAX_AWAY`] are
    /// extended.
    pub fn native_size(&self) -> u32 {
        self.native
    }

    /// The pre-Crawford square for `1..=length`-away: `[a - 1][b - 1]`.
    pub fn pre_crawford_square(&self, length: u32) -> Vec<Vec<f64>> {
        let n = length.min(MAX_AWAY);
        (1..=n)
            .map(|a| (1..=n).map(|b| self.pre_crawford(a, b)).collect())
            .collect()
    }

    /// The post-Crawford row for `1..=length`-away: `[n - 1]`.
    pub fn post_crawford_row(&self, length: u32) -> Vec<f64> {
        (1..=length.min(MAX_AWAY))
            .map(|n| self.post_crawford(n))
            .collect()
    }
}

impl MatchEquity for MatchEquityTable {
    /// # Panics
    /// When `a` or `b` is outside `1..=MAX_AWAY` (a caller bug: scores are validated
    /// when a [`MatchScore`] is built).
    fn pre_crawford(&self, a: u32, b: u32) -> f64 {
        assert!(
            (1..=MAX_AWAY).contains(&a) && (1..=MAX_AWAY).contains(&b),
            "MET lookup {a}-away vs {b}-away outside 1..={MAX_AWAY}"
        );
        self.pre[(a as usize - 1) * MAX_AWAY as usize + (b as usize - 1)]
    }

    /// # Panics
    /// When `n` is outside `1..=MAX_AWAY`.
    fn post_crawford(&self, n: u32) -> f64 {
        assert!(
            (1..=MAX_AWAY).contains(&n),
            "post-Crawford MET lookup {n}-away outside 1..={MAX_AWAY}"
        );
        self.post[n as usize - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_sources() {
        let ok_pre = vec![vec![0.5, 0.6], vec![0.4, 0.5]];
        assert!(MatchEquityTable::from_given("t", &ok_pre, &[0.5, 0.49]).is_ok());
        assert!(MatchEquityTable::from_given("t", &ok_pre, &[0.5]).is_ok());
        let ragged = vec![vec![0.5, 0.6], vec![0.4]];
        let e = MatchEquityTable::from_given("t", &ragged, &[0.5]).unwrap_err();
        assert!(e.to_string().contains("row 2"), "{e}");
        let bad = vec![vec![0.5, 1.6], vec![0.4, 0.5]];
        let e = MatchEquityTable::from_given("t", &bad, &[0.5]).unwrap_err();
        assert!(e.to_string().contains("1-away vs 2-away"), "{e}");
        assert!(MatchEquityTable::from_given("t", &[], &[0.5]).is_err());
        assert!(MatchEquityTable::from_given("t", &ok_pre, &[]).is_err());
        let nan = vec![vec![f64::NAN]];
        assert!(MatchEquityTable::from_given("t", &nan, &[0.5]).is_err());
    }

    #[test]
    fn given_values_are_kept_and_the_rest_extended() {
        let pre = vec![vec![0.5, 0.7], vec![0.3, 0.5]];
        let t = MatchEquityTable::from_given("t", &pre, &[0.5, 0.48]).unwrap();
        assert_eq!(t.pre_crawford(1, 2), 0.7);
        assert_eq!(t.post_crawford(2), 0.48);
        assert_eq!(t.pre_crawford(3, 1), extend::pre_crawford(3, 1));
        assert_eq!(t.native_size(), 2);
        assert_eq!(t.pre_crawford_square(3).len(), 3);
        assert_eq!(t.post_crawford_row(70).len(), MAX_AWAY as usize);
    }
}
