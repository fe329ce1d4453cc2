//! The embedded run of a rollout plan: the engine's [`Waves`] release a wave of
//! batches at a time (as the coordinator does for its workers), the wave's batches
//! run on a rayon pool and their results are fed back in batch order, so the
//! totals, and where stop rules end the rollout, are those of any thread count and
//! of a cluster.

use crate::cli::local_store::LocalStore;
use crate::cli::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::rollout::{
    run_batch, FirstPlyCache, RolloutJob, RolloutPlan, RolloutStats, TrialScratch, Waves,
};
use bgfarm_proto::convert::{stats_from_wire, stats_to_wire};
use bgfarm_proto::v1;
use prost::Message;
use rayon::prelude::*;

/// Runs `plan` with `eval` on `pool`, showing progress unless `quiet`; returns the
/// totals. With a `store` (`--data`), the stored first-move tables are loaded and
/// the new ones kept, and batches found there are not run and the
/// others are remembered.
pub fn run_local(
    plan: &RolloutPlan,
    eval: &NeuralEvaluator<'_>,
    pool: &rayon::ThreadPool,
    quiet: bool,
    mut store: Option<&mut LocalStore>,
) -> Result<RolloutStats, CliError> {
    let bar = bar(quiet, plan.trials, "trials")?;
    let cache = FirstPlyCache::default();
    let loaded = store.as_deref().map(|s| s.load_first_ply(plan, &cache));
    let mut tables_computed = 0;
    let mut waves = Waves::new(plan);
    let mut wave = Some(waves.wave());
    while let Some(batches) = wave {
        let active = waves.active();
        let mut results: Vec<Option<RolloutStats>> = Vec::new();
        for b in batches.clone() {
            let found = match store.as_deref_mut() {
                Some(s) => s.lookup(b, &plan.batch_range(b), active, decode)?,
                None => None,
            };
            if found.is_some() {
                let range = plan.batch_range(b);
                bar.inc(range.end - range.start);
            }
            results.push(found);
        }
        let missing: Vec<u64> = batches
            .clone()
            .filter(|&b| results[(b - batches.start) as usize].is_none())
            .collect();
        let computed: Vec<RolloutStats> = pool.install(|| {
            missing
                .par_iter()
                .map_init(
                    || TrialScratch::new(eval),
                    |scratch, &b| {
                        let range = plan.batch_range(b);
                        let n = range.end - range.start;
                        let r =
                            run_batch(&plan.job, eval, None, range, active, Some(&cache), scratch);
                        bar.inc(n);
                        r
                    },
                )
                .collect()
        });
        if let Some(s) = store.as_deref() {
            tables_computed += s.keep_first_ply(&cache)?;
        }
        for (b, r) in missing.into_iter().zip(computed) {
            if let Some(s) = store.as_deref_mut() {
                let bytes = stats_to_wire(&r).encode_to_vec();
                s.remember(b, &plan.batch_range(b), active, bytes)?;
            }
            results[(b - batches.start) as usize] = Some(r);
        }
        let results: Vec<RolloutStats> = results.into_iter().flatten().collect();
        wave = waves.finish_wave(&results);
        bar.set_message(leaders(&plan.job, waves.total()));
    }
    bar.finish_and_clear();
    if let Some(loaded) = loaded.filter(|&n| n + tables_computed > 0) {
        eprintln!("first-move tables: {loaded} found in the store, {tables_computed} computed");
    }
    Ok(waves.into_total())
}

/// A remembered batch result (a wire `BatchStats`), or `None` when unreadable.
fn decode(bytes: &[u8]) -> Option<RolloutStats> {
    stats_from_wire(&v1::BatchStats::decode(bytes).ok()?).ok()
}

/// The two best candidates so far, for the progress bar.
fn leaders(job: &RolloutJob, total: &RolloutStats) -> String {
    let mut v: Vec<(f64, f64, String)> = job
        .candidates
        .iter()
        .enumerate()
        .map(|(c, cand)| {
            let a = &total.per_candidate[c][5];
            (
                a.mean(),
                a.se().unwrap_or(f64::NAN),
                cand.label.clone().unwrap_or_else(|| "position".into()),
            )
        })
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    v.iter()
        .take(2)
        .map(|(e, se, l)| format!("{l} {e:+.3}±{se:.3}"))
        .collect::<Vec<_>>()
        .join("  ")
}
