//! Rollout stop rules, shared by the embedded run (`bgfarm rollout`) and the
//! coordinator, so a rollout stops at the same trial with the same totals wherever
//! it runs.
//!
//! Batches run in waves of [`wave_batches`] batches (about 324 trials: a few seconds
//! of 0-ply trials on one core, small enough not to overshoot a target by much).
//! After each wave the rules read the totals so far: JSD pruning deactivates
//! candidates that are clearly behind (later batches skip them) and the rollout
//! stops when fewer than two remain; an SE target stops it once every active
//! candidate's equity is that precise. Waves are the price of determinism: at most
//! one wave's batches run in parallel.

use bgfarm_engine::rollout::{RolloutStats, OUTPUTS};
use bgfarm_proto::v1;

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

    /// The rules of a wire spec (absent: none).
    pub fn from_wire(w: Option<&v1::StopRules>) -> StopRules {
        let Some(w) = w else {
            return StopRules::default();
        };
        StopRules {
            se_target: w.se_target,
            jsd: w.jsd.then_some((w.jsd_min, w.jsd_k)),
        }
    }

    /// The wire form (`None` without rules).
    pub fn to_wire(&self) -> Option<v1::StopRules> {
        self.any().then(|| v1::StopRules {
            se_target: self.se_target,
            jsd: self.jsd.is_some(),
            jsd_min: self.jsd.map_or(0, |j| j.0),
            jsd_k: self.jsd.map_or(0.0, |j| j.1),
        })
    }

    /// Why the rules are unusable, if they are.
    pub fn check(&self) -> Result<(), String> {
        if let Some(t) = self.se_target {
            if !(t.is_finite() && t > 0.0) {
                return Err(format!("se_target {t}: must be a positive number"));
            }
        }
        if let Some((_, k)) = self.jsd {
            if !(k.is_finite() && k >= 0.0) {
                return Err(format!("jsd_k {k}: must be a non-negative number"));
            }
        }
        Ok(())
    }
}

/// The output the rules watch: the last one, the cubeful result, which in a
/// cubeless rollout is the cubeless equity itself (`bgfarm_engine::rollout::trial`).
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
    fn waves_and_wire() {
        assert_eq!(wave_batches(36), 9);
        assert_eq!(wave_batches(144), 3);
        assert_eq!(wave_batches(1296), 1);
        let r = StopRules {
            se_target: Some(0.01),
            jsd: Some((324, 2.33)),
        };
        assert_eq!(StopRules::from_wire(r.to_wire().as_ref()), r);
        assert_eq!(StopRules::default().to_wire(), None);
        assert!(StopRules {
            se_target: Some(-1.0),
            jsd: None
        }
        .check()
        .is_err());
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
