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
//!
//! Two forms, both found in the literature: the free parabola ([`fit_parabola`],
//! three coefficients) and the parabola forced through zero at the baseline
//! ([`fit_parabola_through_zero`], `y = b' (x - x0) + c' (x - x0)^2`, two
//! coefficients): the baseline player against itself scores 0 by symmetry, so the
//! constraint is exact and spends no degree of freedom on the intercept. Both are
//! returned as [`Parabola`]s in `a + b x + c x^2` form, the forced one's covariance
//! carried over by its Jacobian (rank 2), so [`Parabola::optimum`] serves both.

/// Smallest standard error a point is weighted with.
pub const MIN_SE: f64 = 1e-3;

/// A fitted parabola.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parabola {
    /// `[a, b, c]` of `a + b x + c x^2`.
    pub coef: [f64; 3],
    /// Covariance of the coefficients.
    pub cov: [[f64; 3]; 3],
    /// Weighted residual sum of squares (chi-square, [`Parabola::params`] fewer
    /// degrees of freedom than points).
    pub chi2: f64,
    /// Coefficients fitted: 3 (free) or 2 (forced through a point).
    pub params: usize,
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
    Some(with_chi2(
        Parabola {
            coef,
            cov,
            chi2: 0.0,
            params: 3,
        },
        points,
    ))
}

/// Fits `y = b' (x - x0) + c' (x - x0)^2` (through `(x0, 0)`) to `points`
/// `(x, y, se)`; `None` with fewer than 2 distinct x other than `x0` or a singular
/// system.
pub fn fit_parabola_through_zero(points: &[(f64, f64, f64)], x0: f64) -> Option<Parabola> {
    let mut m = [[0.0f64; 2]; 2];
    let mut v = [0.0f64; 2];
    for &(x, y, se) in points {
        let w = 1.0 / se.max(MIN_SE).powi(2);
        let u = x - x0;
        let row = [u, u * u];
        for i in 0..2 {
            v[i] += w * row[i] * y;
            for j in 0..2 {
                m[i][j] += w * row[i] * row[j];
            }
        }
    }
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let scale = m.iter().flatten().fold(0.0f64, |a, &b| a.max(b.abs()));
    if !det.is_finite() || det.abs() <= 1e-12 * scale * scale {
        return None;
    }
    let c2 = [
        [m[1][1] / det, -m[0][1] / det],
        [-m[1][0] / det, m[0][0] / det],
    ];
    let b1 = c2[0][0] * v[0] + c2[0][1] * v[1];
    let c1 = c2[1][0] * v[0] + c2[1][1] * v[1];
    // a + b x + c x^2 = b1 (x - x0) + c1 (x - x0)^2.
    let coef = [-b1 * x0 + c1 * x0 * x0, b1 - 2.0 * c1 * x0, c1];
    let jac = [[-x0, x0 * x0], [1.0, -2.0 * x0], [0.0, 1.0]];
    let mut cov = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..2 {
                for l in 0..2 {
                    cov[i][j] += jac[i][k] * c2[k][l] * jac[j][l];
                }
            }
        }
    }
    Some(with_chi2(
        Parabola {
            coef,
            cov,
            chi2: 0.0,
            params: 2,
        },
        points,
    ))
}

/// `p` with its weighted residual sum of squares over `points`.
fn with_chi2(p: Parabola, points: &[(f64, f64, f64)]) -> Parabola {
    let chi2 = points
        .iter()
        .map(|&(x, y, se)| ((y - p.at(x)) / se.max(MIN_SE)).powi(2))
        .sum();
    Parabola { chi2, ..p }
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
    fn forced_parabola_passes_through_the_baseline() {
        // y = -0.8 (x - 0.7)^2 + 0.16 (x - 0.7): zero at 0.7, optimum at 0.8.
        let f = |x: f64| -0.8 * (x - 0.7) * (x - 0.7) + 0.16 * (x - 0.7);
        let pts: Vec<(f64, f64, f64)> = [0.0, 0.25, 0.5, 0.7, 0.75, 1.0]
            .iter()
            .map(|&x| (x, f(x), 0.01))
            .collect();
        let p = fit_parabola_through_zero(&pts, 0.7).unwrap();
        assert_eq!(p.params, 2);
        assert!(p.at(0.7).abs() < 1e-12, "{:?}", p.coef);
        let (x, se) = p.optimum().unwrap();
        assert!((x - 0.8).abs() < 1e-9, "{x}");
        assert!(se > 0.0 && se < 0.05, "{se}");
        assert!(p.chi2 < 1e-12);
        // Noisy points off the baseline: the forced curve still passes through
        // (0.7, 0), the free one does not.
        let noisy: Vec<(f64, f64, f64)> = pts
            .iter()
            .enumerate()
            .map(|(i, &(x, y, se))| (x, y + if i % 2 == 0 { 0.02 } else { -0.01 }, se))
            .collect();
        let forced = fit_parabola_through_zero(&noisy, 0.7).unwrap();
        assert!(forced.at(0.7).abs() < 1e-12);
        assert!(fit_parabola(&noisy).unwrap().at(0.7).abs() > 1e-4);
        // Its optimum error scales with the errors too, and is smaller than the free
        // fit's on the same points (one coefficient fewer).
        let scaled: Vec<(f64, f64, f64)> = pts.iter().map(|&(x, y, se)| (x, y, 2.0 * se)).collect();
        let (_, se2) = fit_parabola_through_zero(&scaled, 0.7)
            .unwrap()
            .optimum()
            .unwrap();
        assert!((se2 / se - 2.0).abs() < 1e-6, "{se} {se2}");
        let (_, free_se) = fit_parabola(&pts).unwrap().optimum().unwrap();
        assert!(se < free_se, "{se} {free_se}");
    }

    #[test]
    fn degenerate_inputs() {
        assert!(fit_parabola_through_zero(&[(0.7, 0.0, 0.1), (1.0, 1.0, 0.1)], 0.7).is_none());
        assert!(fit_parabola(&[(0.0, 1.0, 0.1), (1.0, 2.0, 0.1)]).is_none());
        assert!(fit_parabola(&[(0.5, 1.0, 0.1); 4]).is_none());
        let up = fit_parabola(&[(0.0, 1.0, 0.1), (0.5, 0.0, 0.1), (1.0, 1.0, 0.1)]).unwrap();
        assert_eq!(up.optimum(), None);
    }
}
