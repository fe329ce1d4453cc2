//! Match analyses: every decision of a recorded match rated at n-ply and the
//! luck of every roll. Units are the match's decisions then its rolls
//! (`bgfarm_engine::analysis::units`); a lease carries the whole spec (the match
//! file, at most 512 KB) and its range, and every worker reads the file itself.
//! A batch's result is one rating per unit, checked against the unit's kind; the
//! fold returns the units of the leading done batches, which the client turns
//! into the report exactly as an embedded analysis does.

use super::{fingerprint, leading_run, Cut, JobKind, SpecError};
use crate::html::{escape, facts};
use crate::outcome::Outcome;
use bgfarm_engine::analysis::rate::{BAD, DOUBTFUL, VERY_BAD};
use bgfarm_engine::analysis::units::{on_roll, Decision, Kind};
use bgfarm_engine::analysis::{Rating, UnitResult};
use bgfarm_engine::matchfile::{ActionKind, Match};
use bgfarm_proto::analysis::{units_from_wire, Analysis};
use bgfarm_proto::v1;
use bgfarm_report::board_svg::{self, Board};
use prost::Message;
use std::ops::Range;

pub(super) const NAME: &str = "analysis";
pub(super) const UNIT: &str = "decisions";

/// An analysis job.
pub struct Analyse {
    analysis: Analysis,
    units: u64,
    fingerprint: String,
}

impl std::fmt::Debug for Analyse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Analyse({} units, {}-ply)",
            self.units, self.analysis.ply
        )
    }
}

impl Analyse {
    pub(super) fn decode(s: &v1::AnalysisSpec) -> Result<Analyse, SpecError> {
        let analysis = Analysis::from_wire(s)?;
        let units = analysis.plan()?.units();
        if units == 0 {
            return Err(SpecError::Plan(
                "the match has no decision to analyse".into(),
            ));
        }
        Ok(Analyse {
            fingerprint: fingerprint(&s.fingerprint, NAME)?,
            analysis,
            units,
        })
    }

    /// The units' results of a batch over `units`, checked.
    fn results(
        &self,
        units: &Range<u64>,
        w: &v1::AnalysisStats,
    ) -> Result<Vec<UnitResult>, String> {
        let n = units.end - units.start;
        if w.units.len() as u64 != n {
            return Err(format!(
                "{} units in the result, the batch has {n}",
                w.units.len()
            ));
        }
        let plan = self.analysis.plan().map_err(|e| e.0)?;
        units_from_wire(&plan, units.start, w).map_err(|e| e.0)
    }
}

impl JobKind for Analyse {
    fn name(&self) -> &'static str {
        NAME
    }

    fn label(&self) -> String {
        format!("{NAME} {}-ply", self.analysis.ply)
    }

    fn unit(&self) -> &'static str {
        UNIT
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.units
    }

    fn cut(&self) -> Cut<'_> {
        Cut::Even {
            units: self.units,
            batch: self.analysis.batch,
        }
    }

    /// A unit's rating is a function of the file and the settings alone.
    fn canonical(&self, spec: &mut v1::JobSpec) {
        if let Some(v1::job_spec::Kind::Analysis(a)) = &mut spec.kind {
            a.batch_size = 0;
        }
    }

    fn check_result(
        &self,
        units: &Range<u64>,
        _active: &[bool],
        r: &v1::BatchResult,
    ) -> Result<(Vec<u8>, Outcome), String> {
        let wire = r.analysis.as_ref().ok_or("analysis result without units")?;
        self.results(units, wire)?;
        Ok((wire.encode_to_vec(), Outcome::Analysis(wire.clone())))
    }

    /// The stored units as accepted (checked then); the fold places them.
    fn decode_result(&self, bytes: &[u8]) -> Result<Outcome, String> {
        let w = v1::AnalysisStats::decode(bytes).map_err(|e| e.to_string())?;
        Ok(Outcome::Analysis(w))
    }

    /// Only the leading run of done batches, as for labels.
    fn fold(
        &self,
        outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
        out: &mut v1::GetJobResponse,
    ) {
        let units = leading_run(outcomes, |o| match o {
            Outcome::Analysis(w) => Some(w.units),
            _ => None,
        });
        out.analysis = Some(v1::AnalysisStats { units });
    }

    fn render(&self, folded: &v1::GetJobResponse) -> Result<String, String> {
        let w = folded
            .analysis
            .as_ref()
            .ok_or("units missing from a finished analysis")?;
        if w.units.len() as u64 != self.units {
            return Err("units missing from a finished analysis".into());
        }
        let plan = self.analysis.plan().map_err(|e| e.0)?;
        let results = units_from_wire(&plan, 0, w).map_err(|e| e.0)?;
        Ok(render(&self.analysis, &results))
    }
}

/// A finished analysis on the page: its match, per player the decisions rated
/// and the error total, then a board of every decision marked doubtful or worse
/// (GNU Backgammon's 0.04 EMG), with the played and the best choice. The full
/// report (rates, luck, PR, JSON) is `bgfarm analyse FILE --coordinator`'s.
fn render(a: &Analysis, results: &[UnitResult]) -> String {
    let m = &a.m;
    let plan = match a.plan() {
        Ok(p) => p,
        Err(e) => return format!("<p>{}</p>", escape(&e.0)),
    };
    let mut count = [0u32; 2];
    let mut total = [0.0f64; 2];
    let mut marked = String::new();
    let mut n_marked = 0;
    for (d, r) in plan.decisions.iter().zip(results) {
        let UnitResult::Decision(r) = r else {
            continue;
        };
        if !r.counted {
            continue;
        }
        let p = usize::from(d.action.player.min(1));
        let e = r.rated.error.unwrap_or(0.0);
        count[p] += 1;
        total[p] += e;
        if e >= DOUBTFUL {
            n_marked += 1;
            marked.push_str(&decision(m, d, r, e));
        }
    }
    let what = if m.length > 0 {
        format!("{}-point match", m.length)
    } else {
        "money session".to_string()
    };
    let rows: Vec<(String, String)> = (0..2)
        .map(|p| {
            (
                m.players[p].clone(),
                format!(
                    "{} decisions, {:.1} mEMG lost in all",
                    count[p],
                    total[p] * 1000.0
                ),
            )
        })
        .collect();
    let rows: Vec<(&str, String)> = rows.iter().map(|(k, v)| (k.as_str(), escape(v))).collect();
    format!(
        "<h2>Match analysis</h2>\n<p>{}: {} games at {}-ply ({} units); the full report is \
         <code>bgfarm analyse FILE --coordinator URL</code>'s</p>\n{}\n\
         <h2>Decisions marked doubtful or worse ({n_marked})</h2>\n{marked}",
        escape(&what),
        m.games.len(),
        a.ply,
        results.len(),
        facts(&rows)
    )
}

/// One marked decision: what it was, its board, the played and best choice.
fn decision(m: &Match, d: &Decision<'_>, r: &Rating, e: f64) -> String {
    let a = d.action;
    let dice = match a.kind {
        ActionKind::Move { dice, .. } if d.kind == Kind::Chequer => {
            let (x, y) = dice.values();
            Some([x, y])
        }
        _ => None,
    };
    let board = Board::of_decision(
        &m.players,
        on_roll(a),
        a.position,
        a.cube,
        m.length,
        d.game.score,
        d.game.crawford,
        dice,
    );
    let what = match (d.kind, dice) {
        (Kind::Chequer, Some([x, y])) => format!("plays {x}{y}"),
        (Kind::Chequer, None) => "plays".to_string(),
        (Kind::Cube(c), _) => format!("cube: {}", c.as_str()),
    };
    let mark = if e >= VERY_BAD {
        "very bad"
    } else if e >= BAD {
        "bad"
    } else {
        "doubtful"
    };
    format!(
        "<section class=\"decision\"><h3>Game {}, move {}: {} {} ({mark})</h3>\n{}\n\
         <p>Played <b>{}</b>, best <b>{}</b>: {:.3} EMG lost</p></section>\n",
        d.game.number,
        d.move_no,
        escape(&m.players[usize::from(a.player.min(1))]),
        escape(&what),
        board_svg::svg(&board),
        escape(&r.rated.played),
        escape(&r.rated.best),
        e
    )
}
