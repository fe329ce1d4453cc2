//! [`Mean`]: a running mean with its standard error, what the benches and studies
//! report their losses with.

/// Running mean with its standard error.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mean {
    n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Mean {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// Values added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The mean (0 with no value).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// Standard error of the mean (0 with fewer than two values).
    pub fn se(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let var = (self.sum_sq - self.sum * self.sum / n).max(0.0) / (n - 1.0);
        (var / n).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error() {
        let mut m = Mean::default();
        assert_eq!((m.mean(), m.se()), (0.0, 0.0));
        for x in [1.0, 2.0, 3.0, 4.0] {
            m.add(x);
        }
        assert_eq!(m.count(), 4);
        assert!((m.mean() - 2.5).abs() < 1e-12);
        // sd = sqrt(5/3), se = sd / 2
        assert!((m.se() - (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
    }
}
