//! `bgfarm analyse --rollout-threshold E`: the chequer errors of at least E EMG at
//! n-ply rolled out, the played and the best play of each, all of them in one
//! rollout job (embedded, or on `--coordinator`, where the workers share it; with
//! `--rollout-data DIR` the batches are kept and a second analysis reuses them).
//!
//! The rollouts are cubeless (money equity of each play for the mover, 0-ply play
//! unless `--rollout-ply`): a check of which play is better by playing the games
//! out, next to the n-ply figure, not a second EMG. Their dice depend only on the
//! seed and the trial, so each decision's figures are those of rolling it out alone.

use super::{Decision, Kind};
use crate::cli::rollout::{self, roll_out_plays};
use crate::cli::CliError;
use bgfarm_client::RemoteArgs;
use bgfarm_engine::analysis::rate::ALSO;
use bgfarm_engine::Dice;
use clap::Parser;
use serde::Serialize;

#[derive(clap::Args, Clone, Debug)]
pub struct RolloutFlags {
    /// Roll out every chequer error of at least this many EMG (at --ply): the played
    /// and the best play, in one job. Off by default.
    #[arg(long, value_name = "EMG")]
    pub rollout_threshold: Option<f64>,
    /// Plays rolled out per decision: the played one, the best and then the next
    /// best at --ply (2 to 4).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub rollout_moves: usize,
    /// Trials per play of those rollouts.
    #[arg(long, default_value_t = 1296)]
    pub rollout_trials: u64,
    /// Cubeful rollouts of the errors, at each decision's cube and score (money
    /// equity per cube, or MWC in a match), one job per score; cubeless otherwise.
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

/// The command line the rollout module reads, built from these flags (its other
/// options keep their defaults).
#[derive(Parser)]
struct Wrap {
    #[command(flatten)]
    args: rollout::Args,
}

fn rollout_args(f: &RolloutFlags, net: &str) -> Result<rollout::Args, CliError> {
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
    if f.rollout_cubeful {
        argv.push("--cubeful".into());
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

/// Rolls out the decisions over the threshold (none without one).
pub fn roll_out(
    f: &RolloutFlags,
    net: &str,
    decisions: &[Decision],
) -> Result<Vec<RolledOut>, CliError> {
    let Some(threshold) = f.rollout_threshold else {
        return Ok(Vec::new());
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
    let chosen: Vec<(&Decision, Dice)> = decisions
        .iter()
        .filter(|d| d.kind == Kind::Chequer && !d.forced)
        .filter(|d| d.rated.error.is_some_and(|e| e >= threshold))
        .filter(|d| d.rated.played != d.rated.best)
        .filter_map(|d| {
            let [a, b] = d.dice?;
            Some((d, Dice::new(a, b)?))
        })
        .collect();
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let items: Vec<(String, Dice, String)> = chosen
        .iter()
        .map(|(d, dice)| {
            let mut moves = vec![d.rated.played.as_str(), d.rated.best.as_str()];
            moves.extend(d.rated.also.iter().take(extra).map(String::as_str));
            (d.position.clone(), *dice, moves.join(","))
        })
        .collect();
    let args = rollout_args(f, net)?;
    let rows = roll_out_plays(&args, &items)?;
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
        .zip(rows)
        .map(|((d, dice), rows)| {
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
