//! One side's board as bit masks, the form the contact features (`features`)
//! and the shot counts (`shots`) are computed from.

use crate::position::Position;

/// Points 1..=24 as bits 1..=24.
pub(super) const BOARD: u32 = 0x01FF_FFFE;

/// The 21 distinct rolls with their weight out of 36.
pub(super) const ROLLS: [(u32, u32, u32); 21] = {
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
pub(super) struct SideView {
    /// Points S holds with exactly one checker.
    pub(super) blots: u32,
    /// Points S holds with two or more.
    pub(super) made: u32,
    /// Points O occupies, and those it holds with two or more.
    pub(super) other: u32,
    pub(super) other_made: u32,
    /// Checkers on the bars.
    pub(super) bar: u32,
    pub(super) other_bar: u32,
}

/// A mask of points 1..=24 in the other side's numbering (point `p` is its
/// `25 - p`): one bit reversal instead of building the masks again from a
/// `switch_sides()` copy.
#[inline]
pub(super) fn mirror(m: u32) -> u32 {
    m.reverse_bits() >> 6
}

/// The highest point in `m` (points 1..=24), 0 if none.
#[inline]
pub(super) fn highest(m: u32) -> u32 {
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
pub(super) fn point_masks(p: &[i8; 26]) -> [u32; 4] {
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
pub(super) fn point_masks_by_loop(p: &[i8; 26]) -> [u32; 4] {
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
    pub(super) fn both(pos: &Position) -> (SideView, SideView) {
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
    pub(super) fn mover(pos: &Position) -> SideView {
        SideView::both(pos).0
    }

    /// S's rearmost checker in its numbering: 25 on the bar, 0 with none left.
    #[inline]
    pub(super) fn rearmost(&self) -> u32 {
        if self.bar > 0 {
            25
        } else {
            highest(self.blots | self.made)
        }
    }
}
