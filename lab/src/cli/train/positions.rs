//! `bgfarm-lab train positions | races`: the positions of the supervised
//! pipeline, from self-play games of the current nets or random races with
//! gammons at stake.

use super::files::{create, io_err};
use super::threads::pool;
use super::which_nets::Nets;
use crate::cli::nets::load_training_evaluator as load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::races::{race_positions, RaceKind};
use bgfarm_engine::rng::Rng;
use bgfarm_engine::Position;
use bgfarm_lab::train::supervised::{self as sup, Exploration};
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct PositionsArgs {
    /// Nets that play the games: `default`, a .safetensors bundle or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Self-play games to play.
    #[arg(long, default_value_t = 10_000)]
    pub games: u64,
    /// Index of the first game (game g rolls from stream g of the seed).
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Chance that a move is drawn from the best few instead of being the best.
    #[arg(long, default_value_t = Exploration::default().rate)]
    pub explore_rate: f32,
    /// How many of the best moves an exploratory move is drawn from.
    #[arg(long, default_value_t = Exploration::default().top)]
    pub explore_top: usize,
    /// Chance that a roll's candidates (the position after each legal play) are kept
    /// too: positions a move choice must rank that good play never reaches.
    #[arg(long, default_value_t = Exploration::default().candidates)]
    pub candidates: f32,
    /// Games with random moves: each game draws one chance from this list (for
    /// example `0,0,0.05,0.15,0.3,0.6,1`, the mix GNU Backgammon's bench was drawn
    /// with) and plays a uniformly random legal move with it, else as above.
    #[arg(long, value_delimiter = ',')]
    pub random_moves: Vec<f32>,
    /// Keep only the positions one net answers.
    #[arg(long, value_enum, default_value_t = Nets::Both)]
    pub class: Nets,
    /// Output file: one position ID per line.
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: one per core). Never changes the output.
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(clap::Args)]
pub struct RacesArgs {
    /// What is at stake: `backgammon` (the side behind still has checkers in the
    /// other's home board) or `gammon` (it has borne off nothing).
    #[arg(long, value_enum)]
    pub kind: RaceKindArg,
    /// Positions to write.
    #[arg(long, default_value_t = 10_000)]
    pub count: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file: one position ID per line.
    #[arg(long)]
    pub out: PathBuf,
}

/// `--kind` of `bgfarm-lab train races`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RaceKindArg {
    Backgammon,
    Gammon,
}

pub fn positions(a: PositionsArgs) -> Result<(), CliError> {
    if !(0.0..=1.0).contains(&a.explore_rate)
        || !(0.0..=1.0).contains(&a.candidates)
        || a.explore_top == 0
    {
        return Err(CliError::msg(
            "--explore-rate and --candidates must be in 0..1 and --explore-top at least 1",
        ));
    }
    if a.random_moves.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return Err(CliError::msg("--random-moves chances must be in 0..1"));
    }
    let eval = load_evaluator(&a.net)?;
    let pool = pool(a.threads)?;
    let explore = Exploration {
        rate: a.explore_rate,
        top: a.explore_top,
        candidates: a.candidates,
        random: 0.0,
    };
    let mix = &a.random_moves;
    let mut out = create(&a.out)?;
    let mut seen: HashSet<[u8; 10]> = HashSet::new();
    let (mut total, mut kept) = (0usize, 0usize);
    let start = Instant::now();
    const CHUNK: u64 = 2000;
    let mut done = 0u64;
    while done < a.games {
        let n = CHUNK.min(a.games - done);
        let first = a.first_game + done;
        let games: Vec<Vec<Position>> = pool.install(|| {
            (first..first + n)
                .into_par_iter()
                .map(|g| {
                    let explore = Exploration {
                        random: random_chance(mix, a.seed, g),
                        ..explore
                    };
                    sup::selfplay_positions(&eval, a.seed, g, explore)
                })
                .collect()
        });
        for pos in games.iter().flatten() {
            total += 1;
            if a.class.answers(&eval, pos) && seen.insert(position_id::key(pos)) {
                kept += 1;
                writeln!(out, "{}", position_id::encode(pos)).map_err(io_err(&a.out))?;
            }
        }
        done += n;
        eprintln!(
            "games {done:>8}  positions {total:>9}  distinct {kept:>9}  {:.0} games/s",
            done as f64 / start.elapsed().as_secs_f64()
        );
    }
    out.flush().map_err(io_err(&a.out))?;
    println!(
        "{kept} distinct positions ({total} seen) from {} games in {:.0} s -> {}",
        a.games,
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}

/// Game `g`'s chance of a random move: drawn from `mix` by a stream of its own, so
/// the games' dice are those of the same seed without `--random-moves`.
fn random_chance(mix: &[f32], seed: u64, g: u64) -> f32 {
    if mix.is_empty() {
        return 0.0;
    }
    let mut rng = Rng::for_stream(seed ^ 0x7a6e_d0f1_5c3b_9e21, g);
    mix[rng.below(mix.len() as u32) as usize]
}

/// `bgfarm-lab train races`: random races with gammons or backgammons at stake (see
/// `bgfarm_engine::races`), one position ID per line.
pub fn races(a: RacesArgs) -> Result<(), CliError> {
    let kind = match a.kind {
        RaceKindArg::Backgammon => RaceKind::Backgammon,
        RaceKindArg::Gammon => RaceKind::Gammon,
    };
    let mut out = create(&a.out)?;
    for pos in race_positions(kind, a.seed, a.count) {
        writeln!(out, "{}", position_id::encode(&pos)).map_err(io_err(&a.out))?;
    }
    out.flush().map_err(io_err(&a.out))?;
    println!("{} {:?} races -> {}", a.count, a.kind, a.out.display());
    Ok(())
}
