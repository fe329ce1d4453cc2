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
//! The cube-life fits (`--fit free|zero|both`, `--fit-window LO..HI`): `study_fit`.
//!
//! Every cell uses the same seed: the cells share their dice (common random
//! numbers), so differences between x values are measured more precisely than
//! independent runs would. Each cell's result is the deterministic `match-sim` job
//! with that spec.

mod match_vs_money;

use super::matchsim::fold_pairs;
use super::nets::load_evaluator;
use super::plan_errors::sim_flag_error;
use super::sim_table::sim_table;
use super::study_fit::{fit_lines, FitArgs, FitOptions};
use super::svg::{chart, Series};
use super::threads::pool;
use super::CliError;
use bgfarm_engine::eval::Evaluator;
use bgfarm_engine::matchsim::plan::DEFAULT_SIM_BATCH;
use bgfarm_engine::matchsim::{
    play_pair, play_pair_symmetric, ChequerPlay, CubeStrategy, SimPlan, SimStats,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    /// Match equity table for match-aware strategies: kazaross-xg2, keith:G=0.26,
    /// keith:measured (Keith's live-cube table for the chequer player's measured
    /// gammon rate) or a GNU Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub met: String,
    /// Chequer player's nets.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Chequer play: `cubeless` (best cubeless equity) or `match` (best cubeful
    /// match-winning chance at the score and cube, the mover's cube life index).
    #[arg(long, default_value = "cubeless")]
    pub chequer: String,
    /// Worker threads (default: one per core). Does not change the results.
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(clap::Args)]
pub struct CubeLifeArgs {
    /// Match lengths: `3,5,7,9` or a range `1..25`.
    #[arg(long)]
    pub lengths: String,
    /// Cube life indices of A: `0,0.25,0.5,0.75,1`.
    #[arg(long)]
    pub x: String,
    /// B's cube life index.
    #[arg(long, default_value_t = 0.7)]
    pub baseline: f64,
    /// Cube model of both players: janowski-match-capped (match-aware Janowski with
    /// the live curve capped at the cash, as money-cube-life's default, so x = 1
    /// still doubles and cashes), janowski-match (uncapped: never doubles at x = 1
    /// once gammons exist), janowski-money, janowski-capped or jump (x converted to
    /// sigma).
    #[arg(long, default_value = "janowski-match-capped")]
    pub model: String,
    #[command(flatten)]
    pub fit: FitArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct MoneyArgs {
    /// Cube life indices of A: `0,0.25,0.5,0.75,1`.
    #[arg(long)]
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
    pub fit: FitArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct GamesArgs {
    /// Match lengths: `1..25` or `3,5,7`.
    #[arg(long)]
    pub lengths: String,
    /// Cube life indices (both players): `0.5,0.7,0.9`.
    #[arg(long)]
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
            let fit = a.fit.options()?;
            cube_life(
                &lengths,
                &a.x,
                a.baseline,
                &a.model,
                &fit,
                &a.common,
                "cube_life",
            )
        }
        Kind::MoneyCubeLife(a) => cube_life(
            &[0],
            &a.x,
            a.baseline,
            &a.model,
            &a.fit.options()?,
            &a.common,
            "money_cube_life",
        ),
        Kind::GamesPerMatch(a) => games_per_match(&a),
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

/// The plans of the cells (A, B, length) with the shared options, every one
/// validated before any runs; then the pool and the output directory.
pub(super) fn prepare(
    c: &Common,
    cells: &[(CubeStrategy, CubeStrategy, u32)],
) -> Result<(Vec<SimPlan>, rayon::ThreadPool), CliError> {
    if c.matches < 2 || c.matches & 1 == 1 {
        return Err(CliError::msg(format!(
            "--matches must be even and at least 2 (duplicate pairs), got {}",
            c.matches
        )));
    }
    let chequer =
        ChequerPlay::parse(&c.chequer).map_err(|e| CliError::msg(format!("--chequer: {e}")))?;
    let pool = pool(c.threads)?;
    let met = sim_table(&c.met, &c.net, &pool)?;
    let mut plans = Vec::with_capacity(cells.len());
    for &(a, b, length) in cells {
        let plan = SimPlan {
            a,
            b,
            length,
            met: met.clone(),
            jacoby: false,
            luck: c.luck,
            seed: c.seed,
            chequer,
            pairs: c.matches / 2,
            batch: DEFAULT_SIM_BATCH,
        };
        plan.validate().map_err(sim_flag_error)?;
        plans.push(plan);
    }
    std::fs::create_dir_all(&c.out)
        .map_err(|e| CliError::msg(format!("cannot create {}: {e}", c.out.display())))?;
    Ok((plans, pool))
}

pub(super) fn write(dir: &Path, name: &str, text: &str) -> Result<(), CliError> {
    let path = dir.join(name);
    std::fs::write(&path, text)
        .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))
}

/// One finished cell.
struct Cell {
    length: u32,
    x: f64,
    stats: SimStats,
    seconds: f64,
}

impl Cell {
    /// The value studied and its SE: luck-adjusted when measured.
    fn value(&self, luck: bool) -> (f64, f64) {
        value(&self.stats, luck)
    }
}

/// A cell's value and its SE: luck-adjusted when `luck`.
pub(super) fn value(s: &SimStats, luck: bool) -> (f64, f64) {
    if luck {
        (s.adjusted_ppm(), s.adjusted_se().unwrap_or(f64::NAN))
    } else {
        (s.ppm(), s.se().unwrap_or(f64::NAN))
    }
}

/// The CSV columns of a cell's results, as [`stats_csv`] writes them.
pub(super) const STATS_CSV_HEADER: &str =
    "matches,ppm,se,adjusted_ppm,adjusted_se,win_rate,avg_games,avg_cube,gammon_rate";

/// A cell's results as CSV fields ([`STATS_CSV_HEADER`]); the luck-adjusted ones
/// are empty unless `luck`.
pub(super) fn stats_csv(s: &SimStats, luck: bool) -> String {
    let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
    let (adjusted, adjusted_se) = if luck {
        (format!("{:.6}", s.adjusted_ppm()), opt(s.adjusted_se()))
    } else {
        (String::new(), String::new())
    };
    format!(
        "{},{:.6},{},{adjusted},{adjusted_se},{:.6},{:.4},{:.4},{:.4}",
        s.matches,
        s.ppm(),
        opt(s.se()),
        s.win_rate(),
        s.avg_games(),
        s.avg_cube(),
        s.gammon_rate()
    )
}

/// Runs one cell's plan on `pool`; `symmetric` (A and B alike) plays each pair's
/// first match only ([`play_pair_symmetric`]).
pub(super) fn run_cell(
    plan: &SimPlan,
    eval: &dyn Evaluator,
    pool: &rayon::ThreadPool,
    symmetric: bool,
) -> (SimStats, f64) {
    let start = Instant::now();
    let spec = &plan.spec();
    let pairs = plan.pairs;
    let stats = pool.install(|| {
        if symmetric {
            fold_pairs(pairs, |p| play_pair_symmetric(spec, eval, p))
        } else {
            fold_pairs(pairs, |p| play_pair(spec, eval, p))
        }
    });
    (stats, start.elapsed().as_secs_f64())
}

fn cube_life(
    lengths: &[u32],
    xs: &str,
    baseline: f64,
    model: &str,
    fit: &FitOptions,
    c: &Common,
    prefix: &str,
) -> Result<(), CliError> {
    let xs = parse_xs(xs)?;
    if !(0.0..=1.0).contains(&baseline) {
        return Err(CliError::msg(format!(
            "--baseline must be 0 to 1, got {baseline}"
        )));
    }
    let b = strategy(model, baseline)?;
    let mut grid = Vec::new();
    for &length in lengths {
        for &x in &xs {
            grid.push((strategy(model, x)?, b, length));
        }
    }
    let (plans, pool) = prepare(c, &grid)?;
    let eval = load_evaluator(&c.net)?;
    let money = lengths == [0];
    let unit = if money { "ppg" } else { "ppm" };
    let mut cells = Vec::new();
    // The grid is length-major: the x values cycle within each length.
    for (plan, &x) in plans.iter().zip(xs.iter().cycle()) {
        let length = plan.length;
        let (stats, seconds) = run_cell(plan, &eval, &pool, false);
        let cell = Cell {
            length,
            x,
            stats,
            seconds,
        };
        let (v, se) = cell.value(c.luck);
        eprintln!(
            "{}x = {x}: {unit} {v:+.4} ± {se:.4} ({} matches, {seconds:.1} s)",
            if money {
                String::new()
            } else {
                format!("{length}-point, ")
            },
            stats.matches
        );
        cells.push(cell);
    }
    // CSV.
    let mut csv = format!("length,x,baseline,{STATS_CSV_HEADER},seconds\n");
    for cell in &cells {
        let _ = writeln!(
            csv,
            "{},{},{baseline},{},{:.2}",
            cell.length,
            cell.x,
            stats_csv(&cell.stats, c.luck),
            cell.seconds
        );
    }
    // Table and fits.
    let what = if c.luck {
        format!("{unit}, luck-adjusted")
    } else {
        unit.to_string()
    };
    let mut txt = format!(
        "{model}: A at x against B at x = {baseline}; A's {what} ± SE; {} {} per cell, seed {}\n\n",
        c.matches,
        if money { "games" } else { "matches" },
        c.seed
    );
    let _ = write!(txt, "{:>8}", "x");
    for &l in lengths {
        let _ = write!(
            txt,
            " {:>18}",
            if money {
                "money".to_string()
            } else {
                format!("{l}-point")
            }
        );
    }
    txt.push('\n');
    for &x in &xs {
        let _ = write!(txt, "{x:>8}");
        for &l in lengths {
            if let Some(cell) = cells.iter().find(|k| k.length == l && k.x == x) {
                let (v, se) = cell.value(c.luck);
                let _ = write!(txt, " {:>18}", format!("{v:+.4} ± {se:.4}"));
            }
        }
        txt.push('\n');
    }
    txt.push('\n');
    let mut series = Vec::new();
    for &l in lengths {
        let pts: Vec<(f64, f64, f64)> = cells
            .iter()
            .filter(|k| k.length == l)
            .map(|k| {
                let (v, se) = k.value(c.luck);
                (k.x, v, se)
            })
            .collect();
        let name = if money {
            "money".to_string()
        } else {
            format!("{l}-point")
        };
        let fits = fit_lines(&name, &pts, baseline, fit);
        for f in &fits {
            let _ = writeln!(txt, "{}", f.line);
        }
        // The first form asked for is drawn.
        let curve = fits.into_iter().next().map(|f| f.curve).unwrap_or_default();
        series.push(Series {
            name,
            points: pts,
            curve,
        });
    }
    let svg = chart(
        &format!("{model}: A at x vs B at x = {baseline}"),
        "cube life index x of A",
        &format!("A's {what}"),
        &series,
    );
    write(&c.out, &format!("{prefix}.csv"), &csv)?;
    write(&c.out, &format!("{prefix}.txt"), &txt)?;
    write(&c.out, &format!("{prefix}.svg"), &svg)?;
    print!("{txt}");
    println!(
        "wrote {prefix}.csv, {prefix}.txt, {prefix}.svg in {}",
        c.out.display()
    );
    Ok(())
}

fn games_per_match(a: &GamesArgs) -> Result<(), CliError> {
    let lengths = parse_lengths(&a.lengths)?;
    if lengths.contains(&0) {
        return Err(CliError::msg("--lengths must be 1 to 64"));
    }
    let xs = parse_xs(&a.x)?;
    let c = &a.common;
    let mut grid = Vec::new();
    for &length in &lengths {
        for &x in &xs {
            let s = strategy(&a.model, x)?;
            grid.push((s, s, length));
        }
    }
    // Game counts only: the luck adjustment is not needed.
    let (mut plans, pool) = prepare(c, &grid)?;
    for p in &mut plans {
        p.luck = false;
    }
    let eval = load_evaluator(&c.net)?;
    let mut csv = String::from("length,x,matches,avg_games,se,games_per_point,avg_cube,seconds\n");
    let mut txt = format!(
        "Games per match, both players {}:x; {} matches per cell, seed {}\n\n{:>7}",
        a.model, c.matches, c.seed, "length"
    );
    for &x in &xs {
        let _ = write!(txt, " {:>24}", format!("x = {x}: games (per point)"));
    }
    txt.push('\n');
    let mut series: Vec<Series> = xs
        .iter()
        .map(|x| Series {
            name: format!("x = {x}"),
            points: Vec::new(),
            curve: Vec::new(),
        })
        .collect();
    // One row of plans per length, one plan per x.
    for (row, &length) in plans.chunks(xs.len()).zip(&lengths) {
        let _ = write!(txt, "{length:>7}");
        for (i, (plan, &x)) in row.iter().zip(&xs).enumerate() {
            let (stats, seconds) = run_cell(plan, &eval, &pool, true);
            let g = stats.avg_games();
            let se = stats.avg_games_se().unwrap_or(f64::NAN);
            let ratio = g / f64::from(length);
            eprintln!("{length}-point, x = {x}: {g:.3} ± {se:.3} games ({seconds:.1} s)");
            let _ = writeln!(
                csv,
                "{length},{x},{},{g:.4},{se:.4},{ratio:.4},{:.4},{seconds:.2}",
                stats.matches,
                stats.avg_cube()
            );
            let _ = write!(txt, " {:>24}", format!("{g:.3} ± {se:.3} ({ratio:.3})"));
            series[i].points.push((f64::from(length), g, se));
            series[i].curve.push((f64::from(length), g));
        }
        txt.push('\n');
    }
    let svg = chart(
        &format!("Games per match ({})", a.model),
        "match length",
        "average games per match",
        &series,
    );
    write(&c.out, "games_per_match.csv", &csv)?;
    write(&c.out, "games_per_match.txt", &txt)?;
    write(&c.out, "games_per_match.svg", &svg)?;
    print!("{txt}");
    println!(
        "wrote games_per_match.csv, games_per_match.txt, games_per_match.svg in {}",
        c.out.display()
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
