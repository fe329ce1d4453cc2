//! The nets built into the binary (`bgfarm ... default`): a safetensors bundle with a
//! contact net (`contact.*`) and a race net (`race.*`), produced by `bgfarm train td`
//! with the exact command recorded in `scripts/train-default-nets.sh` and in the
//! file's metadata.

/// The bundle's bytes.
pub const BYTES: &[u8] = include_bytes!("../../nets/default.safetensors");
