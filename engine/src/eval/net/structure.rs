//! The contact features' third block (encoding `bgfarm-198f-v5`): where a side's
//! back checkers stand, how much time it has before its structure breaks, and how
//! many of the opponent's outfield checkers it bears on.
//!
//! Why: rolled out, the 30 decisions that cost the 0-ply contact net most on GNU
//! Backgammon's bench showed two patterns the first two blocks do not describe. The
//! net undervalued a side that runs its back checkers while the opponent must still
//! clear a midpoint past them (21/15 20/15 beats 10/5 8/2 by 0.27 after 5-6 in
//! u/GABwDCK3EwBQ), and it overvalued hitting a side that holds a back game, whose
//! timing the hit improves (bar/24*/21 rated 0.77 where GNU Backgammon says 0.23 in
//! oRUHYBeH/YADQA). Both turn on products of a threshold and a count (two anchors
//! *and* the pips to spare; an opponent's checker *and* one of ours behind it), which
//! one sigmoid unit over the raw counts cannot form.
//!
//! [`THIRD_PER_SIDE`] values per side S (O the other side), in S's numbering (S moves
//! from 24 towards 1, its bar is 25):
//!
//! 0. `rearmost`: S's rearmost checker's point / 25.
//! 1. `back_anchor`: S's rearmost made point among 13..=24, `(p - 12) / 12`; 0 with
//!    none.
//! 2. `straggle`: over S's checkers behind their mean point, the sum of the squared
//!    distances to the mean, / (100 x checkers on the board): how far S's stragglers
//!    trail the rest (the opening position: 0.23).
//! 3. `timing`: the pips S can play without giving up a point it holds in O's home
//!    board (two checkers of each made point on 19..=24 stay) or a made home point
//!    (two checkers stay): `p - 6` for every other checker on 7..=25, `p - 1` for each
//!    spare on the home points, / 100 (the opening position: 0.56).
//! 4. `back_game`: `timing` when S holds two or more points on 19..=24, else 0.
//! 5. `holding`: `timing` when S holds exactly one point on 19..=24, else 0.
//! 6. `targets`: O's checkers on S's points 7..=18 with an S checker 1 to 11 pips
//!    behind them (S's bar counting as point 25), / 15: the checkers O must still
//!    bring home past S's fire (the opening position: 8 / 15 for either side, O's
//!    midpoint under S's and O's 8 point under S's back checkers).
//!
//! All are 0 in a pure race, where the race net reads only the first block.
//!
//! Measured: added to the one-layer contact net and fitted with it to
//! 6.6M 1-ply labels, the block changed nothing measurable
//! (`scripts/contact-diff-check.py` 60.4 against 60.3 without it). In a 128-unit net
//! fitted from random weights to 2.1M of those labels it lowered the held-out equity
//! RMSE at epoch 13 of 30 from 0.0413 to 0.0400. The deeper nets, with a second
//! hidden layer, read it.

use crate::position::Position;

/// Features per side in the third block.
pub const THIRD_PER_SIDE: usize = 7;

/// One side's checkers and the other side's, both in the side's numbering: index
/// `i` is its point `i` (25 its bar); the other side's bar is index 0. The masks
/// have bit `i` set where the count at `i` is not zero.
struct Sides {
    own: [u8; 26],
    other: [u8; 26],
    own_mask: u32,
    other_mask: u32,
}

impl Sides {
    /// The mover's view and the opponent's of `pos`.
    fn both(pos: &Position) -> (Sides, Sides) {
        let p = pos.pips();
        let mut m = Sides {
            own: [0; 26],
            other: [0; 26],
            own_mask: 0,
            other_mask: 0,
        };
        let mut o = Sides {
            own: [0; 26],
            other: [0; 26],
            own_mask: 0,
            other_mask: 0,
        };
        let (mut mine_mask, mut theirs_mask) = (0u32, 0u32);
        for (i, &c) in p.iter().enumerate() {
            let (mine, theirs) = (c.max(0) as u8, (-c).max(0) as u8);
            m.own[i] = mine;
            m.other[i] = theirs;
            o.own[25 - i] = theirs;
            o.other[25 - i] = mine;
            mine_mask |= u32::from(mine > 0) << i;
            theirs_mask |= u32::from(theirs > 0) << i;
        }
        // Bit `25 - i` of the opponent's masks is bit `i` of the board's.
        let flip = |mask: u32| mask.reverse_bits() >> 6;
        // Index 0 of `own` stays 0: it comes from the other side's bar (board index
        // 0 for the mover, 25 for the opponent), which holds none of the side's.
        (m.own_mask, m.other_mask) = (mine_mask & !1, theirs_mask);
        (o.own_mask, o.other_mask) = (flip(theirs_mask) & !1, flip(mine_mask));
        (m, o)
    }
}

/// The set bits of `mask`, lowest first.
#[inline]
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// The third block of one side: one pass over its occupied points for the counts,
/// the stragglers from the mean up to the rearmost point, and the targets by bit
/// masks (about 0.5 us per position for both sides as first written with searches
/// and per-point scans; `benches/eval.rs`). The occupied points come from the
/// masks, most positions holding 5-8 of a side's 25 points: visiting all 25 took
/// 11% of a 2-ply rollout's CPU (perf, opening, 36 trials), this 5%; the 2-ply
/// opening rollout (72 trials, seed 1, one thread) went 19.3-19.4 s -> 17.9-18.0 s.
#[inline]
fn side(s: &Sides) -> [f32; THIRD_PER_SIDE] {
    let own = &s.own;
    let (mut n, mut sum, mut timing, mut held_back) = (0u32, 0u32, 0u32, 0u32);
    let (mut rearmost, mut back_anchor) = (0usize, 0usize);
    for i in bits(s.own_mask) {
        let (c, p) = (u32::from(own[i]), i as u32);
        n += c;
        sum += c * p;
        rearmost = i;
        if i <= 6 {
            timing += c.saturating_sub(2) * (p - 1);
        } else if (19..=24).contains(&i) && c >= 2 {
            held_back += 1;
            timing += (c - 2) * (p - 6);
        } else {
            timing += c * (p - 6);
        }
        if (13..=24).contains(&i) && c >= 2 {
            back_anchor = i - 12;
        }
    }
    let straggle = if n == 0 {
        0.0
    } else {
        let mean = sum as f32 / n as f32;
        // The occupied points above the mean, in ascending order (the sum's order
        // is part of the value's bits; an empty point added an exact 0).
        let first = sum / n + 1;
        let above = (s.own_mask >> first) << first;
        let mut sq = 0.0;
        for i in bits(above) {
            let d = i as f32 - mean;
            if d > 0.0 {
                sq += f32::from(own[i]) * d * d;
            }
        }
        sq / (100.0 * n as f32)
    };
    let timing = timing as f32 / 100.0;
    let mut targets = 0u32;
    // O's checkers on S's points 7..=18 (bits 7-18) with an S checker 1 to 11 pips
    // behind them.
    for x in bits(s.other_mask & 0x7_ff80) {
        // S's points x + 1 ..= x + 11 (the bar, 25, included).
        let behind = ((1u32 << (x + 12).min(26)) - 1) & !((1u32 << (x + 1)) - 1);
        if s.own_mask & behind != 0 {
            targets += u32::from(s.other[x]);
        }
    }
    [
        rearmost as f32 / 25.0,
        back_anchor as f32 / 12.0,
        straggle,
        timing,
        if held_back >= 2 { timing } else { 0.0 },
        if held_back == 1 { timing } else { 0.0 },
        targets as f32 / 15.0,
    ]
}

/// The third block of `pos`: the mover's side, then the opponent's.
pub fn third_block(pos: &Position) -> [[f32; THIRD_PER_SIDE]; 2] {
    let (m, o) = Sides::both(pos);
    [side(&m), side(&o)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block as first written, by searches and scans: the reference.
    fn side_by_scans(s: &Sides) -> [f32; THIRD_PER_SIDE] {
        let own = &s.own;
        let rearmost = (1..=25).rev().find(|&i| own[i] > 0).unwrap_or(0);
        let back_anchor = (13..=24).rev().find(|&i| own[i] >= 2).map_or(0, |i| i - 12);
        let (mut n, mut sum) = (0u32, 0u32);
        for (i, &c) in own.iter().enumerate() {
            n += u32::from(c);
            sum += u32::from(c) * i as u32;
        }
        let mean = if n == 0 { 0.0 } else { sum as f32 / n as f32 };
        let mut sq = 0.0;
        for (i, &c) in own.iter().enumerate() {
            let d = i as f32 - mean;
            if d > 0.0 {
                sq += f32::from(c) * d * d;
            }
        }
        let (mut held, mut timing) = (0, 0u32);
        for (i, &c) in own.iter().enumerate().skip(1) {
            let (c, p) = (u32::from(c), i as u32);
            if i <= 6 {
                timing += c.saturating_sub(2) * (p - 1);
            } else if (19..=24).contains(&i) && c >= 2 {
                held += 1;
                timing += (c - 2) * (p - 6);
            } else {
                timing += c * (p - 6);
            }
        }
        let timing = timing as f32 / 100.0;
        let mut targets = 0u32;
        for x in 7..=18 {
            if s.other[x] > 0 && own[x + 1..=(x + 11).min(25)].iter().any(|&c| c > 0) {
                targets += u32::from(s.other[x]);
            }
        }
        [
            rearmost as f32 / 25.0,
            back_anchor as f32 / 12.0,
            if n == 0 { 0.0 } else { sq / (100.0 * n as f32) },
            timing,
            if held >= 2 { timing } else { 0.0 },
            if held == 1 { timing } else { 0.0 },
            targets as f32 / 15.0,
        ]
    }

    #[test]
    fn one_pass_matches_the_scans_bit_for_bit() {
        for pos in crate::testutil::random_positions(20_000, 19) {
            let (m, o) = Sides::both(&pos);
            for s in [m, o] {
                let (a, b) = (side(&s), side_by_scans(&s));
                assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{pos:?}");
            }
        }
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    /// The opening position by hand, the same for both sides.
    #[test]
    fn opening_position_by_hand() {
        let [m, o] = third_block(&Position::STARTING);
        assert_eq!(m, o);
        assert!(close(m[0], 24.0 / 25.0));
        assert!(close(m[1], 1.0), "two on the 24 point: (24 - 12) / 12");
        // Mean 167/15; behind it: two on 24, five on 13.
        let mean = 167.0f32 / 15.0;
        let sq = 2.0 * (24.0 - mean).powi(2) + 5.0 * (13.0 - mean).powi(2);
        assert!(close(m[2], sq / 1500.0));
        // Timing: the 24-point anchor stays; 5 x 7 + 3 x 2 off the midpoint and the
        // 8; three spares on the 6 point x 5.
        assert!(close(m[3], (35 + 6 + 15) as f32 / 100.0));
        assert_eq!((m[4], m[5]), (0.0, m[3]));
        // O's midpoint is S's 12 (S's midpoint 1 pip behind it), O's 8 point S's 17
        // (S's 24 point 7 pips behind); O's 6 point, S's 19, is outside 7..=18.
        assert!(close(m[6], 8.0 / 15.0));
    }

    /// Switching sides swaps the two halves, on random positions.
    #[test]
    fn sides_swap_with_the_position() {
        for pos in crate::testutil::random_positions(5_000, 17) {
            let [m, o] = third_block(&pos);
            assert_eq!(third_block(&pos.switch_sides()), [o, m], "{pos:?}");
        }
    }

    /// A back game and a holding game by hand: the timing lands in its own slot.
    #[test]
    fn back_game_and_holding_timing() {
        use crate::testutil::board;
        // S: anchors on 20 and 22 (2 each), 3 on 13, 8 on the 6... keep 15 checkers:
        // 2 + 2 + 3 + 8 = 15. O: 15 checkers on its 1..6 points except where S
        // holds them, none in S's outfield.
        let pos = board(
            &[(22, 2), (20, 2), (13, 3), (6, 8)],
            &[(1, 5), (2, 5), (4, 5)],
        );
        let [m, _] = third_block(&pos);
        // Timing: 3 x 7 on the 13 point, 6 spares on the 6 point x 5.
        let timing = (21.0 + 30.0) / 100.0;
        assert!(close(m[3], timing));
        assert!(close(m[4], timing));
        assert_eq!(m[5], 0.0);
        assert!(close(m[1], (22.0 - 12.0) / 12.0));
        // One anchor only: a holding game.
        let pos = board(&[(20, 2), (13, 5), (6, 8)], &[(1, 5), (2, 5), (4, 5)]);
        let [m, _] = third_block(&pos);
        assert_eq!(m[4], 0.0);
        assert!(close(m[5], (35.0 + 30.0) / 100.0));
        assert_eq!(m[6], 0.0, "no O checker on S's 7..=18");
    }
}
