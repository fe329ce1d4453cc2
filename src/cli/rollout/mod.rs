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

/// One item's rollout from [`roll_out_plays`]: its candidates' rows in the order of
/// its moves (the mover's equity and its SE), and for an item without dice in a
/// cubeful rollout the cube decision of its two branches.
pub struct ItemRollout {
    pub rows: Vec<bgfarm_report::rollout_rows::JsonCandidate>,
    pub cube: Option<bgfarm_report::rollout_rows::JsonCubeDecision>,
}

/// Rolls out each `(position, dice, moves)` as one job with `args`'s settings
/// (embedded, or on `args`'s coordinator): with dice, the plays `moves` (notation,
/// comma-separated) of that roll; without, the position before the roll (with
/// `--cubeful`, both branches of its cube decision). What `bgfarm analyse
/// --rollout-threshold` rolls out. A cubeful rollout runs one job per score among
/// the items (a job has one set of cube rules); each item's figures are those of
/// rolling it out alone either way.
pub fn roll_out_plays(
    args: &Args,
    items: &[(String, Option<Dice>, Option<String>)],
) -> Result<Vec<ItemRollout>, CliError> {
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
            dice: *dice,
            moves: moves.clone(),
            number: i + 1,
        });
    }
    let mut out: Vec<Option<ItemRollout>> = items.iter().map(|_| None).collect();
    for (_, members) in groups {
        let group: Vec<positions::Line> = members.iter().map(|&i| lines[i].clone()).collect();
        for (i, rolled) in members.into_iter().zip(roll_out_lines(args, &group)?) {
            out[i] = Some(rolled);
        }
    }
    Ok(out
        .into_iter()
        .map(|r| {
            r.unwrap_or(ItemRollout {
                rows: Vec::new(),
                cube: None,
            })
        })
        .collect())
}

/// [`roll_out_plays`] of lines that share one set of cube rules: one job.
fn roll_out_lines(args: &Args, lines: &[positions::Line]) -> Result<Vec<ItemRollout>, CliError> {
    let eval = load_evaluator(&args.net)?;
    let (plan, ranges) = positions::build(args, lines, &eval, "the decisions")?;
    let fp = fingerprint(&eval).to_string();
    let spec = bgfarm_proto::convert::plan_to_wire(&plan, &fp);
    let (total, _) = execute(args, &plan, spec, &eval, &fp)?;
    Ok(ranges
        .iter()
        .zip(lines)
        .map(|(r, line)| {
            let part = bgfarm_engine::rollout::RolloutJob {
                candidates: plan.job.candidates[r.clone()].to_vec(),
                seed: plan.job.seed,
                settings: plan.job.settings,
            };
            let stats = bgfarm_engine::rollout::RolloutStats {
                per_candidate: total.per_candidate[r.clone()].to_vec(),
            };
            let rows = bgfarm_report::rollout_rows::rows(&part, &stats);
            let cube = bgfarm_report::rollout_rows::cube_decision(&part, &rows, line.dice);
            ItemRollout { rows, cube }
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
