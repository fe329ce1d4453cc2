//! Helpers shared by the training code's unit tests.

use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::default_nets::fast_evaluator;
use bgfarm_engine::eval::neural::NeuralEvaluator;

/// The built-in one-layer nets with the exact bear-off tables and no screen.
pub fn default_nets() -> NeuralEvaluator<'static> {
    fast_evaluator(Some(BearoffDb::global())).expect("built-in nets")
}
