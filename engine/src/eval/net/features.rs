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
//! Why: a 128-unit net fitted by `bgfarm-lab train fit` to its own 1-ply labels
//! (1,015,305 contact positions) stopped at an equity RMSE of 0.0334 whether it had
//! 128 or 256 hidden units: the inputs, not the capacity, were the limit.
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

use super::feature_layout::{BASE_FEATURES, EXTRA_PER_SIDE, FEATURES, PER_SIDE, V4_FEATURES};
use super::race_features::race_features;
use super::shots::*;
use super::side_view::*;
use super::structure::{third_block, THIRD_PER_SIDE};
use crate::position::Position;

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
/// luck estimate re-ranks each roll's candidates by all three: with nets that read
/// the second block, which carries much of what hits cost, the shots alone left
/// the opening rollout 14% more variance than nets without the block had (8 seeds),
/// though with every move valued by the net the nets with it had 18% less.
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
/// 14% of a rollout's CPU with the one-layer nets.
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
mod tests;
