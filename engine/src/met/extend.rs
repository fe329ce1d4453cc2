//! Extending a match equity table past its size, GNU Backgammon's way.
//!
//! Pre-Crawford (David Montgomery's method, as GNU Backgammon's `ExtendMET`): the
//! point difference at the end of a long match is treated as normally distributed.
//! Each player contributes a standard deviation by points to go (1: 1.24, 2: 1.27,
//! 3: 1.47, 4: 1.50, 5: 1.60, 6: 1.61, 7: 1.66, 8: 1.68, 9: 1.70, 10: 1.72, more:
//! 1.77 points per game), over `(a + b) / 2` games:
//! `sigma = sqrt(sa^2 + sb^2) * sqrt((a + b) / 2)`, and the player needing more points
//! (`a >= b`) wins with `Phi(6) - Phi((a - b) / sigma)` (0 once `a - b >= 6 sigma`).
//! Check: 26-away vs 1-away, `sigma = 2.161 * 3.674 = 7.940`, MWC = 0.000821.
//!
//! Post-Crawford (Zadeh's recursion with GNU Backgammon's constants): the trailer
//! doubles at once and wins a gammon a quarter of the time, so
//! `pc(n) = 0.375 * pc(n - 2) + 0.125 * pc(n - 4)` with `pc(<= 0) = 1`, less the
//! leader's free drop: 0.015 at 2-away and 0.004 at 4-away.

/// Per-game standard deviation (points) of a player `n` points away, `n = 1..=10`;
/// 1.77 beyond.
const SIGMA_BY_AWAY: [f64; 10] = [1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72];

/// Gammon rate the post-Crawford extension assumes (GNU Backgammon's `GAMMONRATE`).
const POST_CRAWFORD_GAMMON_RATE: f64 = 0.25;
/// Value of the leader's free drop at 1-away/2-away and 1-away/4-away.
const FREE_DROP_2: f64 = 0.015;
const FREE_DROP_4: f64 = 0.004;

fn sigma_away(n: u32) -> f64 {
    match n {
        1..=10 => SIGMA_BY_AWAY[n as usize - 1],
        _ => 1.77,
    }
}

/// The extension's MWC of a player needing `a` against one needing `b` (both >= 1).
/// Equal distances give exactly 0.5.
pub fn pre_crawford(a: u32, b: u32) -> f64 {
    if a == b {
        return 0.5;
    }
    if a < b {
        return 1.0 - pre_crawford(b, a);
    }
    // `a > b`: the player on the left trails.
    let (sa, sb) = (sigma_away(a), sigma_away(b));
    let sigma = (sa * sa + sb * sb).sqrt() * (f64::from(a + b) / 2.0).sqrt();
    let diff = f64::from(a - b);
    if 6.0 * sigma > diff {
        normal_cdf(6.0) - normal_cdf(diff / sigma)
    } else {
        0.0
    }
}

/// The post-Crawford row to `len` entries: the `given` entries kept as they are, the
/// rest by the recursion in the module docs (the free drops only where computed).
pub fn post_crawford(given: &[f64], len: u32) -> Vec<f64> {
    let g = POST_CRAWFORD_GAMMON_RATE;
    let mut pc: Vec<f64> = Vec::with_capacity(len as usize);
    for i in 0..len as usize {
        if let Some(&v) = given.get(i) {
            pc.push(v);
            continue;
        }
        let back = |k: usize| if i >= k { pc[i - k] } else { 1.0 };
        let mut v = (1.0 - g) / 2.0 * back(2) + g / 2.0 * back(4);
        if i == 1 {
            v -= FREE_DROP_2;
        }
        if i == 3 {
            v -= FREE_DROP_4;
        }
        pc.push(v);
    }
    pc
}

/// Standard normal distribution function `Phi(z)`.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// Complementary error function, with relative error below 1.2e-7 everywhere
/// (the Chebyshev fit in Numerical Recipes, `erfcc`): ample for table entries
/// printed to 6 decimals, and accurate in the far tail where long-match entries live.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_distribution_reference_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.0) - 0.841_344_746).abs() < 1e-7);
        assert!((normal_cdf(-1.959_963_985) - 0.025).abs() < 1e-7);
        // Far tail, relative accuracy: Phi(-4) = 3.167e-5.
        assert!((normal_cdf(-4.0) / 3.167_124_183e-5 - 1.0).abs() < 1e-6);
        assert!((normal_cdf(6.0) - 1.0).abs() < 1e-8);
    }

    #[test]
    fn twenty_six_away_against_one_away() {
        // The spec's check of GNU Backgammon's extension.
        let v = pre_crawford(26, 1);
        assert!((v - 0.000821).abs() < 5e-7, "{v}");
        assert!((pre_crawford(1, 26) - (1.0 - v)).abs() < 1e-15);
        assert_eq!(pre_crawford(40, 40), 0.5);
    }

    #[test]
    fn extension_is_monotone_in_both_distances() {
        for a in 1..=64 {
            for b in 1..64 {
                assert!(pre_crawford(a, b + 1) >= pre_crawford(a, b), "{a} {b}");
                assert!(pre_crawford(b + 1, a) <= pre_crawford(b, a), "{a} {b}");
            }
        }
    }

    #[test]
    fn post_crawford_recursion_and_free_drops() {
        let pc = post_crawford(&[0.5], 6);
        assert_eq!(pc[0], 0.5);
        // 2-away: 0.375 * 1 + 0.125 * 1 - 0.015.
        assert!((pc[1] - 0.485).abs() < 1e-12);
        // 3-away: 0.375 * 0.5 + 0.125.
        assert!((pc[2] - 0.3125).abs() < 1e-12);
        // 4-away: 0.375 * 0.485 + 0.125 - 0.004.
        assert!((pc[3] - (0.375 * 0.485 + 0.121)).abs() < 1e-12);
        // Given values stay.
        assert_eq!(post_crawford(&[0.5, 0.48803], 3)[1], 0.48803);
    }
}
