//! A study: an ordered grid of match simulations (cells) run as one job.
//!
//! `bgfarm study ...` builds one [`StudyCell`] per grid point; the embedded run
//! and the coordinator both run it. The work units of a study are the duplicate
//! pairs of all its cells, numbered cell after cell (cell `c`'s pair `p` is unit
//! `offset(c) + p`); its batches never straddle two cells: each cell is cut into
//! batches of its own `batch` pairs exactly as a lone match simulation would be,
//! so every cell's chunks fold to the totals of that cell run alone, bit for bit.

use super::chunk::{chunks, fold_chunk};
use super::plan::{SimPlan, SimPlanError};
use super::{play_pair, play_pair_symmetric, SimStats};
use crate::batches::{batch_range, MAX_BATCHES};
use crate::eval::Evaluator;
use std::fmt;
use std::ops::Range;

/// Most cells of one study: a 25-length by 40-x grid. Each cell holds its own
/// copy of the table (33 KB), so 1,000 cells are 33 MB in the coordinator.
pub const MAX_CELLS: usize = 1_000;
/// Longest study name (it labels the job in `jobs list`).
pub const MAX_STUDY_NAME: usize = 64;

/// One grid point: a simulation plan and how its pairs are played.
#[derive(Clone, Debug)]
pub struct StudyCell {
    pub plan: SimPlan,
    /// A and B are the same strategy: each pair plays its first match only and
    /// mirrors it ([`play_pair_symmetric`], half the cost; for game counts).
    pub symmetric: bool,
}

impl StudyCell {
    /// Duplicate pair `p` of the cell.
    pub fn play_pair(&self, eval: &dyn Evaluator, p: u64) -> SimStats {
        let spec = self.plan.spec();
        if self.symmetric {
            play_pair_symmetric(&spec, eval, p)
        } else {
            play_pair(&spec, eval, p)
        }
    }

    /// The chunk totals of the cell's pairs `pairs`, each chunk folded in pair
    /// order (what a worker returns for a batch).
    pub fn play_chunks(&self, eval: &dyn Evaluator, pairs: Range<u64>) -> Vec<SimStats> {
        chunks(pairs)
            .map(|c| fold_chunk(c, |p| self.play_pair(eval, p)))
            .collect()
    }
}

/// A named, ordered list of cells.
#[derive(Clone, Debug)]
pub struct StudyPlan {
    /// What the study is (`cube-life`): shown with the job.
    pub name: String,
    pub cells: Vec<StudyCell>,
}

/// Why a study plan cannot run.
#[derive(Clone, Debug, PartialEq)]
pub enum StudyPlanError {
    Empty,
    TooManyCells(usize),
    Name,
    /// The cells' match equity tables differ: a study carries one.
    Tables,
    Asymmetric(usize),
    Cell(usize, SimPlanError),
    TooManyBatches(u64),
}

impl fmt::Display for StudyPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StudyPlanError::Empty => write!(f, "a study needs at least one cell"),
            StudyPlanError::TooManyCells(n) => {
                write!(f, "{n} cells: a study has at most {MAX_CELLS}")
            }
            StudyPlanError::Name => write!(
                f,
                "study name must be 1 to {MAX_STUDY_NAME} printable ASCII characters"
            ),
            StudyPlanError::Tables => {
                write!(f, "the cells of a study share one match equity table")
            }
            StudyPlanError::Asymmetric(c) => write!(
                f,
                "cell {c}: symmetric pairs need the same strategy for A and B"
            ),
            StudyPlanError::Cell(c, e) => write!(f, "cell {c}: {e}"),
            StudyPlanError::TooManyBatches(n) => {
                write!(f, "{n} batches: a study has at most {MAX_BATCHES}")
            }
        }
    }
}

impl std::error::Error for StudyPlanError {}

impl StudyPlan {
    /// Checks the study and every cell.
    pub fn validate(&self) -> Result<(), StudyPlanError> {
        let first = self.cells.first().ok_or(StudyPlanError::Empty)?;
        if self.cells.len() > MAX_CELLS {
            return Err(StudyPlanError::TooManyCells(self.cells.len()));
        }
        let n = self.name.len();
        if n == 0 || n > MAX_STUDY_NAME || !self.name.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(StudyPlanError::Name);
        }
        for (c, cell) in self.cells.iter().enumerate() {
            cell.plan
                .validate()
                .map_err(|e| StudyPlanError::Cell(c, e))?;
            if cell.symmetric && cell.plan.a != cell.plan.b {
                return Err(StudyPlanError::Asymmetric(c));
            }
            if !cell.plan.met.same_entries(&first.plan.met) {
                return Err(StudyPlanError::Tables);
            }
        }
        let batches: u64 = self.cells.iter().map(|c| cell_batches(&c.plan)).sum();
        if batches > MAX_BATCHES {
            return Err(StudyPlanError::TooManyBatches(batches));
        }
        Ok(())
    }

    /// Work units: the pairs of every cell.
    pub fn units(&self) -> u64 {
        self.cells.iter().map(|c| c.plan.pairs).sum()
    }

    /// The batches in unit numbers, cell after cell, each cell cut by its own
    /// batch size.
    pub fn batch_ranges(&self) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        let mut offset = 0;
        for c in &self.cells {
            let p = &c.plan;
            out.extend((0..cell_batches(p)).map(|b| {
                let r = batch_range(p.pairs, p.batch, b);
                offset + r.start..offset + r.end
            }));
            offset += p.pairs;
        }
        out
    }

    /// The cell holding units `units` and their pairs within it; `None` when the
    /// range is empty or straddles cells.
    pub fn locate(&self, units: &Range<u64>) -> Option<(usize, Range<u64>)> {
        locate(self.cells.iter().map(|c| c.plan.pairs), units)
    }
}

/// [`StudyPlan::locate`] for cells of `pairs` pairs each, in order (a worker
/// locates its batch on the wire spec before decoding the one cell it runs).
pub fn locate(
    pairs: impl IntoIterator<Item = u64>,
    units: &Range<u64>,
) -> Option<(usize, Range<u64>)> {
    let mut offset = 0u64;
    for (i, n) in pairs.into_iter().enumerate() {
        let end = offset.saturating_add(n);
        if units.start < end {
            return (units.start < units.end && units.end <= end)
                .then(|| (i, units.start - offset..units.end - offset));
        }
        offset = end;
    }
    None
}

/// Batches of one cell.
fn cell_batches(p: &SimPlan) -> u64 {
    p.pairs.div_ceil(p.batch.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchsim::CubeStrategy;
    use crate::met::MatchEquityTable;

    fn cell(pairs: u64, batch: u64, symmetric: bool) -> StudyCell {
        let s = CubeStrategy::parse("janowski-match:x=0.7").expect("a");
        StudyCell {
            plan: SimPlan {
                a: s,
                b: s,
                length: 3,
                met: MatchEquityTable::kazaross_xg2(),
                own_mets: [None, None],
                jacoby: false,
                luck: false,
                seed: 1,
                chequer: Default::default(),
                pairs,
                batch,
            },
            symmetric,
        }
    }

    #[test]
    fn batches_never_straddle_cells() {
        let study = StudyPlan {
            name: "t".into(),
            cells: vec![cell(40, 32, false), cell(16, 16, true)],
        };
        assert_eq!(study.validate(), Ok(()));
        assert_eq!(study.units(), 56);
        assert_eq!(study.batch_ranges(), vec![0..32, 32..40, 40..56]);
        assert_eq!(study.locate(&(32..40)), Some((0, 32..40)));
        assert_eq!(study.locate(&(40..56)), Some((1, 0..16)));
        assert_eq!(study.locate(&(32..48)), None);
        assert_eq!(study.locate(&(56..60)), None);
        assert_eq!(study.locate(&(5..5)), None);
    }

    #[test]
    fn limits() {
        let mut study = StudyPlan {
            name: "t".into(),
            cells: Vec::new(),
        };
        assert_eq!(study.validate(), Err(StudyPlanError::Empty));
        study.cells.push(cell(0, 16, false));
        assert!(matches!(study.validate(), Err(StudyPlanError::Cell(0, _))));
        study.cells[0].plan.pairs = 2;
        study.cells[0].plan.a = CubeStrategy::parse("jump:x=0.5").expect("jump");
        study.cells[0].symmetric = true;
        assert_eq!(study.validate(), Err(StudyPlanError::Asymmetric(0)));
        study.cells[0].symmetric = false;
        study.name = "a b".into();
        assert_eq!(study.validate(), Err(StudyPlanError::Name));
        study.name = "t".into();
        let mut other = cell(2, 16, false);
        other.plan.met = MatchEquityTable::keith(0.26).expect("keith");
        study.cells.push(other);
        assert_eq!(study.validate(), Err(StudyPlanError::Tables));
    }
}
