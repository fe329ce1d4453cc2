//! Unit tests of [`super`].

use super::*;
use crate::testutil::{board, random_positions};

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
    assert_eq!(f[..PER_SIDE], f[PER_SIDE..BASE_FEATURES]);
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
    // The second block: a closed board, the bar checker trapped; the opponent
    // has no checker on its 15..=24.
    assert_eq!(f[BASE_FEATURES + 4], 1.0);
    assert_eq!(f[BASE_FEATURES + 3], 1.0);
    assert_eq!(f[BASE_FEATURES + EXTRA_PER_SIDE + 3], 0.0);
}

#[test]
fn contact_features_leave_the_race_slots_free() {
    for pos in random_positions(5000, 12) {
        if pos.has_contact() {
            continue;
        }
        assert_eq!(features(&pos), race_features(&pos));
        let f = contact_features(&pos);
        for s in [0, PER_SIDE] {
            assert_eq!(f[s], 0.0, "shots in a race {pos:?}");
            assert_eq!(f[s + 1], 0.0, "trapped in a race {pos:?}");
            assert_eq!(f[s + 4], 0.0, "contact pips in a race {pos:?}");
        }
    }
}

/// The features as first written (PR with the 12 features): a `switch_sides()`
/// copy for the opponent and 21-roll passes, kept to test the tables against.
fn features_by_rolls(pos: &Position) -> [f32; FEATURES] {
    fn escapes_by_rolls(v: &SideView, rearmost: u32) -> (u32, u32) {
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
    fn side(pos: &Position) -> [f32; PER_SIDE] {
        let v = SideView::mover(pos);
        let p = pos.pips();
        let rearmost = pos.mover_highest() as u32;
        let (past, run) = if rearmost == 0 {
            (36, 36)
        } else {
            escapes_by_rolls(&v, rearmost)
        };
        let mut prime = 0;
        let mut m = v.made;
        while m != 0 {
            m &= m << 1;
            prime += 1;
        }
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
            shots_by_rolls(&v) as f32 / 36.0,
            (36 - past) as f32 / 36.0,
            (36 - run) as f32 / 36.0,
            prime as f32 / 6.0,
            contact as f32 / 152.0,
            dance,
        ]
    }
    fn extra(pos: &Position) -> [f32; EXTRA_PER_SIDE] {
        let v = SideView::mover(pos);
        let (mut any, mut two, mut loss) = (0, 0, 0);
        for t in 1..=24 {
            if v.blots & (1 << t) != 0 {
                let set = hit_set_by_rolls(&v, 1 << t);
                loss += (25 - t) * weight(set & !any);
                two |= any & set;
                any |= set;
            }
        }
        assert_eq!(weight(any), shots_by_rolls(&v));
        let blockade = SideView {
            other_made: v.other_made & BLOCKADE,
            ..v
        };
        let least = (15..=24)
            .map(|p| escapes_by_rolls(&blockade, p).0)
            .min()
            .unwrap_or(36);
        let p = pos.pips();
        let (mut back, mut trapped) = (0, 0);
        for (i, &c) in p.iter().enumerate().skip(15) {
            let n = c.max(0) as u32;
            back += n;
            trapped += n * (36 - escapes_by_rolls(&blockade, i as u32).0);
        }
        let home = (19..=24).filter(|&i| p[i] <= -2).count() as u32;
        second_block(loss, weight(two), least, back, trapped, home)
    }
    let (a, b) = (side(pos), side(&pos.switch_sides()));
    let (c, d) = (extra(pos), extra(&pos.switch_sides()));
    let mut f = [0.0; FEATURES];
    f[..PER_SIDE].copy_from_slice(&a);
    f[PER_SIDE..BASE_FEATURES].copy_from_slice(&b);
    f[BASE_FEATURES..BASE_FEATURES + EXTRA_PER_SIDE].copy_from_slice(&c);
    f[BASE_FEATURES + EXTRA_PER_SIDE..V4_FEATURES].copy_from_slice(&d);
    // The third block has no roll-by-roll form: its own tests check it.
    put_third_block(&mut f, pos);
    f
}

/// The second block worked by hand.
#[test]
fn pip_loss_double_and_contain_by_hand() {
    // A mover blot on its 10-point, one opponent checker 6 pips behind it (the
    // mover's 4-point, the opponent's 21) with nothing between: 17 shots (11
    // with a 6, 5-1, 4-2, 3-3, 2-2), each sending the blot back 15 pips.
    let one = board(&[(10, 1), (1, 14)], &[(21, 1), (1, 14)]);
    let f = contact_features(&one);
    assert_eq!(f[0], 17.0 / 36.0);
    assert_eq!(f[BASE_FEATURES], 17.0 * 15.0 / (36.0 * 24.0));
    assert_eq!(f[BASE_FEATURES + 1], 0.0);
    // A second blot on the 7-point, 3 pips from the same hitter: 14 rolls hit it
    // (11 with a 3, 2-1, 1-1), 3 of them also the 10-point blot (6-3, 3-3):
    // 28 shots. It is the further advanced, 18 pips lost: 14 x 18 + (17 - 3) x 15.
    let two = board(&[(10, 1), (7, 1), (1, 13)], &[(21, 1), (1, 14)]);
    let g = contact_features(&two);
    assert_eq!(g[0], 28.0 / 36.0);
    assert_eq!(
        g[BASE_FEATURES],
        (14.0 * 18.0 + 14.0 * 15.0) / (36.0 * 24.0)
    );
    assert_eq!(g[BASE_FEATURES + 1], 3.0 / 36.0);
    // Seen from the other side, the same numbers are the opponent's block.
    let m = contact_features(&two.switch_sides());
    assert_eq!(
        m[BASE_FEATURES + EXTRA_PER_SIDE..V4_FEATURES],
        g[BASE_FEATURES..BASE_FEATURES + EXTRA_PER_SIDE]
    );
    // The opening: no blots; no escape is fully blocked.
    let f = contact_features(&Position::STARTING);
    assert_eq!(f[BASE_FEATURES..BASE_FEATURES + 2], [0.0, 0.0]);
    assert!(f[BASE_FEATURES + 2] < 1.0);
    // The opponent's six-point prime on its 7..12 (the mover's 13..18): a
    // checker on the mover's 24 needs 12 pips to pass it and no roll gets there
    // (6-6, 5-5, 4-4 and 3-3 all land on the prime): fully contained.
    let prime = [(7, 2), (8, 2), (9, 2), (10, 2), (11, 2), (12, 2), (24, 3)];
    let f = contact_features(&board(&[(24, 1), (6, 14)], &prime));
    assert_eq!(f[BASE_FEATURES + 2], 1.0);
    // Its one back checker is fully trapped; the opponent has no home point.
    assert_eq!(f[BASE_FEATURES + 3], 1.0);
    assert_eq!(f[BASE_FEATURES + 4], 0.0);
    // The same prime on the opponent's 13..18 (the mover's 7..12) is no
    // blockade of the back checkers.
    let far = [
        (13, 2),
        (14, 2),
        (15, 2),
        (16, 2),
        (17, 2),
        (18, 2),
        (24, 3),
    ];
    let f = contact_features(&board(&[(24, 1), (6, 14)], &far));
    assert_eq!(f[BASE_FEATURES + 2], 0.0);
}

#[test]
fn mover_shots_is_the_moved_side_s_shots_feature() {
    for pos in random_positions(20_000, 16) {
        let f = contact_features(&pos.switch_sides());
        assert_eq!(
            (mover_shots(&pos) as f32 / 36.0).to_bits(),
            f[PER_SIDE].to_bits(),
            "{pos:?}"
        );
    }
}

#[test]
fn mover_hits_are_the_moved_side_s_hit_features() {
    for pos in random_positions(20_000, 17) {
        let f = contact_features(&pos.switch_sides());
        let (shots, two, loss) = mover_hits(&pos);
        assert_eq!(shots, mover_shots(&pos), "{pos:?}");
        let block = BASE_FEATURES + EXTRA_PER_SIDE;
        let extra = second_block(loss, two, 36, 0, 0, 0);
        assert_eq!(extra[0].to_bits(), f[block].to_bits(), "{pos:?}");
        assert_eq!(extra[1].to_bits(), f[block + 1].to_bits(), "{pos:?}");
    }
}

#[test]
fn point_masks_match_the_loop() {
    for pos in random_positions(20_000, 15) {
        for p in [pos, pos.switch_sides()] {
            assert_eq!(point_masks(p.pips()), point_masks_by_loop(p.pips()));
        }
    }
}

#[test]
fn tables_match_the_roll_by_roll_features_bit_for_bit() {
    for pos in random_positions(50_000, 13) {
        let (f, g) = (contact_features(&pos), features_by_rolls(&pos));
        assert_eq!(f.map(f32::to_bits), g.map(f32::to_bits), "{pos:?}");
    }
}

#[test]
fn tables_match_the_roll_by_roll_features_on_random_boards() {
    // Random point masks (not reachable positions): rare shapes such as primes
    // 11-12 pips ahead with 5-5 to play, or hitters 15-24 pips away.
    let mut rng = crate::rng::Rng::new(14);
    for _ in 0..200_000 {
        let mut mover = [0u8; 25];
        let mut opponent = [0u8; 25];
        let (mut m, mut o) = (15u8, 15u8);
        for _ in 0..12 {
            let p = rng.below(24) as usize;
            let n = (1 + rng.below(3) as u8).min(m);
            if opponent[23 - p] == 0 {
                mover[p] += n;
                m -= n;
            }
            let q = rng.below(24) as usize;
            let n = (1 + rng.below(3) as u8).min(o);
            if mover[23 - q] == 0 {
                opponent[q] += n;
                o -= n;
            }
        }
        if rng.below(8) == 0 {
            mover[24] = m.min(2);
        }
        if rng.below(8) == 0 {
            opponent[24] = o.min(2);
        }
        let Ok(pos) = Position::from_arrays(&mover, &opponent) else {
            continue;
        };
        let (f, g) = (contact_features(&pos), features_by_rolls(&pos));
        assert_eq!(f.map(f32::to_bits), g.map(f32::to_bits), "{pos:?}");
    }
}
