//! Running one lease on the calling (rayon) thread, through one seam per kind of
//! job: [`LeaseKind`], implemented on each kind's wire spec in its own file
//! ([`rollout`], [`matchsim`], [`study`], [`label`]). [`run_lease`] checks what
//! every kind shares (the engine fingerprint, the lease's range) and hands the
//! batch to its kind; [`kind_of`] is the one place a lease's kind is matched. A
//! new kind adds its file and its arm there.

mod analysis;
mod label;
mod matchsim;
mod rollout;
mod study;

use crate::engine::Engines;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::rollout::FirstPlyCache;
use bgfarm_proto::v1;
use std::ops::Range;

/// What a batch of any kind may run with.
pub struct Ctx<'a> {
    pub engines: &'a Engines,
    /// The evaluator of the nets a label job brings (fetched before the lease
    /// starts), if it brings any.
    pub own_nets: Option<&'a NeuralEvaluator<'a>>,
    /// The job's first-move tables (rollouts).
    pub first_ply: &'a FirstPlyCache,
}

/// A job spec as a worker runs it.
trait LeaseKind {
    /// The engine fingerprint its results must be computed with.
    fn fingerprint(&self) -> &str;

    /// Work units of the job, the bound of a lease's range (`u64::MAX` for a
    /// kind whose lease carries a slice of the job and checks its range itself).
    fn units(&self) -> u64;

    /// The digest of the nets the job brings (fetched from the coordinator once).
    fn nets_sha256(&self) -> Option<&[u8]> {
        None
    }

    /// Runs units `range` of the lease `lease` and fills in the kind's field of
    /// `out`.
    fn run(
        &self,
        ctx: &Ctx<'_>,
        range: Range<u64>,
        lease: &v1::Lease,
        out: &mut v1::BatchResult,
    ) -> Result<(), String>;
}

/// The kind of a lease's spec: the one dispatch on it.
fn kind_of(kind: &v1::job_spec::Kind) -> &dyn LeaseKind {
    use v1::job_spec::Kind;
    match kind {
        Kind::Rollout(r) => r,
        Kind::MatchSim(m) => m,
        Kind::Study(s) => s,
        Kind::Label(l) => l,
        Kind::Analysis(a) => a,
    }
}

/// The kind of `lease`'s job, if it carries a spec.
fn lease_kind(lease: &v1::Lease) -> Option<&dyn LeaseKind> {
    lease
        .spec
        .as_ref()
        .and_then(|s| s.kind.as_ref())
        .map(kind_of)
}

/// The digest of the nets `lease`'s job brings, if it brings any.
pub fn wanted_nets(lease: &v1::Lease) -> Option<&[u8]> {
    lease_kind(lease).and_then(|k| k.nets_sha256())
}

/// The result of `lease` (its batch filled in), or why it cannot be run here. A
/// label job with nets of its own is labelled with `own_nets`, their evaluator.
pub fn run_lease(
    engines: &Engines,
    own_nets: Option<&NeuralEvaluator<'_>>,
    fingerprint: &str,
    lease: &v1::Lease,
    cache: &FirstPlyCache,
) -> Result<v1::BatchResult, String> {
    let kind = lease_kind(lease).ok_or("lease without a job spec")?;
    let needs = kind.fingerprint();
    // Results computed by another engine would break the determinism contract.
    if needs != fingerprint {
        return Err(format!(
            "job needs engine {needs}, this worker is {fingerprint}"
        ));
    }
    let units = kind.units();
    if lease.trial_start > lease.trial_end || lease.trial_end > units {
        return Err(format!(
            "range {}..{} outside 0..{units}",
            lease.trial_start, lease.trial_end
        ));
    }
    let mut out = v1::BatchResult {
        batch: lease.batch,
        ..Default::default()
    };
    let ctx = Ctx {
        engines,
        own_nets,
        first_ply: cache,
    };
    kind.run(&ctx, lease.trial_start..lease.trial_end, lease, &mut out)?;
    Ok(out)
}
