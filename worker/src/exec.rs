//! Running one lease on the calling (rayon) thread: a rollout batch with the
//! engine's `run_batch`, a match-simulation or study batch chunk by chunk
//! ([`crate::exec_sim`]), a label batch position by position.

use crate::engine::Engines;
use crate::exec_sim::{run_sim, run_study};
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::label::LabelPlan;
use bgfarm_engine::rollout::{run_batch, FirstPlyCache, TrialScratch};
use bgfarm_proto::convert::{plan_from_wire, stats_to_wire};
use bgfarm_proto::label::{labels_to_wire, lease_positions};
use bgfarm_proto::study::study_units;
use bgfarm_proto::v1;

/// The result of `lease` (its batch filled in), or why it cannot be run here. A
/// label job with nets of its own is labelled with `own_nets`, their evaluator.
pub fn run_lease(
    engines: &Engines,
    own_nets: Option<&NeuralEvaluator<'_>>,
    fingerprint: &str,
    lease: &v1::Lease,
    cache: &FirstPlyCache,
) -> Result<v1::BatchResult, String> {
    let kind = lease
        .spec
        .as_ref()
        .and_then(|s| s.kind.as_ref())
        .ok_or("lease without a job spec")?;
    let (needs, units) = match kind {
        v1::job_spec::Kind::Rollout(r) => (&r.fingerprint, r.trials),
        v1::job_spec::Kind::MatchSim(m) => (&m.fingerprint, m.pairs),
        v1::job_spec::Kind::Study(s) => (&s.fingerprint, study_units(s)),
        // A label lease holds its own positions only: it checks its range itself.
        v1::job_spec::Kind::Label(l) => (&l.fingerprint, u64::MAX),
    };
    // Results computed by another engine would break the determinism contract.
    if needs != fingerprint {
        return Err(format!(
            "job needs engine {needs}, this worker is {fingerprint}"
        ));
    }
    if lease.trial_start > lease.trial_end || lease.trial_end > units {
        return Err(format!(
            "range {}..{} outside 0..{units}",
            lease.trial_start, lease.trial_end
        ));
    }
    let range = lease.trial_start..lease.trial_end;
    let eval = &engines.play;
    let mut out = v1::BatchResult {
        batch: lease.batch,
        ..Default::default()
    };
    match kind {
        v1::job_spec::Kind::Rollout(spec) => {
            let plan = plan_from_wire(spec).map_err(|e| e.0)?;
            let mut scratch = TrialScratch::new(eval);
            let stats = run_batch(
                &plan.job,
                eval,
                None,
                range,
                &lease.active,
                Some(cache),
                &mut scratch,
            );
            out.stats = Some(stats_to_wire(&stats));
            // The tables computed here (by this batch or another of the job on this
            // worker since the last result), for the coordinator's store.
            out.first_ply = cache
                .take_computed()
                .into_iter()
                .map(|(key, table)| v1::FirstPlyEntry { key, table })
                .collect();
        }
        v1::job_spec::Kind::MatchSim(spec) => {
            out.match_sim = Some(run_sim(eval, spec, range)?);
        }
        v1::job_spec::Kind::Study(spec) => {
            out.match_sim = Some(run_study(eval, spec, range)?);
        }
        v1::job_spec::Kind::Label(spec) => {
            let (method, positions) = lease_positions(spec, &range).map_err(|e| e.0)?;
            let n = positions.len() as u64;
            let plan = LabelPlan {
                positions,
                method,
                batch: n,
            };
            let eval = match (spec.nets_sha256.is_empty(), own_nets) {
                (true, _) => &engines.label,
                (false, Some(e)) => e,
                (false, None) => return Err("the label job's nets are not loaded".into()),
            };
            out.labels = Some(labels_to_wire(&plan.run(eval, 0..n, engines.label_cache())));
        }
    }
    Ok(out)
}
