//! Crashed positions: contact positions in which one side has few checkers left in
//! play, so that its board is collapsing (typically a side bearing in or off against
//! an anchor, or stripped after a closeout). GNU Backgammon evaluates these with a
//! net of their own; its move-choice bench tags 80 of its 1000 decisions crashed.
//! There the contact net's 0-ply choice lost most (8.4 x1000 per decision against
//! GNU Backgammon 0-ply's 5.7, contact 5.1 against 3.9); the built-in crashed net
//! that answers them since 0.15.0 loses 6.8.
//!
//! The rule is the bench's (`engine/testdata/oracle/README.md`): a side with `n`
//! checkers not borne off, `x0` on its 1-point and `x1` on its 2-point, is crashed
//! if `n <= 6`; or, with `x0 >= 2`, if `n - x0 <= 6` or (`x1 >= 2` and
//! `n - x0 - x1 < 6`); or, with `x0 <= 1`, if `n - (x1 - 1) <= 6`. Checkers on the
//! low points count as out of play. `tests/crashed_class.rs` checks every bench
//! position's tag.

use crate::position::Position;

/// Checkers at most this many in play make a side crashed.
const IN_PLAY: i32 = 6;

/// Whether the side with `board` (its own numbering: index 0 = its 1-point,
/// 24 = bar) is crashed by the rule above.
#[cfg(test)]
fn side_crashed(board: &[u8; 25]) -> bool {
    let n: i32 = board.iter().map(|&c| i32::from(c)).sum();
    counts_crashed(n, i32::from(board[0]), i32::from(board[1]))
}

/// The rule above for a side with `n` checkers not borne off, `x0` on its
/// 1-point and `x1` on its 2-point.
#[inline]
fn counts_crashed(n: i32, x0: i32, x1: i32) -> bool {
    if n <= IN_PLAY {
        return true;
    }
    if x0 >= 2 {
        n - x0 <= IN_PLAY || (x1 >= 2 && n - x0 - x1 < IN_PLAY)
    } else {
        n - (x1 - 1) <= IN_PLAY
    }
}

/// Whether `pos` is a crashed position: contact, and either side crashed.
///
/// Read straight off the signed point counts (one pass, no per-side boards):
/// every screened candidate of a rollout asks, and building the two boards took
/// 3% of a trial from the opening.
pub fn is_crashed(pos: &Position) -> bool {
    if !pos.has_contact() {
        return false;
    }
    let pips = pos.pips();
    let (mut mover, mut opponent) = (0i32, 0i32);
    for &c in pips {
        let c = i32::from(c);
        mover += c.max(0);
        opponent += (-c).max(0);
    }
    // The mover's 1- and 2-points are indices 1 and 2; the opponent's (negative
    // counts) 24 and 23.
    let m = |i: usize| i32::from(pips[i]).max(0);
    let o = |i: usize| (-i32::from(pips[i])).max(0);
    counts_crashed(mover, m(1), m(2)) || counts_crashed(opponent, o(24), o(23))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass count agrees with the rule applied to both sides' boards.
    #[test]
    fn is_crashed_is_the_rule_on_both_boards() {
        let mut crashed = 0;
        let positions = crate::testutil::random_positions(20_000, 5);
        for pos in positions.iter().flat_map(|p| [*p, p.switch_sides()]) {
            let (mover, opponent) = pos.to_arrays();
            let rule = pos.has_contact() && (side_crashed(&mover) || side_crashed(&opponent));
            assert_eq!(is_crashed(&pos), rule, "{pos:?}");
            crashed += usize::from(rule);
        }
        assert!(crashed > 100, "{crashed}");
    }

    #[test]
    fn the_opening_is_not_crashed() {
        assert!(!is_crashed(&Position::STARTING));
    }

    #[test]
    fn a_side_with_six_checkers_in_play_is_crashed() {
        let mut b = [0u8; 25];
        b[5] = 6;
        assert!(side_crashed(&b));
        b[5] = 7;
        assert!(!side_crashed(&b));
        // Two on the ace point are out of play: 7 + 2 counts as 7 in play.
        b[0] = 2;
        assert!(!side_crashed(&b));
        b[5] = 6;
        assert!(side_crashed(&b));
        // A lone ace-point checker counts; a deuce point of 2 counts one less.
        let mut c = [0u8; 25];
        c[0] = 1;
        c[1] = 2;
        c[5] = 4;
        assert!(side_crashed(&c));
        c[5] = 5;
        assert!(!side_crashed(&c));
    }
}
