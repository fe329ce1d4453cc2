//! Wave gating of a rollout with stop rules ([`crate::stop`]): only the current
//! wave's batches are pending; when all of them have results, the rules read the
//! totals, prune candidates for the next wave or end the job.

use crate::stop::{after_wave, wave_batches, StopRules};
use bgfarm_engine::rollout::RolloutStats;
use std::ops::Range;

/// Where a stop-ruled rollout stands.
#[derive(Clone, Debug)]
pub struct Waves {
    pub rules: StopRules,
    per_wave: u64,
    batches: u64,
    /// The batches of the current wave; every batch before it has a result.
    pub wave: Range<u64>,
    /// Candidates the current wave runs.
    pub active: Vec<bool>,
    /// Totals of every finished wave, folded in batch order.
    total: RolloutStats,
}

impl Waves {
    /// A rollout of `batches` batches of `batch` trials over `candidates`
    /// candidates, in its first wave.
    pub fn new(rules: StopRules, batch: u64, batches: u64, candidates: usize) -> Waves {
        let per_wave = wave_batches(batch);
        Waves {
            rules,
            per_wave,
            batches,
            wave: 0..per_wave.min(batches),
            active: vec![true; candidates],
            total: RolloutStats::new(candidates),
        }
    }

    /// Whether batch `b` has been released (its wave is the current one or past).
    pub fn released(&self, b: u64) -> bool {
        b < self.wave.end
    }

    /// Folds the current wave's results (in batch order) and moves to the next
    /// wave; `None` when the rules are met or every batch ran: the job is done.
    pub fn finish_wave<'a>(
        &mut self,
        results: impl Iterator<Item = &'a RolloutStats>,
    ) -> Option<Range<u64>> {
        for r in results {
            self.total.merge(r);
        }
        if after_wave(&self.rules, &self.total, &mut self.active) || self.wave.end >= self.batches {
            return None;
        }
        let start = self.wave.end;
        self.wave = start..(start + self.per_wave).min(self.batches);
        Some(self.wave.clone())
    }
}
