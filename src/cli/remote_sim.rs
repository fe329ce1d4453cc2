//! `bgfarm match-sim ... --coordinator URL`: the simulation submitted to a
//! coordinator as a job of duplicate pairs. Workers play 16-pair chunks and the
//! coordinator folds them in order, so the totals (and the JSON, apart from
//! `threads` and `seconds`) equal the embedded run's for the same seed.

use super::matchsim::Args;
use super::remote::{bar, run_job, Access};
use super::CliError;
use bgfarm_engine::matchsim::{SimSpec, SimStats};
use bgfarm_proto::matchsim::{matchsim_to_wire, totals_from_wire};

/// Runs `spec` for `args.matches` matches on the coordinator at `url`; returns the
/// totals and the threads of the workers alive at the end.
pub fn match_sim(
    url: &str,
    args: &Args,
    spec: &SimSpec<'_>,
    fingerprint: &str,
) -> Result<(SimStats, usize), CliError> {
    if args.net != "default" {
        return Err(CliError::msg(
            "workers run the default nets: use --net default with --coordinator",
        ));
    }
    let pairs = args.matches / 2;
    let wire = matchsim_to_wire(spec, pairs, args.batch, fingerprint);
    let bar = bar(args.json, args.matches, "matches")?;
    let access = Access {
        token_file: args.token_file.clone(),
        tls_ca: args.tls_ca.clone(),
    };
    let (got, threads) = run_job(url, &access, wire, &bar, 2)?;
    let total = got
        .match_sim_aggregate
        .as_ref()
        .map(totals_from_wire)
        .ok_or_else(|| CliError::msg("the coordinator returned no match-simulation totals"))?;
    if total.pairs != pairs {
        return Err(CliError::msg(format!(
            "the coordinator returned {} pairs, the job has {pairs}",
            total.pairs
        )));
    }
    Ok((total, threads))
}
