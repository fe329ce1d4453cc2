//! Mergeable, exactly reproducible statistics for rollout outputs.
//!
//! The determinism contract says the published result of a job is bit-identical
//! however its trials were split into batches and threads. Floating-point sums depend
//! on their grouping, so the accumulators here sum *fixed-point integers*: every
//! value is rounded to a multiple of 2^-32 (an error below 2.4e-10, far under any
//! standard error a rollout reaches) and summed, with its square, in `i128`. Integer
//! addition is associative, so merging batch results in any grouping gives the same
//! bits. Values up to +/-2^31 and 2^40 trials cannot overflow (2^63 squared times 2^40
//! would; our values stay below 16 in magnitude, so squares stay below 2^72).

/// Fixed-point scale: 2^32.
const SCALE: f64 = 4_294_967_296.0;

/// Sum, sum of squares and count of one output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Accumulator {
    pub count: u64,
    pub sum: i128,
    pub sum_sq: i128,
}

impl Accumulator {
    /// Adds one observation. Non-finite values are a bug in the caller.
    #[inline]
    pub fn add(&mut self, x: f64) {
        debug_assert!(x.is_finite());
        let q = (x * SCALE).round() as i64;
        self.count += 1;
        self.sum += i128::from(q);
        self.sum_sq += i128::from(q) * i128::from(q);
    }

    /// Folds another accumulator into this one (exact).
    pub fn merge(&mut self, other: &Accumulator) {
        self.count += other.count;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    /// The mean, or 0 with no observations.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.sum as f64 / SCALE / self.count as f64
    }

    /// Standard error of the mean (sample variance / n), or `None` below 2 trials.
    pub fn se(&self) -> Option<f64> {
        if self.count < 2 {
            return None;
        }
        let n = self.count as f64;
        // Exact integer arithmetic for n*sum_sq - sum^2 (both scaled by SCALE^2).
        let num = i128::from(self.count) * self.sum_sq - self.sum * self.sum;
        let var = (num.max(0) as f64) / (SCALE * SCALE) / (n * (n - 1.0));
        Some((var / n).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_se_match_the_textbook() {
        let mut a = Accumulator::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            a.add(x);
        }
        assert!((a.mean() - 2.5).abs() < 1e-12);
        // Sample variance 5/3, SE = sqrt(5/3/4).
        assert!((a.se().unwrap() - (5.0f64 / 12.0).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn merging_is_exact_in_any_grouping() {
        let xs: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1013) as f64 / 337.0 - 1.3)
            .collect();
        let mut whole = Accumulator::default();
        xs.iter().for_each(|&x| whole.add(x));
        for split in [1, 7, 36, 999] {
            let mut merged = Accumulator::default();
            for chunk in xs.chunks(split) {
                let mut part = Accumulator::default();
                chunk.iter().for_each(|&x| part.add(x));
                merged.merge(&part);
            }
            assert_eq!(merged, whole);
        }
    }
}
