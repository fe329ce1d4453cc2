//! Accepted batch results and their fold.
//!
//! A rollout batch is one set of exact fixed-point sums; a match-simulation batch is
//! the list of its 16-pair chunk totals, whose float sums are folded chunk by chunk
//! in order, which is the association the embedded run uses (see
//! `bgfarm_engine::matchsim::chunk`). Either way the aggregate of a finished job is
//! bit-identical to the embedded run's.

use crate::kind::Work;
use bgfarm_engine::matchsim::chunk::fold_totals;
use bgfarm_engine::matchsim::SimStats;
use bgfarm_engine::rollout::RolloutStats;
use bgfarm_proto::convert::{stats_from_wire, stats_to_wire};
use bgfarm_proto::matchsim::{totals_from_wire, totals_to_wire};
use bgfarm_proto::v1;
use prost::Message;

/// The decoded result of one batch.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Rollout(RolloutStats),
    MatchSim(Vec<SimStats>),
}

impl Outcome {
    /// Decodes a stored result of a job of `work`'s kind (the bytes the store holds
    /// are the wire message the coordinator accepted).
    pub fn decode(work: &Work, bytes: &[u8]) -> Result<Outcome, String> {
        match work {
            Work::Rollout { .. } => {
                let w = v1::BatchStats::decode(bytes).map_err(|e| e.to_string())?;
                stats_from_wire(&w).map(Outcome::Rollout).map_err(|e| e.0)
            }
            Work::MatchSim { .. } => {
                let w = v1::MatchSimStats::decode(bytes).map_err(|e| e.to_string())?;
                Ok(Outcome::MatchSim(
                    w.chunks.iter().map(totals_from_wire).collect(),
                ))
            }
        }
    }
}

/// The accepted batches of a job, folded in batch order, in the fields of a
/// `GetJobResponse`: (rollout aggregate, match-simulation aggregate).
pub fn fold<'a>(
    work: &Work,
    outcomes: impl Iterator<Item = &'a Outcome>,
) -> (Option<v1::BatchStats>, Option<v1::SimTotals>) {
    match work {
        Work::Rollout { plan, .. } => {
            let mut total = RolloutStats::new(plan.job.candidates.len());
            for o in outcomes {
                if let Outcome::Rollout(s) = o {
                    total.merge(s);
                }
            }
            (Some(stats_to_wire(&total)), None)
        }
        Work::MatchSim { .. } => {
            let chunks = outcomes.flat_map(|o| match o {
                Outcome::MatchSim(c) => c.as_slice(),
                Outcome::Rollout(_) => &[],
            });
            (None, Some(totals_to_wire(&fold_totals(chunks))))
        }
    }
}
