//! Accepted batch results, decoded. Each kind checks, decodes and folds its own
//! ([`crate::kind::JobKind`]); a job keeps the decoded result of every accepted
//! batch so that its aggregate is folded in batch order whenever it is asked for.

use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::matchsim::SimStats;
use bgfarm_engine::rollout::RolloutStats;

/// The decoded result of one batch.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Rollout(RolloutStats),
    /// The 16-pair chunk totals of a match-simulation or study batch, in order.
    MatchSim(Vec<SimStats>),
    /// The labels of the batch's positions, in order.
    Label(Vec<[f32; OUTPUTS]>),
    /// The ratings of an analysis batch's units, in order, as handed in (checked).
    Analysis(bgfarm_proto::v1::AnalysisStats),
}

impl Outcome {
    /// A rollout batch's sums (the stop rules read them wave by wave).
    pub fn as_rollout(&self) -> Option<&RolloutStats> {
        match self {
            Outcome::Rollout(s) => Some(s),
            _ => None,
        }
    }

    /// A match-simulation or study batch's chunk totals.
    pub fn sim_chunks(&self) -> Option<&[SimStats]> {
        match self {
            Outcome::MatchSim(c) => Some(c),
            _ => None,
        }
    }
}
