//! `bgfarm analyse --rollout-threshold E`: the errors of at least E EMG at n-ply
//! rolled out (embedded, or on `--coordinator`, where the workers share them; with
//! `--rollout-data DIR` the batches are kept and a second analysis reuses them).
//!
//! - Chequer errors: the played and the best play of each, all in one job, cubeless
//!   (money equity of each play for the mover) unless `--rollout-cubeful`: a check
//!   of which play is better by playing the games out, next to the n-ply figure.
//! - Cube errors: both branches of the decision (no double, double/take), always
//!   cubeful at the decision's cube and score (match equities from the Kazaross-XG2
//!   table, as `bgfarm rollout --cubeful`), one job per score; the proper action and
//!   what the played one loses come from the rolled-out values, by the rule of the
//!   n-ply rating (`cube_choice_loss`). A double and the answer to it share one
//!   rollout.
//!
//! The dice depend only on the seed and the trial, so each decision's figures are
//! those of rolling it out alone.

use super::{Decision, Kind};
use crate::cli::rollout::{self, roll_out_plays, ItemRollout};
use crate::cli::CliError;
use bgfarm_client::RemoteArgs;
use bgfarm_engine::analysis::rate::{cube_choice_loss, emg_per_unit, ALSO};
use bgfarm_engine::analysis::units::setting_of;
use bgfarm_engine::matchfile::Match;
use bgfarm_engine::Dice;
use bgfarm_report::rollout_rows::JsonCubeDecision;
use clap::Parser;
use serde::Serialize;

#[derive(clap::Args, Clone, Debug)]
pub struct RolloutFlags {
    /// Roll out every error of at least this many EMG (at --ply): of a chequer play
    /// the played and the best play, in one job; of a cube action both branches (no
    /// double, double/take), cubeful. Off by default.
    #[arg(long, value_name = "EMG")]
    pub rollout_threshold: Option<f64>,
    /// Plays rolled out per decision: the played one, the best and then the next
    /// best at --ply (2 to 4).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub rollout_moves: usize,
    /// Trials per play of those rollouts.
    #[arg(long, default_value_t = 1296)]
    pub rollout_trials: u64,
    /// Cubeful rollouts of the chequer errors, at each decision's cube and score
    /// (money equity per cube, or MWC in a match), one job per score; cubeless
    /// otherwise. Cube errors are always rolled out cubeful.
    #[arg(long)]
    pub rollout_cubeful: bool,
    /// Chequer ply of the rollouts' play (as `bgfarm rollout --ply`).
    #[arg(long, default_value_t = 0)]
    pub rollout_ply: u8,
    #[arg(long, default_value_t = 1)]
    pub rollout_seed: u64,
    /// Keep the rollouts' batches in this store directory (embedded run): the same
    /// analysis again reuses them.
    #[arg(long, value_name = "DIR", conflicts_with = "coordinator")]
    pub rollout_data: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// One play's rollout figures.
#[derive(Serialize, Clone, Debug)]
pub struct PlayFigures {
    #[serde(rename = "move")]
    pub notation: String,
    pub equity: f64,
    pub equity_se: f64,
    /// `--rollout-cubeful`: the cubeful value (money equity per cube, or MWC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cubeful: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cubeful_se: Option<f64>,
}

/// A decision rolled out: its index among the decisions, the played and the best play.
#[derive(Serialize, Clone, Debug)]
pub struct RolledOut {
    pub game: u32,
    #[serde(rename = "move")]
    pub move_no: u32,
    pub position: String,
    pub dice: [u8; 2],
    pub played: PlayFigures,
    pub best: PlayFigures,
    /// The next best plays at n-ply, when `--rollout-moves` asks for more than 2.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<PlayFigures>,
    pub trials: u64,
}

/// A cube action rolled out: the doubler's cubeful values of both branches (money
/// equity per cube, or MWC), the proper choice by them and what the played one lost.
#[derive(Serialize, Clone, Debug)]
pub struct CubeRolledOut {
    pub game: u32,
    #[serde(rename = "move")]
    pub move_no: u32,
    /// Who decided (the taker at a take or drop); the reports give the name.
    #[serde(skip_serializing)]
    pub player: u8,
    /// `no_double`, `double`, `take` or `drop`: the choice made.
    pub played: &'static str,
    /// The best choice by the rollout.
    pub best: &'static str,
    pub position: String,
    /// The rolled-out values (the doubler's) and the proper action by them.
    #[serde(flatten)]
    pub decision: JsonCubeDecision,
    /// EMG the played choice lost by the rollout's values (>= 0).
    pub error: f64,
    /// The same in MWC (match play).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_mwc: Option<f64>,
    pub trials: u64,
}

/// What [`roll_out`] rolled out.
#[derive(Default)]
pub struct Rolled {
    pub plays: Vec<RolledOut>,
    pub cubes: Vec<CubeRolledOut>,
}

/// The command line the rollout module reads, built from these flags (its other
/// options keep their defaults).
#[derive(Parser)]
struct Wrap {
    #[command(flatten)]
    args: rollout::Args,
}

/// `cubeful`: the rollouts at the decisions' cube and score, with `m`'s Jacoby rule
/// in money play (the position IDs do not carry it).
fn rollout_args(
    f: &RolloutFlags,
    net: &str,
    cubeful: bool,
    m: &Match,
) -> Result<rollout::Args, CliError> {
    let mut argv: Vec<String> = [
        "rollout",
        "--positions",
        "-",
        "--trials",
        &f.rollout_trials.to_string(),
        "--ply",
        &f.rollout_ply.to_string(),
        "--seed",
        &f.rollout_seed.to_string(),
        "--net",
        net,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if cubeful {
        argv.push("--cubeful".into());
        if m.length == 0 && m.jacoby {
            argv.push("--jacoby".into());
        }
    }
    if let Some(dir) = &f.rollout_data {
        argv.push("--data".into());
        argv.push(dir.to_string_lossy().into_owned());
    }
    let mut args = Wrap::try_parse_from(argv)
        .map_err(|e| CliError::msg(format!("rollout flags: {}", e.kind())))?
        .args;
    args.remote = f.remote.clone();
    Ok(args)
}

/// Rolls out the decisions of `m` over the threshold (none without one).
pub fn roll_out(
    f: &RolloutFlags,
    net: &str,
    m: &Match,
    decisions: &[Decision],
) -> Result<Rolled, CliError> {
    let Some(threshold) = f.rollout_threshold else {
        return Ok(Rolled::default());
    };
    if !(threshold.is_finite() && threshold >= 0.0) {
        return Err(CliError::msg(format!(
            "--rollout-threshold {threshold}: give an error in EMG, 0 or more"
        )));
    }
    let extra = f
        .rollout_moves
        .checked_sub(2)
        .filter(|&n| n <= ALSO)
        .ok_or_else(|| {
            CliError::msg(format!(
                "--rollout-moves {}: use 2 to {}",
                f.rollout_moves,
                2 + ALSO
            ))
        })?;
    let over = |d: &&Decision| {
        d.rated.error.is_some_and(|e| e >= threshold) && d.rated.played != d.rated.best
    };
    let plays: Vec<&Decision> = decisions
        .iter()
        .filter(|d| d.kind == Kind::Chequer && !d.forced)
        .filter(over)
        .collect();
    let cubes: Vec<&Decision> = decisions
        .iter()
        .filter(|d| matches!(d.kind, Kind::Cube(_)))
        .filter(over)
        .collect();
    Ok(Rolled {
        plays: roll_out_chequer(f, net, m, &plays, extra)?,
        cubes: roll_out_cube(f, net, m, &cubes)?,
    })
}

/// The chequer errors' rollouts: the played, the best and `extra` more plays.
fn roll_out_chequer(
    f: &RolloutFlags,
    net: &str,
    m: &Match,
    chosen: &[&Decision],
    extra: usize,
) -> Result<Vec<RolledOut>, CliError> {
    let chosen: Vec<(&Decision, Dice)> = chosen
        .iter()
        .filter_map(|d| {
            let [a, b] = d.dice?;
            Some((*d, Dice::new(a, b)?))
        })
        .collect();
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let items: Vec<(String, Option<Dice>, Option<String>)> = chosen
        .iter()
        .map(|(d, dice)| {
            let mut moves = vec![d.rated.played.as_str(), d.rated.best.as_str()];
            moves.extend(d.rated.also.iter().take(extra).map(String::as_str));
            (d.position.clone(), Some(*dice), Some(moves.join(",")))
        })
        .collect();
    let args = rollout_args(f, net, f.rollout_cubeful, m)?;
    let rolled = roll_out_plays(&args, &items)?;
    let figures =
        |r: Option<&bgfarm_report::rollout_rows::JsonCandidate>, fallback: &str| PlayFigures {
            notation: r
                .and_then(|r| r.notation.clone())
                .unwrap_or_else(|| fallback.into()),
            equity: r.map_or(f64::NAN, |r| r.equity),
            equity_se: r.map_or(f64::NAN, |r| r.equity_se),
            cubeful: r.and_then(|r| r.cubeful_equity),
            cubeful_se: r.and_then(|r| r.cubeful_se),
        };
    Ok(chosen
        .iter()
        .zip(rolled)
        .map(|((d, dice), ItemRollout { rows, .. })| {
            let (a, b) = dice.values();
            RolledOut {
                game: d.game,
                move_no: d.move_no,
                position: d.position.clone(),
                dice: [a, b],
                played: figures(rows.first(), &d.rated.played),
                best: figures(rows.get(1), &d.rated.best),
                others: d
                    .rated
                    .also
                    .iter()
                    .take(extra)
                    .enumerate()
                    .map(|(i, m)| figures(rows.get(2 + i), m))
                    .collect(),
                trials: f.rollout_trials,
            }
        })
        .collect())
}

/// The cube errors' rollouts: one per cube decision (a double and its answer share
/// it), cubeful, both branches.
fn roll_out_cube(
    f: &RolloutFlags,
    net: &str,
    m: &Match,
    chosen: &[&Decision],
) -> Result<Vec<CubeRolledOut>, CliError> {
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    // One rollout per (game, move): the first decision's ID stands for both.
    let mut spots: Vec<(u32, u32)> = Vec::new();
    let mut items: Vec<(String, Option<Dice>, Option<String>)> = Vec::new();
    for d in chosen {
        if !spots.contains(&(d.game, d.move_no)) {
            spots.push((d.game, d.move_no));
            items.push((d.position.clone(), None, None));
        }
    }
    let args = rollout_args(f, net, true, m)?;
    let rolled = roll_out_plays(&args, &items)?;
    let met = bgfarm_engine::rollout::cubeful::met();
    let mut out = Vec::new();
    for d in chosen {
        let Kind::Cube(choice) = d.kind else {
            continue;
        };
        let k = spots
            .iter()
            .position(|&s| s == (d.game, d.move_no))
            .ok_or_else(|| CliError::msg("a cube decision without its rollout"))?;
        // No rollout verdict: the player could not double (the n-ply rating then
        // rates nothing either).
        let Some(c) = &rolled[k].cube else {
            continue;
        };
        let set = setting_of(m, d.score, d.crawford, d.cube, d.on_roll)
            .map_err(|e| CliError::msg(format!("game {} move {}: {e}", d.game, d.move_no)))?;
        let (best, loss) = cube_choice_loss(choice, c.no_double, c.double_take, c.double_pass);
        out.push(CubeRolledOut {
            game: d.game,
            move_no: d.move_no,
            player: d.player,
            played: choice.as_str(),
            best,
            position: items[k].0.clone(),
            decision: c.clone(),
            error: loss * emg_per_unit(&set, Some(met)),
            error_mwc: set.score.is_some().then_some(loss),
            trials: f.rollout_trials,
        });
    }
    Ok(out)
}
