//! A match-simulation batch: its pairs played chunk by chunk, each chunk's totals
//! folded in pair order (`bgfarm_engine::matchsim::chunk`), so the coordinator's
//! fold of the chunks equals the embedded run's bit for bit. A study batch is the
//! same for the one cell it covers.

use bgfarm_engine::eval::Evaluator;
use bgfarm_engine::matchsim::chunk::{chunks, play_chunk};
use bgfarm_proto::matchsim::{sim_plan_from_wire, totals_to_wire};
use bgfarm_proto::study::study_cell_from_wire;
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

/// The chunk totals of study units `units` (pairs of one cell).
pub fn run_study(
    eval: &dyn Evaluator,
    spec: &v1::StudySpec,
    units: Range<u64>,
) -> Result<v1::MatchSimStats, String> {
    let (cell, pairs) = study_cell_from_wire(spec, &units).map_err(|e| e.0)?;
    Ok(v1::MatchSimStats {
        chunks: cell
            .play_chunks(eval, pairs)
            .iter()
            .map(totals_to_wire)
            .collect(),
    })
}
