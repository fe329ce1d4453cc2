//! Perfect, dense combinatorial indexing of one side's checkers on its home points.
//!
//! A side is `[u8; 6]`, `side[i]` = checkers on point `i + 1` (the owner's numbering,
//! the layout of [`Position::to_arrays`](crate::position::Position::to_arrays)). The
//! positions with at most `max` checkers on `k` points are the `C(max + k, k)` tuples
//! of `k` counts summing to at most `max` (54,264 for 15 checkers on 6 points, 924 for
//! 6 checkers). [`index`] numbers them `0..C(max + k, k)` in lexicographic order with
//! the *highest* point most significant, and [`unindex`] inverts it.
//!
//! Why that order: every checker step moves a checker from a point to a lower point
//! or off, so it lowers the count of the highest point it touches and leaves every
//! higher point unchanged. Every legal move therefore leads to a strictly *smaller*
//! index, and the databases are filled by one pass in increasing index order with
//! all successors already computed (no sorting by pip count, no recursion).
//!
//! The same scheme indexes the 15,504 sides with exactly 15 checkers (the gammon
//! table): the count on the 1-point is then implied, so they are the sides of points
//! 6..=2 holding at most 15, indexed by [`index_exactly_full`].

/// Home points per side.
pub const POINTS: usize = 6;

/// Largest `n` in the binomial table: `max + k + 1` with `max = 15`, `k = 6`.
const BINOM_N: usize = 23;

/// `BINOM[n][k] = C(n, k)` for `n < 23`, `k <= 7`.
const BINOM: [[u32; POINTS + 2]; BINOM_N] = {
    let mut t = [[0u32; POINTS + 2]; BINOM_N];
    let mut n = 0;
    while n < BINOM_N {
        t[n][0] = 1;
        let mut k = 1;
        while k < POINTS + 2 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// Largest checker count the tables support (a full side).
pub const MAX_CHECKERS: u8 = 15;

/// Number of sides with at most `max` checkers on `points` points: `C(max + points,
/// points)`. `max <= 15`, `points <= 6`.
pub const fn count(points: usize, max: u8) -> usize {
    BINOM[max as usize + points][points] as usize
}

/// Rank of `counts` (index 0 = lowest point) among the tuples of `counts.len()` points
/// summing to at most `max`; the caller guarantees the sum is at most `max <= 15`.
#[inline]
fn rank(counts: &[u8], max: u8) -> usize {
    let mut r = 0u32;
    let mut budget = max as usize;
    for (i, &c) in counts.iter().enumerate().rev() {
        // `i` lower points follow this one. Tuples with a smaller count `v < c` here:
        // sum over v of C(budget - v + i, i) = C(budget + i + 1, i + 1)
        //                                     - C(budget - c + i + 1, i + 1).
        let c = c as usize;
        r += BINOM[budget + i + 1][i + 1] - BINOM[budget - c + i + 1][i + 1];
        budget -= c;
    }
    r as usize
}

/// Inverse of [`rank`]; the caller guarantees `r < count(out.len(), max)`.
#[inline]
fn unrank(mut r: usize, max: u8, out: &mut [u8]) {
    let mut budget = max as usize;
    for i in (0..out.len()).rev() {
        let mut v = 0usize;
        loop {
            // Tuples with count `v` here: the `i` lower points share `budget - v`.
            let block = BINOM[budget - v + i][i] as usize;
            if r < block {
                break;
            }
            r -= block;
            v += 1;
        }
        out[i] = v as u8;
        budget -= v;
    }
}

/// Total checkers of a side.
#[inline]
pub fn checkers(side: &[u8; POINTS]) -> u32 {
    side.iter().map(|&c| u32::from(c)).sum()
}

/// Index of `side` among the sides with at most `max` checkers; `None` when it holds
/// more than `max` (or `max > 15`).
#[inline]
pub fn index(side: &[u8; POINTS], max: u8) -> Option<usize> {
    if max > MAX_CHECKERS || checkers(side) > u32::from(max) {
        return None;
    }
    Some(rank(side, max))
}

/// The side with index `idx` among those with at most `max` checkers; `None` when
/// `idx >= count(6, max)` (or `max > 15`).
pub fn unindex(idx: usize, max: u8) -> Option<[u8; POINTS]> {
    if max > MAX_CHECKERS || idx >= count(POINTS, max) {
        return None;
    }
    let mut side = [0u8; POINTS];
    unrank(idx, max, &mut side);
    Some(side)
}

/// Number of sides with exactly 15 checkers: `C(20, 5)` = 15,504.
pub const FULL_SIDES: usize = count(POINTS - 1, MAX_CHECKERS);

/// Index (`0..15_504`) of a side with exactly 15 checkers; `None` otherwise. A move
/// that bears nothing off lowers it, like [`index`].
#[inline]
pub fn index_exactly_full(side: &[u8; POINTS]) -> Option<usize> {
    if checkers(side) != u32::from(MAX_CHECKERS) {
        return None;
    }
    Some(rank(&side[1..], MAX_CHECKERS))
}

/// Inverse of [`index_exactly_full`]; `None` when `idx >= 15_504`.
pub fn unindex_exactly_full(idx: usize) -> Option<[u8; POINTS]> {
    if idx >= FULL_SIDES {
        return None;
    }
    let mut side = [0u8; POINTS];
    unrank(idx, MAX_CHECKERS, &mut side[1..]);
    let upper: u8 = side[1..].iter().sum();
    side[0] = MAX_CHECKERS - upper;
    Some(side)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sizes() {
        assert_eq!(count(6, 15), 54_264);
        assert_eq!(count(6, 6), 924);
        assert_eq!(FULL_SIDES, 15_504);
        assert_eq!(count(1, 15), 16);
    }

    #[test]
    fn round_trips_and_is_dense() {
        for max in [0u8, 1, 6, 15] {
            let n = count(POINTS, max);
            let mut prev: Option<[u8; 6]> = None;
            for idx in 0..n {
                let side = unindex(idx, max).unwrap();
                assert!(checkers(&side) <= u32::from(max));
                assert_eq!(index(&side, max), Some(idx));
                // Lexicographic with the highest point most significant.
                if let Some(p) = prev {
                    let (mut a, mut b) = (p, side);
                    a.reverse();
                    b.reverse();
                    assert!(a < b, "{p:?} !< {side:?}");
                }
                prev = Some(side);
            }
            assert_eq!(unindex(n, max), None);
        }
        for idx in 0..FULL_SIDES {
            let side = unindex_exactly_full(idx).unwrap();
            assert_eq!(checkers(&side), 15);
            assert_eq!(index_exactly_full(&side), Some(idx));
        }
        assert_eq!(unindex_exactly_full(FULL_SIDES), None);
    }

    #[test]
    fn rejects_overfull_sides() {
        assert_eq!(index(&[16, 0, 0, 0, 0, 0], 15), None);
        assert_eq!(index(&[3, 4, 0, 0, 0, 0], 6), None);
        assert_eq!(index(&[0; 6], 16), None);
        assert_eq!(index_exactly_full(&[14, 0, 0, 0, 0, 0]), None);
        assert_eq!(index(&[0; 6], 15), Some(0));
        assert_eq!(index(&[0, 0, 0, 0, 0, 15], 15), Some(count(6, 15) - 1));
    }

    #[test]
    fn any_checker_step_lowers_the_index() {
        for idx in 0..count(POINTS, 15) {
            let side = unindex(idx, 15).unwrap();
            for from in 0..POINTS {
                if side[from] == 0 {
                    continue;
                }
                // Off, or down to any lower point.
                for to in 0..=from {
                    let mut s = side;
                    s[from] -= 1;
                    if to > 0 {
                        s[to - 1] += 1;
                    }
                    assert!(index(&s, 15).unwrap() < idx);
                }
            }
        }
    }
}
