//! Running one lease: the engine's `run_batch` over the lease's trial range, on the
//! calling (rayon) thread.

use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::rollout::{run_batch, FirstPlyCache, TrialScratch};
use bgfarm_proto::convert::{rollout_from_wire, stats_to_wire};
use bgfarm_proto::v1;

/// The statistics of `lease`, or why it cannot be run here.
pub fn run_lease(
    eval: &NeuralEvaluator<'_>,
    fingerprint: &str,
    lease: &v1::Lease,
    cache: &FirstPlyCache,
) -> Result<v1::BatchStats, String> {
    let Some(v1::JobSpec {
        kind: Some(v1::job_spec::Kind::Rollout(spec)),
    }) = &lease.spec
    else {
        return Err("lease without a rollout spec".into());
    };
    // Results computed by another engine would break the determinism contract.
    if spec.fingerprint != fingerprint {
        return Err(format!(
            "job needs engine {}, this worker is {fingerprint}",
            spec.fingerprint
        ));
    }
    if lease.trial_start > lease.trial_end || lease.trial_end > spec.trials {
        return Err(format!(
            "trial range {}..{} outside 0..{}",
            lease.trial_start, lease.trial_end, spec.trials
        ));
    }
    let job = rollout_from_wire(spec).map_err(|e| e.0)?;
    let mut scratch = TrialScratch::new(eval);
    let stats = run_batch(
        &job,
        eval,
        None,
        lease.trial_start..lease.trial_end,
        &lease.active,
        Some(cache),
        &mut scratch,
    );
    Ok(stats_to_wire(&stats))
}
