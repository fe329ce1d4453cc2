//! The engine a worker runs: the nets built into the binary plus the exact bear-off
//! tables and the one-sided race net, the same evaluator `bgfarm rollout --net default` uses, so a worker's
//! fingerprint equals an embedded run's on the same machine type.

use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::neural::NeuralEvaluator;

/// The default evaluator ([`bgfarm_engine::eval::default_nets::default_evaluator`]).
/// Builds the bear-off tables on first use (a few seconds, once per process).
pub fn default_evaluator() -> Result<NeuralEvaluator<'static>, String> {
    use bgfarm_engine::eval::default_nets::{default_endgame, default_evaluator};
    let endgame =
        default_endgame(BearoffDb::global()).map_err(|e| format!("built-in nets: {e}"))?;
    default_evaluator(Some(endgame)).map_err(|e| format!("built-in nets: {e}"))
}
