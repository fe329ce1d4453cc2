//! Label jobs: training labels of positions. Units are the positions; a lease
//! carries only its batch's position IDs (with the offset of the first) and the
//! digest of the job's nets instead of the nets, which a worker fetches once
//! (`GetJobNets`). A batch's result is its positions' labels, one each, each a
//! distribution as the engine writes labels; the fold returns the labels of the
//! leading done batches. Every limit of the kind is the engine's label plan's
//! (`bgfarm_engine::label::plan`: positions, ply, trials, batch, nets), checked
//! on the wire by `label_plan_from_wire` with typed errors.

use super::{fingerprint, leading_run, Cut, JobKind, SpecError};
use crate::html::{escape, facts};
use crate::outcome::Outcome;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::eval::Probs;
use bgfarm_engine::label::LabelPlan;
use bgfarm_proto::label::{
    label_plan_from_wire, labels_from_wire, labels_to_wire, lease_spec, nets_digest,
};
use bgfarm_proto::v1;
use prost::Message;
use std::borrow::Cow;
use std::ops::Range;

pub(super) const NAME: &str = "label";
pub(super) const UNIT: &str = "positions";

/// A label job.
#[derive(Debug)]
pub struct Label {
    plan: LabelPlan,
    fingerprint: String,
    /// The digest of the job's nets, which its leases carry in their place
    /// (empty: the built-in nets).
    nets_sha256: Vec<u8>,
}

impl Label {
    pub(super) fn decode(l: &v1::LabelSpec) -> Result<Label, SpecError> {
        Ok(Label {
            fingerprint: fingerprint(&l.fingerprint, NAME)?,
            plan: label_plan_from_wire(l)?,
            nets_sha256: if l.nets.is_empty() {
                Vec::new()
            } else {
                nets_digest(&l.nets)
            },
        })
    }
}

impl JobKind for Label {
    fn name(&self) -> &'static str {
        NAME
    }

    fn label(&self) -> String {
        format!("{NAME} {}", self.plan.method.describe())
    }

    fn unit(&self) -> &'static str {
        UNIT
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.plan.positions.len() as u64
    }

    fn cut(&self) -> Cut<'_> {
        Cut::Even {
            units: self.units(),
            batch: self.plan.batch,
        }
    }

    /// A label is a function of its position and method alone: the batch size
    /// does not change one, so a label run killed and started again with other
    /// batches is handed back what was computed.
    fn canonical(&self, spec: &mut v1::JobSpec) {
        if let Some(v1::job_spec::Kind::Label(l)) = &mut spec.kind {
            l.batch_size = 0;
        }
    }

    /// A label lease holds only its own positions (a job may hold 50,000; a batch
    /// some hundred) and the digest of the nets.
    fn lease_spec<'s>(&self, spec: &'s v1::JobSpec, units: &Range<u64>) -> Cow<'s, v1::JobSpec> {
        match &spec.kind {
            Some(v1::job_spec::Kind::Label(l)) => {
                Cow::Owned(lease_spec(l, units, &self.nets_sha256))
            }
            _ => Cow::Borrowed(spec),
        }
    }

    fn nets<'s>(&self, spec: &'s v1::JobSpec) -> Option<&'s [u8]> {
        match &spec.kind {
            Some(v1::job_spec::Kind::Label(l)) if !l.nets.is_empty() => Some(&l.nets),
            _ => None,
        }
    }

    fn check_result(
        &self,
        units: &Range<u64>,
        _active: &[bool],
        r: &v1::BatchResult,
    ) -> Result<(Vec<u8>, Outcome), String> {
        let wire = r.labels.as_ref().ok_or("label result without labels")?;
        let labels = labels_from_wire(wire).map_err(|e| e.0)?;
        check_labels(units, &labels)?;
        Ok((wire.encode_to_vec(), Outcome::Label(labels)))
    }

    fn decode_result(&self, bytes: &[u8]) -> Result<Outcome, String> {
        let w = v1::LabelStats::decode(bytes).map_err(|e| e.to_string())?;
        labels_from_wire(&w).map(Outcome::Label).map_err(|e| e.0)
    }

    /// Only the leading run of done batches: a label's place in the list is its
    /// position's, so a gap would shift every label after it.
    fn fold(
        &self,
        outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
        out: &mut v1::GetJobResponse,
    ) {
        let labels = leading_run(outcomes, |o| match o {
            Outcome::Label(l) => Some(l),
            _ => None,
        });
        out.labels = Some(labels_to_wire(&labels));
    }

    fn render(&self, folded: &v1::GetJobResponse) -> Result<String, String> {
        let wire = folded
            .labels
            .as_ref()
            .ok_or("labels missing from a finished label job")?;
        let labels = labels_from_wire(wire).map_err(|e| e.0)?;
        if labels.len() != self.plan.positions.len() {
            return Err("labels missing from a finished label job".into());
        }
        let mean: [f64; OUTPUTS] = std::array::from_fn(|k| {
            labels.iter().map(|l| f64::from(l[k])).sum::<f64>() / labels.len() as f64
        });
        Ok(render(
            &self.plan.method.describe(),
            labels.len() as u64,
            &mean,
        ))
    }
}

/// Checks the labels of the batch over positions `positions`: one per position,
/// each a distribution as the engine writes labels (`Probs::sanitized` leaves it
/// unchanged: every value in 0..1, gammons within wins, backgammons within
/// gammons, losing gammons within losses).
fn check_labels(positions: &Range<u64>, labels: &[[f32; OUTPUTS]]) -> Result<(), String> {
    let n = positions.end - positions.start;
    if labels.len() as u64 != n {
        return Err(format!(
            "{} labels in the result, the batch has {n} positions",
            labels.len()
        ));
    }
    for (i, l) in labels.iter().enumerate() {
        if Probs(*l).sanitized().0 != *l {
            return Err(format!(
                "the label of position {} is not a distribution: {l:?}",
                positions.start + i as u64
            ));
        }
    }
    Ok(())
}

/// A label job's summary: the labels themselves go to the client's file.
fn render(method: &str, positions: u64, mean: &[f64; OUTPUTS]) -> String {
    let names = [
        "win",
        "win gammon",
        "win backgammon",
        "lose gammon",
        "lose backgammon",
    ];
    let rows: Vec<(&str, String)> = names
        .iter()
        .zip(mean)
        .map(|(n, m)| (*n, format!("{m:.4}")))
        .collect();
    format!(
        "<h2>Labels</h2>
<p>{positions} positions labelled {}; the mean of each output over them:</p>
{}",
        escape(method),
        facts(&rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{decode, identity};
    use bgfarm_engine::label::LabelMethod;
    use bgfarm_engine::search::Pruning;
    use bgfarm_engine::Position;
    use bgfarm_proto::label::label_plan_to_wire;

    fn plan() -> LabelPlan {
        LabelPlan {
            positions: vec![Position::STARTING; 5],
            method: LabelMethod::Search {
                ply: 2,
                prune: Pruning::DEFAULT,
            },
            batch: 2,
        }
    }

    fn lease_of(w: &dyn JobKind, spec: &v1::JobSpec, units: Range<u64>) -> v1::LabelSpec {
        match w.lease_spec(spec, &units).into_owned().kind {
            Some(v1::job_spec::Kind::Label(l)) => l,
            _ => panic!("a label lease"),
        }
    }

    #[test]
    fn label_jobs_are_checked_and_leases_carry_their_positions() {
        let plan = plan();
        let spec = label_plan_to_wire(&plan, &[], "fp");
        let w = decode(&spec).expect("valid");
        assert_eq!((w.name(), w.label()), ("label", "label 2-ply".into()));
        assert_eq!((w.units(), w.unit()), (5, "positions"));
        assert_eq!(w.batch_ranges(), vec![0..2, 2..4, 4..5]);
        let l = lease_of(&*w, &spec, 4..5);
        assert_eq!((l.offset, l.position_ids.len()), (4, 1));
        assert!(l.nets_sha256.is_empty());
        assert!(w.nets(&spec).is_none());
        assert_eq!(
            decode(&label_plan_to_wire(&plan, &[], "")).err(),
            Some(SpecError::Fingerprint("label"))
        );
        // A job's nets stay on the coordinator; its leases carry their digest.
        let nets = bgfarm_engine::eval::default_nets::BYTES;
        let spec = label_plan_to_wire(&plan, nets, "fp");
        let w = decode(&spec).expect("valid");
        let l = lease_of(&*w, &spec, 0..2);
        assert!(l.nets.is_empty() && l.nets_sha256 == nets_digest(nets));
        assert_eq!(w.nets(&spec), Some(nets));
        let mut bad = plan.clone();
        bad.batch = 0;
        assert!(decode(&label_plan_to_wire(&bad, &[], "fp"))
            .is_err_and(|e| e.to_string().contains("batch")));
        // Another batch size is the same work.
        let mut other = plan;
        other.batch = 3;
        let id = |s: &v1::JobSpec| identity(&*decode(s).expect("valid"), s);
        assert_eq!(
            id(&label_plan_to_wire(&other, &[], "fp")),
            id(&label_plan_to_wire(&self::plan(), &[], "fp"))
        );
    }

    #[test]
    fn labels_are_checked() {
        let good = [0.6, 0.2, 0.01, 0.1, 0.005];
        assert!(check_labels(&(4..6), &[good, good]).is_ok());
        assert!(check_labels(&(4..6), &[good]).is_err_and(|e| e.contains("2 positions")));
        for bad in [
            [f32::NAN, 0.2, 0.01, 0.1, 0.005],
            [0.6, 0.7, 0.01, 0.1, 0.005],
            [0.6, 0.2, 0.01, 0.5, 0.005],
            [1.5, 0.2, 0.01, 0.0, 0.0],
        ] {
            assert!(check_labels(&(4..6), &[good, bad]).is_err_and(|e| e.contains("position 5")));
        }
    }

    #[test]
    fn labels_fold_up_to_the_first_batch_not_done() {
        let job = Label {
            plan: LabelPlan {
                method: LabelMethod::Rollout {
                    trials: 36,
                    seed: 1,
                },
                ..plan()
            },
            fingerprint: "fp".into(),
            nets_sha256: Vec::new(),
        };
        let l = |x: f32| [x, 0.0, 0.0, 0.0, 0.0];
        let b0 = (0..2, Outcome::Label(vec![l(0.1), l(0.2)]));
        let b2 = (4..5, Outcome::Label(vec![l(0.5)]));
        let got = |bs: &[&(Range<u64>, Outcome)]| {
            let mut a = v1::GetJobResponse::default();
            job.fold(&mut bs.iter().map(|&(r, o)| (r.clone(), o.clone())), &mut a);
            labels_from_wire(&a.labels.expect("labels")).expect("whole labels")
        };
        assert_eq!(got(&[&b0, &b2]), vec![l(0.1), l(0.2)]);
        assert!(got(&[&b2]).is_empty());
        let b1 = (2..4, Outcome::Label(vec![l(0.3), l(0.4)]));
        assert_eq!(
            got(&[&b0, &b1, &b2]),
            vec![l(0.1), l(0.2), l(0.3), l(0.4), l(0.5)]
        );
    }

    #[test]
    fn labels_show_their_method_and_means() {
        let html = render("2-ply", 300, &[0.5, 0.14, 0.006, 0.13, 0.005]);
        assert!(html.contains("300 positions labelled 2-ply"), "{html}");
        assert!(
            html.contains("win gammon") && html.contains("0.1400"),
            "{html}"
        );
    }
}
