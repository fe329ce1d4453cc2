//! Wire messages <-> the engine's label plans ([`bgfarm_engine::label`]): a whole
//! plan ([`label_plan_to_wire`], [`label_plan_from_wire`]), the slice of it a
//! lease carries ([`lease_spec`], [`lease_positions`]), the labels of a batch
//! ([`labels_to_wire`], [`labels_from_wire`]) and the nets a job may carry
//! ([`nets_digest`]). The limits are the engine's
//! ([`bgfarm_engine::label::plan`]).

use crate::convert::Invalid;
use crate::v1;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::label::{
    check_nets, LabelMethod, LabelPlan, LabelPlanError, MAX_LABEL_POSITIONS,
};
use bgfarm_engine::search::Pruning;
use bgfarm_engine::Position;
use sha2::{Digest, Sha256};
use std::ops::Range;

/// The SHA-256 of a nets bundle: what a lease carries in its place, and what a
/// worker checks the fetched bundle against.
pub fn nets_digest(nets: &[u8]) -> Vec<u8> {
    Sha256::digest(nets).to_vec()
}

/// The wire spec of `plan` (checked by the caller), labelled with the nets of
/// bundle `nets` (empty: the built-in nets) and engine `fingerprint`. Fields the
/// method does not use stay 0, so two specs of the same labels are the same
/// bytes.
pub fn label_plan_to_wire(plan: &LabelPlan, nets: &[u8], fingerprint: &str) -> v1::JobSpec {
    let mut spec = v1::LabelSpec {
        position_ids: plan.positions.iter().map(position_id::encode).collect(),
        batch_size: plan.batch,
        fingerprint: fingerprint.to_string(),
        nets: nets.to_vec(),
        ..Default::default()
    };
    match plan.method {
        LabelMethod::Search { ply, prune } => {
            spec.ply = u32::from(ply);
            spec.prune = u32::from(prune.keep);
        }
        LabelMethod::Rollout { trials, seed } => {
            spec.rollout_trials = trials;
            spec.seed = seed;
        }
    }
    v1::JobSpec {
        kind: Some(v1::job_spec::Kind::Label(spec)),
    }
}

/// The method of `spec`, checked.
fn method_from_wire(spec: &v1::LabelSpec) -> Result<LabelMethod, Invalid> {
    let method = if spec.rollout_trials > 0 {
        LabelMethod::Rollout {
            trials: spec.rollout_trials,
            seed: spec.seed,
        }
    } else {
        let small = |v: u32, what: &str| {
            u8::try_from(v).map_err(|_| Invalid(format!("label {what} {v} is out of range")))
        };
        LabelMethod::Search {
            ply: small(spec.ply, "ply")?,
            prune: Pruning {
                keep: small(spec.prune, "pruning")?,
            },
        }
    };
    method.validate().map_err(invalid)?;
    Ok(method)
}

/// Decodes position IDs; an error names the first bad one by its index in the job.
fn positions(ids: &[String], offset: u64) -> Result<Vec<Position>, Invalid> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let pos = position_id::decode(id).map_err(|e| {
                Invalid(format!(
                    "label position {}: position ID {id:?}: {e}",
                    offset + i as u64
                ))
            })?;
            if pos.game_over() {
                return Err(Invalid(format!(
                    "label position {}: position ID {id:?} is a finished game",
                    offset + i as u64
                )));
            }
            Ok(pos)
        })
        .collect()
}

/// A label plan's error as a wire error (its message).
fn invalid(e: LabelPlanError) -> Invalid {
    Invalid(e.to_string())
}

/// The plan of a submitted spec: valid positions of unfinished games within the
/// engine's limits ([`LabelPlan::validate`]), offset 0, a valid method and batch
/// size, and nets that load.
pub fn label_plan_from_wire(spec: &v1::LabelSpec) -> Result<LabelPlan, Invalid> {
    // Before decoding: an oversized job costs no decoding.
    let n = spec.position_ids.len();
    if n > MAX_LABEL_POSITIONS {
        return Err(invalid(LabelPlanError::TooManyPositions(n)));
    }
    if spec.offset != 0 || !spec.nets_sha256.is_empty() {
        return Err(Invalid(
            "a submitted label job starts at position 0 and carries its nets, not their digest"
                .into(),
        ));
    }
    if !spec.nets.is_empty() {
        check_nets(&spec.nets).map_err(invalid)?;
    }
    let plan = LabelPlan {
        positions: positions(&spec.position_ids, 0)?,
        method: method_from_wire(spec)?,
        batch: spec.batch_size,
    };
    plan.validate().map_err(invalid)?;
    Ok(plan)
}

/// The spec a lease of positions `range` of the job `spec` carries: only those
/// positions (a job may hold 50,000; a batch some hundred), `offset` the first,
/// and the digest `nets_sha256` of the job's nets ([`nets_digest`], computed
/// once per job; empty for the built-in nets) instead of the nets.
pub fn lease_spec(spec: &v1::LabelSpec, range: &Range<u64>, nets_sha256: &[u8]) -> v1::JobSpec {
    let (from, to) = (range.start as usize, range.end as usize);
    v1::JobSpec {
        kind: Some(v1::job_spec::Kind::Label(v1::LabelSpec {
            position_ids: spec.position_ids.get(from..to).unwrap_or(&[]).to_vec(),
            offset: range.start,
            ply: spec.ply,
            prune: spec.prune,
            rollout_trials: spec.rollout_trials,
            seed: spec.seed,
            batch_size: spec.batch_size,
            fingerprint: spec.fingerprint.clone(),
            nets: Vec::new(),
            nets_sha256: nets_sha256.to_vec(),
        })),
    }
}

/// What a worker labels for a lease of positions `range` with spec `spec` (the
/// lease's slice): the method and the positions, which must be exactly the range.
pub fn lease_positions(
    spec: &v1::LabelSpec,
    range: &Range<u64>,
) -> Result<(LabelMethod, Vec<Position>), Invalid> {
    let held = spec.offset..spec.offset + spec.position_ids.len() as u64;
    if *range != held {
        return Err(Invalid(format!(
            "lease of positions {}..{} carries positions {}..{}",
            range.start, range.end, held.start, held.end
        )));
    }
    Ok((
        method_from_wire(spec)?,
        positions(&spec.position_ids, spec.offset)?,
    ))
}

/// Labels on the wire, five floats each.
pub fn labels_to_wire(labels: &[[f32; OUTPUTS]]) -> v1::LabelStats {
    v1::LabelStats {
        probs: labels.iter().flatten().copied().collect(),
    }
}

/// Labels from the wire: a whole number of five-float labels.
pub fn labels_from_wire(w: &v1::LabelStats) -> Result<Vec<[f32; OUTPUTS]>, Invalid> {
    if !w.probs.len().is_multiple_of(OUTPUTS) {
        return Err(Invalid(format!(
            "{} label values are not whole labels of {OUTPUTS}",
            w.probs.len()
        )));
    }
    Ok(w.probs
        .chunks_exact(OUTPUTS)
        .map(|c| std::array::from_fn(|k| c[k]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> LabelPlan {
        LabelPlan {
            positions: vec![
                Position::STARTING,
                position_id::decode("/wEAAJjtCEB4AA").expect("a race"),
                Position::STARTING.switch_sides(),
            ],
            method: LabelMethod::Search {
                ply: 2,
                prune: Pruning::DEFAULT,
            },
            batch: 2,
        }
    }

    fn label_spec(s: v1::JobSpec) -> v1::LabelSpec {
        match s.kind {
            Some(v1::job_spec::Kind::Label(l)) => l,
            _ => panic!("not a label spec"),
        }
    }

    #[test]
    fn plans_round_trip_and_leases_carry_their_slice() {
        for method in [
            plan().method,
            LabelMethod::Rollout {
                trials: 72,
                seed: 3,
            },
        ] {
            let p = LabelPlan { method, ..plan() };
            let w = label_spec(label_plan_to_wire(&p, &[], "fp"));
            assert_eq!(label_plan_from_wire(&w), Ok(p.clone()));
            let lease = label_spec(lease_spec(&w, &(2..3), &[]));
            assert_eq!((lease.offset, lease.position_ids.len()), (2, 1));
            assert_eq!(
                lease_positions(&lease, &(2..3)),
                Ok((method, vec![p.positions[2]]))
            );
            assert!(lease_positions(&lease, &(0..2)).is_err_and(|e| e.0.contains("carries")));
            // A lease's slice is not a job.
            assert!(label_plan_from_wire(&lease).is_err_and(|e| e.0.contains("position 0")));
        }
    }

    #[test]
    fn bad_specs_are_named() {
        let good = label_spec(label_plan_to_wire(&plan(), &[], "fp"));
        let bad = |f: &dyn Fn(&mut v1::LabelSpec)| {
            let mut s = good.clone();
            f(&mut s);
            label_plan_from_wire(&s).map(|_| ()).map_err(|e| e.0)
        };
        assert!(bad(&|s| s.position_ids[1] = "nonsense".into())
            .is_err_and(|e| e.contains("label position 1")));
        assert!(bad(&|s| s.position_ids.clear()).is_err_and(|e| e.contains("one position")));
        assert!(bad(&|s| s.ply = 4).is_err_and(|e| e.contains("deeper")));
        assert!(bad(&|s| s.ply = 300).is_err_and(|e| e.contains("out of range")));
        assert!(bad(&|s| s.batch_size = 0).is_err_and(|e| e.contains("batch")));
        assert!(bad(&|s| s.rollout_trials = 100_000).is_err_and(|e| e.contains("trials")));
        assert!(
            bad(&|s| s.position_ids = vec![s.position_ids[0].clone(); 50_001])
                .is_err_and(|e| e.contains("at most 50000"))
        );
        // The mover has borne off: nothing to label.
        let mut off = [0u8; 25];
        off[5] = 15;
        let done = Position::from_arrays(&[0u8; 25], &off).expect("a finished game");
        assert!(done.game_over());
        assert!(bad(&|s| s.position_ids[0] = position_id::encode(&done))
            .is_err_and(|e| e.contains("finished")));
    }

    #[test]
    fn nets_travel_in_the_job_and_their_digest_in_leases() {
        let nets = bgfarm_engine::eval::default_nets::BYTES;
        let w = label_spec(label_plan_to_wire(&plan(), nets, "fp"));
        assert_eq!(label_plan_from_wire(&w), Ok(plan()));
        let digest = nets_digest(nets);
        let lease = label_spec(lease_spec(&w, &(0..2), &digest));
        assert!(lease.nets.is_empty());
        assert_eq!(lease.nets_sha256, digest);
        // A lease is not a job, and nets that are not a bundle are refused.
        assert!(label_plan_from_wire(&lease).is_err_and(|e| e.0.contains("digest")));
        let bad = label_spec(label_plan_to_wire(&plan(), b"not nets", "fp"));
        assert!(label_plan_from_wire(&bad).is_err_and(|e| e.0.contains("label nets")));
    }

    #[test]
    fn labels_travel_bit_for_bit() {
        let l = vec![
            [0.5, 0.125, 1e-9, 0.25, f32::MIN_POSITIVE],
            [1.0, 0.0, 0.0, 0.0, 0.0],
        ];
        assert_eq!(labels_from_wire(&labels_to_wire(&l)), Ok(l));
        let odd = v1::LabelStats {
            probs: vec![0.5; 7],
        };
        assert!(labels_from_wire(&odd).is_err_and(|e| e.0.contains("whole labels")));
    }
}
