//! A race side as the one-sided searches, the side net and the race layers see it,
//! and the shape of their roll distributions: the vocabulary they share, kept apart
//! so that the search (`race::distribution`) and its memo index
//! (`race::side_table`) each use it without using each other.

/// A side's checkers in its own numbering, `[i]` = checkers on point `i + 1`.
pub type Side = [u8; 24];

/// Length of every race distribution: entry `n` = P(exactly `n` rolls). A race side
/// of 15 checkers needs at most about 45 rolls even with small dice only in its
/// expectation's neighbourhood; mass that would land beyond is kept in the last
/// entry (it is below 1e-30 for any side of a real race).
pub const RACE_ROLLS: usize = 64;

/// The expected number of rolls of a distribution (entry `n` = P(exactly `n`
/// rolls)), summed in entry order.
pub fn expected_rolls<T: Copy + Into<f64>>(d: &[T]) -> f64 {
    d.iter()
        .enumerate()
        .map(|(n, &p)| n as f64 * p.into())
        .sum()
}
