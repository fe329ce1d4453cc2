//! `bgfarm rollout POS [--dice 31] [--moves all|top:N|"24/18 13/10",...] ...`: the
//! main job. The command line builds one rollout plan ([`plan`]); it runs embedded
//! ([`local`]: batches of whole trial ranges on every core, wave by wave, folded
//! exactly, so the output is bit-identical for any thread count, see
//! `bgfarm_engine::rollout`) or on a coordinator ([`remote`]), and [`report`]
//! prints it.

mod args;
mod finished;
mod local;
mod plan;
mod query;
mod remote;
mod report;
mod table;

pub use args::Args;
pub use finished::Finished;
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
    let input = parse_position(&args.position)?;
    if input.position.game_over() {
        return Err(CliError::msg(
            "the game in this position is over: nothing to roll out",
        ));
    }
    let eval = load_evaluator(&args.net)?;
    let dice = match &args.dice {
        Some(d) => Some(Dice::parse(d)?),
        None => None,
    };
    let plan = plan::build(&args, &input, &eval, dice)?;
    let fp = fingerprint(&eval).to_string();
    let spec = query::wire_spec(&plan, &fp, &args.position, &input, dice);
    let start = Instant::now();
    let (total, threads) = match &args.remote.coordinator {
        Some(url) => remote::run_remote(url, &args, &plan, spec)?,
        None => {
            let pool = pool(args.threads)?;
            let mut store = match &args.data {
                Some(dir) => Some(LocalStore::open(dir, spec, &fp, plan.batches())?),
                None => None,
            };
            let total = local::run_local(&plan, &eval, &pool, args.json, store.as_mut())?;
            if let Some(s) = store {
                s.finish()?;
            }
            (total, pool.current_num_threads())
        }
    };
    let run = Finished {
        position: &args.position,
        job: &plan.job,
        total: &total,
        dice,
        fingerprint: &fp,
        timing: Some((start.elapsed().as_secs_f64(), threads)),
    };
    report::report(args.json, &run)
}
