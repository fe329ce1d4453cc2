//! Accepted batch results and their fold.
//!
//! A rollout batch is one set of exact fixed-point sums; a match-simulation batch is
//! the list of its 16-pair chunk totals, whose float sums are folded chunk by chunk
//! in order, which is the association the embedded run uses (see
//! `bgfarm_engine::matchsim::chunk`); a study batch is a match-simulation batch of
//! one cell, folded into that cell's totals; a label batch is its positions'
//! labels, which follow each other in position order. Either way the aggregate of
//! a finished job is bit-identical to the embedded run's.

use crate::kind::Work;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::matchsim::chunk::fold_totals;
use bgfarm_engine::matchsim::SimStats;
use bgfarm_engine::rollout::RolloutStats;
use bgfarm_proto::convert::{stats_from_wire, stats_to_wire};
use bgfarm_proto::label::{labels_from_wire, labels_to_wire};
use bgfarm_proto::matchsim::{totals_from_wire, totals_to_wire};
use bgfarm_proto::v1;
use prost::Message;
use std::ops::Range;

/// The decoded result of one batch.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Rollout(RolloutStats),
    MatchSim(Vec<SimStats>),
    /// The labels of the batch's positions, in order.
    Label(Vec<[f32; OUTPUTS]>),
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
            Work::MatchSim { .. } | Work::Study { .. } => {
                let w = v1::MatchSimStats::decode(bytes).map_err(|e| e.to_string())?;
                Ok(Outcome::MatchSim(
                    w.chunks.iter().map(totals_from_wire).collect(),
                ))
            }
            Work::Label { .. } => {
                let w = v1::LabelStats::decode(bytes).map_err(|e| e.to_string())?;
                labels_from_wire(&w).map(Outcome::Label).map_err(|e| e.0)
            }
        }
    }
}

/// A job's accepted batches folded, in the fields of a `GetJobResponse`.
#[derive(Default)]
pub struct Aggregate {
    pub rollout: Option<v1::BatchStats>,
    pub match_sim: Option<v1::SimTotals>,
    /// One per cell of a study, in cell order.
    pub study_cells: Vec<v1::SimTotals>,
    /// The labels of the job's first positions, up to the first batch not done.
    pub labels: Option<v1::LabelStats>,
}

/// The chunks of match-simulation outcomes, in order.
fn sim_chunks<'a>(
    outcomes: impl Iterator<Item = &'a Outcome>,
) -> impl Iterator<Item = &'a SimStats> {
    outcomes.flat_map(|o| match o {
        Outcome::MatchSim(c) => c.as_slice(),
        Outcome::Rollout(_) | Outcome::Label(_) => &[],
    })
}

/// The accepted batches of a job (each with its unit range), folded in batch
/// order.
pub fn fold<'a>(
    work: &Work,
    outcomes: impl Iterator<Item = (&'a Range<u64>, &'a Outcome)>,
) -> Aggregate {
    match work {
        Work::Rollout { plan, .. } => {
            let mut total = RolloutStats::new(plan.job.candidates.len());
            for (_, o) in outcomes {
                if let Outcome::Rollout(s) = o {
                    total.merge(s);
                }
            }
            Aggregate {
                rollout: Some(stats_to_wire(&total)),
                ..Aggregate::default()
            }
        }
        Work::MatchSim { .. } => Aggregate {
            match_sim: Some(totals_to_wire(&fold_totals(sim_chunks(
                outcomes.map(|(_, o)| o),
            )))),
            ..Aggregate::default()
        },
        Work::Study { plan, .. } => {
            let mut cells = vec![Vec::new(); plan.cells.len()];
            for (units, o) in outcomes {
                if let Some((c, _)) = plan.locate(units) {
                    cells[c].push(o);
                }
            }
            Aggregate {
                study_cells: cells
                    .into_iter()
                    .map(|os| totals_to_wire(&fold_totals(sim_chunks(os.into_iter()))))
                    .collect(),
                ..Aggregate::default()
            }
        }
        Work::Label { .. } => {
            // Only the leading run of done batches: a label's place in the list is
            // its position's, so a gap would shift every label after it.
            let mut labels = Vec::new();
            let mut next = 0;
            for (units, o) in outcomes {
                match o {
                    Outcome::Label(l) if units.start == next => {
                        labels.extend_from_slice(l);
                        next = units.end;
                    }
                    _ => break,
                }
            }
            Aggregate {
                labels: Some(labels_to_wire(&labels)),
                ..Aggregate::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sim_plan;
    use bgfarm_engine::matchsim::{StudyCell, StudyPlan};

    /// Totals of `n` pairs with `n` points and a float sum that shows the order.
    fn chunk(n: u64, adjusted: f64) -> SimStats {
        SimStats {
            matches: 2 * n,
            pairs: n,
            points: n as i64,
            adjusted,
            ..SimStats::default()
        }
    }

    #[test]
    fn study_batches_fold_into_their_cells() {
        let cell = |pairs| StudyCell {
            plan: sim_plan(pairs, 32),
            symmetric: false,
        };
        let work = Work::Study {
            plan: StudyPlan {
                name: "t".into(),
                cells: vec![cell(40), cell(16)],
            },
            fingerprint: "fp".into(),
        };
        let batches = [
            (
                0..32,
                Outcome::MatchSim(vec![chunk(16, 0.1), chunk(16, 0.2)]),
            ),
            (32..40, Outcome::MatchSim(vec![chunk(8, 0.3)])),
            (40..56, Outcome::MatchSim(vec![chunk(16, 1e-17)])),
        ];
        let a = fold(&work, batches.iter().map(|(r, o)| (r, o)));
        assert!(a.rollout.is_none() && a.match_sim.is_none());
        let cells: Vec<SimStats> = a.study_cells.iter().map(totals_from_wire).collect();
        let first = fold_totals(&[chunk(16, 0.1), chunk(16, 0.2), chunk(8, 0.3)]);
        assert_eq!(cells, vec![first, chunk(16, 1e-17)]);
    }

    #[test]
    fn labels_fold_up_to_the_first_batch_not_done() {
        use bgfarm_engine::label::{LabelMethod, LabelPlan};
        use bgfarm_engine::Position;
        let work = Work::Label {
            plan: LabelPlan {
                positions: vec![Position::STARTING; 5],
                method: LabelMethod::Rollout {
                    trials: 36,
                    seed: 1,
                },
                batch: 2,
            },
            fingerprint: "fp".into(),
            nets_sha256: Vec::new(),
        };
        let l = |x: f32| [x, 0.0, 0.0, 0.0, 0.0];
        let b0 = (0..2, Outcome::Label(vec![l(0.1), l(0.2)]));
        let b2 = (4..5, Outcome::Label(vec![l(0.5)]));
        let got = |bs: &[&(Range<u64>, Outcome)]| {
            let a = fold(&work, bs.iter().map(|(r, o)| (r, o)));
            labels_from_wire(&a.labels.expect("labels")).expect("whole labels")
        };
        assert_eq!(got(&[&b0, &b2]), vec![l(0.1), l(0.2)]);
        assert!(got(&[&b2]).is_empty());
        let b1 = (2..4, Outcome::Label(vec![l(0.3), l(0.4)]));
        assert_eq!(
            got(&[&b0, &b1, &b2]),
            vec![l(0.1), l(0.2), l(0.3), l(0.4), l(0.5)]
        );
    }
}
