//! Network inputs: what a position looks like to a net.
//!
//! Per side (mover first, then opponent, each in its own numbering) and per point
//! 1..=24, four units in the style of TD-Gammon and GNU Backgammon: `n >= 1`,
//! `n >= 2`, `n >= 3`, and `(n - 3) / 2` above three. Then per side the bar (`n / 2`),
//! the borne-off checkers (`n / 15`) and the pip count (`pips / 167`, one opening
//! pip count): 2 x (96 + 3) = 198 raw inputs. Then the hand-crafted
//! [`features`](super::features) of both sides (shots, escapes, primes, ...): 210
//! inputs.
//!
//! Most inputs are zero (a typical position occupies 10-14 points of 48), so the
//! encoder returns the non-zero entries only and the first layer adds one weight row
//! per entry: about 30 rows instead of 198 (30.4 on average over the oracle
//! benchmark's candidate positions).

use super::feature_layout::FEATURES;
use super::features::features_with;
use crate::position::Position;

/// Raw inputs (checker counts, bars, borne-off, pips): the whole first encoding.
pub const RAW_INPUTS: usize = 198;

/// Number of inputs.
pub const INPUTS: usize = RAW_INPUTS + FEATURES;

/// Index of the first unit of `side`'s (0 mover, 1 opponent) point `p` (1..=24).
#[inline]
pub const fn point_base(side: usize, p: usize) -> usize {
    side * 99 + (p - 1) * 4
}

/// Non-zero inputs of a position: `(index, value)` pairs, at most [`INPUTS`].
#[derive(Clone)]
pub struct SparseInputs {
    pub idx: [u16; INPUTS],
    pub val: [f32; INPUTS],
    pub len: usize,
}

impl Default for SparseInputs {
    fn default() -> Self {
        SparseInputs {
            idx: [0; INPUTS],
            val: [0.0; INPUTS],
            len: 0,
        }
    }
}

impl SparseInputs {
    /// The non-zero entries.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.idx[..self.len]
            .iter()
            .zip(&self.val[..self.len])
            .map(|(&i, &v)| (usize::from(i), v))
    }

    /// Dense form, for tests and training tools.
    pub fn to_dense(&self) -> [f32; INPUTS] {
        let mut d = [0.0; INPUTS];
        for (i, v) in self.iter() {
            d[i] = v;
        }
        d
    }
}

/// Index of the first of the six per-side "global" units: bar, borne off, pip count
/// for the mover (`GLOBAL_BASE[0]..+3`) and the opponent (`GLOBAL_BASE[1]..+3`).
const GLOBAL_BASE: [usize; 2] = [96, 99 + 96];

/// Checkers on the board and pip counts: `[mover checkers, opponent checkers, mover
/// pips, opponent pips]` (bars included, a checker there counting 25 pips). One
/// branch-free pass over the 26 board bytes instead of the four that `pip_counts`,
/// `mover_off` and `opponent_off` would make.
#[inline]
fn sums(pos: &Position) -> [i32; 4] {
    let mut s = [0i32; 4];
    for (i, &c) in pos.pips().iter().enumerate() {
        let m = i32::from(c.max(0));
        let o = -i32::from(c.min(0));
        s[0] += m;
        s[1] += o;
        s[2] += m * i as i32;
        s[3] += o * (25 - i as i32);
    }
    s
}

/// The six global units from the bars and [`sums`]: mover's bar, off, pips, then the
/// opponent's, zeros included.
#[inline]
fn globals_from(p: &[i8; 26], s: &[i32; 4]) -> [f32; 6] {
    [
        f32::from(p[25].unsigned_abs()) * 0.5,
        (15 - s[0]) as f32 / 15.0,
        s[2] as f32 / 167.0,
        f32::from(p[0].unsigned_abs()) * 0.5,
        (15 - s[1]) as f32 / 15.0,
        s[3] as f32 / 167.0,
    ]
}

/// Values of the six global units of `pos` in input order (mover's bar, off, pips,
/// then the opponent's), zeros included; [`encode`] pushes the non-zero ones.
#[inline]
pub fn globals(pos: &Position) -> [f32; 6] {
    globals_from(pos.pips(), &sums(pos))
}

/// Encodes `pos` (seen from the player on roll) into `out`.
///
/// Branch-free per point: the non-zero units of a point holding `n` checkers are its
/// first `min(n, 4)` (`n >= 1`, `n >= 2`, `n >= 3`, then `(n - 3) / 2`), so all four
/// are written and `min(n, 4)` kept. Random positions made the old per-unit branches
/// mispredict often: this cut encoding from about 0.4 to 0.1 us. Same entries, same
/// order as pushing them one by one (at most 30 point entries: one per checker).
pub fn encode(pos: &Position, out: &mut SparseInputs) {
    encode_with(pos, out, true)
}

/// [`encode`], the features' third block only if `third` (see
/// [`super::features::features_with`]).
#[inline]
pub fn encode_with(pos: &Position, out: &mut SparseInputs, third: bool) {
    let p = pos.pips();
    let mut len = 0usize;
    // A plain range zipped with the slice: an `enumerate().take(25).skip(1)` chain
    // here compiled into a call per step.
    for (point, &c) in (1..25).zip(&p[1..25]) {
        let n = c.unsigned_abs();
        // The opponent's checkers are numbered from its side: its point 25 - point.
        let base = if c > 0 {
            point_base(0, point)
        } else {
            point_base(1, 25 - point)
        } as u16;
        let idx = &mut out.idx[len..len + 4];
        idx.copy_from_slice(&[base, base + 1, base + 2, base + 3]);
        let val = &mut out.val[len..len + 4];
        val.copy_from_slice(&[1.0, 1.0, 1.0, f32::from(n.saturating_sub(3)) * 0.5]);
        len += usize::from(n.min(4));
    }
    let g = globals(pos);
    for (side, base) in GLOBAL_BASE.into_iter().enumerate() {
        for k in 0..3 {
            // Written ahead, kept when non-zero.
            let v = g[side * 3 + k];
            out.idx[len] = (base + k) as u16;
            out.val[len] = v;
            len += usize::from(v != 0.0);
        }
    }
    for (k, v) in features_with(pos, third).into_iter().enumerate() {
        out.idx[len] = (RAW_INPUTS + k) as u16;
        out.val[len] = v;
        len += usize::from(v != 0.0);
    }
    out.len = len;
}

/// Appends the unit differences of one side's point going from `old` to `new`
/// checkers, without data-dependent branches (which checker counts change is
/// unpredictable): the binary units `n >= 1..=3` that flip form the range
/// `min(old, new).min(3)..max(old, new).min(3)`, all flipping the same way; the
/// fourth unit `(n - 3) / 2` changes by `(new - 3)+ - (old - 3)+` halves. Entries are
/// written ahead and kept by advancing `len`: at most 4 slots from `len` are written,
/// no more than this side's point could ever need.
/// Returns the new length (kept out of `out` so that it stays in a register).
#[inline(always)]
fn push_point_delta(out: &mut SparseInputs, len: usize, base: usize, old: u8, new: u8) -> usize {
    let (lo, hi) = (old.min(new).min(3), old.max(new).min(3));
    let sign = if new > old { 1.0 } else { -1.0 };
    let b = (base + usize::from(lo)) as u16;
    out.idx[len..len + 3].copy_from_slice(&[b, b + 1, b + 2]);
    out.val[len..len + 3].copy_from_slice(&[sign; 3]);
    let len = len + usize::from(hi - lo);
    // Exact: halves of small integers.
    let d3 = (f32::from(new.saturating_sub(3)) - f32::from(old.saturating_sub(3))) * 0.5;
    out.idx[len] = (base + 3) as u16;
    out.val[len] = d3;
    len + usize::from(d3 != 0.0)
}

/// A reference position for [`encode_delta`], with what the delta needs of it
/// computed once.
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    pos: Position,
    sums: [i32; 4],
    globals: [f32; 6],
    /// The hand-crafted features: non-local, so a candidate's are computed in full
    /// and only their differences pushed.
    features: [f32; FEATURES],
    /// Whether the features' third block is computed (as for the reference, so for
    /// the positions encoded against it).
    third: bool,
}

impl Reference {
    /// `pos` as a reference.
    pub fn new(pos: &Position) -> Reference {
        let sums = sums(pos);
        Reference {
            pos: *pos,
            sums,
            globals: globals_from(pos.pips(), &sums),
            features: features_with(pos, true),
            third: true,
        }
    }

    /// `pos` as a reference, given its encoding `inputs` (from [`encode_with`],
    /// with the third block if `third`): its features are read back from there
    /// rather than computed a second time.
    pub fn from_inputs(pos: &Position, inputs: &SparseInputs, third: bool) -> Reference {
        let sums = sums(pos);
        let mut features = [0.0; FEATURES];
        for (i, v) in inputs.iter() {
            if let Some(f) = features.get_mut(i.wrapping_sub(RAW_INPUTS)) {
                *f = v;
            }
        }
        Reference {
            pos: *pos,
            sums,
            globals: globals_from(pos.pips(), &sums),
            features,
            third,
        }
    }

    /// The reference position.
    pub fn position(&self) -> &Position {
        &self.pos
    }
}

/// The inputs of `to` minus those of `from`, as sparse `(index, delta)` pairs in
/// `out`: what the first layer must add to `from`'s pre-activations to get `to`'s.
/// Returns the number of board points (1..=24) that differ; a legal move changes at
/// most 8 (4.0 on average over the oracle benchmark's candidates, giving 6.3
/// entries, at most 14), where a full encoding has about 30 entries.
///
/// Only the board indices that differ are visited (a bit mask of the 26 bytes), and
/// the checker and pip counts of `to` are `from`'s plus their changes, so the cost
/// follows the move's size rather than the board's.
pub fn encode_delta(from: &Reference, to: &Position, out: &mut SparseInputs) -> usize {
    encode_delta_within(from, to, out, usize::MAX)
}

/// [`encode_delta`] that stops when more than `max_points` board points differ,
/// leaving `out` unspecified: a caller that then encodes `to` in full does not pay
/// for its features twice (they cost as much as the rest of the delta).
pub fn encode_delta_within(
    from: &Reference,
    to: &Position,
    out: &mut SparseInputs,
    max_points: usize,
) -> usize {
    let mut len = 0;
    let (a, b) = (from.pos.pips(), to.pips());
    let mut mask = from.pos.differences(to);
    // Bits 1..=24: the points (0 and 25 are the bars).
    let changed = (mask & 0x01FF_FFFE).count_ones() as usize;
    if changed > max_points {
        return changed;
    }
    let mut s = from.sums;
    while mask != 0 {
        let i = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let (x, y) = (a[i], b[i]);
        let (mx, my) = (i32::from(x.max(0)), i32::from(y.max(0)));
        let (ox, oy) = (-i32::from(x.min(0)), -i32::from(y.min(0)));
        s[0] += my - mx;
        s[1] += oy - ox;
        s[2] += (my - mx) * i as i32;
        s[3] += (oy - ox) * (25 - i as i32);
        if (1..=24).contains(&i) {
            // Mover's units, then the opponent's in its own numbering.
            len = push_point_delta(out, len, point_base(0, i), mx as u8, my as u8);
            len = push_point_delta(out, len, point_base(1, 25 - i), ox as u8, oy as u8);
        }
    }
    let g = globals_from(b, &s);
    for (side, base) in GLOBAL_BASE.into_iter().enumerate() {
        for k in 0..3 {
            let (old, new) = (from.globals[side * 3 + k], g[side * 3 + k]);
            // Written ahead, kept when it changed (branch-free, as above).
            out.idx[len] = (base + k) as u16;
            out.val[len] = new - old;
            len += usize::from(old != new);
        }
    }
    for (k, (old, new)) in from
        .features
        .iter()
        .zip(features_with(to, from.third))
        .enumerate()
    {
        out.idx[len] = (RAW_INPUTS + k) as u16;
        out.val[len] = new - old;
        len += usize::from(*old != new);
    }
    out.len = len;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::net::feature_layout::{BASE_FEATURES, EXTRA_PER_SIDE, PER_SIDE, V4_FEATURES};
    use crate::eval::net::structure::THIRD_PER_SIDE;
    use crate::testutil::random_positions;

    #[test]
    fn starting_position_encoding() {
        let mut s = SparseInputs::default();
        encode(&Position::STARTING, &mut s);
        let d = s.to_dense();
        // Mover: 5 on the 6-point -> 1, 1, 1, 1.0
        assert_eq!(
            &d[point_base(0, 6)..point_base(0, 6) + 4],
            &[1.0, 1.0, 1.0, 1.0]
        );
        // Opponent: 2 on its 24-point.
        assert_eq!(
            &d[point_base(1, 24)..point_base(1, 24) + 4],
            &[1.0, 1.0, 0.0, 0.0]
        );
        assert_eq!(d[96 + 2], 1.0);
        assert_eq!(d[99 + 96 + 2], 1.0);
        // The encoding of the switched position swaps the halves.
        let mut t = SparseInputs::default();
        encode(&Position::STARTING.switch_sides(), &mut t);
        let e = t.to_dense();
        assert_eq!(e[..99], d[99..RAW_INPUTS]);
        // And the two sides' features, block by block.
        let (m, o) = (RAW_INPUTS, RAW_INPUTS + PER_SIDE);
        assert_eq!(e[m..o], d[o..o + PER_SIDE]);
        let (m, o) = (
            RAW_INPUTS + BASE_FEATURES,
            RAW_INPUTS + BASE_FEATURES + EXTRA_PER_SIDE,
        );
        assert_eq!(e[m..o], d[o..o + EXTRA_PER_SIDE]);
        assert_eq!(e[o..o + EXTRA_PER_SIDE], d[m..o]);
        let (m, o) = (
            RAW_INPUTS + V4_FEATURES,
            RAW_INPUTS + V4_FEATURES + THIRD_PER_SIDE,
        );
        assert_eq!(e[m..o], d[o..INPUTS]);
        assert_eq!(e[o..INPUTS], d[m..o]);
    }

    /// The encoding as the module docs state it, unit by unit.
    fn reference(pos: &Position) -> [f32; INPUTS] {
        let mut d = [0f32; INPUTS];
        let p = pos.pips();
        let units = |d: &mut [f32; INPUTS], base: usize, n: u8| {
            let n = f32::from(n);
            d[base] = f32::from(u8::from(n >= 1.0));
            d[base + 1] = f32::from(u8::from(n >= 2.0));
            d[base + 2] = f32::from(u8::from(n >= 3.0));
            d[base + 3] = if n > 3.0 { (n - 3.0) / 2.0 } else { 0.0 };
        };
        for (point, &c) in (1..25).zip(&p[1..25]) {
            if c > 0 {
                units(&mut d, point_base(0, point), c as u8);
            } else if c < 0 {
                units(&mut d, point_base(1, 25 - point), c.unsigned_abs());
            }
        }
        let (pm, po) = pos.pip_counts();
        d[96] = f32::from(p[25].unsigned_abs()) / 2.0;
        d[97] = f32::from(pos.mover_off()) / 15.0;
        d[98] = pm as f32 / 167.0;
        d[99 + 96] = f32::from(p[0].unsigned_abs()) / 2.0;
        d[99 + 97] = f32::from(pos.opponent_off()) / 15.0;
        d[99 + 98] = po as f32 / 167.0;
        d[RAW_INPUTS..].copy_from_slice(&crate::eval::net::features::features(pos));
        d
    }

    #[test]
    fn encoding_matches_the_reference_and_is_sparse() {
        let mut s = SparseInputs::default();
        for pos in random_positions(20_000, 5) {
            encode(&pos, &mut s);
            assert_eq!(s.to_dense(), reference(&pos), "{pos:?}");
            assert!(s.iter().all(|(_, v)| v != 0.0));
            let mut idx = s.idx[..s.len].to_vec();
            idx.sort_unstable();
            idx.dedup();
            assert_eq!(idx.len(), s.len, "an input pushed twice");
        }
    }

    #[test]
    fn a_reference_from_the_encoding_equals_a_new_one() {
        let mut s = SparseInputs::default();
        for pos in random_positions(2000, 6) {
            encode(&pos, &mut s);
            let (a, b) = (Reference::from_inputs(&pos, &s, true), Reference::new(&pos));
            assert_eq!(a.features.map(f32::to_bits), b.features.map(f32::to_bits));
            assert_eq!((a.pos, a.sums, a.globals), (b.pos, b.sums, b.globals));
        }
    }

    #[test]
    fn delta_turns_one_encoding_into_another() {
        let positions = random_positions(20_000, 5);
        let mut d = SparseInputs::default();
        for pair in positions.windows(2) {
            let (from, to) = (&pair[0], &pair[1]);
            let changed = encode_delta(&Reference::new(from), to, &mut d);
            let expected = (1..25).filter(|&i| from.at(i) != to.at(i)).count();
            assert_eq!(changed, expected);
            let mut x = reference(from);
            for (i, v) in d.iter() {
                assert!(v != 0.0);
                x[i] += v;
            }
            let y = reference(to);
            for i in 0..INPUTS {
                assert!((x[i] - y[i]).abs() < 1e-6, "{from:?} -> {to:?}: input {i}");
            }
        }
    }
}
