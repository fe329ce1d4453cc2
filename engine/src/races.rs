//! Random races with gammons and backgammons at stake: training positions that
//! self-play rarely reaches.
//!
//! Why: on GNU Backgammon's 1,000-position bench the race net lost 1.5 thousandths
//! per race decision against 0.1 for GNU Backgammon's 0-ply, and three quarters of
//! that came from a handful of races where the side far behind has to save a gammon
//! or a backgammon (one 4-3 alone, with two checkers left in the opponent's home
//! board, was 0.64 of the 1.5). Self-play games seldom end up there: of 34,000
//! self-play races, 311 had a backgammon chance above 2%. These generators draw such
//! races directly; `bgfarm-lab train label --rollout` labels them by playing them out.
//!
//! Both kinds have a side far ahead ("W") and a side far behind ("L"), no contact,
//! and either side on roll. Each position is a pure function of (kind, seed, index).

use crate::position::{Position, CHECKERS};
use crate::rng::Rng;
use std::collections::HashSet;

/// What is at stake in the generated races.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceKind {
    /// L still has 1-4 checkers in W's home board (or just outside it), all of
    /// W's checkers are below them, W has borne off at least 3: L must get out to
    /// save the backgammon.
    Backgammon,
    /// L has borne off nothing and has 1-12 checkers outside its home board; W has
    /// 2-14 checkers left, mostly in its home board: L races to save the gammon.
    Gammon,
}

/// `count` distinct races of `kind` from `seed` (draws that repeat a position are
/// skipped, so the list is the same for the same arguments).
pub fn race_positions(kind: RaceKind, seed: u64, count: usize) -> Vec<Position> {
    let mut seen = HashSet::with_capacity(count);
    let mut out = Vec::with_capacity(count);
    let mut index = 0u64;
    while out.len() < count {
        let mut rng = Rng::for_stream(seed, index);
        index += 1;
        let drawn = match kind {
            RaceKind::Backgammon => backgammon_race(&mut rng),
            RaceKind::Gammon => gammon_race(&mut rng),
        };
        if let Some(pos) = drawn {
            if seen.insert(pos) {
                out.push(pos);
            }
        }
    }
    out
}

/// A uniform integer in `lo..=hi`.
fn between(rng: &mut Rng, lo: usize, hi: usize) -> usize {
    lo + rng.below((hi - lo + 1) as u32) as usize
}

/// W's and L's arrays (index `i` = the owner's point `i + 1`) as a position with
/// either side on roll; `None` if the two are in contact.
fn either_on_roll(rng: &mut Rng, w: &[u8; 25], l: &[u8; 25]) -> Option<Position> {
    let pos = if rng.below(2) == 0 {
        Position::from_arrays(w, l)
    } else {
        Position::from_arrays(l, w)
    }
    .ok()?;
    (!pos.has_contact()).then_some(pos)
}

fn backgammon_race(rng: &mut Rng) -> Option<Position> {
    // L's rearmost checker stands on W's point q (7: just outside W's home board);
    // W's checkers are all on its points 1..q-1.
    let q = between(rng, 2, 7);
    let mut w = [0u8; 25];
    for _ in 0..between(rng, 1, 12) {
        w[between(rng, 0, q - 2)] += 1;
    }
    let mut l = [0u8; 25];
    let back = between(rng, 1, 4);
    for i in 0..back {
        // W's point p is L's point 25 - p, at index 24 - p.
        let p = if i == 0 || q == 7 {
            q
        } else {
            between(rng, q, 6)
        };
        l[24 - p] += 1;
    }
    let off = if rng.next_f64() < 0.8 {
        0
    } else {
        between(rng, 1, 3)
    };
    let spread = rng.next_f64();
    for _ in 0..usize::from(CHECKERS) - back - off {
        let i = if spread < 0.4 {
            between(rng, 0, 17)
        } else if spread < 0.7 {
            between(rng, 6, 17)
        } else {
            between(rng, 0, 5)
        };
        l[i] += 1;
    }
    either_on_roll(rng, &w, &l)
}

fn gammon_race(rng: &mut Rng) -> Option<Position> {
    // W's checkers on its points 1..top (its home board four times in five).
    let top = if rng.next_f64() < 0.8 {
        6
    } else {
        between(rng, 7, 9)
    };
    let mut w = [0u8; 25];
    for _ in 0..between(rng, 2, 14) {
        w[between(rng, 0, top - 1)] += 1;
    }
    // L's outside checkers on its points 7..=min(18, 24 - top): past W's checkers.
    let mut l = [0u8; 25];
    let outside = between(rng, 1, 12);
    let last = 17.min(23 - top);
    for _ in 0..outside {
        l[between(rng, 6, last)] += 1;
    }
    for _ in 0..usize::from(CHECKERS) - outside {
        l[between(rng, 0, 5)] += 1;
    }
    either_on_roll(rng, &w, &l)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (W's checkers left, L's checkers left, L's rearmost point as W counts).
    fn sides(p: &Position) -> [(u8, u8, usize); 2] {
        let (m, o) = p.to_arrays();
        let rear = |a: &[u8; 25]| (0..25).rev().find(|&i| a[i] > 0).map_or(0, |i| i + 1);
        let left = |a: &[u8; 25]| a.iter().sum::<u8>();
        // As seen by each side being W: W's left, L's left, L's rearmost on W's points.
        [
            (left(&m), left(&o), 25 - rear(&o)),
            (left(&o), left(&m), 25 - rear(&m)),
        ]
    }

    #[test]
    fn backgammon_races_leave_the_loser_behind_the_winner_s_checkers() {
        let a = race_positions(RaceKind::Backgammon, 3, 500);
        assert_eq!(a, race_positions(RaceKind::Backgammon, 3, 500));
        assert_ne!(a, race_positions(RaceKind::Backgammon, 4, 500));
        assert_eq!(a.iter().collect::<HashSet<_>>().len(), 500);
        for p in &a {
            assert!(!p.has_contact(), "{p:?}");
            // Some side has at most 12 checkers left and the other's rearmost
            // checker on the first's points 2..=7.
            assert!(
                sides(p)
                    .iter()
                    .any(|&(w, l, rear)| w <= 12 && l >= 12 && (2..=7).contains(&rear)),
                "{p:?}"
            );
        }
        // Four in five times the loser has borne off nothing.
        let none_off = a
            .iter()
            .filter(|p| p.mover_off() == 0 || p.opponent_off() == 0)
            .count();
        assert!(none_off > 350, "{none_off}");
    }

    #[test]
    fn gammon_races_have_a_side_with_nothing_off_and_checkers_out() {
        let a = race_positions(RaceKind::Gammon, 5, 500);
        assert_eq!(a, race_positions(RaceKind::Gammon, 5, 500));
        for p in &a {
            assert!(!p.has_contact(), "{p:?}");
            let (m, o) = p.to_arrays();
            let behind = |a: &[u8; 25]| a.iter().sum::<u8>() == 15 && a[6..].iter().any(|&n| n > 0);
            assert!(behind(&m) || behind(&o), "{p:?}");
        }
    }
}
