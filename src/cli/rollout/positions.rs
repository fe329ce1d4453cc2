//! `bgfarm rollout --positions FILE`: a list of positions rolled out as one job
//! (the file as `position_list` reads it).
//!
//! Each line of FILE is `POSITION [DICE [MOVES]]`: a position ID (optionally
//! `ID:MATCHID`) or an XGID, then optionally a roll whose moves are rolled out
//! (MOVES: `all`, `top:N` or moves in notation separated by commas, as `--moves`;
//! `--moves` when left out). A line without DICE whose XGID or match ID has dice
//! rolled plays those (`XGID=...:52:...` is the 52 to play, as eXtreme Gammon and
//! GNU Backgammon export it), and MOVES may then follow the ID directly; DICE on the
//! line wins over the ID's. Empty lines and lines starting with `#` are skipped.
//! Every line's candidates go into one rollout job, so a cluster spreads the whole
//! list over its workers, and the job is stored, resumable and extendable like any
//! rollout (its memo identity is its candidates and settings). The report prints one
//! table per line, or one JSON object with a `positions` array. With `--cubeful`
//! each line's cube is its own (from its match ID or XGID), but a job has one set
//! of cube rules: every line must be at the same score (or all money play); a file
//! mixing scores is refused naming the first line that differs.

use super::args::Args;
use super::finished::Finished;
use super::plan::{candidates_of, cube_setup_of, plan_of, settings};
use super::report::{report_value, JsonOut};
pub use crate::cli::position_list::{read, Line};
use crate::cli::CliError;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::rollout::{Candidate, CubeRules, RolloutJob, RolloutPlan, RolloutStats};
use std::ops::Range;

/// The plan of all lines, and which candidates belong to each line; `source`
/// names where the lines came from in errors (the file).
pub fn build(
    args: &Args,
    lines: &[Line],
    eval: &NeuralEvaluator<'_>,
    source: &str,
) -> Result<(RolloutPlan, Vec<Range<usize>>), CliError> {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut ranges = Vec::new();
    let mut rules: Option<(CubeRules, usize)> = None;
    for line in lines {
        let at = |e: CliError| CliError::msg(format!("{source}: line {}: {e}", line.number));
        let moves = line.moves.as_deref().unwrap_or(&args.moves);
        let cube = cube_setup_of(args, &line.typed, None, &line.input).map_err(at)?;
        let (mut these, these_rules) =
            candidates_of(eval, &line.input, line.dice, moves, cube).map_err(at)?;
        match (rules, these_rules) {
            (None, Some(r)) => rules = Some((r, line.number)),
            (Some((r, first)), Some(t)) if r != t => {
                return Err(CliError::msg(format!(
                    "{source}: line {}: another score than line {first}'s: a cubeful job \
                     has one set of cube rules; roll these lines out apart",
                    line.number
                )));
            }
            _ => {}
        }
        if line.dice.is_none() && these_rules.is_none() {
            these[0].label = Some(format!("line {}", line.number));
        }
        let start = candidates.len();
        candidates.extend(these);
        ranges.push(start..candidates.len());
    }
    let plan = plan_of(args, candidates, settings(args, rules.map(|(r, _)| r))?)?;
    Ok((plan, ranges))
}

/// Prints one table per line, or one JSON object `{"positions": [...]}` holding
/// each line's rollout as `bgfarm rollout --json` prints it.
pub fn report(
    json: bool,
    lines: &[Line],
    ranges: &[Range<usize>],
    job: &RolloutJob,
    total: &RolloutStats,
    fingerprint: &str,
    timing: (f64, usize),
) -> Result<(), CliError> {
    let mut values = Vec::new();
    for (line, range) in lines.iter().zip(ranges) {
        let part = RolloutJob {
            candidates: job.candidates[range.clone()].to_vec(),
            seed: job.seed,
            settings: job.settings,
        };
        let stats = RolloutStats {
            per_candidate: total.per_candidate[range.clone()].to_vec(),
        };
        let run = Finished {
            position: &line.typed,
            job: &part,
            total: &stats,
            dice: line.dice,
            fingerprint,
            timing: (!json).then_some(timing),
        };
        match report_value(json, &run)? {
            Some(v) => values.push(v),
            None => println!(),
        }
    }
    if json {
        let out = PositionsOut {
            positions: values,
            seconds: timing.0,
            threads: timing.1,
        };
        println!("{}", serde_json::to_string(&out)?);
    }
    Ok(())
}

/// `--positions ... --json`: every line's rollout, and how the job ran.
#[derive(serde::Serialize)]
struct PositionsOut {
    positions: Vec<JsonOut>,
    seconds: f64,
    threads: usize,
}
