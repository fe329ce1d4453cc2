//! Hand-crafted inputs in the spirit of Berliner's BKG and GNU Backgammon's contact
//! net: quantities a 128-unit net fed raw checker counts has to rediscover through
//! many units (a shot count needs every blot-hitter-intermediate triple), computed
//! exactly here and appended after the 198 raw inputs.
//!
//! [`PER_SIDE`] values per side, the mover's first, then the opponent's, each side
//! seen from its own numbering (the side's checkers move from 24 towards 1, the other
//! side's the opposite way). For a side S and the other side O:
//!
//! 0. `shots`: rolls (of 36) with which O, rolling next, hits at least one S blot:
//!    direct and combination shots, intermediate landing points not made by S, O's
//!    checkers on the bar entering first. One checker 6 pips from a blot with nothing
//!    between: 17 / 36.
//! 1. `trapped`: 1 - (rolls of 36 that carry S's rearmost checker past the furthest
//!    O point made within the 12 pips in front of it) / 36; 0 with no such point.
//! 2. `stuck`: 1 - (rolls of 36 with which S's rearmost checker can play the whole
//!    roll by itself, every landing point open) / 36.
//! 3. `prime`: S's longest run of made points / 6.
//! 4. `contact`: pips S needs to move every checker past O's rearmost one (break
//!    contact) / 152 (the opening position's 152).
//! 5. `dance`: with S on the bar, the chance of not entering: (O's made home points /
//!    6) squared; 0 off the bar.
//!
//! All but `prime` are 0 in a pure race (tested), which keeps the race net's inputs
//! sparse.
//!
//! Cost: bit masks of the 24 points and passes over the 21 distinct rolls per side,
//! about 1.1 us per position (both sides), measured as the drop of
//! `benches/eval.rs` `forward` from 1.42M to 0.55M evaluations/s (same load, same
//! machine); `batch` went from 1.84M to 0.79M candidates/s. Unoptimized: still
//! above the 250k/s budget, but the first place to look for speed.

use crate::position::Position;

/// Features per side.
pub const PER_SIDE: usize = 6;
/// Features of a position (both sides).
pub const FEATURES: usize = 2 * PER_SIDE;

/// Points 1..=24 as bits 1..=24.
const BOARD: u32 = 0x01FF_FFFE;

/// The 21 distinct rolls with their weight out of 36.
const ROLLS: [(u32, u32, u32); 21] = {
    let mut r = [(0, 0, 0); 21];
    let mut k = 0;
    let mut a = 1;
    while a <= 6 {
        let mut b = a;
        while b <= 6 {
            r[k] = (a, b, if a == b { 1 } else { 2 });
            k += 1;
            b += 1;
        }
        a += 1;
    }
    r
};

/// The board of one side S as bit masks (bit `p` = S's point `p`).
#[derive(Clone, Copy, Debug)]
struct SideView {
    /// Points S holds with exactly one checker.
    blots: u32,
    /// Points S holds with two or more.
    made: u32,
    /// Points O occupies, and those it holds with two or more.
    other: u32,
    other_made: u32,
    /// Checkers on the bars.
    bar: u32,
    other_bar: u32,
}

impl SideView {
    /// The mover's side of `pos` (S = player on roll).
    fn mover(pos: &Position) -> SideView {
        let p = pos.pips();
        let mut v = SideView {
            blots: 0,
            made: 0,
            other: 0,
            other_made: 0,
            bar: u32::from(p[25].unsigned_abs()),
            other_bar: u32::from(p[0].unsigned_abs()),
        };
        for (i, &c) in p.iter().enumerate().take(25).skip(1) {
            v.blots |= u32::from(c == 1) << i;
            v.made |= u32::from(c >= 2) << i;
            v.other |= u32::from(c < 0) << i;
            v.other_made |= u32::from(c <= -2) << i;
        }
        v
    }
}

/// Rolls (of 36) with which O hits at least one S blot. O moves up (towards S's 24
/// point) and enters from S's point 0.
fn shots(v: &SideView) -> u32 {
    if v.blots == 0 {
        return 0;
    }
    let open = !v.made & BOARD;
    let blots = v.blots;
    let hit = |m: u32| m & blots != 0;
    let mut n = 0;
    for &(a, b, w) in &ROLLS {
        let hits = if a != b {
            match v.other_bar {
                0 => {
                    let src = v.other;
                    hit(src << a)
                        || hit(src << b)
                        || hit((((src << a) & open) << b) | (((src << b) & open) << a))
                }
                1 => {
                    // Enter with one die (hitting there, or anywhere with the other).
                    let (ea, eb) = (1u32 << a, 1u32 << b);
                    (ea & open != 0 && (hit(ea) || hit((v.other | ea) << b)))
                        || (eb & open != 0 && (hit(eb) || hit((v.other | eb) << a)))
                }
                // Both dice enter.
                _ => hit((1 << a) | (1 << b)),
            }
        } else {
            let e = 1u32 << a;
            let (mut from, steps) = if v.other_bar == 0 {
                (v.other, 4)
            } else if e & open == 0 {
                (0, 0) // cannot enter: no move at all
            } else if hit(e) {
                n += w;
                continue;
            } else {
                // The entered checkers and the others share the remaining steps.
                (v.other | e, 4u32.saturating_sub(v.other_bar))
            };
            let mut any = false;
            for _ in 0..steps {
                from <<= a;
                if hit(from) {
                    any = true;
                    break;
                }
                from &= open;
            }
            any
        };
        n += w * u32::from(hits);
    }
    n
}

/// Rolls (of 36) that carry S's rearmost checker past O's furthest made point within
/// the 12 pips in front of it (36 with none there), and rolls with which it can play
/// the whole roll alone. Points are bits offset by 24 so that moves past S's 1 point
/// (bits below 25) stay representable; those count as open.
fn escapes(v: &SideView, rearmost: u32) -> (u32, u32) {
    const OFF: u32 = 24;
    let open = !(u64::from(v.other_made) << OFF);
    let below = |k: u32| (1u32 << k) - 1;
    let window = below(rearmost) & !below(rearmost.saturating_sub(12));
    let front = v.other_made & window;
    let target = if front == 0 {
        None
    } else {
        Some((1u64 << (front.trailing_zeros() + OFF)) - 1)
    };
    let start = 1u64 << (rearmost + OFF);
    let (mut past, mut run) = (0, 0);
    for &(a, b, w) in &ROLLS {
        let (reach, whole) = if a != b {
            let ra = (start >> a) & open;
            let rb = (start >> b) & open;
            let both = ((ra >> b) | (rb >> a)) & open;
            (ra | rb | both, both != 0)
        } else {
            let (mut r, mut all) = (start, 0);
            for _ in 0..4 {
                r = (r >> a) & open;
                all |= r;
            }
            (all, r != 0)
        };
        past += w * u32::from(target.is_none_or(|t| reach & t != 0));
        run += w * u32::from(whole);
    }
    (past, run)
}

/// The [`PER_SIDE`] features of the mover's side of `pos`.
fn side(pos: &Position) -> [f32; PER_SIDE] {
    let v = SideView::mover(pos);
    let p = pos.pips();
    let rearmost = pos.mover_highest() as u32;
    let (past, run) = if rearmost == 0 {
        (36, 36)
    } else {
        escapes(&v, rearmost)
    };
    let mut prime = 0;
    let mut m = v.made;
    while m != 0 {
        m &= m << 1;
        prime += 1;
    }
    // O's rearmost checker in S's numbering: S's checkers above it must pass it.
    let other_back = if v.other_bar > 0 {
        Some(0)
    } else if v.other != 0 {
        Some(v.other.trailing_zeros() as i32)
    } else {
        None
    };
    let contact = other_back.map_or(0, |r| {
        (1..=25)
            .filter(|&i| i as i32 > r)
            .map(|i| i32::from(p[i].max(0)) * (i as i32 - r))
            .sum::<i32>()
    });
    let dance = if v.bar > 0 {
        let k = (v.other_made >> 19).count_ones();
        (k * k) as f32 / 36.0
    } else {
        0.0
    };
    [
        shots(&v) as f32 / 36.0,
        (36 - past) as f32 / 36.0,
        (36 - run) as f32 / 36.0,
        prime as f32 / 6.0,
        contact as f32 / 152.0,
        dance,
    ]
}

/// The [`FEATURES`] of `pos`: the mover's side, then the opponent's.
pub fn features(pos: &Position) -> [f32; FEATURES] {
    let (a, b) = (side(pos), side(&pos.switch_sides()));
    let mut f = [0.0; FEATURES];
    f[..PER_SIDE].copy_from_slice(&a);
    f[PER_SIDE..].copy_from_slice(&b);
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::random_positions;

    /// A position from (point, count) lists: the mover's points in its numbering,
    /// the opponent's in the opponent's numbering; point 25 = bar.
    fn board(mover: &[(usize, u8)], opponent: &[(usize, u8)]) -> Position {
        let (mut m, mut o) = ([0u8; 25], [0u8; 25]);
        for &(p, n) in mover {
            m[p - 1] = n;
        }
        for &(p, n) in opponent {
            o[p - 1] = n;
        }
        Position::from_arrays(&m, &o).expect("test position")
    }

    fn shots_of(pos: &Position) -> u32 {
        shots(&SideView::mover(pos))
    }

    /// Rolls with which the opponent hits a mover blot, by brute force: every order
    /// of the dice, every checker, bar first, any landing on a blot is a hit.
    fn shots_brute(pos: &Position) -> u32 {
        // The opponent to move: its checkers are positive in the switched board.
        let o = pos.switch_sides();
        fn go(b: &mut [i8; 26], dice: &[u32]) -> bool {
            let Some((&d, rest)) = dice.split_first() else {
                return false;
            };
            let d = d as usize;
            let sources: Vec<usize> = if b[25] > 0 {
                vec![25]
            } else {
                (1..=24).filter(|&i| b[i] > 0).collect()
            };
            for s in sources {
                if s <= d {
                    continue; // bearing off hits nothing
                }
                let t = s - d;
                if b[t] <= -2 {
                    continue;
                }
                if b[t] == -1 {
                    return true;
                }
                b[s] -= 1;
                b[t] += 1;
                let found = go(b, rest);
                b[s] += 1;
                b[t] -= 1;
                if found {
                    return true;
                }
            }
            false
        }
        let mut n = 0;
        for &(a, b, w) in &ROLLS {
            let orders: Vec<Vec<u32>> = if a == b {
                vec![vec![a; 4]]
            } else {
                vec![vec![a, b], vec![b, a]]
            };
            let mut board = *o.pips();
            if orders.iter().any(|d| go(&mut board, d)) {
                n += w;
            }
        }
        n
    }

    #[test]
    fn a_blot_six_away_is_hit_by_17_rolls() {
        // Mover's blot on its 10 point, one opposing checker on the mover's 4 point
        // (the opponent's 21), the mover's spares on its 1 point, behind the hitter:
        // 11 rolls with a 6, 5-1 and 4-2 (2 each), 3-3, 2-2 (three steps).
        let pos = board(&[(10, 1), (1, 14)], &[(21, 1), (6, 14)]);
        assert_eq!(shots_of(&pos), 17);
        // 1 away: the 11 rolls with a 1 (no combination sums to 1).
        let pos = board(&[(10, 1), (1, 14)], &[(16, 1), (6, 14)]);
        assert_eq!(shots_of(&pos), 11);
        // 8 away: 6-2, 5-3 (2 each), 4-4, 2-2 (1 each) = 6.
        let pos = board(&[(12, 1), (1, 14)], &[(21, 1), (6, 14)]);
        assert_eq!(shots_of(&pos), 6);
    }

    #[test]
    fn blocked_intermediate_points_stop_combination_shots() {
        // 6 away (4 -> 10) with the mover's 5 and 6 points made: the 11 sixes;
        // 5-1 via 9 (2); 4-2 via 8 (2); 3-3 via 7 (1); 2-2 needs 6: lost. 16.
        let pos = board(&[(10, 1), (5, 2), (6, 12)], &[(21, 1), (6, 14)]);
        assert_eq!(shots_of(&pos), 16);
        assert_eq!(shots_of(&pos), shots_brute(&pos));
    }

    #[test]
    fn entering_checkers_hit_or_must_enter_first() {
        // The opponent on the bar, a mover blot on its 3 point: entering 3s hit (11),
        // and 1-2 via the 1 or 2 point (2), 1-1 (1): 14.
        let pos = board(&[(3, 1), (8, 14)], &[(25, 1), (6, 14)]);
        assert_eq!(shots_of(&pos), 14);
        assert_eq!(shots_of(&pos), shots_brute(&pos));
        // Two on the bar and the blot on the 9 point: both dice enter, no shot
        // reaches 9 except doubles: 3-3 (enter two, then 3+3 with one of them... 3,
        // 6, 9) and 1-1/2-2 fall short; 4-4 from 4 -> 8 -> 12 misses: 1 roll.
        let pos = board(&[(9, 1), (8, 14)], &[(25, 2), (6, 13)]);
        assert_eq!(shots_of(&pos), shots_brute(&pos));
        assert_eq!(shots_of(&pos), 1);
    }

    #[test]
    fn shots_match_brute_force_on_random_positions() {
        for pos in random_positions(20_000, 11) {
            for p in [pos, pos.switch_sides()] {
                assert_eq!(shots_of(&p), shots_brute(&p), "{p:?}");
            }
        }
    }

    #[test]
    fn escapes_and_primes() {
        // A back checker on the 24 point behind a full prime on the mover's 18..=13
        // (the opponent's 7..=12; its 3 spares on the mover's 1 point). Past 13 takes
        // 12+ pips through the prime: never (trapped 1). Whole rolls that stay short
        // of 18: 2-1, 3-1, 4-1, 3-2 (2 each) and 1-1: 9 (stuck 27/36). The
        // opponent's prime is 6 long.
        let prime = [(7, 2), (8, 2), (9, 2), (10, 2), (11, 2), (12, 2), (24, 3)];
        let f = features(&board(&[(24, 1), (6, 14)], &prime));
        assert_eq!(f[1], 1.0);
        assert_eq!(f[2], 27.0 / 36.0);
        assert_eq!(f[PER_SIDE + 3], 1.0);
        // One made point 6 in front (the mover's 18): past it takes 7+ pips, and a
        // 6 can only be played second. Non-doubles summing to 7+: 6-1, 6-2, 6-3,
        // 6-4, 6-5, 5-2, 5-3, 5-4, 4-3 (2 each); doubles 4-4 (20, 16) and 5-5 (19,
        // 14), while 2-2 and 3-3 stop at 18 and 6-6 cannot move: 20 rolls.
        let f = features(&board(&[(24, 1), (6, 14)], &[(7, 2), (24, 13)]));
        assert_eq!(f[1], (36.0 - 20.0) / 36.0);
        // No made point within 12 pips: nothing to pass.
        let f = features(&board(&[(24, 1), (6, 14)], &[(24, 15)]));
        assert_eq!(f[1], 0.0);
    }

    #[test]
    fn opening_position_values() {
        let f = features(&Position::STARTING);
        assert_eq!(f[..PER_SIDE], f[PER_SIDE..]);
        // No blots, no bar; 152 pips to break contact; longest prime 1 (points 6 and
        // 8 are not adjacent).
        assert_eq!(f[0], 0.0);
        assert_eq!(f[3], 1.0 / 6.0);
        assert_eq!(f[4], 1.0);
        assert_eq!(f[5], 0.0);
    }

    #[test]
    fn dancing_on_a_closed_board() {
        let pos = board(
            &[(25, 1), (6, 14)],
            &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (13, 3)],
        );
        let f = features(&pos);
        assert_eq!(f[5], 1.0);
        assert_eq!(f[1], 1.0);
        assert_eq!(f[2], 1.0);
    }

    #[test]
    fn races_are_sparse() {
        for pos in random_positions(5000, 12) {
            if pos.has_contact() {
                continue;
            }
            let f = features(&pos);
            for s in [0, PER_SIDE] {
                assert_eq!(f[s], 0.0, "shots in a race {pos:?}");
                assert_eq!(f[s + 1], 0.0, "trapped in a race {pos:?}");
                assert_eq!(f[s + 4], 0.0, "contact pips in a race {pos:?}");
            }
        }
    }
}
