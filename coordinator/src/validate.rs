//! Validation of everything that arrives from the network: job specs from clients
//! and batch results from workers. A bad spec is refused with INVALID_ARGUMENT and a
//! message naming the field; a bad result is rejected and never stored. Rollouts
//! are checked here, match simulations in [`crate::validate_sim`].

use crate::kind::Work;
use crate::outcome::Outcome;
use crate::stop::StopRules;
use crate::validate_sim::{check_sim_result, check_sim_spec};
use bgfarm_engine::rollout::{RolloutStats, OUTPUTS};
use bgfarm_proto::convert::{rollout_from_wire, stats_from_wire};
use bgfarm_proto::v1;
use prost::Message;
use std::ops::Range;

/// Most candidates in one rollout: `--moves all` of the richest roll has a few
/// hundred moves; 1024 leaves room while bounding a result to ~250 KB.
pub const MAX_CANDIDATES: usize = 1024;
/// Most trials per candidate (the CLI's own limit is 10^8).
pub const MAX_TRIALS: u64 = 1_000_000_000;
/// Most batches of one job: its results stay below ~1 GB in memory even at 1024
/// candidates... in practice a few MB (a result is 240 bytes per candidate).
pub const MAX_BATCHES: u64 = 1_000_000;
/// Largest batch: 36^4 trials, ~20 minutes of 0-ply trials on one core.
pub const MAX_BATCH_SIZE: u64 = 1_679_616;
/// Largest magnitude of one trial output the engine can produce is 3 (backgammon)
/// plus the summed luck of a long game; 64 is far beyond any real trial and keeps
/// sums of squares of 2^24-trial batches inside i128 when checked.
const MAX_ABS_OUTPUT: i128 = 64;
/// The cubeful output (the last) is in points per starting cube: up to 3 times the
/// largest money cube a trial turns (2^12) plus the summed luck.
const MAX_ABS_CUBEFUL: i128 = 3 * (1 << 12) + 64;
/// Fixed-point scale of the engine accumulators (2^32).
const SCALE: i128 = 1 << 32;

/// Checks a submitted spec; `Err` carries the message for INVALID_ARGUMENT.
pub fn check_spec(spec: &v1::JobSpec) -> Result<Work, String> {
    let work =
        Work::of(spec).ok_or("job spec has no kind: submit a rollout or a match simulation")?;
    match &work {
        Work::Rollout(r) => check_rollout_spec(r)?,
        Work::MatchSim(m) => check_sim_spec(m)?,
    }
    Ok(work)
}

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
        Work::Rollout(spec) => {
            let wire = r
                .stats
                .as_ref()
                .ok_or("rollout result without statistics")?;
            let stats = stats_from_wire(wire).map_err(|e| e.0)?;
            check_result(spec.candidates.len(), trials, active, &stats)?;
            Ok((wire.encode_to_vec(), Outcome::Rollout(stats)))
        }
        Work::MatchSim(spec) => {
            let wire = r
                .match_sim
                .as_ref()
                .ok_or("match-simulation result without totals")?;
            let chunks = check_sim_result(spec, trials, wire)?;
            Ok((wire.encode_to_vec(), Outcome::MatchSim(chunks)))
        }
    }
}

fn check_rollout_spec(r: &v1::RolloutSpec) -> Result<(), String> {
    if r.candidates.is_empty() {
        return Err("rollout spec has no candidates".into());
    }
    if r.candidates.len() > MAX_CANDIDATES {
        return Err(format!(
            "{} candidates: at most {MAX_CANDIDATES}",
            r.candidates.len()
        ));
    }
    if r.trials == 0 || r.trials > MAX_TRIALS {
        return Err(format!(
            "trials {}: must be between 1 and {MAX_TRIALS}",
            r.trials
        ));
    }
    if r.batch_size == 0 || !r.batch_size.is_multiple_of(36) || r.batch_size > MAX_BATCH_SIZE {
        return Err(format!(
            "batch_size {}: must be a positive multiple of 36 up to {MAX_BATCH_SIZE}",
            r.batch_size
        ));
    }
    if r.trials.div_ceil(r.batch_size) > MAX_BATCHES {
        return Err(format!(
            "{} trials in batches of {}: more than {MAX_BATCHES} batches",
            r.trials, r.batch_size
        ));
    }
    if r.fingerprint.is_empty() || r.fingerprint.len() > 200 {
        return Err("rollout spec needs the engine fingerprint (1 to 200 characters)".into());
    }
    if let Some(t) = r.settings.as_ref().and_then(|s| s.truncate) {
        if t == 0 {
            return Err("truncate 0: give at least 1 ply or leave it out".into());
        }
    }
    let rules = StopRules::from_wire(r.stop.as_ref());
    rules.check()?;
    let job = rollout_from_wire(r).map_err(|e| e.0)?;
    if let Some((i, _)) = job
        .candidates
        .iter()
        .enumerate()
        .find(|(_, c)| c.start.game_over())
    {
        return Err(format!("candidate {i}: the game in its position is over"));
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
    use bgfarm_engine::rollout::{Candidate, RolloutJob, TrialSettings};
    use bgfarm_engine::Position;
    use bgfarm_proto::convert::rollout_to_wire;

    fn spec(trials: u64, batch: u64) -> v1::JobSpec {
        let job = RolloutJob {
            candidates: vec![Candidate {
                label: None,
                start: Position::STARTING,
                report_for_opponent: false,
                cube: Default::default(),
            }],
            seed: 1,
            settings: TrialSettings::default(),
        };
        rollout_to_wire(&job, trials, batch, "fp")
    }

    #[test]
    fn specs_are_checked() {
        assert!(check_spec(&spec(144, 36)).is_ok());
        assert!(check_spec(&spec(0, 36)).is_err_and(|e| e.contains("trials")));
        assert!(check_spec(&spec(144, 50)).is_err_and(|e| e.contains("multiple of 36")));
        let mut s = spec(144, 36);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut s.kind {
            r.candidates[0].position_id = "nonsense".into();
        }
        assert!(check_spec(&s).is_err_and(|e| e.contains("position ID")));
        assert!(check_spec(&v1::JobSpec { kind: None }).is_err());
    }

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
}
