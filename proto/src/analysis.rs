//! Wire messages <-> the engine's match analysis ([`bgfarm_engine::analysis`]):
//! the spec ([`analysis_to_wire`], [`Analysis::from_wire`]: the match file
//! itself travels, and every worker and the coordinator read it the same way)
//! and the units' results ([`units_to_wire`], [`units_from_wire`]).

use crate::convert::Invalid;
use crate::matchsim::{met_from_wire, met_to_wire};
use crate::v1;
use bgfarm_engine::analysis::luck::RollLuck;
use bgfarm_engine::analysis::rate::{Rated, ALSO};
use bgfarm_engine::analysis::{AnalysisPlan, Rating, UnitResult};
use bgfarm_engine::matchfile::{self, Match};
use bgfarm_engine::met::MatchEquityTable;
use bgfarm_engine::search::{MoveFilter, Pruning};

/// Largest match file an analysis job carries: every lease carries it too, and
/// an exchange hands out at most 2 MiB of specs. A 25-point match saved by GNU
/// Backgammon is about 60 KB.
pub const MAX_MATCH_BYTES: usize = 512 << 10;
/// Deepest search an analysis asks for (GNU Backgammon's numbering).
pub const MAX_ANALYSIS_PLY: u8 = 3;

/// An analysis as the wire describes it, read and checked.
pub struct Analysis {
    pub m: Match,
    pub ply: u8,
    pub filter: MoveFilter,
    pub luck_ply: u8,
    pub prune: Pruning,
    pub met: Option<MatchEquityTable>,
    pub batch: u64,
}

/// The wire spec of analysing `match_text` (its size checked by the caller).
pub fn analysis_to_wire(
    match_text: &str,
    (ply, filter, luck_ply, prune): (u8, &MoveFilter, u8, Pruning),
    met: Option<&MatchEquityTable>,
    batch: u64,
    fingerprint: &str,
) -> v1::JobSpec {
    v1::JobSpec {
        kind: Some(v1::job_spec::Kind::Analysis(v1::AnalysisSpec {
            match_text: match_text.to_string(),
            ply: u32::from(ply),
            filter: filter.to_string(),
            luck_ply: u32::from(luck_ply),
            prune: u32::from(prune.keep),
            met: met.map(met_to_wire),
            batch_size: batch,
            fingerprint: fingerprint.to_string(),
        })),
    }
}

impl Analysis {
    /// Reads `spec`: the match, the settings, and the table of a match.
    pub fn from_wire(spec: &v1::AnalysisSpec) -> Result<Analysis, Invalid> {
        if spec.match_text.len() > MAX_MATCH_BYTES {
            return Err(Invalid(format!(
                "match_text of {} bytes: at most {MAX_MATCH_BYTES}",
                spec.match_text.len()
            )));
        }
        let (_, m) =
            matchfile::parse(&spec.match_text).map_err(|e| Invalid(format!("match_text: {e}")))?;
        let depth = |v: u32, what: &str| {
            u8::try_from(v)
                .ok()
                .filter(|&p| p <= MAX_ANALYSIS_PLY)
                .ok_or_else(|| Invalid(format!("{what} {v}: use 0 to {MAX_ANALYSIS_PLY}")))
        };
        let filter =
            MoveFilter::parse(&spec.filter).map_err(|e| Invalid(format!("filter: {e}")))?;
        let met = if m.length > 0 {
            Some(met_from_wire(spec.met.as_ref())?)
        } else {
            None
        };
        if spec.batch_size == 0 {
            return Err(Invalid("batch_size must be at least 1".into()));
        }
        Ok(Analysis {
            ply: depth(spec.ply, "ply")?,
            luck_ply: depth(spec.luck_ply, "luck_ply")?,
            prune: Pruning {
                keep: u8::try_from(spec.prune)
                    .map_err(|_| Invalid(format!("prune {} is out of range", spec.prune)))?,
            },
            filter,
            met,
            batch: spec.batch_size,
            m,
        })
    }

    /// Its plan; an error when a game's score is one the table does not cover.
    pub fn plan(&self) -> Result<AnalysisPlan<'_>, Invalid> {
        AnalysisPlan::new(
            &self.m,
            (self.ply, self.filter.ladder(self.ply)),
            (self.luck_ply, self.filter.ladder(self.luck_ply)),
            self.met.as_ref(),
        )
        .map_err(|e| Invalid(format!("match_text: {e}")))
    }
}

/// The wire form of units' results.
pub fn units_to_wire(units: &[UnitResult]) -> v1::AnalysisStats {
    v1::AnalysisStats {
        units: units
            .iter()
            .map(|u| match u {
                UnitResult::Decision(r) => v1::UnitRating {
                    played: r.rated.played.clone(),
                    best: r.rated.best.clone(),
                    error: r.rated.error,
                    error_mwc: r.rated.error_mwc,
                    forced: r.forced,
                    counted: r.counted,
                    also: r.rated.also.clone(),
                    ..Default::default()
                },
                UnitResult::Roll(l) => v1::UnitRating {
                    roll: true,
                    luck_emg: l.emg,
                    luck_mwc: l.mwc,
                    luck_points: l.points,
                    ..Default::default()
                },
            })
            .collect(),
    }
}

/// Units' results from the wire: `first` is the index of the first, whose kind
/// (decision or roll) `plan` says; each is checked for finite values and
/// non-negative errors.
pub fn units_from_wire(
    plan: &AnalysisPlan<'_>,
    first: u64,
    w: &v1::AnalysisStats,
) -> Result<Vec<UnitResult>, Invalid> {
    let decisions = plan.decisions.len() as u64;
    w.units
        .iter()
        .zip(first..)
        .map(|(u, i)| {
            let finite = |v: Option<f64>| v.is_none_or(f64::is_finite);
            if i < decisions {
                let bad_error = |v: Option<f64>| v.is_some_and(|e| !(0.0..=100.0).contains(&e));
                if u.roll || bad_error(u.error) || bad_error(u.error_mwc) || !finite(u.error) {
                    return Err(Invalid(format!("unit {i}: not a decision's rating")));
                }
                let long = |m: &String| m.len() > 64;
                if long(&u.played)
                    || long(&u.best)
                    || u.also.iter().any(long)
                    || u.also.len() > ALSO
                {
                    return Err(Invalid(format!(
                        "unit {i}: a move of more than 64 bytes, or more than {ALSO} runners-up"
                    )));
                }
                Ok(UnitResult::Decision(Rating {
                    rated: Rated {
                        played: u.played.clone(),
                        best: u.best.clone(),
                        error: u.error,
                        error_mwc: u.error_mwc,
                        also: u.also.clone(),
                    },
                    forced: u.forced,
                    counted: u.counted,
                }))
            } else {
                let Some(r) = plan.rolls.get((i - decisions) as usize) else {
                    return Err(Invalid(format!(
                        "unit {i}: the analysis has {} units",
                        plan.units()
                    )));
                };
                let sane = |v: f64| v.is_finite() && v.abs() <= 1e3;
                if !u.roll || !sane(u.luck_emg) || !sane(u.luck_points) || !finite(u.luck_mwc) {
                    return Err(Invalid(format!("unit {i}: not a roll's luck")));
                }
                Ok(UnitResult::Roll(RollLuck {
                    game: r.game,
                    move_no: r.move_no,
                    player: r.player,
                    emg: u.luck_emg,
                    mwc: u.luck_mwc,
                    points: u.luck_points,
                }))
            }
        })
        .collect()
}
