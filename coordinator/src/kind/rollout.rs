//! Rollouts: units are trials per candidate; a batch's result is one set of exact
//! fixed-point sums per candidate ([`RolloutStats`]), merged in batch order. The
//! plan's limits are [`RolloutPlan::validate`]'s; the query label's are here.

use super::rollout_page as page;
use super::{fingerprint, Cut, JobKind, SpecError};
use crate::outcome::Outcome;
use bgfarm_engine::rollout::{RolloutJob, RolloutPlan, RolloutStats, Waves, OUTPUTS};
use bgfarm_proto::convert::{plan_from_wire, stats_from_wire, stats_to_wire};
use bgfarm_proto::v1;
use prost::Message;
use std::ops::Range;

pub(super) const NAME: &str = "rollout";
pub(super) const UNIT: &str = "trials";

/// Longest `RolloutQuery.input` accepted (an XGID has about 60 characters).
pub(super) const MAX_QUERY_INPUT: usize = 200;
/// Longest `RolloutQuery.position_id` accepted.
const MAX_QUERY_POSITION: usize = 64;

/// Largest magnitude of one trial output the engine can produce is 3 (backgammon)
/// plus the summed luck of a long game; 64 is far beyond any real trial and keeps
/// sums of squares of 2^24-trial batches inside i128 when checked.
const MAX_ABS_OUTPUT: i128 = 64;
/// The cubeful output (the last) is in points per starting cube: up to 3 times the
/// largest money cube a trial turns (2^12) plus the summed luck.
const MAX_ABS_CUBEFUL: i128 = 3 * (1 << 12) + 64;
/// Fixed-point scale of the engine accumulators (2^32).
const SCALE: i128 = 1 << 32;

/// A rollout job.
#[derive(Debug)]
pub struct Rollout {
    plan: RolloutPlan,
    fingerprint: String,
    /// What it was asked about (its query label): the position for
    /// `ListResults`, the input and roll for the page.
    query: Option<v1::RolloutQuery>,
}

/// Checks a rollout's query label: a short position ID and input, and no dice or
/// two dice of 1 to 6.
fn check_query(q: Option<&v1::RolloutQuery>) -> Result<(), SpecError> {
    let Some(q) = q else { return Ok(()) };
    if q.position_id.len() > MAX_QUERY_POSITION || q.input.len() > MAX_QUERY_INPUT {
        return Err(SpecError::QueryTooLong);
    }
    if !(q.dice.is_empty() || q.dice.len() == 2 && q.dice.iter().all(|d| (1..=6).contains(d))) {
        return Err(SpecError::QueryDice);
    }
    Ok(())
}

impl Rollout {
    pub(super) fn decode(r: &v1::RolloutSpec) -> Result<Rollout, SpecError> {
        let fingerprint = fingerprint(&r.fingerprint, NAME)?;
        check_query(r.query.as_ref())?;
        Ok(Rollout {
            plan: plan_from_wire(r)?,
            fingerprint,
            query: r.query.clone(),
        })
    }
}

impl JobKind for Rollout {
    fn name(&self) -> &'static str {
        NAME
    }

    fn unit(&self) -> &'static str {
        UNIT
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.plan.trials
    }

    fn cut(&self) -> Cut<'_> {
        Cut::Even {
            units: self.plan.trials,
            batch: self.plan.batch,
        }
    }

    /// More trials, another batch size (the batch cut is the same for the same
    /// size, and results are exact sums), other stop rules or another query label
    /// leave a batch's result unchanged.
    fn canonical(&self, spec: &mut v1::JobSpec) {
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut spec.kind {
            r.trials = 0;
            r.batch_size = 0;
            r.stop = None;
            r.query = None;
        }
    }

    fn waves(&self) -> Option<Waves> {
        self.plan.stop.any().then(|| Waves::new(&self.plan))
    }

    fn first_ply_job(&self) -> Option<&RolloutJob> {
        Some(&self.plan.job)
    }

    fn query_position(&self) -> Option<&str> {
        self.query.as_ref().map(|q| q.position_id.as_str())
    }

    fn check_result(
        &self,
        units: &Range<u64>,
        active: &[bool],
        r: &v1::BatchResult,
    ) -> Result<(Vec<u8>, Outcome), String> {
        let wire = r
            .stats
            .as_ref()
            .ok_or("rollout result without statistics")?;
        let stats = stats_from_wire(wire).map_err(|e| e.0)?;
        check_stats(self.plan.job.candidates.len(), units, active, &stats)?;
        Ok((wire.encode_to_vec(), Outcome::Rollout(stats)))
    }

    fn decode_result(&self, bytes: &[u8]) -> Result<Outcome, String> {
        let w = v1::BatchStats::decode(bytes).map_err(|e| e.to_string())?;
        stats_from_wire(&w).map(Outcome::Rollout).map_err(|e| e.0)
    }

    fn fold(
        &self,
        outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
        out: &mut v1::GetJobResponse,
    ) {
        let mut total = RolloutStats::new(self.plan.job.candidates.len());
        for (_, o) in outcomes {
            if let Some(s) = o.as_rollout() {
                total.merge(s);
            }
        }
        out.aggregate = Some(stats_to_wire(&total));
    }

    fn render(&self, folded: &v1::GetJobResponse) -> Result<String, String> {
        let wire = folded
            .aggregate
            .as_ref()
            .ok_or("no aggregate of the job's kind")?;
        let total = stats_from_wire(wire).map_err(|e| e.0)?;
        Ok(page::table(&self.plan.job, &total))
    }

    fn describe(&self) -> Option<String> {
        Some(page::describe(&self.plan, self.query.as_ref()))
    }
}

/// Checks a batch's statistics against its batch: one entry per candidate, each
/// output counting exactly the batch's trials (0 for inactive candidates), sums
/// within the range the engine can produce, and a non-negative variance.
fn check_stats(
    candidates: usize,
    trials: &Range<u64>,
    active: &[bool],
    stats: &RolloutStats,
) -> Result<(), String> {
    if stats.per_candidate.len() != candidates {
        return Err(format!(
            "{} candidates in the result, the job has {candidates}",
            stats.per_candidate.len()
        ));
    }
    let n = trials.end - trials.start;
    for (c, outs) in stats.per_candidate.iter().enumerate() {
        let want = if active.is_empty() || active.get(c).copied().unwrap_or(false) {
            n
        } else {
            0
        };
        for (k, a) in outs.iter().enumerate().take(OUTPUTS) {
            if a.count != want {
                return Err(format!(
                    "candidate {c} output {k}: count {}, expected {want}",
                    a.count
                ));
            }
            let count = i128::from(a.count);
            let bound = if k == OUTPUTS - 1 {
                MAX_ABS_CUBEFUL
            } else {
                MAX_ABS_OUTPUT
            };
            let max_sum = count * bound * SCALE;
            let max_sq = max_sum.checked_mul(bound * SCALE);
            let plausible = a.sum.abs() <= max_sum
                && a.sum_sq >= 0
                && max_sq.is_some_and(|m| a.sum_sq <= m)
                && count
                    .checked_mul(a.sum_sq)
                    .zip(a.sum.checked_mul(a.sum))
                    .is_some_and(|(lhs, rhs)| lhs >= rhs);
            if !plausible {
                return Err(format!("candidate {c} output {k}: sums out of range"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{decode, identity};
    use bgfarm_engine::rollout::{Candidate, StopRules, TrialSettings};
    use bgfarm_engine::Position;
    use bgfarm_proto::convert::plan_to_wire;

    fn spec(trials: u64, batch: u64) -> v1::JobSpec {
        let job = RolloutJob {
            candidates: vec![Candidate::position(Position::STARTING)],
            seed: 1,
            settings: TrialSettings::default(),
        };
        let stop = StopRules::default();
        plan_to_wire(
            &RolloutPlan {
                job,
                trials,
                batch,
                stop,
            },
            "fp",
        )
    }

    fn err(s: &v1::JobSpec) -> String {
        decode(s).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn specs_are_checked() {
        let w = decode(&spec(144, 36)).expect("valid");
        assert_eq!(
            (w.name(), w.label(), w.unit()),
            ("rollout", "rollout".into(), "trials")
        );
        assert_eq!(w.batch_ranges(), vec![0..36, 36..72, 72..108, 108..144]);
        assert!(err(&spec(0, 36)).contains("trials"));
        assert!(err(&spec(144, 50)).contains("multiple of 36"));
        let mut s = spec(144, 36);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut s.kind {
            r.candidates[0].position_id = "nonsense".into();
        }
        assert!(err(&s).contains("position ID"));
        let mut s = spec(144, 36);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut s.kind {
            r.fingerprint.clear();
        }
        assert_eq!(decode(&s).err(), Some(SpecError::Fingerprint("rollout")));
        assert!(err(&s).contains("fingerprint"));
        let mut s = spec(144, 36);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut s.kind {
            r.query = Some(v1::RolloutQuery {
                dice: vec![7, 1],
                ..Default::default()
            });
        }
        assert_eq!(decode(&s).err(), Some(SpecError::QueryDice));
        // A lease carries the whole spec.
        let r = spec(144, 36);
        let w = decode(&r).expect("valid");
        assert_eq!(*w.lease_spec(&r, &(0..36)), r);
    }

    #[test]
    fn identity_ignores_only_what_leaves_batches_unchanged() {
        let id = |s: &v1::JobSpec| identity(&*decode(s).expect("valid"), s);
        let mut queried = spec(2592, 72);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut queried.kind {
            r.query = Some(v1::RolloutQuery {
                input: "x".into(),
                ..Default::default()
            });
        }
        assert_eq!(id(&spec(1296, 144)), id(&queried));
        let mut seeded = spec(1296, 144);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut seeded.kind {
            r.seed = 2;
        }
        assert_ne!(id(&spec(1296, 144)), id(&seeded));
    }

    #[test]
    fn results_are_checked() {
        let mut st = RolloutStats::new(2);
        for c in 0..2 {
            for _ in 0..36 {
                for a in st.per_candidate[c].iter_mut() {
                    a.add(0.25);
                }
            }
        }
        assert!(check_stats(2, &(0..36), &[], &st).is_ok());
        assert!(check_stats(3, &(0..36), &[], &st).is_err());
        assert!(check_stats(2, &(0..72), &[], &st).is_err_and(|e| e.contains("count 36")));
        assert!(check_stats(2, &(0..36), &[true, false], &st).is_err());
        let mut forged = st.clone();
        forged.per_candidate[1][5].sum_sq = -1;
        assert!(check_stats(2, &(0..36), &[], &forged).is_err_and(|e| e.contains("range")));
        let mut forged = st.clone();
        forged.per_candidate[0][0].sum = i128::MAX / 2;
        assert!(check_stats(2, &(0..36), &[], &forged).is_err());
    }

    #[test]
    fn a_rollout_shows_its_table() {
        let mut cand = Candidate::position(Position::STARTING);
        cand.label = Some("8/5 6/5 <x>".into());
        let job = RolloutJob {
            candidates: vec![cand],
            seed: 1,
            settings: TrialSettings::default(),
        };
        let html = page::table(&job, &RolloutStats::new(1));
        for h in ["move", "w.bg", "l.bg", "equity", "SE", "vs best"] {
            assert!(html.contains(&format!(">{h}</th>")), "{h}: {html}");
        }
        assert!(html.contains("8/5 6/5 &lt;x&gt;"));
    }
}
