//! The engine a worker runs: the nets built into the binary plus the exact bear-off
//! tables, the same evaluator `bgfarm rollout --net default` uses, so a worker's
//! fingerprint equals an embedded run's on the same machine type.

use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::net::load_bundle;
use bgfarm_engine::eval::neural::NeuralEvaluator;

/// The default evaluator. Builds the bear-off tables on first use (a few seconds,
/// once per process).
pub fn default_evaluator() -> Result<NeuralEvaluator<'static>, String> {
    let bytes = bgfarm_engine::eval::default_nets::BYTES;
    let load = |prefix: &str| {
        load_bundle(bytes, prefix).map_err(|e| format!("built-in nets ({prefix}): {e}"))
    };
    Ok(NeuralEvaluator {
        contact: load("contact.")?,
        race: load("race.")?,
        endgame: Some(BearoffDb::global()),
    })
}
