//! The kinds of job and the little the coordinator needs of each: the engine
//! fingerprint its results must be computed with, its number of work units (trials
//! of a rollout, duplicate pairs of a match simulation) and its batch size. How a
//! unit is computed is the workers' business.

use bgfarm_proto::v1;

/// The work of a job, as its spec gives it.
#[derive(Clone, Debug)]
pub enum Work {
    Rollout(v1::RolloutSpec),
    MatchSim(v1::MatchSimSpec),
}

impl Work {
    /// The work of `spec`; `None` for a spec without a kind (or of a kind this
    /// coordinator does not know).
    pub fn of(spec: &v1::JobSpec) -> Option<Work> {
        match &spec.kind {
            Some(v1::job_spec::Kind::Rollout(r)) => Some(Work::Rollout(r.clone())),
            Some(v1::job_spec::Kind::MatchSim(m)) => Some(Work::MatchSim(m.clone())),
            None => None,
        }
    }

    /// The engine fingerprint of the job: only workers with it are leased batches.
    pub fn fingerprint(&self) -> &str {
        match self {
            Work::Rollout(r) => &r.fingerprint,
            Work::MatchSim(m) => &m.fingerprint,
        }
    }

    /// Work units: trials per candidate, or duplicate pairs.
    pub fn units(&self) -> u64 {
        match self {
            Work::Rollout(r) => r.trials,
            Work::MatchSim(m) => m.pairs,
        }
    }

    /// Units per batch.
    pub fn batch_size(&self) -> u64 {
        match self {
            Work::Rollout(r) => r.batch_size,
            Work::MatchSim(m) => m.batch_size,
        }
    }

    /// "rollout" or "match-sim", for logs and metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Work::Rollout(_) => "rollout",
            Work::MatchSim(_) => "match-sim",
        }
    }
}
