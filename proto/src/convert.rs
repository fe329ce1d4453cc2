//! Wire messages <-> the engine's rollout types: [`plan_to_wire`] and
//! [`plan_from_wire`] carry a whole [`RolloutPlan`] (the decoded plan is checked by
//! [`RolloutPlan::validate`], the limits of every rollout), the statistics travel
//! by [`stats_to_wire`] and [`stats_from_wire`].
//!
//! Positions travel as GNU Backgammon position IDs (14 characters, lossless) and the
//! exact `i128` fixed-point sums as 16 little-endian bytes, so a batch result crosses
//! the network without losing a bit: the determinism contract (DESIGN.md) holds for
//! results computed on any worker.

use crate::v1;
use bgfarm_engine::cube::{Cube, Owner};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::met::MatchScore;
use bgfarm_engine::rollout::stats::Accumulator;
use bgfarm_engine::rollout::{
    Candidate, CubeRules, CubeStart, Luck, RolloutJob, RolloutPlan, RolloutStats, StopRules,
    TrialSettings, OUTPUTS,
};
use std::fmt;

/// A wire message that does not describe a valid job or result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}

fn invalid(m: impl Into<String>) -> Invalid {
    Invalid(m.into())
}

/// The wire form of trial settings.
pub fn settings_to_wire(s: &TrialSettings) -> v1::TrialSettings {
    let luck = match s.luck {
        Luck::Off => v1::Luck::Off,
        Luck::Full => v1::Luck::Full,
        Luck::Ranked => v1::Luck::Ranked,
        Luck::Auto => v1::Luck::Auto,
        Luck::Searched => v1::Luck::Searched,
    };
    v1::TrialSettings {
        luck: luck as i32,
        truncate: s.truncate,
        bearoff_truncation: s.bearoff_truncation,
        chequer_ply: u32::from(s.chequer_ply),
        opponent_ply: s.opponent_ply.map(u32::from),
        cube_ply: u32::from(s.cube_ply),
        late_from: s.late.map(|(f, _)| f),
        late_ply: s.late.map_or(0, |(_, p)| u32::from(p)),
        cube: s.cube.map(|c| v1::CubeRules {
            kind: Some(match c {
                CubeRules::Money { jacoby } => {
                    v1::cube_rules::Kind::Money(v1::MoneyRules { jacoby })
                }
                CubeRules::Match { score } => v1::cube_rules::Kind::MatchPlay(v1::MatchRules {
                    away: score.away,
                    opp_away: score.opp_away,
                    crawford: score.crawford,
                }),
            }),
        }),
    }
}

/// Cube rules from the wire, the match score checked like user input.
fn cube_rules_from_wire(c: &v1::CubeRules) -> Result<CubeRules, Invalid> {
    match &c.kind {
        Some(v1::cube_rules::Kind::Money(m)) => Ok(CubeRules::Money { jacoby: m.jacoby }),
        Some(v1::cube_rules::Kind::MatchPlay(m)) => {
            let score = MatchScore::new(m.away, m.opp_away, m.crawford)
                .map_err(|e| invalid(format!("cube rules: {e}")))?;
            Ok(CubeRules::Match { score })
        }
        None => Err(invalid("cube rules without money or match play")),
    }
}

fn cube_start_to_wire(c: &CubeStart) -> Option<v1::CubeStart> {
    if *c == CubeStart::default() {
        return None;
    }
    let owner = match c.cube.owner {
        Owner::Centred => v1::CubeOwner::Centred,
        Owner::Mover => v1::CubeOwner::Mover,
        Owner::Opponent => v1::CubeOwner::Opponent,
    };
    Some(v1::CubeStart {
        value: c.cube.value,
        owner: owner as i32,
        unit: c.unit,
        no_double_first: c.no_double_first,
    })
}

/// A candidate's starting cube: a power of two up to 2^15, a unit the cube or half
/// of it (the "double/take" branch), a known owner.
fn cube_start_from_wire(c: Option<&v1::CubeStart>) -> Result<CubeStart, Invalid> {
    let Some(c) = c else {
        return Ok(CubeStart::default());
    };
    if !c.value.is_power_of_two() || c.value > 1 << 15 {
        return Err(invalid(format!(
            "cube value {} is not a power of two up to 32768",
            c.value
        )));
    }
    if c.unit != c.value && c.unit * 2 != c.value {
        return Err(invalid(format!(
            "cube unit {} for a cube of {}",
            c.unit, c.value
        )));
    }
    let owner = match v1::CubeOwner::try_from(c.owner) {
        Ok(v1::CubeOwner::Centred) => Owner::Centred,
        Ok(v1::CubeOwner::Mover) => Owner::Mover,
        Ok(v1::CubeOwner::Opponent) => Owner::Opponent,
        Err(_) => return Err(invalid(format!("unknown cube owner {}", c.owner))),
    };
    Ok(CubeStart {
        cube: Cube {
            value: c.value,
            owner,
        },
        unit: c.unit,
        no_double_first: c.no_double_first,
    })
}

/// Trial settings from the wire; an unknown luck value is an error, not a default.
pub fn settings_from_wire(s: Option<&v1::TrialSettings>) -> Result<TrialSettings, Invalid> {
    let s = s.ok_or_else(|| invalid("rollout spec without trial settings"))?;
    let luck = match v1::Luck::try_from(s.luck) {
        Ok(v1::Luck::Off) => Luck::Off,
        Ok(v1::Luck::Full) => Luck::Full,
        Ok(v1::Luck::Ranked) => Luck::Ranked,
        Ok(v1::Luck::Auto) => Luck::Auto,
        Ok(v1::Luck::Searched) => Luck::Searched,
        _ => return Err(invalid(format!("unknown luck setting {}", s.luck))),
    };
    Ok(TrialSettings {
        luck,
        truncate: s.truncate,
        bearoff_truncation: s.bearoff_truncation,
        cube: s.cube.as_ref().map(cube_rules_from_wire).transpose()?,
        chequer_ply: ply_from_wire(s.chequer_ply, "chequer ply")?,
        opponent_ply: s
            .opponent_ply
            .map(|p| ply_from_wire(p, "opponent chequer ply"))
            .transpose()?,
        cube_ply: ply_from_wire(s.cube_ply, "cube ply")?,
        late: match s.late_from {
            Some(from) => Some((from, ply_from_wire(s.late_ply, "late chequer ply")?)),
            None => None,
        },
    })
}

/// A search depth of a rollout spec (`what`: which one); its bound is checked
/// with the plan ([`RolloutPlan::validate`]).
fn ply_from_wire(p: u32, what: &str) -> Result<u8, Invalid> {
    u8::try_from(p).map_err(|_| invalid(format!("{what} {p}: not a search depth")))
}

/// The wire form of stop rules (`None` without rules).
pub fn stop_to_wire(rules: &StopRules) -> Option<v1::StopRules> {
    rules.any().then(|| v1::StopRules {
        se_target: rules.se_target,
        jsd: rules.jsd.is_some(),
        jsd_min: rules.jsd.map_or(0, |j| j.0),
        jsd_k: rules.jsd.map_or(0.0, |j| j.1),
    })
}

/// Stop rules from the wire (absent: none).
pub fn stop_from_wire(w: Option<&v1::StopRules>) -> StopRules {
    let Some(w) = w else {
        return StopRules::default();
    };
    StopRules {
        se_target: w.se_target,
        jsd: w.jsd.then_some((w.jsd_min, w.jsd_k)),
    }
}

/// The wire spec of `plan`, to be computed with engine `fingerprint`.
pub fn plan_to_wire(plan: &RolloutPlan, fingerprint: &str) -> v1::JobSpec {
    let job = &plan.job;
    let candidates = job
        .candidates
        .iter()
        .map(|c| v1::RolloutCandidate {
            position_id: position_id::encode(&c.start),
            report_for_opponent: c.report_for_opponent,
            label: c.label.clone(),
            cube: cube_start_to_wire(&c.cube),
        })
        .collect();
    v1::JobSpec {
        kind: Some(v1::job_spec::Kind::Rollout(v1::RolloutSpec {
            candidates,
            seed: job.seed,
            settings: Some(settings_to_wire(&job.settings)),
            trials: plan.trials,
            batch_size: plan.batch,
            fingerprint: fingerprint.to_string(),
            stop: stop_to_wire(&plan.stop),
            query: None,
        })),
    }
}

/// The plan of a wire rollout spec, decoded and validated.
pub fn plan_from_wire(spec: &v1::RolloutSpec) -> Result<RolloutPlan, Invalid> {
    let plan = RolloutPlan {
        job: job_from_wire(spec)?,
        trials: spec.trials,
        batch: spec.batch_size,
        stop: stop_from_wire(spec.stop.as_ref()),
    };
    plan.validate().map_err(|e| invalid(e.to_string()))?;
    Ok(plan)
}

/// The engine job of a wire rollout spec (positions decoded and checked).
fn job_from_wire(spec: &v1::RolloutSpec) -> Result<RolloutJob, Invalid> {
    let mut candidates = Vec::with_capacity(spec.candidates.len());
    for (i, c) in spec.candidates.iter().enumerate() {
        let start = position_id::decode(&c.position_id).map_err(|e| {
            invalid(format!(
                "candidate {i}: position ID {:?}: {e}",
                c.position_id
            ))
        })?;
        candidates.push(Candidate {
            label: c.label.clone(),
            start,
            report_for_opponent: c.report_for_opponent,
            cube: cube_start_from_wire(c.cube.as_ref())?,
        });
    }
    Ok(RolloutJob {
        candidates,
        seed: spec.seed,
        settings: settings_from_wire(spec.settings.as_ref())?,
    })
}

/// The wire form of batch statistics.
pub fn stats_to_wire(s: &RolloutStats) -> v1::BatchStats {
    v1::BatchStats {
        candidates: s
            .per_candidate
            .iter()
            .map(|outs| v1::CandidateStats {
                outputs: outs
                    .iter()
                    .map(|a| v1::Accumulator {
                        count: a.count,
                        sum: a.sum.to_le_bytes().to_vec(),
                        sum_sq: a.sum_sq.to_le_bytes().to_vec(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// An `i128` from 16 little-endian bytes; `what` names the field, and is only
/// called on an error (this runs 12 times per result the coordinator receives).
fn i128_from_wire(b: &[u8], what: impl FnOnce() -> String) -> Result<i128, Invalid> {
    let arr: [u8; 16] = b
        .try_into()
        .map_err(|_| invalid(format!("{}: expected 16 bytes, got {}", what(), b.len())))?;
    Ok(i128::from_le_bytes(arr))
}

/// Batch statistics from the wire: every candidate must carry exactly
/// [`OUTPUTS`] accumulators with 16-byte sums.
pub fn stats_from_wire(s: &v1::BatchStats) -> Result<RolloutStats, Invalid> {
    let mut out = RolloutStats::new(s.candidates.len());
    for (c, (dst, src)) in out.per_candidate.iter_mut().zip(&s.candidates).enumerate() {
        if src.outputs.len() != OUTPUTS {
            return Err(invalid(format!(
                "candidate {c}: {} outputs, expected {OUTPUTS}",
                src.outputs.len()
            )));
        }
        for (k, (d, a)) in dst.iter_mut().zip(&src.outputs).enumerate() {
            *d = Accumulator {
                count: a.count,
                sum: i128_from_wire(&a.sum, || format!("candidate {c} output {k} sum"))?,
                sum_sq: i128_from_wire(&a.sum_sq, || format!("candidate {c} output {k} sum_sq"))?,
            };
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::Position;

    /// The plan of `job`, 144 trials in batches of 36, through the wire and back.
    fn round_trip(job: &RolloutJob) -> (v1::RolloutSpec, Result<RolloutPlan, Invalid>) {
        let plan = RolloutPlan {
            job: job.clone(),
            trials: 144,
            batch: 36,
            stop: StopRules::default(),
        };
        let wire = plan_to_wire(&plan, "fp");
        let Some(v1::job_spec::Kind::Rollout(r)) = wire.kind else {
            panic!("rollout spec")
        };
        let back = plan_from_wire(&r);
        (r, back)
    }

    #[test]
    fn stop_rules_round_trip() {
        let r = StopRules {
            se_target: Some(0.01),
            jsd: Some((324, 2.33)),
        };
        assert_eq!(stop_from_wire(stop_to_wire(&r).as_ref()), r);
        assert_eq!(stop_to_wire(&StopRules::default()), None);
    }

    #[test]
    fn jobs_and_stats_round_trip_exactly() {
        let job = RolloutJob {
            candidates: vec![
                Candidate {
                    label: None,
                    start: Position::STARTING,
                    report_for_opponent: false,
                    cube: Default::default(),
                },
                Candidate {
                    label: Some("8/5 6/5".into()),
                    start: Position::STARTING.switch_sides(),
                    report_for_opponent: true,
                    cube: Default::default(),
                },
            ],
            seed: 42,
            settings: TrialSettings {
                luck: Luck::Ranked,
                truncate: Some(6),
                bearoff_truncation: true,
                cube: None,
                chequer_ply: 0,
                opponent_ply: None,
                cube_ply: 0,
                late: None,
            },
        };
        let (_, back) = round_trip(&job);
        assert_eq!(back.map(|p| p.job), Ok(job.clone()));

        // Per-side chequer play survives the trip; an opponent ply beyond the
        // bound is refused.
        let mut sides = job.clone();
        sides.settings.chequer_ply = 1;
        sides.settings.opponent_ply = Some(0);
        let (r, back) = round_trip(&sides);
        assert_eq!(back.map(|p| p.job), Ok(sides.clone()));
        let mut deep = r.clone();
        if let Some(s) = deep.settings.as_mut() {
            s.opponent_ply = Some(7);
        }
        assert!(plan_from_wire(&deep).is_err_and(|e| e.0.contains("at most")));

        // Cubeful jobs keep their rules and every candidate's starting cube.
        let mut cubeful = job.clone();
        let score = MatchScore::new(3, 1, true).expect("score");
        for rules in [
            CubeRules::Money { jacoby: true },
            CubeRules::Match { score },
        ] {
            cubeful.settings.cube = Some(rules);
            cubeful.settings.cube_ply = 1;
            cubeful.candidates[1].cube = CubeStart {
                cube: Cube {
                    value: 2,
                    owner: Owner::Opponent,
                },
                unit: 1,
                no_double_first: false,
            };
            cubeful.candidates[0].cube.no_double_first = true;
            let (r, back) = round_trip(&cubeful);
            assert_eq!(back.map(|p| p.job), Ok(cubeful.clone()));
            // A forged cube is refused.
            let mut bad = r.clone();
            if let Some(c) = bad.candidates[1].cube.as_mut() {
                c.value = 3;
            }
            assert!(plan_from_wire(&bad).is_err());
        }

        let mut st = RolloutStats::new(2);
        st.per_candidate[1][5].add(-1.75);
        st.per_candidate[1][5].add(3.0);
        st.per_candidate[0][0].add(0.5);
        assert_eq!(stats_from_wire(&stats_to_wire(&st)), Ok(st));
    }

    #[test]
    fn malformed_stats_are_rejected() {
        let mut w = stats_to_wire(&RolloutStats::new(1));
        w.candidates[0].outputs[2].sum = vec![0; 15];
        assert!(stats_from_wire(&w).is_err_and(|e| e.0.contains("16 bytes")));
        w.candidates[0].outputs.pop();
        assert!(stats_from_wire(&w).is_err_and(|e| e.0.contains("outputs")));
    }
}
