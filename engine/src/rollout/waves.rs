//! The wave runner of a rollout: which batches are released, how a wave's results
//! are folded and when the stop rules end the rollout. The embedded run (`bgfarm
//! rollout` on a rayon pool) and the coordinator (leases to workers) both drive one
//! [`Waves`], so they stop at the same trial with the same totals.
//!
//! Batches are released a wave of [`wave_batches`] batches at a time (about 324
//! trials); when every batch of a wave has its result, the results are folded in
//! batch order and the [`StopRules`] read the totals: they prune candidates for the
//! next wave or end the rollout. Without rules every wave simply runs.

use super::plan::RolloutPlan;
use super::stop::{after_wave, wave_batches, StopRules};
use super::RolloutStats;
use std::ops::Range;

/// Where a rollout stands, wave by wave.
#[derive(Clone, Debug)]
pub struct Waves {
    rules: StopRules,
    per_wave: u64,
    batches: u64,
    /// The batches of the current wave; every batch before it has a result.
    wave: Range<u64>,
    /// Candidates the current wave runs.
    active: Vec<bool>,
    /// Totals of every finished wave, folded in batch order.
    total: RolloutStats,
}

impl Waves {
    /// The rollout of `plan`, in its first wave, every candidate active.
    pub fn new(plan: &RolloutPlan) -> Waves {
        let per_wave = wave_batches(plan.batch);
        let batches = plan.batches();
        Waves {
            rules: plan.stop,
            per_wave,
            batches,
            wave: 0..per_wave.min(batches),
            active: vec![true; plan.job.candidates.len()],
            total: RolloutStats::new(plan.job.candidates.len()),
        }
    }

    /// The batches of the current wave.
    pub fn wave(&self) -> Range<u64> {
        self.wave.clone()
    }

    /// Which candidates the current wave runs.
    pub fn active(&self) -> &[bool] {
        &self.active
    }

    /// Whether batch `b` has been released (its wave is the current one or past).
    pub fn released(&self, b: u64) -> bool {
        b < self.wave.end
    }

    /// The totals of every finished wave.
    pub fn total(&self) -> &RolloutStats {
        &self.total
    }

    /// The totals of every finished wave, taken.
    pub fn into_total(self) -> RolloutStats {
        self.total
    }

    /// Folds the current wave's results (in batch order) and moves to the next
    /// wave; `None` when the rules are met or every batch ran: the rollout is done.
    pub fn finish_wave<'a>(
        &mut self,
        results: impl IntoIterator<Item = &'a RolloutStats>,
    ) -> Option<Range<u64>> {
        for r in results {
            self.total.merge(r);
        }
        let stopped = self.rules.any() && after_wave(&self.rules, &self.total, &mut self.active);
        if stopped || self.wave.end >= self.batches {
            return None;
        }
        let start = self.wave.end;
        self.wave = start..(start + self.per_wave).min(self.batches);
        Some(self.wave.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rollout::plan::tests::plan;

    #[test]
    fn waves_cover_every_batch_once_without_rules() {
        // 1000 trials in batches of 144: 7 batches, waves of 3.
        let p = plan(1000, 144, StopRules::default());
        let mut w = Waves::new(&p);
        assert_eq!(w.wave(), 0..3);
        let one = RolloutStats::new(1);
        assert_eq!(w.finish_wave([&one, &one, &one]), Some(3..6));
        assert!(w.released(5) && !w.released(6));
        assert_eq!(w.finish_wave([&one, &one, &one]), Some(6..7));
        assert_eq!(w.finish_wave([&one]), None);
    }
}
