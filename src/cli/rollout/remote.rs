//! `bgfarm rollout ... --coordinator URL`: the plan submitted to a coordinator,
//! stop rules included (the coordinator applies them wave by wave as the embedded
//! run does). The coordinator folds the batch results exactly, so the statistics,
//! and thus the printed output, equal the embedded run's for the same plan.

use super::args::Args;
use crate::cli::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_client::job::run_job;
use bgfarm_client::Access;
use bgfarm_engine::rollout::{RolloutPlan, RolloutStats};
use bgfarm_proto::convert::stats_from_wire;
use bgfarm_proto::v1;

/// Runs `plan` (on the wire: `spec`) on the coordinator at `url` and returns its statistics and the
/// threads of the workers that were alive.
pub fn run_remote(
    url: &str,
    args: &Args,
    plan: &RolloutPlan,
    spec: v1::JobSpec,
) -> Result<(RolloutStats, usize), CliError> {
    let access = Access::for_default_nets(&args.net, &args.remote)?;
    let bar = bar(args.json, plan.trials, "trials")?;
    let (got, threads) = run_job(url, &access, spec, &bar, 1)?;
    let total =
        stats_from_wire(&got.aggregate.unwrap_or_default()).map_err(|e| CliError::msg(e.0))?;
    if total.per_candidate.len() != plan.job.candidates.len() {
        return Err(CliError::msg(
            "the coordinator returned another number of candidates",
        ));
    }
    Ok((total, threads))
}
