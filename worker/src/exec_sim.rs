//! A match-simulation batch: its pairs played chunk by chunk, each chunk's totals
//! folded in pair order (`bgfarm_engine::matchsim::chunk`), so the coordinator's
//! fold of the chunks equals the embedded run's bit for bit.

use bgfarm_engine::eval::Evaluator;
use bgfarm_engine::matchsim::chunk::{chunks, play_chunk};
use bgfarm_proto::matchsim::{sim_plan_from_wire, totals_to_wire};
use bgfarm_proto::v1;
use std::ops::Range;

/// The chunk totals of pairs `pairs` of `spec`.
pub fn run_sim(
    eval: &dyn Evaluator,
    spec: &v1::MatchSimSpec,
    pairs: Range<u64>,
) -> Result<v1::MatchSimStats, String> {
    let plan = sim_plan_from_wire(spec).map_err(|e| e.0)?;
    let sim = plan.spec();
    Ok(v1::MatchSimStats {
        chunks: chunks(pairs)
            .map(|c| totals_to_wire(&play_chunk(&sim, eval, c)))
            .collect(),
    })
}
