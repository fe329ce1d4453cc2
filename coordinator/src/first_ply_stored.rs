//! Which of a rollout's first-move tables a store holds: the coordinator's gate and
//! the leases' tables, and an embedded `rollout --data DIR`, read them the same way.

use bgfarm_engine::rollout::first_ply::EntryBytes;
use bgfarm_engine::rollout::{first_ply_keys, FirstPlyCache, FirstPlyKey, RollTable, RolloutPlan};
use bgfarm_storage::{Blobs, StoreError};
use std::sync::Arc;

/// The tables of a job stored now, and whether they are all it needs; `deep` when
/// any of its first plies searches (depth > 0).
pub struct Stored {
    pub entries: Arc<Vec<EntryBytes>>,
    pub complete: bool,
    pub deep: bool,
}

/// The tables `plan` needs that `blobs` holds under `fingerprint`. The store lacks
/// the evaluator's bear-off tables, so every position without contact counts as one
/// where trials stop (a few tables fewer may be listed: they are then computed where
/// needed, never wrong).
pub fn stored_tables(blobs: &Blobs, plan: &RolloutPlan, fingerprint: &str) -> Stored {
    let get = |k: &FirstPlyKey| blobs.get(fingerprint, &k.to_bytes()).ok().flatten();
    let keys = first_ply_keys(
        &plan.job,
        |k| get(k).and_then(|v| RollTable::from_bytes(&v).ok()),
        |p| !p.has_contact(),
    );
    let mut entries = Vec::with_capacity(keys.len());
    for k in &keys {
        if let Some(v) = get(k) {
            entries.push((k.to_bytes(), v));
        }
    }
    Stored {
        complete: entries.len() == keys.len(),
        deep: keys.iter().any(|k| k.depth > 0),
        entries: Arc::new(entries),
    }
}

/// Loads into `cache` the tables of `plan` that `blobs` holds; returns how many.
/// An entry that does not decode is skipped (its table is computed again).
pub fn load_tables(
    blobs: &Blobs,
    plan: &RolloutPlan,
    fingerprint: &str,
    cache: &FirstPlyCache,
) -> usize {
    let stored = stored_tables(blobs, plan, fingerprint);
    stored
        .entries
        .iter()
        .filter(|(k, t)| cache.import(k, t).is_ok())
        .count()
}

/// Writes the tables `cache` computed since the last call into `blobs` (first
/// write wins); returns how many were new.
pub fn keep_tables(
    blobs: &Blobs,
    fingerprint: &str,
    cache: &FirstPlyCache,
) -> Result<usize, StoreError> {
    let mut new = 0;
    for (k, t) in cache.take_computed() {
        if blobs.put(fingerprint, &k, &t)? == bgfarm_storage::BlobPut::Inserted {
            new += 1;
        }
    }
    Ok(new)
}
