//! Hand-crafted inputs of a pure race (no contact), for the race net.
//!
//! In a race the contact [`features`](super::features) are zero in five of their six
//! slots per side (shots, trapped, stuck, break-contact pips, dance); only `prime` can
//! be non-zero. Those five slots carry race quantities instead, so the race net gets
//! inputs of its own without a second encoding. A net that never saw them has zero
//! weight rows there (a race input that was always 0 received no gradient), so it
//! computes exactly what it did until it is refitted.
//!
//! Why these: most of what a race net without them lost on GNU Backgammon's
//! 250 bench races (1.5 x1000 per decision; GNU Backgammon 0-ply 0.13) came from
//! races with a gammon or backgammon at stake: 0.46 of it from gammon saves, 0.64
//! from a single backgammon save. What decides those is whether a side has borne
//! off a checker at all, how many pips its stragglers need to come home, and how
//! many to leave the opponent's home board. The raw inputs hold them only through
//! many units (checkers off as `n / 15`, one pip count for the whole side).
//!
//! Per side S, each in S's own numbering (slot numbers as in the contact features):
//!
//! 0. `none_off`: 1 while S has borne off no checker (the gammon line), else 0.
//! 1. `home_pips`: pips S needs to bring every checker home, sum of `p - 6` over
//!    checkers on points 7..=24, / 60.
//! 2. `bg_pips`: pips S needs to take every checker out of the opponent's home
//!    board, sum of `p - 18` over points 19..=24, / 30.
//! 3. `prime`: S's longest run of made points / 6, as in the contact features.
//! 4. `first_off`: while S has none off, the fewest pips that bear one checker off
//!    (`home_pips` plus the lowest home point S holds, or 6 with none home), / 49
//!    (six average rolls of 8.17 pips); 0 once one is off.
//! 5. `crossovers`: quadrant crossings S still has to make, sum of `(p - 1) / 6`
//!    over its checkers, / 30 (the opening position's 32 is the most a race can
//!    have left only after contact broke in the outfield).

use super::feature_layout::{BASE_FEATURES, FEATURES, PER_SIDE};
use crate::position::Position;

/// Slot of `first_off` in a side's features (item 4 above).
pub const FIRST_OFF_SLOT: usize = 4;

/// The race features of `pos` (no contact, both sides on the board): the mover's
/// side, then the opponent's (the contact features' second block is 0 in a race).
/// The caller decides it is a race.
pub fn race_features(pos: &Position) -> [f32; FEATURES] {
    let (mover, opponent) = pos.to_arrays();
    let mut f = [0.0; FEATURES];
    f[..PER_SIDE].copy_from_slice(&side(&mover));
    f[PER_SIDE..BASE_FEATURES].copy_from_slice(&side(&opponent));
    f
}

/// One side's race features from its checker counts by point, as
/// [`Position::to_arrays`] gives them (index `i` = its point `i + 1`; the bar, index
/// 24, is empty in a race).
fn side(c: &[u8; 25]) -> [f32; PER_SIDE] {
    let mut on_board = 0u32;
    let mut home_pips = 0u32;
    let mut bg_pips = 0u32;
    let mut crossovers = 0u32;
    let mut lowest_home = 0u32;
    let (mut run, mut prime) = (0u32, 0u32);
    for (point, &n) in (1u32..=24).zip(c) {
        let n32 = u32::from(n);
        on_board += n32;
        home_pips += n32 * point.saturating_sub(6);
        bg_pips += n32 * point.saturating_sub(18);
        crossovers += n32 * ((point - 1) / 6);
        if n > 0 && point <= 6 && lowest_home == 0 {
            lowest_home = point;
        }
        run = if n >= 2 { run + 1 } else { 0 };
        prime = prime.max(run);
    }
    let none_off = on_board == 15;
    let first_off = if none_off {
        let last = if lowest_home == 0 { 6 } else { lowest_home };
        (home_pips + last) as f32 / 49.0
    } else {
        0.0
    };
    [
        if none_off { 1.0 } else { 0.0 },
        home_pips as f32 / 60.0,
        bg_pips as f32 / 30.0,
        prime as f32 / 6.0,
        first_off,
        crossovers as f32 / 30.0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::net::features::contact_features;
    use crate::testutil::{board, random_positions};

    /// Worked by hand: the mover has 5 checkers back in the opponent's home board
    /// (4 on 23, 1 on 19), one on 10 and 9 at home, none off; the opponent has 9 on
    /// its 1-point and 6 off.
    #[test]
    fn a_backgammon_save_by_hand() {
        let pos = board(
            &[(23, 4), (19, 1), (10, 1), (6, 3), (5, 2), (4, 2), (2, 2)],
            &[(1, 9)],
        );
        assert!(!pos.has_contact());
        let f = race_features(&pos);
        let home = 4 * 17 + 13 + 4; // 85 pips to bring all home
        assert_eq!(f[0], 1.0);
        assert_eq!(f[1], home as f32 / 60.0);
        assert_eq!(f[2], (4 * 5 + 1) as f32 / 30.0);
        // Made points 6, 5, 4 in a row; 2 alone.
        assert_eq!(f[3], 3.0 / 6.0);
        // The lowest home checker is on the 2-point.
        assert_eq!(f[4], (home + 2) as f32 / 49.0);
        // Crossings: 23 and 19 three each, 10 one.
        assert_eq!(f[5], (4 * 3 + 3 + 1) as f32 / 30.0);
        // The opponent: 6 off, all home.
        assert_eq!(
            &f[PER_SIDE..BASE_FEATURES],
            &[0.0, 0.0, 0.0, 1.0 / 6.0, 0.0, 0.0]
        );
        assert!(f[BASE_FEATURES..].iter().all(|&x| x == 0.0));
    }

    /// The slot the race features share with the contact ones keeps its meaning.
    #[test]
    fn prime_is_the_contact_features_prime() {
        for pos in random_positions(20_000, 21) {
            if pos.has_contact() || pos.game_over() {
                continue;
            }
            let (r, c) = (race_features(&pos), contact_features(&pos));
            assert_eq!(r[3], c[3], "{pos:?}");
            assert_eq!(r[PER_SIDE + 3], c[PER_SIDE + 3], "{pos:?}");
        }
    }

    /// Mirrored boards give mirrored features.
    #[test]
    fn sides_are_symmetric() {
        for pos in random_positions(20_000, 22) {
            if pos.has_contact() || pos.game_over() {
                continue;
            }
            let (a, b) = (race_features(&pos), race_features(&pos.switch_sides()));
            assert_eq!(a[..PER_SIDE], b[PER_SIDE..BASE_FEATURES], "{pos:?}");
            assert_eq!(a[PER_SIDE..BASE_FEATURES], b[..PER_SIDE], "{pos:?}");
        }
    }
}
