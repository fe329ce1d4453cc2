//! `bgfarm duel --a PLAYER --b PLAYER --games N --seed S [--threads T] [--json]`:
//! cubeless money games between two players with duplicate dice, reporting A's points
//! per game with its standard error.
//!
//! Games are played in pairs on the same dice with the seats swapped (see
//! `bgfarm_engine::play`). Pairs are independent, so they run on all cores; their
//! statistics are exact integer sums merged in pair order, so the output (apart from
//! the timing) is bit-identical whatever the thread count.

use super::players::player_by_name;
use super::CliError;
use bgfarm_engine::play::{play_pair, DuelStats};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Player A, whose side the results are reported from: pubeval, random, default
    /// or a .safetensors net file.
    #[arg(long)]
    pub a: String,
    /// Player B: pubeval, random, default or a .safetensors net file.
    #[arg(long)]
    pub b: String,
    /// Number of games: even and at least 2, as games come in duplicate pairs.
    #[arg(long)]
    pub games: u64,
    /// Dice seed: the same seed replays the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: one per core). Does not change the results.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` output. Rates are fractions of all games; the `gammon_*` rates count
/// backgammons too.
#[derive(Serialize)]
struct JsonOut<'a> {
    a: &'a str,
    b: &'a str,
    seed: u64,
    games: u64,
    pairs: u64,
    /// A's mean points per game.
    ppg: f64,
    /// Standard error of `ppg`, over duplicate pairs (null with a single pair).
    se: Option<f64>,
    /// The SE as if games were independent: compare with `se` to see how much noise
    /// the duplicate dice cancel.
    se_unpaired: Option<f64>,
    win_rate: f64,
    /// Games that ended in a gammon or backgammon, either side.
    gammon_rate: f64,
    /// Games that ended in a backgammon, either side.
    backgammon_rate: f64,
    gammon_won_rate: f64,
    gammon_lost_rate: f64,
    backgammon_won_rate: f64,
    backgammon_lost_rate: f64,
    turns_per_game: f64,
    threads: usize,
    seconds: f64,
    games_per_second: f64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.games < 2 || !args.games.is_multiple_of(2) {
        return Err(CliError::msg(format!(
            "--games must be even and at least 2 (games are played in duplicate pairs), got {}",
            args.games
        )));
    }
    if args.threads == Some(0) {
        return Err(CliError::msg("--threads must be at least 1"));
    }
    let a = player_by_name(&args.a)?;
    let b = player_by_name(&args.b)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .map_err(|e| CliError::msg(format!("cannot start the worker threads: {e}")))?;
    let pairs = args.games / 2;
    let start = Instant::now();
    let stats = pool.install(|| duel(&*a, &*b, args.seed, pairs));
    let seconds = start.elapsed().as_secs_f64();
    let games_per_second = stats.games as f64 / seconds.max(1e-9);
    let threads = pool.current_num_threads();

    if args.json {
        let out = JsonOut {
            a: &args.a,
            b: &args.b,
            seed: args.seed,
            games: stats.games,
            pairs: stats.pairs,
            ppg: stats.ppg(),
            se: stats.se(),
            se_unpaired: stats.se_unpaired(),
            win_rate: stats.win_rate(),
            gammon_rate: stats.gammon_won_rate() + stats.gammon_lost_rate(),
            backgammon_rate: stats.backgammon_won_rate() + stats.backgammon_lost_rate(),
            gammon_won_rate: stats.gammon_won_rate(),
            gammon_lost_rate: stats.gammon_lost_rate(),
            backgammon_won_rate: stats.backgammon_won_rate(),
            backgammon_lost_rate: stats.backgammon_lost_rate(),
            turns_per_game: stats.turns as f64 / stats.games as f64,
            threads,
            seconds,
            games_per_second,
        };
        println!("{}", serde_json::to_string(&out)?);
    } else {
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        let se = stats
            .se()
            .map_or_else(|| "n/a".to_string(), |s| format!("{s:.3}"));
        println!(
            "{} (A) vs {} (B): {} games ({} duplicate pairs), seed {}",
            args.a, args.b, stats.games, stats.pairs, args.seed
        );
        println!(
            "A ppg:        {:+.3} ± {se} (standard error over duplicate pairs)",
            stats.ppg()
        );
        println!("A wins:       {}", pct(stats.win_rate()));
        println!(
            "gammons:      won {}, lost {} (backgammons included)",
            pct(stats.gammon_won_rate()),
            pct(stats.gammon_lost_rate())
        );
        println!(
            "backgammons:  won {}, lost {}",
            pct(stats.backgammon_won_rate()),
            pct(stats.backgammon_lost_rate())
        );
        println!(
            "speed:        {games_per_second:.0} games/s ({seconds:.2} s on {threads} threads)"
        );
    }
    Ok(())
}

/// Plays pairs `0..pairs` on the current rayon pool. The reduction merges adjacent
/// ranges in pair order, and [`DuelStats`] holds exact integer sums, so the totals
/// do not depend on how rayon splits the work.
fn duel(
    a: &dyn bgfarm_engine::eval::Player,
    b: &dyn bgfarm_engine::eval::Player,
    seed: u64,
    pairs: u64,
) -> DuelStats {
    (0..pairs)
        .into_par_iter()
        .map(|p| play_pair(a, b, seed, p))
        .reduce(DuelStats::default, DuelStats::merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::eval::pubeval::PubEval;
    use bgfarm_engine::play::{play_duel, RandomPlayer};

    #[test]
    fn thread_count_does_not_change_the_totals() {
        let (a, b) = (PubEval, RandomPlayer::default());
        let serial = play_duel(&a, &b, 3, 40);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| duel(&a, &b, 3, 40)), serial, "{threads}");
        }
    }
}
