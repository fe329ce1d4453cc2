//! Network inputs: what a position looks like to a net.
//!
//! Per side (mover first, then opponent, each in its own numbering) and per point
//! 1..=24, four units in the style of TD-Gammon and GNU Backgammon: `n >= 1`,
//! `n >= 2`, `n >= 3`, and `(n - 3) / 2` above three. Then per side the bar (`n / 2`),
//! the borne-off checkers (`n / 15`) and the pip count (`pips / 167`, one opening
//! pip count): 2 x (96 + 3) = 198 inputs.
//!
//! Most inputs are zero (a typical position occupies 10-14 points of 48), so the
//! encoder returns the non-zero entries only and the first layer adds one weight row
//! per entry: about 35 rows instead of 198.

use crate::position::Position;

/// Number of inputs.
pub const INPUTS: usize = 198;

/// Index of the first unit of `side`'s (0 mover, 1 opponent) point `p` (1..=24).
#[inline]
pub const fn point_base(side: usize, p: usize) -> usize {
    side * 99 + (p - 1) * 4
}

/// Non-zero inputs of a position: `(index, value)` pairs, at most 2 x (24 x 4 + 3).
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
    #[inline]
    fn push(&mut self, i: usize, v: f32) {
        self.idx[self.len] = i as u16;
        self.val[self.len] = v;
        self.len += 1;
    }

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

#[inline]
fn push_point(out: &mut SparseInputs, base: usize, n: u8) {
    if n == 0 {
        return;
    }
    out.push(base, 1.0);
    if n >= 2 {
        out.push(base + 1, 1.0);
    }
    if n >= 3 {
        out.push(base + 2, 1.0);
    }
    if n > 3 {
        out.push(base + 3, f32::from(n - 3) * 0.5);
    }
}

/// Encodes `pos` (seen from the player on roll) into `out`.
pub fn encode(pos: &Position, out: &mut SparseInputs) {
    out.len = 0;
    let p = pos.pips();
    for (point, &c) in p.iter().enumerate().take(25).skip(1) {
        if c > 0 {
            push_point(out, point_base(0, point), c as u8);
        } else if c < 0 {
            // The opponent's own numbering of this point.
            push_point(out, point_base(1, 25 - point), c.unsigned_abs());
        }
    }
    let (pm, po) = pos.pip_counts();
    for (side, bar, off, pips) in [
        (0usize, p[25].unsigned_abs(), pos.mover_off(), pm),
        (1, p[0].unsigned_abs(), pos.opponent_off(), po),
    ] {
        let base = side * 99 + 96;
        if bar > 0 {
            out.push(base, f32::from(bar) * 0.5);
        }
        if off > 0 {
            out.push(base + 1, f32::from(off) / 15.0);
        }
        if pips > 0 {
            out.push(base + 2, pips as f32 / 167.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(t.to_dense()[..99], d[99..]);
    }
}
