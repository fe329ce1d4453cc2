//! The plans' errors in the words of the command line: one line naming the flag
//! (`--trials`, `--batch`, `--matches` ...) where the engine's own messages name
//! the wire fields.

use super::CliError;
use bgfarm_engine::batches::MAX_BATCHES;
use bgfarm_engine::matchsim::chunk::FOLD_CHUNK;
use bgfarm_engine::matchsim::plan::{MAX_PAIRS, MAX_SIM_BATCH};
use bgfarm_engine::matchsim::SimPlanError;
use bgfarm_engine::rollout::plan::{BATCH_STRATUM, MAX_BATCH_SIZE, MAX_TRIALS};
use bgfarm_engine::rollout::{PlanError, MAX_TRIAL_PLY};

/// `n` with thousands separators (`100,000,000`).
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A plan error in the words of the command line (one line, the flag first).
pub fn rollout_flag_error(e: PlanError) -> CliError {
    CliError::msg(match e {
        PlanError::Trials(_) => format!(
            "--trials must be between 1 and {}",
            thousands(MAX_TRIALS)
        ),
        PlanError::Batch(_) => format!(
            "--batch must be a positive multiple of {BATCH_STRATUM} up to {}",
            thousands(MAX_BATCH_SIZE)
        ),
        PlanError::TooManyBatches { trials, batch } => format!(
            "--trials {trials} in batches of {batch} makes more than {} batches: raise --batch \
             to at least {}",
            thousands(MAX_BATCHES),
            trials
                .div_ceil(MAX_BATCHES)
                .next_multiple_of(BATCH_STRATUM)
        ),
        PlanError::Ply(..) => format!(
            "--ply, --opponent-ply, --late-ply and --cube-ply go from 0 to {MAX_TRIAL_PLY} in rollouts"
        ),
        PlanError::CubePlyWithoutCube => {
            "--cube-ply sets the cube decisions of a cubeful rollout: add --cubeful".into()
        }
        PlanError::SeTarget(_) => "--se-target must be a positive number".into(),
        PlanError::JsdK(_) => "--jsd-k must be a non-negative number".into(),
        other => other.to_string(),
    })
}

/// A simulation plan error in the words of `match-sim` (one line, the flag first).
pub fn sim_flag_error(e: SimPlanError) -> CliError {
    CliError::msg(match e {
        SimPlanError::Pairs(_) => format!(
            "--matches must be between 2 and {}",
            thousands(2 * MAX_PAIRS)
        ),
        SimPlanError::Batch(_) => format!(
            "--batch must be a positive multiple of {FOLD_CHUNK} pairs up to {}",
            thousands(MAX_SIM_BATCH)
        ),
        SimPlanError::TooManyBatches { pairs, batch } => format!(
            "--matches {} in batches of {batch} pairs makes more than {} batches: raise --batch",
            2 * pairs,
            thousands(MAX_BATCHES)
        ),
        SimPlanError::Spec(e) => e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(100_000_000), "100,000,000");
        assert_eq!(thousands(36), "36");
        assert_eq!(thousands(1_679_616), "1,679,616");
    }
}
