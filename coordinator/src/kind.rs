//! The kinds of job and what the coordinator keeps of each: its plan, decoded from
//! the submitted spec and validated ([`bgfarm_engine::rollout::RolloutPlan`],
//! [`bgfarm_engine::matchsim::SimPlan`], [`bgfarm_engine::matchsim::StudyPlan`],
//! [`bgfarm_engine::label::LabelPlan`]),
//! and the engine fingerprint its results must be computed with. How a work unit
//! (a trial of a rollout, a duplicate pair of a match simulation or of a study's
//! cell, a position to label) is computed is the workers' business.

use crate::split_batches;
use bgfarm_engine::label::LabelPlan;
use bgfarm_engine::matchsim::{SimPlan, StudyPlan};
use bgfarm_engine::rollout::RolloutPlan;
use bgfarm_proto::convert::plan_from_wire;
use bgfarm_proto::label::{label_plan_from_wire, lease_spec, nets_digest};
use bgfarm_proto::matchsim::sim_plan_from_wire;
use bgfarm_proto::study::study_from_wire;
use bgfarm_proto::v1;
use std::borrow::Cow;
use std::ops::Range;

/// Longest engine fingerprint accepted.
const MAX_FINGERPRINT: usize = 200;

/// The work of a job: its plan and the engine fingerprint of its results.
#[derive(Clone, Debug)]
pub enum Work {
    Rollout {
        plan: RolloutPlan,
        fingerprint: String,
    },
    MatchSim {
        plan: SimPlan,
        fingerprint: String,
    },
    /// Units are the pairs of every cell, cell after cell.
    Study {
        plan: StudyPlan,
        fingerprint: String,
    },
    /// Units are the positions; a lease carries only its batch's, and the digest
    /// of the job's nets (empty: the built-in nets) instead of the nets.
    Label {
        plan: LabelPlan,
        fingerprint: String,
        nets_sha256: Vec<u8>,
    },
}

/// The fingerprint of a spec of `kind`: 1 to [`MAX_FINGERPRINT`] characters.
fn fingerprint(f: &str, kind: &str) -> Result<String, String> {
    if f.is_empty() || f.len() > MAX_FINGERPRINT {
        return Err(format!(
            "{kind} spec needs the engine fingerprint (1 to {MAX_FINGERPRINT} characters)"
        ));
    }
    Ok(f.to_string())
}

/// Longest `RolloutQuery.input` accepted (an XGID has about 60 characters).
const MAX_QUERY_INPUT: usize = 200;

/// Checks a rollout's query label: a short position ID and input, and no dice or
/// two dice of 1 to 6.
fn check_query(q: Option<&v1::RolloutQuery>) -> Result<(), String> {
    let Some(q) = q else { return Ok(()) };
    if q.position_id.len() > 64 || q.input.len() > MAX_QUERY_INPUT {
        return Err(format!(
            "rollout query: position ID of at most 64 and input of at most {MAX_QUERY_INPUT} characters"
        ));
    }
    if !(q.dice.is_empty() || q.dice.len() == 2 && q.dice.iter().all(|d| (1..=6).contains(d))) {
        return Err("rollout query: dice must be two values of 1 to 6, or none".into());
    }
    Ok(())
}

impl Work {
    /// The work of a submitted (or stored) spec, validated; `Err` carries the
    /// message for INVALID_ARGUMENT, naming the field.
    pub fn of(spec: &v1::JobSpec) -> Result<Work, String> {
        match &spec.kind {
            Some(v1::job_spec::Kind::Rollout(r)) => Ok(Work::Rollout {
                fingerprint: fingerprint(&r.fingerprint, "rollout")?,
                plan: {
                    check_query(r.query.as_ref())?;
                    plan_from_wire(r).map_err(|e| e.0)?
                },
            }),
            Some(v1::job_spec::Kind::MatchSim(m)) => Ok(Work::MatchSim {
                fingerprint: fingerprint(&m.fingerprint, "match-sim")?,
                plan: sim_plan_from_wire(m).map_err(|e| e.0)?,
            }),
            Some(v1::job_spec::Kind::Study(m)) => Ok(Work::Study {
                fingerprint: fingerprint(&m.fingerprint, "study")?,
                plan: study_from_wire(m).map_err(|e| e.0)?,
            }),
            Some(v1::job_spec::Kind::Label(l)) => Ok(Work::Label {
                fingerprint: fingerprint(&l.fingerprint, "label")?,
                plan: label_plan_from_wire(l).map_err(|e| e.0)?,
                nets_sha256: if l.nets.is_empty() {
                    Vec::new()
                } else {
                    nets_digest(&l.nets)
                },
            }),
            None => Err(
                "job spec has no kind: submit a rollout, a match simulation, a study or labels"
                    .into(),
            ),
        }
    }

    /// The engine fingerprint of the job: only workers with it are leased batches.
    pub fn fingerprint(&self) -> &str {
        match self {
            Work::Rollout { fingerprint, .. }
            | Work::MatchSim { fingerprint, .. }
            | Work::Study { fingerprint, .. }
            | Work::Label { fingerprint, .. } => fingerprint,
        }
    }

    /// Work units: trials per candidate, duplicate pairs or positions.
    pub fn units(&self) -> u64 {
        match self {
            Work::Rollout { plan, .. } => plan.trials,
            Work::MatchSim { plan, .. } => plan.pairs,
            Work::Study { plan, .. } => plan.units(),
            Work::Label { plan, .. } => plan.positions.len() as u64,
        }
    }

    /// The batches' unit ranges, in batch order: the unit of leasing and of the
    /// deterministic fold.
    pub fn batch_ranges(&self) -> Vec<Range<u64>> {
        match self {
            Work::Rollout { plan, .. } => split_batches(plan.trials, plan.batch),
            Work::MatchSim { plan, .. } => split_batches(plan.pairs, plan.batch),
            Work::Study { plan, .. } => plan.batch_ranges(),
            Work::Label { plan, .. } => split_batches(plan.positions.len() as u64, plan.batch),
        }
    }

    /// The spec a lease of `units` of this job (submitted as `spec`) carries: the
    /// job's spec (borrowed, so that sizing a lease copies nothing), except that a
    /// label lease holds only its own positions.
    pub fn lease_spec<'s>(
        &self,
        spec: &'s v1::JobSpec,
        units: &Range<u64>,
    ) -> Cow<'s, v1::JobSpec> {
        match (&spec.kind, self) {
            (Some(v1::job_spec::Kind::Label(l)), Work::Label { nets_sha256, .. }) => {
                Cow::Owned(lease_spec(l, units, nets_sha256))
            }
            _ => Cow::Borrowed(spec),
        }
    }

    /// "rollout", "match-sim", "study" or "label", for logs and metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Work::Rollout { .. } => "rollout",
            Work::MatchSim { .. } => "match-sim",
            Work::Study { .. } => "study",
            Work::Label { .. } => "label",
        }
    }

    /// What the job is, for `jobs list`: [`Work::name`], a study with its own
    /// name (`study cube-life`), labels with their method (`label 2-ply`).
    pub fn label(&self) -> String {
        match self {
            Work::Study { plan, .. } => format!("study {}", plan.name),
            Work::Label { plan, .. } => format!("label {}", plan.method.describe()),
            w => w.name().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sim_plan;
    use bgfarm_engine::rollout::{Candidate, RolloutJob, StopRules, TrialSettings};
    use bgfarm_engine::Position;
    use bgfarm_proto::convert::plan_to_wire;
    use bgfarm_proto::matchsim::sim_plan_to_wire;

    fn rollout(trials: u64, batch: u64) -> v1::JobSpec {
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

    fn sim(pairs: u64, batch: u64) -> v1::JobSpec {
        sim_plan_to_wire(&sim_plan(pairs, batch), "fp")
    }

    #[test]
    fn specs_are_checked() {
        assert!(Work::of(&rollout(144, 36)).is_ok());
        assert!(Work::of(&rollout(0, 36)).is_err_and(|e| e.contains("trials")));
        assert!(Work::of(&rollout(144, 50)).is_err_and(|e| e.contains("multiple of 36")));
        let mut s = rollout(144, 36);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut s.kind {
            r.candidates[0].position_id = "nonsense".into();
        }
        assert!(Work::of(&s).is_err_and(|e| e.contains("position ID")));
        let mut s = rollout(144, 36);
        if let Some(v1::job_spec::Kind::Rollout(r)) = &mut s.kind {
            r.fingerprint.clear();
        }
        assert!(Work::of(&s).is_err_and(|e| e.contains("fingerprint")));
        assert!(Work::of(&v1::JobSpec { kind: None }).is_err());

        assert!(Work::of(&sim(40, 32)).is_ok());
        assert!(Work::of(&sim(0, 32)).is_err_and(|e| e.contains("pairs")));
        assert!(Work::of(&sim(40, 20)).is_err_and(|e| e.contains("multiple of 16")));
        let mut s = sim(40, 32);
        if let Some(v1::job_spec::Kind::MatchSim(m)) = &mut s.kind {
            m.length = 65;
        }
        assert!(Work::of(&s).is_err_and(|e| e.contains("64")));
    }

    #[test]
    fn studies_are_checked_and_cut_per_cell() {
        use bgfarm_engine::matchsim::StudyCell;
        use bgfarm_proto::study::study_to_wire;
        let cell = |pairs| StudyCell {
            plan: sim_plan(pairs, 32),
            symmetric: false,
        };
        let study = StudyPlan {
            name: "cube-life".into(),
            cells: vec![cell(40), cell(16)],
        };
        let w = Work::of(&study_to_wire(&study, "fp")).expect("valid");
        assert_eq!((w.name(), w.label()), ("study", "study cube-life".into()));
        assert_eq!(w.units(), 56);
        assert_eq!(w.batch_ranges(), vec![0..32, 32..40, 40..56]);
        assert!(Work::of(&study_to_wire(&study, "")).is_err_and(|e| e.contains("fingerprint")));
        let mut bad = study.clone();
        bad.cells.clear();
        assert!(Work::of(&study_to_wire(&bad, "fp")).is_err_and(|e| e.contains("one cell")));
        let mut bad = study;
        bad.cells[1].symmetric = true;
        assert!(Work::of(&study_to_wire(&bad, "fp")).is_err_and(|e| e.contains("cell 1")));
    }

    #[test]
    fn label_jobs_are_checked_and_leases_carry_their_positions() {
        use bgfarm_engine::label::LabelMethod;
        use bgfarm_engine::search::Pruning;
        use bgfarm_proto::label::label_plan_to_wire;
        let plan = LabelPlan {
            positions: vec![Position::STARTING; 5],
            method: LabelMethod::Search {
                ply: 2,
                prune: Pruning::DEFAULT,
            },
            batch: 2,
        };
        let spec = label_plan_to_wire(&plan, &[], "fp");
        let w = Work::of(&spec).expect("valid");
        assert_eq!((w.name(), w.label()), ("label", "label 2-ply".into()));
        assert_eq!(w.units(), 5);
        assert_eq!(w.batch_ranges(), vec![0..2, 2..4, 4..5]);
        let Some(v1::job_spec::Kind::Label(l)) = w.lease_spec(&spec, &(4..5)).into_owned().kind
        else {
            panic!("a label lease");
        };
        assert_eq!((l.offset, l.position_ids.len()), (4, 1));
        assert!(l.nets_sha256.is_empty());
        assert!(
            Work::of(&label_plan_to_wire(&plan, &[], "")).is_err_and(|e| e.contains("fingerprint"))
        );
        // A job's nets stay on the coordinator; its leases carry their digest.
        let nets = bgfarm_engine::eval::default_nets::BYTES;
        let spec = label_plan_to_wire(&plan, nets, "fp");
        let w = Work::of(&spec).expect("valid");
        let Some(v1::job_spec::Kind::Label(l)) = w.lease_spec(&spec, &(0..2)).into_owned().kind
        else {
            panic!("a label lease");
        };
        assert!(l.nets.is_empty() && l.nets_sha256 == nets_digest(nets));
        let mut bad = plan;
        bad.batch = 0;
        assert!(Work::of(&label_plan_to_wire(&bad, &[], "fp")).is_err_and(|e| e.contains("batch")));
        // Another kind's lease carries the whole spec.
        let r = rollout(144, 36);
        assert_eq!(*Work::of(&r).expect("valid").lease_spec(&r, &(0..36)), r);
    }
}
