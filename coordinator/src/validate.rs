//! Validation of the batch results workers hand in: a bad result is rejected and
//! never stored. Rollout and label results are checked here, match-simulation
//! results in [`crate::validate_sim`]. Specs are checked when they are decoded into plans
//! ([`crate::kind::Work::of`]).

use crate::kind::Work;
use crate::outcome::Outcome;
use crate::validate_sim::check_sim_result;
use bgfarm_engine::eval::Probs;
use bgfarm_engine::rollout::{RolloutStats, OUTPUTS};
use bgfarm_proto::convert::stats_from_wire;
use bgfarm_proto::label::labels_from_wire;
use bgfarm_proto::v1;
use prost::Message;
use std::ops::Range;
/// Largest magnitude of one trial output the engine can produce is 3 (backgammon)
/// plus the summed luck of a long game; 64 is far beyond any real trial and keeps
/// sums of squares of 2^24-trial batches inside i128 when checked.
const MAX_ABS_OUTPUT: i128 = 64;
/// The cubeful output (the last) is in points per starting cube: up to 3 times the
/// largest money cube a trial turns (2^12) plus the summed luck.
const MAX_ABS_CUBEFUL: i128 = 3 * (1 << 12) + 64;
/// Fixed-point scale of the engine accumulators (2^32).
const SCALE: i128 = 1 << 32;

/// Checks a result handed in for the batch over `trials` of a job of `work`, run
/// for the rollout candidates `active` (empty: all); `Ok` carries the bytes to
/// store and the decoded outcome.
pub fn check_batch(
    work: &Work,
    trials: &Range<u64>,
    active: &[bool],
    r: &v1::BatchResult,
) -> Result<(Vec<u8>, Outcome), String> {
    match work {
        Work::Rollout { plan, .. } => {
            let wire = r
                .stats
                .as_ref()
                .ok_or("rollout result without statistics")?;
            let stats = stats_from_wire(wire).map_err(|e| e.0)?;
            check_result(plan.job.candidates.len(), trials, active, &stats)?;
            Ok((wire.encode_to_vec(), Outcome::Rollout(stats)))
        }
        Work::MatchSim { plan, .. } => {
            let wire = r
                .match_sim
                .as_ref()
                .ok_or("match-simulation result without totals")?;
            let chunks = check_sim_result(plan, trials, wire)?;
            Ok((wire.encode_to_vec(), Outcome::MatchSim(chunks)))
        }
        Work::Study { plan, .. } => {
            let wire = r.match_sim.as_ref().ok_or("study result without totals")?;
            let (c, pairs) = plan
                .locate(trials)
                .ok_or("batch outside the study's cells")?;
            let chunks = check_sim_result(&plan.cells[c].plan, &pairs, wire)?;
            Ok((wire.encode_to_vec(), Outcome::MatchSim(chunks)))
        }
        Work::Label { .. } => {
            let wire = r.labels.as_ref().ok_or("label result without labels")?;
            let labels = labels_from_wire(wire).map_err(|e| e.0)?;
            check_labels(trials, &labels)?;
            Ok((wire.encode_to_vec(), Outcome::Label(labels)))
        }
    }
}

/// Checks the labels of the batch over positions `positions`: one per position,
/// each a distribution as the engine writes labels (`Probs::sanitized` leaves it
/// unchanged: every value in 0..1, gammons within wins, backgammons within
/// gammons, losing gammons within losses).
pub fn check_labels(positions: &Range<u64>, labels: &[[f32; 5]]) -> Result<(), String> {
    let n = positions.end - positions.start;
    if labels.len() as u64 != n {
        return Err(format!(
            "{} labels in the result, the batch has {n} positions",
            labels.len()
        ));
    }
    for (i, l) in labels.iter().enumerate() {
        if Probs(*l).sanitized().0 != *l {
            return Err(format!(
                "the label of position {} is not a distribution: {l:?}",
                positions.start + i as u64
            ));
        }
    }
    Ok(())
}

/// Checks a batch result against its batch: one entry per candidate, each output
/// counting exactly the batch's trials (0 for inactive candidates), sums within the
/// range the engine can produce, and a non-negative variance.
pub fn check_result(
    candidates: usize,
    trials: &Range<u64>,
    active: &[bool],
    stats: &RolloutStats,
) -> Result<(), String> {
    if stats.per_candidate.len() != candidates {
        return Err(format!(
            "{} candidates in the result, the job has {candidates}",
            stats.per_candidate.len()
        ));
    }
    let n = trials.end - trials.start;
    for (c, outs) in stats.per_candidate.iter().enumerate() {
        let want = if active.is_empty() || active.get(c).copied().unwrap_or(false) {
            n
        } else {
            0
        };
        for (k, a) in outs.iter().enumerate().take(OUTPUTS) {
            if a.count != want {
                return Err(format!(
                    "candidate {c} output {k}: count {}, expected {want}",
                    a.count
                ));
            }
            let count = i128::from(a.count);
            let bound = if k == OUTPUTS - 1 {
                MAX_ABS_CUBEFUL
            } else {
                MAX_ABS_OUTPUT
            };
            let max_sum = count * bound * SCALE;
            let max_sq = max_sum.checked_mul(bound * SCALE);
            let plausible = a.sum.abs() <= max_sum
                && a.sum_sq >= 0
                && max_sq.is_some_and(|m| a.sum_sq <= m)
                && count
                    .checked_mul(a.sum_sq)
                    .zip(a.sum.checked_mul(a.sum))
                    .is_some_and(|(lhs, rhs)| lhs >= rhs);
            if !plausible {
                return Err(format!("candidate {c} output {k}: sums out of range"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_checked() {
        let mut st = RolloutStats::new(2);
        for c in 0..2 {
            for _ in 0..36 {
                for a in st.per_candidate[c].iter_mut() {
                    a.add(0.25);
                }
            }
        }
        assert!(check_result(2, &(0..36), &[], &st).is_ok());
        assert!(check_result(3, &(0..36), &[], &st).is_err());
        assert!(check_result(2, &(0..72), &[], &st).is_err_and(|e| e.contains("count 36")));
        assert!(check_result(2, &(0..36), &[true, false], &st).is_err());
        let mut forged = st.clone();
        forged.per_candidate[1][5].sum_sq = -1;
        assert!(check_result(2, &(0..36), &[], &forged).is_err_and(|e| e.contains("range")));
        let mut forged = st.clone();
        forged.per_candidate[0][0].sum = i128::MAX / 2;
        assert!(check_result(2, &(0..36), &[], &forged).is_err());
    }

    #[test]
    fn labels_are_checked() {
        let good = [0.6, 0.2, 0.01, 0.1, 0.005];
        assert!(check_labels(&(4..6), &[good, good]).is_ok());
        assert!(check_labels(&(4..6), &[good]).is_err_and(|e| e.contains("2 positions")));
        for bad in [
            [f32::NAN, 0.2, 0.01, 0.1, 0.005],
            [0.6, 0.7, 0.01, 0.1, 0.005],
            [0.6, 0.2, 0.01, 0.5, 0.005],
            [1.5, 0.2, 0.01, 0.0, 0.0],
        ] {
            assert!(check_labels(&(4..6), &[good, bad]).is_err_and(|e| e.contains("position 5")));
        }
    }
}
