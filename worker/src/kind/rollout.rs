//! A rollout batch: the engine's `run_batch` over the lease's trials for its
//! active candidates, sharing the job's first-move tables; the tables computed
//! here go back with the result for the coordinator's store.

use super::{Ctx, LeaseKind};
use bgfarm_engine::rollout::{run_batch, TrialScratch};
use bgfarm_proto::convert::{plan_from_wire, stats_to_wire};
use bgfarm_proto::v1;
use std::ops::Range;

impl LeaseKind for v1::RolloutSpec {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.trials
    }

    fn run(
        &self,
        ctx: &Ctx<'_>,
        range: Range<u64>,
        lease: &v1::Lease,
        out: &mut v1::BatchResult,
    ) -> Result<(), String> {
        let plan = plan_from_wire(self).map_err(|e| e.0)?;
        let eval = &ctx.engines.play;
        let mut scratch = TrialScratch::new(eval);
        let stats = run_batch(
            &plan.job,
            eval,
            None,
            range,
            &lease.active,
            Some(ctx.first_ply),
            &mut scratch,
        );
        out.stats = Some(stats_to_wire(&stats));
        // The tables computed here (by this batch or another of the job on this
        // worker since the last result), for the coordinator's store.
        out.first_ply = ctx
            .first_ply
            .take_computed()
            .into_iter()
            .map(|(key, table)| v1::FirstPlyEntry { key, table })
            .collect();
        Ok(())
    }
}
