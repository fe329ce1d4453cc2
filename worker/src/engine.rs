//! The engine a worker runs: the nets built into the binary plus the exact bear-off
//! tables, the same evaluator `bgfarm rollout --net default` uses, so a worker's
//! fingerprint equals an embedded run's on the same machine type.

use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::neural::NeuralEvaluator;

/// The default evaluator ([`bgfarm_engine::eval::default_nets::default_evaluator`]).
/// Builds the bear-off tables on first use (a few seconds, once per process).
pub fn default_evaluator() -> Result<NeuralEvaluator<'static>, String> {
    bgfarm_engine::eval::default_nets::default_evaluator(Some(BearoffDb::global()))
        .map_err(|e| format!("built-in nets: {e}"))
}
