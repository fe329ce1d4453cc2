//! `bgfarm match-sim --data DIR`: the embedded simulation cut into the batches a
//! coordinator would lease (`--batch` pairs each), each one looked up in the local
//! store before it is played and remembered after. A batch's result is its 16-pair
//! chunk totals, and the chunks of every batch folded in order are the chunks of
//! the whole run, so the totals equal a run without the store bit for bit.

use super::local_store::LocalStore;
use super::CliError;
use bgfarm_engine::batches::split_batches;
use bgfarm_engine::eval::Evaluator;
use bgfarm_engine::matchsim::chunk::{chunks, fold_totals, play_chunk};
use bgfarm_engine::matchsim::{SimPlan, SimStats};
use bgfarm_proto::matchsim::{totals_from_wire, totals_to_wire};
use bgfarm_proto::v1;
use prost::Message;
use rayon::prelude::*;

/// Runs `plan` with `eval` on `pool`, batch by batch through `store`; returns the
/// totals.
pub fn run_with_store(
    plan: &SimPlan,
    eval: &dyn Evaluator,
    pool: &rayon::ThreadPool,
    store: &mut LocalStore,
) -> Result<SimStats, CliError> {
    let batches = split_batches(plan.pairs, plan.batch);
    let mut per_batch: Vec<Option<Vec<SimStats>>> = Vec::with_capacity(batches.len());
    for (b, range) in batches.iter().enumerate() {
        per_batch.push(store.lookup(b as u64, range, &[], decode)?);
    }
    let missing: Vec<bool> = per_batch.iter().map(Option::is_none).collect();
    // Every chunk of the missing batches, played on the pool at once.
    let todo: Vec<(usize, std::ops::Range<u64>)> = batches
        .iter()
        .enumerate()
        .filter(|(b, _)| missing[*b])
        .flat_map(|(b, r)| chunks(r.clone()).map(move |c| (b, c)))
        .collect();
    let sim = plan.spec();
    let played: Vec<SimStats> = pool.install(|| {
        todo.par_iter()
            .map(|(_, c)| play_chunk(&sim, eval, c.clone()))
            .collect()
    });
    for ((b, _), chunk) in todo.iter().zip(played) {
        per_batch[*b].get_or_insert_with(Vec::new).push(chunk);
    }
    for (b, range) in batches.iter().enumerate() {
        if !missing[b] {
            continue;
        }
        let wire = v1::MatchSimStats {
            chunks: per_batch[b].iter().flatten().map(totals_to_wire).collect(),
        };
        store.remember(b as u64, range, &[], wire.encode_to_vec())?;
    }
    Ok(fold_totals(per_batch.iter().flatten().flatten()))
}

/// A remembered batch (a wire `MatchSimStats`), or `None` when unreadable.
fn decode(bytes: &[u8]) -> Option<Vec<SimStats>> {
    let w = v1::MatchSimStats::decode(bytes).ok()?;
    Some(w.chunks.iter().map(totals_from_wire).collect())
}
