//! The fold unit of a match simulation.
//!
//! The luck-adjusted sums of [`SimStats`] are floats, so the order of additions is
//! part of the result. One association is fixed for every way of running a
//! simulation: pairs are summed in chunks of [`FOLD_CHUNK`] consecutive pairs (chunk
//! `k` holds pairs `16k..16k + 16`), each chunk from zero in pair order, and the
//! chunk totals are summed from zero in chunk order. A rayon pool runs chunks in
//! parallel, a cluster batch is a whole number of chunks; both give the totals of a
//! single thread bit for bit.

use super::{play_pair, SimSpec, SimStats};
use crate::eval::Evaluator;
use std::ops::Range;

/// Pairs per chunk. 16 pairs (32 matches, ~0.1 s of 0-ply 7-point matches on one
/// core) are enough parallel slack for a pool and small enough for batch sizes.
pub const FOLD_CHUNK: u64 = 16;

/// The chunks covering `pairs` (clipped to it): aligned to multiples of
/// [`FOLD_CHUNK`], so a range that starts on a chunk boundary splits exactly as
/// the whole simulation does.
pub fn chunks(pairs: Range<u64>) -> impl Iterator<Item = Range<u64>> {
    let first = pairs.start / FOLD_CHUNK;
    let last = if pairs.is_empty() {
        first
    } else {
        pairs.end.div_ceil(FOLD_CHUNK)
    };
    (first..last)
        .map(move |k| (k * FOLD_CHUNK).max(pairs.start)..((k + 1) * FOLD_CHUNK).min(pairs.end))
}

/// Totals of the pairs in `range`, each from `pair(p)`, folded from zero in pair
/// order (one chunk of the fold).
pub fn fold_chunk(range: Range<u64>, pair: impl Fn(u64) -> SimStats) -> SimStats {
    let mut s = SimStats::default();
    for p in range {
        s.merge(&pair(p));
    }
    s
}

/// One chunk of duplicate pairs of `spec` played with `eval`.
pub fn play_chunk(spec: &SimSpec<'_>, eval: &dyn Evaluator, range: Range<u64>) -> SimStats {
    fold_chunk(range, |p| play_pair(spec, eval, p))
}

/// Chunk totals folded from zero in the order given (chunk order).
pub fn fold_totals<'a>(parts: impl IntoIterator<Item = &'a SimStats>) -> SimStats {
    let mut total = SimStats::default();
    for p in parts {
        total.merge(p);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_aligned_and_clipped() {
        let c: Vec<_> = chunks(0..40).collect();
        assert_eq!(c, vec![0..16, 16..32, 32..40]);
        let c: Vec<_> = chunks(32..64).collect();
        assert_eq!(c, vec![32..48, 48..64]);
        assert_eq!(chunks(5..5).count(), 0);
    }
}
