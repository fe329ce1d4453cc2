//! `bgfarm study ...`: grids of match simulations with their reports.
//!
//! - `cube-life --lengths 3,5,7,9 --x 0,0.25,0.5,0.75,1 --baseline 0.7
//!   [--model janowski-match-capped] --matches N --out DIR`: each (length, x) cell plays
//!   `model:x=X` (A) against `model:x=BASELINE` (B); writes `cube_life.csv`, a table
//!   with a parabola fit of A's points per match against x per length and the
//!   optimal x with its standard error (`cube_life.txt`, also printed), and
//!   `cube_life.svg` (points with error bars and the fits).
//! - `money-cube-life --x ... --baseline 0.7 [--model janowski-capped] --matches N
//!   --out DIR`: the same for cubeful money games (points per game),
//!   `money_cube_life.*`. The default model caps the live curve at the cash
//!   (`engine::cube::janowski` docs): with it, 80,000 games per cell reproduce
//!   Higgins's table (x = 0, 0.25, 0.5, 0.75, 1 against 0.7, nets of November 30:
//!   -0.355, -0.163, -0.043, +0.000, -0.090 ppg, SE <= 0.009, optimal x = 0.679 +-
//!   0.007; his -0.30, -0.14, -0.04, 0.00, -0.09).
//! - `games-per-match --lengths 1..25 --x 0.5,0.7,0.9 --matches N --out DIR`: both
//!   players `model:x=X`; average games per match and its ratio to the length
//!   (`games_per_match.csv`, `.txt`, `.svg`).
//! - `match-vs-money --lengths ... --x ... --matches N --out DIR`: match-aware
//!   against money Janowski at the same x ([`match_vs_money`]).
//!
//! The cube-life fits (`--fit free|zero|both`, `--fit-window LO..HI`) are in
//! [`fit`]; `--chequer match` plays each cell's chequers for the match-winning
//! chance, `--met keith:measured` uses Keith's table at the measured gammon rate.
//!
//! Every cell uses the same seed: the cells share their dice (common random
//! numbers), so differences between x values are measured more precisely than
//! independent runs would. Each cell's result is the deterministic `match-sim` job
//! with that spec.
//!
//! Every study runs in-process or, with `--coordinator URL`, as one study job on a
//! cluster, and resumes after a kill from the cells stored in `--out DIR/cells`
//! ([`runner`]); the files are the same bytes either way. Wall times go to stderr
//! only, so the files of two runs compare equal.

mod cache;
mod cube_life;
mod fit;
mod games;
mod match_vs_money;
pub mod runner;
mod values;

use super::sim_flags::SimFlags;
use super::threads::pool;
use super::CliError;
use bgfarm_client::RemoteArgs;
use bgfarm_engine::matchsim::plan::DEFAULT_SIM_BATCH;
use bgfarm_engine::matchsim::{ChequerPlay, CubeStrategy, SimPlan};
use bgfarm_engine::met::MatchEquityTable;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub kind: Kind,
}

#[derive(clap::Subcommand)]
pub enum Kind {
    /// Cube life index in matches: model:x against model:baseline per length, with
    /// parabola fits of the optimal x.
    CubeLife(CubeLifeArgs),
    /// Cube life index in money play (cubeful money games, points per game).
    MoneyCubeLife(MoneyArgs),
    /// Average games per match by match length and cube life index.
    GamesPerMatch(GamesArgs),
    /// Match-aware Janowski against money Janowski with the same cube life index,
    /// per match length and x: what knowing the score is worth.
    MatchVsMoney(match_vs_money::MatchVsMoneyArgs),
}

/// Options every study shares.
#[derive(clap::Args)]
pub struct Common {
    /// Matches (money: games) per cell: even, at least 2.
    #[arg(long)]
    pub matches: u64,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Dice seed, shared by every cell.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Luck-adjust the results (about 20 times slower per game).
    #[arg(long)]
    pub luck: bool,
    #[command(flatten)]
    pub sim: SimFlags,
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// With --coordinator: duplicate pairs per batch (a multiple of 16). Does not
    /// change the results; 64 pairs of 7-point matches are ~1 s on one core.
    #[arg(long, default_value_t = DEFAULT_SIM_BATCH)]
    pub batch: u64,
}

#[derive(clap::Args)]
pub struct CubeLifeArgs {
    /// Match lengths: `3,5,7,9` or a range `1..25`.
    #[arg(long)]
    pub lengths: String,
    /// Cube life indices of A: `0,0.25,0.5,0.75,1`.
    #[arg(long, allow_hyphen_values = true)]
    pub x: String,
    /// B's cube life index.
    #[arg(long, default_value_t = 0.7)]
    pub baseline: f64,
    /// Cube model of both players: janowski-match-capped (match-aware Janowski with
    /// the live curve capped at the cash, as money-cube-life's default, so x = 1
    /// still doubles and cashes), janowski-match (uncapped: never doubles at x = 1
    /// once gammons exist), janowski-money, janowski-capped, jump or jump-match (the
    /// jump model in match play; x converted to sigma).
    #[arg(long, default_value = "janowski-match-capped")]
    pub model: String,
    #[command(flatten)]
    pub fit: fit::FitArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct MoneyArgs {
    /// Cube life indices of A: `0,0.25,0.5,0.75,1`.
    #[arg(long, allow_hyphen_values = true)]
    pub x: String,
    /// B's cube life index.
    #[arg(long, default_value_t = 0.7)]
    pub baseline: f64,
    /// Cube model of both players: janowski-capped (Janowski with the live curve
    /// capped at the cash: the model of Higgins's 2012 money study, whose x = 1
    /// still doubles and cashes), janowski-money (the uncapped mix, GNU Backgammon's
    /// form, degenerate at x = 1: it never doubles there once gammons exist) or jump.
    #[arg(long, default_value = "janowski-capped")]
    pub model: String,
    #[command(flatten)]
    pub fit: fit::FitArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct GamesArgs {
    /// Match lengths: `1..25` or `3,5,7`.
    #[arg(long)]
    pub lengths: String,
    /// Cube life indices (both players): `0.5,0.7,0.9`.
    #[arg(long, allow_hyphen_values = true)]
    pub x: String,
    /// Cube model of both players.
    #[arg(long, default_value = "janowski-match")]
    pub model: String,
    #[command(flatten)]
    pub common: Common,
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.kind {
        Kind::CubeLife(a) => {
            let lengths = parse_lengths(&a.lengths)?;
            if lengths.contains(&0) {
                return Err(CliError::msg(
                    "--lengths must be 1 to 64; use `study money-cube-life` for money play",
                ));
            }
            cube_life::run(
                &lengths,
                &a.x,
                a.baseline,
                &a.model,
                &a.fit.options()?,
                &a.common,
            )
        }
        Kind::MoneyCubeLife(a) => {
            let fit = a.fit.options()?;
            cube_life::run(&[0], &a.x, a.baseline, &a.model, &fit, &a.common)
        }
        Kind::GamesPerMatch(a) => games::run(&a),
        Kind::MatchVsMoney(a) => match_vs_money::run(&a),
    }
}

/// `3,5,7` or `1..25` (inclusive).
pub fn parse_lengths(text: &str) -> Result<Vec<u32>, CliError> {
    let bad = || CliError::msg(format!("bad --lengths {text:?}: use 3,5,7,9 or 1..25"));
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Some((a, b)) = part.split_once("..") {
            let a: u32 = a.trim().parse().map_err(|_| bad())?;
            let b: u32 = b.trim().parse().map_err(|_| bad())?;
            if a > b {
                return Err(bad());
            }
            out.extend(a..=b);
        } else {
            out.push(part.parse().map_err(|_| bad())?);
        }
    }
    if out.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

/// `0,0.25,0.5`: cube life indices in [0, 1].
pub fn parse_xs(text: &str) -> Result<Vec<f64>, CliError> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let x: f64 = part
            .parse()
            .map_err(|_| CliError::msg(format!("bad --x {text:?}: {part:?} is not a number")))?;
        if !(0.0..=1.0).contains(&x) {
            return Err(CliError::msg(format!(
                "bad --x {text:?}: cube life indices are 0 to 1"
            )));
        }
        out.push(x);
    }
    if out.is_empty() {
        return Err(CliError::msg("--x needs at least one value"));
    }
    Ok(out)
}

/// A cell's strategy `model:x=X`: the strategy parser knows the models; `--model`
/// names one alone, its x coming from the grid.
fn strategy(model: &str, x: f64) -> Result<CubeStrategy, CliError> {
    if model.contains([':', ',', '=']) {
        return Err(CliError::msg(format!(
            "--model {model:?}: name the model alone (x comes from --x / --baseline)"
        )));
    }
    CubeStrategy::parse(&format!("{model}:x={x}"))
        .map_err(|e| CliError::msg(format!("--model: {e}")))
}

/// The table of a study's cells, once `--matches` is checked.
/// The table and the chequer play of a study (`chequer`: its default).
fn table(c: &Common, chequer: ChequerPlay) -> Result<(MatchEquityTable, ChequerPlay), CliError> {
    if c.matches < 2 || c.matches & 1 == 1 {
        return Err(CliError::msg(format!(
            "--matches must be even and at least 2 (duplicate pairs), got {}",
            c.matches
        )));
    }
    Ok((c.sim.table(&pool(c.sim.threads)?)?, c.sim.chequer(chequer)?))
}

/// A cell's plan: A, B and the length with the shared options.
fn sim_plan(
    c: &Common,
    met: &MatchEquityTable,
    chequer: ChequerPlay,
    a: CubeStrategy,
    b: CubeStrategy,
    length: u32,
) -> SimPlan {
    SimPlan {
        a,
        b,
        length,
        met: met.clone(),
        own_mets: [None, None],
        jacoby: false,
        luck: c.luck,
        seed: c.seed,
        chequer,
        pairs: c.matches / 2,
        batch: c.batch,
    }
}

/// Writes the study's files `name.csv`, `.txt` and `.svg` into `dir` and prints
/// the table.
fn write_report(dir: &Path, name: &str, csv: &str, txt: &str, svg: &str) -> Result<(), CliError> {
    for (ext, text) in [("csv", csv), ("txt", txt), ("svg", svg)] {
        let path = dir.join(format!("{name}.{ext}"));
        std::fs::write(&path, text)
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))?;
    }
    print!("{txt}");
    println!(
        "wrote {name}.csv, {name}.txt, {name}.svg in {}",
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(parse_lengths("3,5, 7").unwrap(), vec![3, 5, 7]);
        assert_eq!(parse_lengths("1..4,9").unwrap(), vec![1, 2, 3, 4, 9]);
        assert!(parse_lengths("5..1").is_err());
        assert!(parse_lengths("a").is_err());
        assert_eq!(parse_xs("0,0.5,1").unwrap(), vec![0.0, 0.5, 1.0]);
        assert!(parse_xs("1.5").is_err());
        assert!(parse_xs("").is_err());
        assert!(strategy("gnubg", 0.5).is_err());
        assert!(strategy("jump", 0.7).is_ok());
    }
}
