//! Weighted parabola fits for cube-life studies: `y = a + b x + c x^2` through
//! measured points with standard errors, and the optimum `x* = -b / (2c)` with its
//! uncertainty.
//!
//! Weighted least squares with weights `1 / se^2` (standard errors are floored at
//! [`MIN_SE`], so a cell that is exactly 0 by construction, the baseline against
//! itself, pins the curve without an infinite weight). The coefficient covariance is
//! `(X^T W X)^-1`, treating the cells as independent; the optimum's standard error
//! comes from the delta method, `var(x*) = g^T C g` with `g = (0, -1/(2c), b/(2c^2))`.
//! Cells of one study share their dice (common random numbers), which correlates
//! them positively: the independent-cell error bars are then on the safe side.

/// Smallest standard error a point is weighted with.
pub const MIN_SE: f64 = 1e-3;

/// A fitted parabola.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parabola {
    /// `[a, b, c]` of `a + b x + c x^2`.
    pub coef: [f64; 3],
    /// Covariance of the coefficients.
    pub cov: [[f64; 3]; 3],
    /// Weighted residual sum of squares (chi-square, 3 fewer degrees of freedom than
    /// points).
    pub chi2: f64,
}

impl Parabola {
    /// The curve at `x`.
    pub fn at(&self, x: f64) -> f64 {
        let [a, b, c] = self.coef;
        a + b * x + c * x * x
    }

    /// The maximum `x* = -b / 2c` and its standard error; `None` unless the parabola
    /// opens downwards (`c < 0`).
    pub fn optimum(&self) -> Option<(f64, f64)> {
        let [_, b, c] = self.coef;
        if c >= 0.0 {
            return None;
        }
        let x = -b / (2.0 * c);
        let g = [0.0, -1.0 / (2.0 * c), b / (2.0 * c * c)];
        let mut var = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                var += g[i] * self.cov[i][j] * g[j];
            }
        }
        Some((x, var.max(0.0).sqrt()))
    }
}

/// Fits `points` `(x, y, se)`; `None` with fewer than 3 distinct x or a singular
/// system.
pub fn fit_parabola(points: &[(f64, f64, f64)]) -> Option<Parabola> {
    let mut m = [[0.0f64; 3]; 3];
    let mut v = [0.0f64; 3];
    for &(x, y, se) in points {
        let w = 1.0 / se.max(MIN_SE).powi(2);
        let row = [1.0, x, x * x];
        for i in 0..3 {
            v[i] += w * row[i] * y;
            for j in 0..3 {
                m[i][j] += w * row[i] * row[j];
            }
        }
    }
    let cov = invert3(&m)?;
    let mut coef = [0.0; 3];
    for i in 0..3 {
        coef[i] = (0..3).map(|j| cov[i][j] * v[j]).sum();
    }
    let p = Parabola {
        coef,
        cov,
        chi2: 0.0,
    };
    let chi2 = points
        .iter()
        .map(|&(x, y, se)| ((y - p.at(x)) / se.max(MIN_SE)).powi(2))
        .sum();
    Some(Parabola { chi2, ..p })
}

/// Inverse of a symmetric 3x3 matrix by cofactors; `None` when (nearly) singular.
fn invert3(m: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c =
        |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let cof = [
        [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
        [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
        [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
    ];
    let det: f64 = (0..3).map(|j| m[0][j] * cof[0][j]).sum();
    let scale = m.iter().flatten().fold(0.0f64, |a, &b| a.max(b.abs()));
    if !det.is_finite() || det.abs() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let mut inv = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            // Adjugate: transpose of the cofactor matrix.
            inv[i][j] = cof[j][i] / det;
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_parabola_is_recovered() {
        // y = -0.3 + 1.2 x - 0.8 x^2: optimum at 0.75.
        let pts: Vec<(f64, f64, f64)> = [0.0, 0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(|&x| (x, -0.3 + 1.2 * x - 0.8 * x * x, 0.01))
            .collect();
        let p = fit_parabola(&pts).unwrap();
        for (got, want) in p.coef.iter().zip([-0.3, 1.2, -0.8]) {
            assert!((got - want).abs() < 1e-9, "{:?}", p.coef);
        }
        let (x, se) = p.optimum().unwrap();
        assert!((x - 0.75).abs() < 1e-9);
        assert!(se > 0.0 && se < 0.05, "{se}");
        assert!(p.chi2 < 1e-12);
    }

    #[test]
    fn optimum_uncertainty_scales_with_the_errors() {
        let pts = |se: f64| -> Vec<(f64, f64, f64)> {
            [0.0, 0.25, 0.5, 0.75, 1.0]
                .iter()
                .map(|&x| (x, -0.5 * (x - 0.6) * (x - 0.6), se))
                .collect()
        };
        let (_, a) = fit_parabola(&pts(0.01)).unwrap().optimum().unwrap();
        let (_, b) = fit_parabola(&pts(0.02)).unwrap().optimum().unwrap();
        assert!((b / a - 2.0).abs() < 1e-6, "{a} {b}");
    }

    #[test]
    fn degenerate_inputs() {
        assert!(fit_parabola(&[(0.0, 1.0, 0.1), (1.0, 2.0, 0.1)]).is_none());
        assert!(fit_parabola(&[(0.5, 1.0, 0.1); 4]).is_none());
        let up = fit_parabola(&[(0.0, 1.0, 0.1), (0.5, 0.0, 0.1), (1.0, 1.0, 0.1)]).unwrap();
        assert_eq!(up.optimum(), None);
    }
}
