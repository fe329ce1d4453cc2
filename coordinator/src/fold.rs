//! A job's aggregate, folded from the store: accepted results are read back in
//! batch order as they are folded, so a coordinator holds no job's results in
//! memory (a rollout batch's statistics are about 400 bytes; 10^6 of them would be
//! 400 MB). The read runs off the lock, on a copy of the job's done set: a result
//! is folded only once its batch was accepted (a result written but never
//! acknowledged, when its flush failed, is not).

use crate::done_bits::DoneBits;
use crate::job::Job;
use crate::kind::Work;
use crate::outcome::Outcome;
use bgfarm_proto::v1;
use bgfarm_storage::{Store, StoreError};
use std::ops::Range;
use tracing::warn;

/// What folding a job needs, copied under the lock.
pub struct FoldPlan {
    job: u64,
    work: Work,
    done: DoneBits,
}

impl Job {
    /// What [`fold`] needs of this job now.
    pub fn fold_plan(&self) -> FoldPlan {
        FoldPlan {
            job: self.id,
            work: self.work.clone(),
            done: self.ledger.done_set(),
        }
    }
}

/// Folds the accepted batches of `plan`'s job in batch order into the kind's
/// fields of `out`, bit-identical to the embedded run's result.
pub fn fold(
    store: &Store,
    plan: &FoldPlan,
    out: &mut v1::GetJobResponse,
) -> Result<(), StoreError> {
    let mut failed = None;
    let mut results = store
        .results_iter(plan.job)
        .map_while(|r| match r {
            Ok(x) => Some(x),
            Err(e) => {
                failed = Some(e);
                None
            }
        })
        .filter(|(b, _)| plan.done.contains(*b))
        .filter_map(|(b, bytes)| decoded(plan, b, &bytes));
    plan.work.fold(&mut results, out);
    drop(results);
    failed.map_or(Ok(()), Err)
}

/// Batch `b`'s stored result with its unit range; `None` (logged) when it cannot
/// be decoded, which a result accepted by this release cannot be.
fn decoded(plan: &FoldPlan, b: u64, bytes: &[u8]) -> Option<(Range<u64>, Outcome)> {
    match plan.work.decode_result(bytes) {
        Ok(o) => Some((plan.work.batch_range(b), o)),
        Err(e) => {
            warn!(
                job = plan.job,
                batch = b,
                "stored result unreadable, left out of the fold: {e}"
            );
            None
        }
    }
}
