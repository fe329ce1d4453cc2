//! What the searching commands (`hint`, and `bgfarm-lab`'s `bench hint` and
//! `filter-study`) share: the
//! evaluation options, checks on them, and ranking a decision with the plays spread
//! over a thread pool.
//!
//! Parallelism stays here, not in the engine: the engine's [`Searcher`] is one
//! thread's search, and [`run_ladder`] takes the evaluation of each stage as a
//! callback, which this module runs with rayon (one searcher per task, one shared
//! [`EvalCache`]). Each play's value is a pure function of the play, so the ranking
//! is bit-identical with any number of threads.

use super::nets::load_evaluator;
use super::race_args::RaceArgs;
use crate::CliError;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::search::{
    candidates, run_ladder, Candidate, EvalCache, Ladder, Leaf, MoveFilter, Pruning, Searcher,
};
use bgfarm_engine::{Dice, Position};
use rayon::prelude::*;

/// Deepest search the commands accept: a 3-ply search of one play costs ~200,000
/// network evaluations (about a second); 4-ply would take ~20 times that.
pub const MAX_PLY: u8 = 3;

/// Options of the searching commands.
#[derive(clap::Args, Clone, Debug)]
pub struct EvalArgs {
    /// Nets: `default` (built in), `fast` (the built-in one-layer nets), a .safetensors
    /// bundle, or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Inside the search, rank each roll's replies by the nets' equity linearized at
    /// the position (PubEval above 16) and re-score only the best K with the nets; 0
    /// scores every reply with the nets (slower, no pruning).
    #[arg(long, default_value_t = Pruning::DEFAULT.keep, value_name = "K")]
    pub prune: u8,
    /// Worker threads (default: one per core). Never changes a result.
    #[arg(long)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub race: RaceArgs,
}

/// The evaluator, cache and pool the options name.
pub struct Engine {
    pub eval: NeuralEvaluator<'static>,
    pub fingerprint: u64,
    pub prune: Pruning,
    pub cache: Option<EvalCache>,
    pub pool: rayon::ThreadPool,
}

impl EvalArgs {
    /// Loads the nets, allocates a cache of `cache_mib` MiB (none for 0) and starts
    /// the pool.
    pub fn engine(&self, cache_mib: usize) -> Result<Engine, CliError> {
        if self.threads == Some(0) {
            return Err(CliError::msg("--threads must be at least 1"));
        }
        if cache_mib > 64 * 1024 {
            return Err(CliError::msg(format!(
                "--cache-mib {cache_mib} is more than 64 GiB"
            )));
        }
        let mut eval = load_evaluator(&self.net)?;
        if let Some(e) = self.race.endgame()? {
            eval.endgame = Some(e);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .map_err(|e| CliError::msg(format!("cannot start the worker threads: {e}")))?;
        Ok(Engine {
            fingerprint: Leaf::Neural(&eval).fingerprint(),
            eval,
            prune: Pruning { keep: self.prune },
            cache: (cache_mib > 0).then(|| EvalCache::with_mib(cache_mib)),
            pool,
        })
    }
}

/// The `--cache-mib` option of the commands that use the cache.
#[derive(clap::Args, Clone, Debug)]
pub struct CacheArgs {
    /// Evaluation cache size in MiB, shared by the threads; 0 for none. Never changes
    /// a result.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    pub cache_mib: usize,
}

/// Checks a `--ply` value.
pub fn check_ply(ply: u8) -> Result<u8, CliError> {
    if ply > MAX_PLY {
        return Err(CliError::msg(format!(
            "--ply {ply} is too deep: use 0 to {MAX_PLY} (GNU Backgammon's numbering, 0 = the raw nets)"
        )));
    }
    Ok(ply)
}

/// Parses a `--filter` value.
pub fn parse_filter(text: &str) -> Result<MoveFilter, CliError> {
    MoveFilter::parse(text).map_err(|e| CliError::msg(e.to_string()))
}

impl Engine {
    /// A searcher for the current thread.
    pub fn searcher(&self) -> Searcher<'_> {
        Searcher::with_fingerprint(
            &self.eval,
            self.fingerprint,
            self.prune,
            self.cache.as_ref(),
        )
    }

    /// Every play of `dice` in `pos` ranked by a `depth`-ply search through `ladder`,
    /// the plays of each stage evaluated in parallel on the pool.
    pub fn rank_parallel(
        &self,
        pos: &Position,
        dice: Dice,
        depth: u8,
        ladder: &Ladder,
    ) -> Vec<Candidate> {
        let mut cands = candidates(pos, dice);
        self.pool.install(|| {
            run_ladder(&mut cands, depth, ladder, |slice, p| {
                if p == 0 {
                    // ~1 microsecond a play: not worth a task each.
                    let mut s = self.searcher();
                    for c in slice {
                        s.evaluate_candidate(c, 0);
                    }
                    return;
                }
                slice
                    .par_iter_mut()
                    .with_max_len(1)
                    .for_each_init(|| self.searcher(), |s, c| s.evaluate_candidate(c, p));
            });
        });
        cands
    }
}

/// The command line's engine runs an analysis with the candidates of each play
/// ranked on its pool.
impl bgfarm_engine::analysis::Analyst for Engine {
    fn rank(&self, pos: &Position, dice: Dice, depth: u8, ladder: &Ladder) -> Vec<Candidate> {
        self.rank_parallel(pos, dice, depth, ladder)
    }

    fn searcher(&self) -> Searcher<'_> {
        Engine::searcher(self)
    }

    fn evaluator(&self) -> &bgfarm_engine::eval::neural::NeuralEvaluator<'_> {
        &self.eval
    }
}
