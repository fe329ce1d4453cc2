//! The match equity table of a simulation (`match-sim --met`, every `study --met`):
//! the names [`load_table`] knows, plus `keith:measured` (also `live`): Tom Keith's
//! live-cube table built from the gammon rate of the simulation's own chequer
//! player, so the table and the players agree on how often games end in gammons.
//!
//! The rate is measured on [`GAMMON_RATE_GAMES`] cubeless self-play games of the
//! chequer player (`--net`, 0-ply, both sides; dice seed [`GAMMON_RATE_SEED`], fixed
//! so the same nets always build the same table), counting gammons and backgammons
//! of either side, and rounded to [`GAMMON_RATE_DIGITS`] decimals (its standard
//! error, about 0.004 at G = 0.26, is ten times that). The built-in nets give
//! G = 0.266 (release build, about 6 s on 2 cores); the table is named
//! `Keith live-cube G=0.266`.

use super::met::{is_measured, load_table};
use super::nets::load_evaluator;
use super::CliError;
use bgfarm_engine::eval::Greedy;
use bgfarm_engine::met::MatchEquityTable;
use bgfarm_engine::play::game::play_indexed;
use rayon::prelude::*;

/// Self-play games the gammon rate is measured on: 10,000 (about 6 s on 2 cores).
pub const GAMMON_RATE_GAMES: u64 = 10_000;
/// Dice seed of the measurement.
pub const GAMMON_RATE_SEED: u64 = 1;
/// Decimals the measured rate is rounded to.
pub const GAMMON_RATE_DIGITS: i32 = 3;

/// The table named by `spec` for a simulation whose chequer player is `net`,
/// measuring the gammon rate on `pool` when asked to (one line on stderr says the
/// rate and how it was measured).
pub fn sim_table(
    spec: &str,
    net: &str,
    pool: &rayon::ThreadPool,
) -> Result<MatchEquityTable, CliError> {
    if !is_measured(spec) {
        return load_table(spec);
    }
    let (g, games) = measured_gammon_rate(net, GAMMON_RATE_GAMES, pool)?;
    eprintln!(
        "--met {}: gammon rate G = {g} of {net} nets in {games} cubeless self-play games \
         (seed {GAMMON_RATE_SEED}): Keith's live-cube table for it",
        spec.trim()
    );
    Ok(MatchEquityTable::keith(g)?)
}

/// The share of `games` cubeless self-play games of `net` that end in a gammon or
/// backgammon, rounded as the module docs say, with the number of games.
pub fn measured_gammon_rate(
    net: &str,
    games: u64,
    pool: &rayon::ThreadPool,
) -> Result<(f64, u64), CliError> {
    let player = Greedy(load_evaluator(net)?);
    // Each dice stream's first game only: with one player in both seats the
    // seat-swapped game is its mirror image.
    let gammons: u64 = pool.install(|| {
        (0..games)
            .into_par_iter()
            .map(|g| u64::from(play_indexed(&player, &player, GAMMON_RATE_SEED, 2 * g).gammon))
            .sum()
    });
    let scale = 10f64.powi(GAMMON_RATE_DIGITS);
    let rate = (gammons as f64 / games.max(1) as f64 * scale).round() / scale;
    Ok((rate, games))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_a_small_measurement() {
        assert!(is_measured("keith:measured") && is_measured(" LIVE "));
        assert!(!is_measured("keith:G=0.26") && !is_measured("kazaross-xg2"));
        let pool = super::super::threads::pool(Some(2)).unwrap();
        let (g, n) = measured_gammon_rate("fast", 40, &pool).unwrap();
        assert_eq!(n, 40);
        assert!((0.05..0.6).contains(&g), "{g}");
        // Deterministic: the same games again.
        assert_eq!(measured_gammon_rate("fast", 40, &pool).unwrap().0, g);
        // Other names go to the table loader.
        let k = sim_table("keith:G=0.26", "fast", &pool).unwrap();
        assert_eq!(k, MatchEquityTable::keith(0.26).unwrap());
        assert!(sim_table("nope", "fast", &pool).is_err());
    }
}
