//! The memory of computed batches, as bytes: the identity of a job's computation,
//! the key of one of its batches, and remembering a batch's result.
//!
//! A batch's result is a pure function of (job identity, unit range, active
//! candidates), so a result found under its key is the result (DESIGN.md, "The
//! determinism contract"). Which fields of a spec leave a batch's result unchanged
//! is each job kind's knowledge (the coordinator's `kind` modules clear them); the
//! store only hashes the canonical spec and lays out keys, so that the coordinator
//! and an embedded run with `--data DIR` read and write the same entries.

use crate::{BlobPut, Blobs, StoreError};
use sha2::{Digest, Sha256};
use std::ops::Range;
use tracing::warn;

/// The identity of a job's computation: a SHA-256.
pub type Identity = [u8; 32];

/// The identity of the computation whose canonical spec (the encoded spec with
/// what does not change a batch's result cleared) is `canonical`.
pub fn identity(canonical: &[u8]) -> Identity {
    Sha256::digest(canonical).into()
}

/// The memo key of a batch: identity ‖ start ‖ end ‖ the active candidates (one
/// byte each; nothing when every candidate runs, however that is written).
pub fn key(identity: &Identity, units: &Range<u64>, active: &[bool]) -> Vec<u8> {
    let mut k = Vec::with_capacity(48 + active.len());
    k.extend_from_slice(identity);
    k.extend_from_slice(&units.start.to_be_bytes());
    k.extend_from_slice(&units.end.to_be_bytes());
    if !active.iter().all(|&a| a) {
        k.extend(active.iter().map(|&a| u8::from(a)));
    }
    k
}

/// Remembers the result `bytes` of the batch with memo key `key`, computed with
/// engine `fingerprint` (flushed with the next store flush). A different result
/// already remembered stays: the first one wins, as for a job's own results.
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

/// Writes `entries` (key and value bytes, e.g. the first-move tables a run
/// computed) into `blobs` under `fingerprint`, first write winning; returns how
/// many were new.
pub fn keep_all(
    blobs: &Blobs,
    fingerprint: &str,
    entries: &[(Vec<u8>, Vec<u8>)],
) -> Result<usize, StoreError> {
    let mut new = 0;
    for (k, v) in entries {
        if blobs.put(fingerprint, k, v)? == BlobPut::Inserted {
            new += 1;
        }
    }
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_the_range_and_the_active_candidates() {
        let a = identity(b"spec");
        assert_ne!(a, identity(b"another spec"));
        let all = key(&a, &(0..144), &[]);
        assert_eq!(all, key(&a, &(0..144), &[true, true]));
        assert_ne!(all, key(&a, &(0..144), &[true, false]));
        assert_ne!(all, key(&a, &(144..288), &[]));
    }
}
