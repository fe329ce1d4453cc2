//! `bgfarm match-sim --length L --a STRATEGY --b STRATEGY --matches N [--seed S]
//! [--luck] [--json]`: complete matches (or cubeful money games with `--length 0`)
//! between two cube strategies sharing the built-in 0-ply chequer player, with
//! duplicate dice; reports A's points per match (+1 win, -1 loss; money: points per
//! game) with its standard error over duplicate pairs, A's win rate, games per match,
//! the average final cube and the gammon rate.
//!
//! `--chequer match` plays the chequers for the match-winning chance at the score
//! and cube instead of the cubeless equity (`bgfarm_engine::matchsim::chequer`);
//! `--met keith:measured` builds Keith's table from the chequer player's measured
//! gammon rate (`sim_table`); `--met-a`/`--met-b` give a player a table of its own
//! (its cube decisions and match-aware plays; the luck is still measured with
//! `--met`), so players reading different tables can meet: `--a janowski-match
//! --met-a janowski:x=0.68 --b janowski-match` (B on `--met`).
//!
//! Pairs run on all cores in fixed chunks folded in pair order, so the output (apart
//! from the timing) is bit-identical whatever the thread count, and also on a
//! cluster (`--coordinator URL`, see `remote_sim`).

use super::local_store::LocalStore;
use super::nets::load_evaluator;
use super::plan_errors::sim_flag_error;
use super::sim_flags::SimFlags;
use super::sim_memo::run_with_store;
use super::sim_table::sim_table;
use super::threads::pool;
use super::CliError;
use bgfarm_client::{Access, RemoteArgs};
use bgfarm_engine::batches::split_batches;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::eval::Evaluator;
use bgfarm_engine::matchsim::chunk::{chunks, fold_chunk, fold_totals};
use bgfarm_engine::matchsim::plan::DEFAULT_SIM_BATCH;
use bgfarm_engine::matchsim::{play_pair, ChequerPlay, CubeStrategy, SimPlan, SimSpec, SimStats};
use bgfarm_engine::met::MatchEquityTable;
use bgfarm_proto::matchsim::sim_plan_to_wire;
use bgfarm_report::sim_summary;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Match length (1 to 64); 0 plays cubeful money games.
    #[arg(long)]
    pub length: u32,
    /// Player A's cube strategy (results are A's): janowski-match:x=0.7,
    /// janowski-match-capped:x=0.7, janowski-money:x=0.7, janowski-capped:x=0.7,
    /// jump:sigma=0.09, jump-match:sigma=0.09 or jump-match:sigma=auto.
    #[arg(long)]
    pub a: String,
    /// Player B's cube strategy.
    #[arg(long)]
    pub b: String,
    /// Number of matches: even and at least 2 (duplicate pairs).
    #[arg(long)]
    pub matches: u64,
    /// Dice seed: the same seed replays the same matches.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measure the luck of every roll and report luck-adjusted results too (about
    /// 20 times slower, much smaller standard errors).
    #[arg(long)]
    pub luck: bool,
    /// Money play (length 0): the Jacoby rule.
    #[arg(long)]
    pub jacoby: bool,
    #[command(flatten)]
    pub sim: SimFlags,
    /// Player A's own match equity table (any --met name); default: --met's.
    #[arg(long)]
    pub met_a: Option<String>,
    /// Player B's own match equity table; default: --met's.
    #[arg(long)]
    pub met_b: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// With --coordinator or --data: duplicate pairs per batch (a multiple of 16).
    /// Does not change the results; 64 pairs of 7-point matches are ~1 s on one
    /// core.
    #[arg(long, default_value_t = DEFAULT_SIM_BATCH)]
    pub batch: u64,
    /// Embedded run: keep batch results in the store in this directory (created
    /// when missing). The same simulation again is answered from it, one with more
    /// --matches (and the same --batch) plays only the new batches, bit-identical
    /// to a fresh run. Off by default.
    #[arg(long, conflicts_with = "coordinator")]
    pub data: Option<std::path::PathBuf>,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    a: String,
    b: String,
    length: u32,
    seed: u64,
    matches: u64,
    pairs: u64,
    /// A's mean points per match (+1 win, -1 loss); money: per game.
    ppm: f64,
    /// Standard error of `ppm` over duplicate pairs.
    se: Option<f64>,
    /// Luck-adjusted `ppm` and its standard error (null without `--luck`).
    adjusted_ppm: Option<f64>,
    adjusted_se: Option<f64>,
    win_rate: f64,
    avg_games: f64,
    avg_cube: f64,
    gammon_rate: f64,
    backgammon_rate: f64,
    /// Games ended by a passed double.
    drop_rate: f64,
    doubles_per_game: f64,
    turns_per_game: f64,
    met: &'a str,
    /// The players' own tables, when given (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    met_a: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    met_b: Option<&'a str>,
    /// The chequer rule when not the default `cubeless` (absent otherwise, so the
    /// output of a default run is what it always was).
    #[serde(skip_serializing_if = "Option::is_none")]
    chequer: Option<&'static str>,
    threads: usize,
    seconds: f64,
}

/// Plays pairs `0..pairs` on the current rayon pool, folded as
/// [`bgfarm_engine::matchsim::chunk`] fixes (what cluster workers do batch by batch).
pub fn run_pairs(spec: &SimSpec<'_>, eval: &dyn Evaluator, pairs: u64) -> SimStats {
    fold_pairs(pairs, |p| play_pair(spec, eval, p))
}

/// Runs `pair(p)` for `p` in `0..pairs` on the current rayon pool and folds the
/// results chunk by chunk in pair order, whatever the scheduling.
pub fn fold_pairs(pairs: u64, pair: impl Fn(u64) -> SimStats + Sync) -> SimStats {
    let parts: Vec<SimStats> = chunks(0..pairs)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|c| fold_chunk(c, &pair))
        .collect();
    fold_totals(&parts)
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.matches < 2 || args.matches & 1 == 1 {
        return Err(CliError::msg(format!(
            "--matches must be even and at least 2 (matches are played in duplicate pairs), got {}",
            args.matches
        )));
    }
    let a = CubeStrategy::parse(&args.a)?;
    let b = CubeStrategy::parse(&args.b)?;
    let chequer = args.sim.chequer(ChequerPlay::Cubeless)?;
    let pool = pool(args.sim.threads)?;
    let own = |name: &Option<String>, flag: &str| -> Result<Option<MatchEquityTable>, CliError> {
        name.as_deref()
            .map(|n| {
                sim_table(n, &args.sim.net, &pool)
                    .map_err(|e| CliError::msg(format!("{flag}: {e}")))
            })
            .transpose()
    };
    let own_mets = [own(&args.met_a, "--met-a")?, own(&args.met_b, "--met-b")?];
    let plan = SimPlan {
        a,
        b,
        length: args.length,
        met: args.sim.table(&pool)?,
        own_mets,
        jacoby: args.jacoby,
        luck: args.luck,
        seed: args.seed,
        chequer,
        pairs: args.matches / 2,
        batch: args.batch,
    };
    plan.validate().map_err(sim_flag_error)?;
    let (a, b, met) = (plan.a, plan.b, &plan.met);
    let eval = load_evaluator(&args.sim.net)?;
    let start = Instant::now();
    let (stats, threads) = match &args.remote.coordinator {
        Some(url) => {
            let access = Access::for_default_nets(&args.sim.net, &args.remote)?;
            let fp = fingerprint(&eval).to_string();
            super::remote_sim::match_sim(url, &access, args.json, &plan, &fp)?
        }
        None => {
            let stats = match &args.data {
                Some(dir) => {
                    let fp = fingerprint(&eval).to_string();
                    let spec = sim_plan_to_wire(&plan, &fp);
                    let batches = split_batches(plan.pairs, plan.batch).len() as u64;
                    let mut store = LocalStore::open(dir, spec, &fp, batches)?;
                    let stats = run_with_store(&plan, &eval, &pool, &mut store)?;
                    store.finish()?;
                    stats
                }
                None => pool.install(|| run_pairs(&plan.spec(), &eval, plan.pairs)),
            };
            (stats, pool.current_num_threads())
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let games = stats.games as f64;
    if args.json {
        let out = JsonOut {
            a: a.to_string(),
            b: b.to_string(),
            length: args.length,
            seed: args.seed,
            matches: stats.matches,
            pairs: stats.pairs,
            ppm: stats.ppm(),
            se: stats.se(),
            adjusted_ppm: args.luck.then(|| stats.adjusted_ppm()),
            adjusted_se: if args.luck { stats.adjusted_se() } else { None },
            win_rate: stats.win_rate(),
            avg_games: stats.avg_games(),
            avg_cube: stats.avg_cube(),
            gammon_rate: stats.gammon_rate(),
            backgammon_rate: stats.backgammons as f64 / games,
            drop_rate: stats.drops as f64 / games,
            doubles_per_game: stats.doubles as f64 / games,
            turns_per_game: stats.turns as f64 / games,
            met: met.name(),
            met_a: plan.own_mets[0].as_ref().map(MatchEquityTable::name),
            met_b: plan.own_mets[1].as_ref().map(MatchEquityTable::name),
            chequer: (chequer != ChequerPlay::Cubeless).then_some(chequer.as_str()),
            threads,
            seconds,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let what = if args.length == 0 {
        "money games".to_string()
    } else {
        format!("{}-point matches", args.length)
    };
    println!(
        "{a} (A) vs {b} (B): {} {what} ({} duplicate pairs), seed {}",
        stats.matches, stats.pairs, args.seed
    );
    if chequer != ChequerPlay::Cubeless {
        println!("chequer play: {chequer}");
    }
    for (who, own) in ["A", "B"].iter().zip(&plan.own_mets) {
        if let Some(t) = own {
            println!(
                "{who}'s table: {} (the other's and the luck's: {})",
                t.name(),
                met.name()
            );
        }
    }
    for (label, value) in sim_summary::lines(&stats, args.length, args.luck) {
        println!("{}", sim_summary::text_line(&label, &value));
    }
    println!(
        "speed:        {:.0} games/s ({seconds:.2} s on {} threads)",
        games / seconds.max(1e-9),
        threads
    );
    Ok(())
}
