//! The analysis units run in-process, and every unit's result (whether computed
//! here or on a cluster, `remote.rs`) put back together into the decisions and
//! rolls the report reads.

use super::{Decision, Kind};
use crate::cli::CliError;
use bgfarm_cli_common::engine_args::search_args::Engine;
use bgfarm_engine::analysis::luck::RollLuck;
use bgfarm_engine::analysis::units::{gnubg_id, on_roll};
use bgfarm_engine::analysis::{AnalysisPlan, UnitResult};
use bgfarm_engine::matchfile::ActionKind;
use rayon::prelude::*;
use std::time::Instant;

/// Every unit's result, in unit order, and how it was computed.
pub struct Evaluated {
    pub results: Vec<UnitResult>,
    /// Seconds spent on the luck of the rolls (in-process only; 0 on a cluster).
    pub luck_seconds: f64,
    /// Threads that computed them.
    pub threads: usize,
}

/// Runs every unit of `plan` on `engine`'s pool: a chequer play at a time (its
/// candidates are ranked in parallel), cube decisions and rolls one per task.
pub fn run(engine: &Engine, plan: &AnalysisPlan<'_>) -> Result<Evaluated, CliError> {
    let n = plan.decisions.len() as u64;
    let one = |i: u64| {
        plan.run(engine, i)
            .map_err(|e| CliError::msg(e.to_string()))
    };
    let mut results = Vec::with_capacity(plan.units() as usize);
    let cubes: Vec<(u64, UnitResult)> = engine.pool.install(|| {
        (0..n as usize)
            .into_par_iter()
            .with_max_len(1)
            .map(|i| i as u64)
            .filter(|&i| plan.is_cube(i))
            .map(|i| one(i).map(|r| (i, r)))
            .collect::<Result<_, CliError>>()
    })?;
    let mut cubes = cubes.into_iter().peekable();
    for i in 0..n {
        match cubes.next_if(|(j, _)| *j == i) {
            Some((_, r)) => results.push(r),
            None => results.push(one(i)?),
        }
    }
    let luck_start = Instant::now();
    let rolls: Vec<UnitResult> = engine.pool.install(|| {
        (n as usize..plan.units() as usize)
            .into_par_iter()
            .with_max_len(1)
            .map(|i| one(i as u64))
            .collect::<Result<_, CliError>>()
    })?;
    results.extend(rolls);
    Ok(Evaluated {
        results,
        luck_seconds: luck_start.elapsed().as_secs_f64(),
        threads: engine.pool.current_num_threads(),
    })
}

/// The decisions (in file order) and the luck of every roll, from the units'
/// results.
pub fn assemble(
    plan: &AnalysisPlan<'_>,
    results: Vec<UnitResult>,
) -> Result<(Vec<Decision>, Vec<RollLuck>), CliError> {
    if results.len() as u64 != plan.units() {
        return Err(CliError::msg(format!(
            "{} unit results for an analysis of {} units",
            results.len(),
            plan.units()
        )));
    }
    let mut results = results.into_iter();
    let mut decisions = Vec::with_capacity(plan.decisions.len());
    for (d, r) in plan.decisions.iter().zip(results.by_ref()) {
        let UnitResult::Decision(rating) = r else {
            return Err(CliError::msg("a roll's luck where a decision was expected"));
        };
        let a = d.action;
        let dice = match a.kind {
            ActionKind::Move { dice, .. } | ActionKind::Rolled { dice } => Some(dice),
            _ => None,
        };
        decisions.push(Decision {
            game: d.game.number,
            move_no: d.move_no,
            player: a.player,
            kind: d.kind,
            position: gnubg_id(plan.m, d, dice.map(|d| d.values())),
            dice: dice.filter(|_| d.kind == Kind::Chequer).map(|d| {
                let (x, y) = d.values();
                [x, y]
            }),
            rated: rating.rated,
            forced: rating.forced,
            counted: rating.counted,
            luck: None,
            board: a.position,
            cube: a.cube,
            score: d.game.score,
            crawford: d.game.crawford,
            on_roll: on_roll(a),
        });
    }
    let rolls = results
        .map(|r| match r {
            UnitResult::Roll(l) => Ok(l),
            UnitResult::Decision(_) => Err(CliError::msg("a decision where a roll was expected")),
        })
        .collect::<Result<_, _>>()?;
    Ok((decisions, rolls))
}
