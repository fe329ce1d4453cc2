//! The coordinator's side of verification ([`crate::verify`]): a result handed in
//! on a verification lease is not a new result of its batch but a vote on the
//! accepted one. It settles the check, asks another worker, or quarantines the
//! outvoted ([`crate::quarantine`]).

use crate::core::{Core, State};
use crate::exchange::ack;
use crate::verify::Settled;
use bgfarm_proto::v1;
use bgfarm_storage::PutOutcome;
use tracing::{info, warn};

impl Core {
    /// Settles `worker`'s result `bytes` of batch `b` when it holds that batch's
    /// verification lease (`None` otherwise: an ordinary result). `put` is what
    /// the store found. Workers outvoted go to `liars`, quarantined by the caller
    /// once every result of the exchange is settled (a quarantine takes back
    /// results, which the exchange's other votes are about).
    pub(crate) fn settle(
        &self,
        st: &mut State,
        worker: &str,
        b: v1::BatchRef,
        bytes: &[u8],
        put: &PutOutcome,
        liars: &mut Vec<String>,
    ) -> Option<v1::ResultAck> {
        let job = st.jobs.get_mut(&b.job_id)?;
        if !job.checks.holds(b.batch_index, worker) {
            return None;
        }
        let same = match put {
            PutOutcome::Same => true,
            PutOutcome::Different(_) => false,
            // The accepted result is gone (its worker was quarantined meanwhile):
            // this one took its place as an ordinary result would.
            PutOutcome::Inserted => return None,
        };
        let settled = job.checks.settle(b.batch_index, worker, same, bytes);
        let (verdict, message) = match settled {
            Settled::Verified => {
                st.counters.verified += 1;
                info!(worker = %worker, "batch verified");
                (
                    v1::ResultVerdict::Duplicate,
                    "verified: equal to the accepted result",
                )
            }
            Settled::Disputed => {
                st.counters.verify_disputes += 1;
                warn!(worker = %worker, "verification differs from the accepted result: another worker decides");
                (
                    v1::ResultVerdict::Conflict,
                    "differs from the accepted result: another worker decides",
                )
            }
            Settled::Liars(outvoted) => {
                st.counters.verified += 1;
                liars.extend(outvoted);
                let verdict = if same {
                    v1::ResultVerdict::Duplicate
                } else {
                    v1::ResultVerdict::Accepted
                };
                (verdict, "verified: the workers outvoted are quarantined")
            }
            Settled::Inconclusive => {
                st.counters.verify_disputes += 1;
                warn!(worker = %worker, "verification inconclusive: no two of the answers agree");
                (
                    v1::ResultVerdict::Conflict,
                    "no two answers agree: check dropped",
                )
            }
        };
        Some(ack(b, verdict, message))
    }

    /// Refuses a quarantined worker: its results are no longer taken.
    pub(crate) fn refuse_quarantined(st: &State, worker: &str) -> Result<(), tonic::Status> {
        if st.quarantined.contains(worker) {
            return Err(tonic::Status::failed_precondition(format!(
                "worker {worker} is quarantined: a result of it was outvoted by other workers \
                 recomputing it; its results are being computed again"
            )));
        }
        Ok(())
    }
}
