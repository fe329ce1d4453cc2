//! A match-simulation batch: its pairs played chunk by chunk, each chunk's totals
//! folded in pair order (`bgfarm_engine::matchsim::chunk`), so the coordinator's
//! fold of the chunks equals the embedded run's bit for bit.

use super::{Ctx, LeaseKind};
use bgfarm_engine::matchsim::chunk::{chunks, play_chunk};
use bgfarm_proto::matchsim::{sim_plan_from_wire, totals_to_wire};
use bgfarm_proto::v1;
use std::ops::Range;

impl LeaseKind for v1::MatchSimSpec {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.pairs
    }

    fn run(
        &self,
        ctx: &Ctx<'_>,
        pairs: Range<u64>,
        _lease: &v1::Lease,
        out: &mut v1::BatchResult,
    ) -> Result<(), String> {
        let plan = sim_plan_from_wire(self).map_err(|e| e.0)?;
        let sim = plan.spec();
        let eval = &ctx.engines.play;
        out.match_sim = Some(v1::MatchSimStats {
            chunks: chunks(pairs)
                .map(|c| totals_to_wire(&play_chunk(&sim, eval, c)))
                .collect(),
        });
        Ok(())
    }
}
