//! The nets built into the binary (`bgfarm ... default`): a safetensors bundle with a
//! contact net (`contact.*`) and a race net (`race.*`), produced by `bgfarm train td`
//! with the exact command recorded in `scripts/train-default-nets.sh` and in the
//! file's metadata.

/// The bundle's bytes.
pub const BYTES: &[u8] = include_bytes!("../../nets/default.safetensors");

/// The deeper nets built into the binary (`bgfarm ... --net deep`): a 234-128-64-5
/// contact net (two hidden layers, the features' third block) with the default race
/// net, legs 36-37 of `scripts/train-default-nets.sh`. On GNU Backgammon's bench
/// they choose better at 0-ply (contact 5.5 against 6.9 x1000 per decision, crashed
/// 8.7 against 12.3) and beat PubEval by +0.631 ppg against +0.611, but they play
/// the default nets level (+0.001 +- 0.003 ppg over 100,000 games) and cost about
/// 1.6x the CPU per rollout trial, so the default stays the faster nets.
pub const DEEP_BYTES: &[u8] = include_bytes!("../../nets/deep.safetensors");
