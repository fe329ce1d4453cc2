//! Rollout stop rules, applied by [`super::waves::Waves`] for the embedded run
//! (`bgfarm rollout`) and the coordinator alike, so a rollout stops at the same
//! trial with the same totals wherever it runs.
//!
//! Batches run in waves of [`wave_batches`] batches (about 324 trials: a few seconds
//! of 0-ply trials on one core, small enough not to overshoot a target by much).
//! After each wave the rules read the totals so far: JSD pruning deactivates
//! candidates that are clearly behind (later batches skip them) and the rollout
//! stops when fewer than two remain; an SE target stops it once every active
//! candidate's equity is that precise. Waves are the price of determinism: at most
//! one wave's batches run in parallel.

use super::{RolloutStats, OUTPUTS};

/// Trials per wave (rounded up to whole batches).
pub const WAVE_TRIALS: u64 = 324;

/// Batches per wave for batches of `batch` trials.
pub fn wave_batches(batch: u64) -> u64 {
    WAVE_TRIALS.div_ceil(batch.max(1)).max(1)
}

/// The stop rules of a rollout.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StopRules {
    /// Stop once every active candidate's equity SE is at most this.
    pub se_target: Option<f64>,
    /// JSD pruning: (minimum trials, standard errors behind the best).
    pub jsd: Option<(u64, f64)>,
}

impl StopRules {
    /// Whether any rule is set (without rules every batch runs, no waves).
    pub fn any(&self) -> bool {
        self.se_target.is_some() || self.jsd.is_some()
    }

    /// Whether the SE target is usable: a positive number.
    pub fn se_target_ok(&self) -> bool {
        self.se_target.is_none_or(|t| t.is_finite() && t > 0.0)
    }

    /// Whether the JSD width is usable: a non-negative number of standard errors.
    pub fn jsd_k_ok(&self) -> bool {
        self.jsd.is_none_or(|(_, k)| k.is_finite() && k >= 0.0)
    }
}

/// The output the rules watch: the last one, the cubeful result, which in a
/// cubeless rollout is the cubeless equity itself ([`super::trial`]).
const HEADLINE: usize = OUTPUTS - 1;

/// After a wave: prunes `active` by the JSD rule and says whether the rollout
/// stops (fewer than two candidates left, or every active one precise enough).
pub fn after_wave(rules: &StopRules, total: &RolloutStats, active: &mut [bool]) -> bool {
    if let Some((min, k)) = rules.jsd {
        prune(total, active, min, k);
        if active.iter().filter(|&&a| a).count() < 2 {
            return true;
        }
    }
    if let Some(target) = rules.se_target {
        let all_precise = (0..active.len()).filter(|&c| active[c]).all(|c| {
            total.per_candidate[c][HEADLINE]
                .se()
                .is_some_and(|se| se <= target)
        });
        if all_precise {
            return true;
        }
    }
    false
}

/// JSD-style pruning: deactivates candidates more than `k` combined standard
/// errors behind the best once they have `min` trials.
pub fn prune(total: &RolloutStats, active: &mut [bool], min: u64, k: f64) {
    let eq = |c: usize| total.per_candidate[c][HEADLINE].mean();
    let se = |c: usize| {
        total.per_candidate[c][HEADLINE]
            .se()
            .unwrap_or(f64::INFINITY)
    };
    let Some(best) = (0..active.len())
        .filter(|&c| active[c])
        .max_by(|&a, &b| eq(a).total_cmp(&eq(b)))
    else {
        return;
    };
    for (c, on) in active.iter_mut().enumerate() {
        if c != best && *on && total.trials(c) >= min {
            let combined = (se(best).powi(2) + se(c).powi(2)).sqrt();
            if eq(best) - eq(c) > k * combined {
                *on = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(means: &[(f64, u64)]) -> RolloutStats {
        let mut s = RolloutStats::new(means.len());
        for (c, &(m, n)) in means.iter().enumerate() {
            for i in 0..n {
                // Mean m, spread 0.1.
                let x = if i % 2 == 0 { m + 0.1 } else { m - 0.1 };
                for k in 0..OUTPUTS {
                    s.per_candidate[c][k].add(x);
                }
            }
        }
        s
    }

    #[test]
    fn waves_and_checks() {
        assert_eq!(wave_batches(36), 9);
        assert_eq!(wave_batches(144), 3);
        assert_eq!(wave_batches(1296), 1);
        assert!(!StopRules {
            se_target: Some(-1.0),
            jsd: None
        }
        .se_target_ok());
        assert!(!StopRules {
            se_target: None,
            jsd: Some((1, f64::NAN))
        }
        .jsd_k_ok());
        assert!(StopRules::default().se_target_ok() && StopRules::default().jsd_k_ok());
    }

    #[test]
    fn pruning_and_stopping() {
        let t = totals(&[(0.5, 400), (0.1, 400), (0.49, 400)]);
        let mut active = vec![true; 3];
        let jsd = StopRules {
            se_target: None,
            jsd: Some((324, 2.33)),
        };
        assert!(!after_wave(&jsd, &t, &mut active));
        assert_eq!(active, [true, false, true]);
        // Too few trials to prune: nothing changes.
        let mut active = vec![true; 3];
        let early = StopRules {
            jsd: Some((1000, 2.33)),
            ..jsd
        };
        assert!(!after_wave(&early, &t, &mut active));
        assert_eq!(active, [true; 3]);
        let se = StopRules {
            se_target: Some(0.01),
            jsd: None,
        };
        assert!(after_wave(&se, &t, &mut [true; 3]));
        let tight = StopRules {
            se_target: Some(0.001),
            jsd: None,
        };
        assert!(!after_wave(&tight, &t, &mut [true; 3]));
    }
}
