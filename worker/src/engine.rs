//! The engines a worker runs: the nets built into the binary plus the exact
//! bear-off tables and the one-sided race net, the same evaluator `bgfarm rollout
//! --net default` uses, so a worker's fingerprint equals an embedded run's on the
//! same machine type; and for label jobs the training evaluator, the same nets
//! with races answered by the two-sided race net, as `bgfarm-lab train label --net
//! default` labels.

use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::default_nets::analysis_endgame;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::label::LABEL_CACHE_MIB;
use bgfarm_engine::search::EvalCache;
use std::sync::OnceLock;

/// The default evaluator ([`bgfarm_engine::eval::default_nets::default_evaluator`]).
/// Builds the bear-off tables on first use (a few seconds, once per process).
pub fn default_evaluator() -> Result<NeuralEvaluator<'static>, String> {
    use bgfarm_engine::eval::default_nets::{default_endgame, default_evaluator};
    let endgame =
        default_endgame(BearoffDb::global()).map_err(|e| format!("built-in nets: {e}"))?;
    default_evaluator(Some(endgame)).map_err(|e| format!("built-in nets: {e}"))
}

/// The evaluators of a worker: [`default_evaluator`] for rollouts and
/// simulations, and its training variant for labels (the tables alone as the
/// endgame, see `bgfarm_cli_common::engine_args::nets::load_training_evaluator`).
pub struct Engines {
    pub play: NeuralEvaluator<'static>,
    pub label: NeuralEvaluator<'static>,
    /// Match analyses: the nets with the analysing commands' endgame
    /// (`default_nets::analysis_endgame`), as `bgfarm analyse` evaluates.
    pub analysis: NeuralEvaluator<'static>,
    /// The search cache of every label batch, kept across leases; made by the
    /// first label batch ([`Engines::label_cache`]), so that a worker that never
    /// labels holds none of its 64 MiB.
    label_cache: OnceLock<EvalCache>,
    /// The search cache of analysis batches, apart from the label cache: its keys
    /// name the nets, not the endgame, which differs.
    analysis_cache: OnceLock<EvalCache>,
}

impl Engines {
    pub fn new() -> Result<Engines, String> {
        let play = default_evaluator()?;
        let mut label = play.clone();
        label.endgame = Some(BearoffDb::global());
        let mut analysis = play.clone();
        analysis.endgame = Some(
            analysis_endgame(BearoffDb::global()).map_err(|e| format!("analysis endgame: {e}"))?,
        );
        Ok(Engines {
            play,
            label,
            analysis,
            label_cache: OnceLock::new(),
            analysis_cache: OnceLock::new(),
        })
    }

    /// The search cache of label batches.
    pub fn label_cache(&self) -> &EvalCache {
        self.label_cache
            .get_or_init(|| EvalCache::with_mib(LABEL_CACHE_MIB))
    }

    /// The search cache of analysis batches (as large as the label cache).
    pub fn analysis_cache(&self) -> &EvalCache {
        self.analysis_cache
            .get_or_init(|| EvalCache::with_mib(LABEL_CACHE_MIB))
    }
}

/// The training evaluator of the nets bundle `bytes` (a label job's own nets):
/// its nets with the exact tables as the endgame, as `bgfarm-lab train label
/// --net FILE` evaluates.
pub fn label_evaluator(bytes: &[u8]) -> Result<NeuralEvaluator<'static>, String> {
    let n = bgfarm_engine::eval::net::format::load_evaluator_nets(bytes)
        .map_err(|e| format!("label nets: {e}"))?;
    Ok(NeuralEvaluator {
        contact: n.contact,
        race: n.race,
        endgame: Some(BearoffDb::global()),
        screen: n.screen,
        crashed: n.crashed,
    })
}
