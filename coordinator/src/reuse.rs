//! Accepting remembered batches: each batch a job releases (all of them at
//! submission, or a wave at a time under stop rules) is first looked up in the
//! memory of computed batches; one found there is stored as the job's result and
//! accepted as if a worker had returned it, never leased.
//!
//! A batch's result is a pure function of (job identity, unit range, active
//! candidates) (DESIGN.md, "The determinism contract"). The identity is a SHA-256
//! of the job's spec with what does not change a batch's result cleared, which
//! each kind says (`JobKind::canonical`: a rollout's trials, batch size, stop
//! rules and query label; a match simulation's pairs and batch size; a label
//! job's batch size; nothing of a study, whose batch ranges are global over its
//! cells). The engine fingerprint stays in it and is also the blobs' scope.
//! Results are exact sums or chunk totals folded in order, so a result reused for
//! the same range folds into the same bits as a recomputed one. The keys and the
//! writes are the store's (`bgfarm_storage::memo`), shared with the CLI's
//! embedded runs on a local store; the payload is the wire message the
//! coordinator stores as a job's result, decoded by the job's kind.

use crate::job::Job;
use crate::outcome::Outcome;
use bgfarm_storage::{memo, BlobKind, Blobs, PutOutcome, Store, StoreError};
use tracing::warn;

/// The remembered result of `job`'s batch with memo key `key`, decoded; `None`
/// when absent, corrupt (deleted by [`Blobs::get`]) or unreadable.
fn lookup(blobs: &Blobs, job: &Job, key: &[u8]) -> Result<Option<(Vec<u8>, Outcome)>, StoreError> {
    let Some(bytes) = blobs.get(job.work.fingerprint(), key)? else {
        return Ok(None);
    };
    match job.work.decode_result(&bytes) {
        Ok(o) => Ok(Some((bytes, o))),
        Err(e) => {
            warn!("memo entry unreadable, batch recomputed: {e}");
            Ok(None)
        }
    }
}

/// Looks up `job`'s unchecked batches: a remembered one is stored as the job's
/// result (flushed with the next store flush; lost before it, the batch is simply
/// found again) and accepted, every other one is queued for a lease. Repeats while
/// accepting releases another wave; returns how many batches were reused. A store
/// error leaves the batch to be computed.
pub fn reuse(store: &Store, job: &mut Job) -> u64 {
    let blobs = store.blobs(BlobKind::Batches);
    let mut reused = 0;
    // Accepting a batch may release the next wave, queued behind.
    while let Some(b) = job.ledger.unchecked.pop_front() {
        if !job.ledger.is_free(b) {
            continue;
        }
        let key = memo::key(&job.identity, &job.range(b), job.ledger.active(b));
        let found = lookup(&blobs, job, &key).and_then(|hit| match hit {
            Some((bytes, outcome)) => Ok(match store.put_result(job.id, b, &bytes)? {
                PutOutcome::Inserted | PutOutcome::Same => {
                    // Under verification, the worker that computed it answers
                    // for this job's batch too ([`crate::quarantine`]).
                    if let Some(w) = store.memo_origin(&key)? {
                        store.put_origin(&w, job.id, b)?;
                    }
                    Some(outcome)
                }
                PutOutcome::Different(_) => None,
            }),
            None => Ok(None),
        });
        match found {
            Ok(Some(outcome)) => {
                if job.complete(b, outcome) {
                    job.counters.reused += 1;
                    reused += 1;
                }
            }
            Ok(None) => job.ledger.pending.push_back(b),
            Err(e) => {
                warn!(
                    job = job.id,
                    batch = b,
                    "memo lookup failed, batch computed: {e}"
                );
                job.ledger.pending.push_back(b);
            }
        }
    }
    reused
}
