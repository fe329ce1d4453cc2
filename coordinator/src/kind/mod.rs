//! The kinds of job, each behind one seam: [`JobKind`]. A kind decodes and
//! validates its spec (with typed errors, [`SpecError`]; its limits are its
//! plan's, in the engine), cuts its work into units and batch ranges, says which
//! fields of its spec leave a batch's result unchanged (the memo identity),
//! checks, decodes and folds batch results, and renders its result for the web
//! page. The rest of the coordinator (leases, the reaper, the store, the memory
//! of computed batches, the page's frame) calls through the trait and knows no
//! kind by name.
//!
//! One file per kind ([`rollout`], [`matchsim`], [`study`], [`label`],
//! [`analysis`]); a new
//! kind adds its file and its arm in [`decode`] (the one place a spec's kind is
//! matched), plus its wire messages in `bgfarm-proto` and its runner in the
//! worker. How a work unit is computed is the workers' business.

mod analysis;
mod label;
mod matchsim;
mod rollout;
mod rollout_page;
mod study;

use crate::outcome::Outcome;
use bgfarm_engine::batches::batch_range;
use bgfarm_engine::rollout::{RolloutJob, Waves};
use bgfarm_proto::convert::Invalid;
use bgfarm_proto::v1;
use bgfarm_storage::memo::{self, Identity};
use prost::Message;
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// The results of the leading run of done batches, in unit order, for kinds whose
/// result is a list with one entry per unit (labels, analysis units): a gap would
/// shift every entry after it, so the fold stops at the first batch not done or
/// not `take`'s kind.
fn leading_run<T>(
    outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
    take: impl Fn(Outcome) -> Option<Vec<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    let mut next = 0;
    for (units, o) in outcomes {
        match take(o) {
            Some(part) if units.start == next => {
                out.extend(part);
                next = units.end;
            }
            _ => break,
        }
    }
    out
}

/// How a job's units are cut into batches ([`JobKind::cut`]).
#[derive(Clone, Copy, Debug)]
pub enum Cut<'a> {
    /// `units` in batches of `batch` units, the last one shorter where they do
    /// not divide ([`batch_range`]): rollouts, match simulations, labels, analyses.
    Even { units: u64, batch: u64 },
    /// These ranges, in batch order: a study, whose batches stay within a cell.
    Ranges(&'a [Range<u64>]),
}

/// Longest engine fingerprint accepted.
const MAX_FINGERPRINT: usize = 200;

/// The work of a job: its kind with its decoded, validated plan and the engine
/// fingerprint of its results. Shared, so that the page renders a result
/// without holding the coordinator's lock.
pub type Work = Arc<dyn JobKind>;

/// What the coordinator does with a job of one kind.
pub trait JobKind: Send + Sync + fmt::Debug {
    /// "rollout", "match-sim", "study" or "label", for logs and metrics.
    fn name(&self) -> &'static str;

    /// What the job is, for `jobs list` and the page: the name, or more (a study
    /// with its own name, `study cube-life`; labels with their method, `label
    /// 2-ply`). Its first word is always [`JobKind::name`] ([`unit_of`] reads it).
    fn label(&self) -> String {
        self.name().to_string()
    }

    /// What its units are, in the plural: "trials" (per candidate), "pairs" (of
    /// matches), "positions".
    fn unit(&self) -> &'static str;

    /// The engine fingerprint of the job: only workers with it are leased batches.
    fn fingerprint(&self) -> &str;

    /// Work units of the whole job.
    fn units(&self) -> u64;

    /// How the job's units are cut into batches, the unit of leasing and of the
    /// deterministic fold.
    fn cut(&self) -> Cut<'_>;

    /// Batches of the job.
    fn batch_count(&self) -> u64 {
        match self.cut() {
            Cut::Even { units, batch } => units.div_ceil(batch.max(1)),
            Cut::Ranges(ranges) => ranges.len() as u64,
        }
    }

    /// The unit range of batch `b` (`b` < [`JobKind::batch_count`]), computed when
    /// needed: a coordinator keeps no per-batch record of it. Empty past the end.
    fn batch_range(&self, b: u64) -> Range<u64> {
        match self.cut() {
            Cut::Even { units, batch } => batch_range(units, batch, b),
            Cut::Ranges(ranges) => ranges.get(b as usize).cloned().unwrap_or(0..0),
        }
    }

    /// Every batch's unit range, in batch order.
    #[cfg(test)]
    fn batch_ranges(&self) -> Vec<Range<u64>> {
        (0..self.batch_count())
            .map(|b| self.batch_range(b))
            .collect()
    }

    /// Clears in `spec` (this job's) what does not change a batch's result, so
    /// that two submissions of the same work encode to the same bytes: the memo
    /// identity ([`identity`]). Clearing nothing is always safe (only an
    /// identical resubmission is then reused).
    fn canonical(&self, _spec: &mut v1::JobSpec) {}

    /// The spec a lease of `units` of this job (submitted as `spec`) carries: the
    /// job's spec, borrowed so that sizing a lease copies nothing, unless the
    /// kind sends a slice of it.
    fn lease_spec<'s>(&self, spec: &'s v1::JobSpec, _units: &Range<u64>) -> Cow<'s, v1::JobSpec> {
        Cow::Borrowed(spec)
    }

    /// The waves of a job whose stop rules read its totals (only the current
    /// wave's batches are released); `None`: every batch at once.
    fn waves(&self) -> Option<Waves> {
        None
    }

    /// The rollout whose first-move tables the cluster shares
    /// ([`crate::first_ply`]); `None` for kinds without them.
    fn first_ply_job(&self) -> Option<&RolloutJob> {
        None
    }

    /// The position (GNU Backgammon position ID) the job was asked about, for
    /// `ListResults`.
    fn query_position(&self) -> Option<&str> {
        None
    }

    /// The nets bundle the job (submitted as `spec`) carries for its workers
    /// (`GetJobNets`).
    fn nets<'s>(&self, _spec: &'s v1::JobSpec) -> Option<&'s [u8]> {
        None
    }

    /// Checks a result handed in for the batch over `units`, run for the rollout
    /// candidates `active` (empty: all); `Ok` carries the bytes to store and the
    /// decoded outcome. A bad result is rejected and never stored.
    fn check_result(
        &self,
        units: &Range<u64>,
        active: &[bool],
        r: &v1::BatchResult,
    ) -> Result<(Vec<u8>, Outcome), String>;

    /// Decodes a stored result (the bytes are the wire message the coordinator
    /// accepted, [`JobKind::check_result`]'s).
    fn decode_result(&self, bytes: &[u8]) -> Result<Outcome, String>;

    /// Folds the accepted batches (each with its unit range, in batch order) into
    /// the kind's fields of `out`, bit-identical to the embedded run's result.
    fn fold(
        &self,
        outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
        out: &mut v1::GetJobResponse,
    );

    /// The HTML of a finished job's result on its page, from its folded fields
    /// ([`JobKind::fold`]); `Err` when they cannot be read (a bug, shown as such).
    fn render(&self, folded: &v1::GetJobResponse) -> Result<String, String>;

    /// The HTML of what the job computes, shown on its page from submission on
    /// (a rollout's position, candidates and settings); `None`: nothing beyond
    /// its kind.
    fn describe(&self) -> Option<String> {
        None
    }
}

/// Why a submitted (or stored) spec is refused; its `Display` is the one-line
/// message of INVALID_ARGUMENT, naming the field.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecError {
    /// A spec of no kind.
    NoKind,
    /// A missing or over-long engine fingerprint (of a spec of that kind).
    Fingerprint(&'static str),
    /// A rollout's query label with a position ID or input too long.
    QueryTooLong,
    /// A rollout's query label with dice other than two of 1 to 6.
    QueryDice,
    /// The plan's own limits or the wire's (the message names the field).
    Plan(String),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::NoKind => write!(
                f,
                "job spec has no kind: submit a rollout, a match simulation, a study or labels"
            ),
            SpecError::Fingerprint(kind) => write!(
                f,
                "{kind} spec needs the engine fingerprint (1 to {MAX_FINGERPRINT} characters)"
            ),
            SpecError::QueryTooLong => write!(
                f,
                "rollout query: position ID of at most 64 and input of at most {} characters",
                rollout::MAX_QUERY_INPUT
            ),
            SpecError::QueryDice => {
                write!(
                    f,
                    "rollout query: dice must be two values of 1 to 6, or none"
                )
            }
            SpecError::Plan(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for SpecError {}

impl From<Invalid> for SpecError {
    fn from(e: Invalid) -> SpecError {
        SpecError::Plan(e.0)
    }
}

/// The fingerprint of a spec of `kind`: 1 to [`MAX_FINGERPRINT`] characters.
fn fingerprint(f: &str, kind: &'static str) -> Result<String, SpecError> {
    if f.is_empty() || f.len() > MAX_FINGERPRINT {
        return Err(SpecError::Fingerprint(kind));
    }
    Ok(f.to_string())
}

/// The work of a submitted (or stored) spec, validated: the one dispatch on a
/// spec's kind.
pub fn decode(spec: &v1::JobSpec) -> Result<Work, SpecError> {
    use v1::job_spec::Kind;
    Ok(match &spec.kind {
        Some(Kind::Rollout(r)) => Arc::new(rollout::Rollout::decode(r)?),
        Some(Kind::MatchSim(m)) => Arc::new(matchsim::MatchSim::decode(m)?),
        Some(Kind::Study(s)) => Arc::new(study::Study::decode(s)?),
        Some(Kind::Label(l)) => Arc::new(label::Label::decode(l)?),
        Some(Kind::Analysis(a)) => Arc::new(analysis::Analyse::decode(a)?),
        None => return Err(SpecError::NoKind),
    })
}

/// The memo identity of `work` submitted as `spec`: a SHA-256 of the spec with
/// what does not change a batch's result cleared ([`JobKind::canonical`]).
pub fn identity(work: &dyn JobKind, spec: &v1::JobSpec) -> Identity {
    let mut s = spec.clone();
    work.canonical(&mut s);
    memo::identity(&s.encode_to_vec())
}

/// The memo identity of `spec` ([`identity`]), for an embedded run that keeps its
/// batches in a local store as a coordinator does (`--data DIR`).
pub fn memo_identity(spec: &v1::JobSpec) -> Result<Identity, SpecError> {
    Ok(identity(&*decode(spec)?, spec))
}

/// The unit of a job described as `label` ([`JobKind::label`], as `jobs list`
/// receives it): "trials", "pairs" or "positions"; "units" for a kind this
/// release does not know.
pub fn unit_of(label: &str) -> &'static str {
    let name = label.split(' ').next().unwrap_or("");
    [
        (rollout::NAME, rollout::UNIT),
        (matchsim::NAME, matchsim::UNIT),
        (study::NAME, study::UNIT),
        (label::NAME, label::UNIT),
        (analysis::NAME, analysis::UNIT),
    ]
    .into_iter()
    .find(|(n, _)| *n == name)
    .map_or("units", |(_, u)| u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_needs_a_kind_and_units_are_named() {
        assert_eq!(
            decode(&v1::JobSpec { kind: None }).err(),
            Some(SpecError::NoKind)
        );
        assert_eq!(unit_of("rollout"), "trials");
        assert_eq!(unit_of("study cube-life"), "pairs");
        assert_eq!(unit_of("match-sim"), "pairs");
        assert_eq!(unit_of("label 2-ply"), "positions");
        assert_eq!(unit_of("something new"), "units");
    }
}
