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
//!
//! A second block ([`EXTRA_PER_SIDE`] per side, encoding `bgfarm-198f-v4`) follows
//! both sides' first blocks, so the nets of older files keep their rows and get zero
//! ones here. It describes O's hits on S's blots roll by roll and O's blockade as a
//! whole, which the first block sums up in one number each:
//!
//! 6. `pip_loss`: the pips S loses to O's next roll, O choosing the hit that costs
//!    most (a blot on S's point `p` goes back `25 - p` pips), / (36 x 24).
//! 7. `double`: rolls (of 36) among the hitting ones that reach two or more different
//!    S blots (each blot's hitting rolls counted separately, so a roll that can hit
//!    either of two blots counts whether or not it can hit both), / 36.
//! 8. `contain`: 1 - (the fewest rolls of 36 that carry an S checker past O's
//!    blockade, over S's points 15..=24 whether S has a checker there or not, the
//!    blockade being O's points on its 1..=12) / 36: how well O's points confine
//!    S's back checkers anywhere, where `trapped` looks at the rearmost one only.
//! 9. `back_trapped`: over S's checkers on the bar and its points 15..=24, the mean
//!    of 1 - (rolls of 36 that carry the checker past that blockade) / 36; 0 with
//!    none there.
//! 10. `enter`: the chance that one S checker on the bar fails to enter, (O's made
//!     home points / 6) squared, whether S is on the bar or not: what being hit
//!     would cost in tempo (`dance` is the same number only while S is on the bar).
//!
//! Why: a 128-unit net fitted with Adam to its own 1-ply labels (1,015,305 contact
//! positions) stopped at an equity RMSE of 0.0334 whether it had 128 or 256 hidden
//! units: the inputs, not the capacity, were the limit.
//!
//! All of the first block but `prime` is 0 in a pure race (tested): there
//! [`features`] gives the [`race_features`](super::race_features) instead, in the
//! same slots, and the second block is 0.
//!
//! Cost: first written as 21-roll passes over bit masks per side plus a
//! `switch_sides()` copy, about 1.1 us per position (both sides): `benches/eval.rs`
//! `forward` fell from 1.42M to 0.55M evaluations/s. Now both sides' masks come
//! from one SSE2 pass (the opponent's mirrored with a bit reversal), shots and
//! escapes are table lookups (`NEAR_HITS`, `ESCAPES`) with the few long doubles
//! checked directly, and the bar case alone keeps the roll pass: `perf` puts the
//! features at 19% of `forward` (about 0.2 us), and `forward` medians went from
//! 0.50-0.64M to 0.87-1.18M/s over 3 and 6 runs on the shared 2-core machine
//! (`batch` 0.51-0.97M to 0.97-1.28M/s). Bit for bit the first version's values,
//! kept in the tests as the reference.

use super::race_features::race_features;
use super::structure::{third_block, THIRD_PER_SIDE};
use crate::position::Position;

/// Features per side in the first block (encodings v2 and v3).
pub const PER_SIDE: usize = 6;
/// The first block, both sides: all the features of encodings v2 and v3.
pub const BASE_FEATURES: usize = 2 * PER_SIDE;
/// Features per side in the second block (encoding v4, contact only): `pip_loss`,
/// `double`, `contain`, `back_trapped`, `enter`.
pub const EXTRA_PER_SIDE: usize = 5;
/// The first and second blocks, both sides: all the features of encoding v4.
pub const V4_FEATURES: usize = BASE_FEATURES + 2 * EXTRA_PER_SIDE;
/// Features of a position: the first block (mover, opponent), the second (mover,
/// opponent), then the third ([`super::structure`], mover, opponent). Older nets
/// load with zero rows for the blocks they did not have.
pub const FEATURES: usize = V4_FEATURES + 2 * THIRD_PER_SIDE;

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

/// A mask of points 1..=24 in the other side's numbering (point `p` is its
/// `25 - p`): one bit reversal instead of building the masks again from a
/// `switch_sides()` copy.
#[inline]
fn mirror(m: u32) -> u32 {
    m.reverse_bits() >> 6
}

/// The highest point in `m` (points 1..=24), 0 if none.
#[inline]
fn highest(m: u32) -> u32 {
    31 - (m | 1).leading_zeros()
}

/// Masks of the points 1..=24 holding, from the mover's side, exactly one mover
/// checker, two or more, one opponent checker, two or more: `[blots, made,
/// other_blots, other_made]`.
///
/// On x86-64 two 16-byte SSE2 compares and byte-mask extractions per mask (bytes
/// 0..16 and 10..26 of the board); the scalar loop (kept for other targets) was
/// 24 iterations of four compares and shifts, the largest part of [`features`]
/// after the roll tables went in (10% of `benches/eval.rs` `forward` in `perf`).
#[inline]
fn point_masks(p: &[i8; 26]) -> [u32; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86-64 baseline; the two unaligned 16-byte
        // loads read bytes 0..16 and 10..26 of the 26-byte array.
        unsafe {
            let lo = _mm_loadu_si128(p.as_ptr().cast::<__m128i>());
            let hi = _mm_loadu_si128(p.as_ptr().add(10).cast::<__m128i>());
            let (one, minus_one) = (_mm_set1_epi8(1), _mm_set1_epi8(-1));
            let join = |l: __m128i, h: __m128i| {
                let (l, h) = (_mm_movemask_epi8(l) as u32, _mm_movemask_epi8(h) as u32);
                (l | h << 10) & BOARD
            };
            [
                join(_mm_cmpeq_epi8(lo, one), _mm_cmpeq_epi8(hi, one)),
                join(_mm_cmpgt_epi8(lo, one), _mm_cmpgt_epi8(hi, one)),
                join(_mm_cmpeq_epi8(lo, minus_one), _mm_cmpeq_epi8(hi, minus_one)),
                join(_mm_cmpgt_epi8(minus_one, lo), _mm_cmpgt_epi8(minus_one, hi)),
            ]
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    point_masks_by_loop(p)
}

/// [`point_masks`] point by point: for targets without SSE2, and to test it.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn point_masks_by_loop(p: &[i8; 26]) -> [u32; 4] {
    let mut m = [0u32; 4];
    // A plain range zipped with the slice (as in `encode`), branch-free.
    for (i, &c) in (1..25).zip(&p[1..25]) {
        m[0] |= u32::from(c == 1) << i;
        m[1] |= u32::from(c >= 2) << i;
        m[2] |= u32::from(c == -1) << i;
        m[3] |= u32::from(c <= -2) << i;
    }
    m
}

impl SideView {
    /// Both sides of `pos`, the mover's first, from one pass over the board: the
    /// opponent's masks are the mover's mirrored.
    #[inline]
    fn both(pos: &Position) -> (SideView, SideView) {
        let p = pos.pips();
        let [blots, made, other_blots, other_made] = point_masks(p);
        let bar = u32::from(p[25].unsigned_abs());
        let other_bar = u32::from(p[0].unsigned_abs());
        let mover = SideView {
            blots,
            made,
            other: other_blots | other_made,
            other_made,
            bar,
            other_bar,
        };
        let opponent = SideView {
            blots: mirror(other_blots),
            made: mirror(other_made),
            other: mirror(blots | made),
            other_made: mirror(made),
            bar: other_bar,
            other_bar: bar,
        };
        (mover, opponent)
    }

    /// The mover's side of `pos` (S = player on roll).
    #[cfg(test)]
    fn mover(pos: &Position) -> SideView {
        SideView::both(pos).0
    }

    /// S's rearmost checker in its numbering: 25 on the bar, 0 with none left.
    #[inline]
    fn rearmost(&self) -> u32 {
        if self.bar > 0 {
            25
        } else {
            highest(self.blots | self.made)
        }
    }
}

/// Bit `k` of a roll set stands for `ROLLS[k]`; these are the non-doubles.
const NON_DOUBLES: u32 = {
    let mut m = 0;
    let mut k = 0;
    while k < 21 {
        if ROLLS[k].0 != ROLLS[k].1 {
            m |= 1 << k;
        }
        k += 1;
    }
    m
};

/// Rolls (of 36) in a roll set: doubles weigh 1, the others 2.
#[inline]
fn weight(set: u32) -> u32 {
    set.count_ones() + (set & NON_DOUBLES).count_ones()
}

/// Whether bit `k` of `blocked` is clear (bits from 32 on count as clear).
const fn is_open(blocked: u32, k: u32) -> bool {
    k >= 32 || blocked & (1 << k) == 0
}

/// The rolls (a roll set) with which one checker lands exactly `d` pips ahead, the
/// points `k` pips ahead closed where bit `k` of `blocked` is set: the dice
/// directly, a non-double's sum through either die's point, a double's multiples
/// through the ones before. The rules of [`shots_by_rolls`] for one hitter and one
/// blot.
const fn hit_rolls(d: u32, blocked: u32) -> u32 {
    let mut set = 0;
    let mut k = 0;
    while k < 21 {
        let (a, b, _) = ROLLS[k];
        let hits = if a != b {
            d == a || d == b || (d == a + b && (is_open(blocked, a) || is_open(blocked, b)))
        } else {
            let mut s = 1;
            let mut reached = false;
            while s <= 4 {
                if s * a == d {
                    reached = true;
                    break;
                }
                if !is_open(blocked, s * a) {
                    break;
                }
                s += 1;
            }
            reached
        };
        if hits {
            set |= 1 << k;
        }
        k += 1;
    }
    set
}

/// Hitters at most this many pips from a blot are looked up in [`NEAR_HITS`];
/// further ones hit only with 5-5 (15, 20 pips), 4-4 (16) or 6-6 (18, 24): [`FAR`].
const NEAR: u32 = 12;

/// [`hit_rolls`] for each distance `d` in `1..=NEAR` and each closed-point mask
/// `m` of the `d - 1` points between (bit `k - 1` = `k` pips ahead): entry
/// `2^(d-1) - 1 + m`. 4095 entries, 16 KB, replacing the 21-roll pass per position.
static NEAR_HITS: [u32; (1 << NEAR) - 1] = {
    let mut t = [0; (1 << NEAR) - 1];
    let mut d = 1;
    while d <= NEAR {
        let mut m = 0;
        while m < 1 << (d - 1) {
            t[(1 << (d - 1)) - 1 + m as usize] = hit_rolls(d, m << 1);
            m += 1;
        }
        d += 1;
    }
    t
};

/// The shots from further than [`NEAR`]: (distance, the double's roll set, the
/// points in between that must be open, as pips ahead).
const FAR: [(u32, u32, u32); 5] = {
    const fn double(a: u32) -> u32 {
        let mut k = 0;
        while ROLLS[k].0 != a || ROLLS[k].1 != a {
            k += 1;
        }
        1 << k
    }
    [
        (15, double(5), 1 << 5 | 1 << 10),
        (16, double(4), 1 << 4 | 1 << 8 | 1 << 12),
        (18, double(6), 1 << 6 | 1 << 12),
        (20, double(5), 1 << 5 | 1 << 10 | 1 << 15),
        (24, double(6), 1 << 6 | 1 << 12 | 1 << 18),
    ]
};

/// Rolls (of 36) with which O hits at least one S blot. O moves up (towards S's 24
/// point) and enters from S's point 0.
///
/// With O off the bar (nearly always) a roll hits if it carries one O checker onto
/// one blot, so the rolls that hit are the union over (hitter, blot) pairs of a
/// table lookup keyed by distance and the S points made in between: a few lookups
/// (1-2 blots, a handful of hitters in reach) instead of 21 rolls of mask shifts.
/// With O on the bar, [`shots_by_rolls`].
fn shots(v: &SideView) -> u32 {
    if v.blots == 0 {
        return 0;
    }
    if v.other_bar != 0 {
        return shots_by_rolls(v);
    }
    let mut set = 0;
    let mut blots = v.blots;
    while blots != 0 {
        let t = blots.trailing_zeros();
        blots &= blots - 1;
        set |= blot_hits(v, t);
    }
    weight(set)
}

/// The rolls (a roll set) with which O, off the bar, hits S's blot on point `t`.
#[inline]
fn blot_hits(v: &SideView, t: u32) -> u32 {
    let mut set = 0;
    // O's checkers 1..=NEAR pips below the blot.
    let mut near = v.other & ((1 << t) - 1) & !((1 << t.saturating_sub(NEAR)) - 1);
    while near != 0 {
        let h = near.trailing_zeros();
        near &= near - 1;
        let d = t - h;
        let between = (v.made >> (h + 1)) & ((1 << (d - 1)) - 1);
        set |= NEAR_HITS[((1 << (d - 1)) - 1 + between) as usize];
    }
    // Most blots have no O checker 15 or more pips behind: skip the five checks.
    if t < 16 || v.other & ((1 << (t - 14)) - 1) == 0 {
        return set;
    }
    for (d, roll, path) in FAR {
        if t > d && (v.other >> (t - d)) & 1 != 0 && (v.made >> (t - d)) & path == 0 {
            set |= roll;
        }
    }
    set
}

/// O's hits on S's blots, blot by blot: (rolls of 36 that hit any, as [`shots`];
/// rolls that hit two or more different blots, each counted on its own; the sum
/// over the 36 rolls of the most pips a hit with that roll costs S).
///
/// Blots from the most advanced (the costliest to lose) up: a roll's loss is that
/// of the first blot it hits.
fn hit_profile(v: &SideView) -> (u32, u32, u32) {
    let (mut any, mut two, mut loss) = (0u32, 0u32, 0u32);
    let mut blots = v.blots;
    while blots != 0 {
        let t = blots.trailing_zeros();
        blots &= blots - 1;
        let set = if v.other_bar == 0 {
            blot_hits(v, t)
        } else {
            hit_set_by_rolls(v, 1 << t)
        };
        loss += (25 - t) * weight(set & !any);
        two |= any & set;
        any |= set;
    }
    (weight(any), weight(two), loss)
}

/// [`shots`] roll by roll: each of the 21 rolls played with every O checker at once
/// as bit masks. Used with O on the bar (entering first changes which checkers may
/// move), and as the reference the lookups are tested against.
fn shots_by_rolls(v: &SideView) -> u32 {
    weight(hit_set_by_rolls(v, v.blots))
}

/// The rolls (a roll set) with which O hits at least one S blot of `blots`, roll by
/// roll: [`shots_by_rolls`] for any subset of S's blots.
fn hit_set_by_rolls(v: &SideView, blots: u32) -> u32 {
    if blots == 0 {
        return 0;
    }
    let open = !v.made & BOARD;
    let hit = |m: u32| m & blots != 0;
    let mut n = 0;
    for (k, &(a, b, _)) in ROLLS.iter().enumerate() {
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
                n |= 1 << k;
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
        n |= u32::from(hits) << k;
    }
    n
}

/// [`ESCAPES`] entry for the O points made 1..=12 pips ahead (`blocked`, bit `k` =
/// `k` pips ahead): (rolls of 36 reaching beyond the furthest of them, all but 5-5;
/// rolls playing whole, all but 4-4, 5-5 and 6-6). What is left out depends on
/// points further ahead; everything kept reaches no further than 12 pips, except
/// 4-4 and 6-6 beyond a 12-pip reach that already passed every point in the table.
const fn escape_entry(blocked: u32) -> (u8, u8) {
    let front = 31 - (blocked | 1).leading_zeros();
    let (mut past, mut run) = (0, 0);
    let mut k = 0;
    while k < 21 {
        let (a, b, w) = ROLLS[k];
        let (reach, whole) = if a != b {
            let (ra, rb) = (is_open(blocked, a), is_open(blocked, b));
            let both = is_open(blocked, a + b) && (ra || rb);
            // a < b: the furthest point reached.
            let reach = if both {
                a + b
            } else if rb {
                b
            } else if ra {
                a
            } else {
                0
            };
            (reach, both)
        } else {
            let mut s = 0;
            // Distances past 12 are not in `blocked`: treated as open, and only
            // reached after passing 12.
            while s < 4 && is_open(blocked, (s + 1) * a) {
                s += 1;
            }
            (s * a, s == 4)
        };
        if !(a == 5 && b == 5) && reach > front {
            past += w;
        }
        if !(a == b && a >= 4) && whole {
            run += w;
        }
        k += 1;
    }
    (past as u8, run as u8)
}

/// [`escape_entry`] for every mask of O points made 1..=12 pips ahead of S's
/// rearmost checker (index = mask >> 1): 4096 entries, 8 KB, replacing the 21-roll
/// pass per side.
static ESCAPES: [(u8, u8); 1 << 12] = {
    let mut t = [(0, 0); 1 << 12];
    let mut m = 0;
    while m < 1 << 12 {
        t[m] = escape_entry((m as u32) << 1);
        m += 1;
    }
    t
};

/// Rolls (of 36) that carry S's rearmost checker past O's furthest made point within
/// the 12 pips in front of it (36 with none there), and rolls with which it can play
/// the whole roll alone. Moves past S's 1 point count as open.
///
/// O's made points as distances ahead of the checker (a bit reversal and a shift),
/// the 12 nearest looked up in [`ESCAPES`], then the three doubles that look
/// further: 4-4 (16 pips), 6-6 (18, 24) and 5-5 (15, 20) whole, and 5-5 past a
/// point 11 or 12 pips ahead only by landing 15 ahead.
fn escapes(v: &SideView, rearmost: u32) -> (u32, u32) {
    // Bit d: O's point d pips ahead (S's point rearmost - d) is made.
    let blocked = (v.other_made.reverse_bits() >> (31 - rearmost)) & !1;
    let near = blocked & 0x1FFE;
    let (past, run) = ESCAPES[(near >> 1) as usize];
    let (past, run) = (u32::from(past), u32::from(run));
    let whole = |path: u32| u32::from(blocked & path == 0);
    let five = if blocked & (1 << 5) != 0 {
        0
    } else if blocked & (1 << 10) != 0 {
        5
    } else if blocked & (1 << 15) != 0 {
        10
    } else if blocked & (1 << 20) != 0 {
        15
    } else {
        20
    };
    let run = run
        + whole(1 << 4 | 1 << 8 | 1 << 12 | 1 << 16)
        + whole(1 << 6 | 1 << 12 | 1 << 18 | 1 << 24)
        + u32::from(five == 20);
    let past = if near == 0 {
        36
    } else {
        past + u32::from(five > highest(near))
    };
    (past, run)
}

/// S's points 13..=24 (O's home and outer boards) as bits: the blockade of the
/// second block's `contain` and `back_trapped`. With O's midpoint counted, a checker
/// on S's 24-point (12 pips from it) would read as nearly always contained.
const BLOCKADE: u32 = 0x01FF_E000;

/// The second block's [`EXTRA_PER_SIDE`] features of side `v` (`back`: S's checkers
/// on its points 15..=24 and the bar, index = point - 15; `two` and `loss`: the
/// [`hit_profile`] the first block's `shots` came from).
///
/// Each point's escapes are computed once, and not at all without a blockade (the
/// first version called [`escapes`] up to 21 times per side: `benches/eval.rs`
/// `forward` fell from about 1.0M to 0.64M evaluations/s with the block).
#[inline]
fn side_extra(v: &SideView, back: &[u8; 11], two: u32, loss: u32) -> [f32; EXTRA_PER_SIDE] {
    let (mut least, mut behind, mut trapped) = (36u32, 0u32, 0u32);
    if v.other_made & BLOCKADE != 0 {
        let blockade = SideView {
            other_made: v.other_made & BLOCKADE,
            ..*v
        };
        for (p, &n) in (15..=25).zip(back) {
            if p == 25 && n == 0 {
                break;
            }
            let past = escapes(&blockade, p).0;
            if p <= 24 {
                least = least.min(past);
            }
            behind += u32::from(n);
            trapped += u32::from(n) * (36 - past);
        }
    } else {
        behind = back.iter().map(|&n| u32::from(n)).sum();
    }
    let home = (v.other_made >> 19).count_ones();
    second_block(loss, two, least, behind, trapped, home)
}

/// The second block's values from its counts: pips lost (summed over 36 rolls),
/// rolls hitting two blots, fewest escapes, back checkers, their missing escapes
/// (summed), O's home points. The module doc's scales.
fn second_block(
    loss: u32,
    two: u32,
    least: u32,
    behind: u32,
    trapped: u32,
    home: u32,
) -> [f32; EXTRA_PER_SIDE] {
    [
        loss as f32 / (36.0 * 24.0),
        two as f32 / 36.0,
        (36 - least) as f32 / 36.0,
        if behind == 0 {
            0.0
        } else {
            trapped as f32 / (36 * behind) as f32
        },
        dance_chance(home),
    ]
}

/// The chance that one checker on the bar fails to enter against `home` made points
/// (of 6): both dice blocked.
#[inline]
fn dance_chance(home: u32) -> f32 {
    (home * home) as f32 / 36.0
}

/// The first block's [`PER_SIDE`] features of side `v` with its rearmost checker at
/// `rearmost`, `contact` pips to break contact and `shots` ([`shots`], as
/// [`hit_profile`] counts them).
#[inline]
fn side(v: &SideView, rearmost: u32, contact: i32, shots: u32) -> [f32; PER_SIDE] {
    let (past, run) = if rearmost == 0 {
        (36, 36)
    } else {
        escapes(v, rearmost)
    };
    let mut prime = 0;
    let mut m = v.made;
    while m != 0 {
        m &= m << 1;
        prime += 1;
    }
    let dance = if v.bar > 0 {
        dance_chance((v.other_made >> 19).count_ones())
    } else {
        0.0
    };
    [
        shots as f32 / 36.0,
        (36 - past) as f32 / 36.0,
        (36 - run) as f32 / 36.0,
        prime as f32 / 6.0,
        contact as f32 / 152.0,
        dance,
    ]
}

/// The mover's `shots` in `pos` (mover's view, the opponent rolling next): rolls of
/// 36 with which the opponent hits at least one of the mover's blots. After a move
/// this is the feature the net reads as the moved side's first
/// (`contact_features(&result.switch_sides())[PER_SIDE]` is this / 36, bit for bit,
/// tested; after a move that breaks contact the race net values the result),
/// alone, for about a tenth of [`features`]' cost: the rollouts' luck estimate
/// re-ranks each roll's candidates by it ([`crate::rollout`]).
#[inline]
pub fn mover_shots(pos: &Position) -> u32 {
    shots(&mover_view(pos))
}

/// The mover's hits in `pos` as the net reads them after a move: [`mover_shots`],
/// then the second block's counts for the same side, `double` (rolls of 36) and
/// `pip_loss` (pips summed over the 36 rolls), from one pass over the blots. The
/// luck estimate re-ranks each roll's candidates by all three: with release 0.7.0's
/// nets, whose second block carries much of what hits cost, the shots alone left
/// the opening rollout 14% more variance than 0.6.0's nets had (8 seeds), though
/// with every move valued by the net the new nets had 18% less.
#[inline]
pub fn mover_hits(pos: &Position) -> (u32, u32, u32) {
    hit_profile(&mover_view(pos))
}

/// The mover's side of `pos` as a [`SideView`] from its point masks alone.
#[inline]
fn mover_view(pos: &Position) -> SideView {
    let p = pos.pips();
    let [blots, made, other_blots, other_made] = point_masks(p);
    SideView {
        blots,
        made,
        other: other_blots | other_made,
        other_made,
        bar: u32::from(p[25].unsigned_abs()),
        other_bar: u32::from(p[0].unsigned_abs()),
    }
}

/// The [`FEATURES`] of `pos`: the mover's side, then the opponent's. In a pure race
/// (no contact) they are the [`race_features`] instead: the contact ones are zero
/// there in five of six slots per side, and the race net is the only net that sees
/// races.
#[inline]
pub fn features(pos: &Position) -> [f32; FEATURES] {
    features_with(pos, true)
}

/// [`features`], the third block ([`super::structure`]) computed only if `third`
/// (zero otherwise): a net whose weights for it are all zero skips its cost, about
/// 14% of a rollout's CPU with release 0.8.0's nets.
#[inline]
pub fn features_with(pos: &Position, third: bool) -> [f32; FEATURES] {
    if pos.has_contact() {
        contact_features_with(pos, third)
    } else {
        race_features(pos)
    }
}

/// The contact features of `pos` (the module doc's list), whatever the position:
/// the mover's side, then the opponent's.
pub fn contact_features(pos: &Position) -> [f32; FEATURES] {
    contact_features_with(pos, true)
}

/// [`contact_features`], the third block only if `third` (zero otherwise).
#[inline]
pub fn contact_features_with(pos: &Position, third: bool) -> [f32; FEATURES] {
    let (mover, opponent) = SideView::both(pos);
    let (mover_back, opponent_back) = (mover.rearmost(), opponent.rearmost());
    // Pips to break contact, both sides in one pass in the mover's numbering (index
    // i, bars 25 and 0): the mover's checkers count the pips above the opponent's
    // rearmost (index `low`, 0 on the bar, 26 with none: nothing counts), the
    // opponent's those below the mover's rearmost (`mover_back`, 0 with none).
    let low = if mover.other_bar > 0 {
        0
    } else if mover.other != 0 {
        mover.other.trailing_zeros() as i32
    } else {
        26
    };
    let high = mover_back as i32;
    let (mut contact, mut other_contact) = (0i32, 0i32);
    for (i, &c) in (0..26).zip(pos.pips()) {
        let c = i32::from(c);
        contact += c.max(0) * (i - low).max(0);
        other_contact += (-c).max(0) * (high - i).max(0);
    }
    // O's hits on each side's blots, blot by blot: both blocks read them.
    let ((m_shots, m_two, m_loss), (o_shots, o_two, o_loss)) =
        (hit_profile(&mover), hit_profile(&opponent));
    let mut f = [0.0; FEATURES];
    f[..PER_SIDE].copy_from_slice(&side(&mover, mover_back, contact, m_shots));
    f[PER_SIDE..BASE_FEATURES].copy_from_slice(&side(
        &opponent,
        opponent_back,
        other_contact,
        o_shots,
    ));
    // Each side's checkers on its points 15..=24 and the bar, in its numbering: the
    // mover's are indices 15..=25, the opponent's point q is index 25 - q.
    let p = pos.pips();
    let (mut mine, mut theirs) = ([0u8; 11], [0u8; 11]);
    for k in 0..11 {
        mine[k] = p[15 + k].max(0) as u8;
        theirs[k] = (-p[10 - k]).max(0) as u8;
    }
    f[BASE_FEATURES..BASE_FEATURES + EXTRA_PER_SIDE]
        .copy_from_slice(&side_extra(&mover, &mine, m_two, m_loss));
    f[BASE_FEATURES + EXTRA_PER_SIDE..V4_FEATURES]
        .copy_from_slice(&side_extra(&opponent, &theirs, o_two, o_loss));
    if third {
        put_third_block(&mut f, pos);
    }
    f
}

/// Writes `pos`'s third block (mover, opponent) into its slots of `f`.
#[inline]
fn put_third_block(f: &mut [f32; FEATURES], pos: &Position) {
    let [m3, o3] = third_block(pos);
    f[V4_FEATURES..V4_FEATURES + THIRD_PER_SIDE].copy_from_slice(&m3);
    f[V4_FEATURES + THIRD_PER_SIDE..].copy_from_slice(&o3);
}

#[cfg(test)]
mod tests {
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
}
