//! `bgfarm rollout POS [--dice 31] [--moves all|top:N|"24/18 13/10",...] ...`: the
//! main job. The command line builds one rollout plan ([`plan`]); it runs embedded
//! ([`local`]: batches of whole trial ranges on every core, wave by wave, folded
//! exactly, so the output is bit-identical for any thread count, see
//! `bgfarm_engine::rollout`) or on a coordinator ([`remote`]), and [`report`]
//! prints it.

mod args;
mod finished;
mod form;
mod local;
mod plan;
mod positions;
mod preset;
mod query;
mod remote;
mod report;
mod table;

pub use args::Args;
pub use finished::Finished;
pub use form::planner;
pub use report::{match_score, report};
pub use table::settings_line;

use super::input::parse_position;
use super::local_store::LocalStore;
use super::nets::load_evaluator;
use super::threads::pool;
use super::CliError;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::Dice;
use std::time::Instant;

pub fn run(args: Args) -> Result<(), CliError> {
    if let Some(path) = &args.positions {
        return run_positions(&args, path);
    }
    let typed = args.position.as_deref().unwrap_or_default();
    let eval = load_evaluator(&args.net)?;
    let fp = fingerprint(&eval).to_string();
    let (plan, spec, dice) = planned(&args, &eval, &fp)?;
    let start = Instant::now();
    let (total, threads) = execute(&args, &plan, spec, &eval, &fp)?;
    let run = Finished {
        position: typed,
        job: &plan.job,
        total: &total,
        dice,
        fingerprint: &fp,
        timing: Some((start.elapsed().as_secs_f64(), threads)),
    };
    report::report(args.json, &run)
}

/// The plan of `args`'s position (rolling out the moves of `--dice`, if given) and
/// its wire spec labelled with what was asked, for engine `fp`: what `bgfarm
/// rollout POS` runs and what the web page's form submits ([`form`]).
fn planned(
    args: &Args,
    eval: &bgfarm_engine::eval::neural::NeuralEvaluator<'_>,
    fp: &str,
) -> Result<
    (
        bgfarm_engine::rollout::RolloutPlan,
        bgfarm_proto::v1::JobSpec,
        Option<Dice>,
    ),
    CliError,
> {
    let typed = args.position.as_deref().unwrap_or_default();
    let input = parse_position(typed)?;
    if input.position.game_over() {
        return Err(CliError::msg(
            "the game in this position is over: nothing to roll out",
        ));
    }
    let dice = match &args.dice {
        Some(d) => Some(Dice::parse(d)?),
        None => None,
    };
    let plan = plan::build(args, &input, eval, dice)?;
    let spec = query::wire_spec(&plan, fp, typed, &input, dice);
    Ok((plan, spec, dice))
}

/// Rolls out the plays `moves` (notation, comma-separated) of each `(position, dice,
/// moves)` as one job with `args`'s settings (embedded, or on `args`'s
/// coordinator): each item's candidates in the order of its moves, as the report
/// rows give them (the mover's equity and its SE). What `bgfarm analyse
/// --rollout-threshold` rolls out. A cubeful rollout (`--cubeful`) runs one job per
/// score among the items (a job has one set of cube rules); each item's figures are
/// those of rolling it out alone either way.
pub fn roll_out_plays(
    args: &Args,
    items: &[(String, Dice, String)],
) -> Result<Vec<Vec<bgfarm_report::rollout_rows::JsonCandidate>>, CliError> {
    let mut groups: Vec<(Option<bgfarm_engine::rollout::CubeRules>, Vec<usize>)> = Vec::new();
    let mut lines = Vec::new();
    for (i, (typed, dice, moves)) in items.iter().enumerate() {
        let input = parse_position(typed)?;
        let rules = plan::cube_setup_of(args, typed, None, &input)?.map(|c| c.rules);
        match groups.iter_mut().find(|(r, _)| *r == rules) {
            Some((_, members)) => members.push(i),
            None => groups.push((rules, vec![i])),
        }
        lines.push(positions::Line {
            typed: typed.clone(),
            input,
            dice: Some(*dice),
            moves: Some(moves.clone()),
            number: i + 1,
        });
    }
    let mut out: Vec<Vec<_>> = items.iter().map(|_| Vec::new()).collect();
    for (_, members) in groups {
        let group: Vec<positions::Line> = members.iter().map(|&i| lines[i].clone()).collect();
        for (i, rows) in members.into_iter().zip(roll_out_lines(args, &group)?) {
            out[i] = rows;
        }
    }
    Ok(out)
}

/// [`roll_out_plays`] of lines that share one set of cube rules: one job.
fn roll_out_lines(
    args: &Args,
    lines: &[positions::Line],
) -> Result<Vec<Vec<bgfarm_report::rollout_rows::JsonCandidate>>, CliError> {
    let eval = load_evaluator(&args.net)?;
    let (plan, ranges) = positions::build(args, lines, &eval, "the decisions")?;
    let fp = fingerprint(&eval).to_string();
    let spec = bgfarm_proto::convert::plan_to_wire(&plan, &fp);
    let (total, _) = execute(args, &plan, spec, &eval, &fp)?;
    Ok(ranges
        .iter()
        .map(|r| {
            let part = bgfarm_engine::rollout::RolloutJob {
                candidates: plan.job.candidates[r.clone()].to_vec(),
                seed: plan.job.seed,
                settings: plan.job.settings,
            };
            let stats = bgfarm_engine::rollout::RolloutStats {
                per_candidate: total.per_candidate[r.clone()].to_vec(),
            };
            bgfarm_report::rollout_rows::rows(&part, &stats)
        })
        .collect())
}

/// `--positions FILE`: every line's candidates as one job ([`positions`]).
fn run_positions(args: &Args, path: &std::path::Path) -> Result<(), CliError> {
    let lines = positions::read(path)?;
    let eval = load_evaluator(&args.net)?;
    let (plan, ranges) = positions::build(args, &lines, &eval, &path.display().to_string())?;
    let fp = fingerprint(&eval).to_string();
    let spec = bgfarm_proto::convert::plan_to_wire(&plan, &fp);
    let start = Instant::now();
    let (total, threads) = execute(args, &plan, spec, &eval, &fp)?;
    let timing = (start.elapsed().as_secs_f64(), threads);
    positions::report(args.json, &lines, &ranges, &plan.job, &total, &fp, timing)
}

/// Runs `plan` on the coordinator of `--coordinator`, or embedded (with the
/// `--data` store, if any); the statistics and the threads that ran them.
fn execute(
    args: &Args,
    plan: &bgfarm_engine::rollout::RolloutPlan,
    spec: bgfarm_proto::v1::JobSpec,
    eval: &bgfarm_engine::eval::neural::NeuralEvaluator<'_>,
    fp: &str,
) -> Result<(bgfarm_engine::rollout::RolloutStats, usize), CliError> {
    match &args.remote.coordinator {
        Some(url) => remote::run_remote(url, args, plan, spec),
        None => {
            let pool = pool(args.threads)?;
            let mut store = match &args.data {
                Some(dir) => Some(LocalStore::open(dir, spec, fp, plan.batches())?),
                None => None,
            };
            let total = local::run_local(plan, eval, &pool, args.json, store.as_mut())?;
            if let Some(s) = store {
                s.finish()?;
            }
            Ok((total, pool.current_num_threads()))
        }
    }
}
