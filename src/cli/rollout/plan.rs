//! The rollout plan of the command line: candidates (the position, the chosen
//! moves of a roll, or both branches of a cube decision), trial settings, trial
//! count, batch size and stop rules, checked by the engine's one
//! [`RolloutPlan::validate`] and its errors worded with the flags.

use super::args::Args;
use crate::cli::input::PositionInput;
use crate::cli::plan_errors::rollout_flag_error;
use crate::cli::CliError;
use bgfarm_engine::cube::Cube;
use bgfarm_engine::eval::after_move;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::notation::{format_move, parse_move};
use bgfarm_engine::rollout::{
    Candidate, CubeRules, CubeStart, Luck, RolloutJob, RolloutPlan, StopRules, TrialSettings,
};
use bgfarm_engine::{Dice, Move, MoveGenerator, Position};

/// The plan of `args` for position `input` (rolling out the moves of `dice`, if
/// given), validated.
pub fn build(
    args: &Args,
    input: &PositionInput,
    eval: &NeuralEvaluator<'_>,
    dice: Option<Dice>,
) -> Result<RolloutPlan, CliError> {
    // The luck flags first: their errors come before any other.
    luck(args)?;
    let cube = cube_setup(args, input)?;
    let (candidates, rules) = candidates_of(eval, input, dice, &args.moves, cube)?;
    let settings = settings(args, rules)?;
    plan_of(args, candidates, settings)
}

/// The candidates of `input` (the moves `moves` of `dice`, or the position) and,
/// in a cubeful rollout (`cube`), the cube rules of the job they belong to.
pub(super) fn candidates_of(
    eval: &NeuralEvaluator<'_>,
    input: &PositionInput,
    dice: Option<Dice>,
    moves: &str,
    cube: Option<CubeSetup>,
) -> Result<(Vec<Candidate>, Option<CubeRules>), CliError> {
    let pos = input.position;
    let mut candidates = build_candidates(eval, &pos, dice, moves)?;
    let rules = cube.map(|c| {
        if dice.is_some() {
            // Move candidates start with the opponent on roll.
            for cand in &mut candidates {
                cand.cube = CubeStart {
                    cube: c.cube.flip(),
                    unit: c.cube.value,
                    no_double_first: false,
                };
            }
            c.rules.flipped()
        } else {
            candidates = cube_decision_candidates(&pos, &c);
            c.rules
        }
    });
    Ok((candidates, rules))
}

/// The validated plan of `candidates` with the flags' trials, batch and stop rules.
pub(super) fn plan_of(
    args: &Args,
    candidates: Vec<Candidate>,
    settings: TrialSettings,
) -> Result<RolloutPlan, CliError> {
    let plan = RolloutPlan {
        job: RolloutJob {
            candidates,
            seed: args.seed,
            settings,
        },
        trials: args.trials(),
        batch: args.batch,
        stop: StopRules {
            se_target: args.se_target,
            jsd: args.jsd.then_some((args.jsd_min, args.jsd_k)),
        },
    };
    plan.validate().map_err(rollout_flag_error)?;
    Ok(plan)
}

/// How the trials are played: the flags, with the cube `rules` of a cubeful rollout.
pub(super) fn settings(args: &Args, rules: Option<CubeRules>) -> Result<TrialSettings, CliError> {
    Ok(TrialSettings {
        luck: luck(args)?,
        truncate: args.truncate(),
        bearoff_truncation: !args.no_bearoff_truncation,
        cube: rules,
        chequer_ply: args.ply(),
        opponent_ply: args.opponent_ply.filter(|&p| p != args.ply()),
        cube_ply: args.cube_ply,
        late: args.late_from.zip(args.late_ply),
    })
}

/// The luck estimate of `--vr` and `--luck`.
fn luck(args: &Args) -> Result<Luck, CliError> {
    match (args.vr.as_str(), args.luck.as_str()) {
        ("off", _) => Ok(Luck::Off),
        ("on", "full") => Ok(Luck::Full),
        ("on", "ranked") => Ok(Luck::Ranked),
        ("on", "auto") => Ok(Luck::Auto),
        ("on", "searched") => Ok(Luck::Searched),
        ("on", other) => Err(CliError::msg(format!(
            "--luck {other:?}: use auto, full, ranked or searched"
        ))),
        (other, _) => Err(CliError::msg(format!("--vr {other:?}: use on or off"))),
    }
}

/// The candidates: the position itself, or the chosen moves of `dice`.
pub(super) fn build_candidates(
    eval: &NeuralEvaluator<'_>,
    pos: &Position,
    dice: Option<Dice>,
    spec: &str,
) -> Result<Vec<Candidate>, CliError> {
    let Some(dice) = dice else {
        return Ok(vec![Candidate::position(*pos)]);
    };
    let mut gen = MoveGenerator::new();
    let legal = gen.generate(pos, dice).to_vec();
    if legal.is_empty() {
        return Err(CliError::msg(format!(
            "no legal move with {dice}: nothing to compare"
        )));
    }
    let chosen = if spec == "all" {
        legal
    } else if let Some(n) = spec.strip_prefix("top:") {
        let n: usize = n.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
            CliError::msg(format!("--moves {spec:?}: N must be a positive number"))
        })?;
        let mut ranked: Vec<(f32, Move)> = legal
            .iter()
            .map(|m| (after_move(eval, m).equity(), *m))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranked.into_iter().take(n).map(|(_, m)| m).collect()
    } else {
        let mut out: Vec<Move> = Vec::new();
        for text in spec.split(',') {
            let m = parse_move(pos, dice, text)?;
            if !out.iter().any(|o| o.result() == m.result()) {
                out.push(m);
            }
        }
        out
    };
    Ok(chosen
        .iter()
        .map(|m| Candidate {
            label: Some(format_move(m)),
            start: m.next_position(),
            report_for_opponent: true,
            cube: CubeStart::default(),
        })
        .collect())
}

/// The cube and rules of a cubeful rollout, from the player on roll.
#[derive(Clone, Copy)]
pub(super) struct CubeSetup {
    cube: Cube,
    pub(super) rules: CubeRules,
}

impl CubeSetup {
    /// May the player on roll double now?
    fn may_double(&self) -> bool {
        self.rules.spot(self.cube).may_double()
    }
}

/// The cube setting of `--cubeful` (None for a cubeless rollout).
fn cube_setup(args: &Args, input: &PositionInput) -> Result<Option<CubeSetup>, CliError> {
    cube_setup_of(
        args,
        args.position.as_deref().unwrap_or_default(),
        args.match_id.as_deref(),
        input,
    )
}

/// The cube setting of `--cubeful` for position `typed` (read as `input`), with
/// the match ID `match_id` when given apart.
pub(super) fn cube_setup_of(
    args: &Args,
    typed: &str,
    match_id: Option<&str>,
    input: &PositionInput,
) -> Result<Option<CubeSetup>, CliError> {
    if !args.cubeful() {
        if args.jacoby || args.match_id.is_some() {
            return Err(CliError::msg(
                "--jacoby and --match-id apply to cubeful rollouts: add --cubeful",
            ));
        }
        return Ok(None);
    }
    let s = crate::cli::cube::setting_from(typed, match_id, input.match_state)?;
    let rules = match s.score {
        Some((_, score)) => {
            if args.jacoby {
                return Err(CliError::msg(
                    "the Jacoby rule is for money play, not matches",
                ));
            }
            CubeRules::Match { score }
        }
        None => CubeRules::Money {
            jacoby: args.jacoby || s.jacoby,
        },
    };
    Ok(Some(CubeSetup {
        cube: s.cube,
        rules,
    }))
}

/// A cube decision rolled out: "no double" (the cube held for the first turn) and,
/// when the player may double, "double/take" (cube turned, owned by the opponent).
fn cube_decision_candidates(pos: &Position, c: &CubeSetup) -> Vec<Candidate> {
    let mut out = vec![Candidate {
        label: Some("no double".into()),
        start: *pos,
        report_for_opponent: false,
        cube: CubeStart {
            cube: c.cube,
            unit: c.cube.value,
            no_double_first: true,
        },
    }];
    if c.may_double() {
        out.push(Candidate {
            label: Some("double/take".into()),
            start: *pos,
            report_for_opponent: false,
            cube: CubeStart {
                cube: c.cube.doubled(),
                unit: c.cube.value,
                no_double_first: false,
            },
        });
    }
    out
}
