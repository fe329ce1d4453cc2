//! `bgfarm match-sim ... --coordinator URL`: the simulation plan submitted to a
//! coordinator as a job of duplicate pairs. Workers play 16-pair chunks and the
//! coordinator folds them in order, so the totals (and the JSON, apart from
//! `threads` and `seconds`) equal the embedded run's for the same plan.

use super::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_client::job::run_job;
use bgfarm_client::Access;
use bgfarm_engine::matchsim::{SimPlan, SimStats};
use bgfarm_proto::matchsim::{sim_plan_to_wire, totals_from_wire};

/// Runs `plan` on the coordinator at `url` reached with `access` (progress hidden
/// when `quiet`); returns the totals and the threads of the workers alive at the
/// end.
pub fn match_sim(
    url: &str,
    access: &Access,
    quiet: bool,
    plan: &SimPlan,
    fingerprint: &str,
) -> Result<(SimStats, usize), CliError> {
    let bar = bar(quiet, 2 * plan.pairs, "matches")?;
    let (got, threads) = run_job(url, access, sim_plan_to_wire(plan, fingerprint), &bar, 2)?;
    let total = got
        .match_sim_aggregate
        .as_ref()
        .map(totals_from_wire)
        .ok_or_else(|| CliError::msg("the coordinator returned no match-simulation totals"))?;
    if total.pairs != plan.pairs {
        return Err(CliError::msg(format!(
            "the coordinator returned {} pairs, the job has {}",
            total.pairs, plan.pairs
        )));
    }
    Ok((total, threads))
}
