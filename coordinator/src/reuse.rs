//! Accepting remembered batches: each batch a job releases (all of them at
//! submission, or a wave at a time under stop rules) is first looked up in the
//! memory of computed batches ([`crate::memo`]); one found there is stored as the
//! job's result and accepted as if a worker had returned it, never leased.

use crate::job::Job;
use crate::memo;
use bgfarm_storage::{BlobKind, PutOutcome, Store};
use tracing::warn;

/// Looks up `job`'s unchecked batches: a remembered one is stored as the job's
/// result (flushed with the next store flush; lost before it, the batch is simply
/// found again) and accepted, every other one is queued for a lease. Repeats while
/// accepting releases another wave; returns how many batches were reused. A store
/// error leaves the batch to be computed.
pub fn reuse(store: &Store, job: &mut Job) -> u64 {
    let blobs = store.blobs(BlobKind::Batches);
    let mut reused = 0;
    while !job.unchecked.is_empty() {
        for b in std::mem::take(&mut job.unchecked) {
            let Some(batch) = job.batches.get(b as usize) else {
                continue;
            };
            if batch.result.is_some() {
                continue;
            }
            let key = memo::key(&job.identity, &batch.trials, &batch.active);
            let found = memo::lookup(&blobs, &job.work, &key).and_then(|hit| match hit {
                Some((bytes, outcome)) => Ok(match store.put_result(job.id, b, &bytes)? {
                    PutOutcome::Inserted | PutOutcome::Same => Some(outcome),
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
                Ok(None) => job.pending.push_back(b),
                Err(e) => {
                    warn!(
                        job = job.id,
                        batch = b,
                        "memo lookup failed, batch computed: {e}"
                    );
                    job.pending.push_back(b);
                }
            }
        }
    }
    reused
}
