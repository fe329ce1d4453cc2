//! Two-sided exact bear-off database for short endings: both sides with at most 6
//! checkers on their home points.
//!
//! The one-sided tables assume each side minimises its expected rolls and that the
//! two races are independent; near the end that is not the best play (with one roll
//! left to win, bearing off two checkers can matter more than saving pips). Here the
//! value is the exact cubeless probability that the player on roll wins when both
//! sides play to maximise their winning chances:
//!
//! `V(a, b) = 1/36 * sum over rolls of max over legal moves a -> a' of
//! (1 if a' is empty, else 1 - V(b, a'))`.
//!
//! A side with at most 6 checkers left has borne off at least 9, so neither side can
//! lose a gammon: P(win) is the whole answer.
//!
//! Sizes: 924 sides (`C(12, 6)`) per player, 924 x 924 = 853,776 `f32` = 3.4 MB.
//! Every move lowers its side's index ([`index`](super::index)), so `V(b, a')` has
//! a smaller index sum than `V(a, b)`: one pass over increasing index sums fills the
//! table. The 924 x 21 move lists are generated once (the engine's
//! [`MoveGenerator`]) and stored as successor indices, so the pass itself is only
//! table look-ups (about 550 million, 0.3 s in a release build).

use super::index::{self, POINTS};
use super::one_sided::{side_of, side_position};
use crate::dice::Dice;
use crate::movegen::MoveGenerator;

/// Most checkers per side the two-sided table covers.
pub const MAX_TWO_SIDED: u8 = 6;

/// Sides per player in the two-sided table: `C(12, 6)` = 924.
pub const TWO_SIDED_SIDES: usize = index::count(POINTS, MAX_TWO_SIDED);

/// The exact two-sided table. See the module docs.
pub struct TwoSidedDb {
    /// `TWO_SIDED_SIDES^2`: entry `mover * 924 + opponent` = P(player on roll wins).
    win: Vec<f32>,
}

impl TwoSidedDb {
    /// Computes the table.
    pub fn build() -> TwoSidedDb {
        const N: usize = TWO_SIDED_SIDES;
        // Successor indices of every side and roll: side a, roll r at
        // succ[offsets[21 a + r]..offsets[21 a + r + 1]].
        let mut offsets: Vec<u32> = Vec::with_capacity(N * 21 + 1);
        let mut succ: Vec<u16> = Vec::new();
        offsets.push(0);
        let mut gen = MoveGenerator::new();
        for a in 0..N {
            let Some(side) = index::unindex(a, MAX_TWO_SIDED) else {
                unreachable!("index {a} < {N}")
            };
            let pos = side_position(&side);
            for &(dice, _) in &Dice::ALL_21 {
                // The empty side (a = 0) has no moves and is never looked up.
                for m in gen.generate(&pos, dice) {
                    let Some(j) = index::index(&side_of(m.result()), MAX_TWO_SIDED) else {
                        unreachable!("a move never adds checkers")
                    };
                    succ.push(j as u16);
                }
                offsets.push(succ.len() as u32);
            }
        }

        let mut v = vec![0f64; N * N];
        // A player on roll with nothing left has already won; one facing an empty
        // opponent has already lost (index 0 = the empty side).
        v[..N].fill(1.0);
        for s in 2..=2 * (N - 1) {
            for a in s.saturating_sub(N - 1).max(1)..=(s - 1).min(N - 1) {
                let b = s - a;
                let mut acc = 0f64;
                for (r, &(_, weight)) in Dice::ALL_21.iter().enumerate() {
                    let k = a * 21 + r;
                    let list = &succ[offsets[k] as usize..offsets[k + 1] as usize];
                    // The move leaving the opponent the smallest chance. An empty
                    // side (j = 0) reads V(b, 0) = 0: a win.
                    let row = &v[b * N..(b + 1) * N];
                    let worst_for_opponent = list
                        .iter()
                        .map(|&j| row[usize::from(j)])
                        .fold(f64::INFINITY, f64::min);
                    let best = 1.0 - worst_for_opponent;
                    acc += f64::from(weight) * best;
                }
                v[a * N + b] = acc / 36.0;
            }
        }
        TwoSidedDb {
            win: v.into_iter().map(|x| x as f32).collect(),
        }
    }

    /// P(the player on roll wins) with `mover` and `opponent` checkers on their home
    /// points (each in its owner's numbering); `None` when a side holds more than 6.
    /// 1 when the mover has nothing left, 0 when only the opponent has nothing left.
    pub fn win_prob(&self, mover: &[u8; POINTS], opponent: &[u8; POINTS]) -> Option<f32> {
        let a = index::index(mover, MAX_TWO_SIDED)?;
        let b = index::index(opponent, MAX_TWO_SIDED)?;
        Some(self.win[a * TWO_SIDED_SIDES + b])
    }

    /// Length of [`table`](Self::table).
    pub(crate) const TABLE_LEN: usize = TWO_SIDED_SIDES * TWO_SIDED_SIDES;

    /// The table back from [`table`](Self::table) (the disk cache); `None` unless its
    /// length is [`TABLE_LEN`](Self::TABLE_LEN).
    pub(crate) fn from_table(win: Vec<f32>) -> Option<TwoSidedDb> {
        (win.len() == Self::TABLE_LEN).then_some(TwoSidedDb { win })
    }

    /// The raw table, for the checksum.
    pub(crate) fn table(&self) -> &[f32] {
        &self.win
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BearoffDb, OneSidedDb};
    use super::*;

    fn db() -> &'static TwoSidedDb {
        BearoffDb::global().two_sided()
    }

    const ONE_ON_1: [u8; 6] = [1, 0, 0, 0, 0, 0];
    const ONE_ON_6: [u8; 6] = [0, 0, 0, 0, 0, 1];

    #[test]
    fn exact_small_endings() {
        assert_eq!(db().win_prob(&ONE_ON_1, &ONE_ON_1), Some(1.0));
        // Off in one roll with 27/36, else the opponent wins at once.
        assert_eq!(db().win_prob(&ONE_ON_6, &ONE_ON_1), Some(0.75));
        // 27/36 at once; otherwise the opponent misses with 9/36 and the mover's
        // checker (now on the 1, 2 or 3 point) is off: 3/4 + 1/4 * 1/4 = 13/16.
        assert_eq!(db().win_prob(&ONE_ON_6, &ONE_ON_6), Some(13.0 / 16.0));
        // Two on the 1-point: every roll bears both off.
        assert_eq!(db().win_prob(&[2, 0, 0, 0, 0, 0], &ONE_ON_1), Some(1.0));
        // Three on the 1-point against one: only doubles (6/36) win.
        let p = db().win_prob(&[3, 0, 0, 0, 0, 0], &ONE_ON_1).unwrap();
        assert!((p - 1.0 / 6.0).abs() < 1e-7);
        assert_eq!(db().win_prob(&[7, 0, 0, 0, 0, 0], &ONE_ON_1), None);
    }

    #[test]
    fn probabilities_are_sane_and_monotone() {
        const N: usize = TWO_SIDED_SIDES;
        for a in 1..N {
            let sa = index::unindex(a, MAX_TWO_SIDED).unwrap();
            for b in 1..N {
                let sb = index::unindex(b, MAX_TWO_SIDED).unwrap();
                let v = db().win_prob(&sa, &sb).unwrap();
                assert!((0.0..=1.0).contains(&v), "{sa:?} {sb:?} {v}");
                // One more opponent checker (if the table has room) never hurts.
                if index::checkers(&sb) < u32::from(MAX_TWO_SIDED) {
                    let mut more = sb;
                    more[5] += 1;
                    let w = db().win_prob(&sa, &more).unwrap();
                    assert!(w >= v - 1e-6, "{sa:?} {sb:?} {v} vs {more:?} {w}");
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_one_sided_race() {
        // The one-sided race lets both sides minimise expected rolls instead of
        // maximising P(win); on short endings the two must stay close.
        let one: &OneSidedDb = BearoffDb::global().one_sided();
        let mut worst = 0f64;
        let mut total = 0f64;
        let mut pairs = 0usize;
        for a in 1..TWO_SIDED_SIDES {
            let sa = index::unindex(a, MAX_TWO_SIDED).unwrap();
            for b in 1..TWO_SIDED_SIDES {
                let sb = index::unindex(b, MAX_TWO_SIDED).unwrap();
                let exact = f64::from(db().win_prob(&sa, &sb).unwrap());
                let race = super::super::race_probs(one, &sa, &sb).unwrap().0[0];
                let diff = (exact - f64::from(race)).abs();
                worst = worst.max(diff);
                total += diff;
                pairs += 1;
            }
        }
        let mean = total / pairs as f64;
        println!("two-sided vs one-sided: mean |diff| {mean:.5}, max {worst:.5}");
        assert!(mean < 0.005, "{mean}");
        assert!(worst < 0.03, "{worst}");
    }
}
