//! Shots: how many of the 36 rolls hit a blot, by table look-ups over the blocking
//! points ([`NEAR_HITS`] within 12 pips, [`FAR`] beyond), for the contact features.

use super::side_view::{SideView, BOARD, ROLLS};

/// Bit `k` of a roll set stands for `ROLLS[k]`; these are the non-doubles.
pub(super) const NON_DOUBLES: u32 = {
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
pub(super) fn weight(set: u32) -> u32 {
    set.count_ones() + (set & NON_DOUBLES).count_ones()
}

/// Whether bit `k` of `blocked` is clear (bits from 32 on count as clear).
pub(super) const fn is_open(blocked: u32, k: u32) -> bool {
    k >= 32 || blocked & (1 << k) == 0
}

/// The rolls (a roll set) with which one checker lands exactly `d` pips ahead, the
/// points `k` pips ahead closed where bit `k` of `blocked` is set: the dice
/// directly, a non-double's sum through either die's point, a double's multiples
/// through the ones before. The rules of [`shots_by_rolls`] for one hitter and one
/// blot.
pub(super) const fn hit_rolls(d: u32, blocked: u32) -> u32 {
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
pub(super) const NEAR: u32 = 12;

/// [`hit_rolls`] for each distance `d` in `1..=NEAR` and each closed-point mask
/// `m` of the `d - 1` points between (bit `k - 1` = `k` pips ahead): entry
/// `2^(d-1) - 1 + m`. 4095 entries, 16 KB, replacing the 21-roll pass per position.
pub(super) static NEAR_HITS: [u32; (1 << NEAR) - 1] = {
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
pub(super) const FAR: [(u32, u32, u32); 5] = {
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
pub(super) fn shots(v: &SideView) -> u32 {
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
pub(super) fn blot_hits(v: &SideView, t: u32) -> u32 {
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
pub(super) fn hit_profile(v: &SideView) -> (u32, u32, u32) {
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
pub(super) fn shots_by_rolls(v: &SideView) -> u32 {
    weight(hit_set_by_rolls(v, v.blots))
}

/// The rolls (a roll set) with which O hits at least one S blot of `blots`, roll by
/// roll: [`shots_by_rolls`] for any subset of S's blots.
pub(super) fn hit_set_by_rolls(v: &SideView, blots: u32) -> u32 {
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
