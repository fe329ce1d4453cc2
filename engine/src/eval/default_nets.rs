//! The nets built into the binary, each a safetensors bundle with a contact net
//! (`contact.*`) and a race net (`race.*`), produced by `bgfarm train` with the exact
//! commands recorded in `scripts/train-default-nets.sh` and in the files' metadata.
//!
//! The default evaluator ([`default_evaluator`], `--net default`, alias `deep`) is the
//! deeper contact net of [`DEEP_BYTES`] with the one-layer contact net of [`BYTES`] as
//! its screen ([`NeuralEvaluator::screen`]); `--net fast` ([`fast_evaluator`]) is
//! the one-layer nets alone, the default of releases 0.8.0 and 0.9.0.
//!
//! Why the deeper net leads since 0.10.0 (GNU Backgammon's bench, loss x1000 per
//! decision at 0-ply; `bgfarm duel`): contact 5.1 against 6.9 (GNU Backgammon 0-ply
//! 3.9), crashed 8.4 against 12.3, +0.633 ppg against PubEval where the fast nets
//! make +0.611, and level with them head to head (+0.002 +- 0.004 over 100,000
//! games). Alone it costs 1.7x the CPU of a rollout trial; screened, 1.15x: the
//! opening rollout, 1296 trials on one thread, seeds 1-8, RMS SE 0.00811 in a
//! median 7.20 s of CPU against 0.00791 in 6.27 s for `fast` (17% less precision
//! per CPU-second; 42% less unscreened).

use super::net::{load_bundle, NetError};
use super::neural::{Endgame, NeuralEvaluator};

/// The one-layer nets' bundle (`--net fast`): a 234-128-5 contact net (zero weights
/// on the features' third block, which it skips) and the race net. Its contact net
/// screens the default evaluator's choices.
pub const BYTES: &[u8] = include_bytes!("../../nets/default.safetensors");

/// The deeper nets' bundle: a 234-128-64-5 contact net (two hidden layers, the
/// features' third block) with the race net of [`BYTES`]; legs 36-38 of
/// `scripts/train-default-nets.sh`.
pub const DEEP_BYTES: &[u8] = include_bytes!("../../nets/deep.safetensors");

/// The default evaluator: [`DEEP_BYTES`]' nets, screened by [`BYTES`]' contact net.
pub fn default_evaluator(endgame: Option<&dyn Endgame>) -> Result<NeuralEvaluator<'_>, NetError> {
    Ok(NeuralEvaluator {
        contact: load_bundle(DEEP_BYTES, "contact.")?,
        race: load_bundle(DEEP_BYTES, "race.")?,
        endgame,
        screen: Some(load_bundle(BYTES, "contact.")?),
    })
}

/// The one-layer nets of [`BYTES`] alone (`--net fast`).
pub fn fast_evaluator(endgame: Option<&dyn Endgame>) -> Result<NeuralEvaluator<'_>, NetError> {
    Ok(NeuralEvaluator {
        contact: load_bundle(BYTES, "contact.")?,
        race: load_bundle(BYTES, "race.")?,
        endgame,
        screen: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_deep_net_screened_by_the_fast_one() {
        let d = default_evaluator(None).expect("built-in nets");
        let f = fast_evaluator(None).expect("built-in nets");
        assert_eq!(d.contact.shape(), "234-128-64-5");
        assert_eq!(
            d.screen.as_ref().map(|s| s.shape()),
            Some(f.contact.shape())
        );
        assert_eq!(f.contact.mid(), 0);
        assert!(f.screen.is_none());
        assert_ne!(d.hash(), f.hash());
    }
}
