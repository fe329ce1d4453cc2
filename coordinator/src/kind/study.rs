//! Studies: a named grid of match simulations run as one job. Units are the pairs
//! of every cell, cell after cell; a batch never straddles two cells, so each
//! batch is checked as a batch of its cell's simulation and each cell's chunks are
//! folded in order into that cell's totals (`GetJobResponse.study_cells`), its
//! lone simulation's bit for bit. The plan's limits are the engine's
//! (`StudyPlan`). On its page a finished study shows one row per cell (length,
//! the two strategies, matches, A's points per match with its SE, win rate, games
//! per match) and the study's plot, drawn by the CLI's chart code
//! (`bgfarm_report::study_cells`); the CLI's `--out` files add the fits, which
//! need what only the command line knows (the baseline, the fit window).

use super::matchsim::{check_sim_result, decode_chunks, fold_chunks};
use super::{fingerprint, Cut, JobKind, SpecError};
use crate::html::{escape, table, Cell};
use crate::outcome::Outcome;
use bgfarm_engine::matchsim::{SimStats, StudyCell, StudyPlan};
use bgfarm_proto::matchsim::totals_from_wire;
use bgfarm_proto::study::study_from_wire;
use bgfarm_proto::v1;
use bgfarm_report::study_cells::{plot, rows};
use prost::Message;
use std::ops::Range;

pub(super) const NAME: &str = "study";
pub(super) const UNIT: &str = "pairs";

/// A study job.
#[derive(Debug)]
pub struct Study {
    plan: StudyPlan,
    fingerprint: String,
    /// The batches' pair ranges: cut per cell, so not uniform (a study is at most
    /// a few thousand batches).
    ranges: Vec<Range<u64>>,
}

impl Study {
    pub(super) fn decode(s: &v1::StudySpec) -> Result<Study, SpecError> {
        let plan = study_from_wire(s)?;
        Ok(Study {
            fingerprint: fingerprint(&s.fingerprint, NAME)?,
            ranges: plan.batch_ranges(),
            plan,
        })
    }
}

/// A study's identity is its whole spec: its batch ranges are global over its
/// cells, so only an identical resubmission reuses them ([`JobKind::canonical`]'s
/// default).
impl JobKind for Study {
    fn name(&self) -> &'static str {
        NAME
    }

    fn label(&self) -> String {
        format!("{NAME} {}", self.plan.name)
    }

    fn unit(&self) -> &'static str {
        UNIT
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.plan.units()
    }

    fn cut(&self) -> Cut<'_> {
        Cut::Ranges(&self.ranges)
    }

    fn check_result(
        &self,
        units: &Range<u64>,
        _active: &[bool],
        r: &v1::BatchResult,
    ) -> Result<(Vec<u8>, Outcome), String> {
        let wire = r.match_sim.as_ref().ok_or("study result without totals")?;
        let (c, pairs) = self
            .plan
            .locate(units)
            .ok_or("batch outside the study's cells")?;
        let chunks = check_sim_result(&self.plan.cells[c].plan, &pairs, wire)?;
        Ok((wire.encode_to_vec(), Outcome::MatchSim(chunks)))
    }

    fn decode_result(&self, bytes: &[u8]) -> Result<Outcome, String> {
        decode_chunks(bytes)
    }

    fn fold(
        &self,
        outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
        out: &mut v1::GetJobResponse,
    ) {
        let mut cells = vec![Vec::new(); self.plan.cells.len()];
        for (units, o) in outcomes {
            if let Some((c, _)) = self.plan.locate(&units) {
                cells[c].push(o);
            }
        }
        out.study_cells = cells.into_iter().map(fold_chunks).collect();
    }

    fn render(&self, folded: &v1::GetJobResponse) -> Result<String, String> {
        if folded.study_cells.len() != self.plan.cells.len() {
            return Err("no aggregate of the job's kind".into());
        }
        let totals: Vec<SimStats> = folded.study_cells.iter().map(totals_from_wire).collect();
        Ok(render(&self.plan.name, &self.plan.cells, &totals))
    }
}

/// The table and plot of study `name`.
fn render(name: &str, cells: &[StudyCell], totals: &[SimStats]) -> String {
    let headers = [
        ("#", false),
        ("length", false),
        ("A", true),
        ("B", true),
        ("matches", false),
        ("A ppm", false),
        ("SE", false),
        ("A wins", false),
        ("games/match", false),
    ];
    let body: Vec<Vec<Cell>> = rows(cells, totals)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            vec![
                Cell::num(&(i + 1).to_string()),
                Cell::num(&if r.length == 0 {
                    "money".to_string()
                } else {
                    r.length.to_string()
                }),
                Cell::text(&r.a),
                Cell::text(&r.b),
                Cell::num(&r.matches.to_string()),
                Cell::num(&format!("{:+.4}", r.ppm)),
                Cell::num(&r.se.map_or_else(|| "–".into(), |e| format!("{e:.4}"))),
                Cell::num(&format!("{:.1}%", 100.0 * r.win_rate)),
                Cell::num(&format!("{:.3}", r.avg_games)),
            ]
        })
        .collect();
    format!(
        "<h2>Study {}</h2>\n<p>{} cells.</p>\n{}<div class=\"plot\">{}</div>\n",
        escape(name),
        cells.len(),
        table(&headers, &body),
        plot(name, cells, totals)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::decode;
    use crate::testutil::sim_plan;
    use bgfarm_engine::matchsim::chunk::fold_totals;
    use bgfarm_proto::study::study_to_wire;

    fn cell(pairs: u64) -> StudyCell {
        StudyCell {
            plan: sim_plan(pairs, 32),
            symmetric: false,
        }
    }

    fn study() -> StudyPlan {
        StudyPlan {
            name: "cube-life".into(),
            cells: vec![cell(40), cell(16)],
        }
    }

    #[test]
    fn studies_are_checked_and_cut_per_cell() {
        let err = |s: &StudyPlan, fp| {
            decode(&study_to_wire(s, fp))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let w = decode(&study_to_wire(&study(), "fp")).expect("valid");
        assert_eq!((w.name(), w.label()), ("study", "study cube-life".into()));
        assert_eq!(w.units(), 56);
        assert_eq!(w.batch_ranges(), vec![0..32, 32..40, 40..56]);
        assert!(err(&study(), "").contains("fingerprint"));
        let mut bad = study();
        bad.cells.clear();
        assert!(err(&bad, "fp").contains("one cell"));
        let mut bad = study();
        bad.cells[1].symmetric = true;
        assert!(err(&bad, "fp").contains("cell 1"));
    }

    /// Totals of `n` pairs with `n` points and a float sum that shows the order.
    fn chunk(n: u64, adjusted: f64) -> SimStats {
        SimStats {
            matches: 2 * n,
            pairs: n,
            points: n as i64,
            adjusted,
            ..SimStats::default()
        }
    }

    #[test]
    fn study_batches_fold_into_their_cells() {
        let plan = StudyPlan {
            name: "t".into(),
            cells: vec![cell(40), cell(16)],
        };
        let study = Study {
            ranges: plan.batch_ranges(),
            plan,
            fingerprint: "fp".into(),
        };
        let batches = [
            (
                0..32,
                Outcome::MatchSim(vec![chunk(16, 0.1), chunk(16, 0.2)]),
            ),
            (32..40, Outcome::MatchSim(vec![chunk(8, 0.3)])),
            (40..56, Outcome::MatchSim(vec![chunk(16, 1e-17)])),
        ];
        let mut a = v1::GetJobResponse::default();
        study.fold(&mut batches.into_iter(), &mut a);
        assert!(a.aggregate.is_none() && a.match_sim_aggregate.is_none());
        let cells: Vec<SimStats> = a.study_cells.iter().map(totals_from_wire).collect();
        let first = fold_totals(&[chunk(16, 0.1), chunk(16, 0.2), chunk(8, 0.3)]);
        assert_eq!(cells, vec![first, chunk(16, 1e-17)]);
        assert!(study.render(&a).is_ok_and(|h| h.contains("Study t")));
    }
}
