//! How every kind of job is cut into batches: contiguous ranges of its work units
//! (trials, duplicate pairs, positions), the unit of leasing and of the
//! deterministic fold, and the one limit on their number that all kinds share.
//!
//! It lives apart from any one kind's plan because rollouts, match simulations,
//! studies and label jobs all cut the same way, and a coordinator's cost per job
//! is per batch whatever the kind.

use std::ops::Range;

/// Most batches of one job, of any kind: a coordinator keeps about a bit per
/// batch in memory (125 KB at this count) and each batch's result in its store;
/// an embedded run or a fold reads them back in order.
pub const MAX_BATCHES: u64 = 1_000_000;

/// Batch `b` of `units` work units cut into batches of `batch` (the last one
/// possibly shorter).
pub fn batch_range(units: u64, batch: u64, b: u64) -> Range<u64> {
    let batch = batch.max(1);
    (b * batch).min(units)..((b + 1) * batch).min(units)
}

/// Every batch of `units` work units cut into batches of `batch`, in batch order:
/// results are folded in this order.
pub fn split_batches(units: u64, batch: u64) -> Vec<Range<u64>> {
    (0..units.div_ceil(batch.max(1)))
        .map(|k| batch_range(units, batch, k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_unit_once() {
        let b = split_batches(2600, 1296);
        assert_eq!(b, vec![0..1296, 1296..2592, 2592..2600]);
        assert!(split_batches(0, 36).is_empty());
        assert_eq!(batch_range(1000, 144, 6), 864..1000);
    }
}
