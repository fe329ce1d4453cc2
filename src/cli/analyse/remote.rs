//! `bgfarm analyse FILE --coordinator URL`: the analysis as one job on a
//! coordinator. The match file travels in the spec; the workers rate its units
//! (decisions, then rolls) with the same engine functions as an embedded
//! analysis, and the units come back in order, so the report is the embedded
//! one byte for byte (timing and thread counts aside).

use super::units::Evaluated;
use super::Args;
use crate::cli::nets::load_evaluator;
use crate::cli::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_client::job::run_job;
use bgfarm_client::Access;
use bgfarm_engine::analysis::AnalysisPlan;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::met::MatchEquityTable;
use bgfarm_engine::search::{MoveFilter, Pruning};
use bgfarm_proto::analysis::{analysis_to_wire, units_from_wire, MAX_MATCH_BYTES};

/// Units per batch: a 2-ply chequer decision takes 0.1-0.5 s on one core, so 8
/// keeps a batch to seconds while a 7-point match (about 400 units) still splits
/// over 50 batches.
pub const BATCH: u64 = 8;

/// Runs `plan` (read from `text`) on the coordinator at `url`.
pub fn run(
    url: &str,
    args: &Args,
    text: &str,
    plan: &AnalysisPlan<'_>,
    met: Option<&MatchEquityTable>,
) -> Result<Evaluated, CliError> {
    let access = Access::for_default_nets(&args.eval.net, &args.rollouts.remote)?;
    if text.len() > MAX_MATCH_BYTES {
        return Err(CliError::msg(format!(
            "{}: {} bytes; a cluster analysis takes files of at most {MAX_MATCH_BYTES}",
            args.file,
            text.len()
        )));
    }
    // The workers' evaluator is the default nets with the exact bear-off tables.
    let fp = fingerprint(&load_evaluator("default")?).to_string();
    let filter = MoveFilter::parse(&args.filter).map_err(|e| CliError::msg(e.to_string()))?;
    let settings = (
        plan.ply,
        &filter,
        plan.luck_ply,
        Pruning {
            keep: args.eval.prune,
        },
    );
    let spec = analysis_to_wire(text, settings, met, BATCH, &fp);
    let bar = bar(args.json, plan.units(), "units")?;
    let (got, threads) = run_job(url, &access, spec, &bar, 1)?;
    let wire = got.analysis.unwrap_or_default();
    let results = units_from_wire(plan, 0, &wire).map_err(|e| CliError::msg(e.0))?;
    Ok(Evaluated {
        results,
        luck_seconds: 0.0,
        threads,
    })
}
