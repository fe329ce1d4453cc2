//! bgfarm-coordinator: gRPC services, job splitting, leases and aggregation
//! (issue 7). Only the job-splitting arithmetic exists yet.

use std::ops::Range;

/// Splits `trials` trial indices into contiguous batches of `batch` trials (the last
/// one possibly shorter). Batches are the unit of leasing and of the deterministic
/// fold: results are merged in batch-index order.
pub fn split_batches(trials: u64, batch: u64) -> Vec<Range<u64>> {
    let batch = batch.max(1);
    (0..trials.div_ceil(batch))
        .map(|k| k * batch..((k + 1) * batch).min(trials))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_trial_once() {
        let b = split_batches(2600, 1296);
        assert_eq!(b, vec![0..1296, 1296..2592, 2592..2600]);
        assert!(split_batches(0, 36).is_empty());
    }
}
