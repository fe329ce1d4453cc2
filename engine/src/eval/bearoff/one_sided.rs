//! One-sided bear-off database: how many rolls one side needs, ignoring the other.
//!
//! For each of the 54,264 sides of at most 15 checkers on the 6 home points
//! ([`index`](super::index)) it stores the distribution of the number of rolls needed
//! to bear off *all* checkers when every roll is played to minimise the expected
//! number of rolls of the resulting side (GNU Backgammon's one-sided database), and
//! for the 15,504 sides still holding all 15 checkers, the distribution of the number
//! of rolls needed to bear off the *first* checker, played to minimise that instead
//! (what gammon chances need).
//!
//! Legal moves come from the engine's own [`MoveGenerator`] run on a position holding
//! only that side's checkers, so the bear-off rules (exact die, larger die from the
//! highest point, the larger die when only one can be played) are exactly those of
//! the rest of the engine.
//!
//! Sizes: the all-off table is 54,264 x [`MAX_ROLLS`] (32) `f32` = 6.9 MB plus 54,264
//! expected values (0.2 MB); the first-off table is 15,504 x [`MAX_FIRST_ROLLS`] (12)
//! `f32` = 0.7 MB plus 15,504 expected values. The longest all-off distribution
//! reaches 30 rolls (15 checkers on the 6-point rolling 2-1 every time: 90 pips at 3
//! a roll), the longest first-off one 10 rolls (14 on the 5-point and 1 on the 3-point,
//! P(10 rolls) ~ 1e-12); [`OneSidedDb::build`] asserts that both fit (the last entry
//! of every row stays 0) and the tests pin 30 and 10. The tails are kept rather than
//! cut so that every distribution sums to 1.
//!
//! Build: one pass in increasing index order (every move lowers the index), 21 rolls
//! per side, about 1.1 million move generations, with no allocation per side; the
//! figures are in [`super::BearoffDb`]. Sums over rolls run in `f64` in the fixed
//! order of [`Dice::ALL_21`], so the tables (and their checksum) are reproducible bit
//! for bit.

use super::index::{self, FULL_SIDES, MAX_CHECKERS, POINTS};
use crate::dice::Dice;
use crate::movegen::MoveGenerator;
use crate::position::Position;

/// Length of every all-off distribution: entry `n` is P(exactly `n` rolls), `n` in
/// `0..32`; entry 0 is 1 only for the empty side. The longest needs 30.
pub const MAX_ROLLS: usize = 32;

/// Length of every first-off distribution (entry `n` = P(first checker off on roll
/// `n`)); entry 0 is always 0. The longest needs 10.
pub const MAX_FIRST_ROLLS: usize = 12;

/// Number of sides in the all-off table: `C(21, 6)`.
pub const SIDES: usize = index::count(POINTS, MAX_CHECKERS);

/// The one-sided tables. See the module docs.
pub struct OneSidedDb {
    /// `SIDES * MAX_ROLLS`: row `index(side)` = P(bear off all in exactly n rolls).
    dist: Vec<f32>,
    /// `SIDES`: expected rolls to bear off all (computed in `f64`, stored `f32`).
    expected: Vec<f32>,
    /// `FULL_SIDES * MAX_FIRST_ROLLS`: row `index_exactly_full(side)` = P(first
    /// checker off on exactly roll n).
    first: Vec<f32>,
    /// `FULL_SIDES`: expected rolls to bear off the first checker.
    first_expected: Vec<f32>,
}

/// A position holding only `side` (the mover's checkers, `[i]` on point `i + 1`, at
/// most 24 points: the home board here, a whole side in `gammon_save`; no opponent
/// checkers). Public because `bgfarm-lab`'s side-net samples build sides with it.
pub fn side_position(side: &[u8]) -> Position {
    let mut pos = Position::STARTING;
    let p = pos.pips_mut();
    *p = [0; 26];
    for (i, &c) in side.iter().enumerate() {
        // At most 15 checkers: fits in i8.
        p[i + 1] = c as i8;
    }
    pos
}

/// The mover's home-board checkers of a position produced by moving a
/// [`side_position`] (nothing can leave the home board or go negative there).
#[inline]
pub(crate) fn side_of(pos: &Position) -> [u8; POINTS] {
    let p = pos.pips();
    let mut s = [0u8; POINTS];
    for (i, c) in s.iter_mut().enumerate() {
        *c = p[i + 1].max(0) as u8;
    }
    s
}

impl OneSidedDb {
    /// Computes both tables. Panics only if an internal bound ([`MAX_ROLLS`],
    /// [`MAX_FIRST_ROLLS`]) is too small, which the tests rule out.
    pub fn build() -> OneSidedDb {
        let mut dist = vec![0f64; SIDES * MAX_ROLLS];
        let mut expected = vec![0f64; SIDES];
        let mut first = vec![0f64; FULL_SIDES * MAX_FIRST_ROLLS];
        let mut first_expected = vec![0f64; FULL_SIDES];
        // The empty side (index 0) is off in 0 rolls.
        dist[0] = 1.0;
        let mut gen = MoveGenerator::new();
        for idx in 1..SIDES {
            let Some(side) = index::unindex(idx, MAX_CHECKERS) else {
                unreachable!("index {idx} < SIDES")
            };
            let full_idx = index::index_exactly_full(&side);
            let pos = side_position(&side);
            let mut row = [0f64; MAX_ROLLS];
            let mut exp = 0f64;
            let mut frow = [0f64; MAX_FIRST_ROLLS];
            let mut fexp = 0f64;
            for &(dice, weight) in &Dice::ALL_21 {
                let w = f64::from(weight);
                let moves = gen.generate(&pos, dice);
                // In a bear-off with no opponent checkers every die can be played, so
                // there is always at least one move.
                let mut best = usize::MAX;
                let mut best_e = f64::INFINITY;
                let mut bears_off = false;
                let mut best_f = usize::MAX;
                let mut best_fe = f64::INFINITY;
                for m in moves {
                    let s = side_of(m.result());
                    let Some(j) = index::index(&s, MAX_CHECKERS) else {
                        unreachable!("a move never adds checkers")
                    };
                    if expected[j] < best_e {
                        best_e = expected[j];
                        best = j;
                    }
                    if full_idx.is_some() {
                        match index::index_exactly_full(&s) {
                            Some(f) if !bears_off => {
                                if first_expected[f] < best_fe {
                                    best_fe = first_expected[f];
                                    best_f = f;
                                }
                            }
                            Some(_) => {}
                            None => bears_off = true,
                        }
                    }
                }
                assert!(best != usize::MAX, "no legal move for {side:?} {dice}");
                let succ = &dist[best * MAX_ROLLS..(best + 1) * MAX_ROLLS];
                assert!(
                    succ[MAX_ROLLS - 1] == 0.0,
                    "MAX_ROLLS = {MAX_ROLLS} is too small for {side:?}"
                );
                for n in 1..MAX_ROLLS {
                    row[n] += w * succ[n - 1];
                }
                exp += w * (1.0 + best_e);
                if full_idx.is_some() {
                    if bears_off {
                        frow[1] += w;
                        fexp += w;
                    } else {
                        assert!(best_f != usize::MAX, "no legal move for {side:?} {dice}");
                        let succ = &first[best_f * MAX_FIRST_ROLLS..][..MAX_FIRST_ROLLS];
                        assert!(
                            succ[MAX_FIRST_ROLLS - 1] == 0.0,
                            "MAX_FIRST_ROLLS = {MAX_FIRST_ROLLS} is too small for {side:?}"
                        );
                        for n in 1..MAX_FIRST_ROLLS {
                            frow[n] += w * succ[n - 1];
                        }
                        fexp += w * (1.0 + best_fe);
                    }
                }
            }
            for (d, r) in dist[idx * MAX_ROLLS..][..MAX_ROLLS].iter_mut().zip(row) {
                *d = r / 36.0;
            }
            expected[idx] = exp / 36.0;
            if let Some(f) = full_idx {
                for (d, r) in first[f * MAX_FIRST_ROLLS..][..MAX_FIRST_ROLLS]
                    .iter_mut()
                    .zip(frow)
                {
                    *d = r / 36.0;
                }
                first_expected[f] = fexp / 36.0;
            }
        }
        let to32 = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
        OneSidedDb {
            dist: to32(dist),
            expected: to32(expected),
            first: to32(first),
            first_expected: to32(first_expected),
        }
    }

    /// P(all checkers of `side` off in exactly `n` rolls), `n` in `0..MAX_ROLLS`;
    /// `None` for more than 15 checkers.
    pub fn distribution(&self, side: &[u8; POINTS]) -> Option<&[f32]> {
        let i = index::index(side, MAX_CHECKERS)?;
        Some(&self.dist[i * MAX_ROLLS..][..MAX_ROLLS])
    }

    /// Expected rolls to bear off all checkers of `side`; `None` for more than 15.
    pub fn expected_rolls(&self, side: &[u8; POINTS]) -> Option<f32> {
        Some(self.expected[index::index(side, MAX_CHECKERS)?])
    }

    /// P(first checker of `side` off on exactly roll `n`), `n` in
    /// `0..MAX_FIRST_ROLLS`; `None` unless `side` holds exactly 15 checkers.
    pub fn first_off_distribution(&self, side: &[u8; POINTS]) -> Option<&[f32]> {
        let i = index::index_exactly_full(side)?;
        Some(&self.first[i * MAX_FIRST_ROLLS..][..MAX_FIRST_ROLLS])
    }

    /// Expected rolls to bear off the first checker; `None` unless 15 checkers.
    pub fn expected_first_off(&self, side: &[u8; POINTS]) -> Option<f32> {
        Some(self.first_expected[index::index_exactly_full(side)?])
    }

    /// The table lengths [`tables`](Self::tables) returns, in the same order.
    pub(crate) const TABLE_LENS: [usize; 4] = [
        SIDES * MAX_ROLLS,
        SIDES,
        FULL_SIDES * MAX_FIRST_ROLLS,
        FULL_SIDES,
    ];

    /// The tables back from [`tables`](Self::tables)' order (the disk cache); `None`
    /// unless every length is [`TABLE_LENS`](Self::TABLE_LENS)'.
    pub(crate) fn from_tables(mut t: Vec<Vec<f32>>) -> Option<OneSidedDb> {
        let lens: Vec<usize> = t.iter().map(Vec::len).collect();
        if lens != Self::TABLE_LENS {
            return None;
        }
        let first_expected = t.pop()?;
        let first = t.pop()?;
        let expected = t.pop()?;
        let dist = t.pop()?;
        Some(OneSidedDb {
            dist,
            expected,
            first,
            first_expected,
        })
    }

    /// The raw tables in checksum order: all-off distributions, all-off expectations,
    /// first-off distributions, first-off expectations.
    pub(crate) fn tables(&self) -> [&[f32]; 4] {
        [
            &self.dist,
            &self.expected,
            &self.first,
            &self.first_expected,
        ]
    }

    /// Largest `n` with a non-zero all-off probability over every side (30).
    pub fn longest(&self) -> usize {
        longest(&self.dist, MAX_ROLLS)
    }

    /// Largest `n` with a non-zero first-off probability over every side (10).
    pub fn longest_first_off(&self) -> usize {
        longest(&self.first, MAX_FIRST_ROLLS)
    }
}

/// Largest index of a non-zero entry over the rows of `table`.
fn longest(table: &[f32], len: usize) -> usize {
    table
        .chunks_exact(len)
        .filter_map(|row| row.iter().rposition(|&p| p > 0.0))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::super::BearoffDb;
    use super::*;

    fn db() -> &'static OneSidedDb {
        BearoffDb::global().one_sided()
    }

    fn close(a: f32, b: f64) -> bool {
        (f64::from(a) - b).abs() < 1e-6
    }

    #[test]
    fn lone_checker_on_the_six_point() {
        // Off in one roll: the 11 rolls with a 6, the 12 non-doubles summing to 6 or
        // more (5-1 5-2 5-3 5-4 4-2 4-3, twice each) and 2-2 3-3 4-4 5-5: 27/36.
        // The other 9 (1-1 2-1 3-1 4-1 3-2) leave it on the 1, 2 or 3 point, from
        // where every roll bears it off.
        let d = db().distribution(&[0, 0, 0, 0, 0, 1]).unwrap();
        assert!(close(d[1], 27.0 / 36.0));
        assert!(close(d[2], 9.0 / 36.0));
        assert!(d[3..].iter().all(|&p| p == 0.0));
        assert!(close(
            db().expected_rolls(&[0, 0, 0, 0, 0, 1]).unwrap(),
            1.25
        ));
    }

    #[test]
    fn checkers_on_the_one_point() {
        for side in [[1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0]] {
            let d = db().distribution(&side).unwrap();
            assert_eq!(d[1], 1.0);
            assert_eq!(db().expected_rolls(&side), Some(1.0));
        }
        // Three on the 1-point: doubles (6/36) take all, otherwise one is left.
        let d = db().distribution(&[3, 0, 0, 0, 0, 0]).unwrap();
        assert!(close(d[1], 6.0 / 36.0));
        assert!(close(d[2], 30.0 / 36.0));
        assert_eq!(db().distribution(&[0; 6]).unwrap()[0], 1.0);
        assert_eq!(db().expected_rolls(&[0; 6]), Some(0.0));
    }

    #[test]
    fn two_checkers_on_the_six_point() {
        // Both off in one roll only with 3-3, 4-4, 5-5 or 6-6 (two dice per checker);
        // 2-2 carries one checker 6 pips with three dice and leaves the other on the 4.
        let d = db().distribution(&[0, 0, 0, 0, 0, 2]).unwrap();
        assert!(close(d[1], 4.0 / 36.0));
        let e = db().expected_rolls(&[0, 0, 0, 0, 0, 2]).unwrap();
        assert!(e > 1.0 + 32.0 / 36.0 && e < 3.0, "{e}");
    }

    #[test]
    fn first_checker_off_from_fifteen_on_the_six_point() {
        // One roll: any 6 (11), 5-1 and 4-2 through the exact point (4), 3-3 and 2-2
        // (2): 17/36. 4-4, 5-5 and the other non-doubles cannot (a larger die bears
        // off only from the highest point, here the 6).
        let side = [0, 0, 0, 0, 0, 15];
        let d = db().first_off_distribution(&side).unwrap();
        assert!(close(d[1], 17.0 / 36.0));
        assert!(d[2] > 0.4 && d[2] < 19.0 / 36.0, "{}", d[2]);
        let e = db().expected_first_off(&side).unwrap();
        assert!(e > 55.0 / 36.0 && e < 2.0, "{e}");
        assert_eq!(db().first_off_distribution(&[0, 0, 0, 0, 0, 14]), None);
        // Fifteen on the 1-point: the first checker is off on the first roll.
        assert_eq!(
            db().first_off_distribution(&[15, 0, 0, 0, 0, 0]).unwrap()[1],
            1.0
        );
    }

    #[test]
    fn distributions_sum_to_one_and_match_expectations() {
        for idx in 0..SIDES {
            let side = index::unindex(idx, 15).unwrap();
            let d = db().distribution(&side).unwrap();
            let total: f64 = d.iter().map(|&p| f64::from(p)).sum();
            assert!((total - 1.0).abs() < 1e-5, "{side:?}: {total}");
            assert!(d.iter().all(|&p| (0.0..=1.0).contains(&p)));
            let mean: f64 = d
                .iter()
                .enumerate()
                .map(|(n, &p)| n as f64 * f64::from(p))
                .sum();
            let e = f64::from(db().expected_rolls(&side).unwrap());
            assert!((mean - e).abs() < 1e-4 * e.max(1.0), "{side:?}: {mean} {e}");
            if let Some(f) = db().first_off_distribution(&side) {
                let total: f64 = f.iter().map(|&p| f64::from(p)).sum();
                assert!((total - 1.0).abs() < 1e-5, "{side:?}: {total}");
                assert_eq!(f[0], 0.0);
                // The first checker is never off later than the last, on average.
                assert!(db().expected_first_off(&side).unwrap() <= e as f32 + 1e-5);
            }
        }
        assert_eq!(db().distribution(&[16, 0, 0, 0, 0, 0]), None);
    }

    #[test]
    fn longest_bear_off_fits() {
        // 15 on the 6-point rolling 2-1 forever: 90 pips at 3 a roll.
        assert_eq!(db().longest(), 30);
        assert_eq!(db().longest_first_off(), 10);
        // Fifteen checkers need at least 4 rolls (four checkers a double at most).
        let d = db().distribution(&[0, 0, 0, 0, 0, 15]).unwrap();
        assert!(d[..4].iter().all(|&p| p == 0.0));
        assert!(d[4] > 0.0);
    }

    #[test]
    fn more_pips_never_means_fewer_expected_rolls_for_the_same_shape() {
        // The same shape one point further back, or with one more checker, never
        // needs fewer rolls.
        for idx in 0..SIDES {
            let side = index::unindex(idx, 15).unwrap();
            let e = db().expected_rolls(&side).unwrap();
            if side[POINTS - 1] == 0 {
                let mut back = [0u8; POINTS];
                back[1..].copy_from_slice(&side[..POINTS - 1]);
                let eb = db().expected_rolls(&back).unwrap();
                assert!(eb >= e - 1e-5, "{side:?} {e} vs {back:?} {eb}");
            }
            if index::checkers(&side) < 15 {
                for p in 0..POINTS {
                    let mut more = side;
                    more[p] += 1;
                    let em = db().expected_rolls(&more).unwrap();
                    assert!(em >= e - 1e-5, "{side:?} {e} vs {more:?} {em}");
                }
            }
        }
        // But a different shape with more pips can be faster: 2-1 bears two checkers
        // off [2, 1, 1] (2/off 1/off) and only one off [3, 0, 1] (the 2 cannot bear
        // off below the highest point).
        let gappy = db().expected_rolls(&[3, 0, 1, 0, 0, 0]).unwrap();
        let smooth = db().expected_rolls(&[2, 1, 1, 0, 0, 0]).unwrap();
        assert!(smooth < gappy, "{smooth} {gappy}");
    }
}
