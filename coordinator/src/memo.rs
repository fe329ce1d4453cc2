//! The memory of computed batches: a rollout or match simulation is never computed
//! twice, and one with more trials (pairs) computes only the new ones.
//!
//! A batch's result is a pure function of (job identity, unit range, active
//! candidates) (DESIGN.md, "The determinism contract"). The identity is a SHA-256
//! of the job's spec with what does not change a batch's result cleared: trials or
//! pairs, the batch size, the stop rules and the rollout's query label. The
//! engine fingerprint stays in it and is also the [`Blobs`] scope. Rollout batch
//! results are exact fixed-point sums and match-simulation batches are lists of
//! 16-pair chunk totals folded in order, so a result reused for the same range
//! folds into the same bits as a recomputed one: a 2,592-trial rollout after a
//! 1,296-trial one with the same batch size computes the 9 new batches of 144 and
//! equals a fresh 2,592-trial rollout byte for byte. A study's identity is its
//! whole spec (its batches' ranges are global over its cells, so only an
//! identical resubmission reuses them); so is a label job's but its batch size
//! (a label job resubmitted after its client was killed, the resume of
//! `bgfarm-lab train label --coordinator`, computes nothing again).
//!
//! The payload is the wire message the coordinator stores as a job's result
//! (`BatchStats`, `MatchSimStats` or `LabelStats`), so one decoder serves all. The embedded
//! runs of the CLI use the same keys and payloads on a local store.

use crate::kind::Work;
use crate::outcome::Outcome;
use bgfarm_proto::v1;
use bgfarm_storage::{BlobPut, Blobs, StoreError};
use prost::Message;
use sha2::{Digest, Sha256};
use std::ops::Range;
use tracing::warn;

/// The identity of a job's computation (see the module documentation).
pub fn identity(spec: &v1::JobSpec) -> [u8; 32] {
    let mut s = spec.clone();
    match &mut s.kind {
        Some(v1::job_spec::Kind::Rollout(r)) => {
            r.trials = 0;
            r.batch_size = 0;
            r.stop = None;
            r.query = None;
        }
        Some(v1::job_spec::Kind::MatchSim(m)) => {
            m.pairs = 0;
            m.batch_size = 0;
        }
        Some(v1::job_spec::Kind::Label(l)) => l.batch_size = 0,
        Some(v1::job_spec::Kind::Study(_)) | None => {}
    }
    Sha256::digest(s.encode_to_vec()).into()
}

/// The memo key of a batch: identity ‖ start ‖ end ‖ the active candidates (one
/// byte each; nothing when every candidate runs, however that is written).
pub fn key(identity: &[u8; 32], units: &Range<u64>, active: &[bool]) -> Vec<u8> {
    let mut k = Vec::with_capacity(48 + active.len());
    k.extend_from_slice(identity);
    k.extend_from_slice(&units.start.to_be_bytes());
    k.extend_from_slice(&units.end.to_be_bytes());
    if !active.iter().all(|&a| a) {
        k.extend(active.iter().map(|&a| u8::from(a)));
    }
    k
}

/// The stored result of the batch with memo key `key` of a job of `work`, decoded;
/// `None` when absent, corrupt (deleted by [`Blobs::get`]) or unreadable.
pub(crate) fn lookup(
    blobs: &Blobs,
    work: &Work,
    key: &[u8],
) -> Result<Option<(Vec<u8>, Outcome)>, StoreError> {
    let Some(bytes) = blobs.get(work.fingerprint(), key)? else {
        return Ok(None);
    };
    match Outcome::decode(work, &bytes) {
        Ok(o) => Ok(Some((bytes, o))),
        Err(e) => {
            warn!("memo entry unreadable, batch recomputed: {e}");
            Ok(None)
        }
    }
}

/// Remembers the result `bytes` of the batch with memo key `key`, computed with
/// engine `fingerprint` (flushed with the next store flush).
pub fn remember(
    blobs: &Blobs,
    fingerprint: &str,
    key: &[u8],
    bytes: &[u8],
) -> Result<(), StoreError> {
    if blobs.put(fingerprint, key, bytes)? == BlobPut::Different {
        warn!("a batch result differs from the remembered one: the first one stays");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rollout(trials: u64, batch: u64, seed: u64) -> v1::JobSpec {
        v1::JobSpec {
            kind: Some(v1::job_spec::Kind::Rollout(v1::RolloutSpec {
                seed,
                trials,
                batch_size: batch,
                fingerprint: "fp".into(),
                stop: Some(v1::StopRules::default()),
                query: Some(v1::RolloutQuery {
                    input: "x".into(),
                    ..Default::default()
                }),
                ..Default::default()
            })),
        }
    }

    #[test]
    fn identity_ignores_only_what_leaves_batches_unchanged() {
        let a = identity(&rollout(1296, 144, 1));
        assert_eq!(a, identity(&rollout(2592, 36, 1)));
        assert_ne!(a, identity(&rollout(1296, 144, 2)));
        let all = key(&a, &(0..144), &[]);
        assert_eq!(all, key(&a, &(0..144), &[true, true]));
        assert_ne!(all, key(&a, &(0..144), &[true, false]));
        assert_ne!(all, key(&a, &(144..288), &[]));
    }
}
