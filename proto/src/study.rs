//! Wire messages <-> the engine's studies: [`study_to_wire`] and
//! [`study_from_wire`] carry a whole [`StudyPlan`]; a worker decodes only the cell
//! of its batch ([`study_cell_from_wire`]).
//!
//! Each cell travels as a match-simulation spec ([`sim_plan_to_wire`], so any field
//! a simulation gains travels with the cells) without its table and fingerprint:
//! the study sends the table once (33 KB, not 33 KB per cell) and one fingerprint.

use crate::convert::Invalid;
use crate::matchsim::{met_from_wire, met_to_wire, sim_plan_to_wire, sim_plan_with_met};
use crate::v1;
use bgfarm_engine::matchsim::study::{locate, MAX_CELLS};
use bgfarm_engine::matchsim::{StudyCell, StudyPlan, StudyPlanError};
use bgfarm_engine::met::MatchEquityTable;
use std::ops::Range;

/// A cell on the wire: its simulation spec without table and fingerprint.
pub fn cell_to_wire(cell: &StudyCell) -> v1::StudyCell {
    let plan = match sim_plan_to_wire(&cell.plan, "").kind {
        Some(v1::job_spec::Kind::MatchSim(mut m)) => {
            m.met = None;
            Some(m)
        }
        _ => None,
    };
    v1::StudyCell {
        plan,
        symmetric: cell.symmetric,
    }
}

/// The wire spec of `study` (validated by the caller), to be computed with engine
/// `fingerprint`. The table is the first cell's: [`StudyPlan::validate`] makes
/// every cell's the same.
pub fn study_to_wire(study: &StudyPlan, fingerprint: &str) -> v1::JobSpec {
    v1::JobSpec {
        kind: Some(v1::job_spec::Kind::Study(v1::StudySpec {
            name: study.name.clone(),
            cells: study.cells.iter().map(cell_to_wire).collect(),
            met: study.cells.first().map(|c| met_to_wire(&c.plan.met)),
            fingerprint: fingerprint.to_string(),
        })),
    }
}

fn cell_from_wire(
    c: usize,
    w: &v1::StudyCell,
    met: MatchEquityTable,
) -> Result<StudyCell, Invalid> {
    let spec = w
        .plan
        .as_ref()
        .ok_or_else(|| Invalid(format!("study cell {c} without its plan")))?;
    let plan = sim_plan_with_met(spec, met).map_err(|e| Invalid(format!("study cell {c}: {e}")))?;
    Ok(StudyCell {
        plan,
        symmetric: w.symmetric,
    })
}

/// The plan of a wire study spec, validated by [`StudyPlan::validate`].
pub fn study_from_wire(w: &v1::StudySpec) -> Result<StudyPlan, Invalid> {
    if w.cells.is_empty() {
        return Err(Invalid(StudyPlanError::Empty.to_string()));
    }
    if w.cells.len() > MAX_CELLS {
        return Err(Invalid(format!(
            "{} study cells: at most {MAX_CELLS}",
            w.cells.len()
        )));
    }
    let met = met_from_wire(w.met.as_ref())?;
    let cells = w
        .cells
        .iter()
        .enumerate()
        .map(|(c, cell)| cell_from_wire(c, cell, met.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let study = StudyPlan {
        name: w.name.clone(),
        cells,
    };
    study.validate().map_err(|e| Invalid(e.to_string()))?;
    Ok(study)
}

/// Pairs of every cell of a wire study (its work units).
pub fn study_units(w: &v1::StudySpec) -> u64 {
    w.cells
        .iter()
        .map(|c| c.plan.as_ref().map_or(0, |p| p.pairs))
        .fold(0, u64::saturating_add)
}

/// The cell of a wire study holding units `units` and its pairs within it: a
/// worker decodes the one cell it runs.
pub fn study_cell_from_wire(
    w: &v1::StudySpec,
    units: &Range<u64>,
) -> Result<(StudyCell, Range<u64>), Invalid> {
    let pairs = w
        .cells
        .iter()
        .map(|c| c.plan.as_ref().map_or(0, |p| p.pairs));
    let (c, range) = locate(pairs, units).ok_or_else(|| {
        Invalid(format!(
            "units {}..{} are not within one study cell",
            units.start, units.end
        ))
    })?;
    let met = met_from_wire(w.met.as_ref())?;
    Ok((cell_from_wire(c, &w.cells[c], met)?, range))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};

    fn study() -> StudyPlan {
        let cell = |x: &str, pairs, symmetric| {
            let a = CubeStrategy::parse(&format!("janowski-match:x={x}")).expect("a");
            StudyCell {
                plan: SimPlan {
                    a,
                    b: if symmetric {
                        a
                    } else {
                        CubeStrategy::parse("jump:x=0.7").expect("b")
                    },
                    length: 5,
                    met: MatchEquityTable::kazaross_xg2(),
                    own_mets: [None, None],
                    jacoby: false,
                    luck: true,
                    seed: 3,
                    chequer: Default::default(),
                    pairs,
                    batch: 16,
                },
                symmetric,
            }
        };
        StudyPlan {
            name: "cube-life".into(),
            cells: vec![cell("0.25", 40, false), cell("0.9", 16, true)],
        }
    }

    #[test]
    fn studies_round_trip() {
        let s = study();
        let Some(v1::job_spec::Kind::Study(w)) = study_to_wire(&s, "fp").kind else {
            panic!("a study spec")
        };
        assert!(w
            .cells
            .iter()
            .all(|c| c.plan.as_ref().is_some_and(|p| p.met.is_none())));
        let back = study_from_wire(&w).expect("valid");
        assert_eq!(back.name, "cube-life");
        for (b, c) in back.cells.iter().zip(&s.cells) {
            assert_eq!(
                (b.plan.a, b.plan.b, b.symmetric),
                (c.plan.a, c.plan.b, c.symmetric)
            );
            assert_eq!(
                (b.plan.pairs, b.plan.luck, b.plan.seed),
                (c.plan.pairs, true, 3)
            );
            assert!(b.plan.met.same_entries(&c.plan.met));
        }
        assert_eq!(study_units(&w), 56);
        let (cell, range) = study_cell_from_wire(&w, &(40..56)).expect("cell 1");
        assert!(cell.symmetric);
        assert_eq!(range, 0..16);
        assert!(study_cell_from_wire(&w, &(32..48)).is_err());
    }

    #[test]
    fn bad_studies_are_rejected() {
        let Some(v1::job_spec::Kind::Study(good)) = study_to_wire(&study(), "fp").kind else {
            panic!("a study spec")
        };
        let mut w = good.clone();
        w.cells.clear();
        assert!(study_from_wire(&w).is_err_and(|e| e.0.contains("at least one cell")));
        let mut w = good.clone();
        w.cells[0].symmetric = true;
        assert!(study_from_wire(&w).is_err_and(|e| e.0.contains("symmetric")));
        let mut w = good.clone();
        if let Some(p) = w.cells[1].plan.as_mut() {
            p.length = 65;
        }
        assert!(study_from_wire(&w).is_err_and(|e| e.0.contains("cell 1")));
        let mut w = good;
        w.met = None;
        assert!(study_from_wire(&w).is_err_and(|e| e.0.contains("table")));
    }
}
