//! A match-simulation plan: the two strategies, the match length, the table, the
//! seed, how many duplicate pairs and how many pairs per batch. `bgfarm match-sim`,
//! `bgfarm study`, the wire and the coordinator all use it, and
//! [`SimPlan::validate`] holds the only limits a simulation has.

use super::chunk::FOLD_CHUNK;
use super::{ChequerPlay, CubeStrategy, SimSpec};
use crate::batches::MAX_BATCHES;
use crate::met::MatchEquityTable;
use std::fmt;

/// Most duplicate pairs in one simulation: 10^9 matches, weeks of a large cluster.
pub const MAX_PAIRS: u64 = 500_000_000;
/// Largest batch: 65,536 pairs, about an hour of 7-point 0-ply matches on one core.
pub const MAX_SIM_BATCH: u64 = 65_536;
/// Pairs per batch when none is asked for: 64 pairs of 7-point matches take ~1 s
/// on one core.
pub const DEFAULT_SIM_BATCH: u64 = 64;

/// Everything one match simulation needs; [`SimPlan::spec`] is the engine's view
/// of one match.
#[derive(Clone, Debug)]
pub struct SimPlan {
    /// Player A's cube strategy (results are from A's side).
    pub a: CubeStrategy,
    pub b: CubeStrategy,
    /// Match length, 1 to 64; 0 for money play.
    pub length: u32,
    pub met: MatchEquityTable,
    /// Player A's and B's own tables for their decisions (`None`: `met`, which
    /// also measures the luck); see [`SimSpec::own_mets`].
    pub own_mets: [Option<MatchEquityTable>; 2],
    /// Money play: the Jacoby rule.
    pub jacoby: bool,
    /// Measure luck and report luck-adjusted results.
    pub luck: bool,
    pub seed: u64,
    /// How the shared chequer player picks its plays (cubeless by default).
    pub chequer: ChequerPlay,
    /// Duplicate pairs (two matches each).
    pub pairs: u64,
    /// Pairs per batch (a multiple of [`FOLD_CHUNK`]).
    pub batch: u64,
}

/// Why a simulation plan cannot run; its `Display` names the wire fields, the
/// command line names its own flags.
#[derive(Clone, Debug, PartialEq)]
pub enum SimPlanError {
    Pairs(u64),
    Batch(u64),
    TooManyBatches {
        pairs: u64,
        batch: u64,
    },
    /// The match rules (length, Jacoby rule).
    Spec(crate::ParseError),
}

impl fmt::Display for SimPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimPlanError::Pairs(p) => write!(f, "pairs {p}: must be between 1 and {MAX_PAIRS}"),
            SimPlanError::Batch(b) => write!(
                f,
                "batch_size {b}: must be a positive multiple of {FOLD_CHUNK} pairs up to {MAX_SIM_BATCH}"
            ),
            SimPlanError::TooManyBatches { pairs, batch } => write!(
                f,
                "{pairs} pairs in batches of {batch}: more than {MAX_BATCHES} batches"
            ),
            SimPlanError::Spec(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SimPlanError {}

impl SimPlan {
    /// The engine's view of one match of the plan.
    pub fn spec(&self) -> SimSpec<'_> {
        SimSpec {
            a: self.a,
            b: self.b,
            length: self.length,
            met: &self.met,
            own_mets: [self.own_mets[0].as_ref(), self.own_mets[1].as_ref()],
            jacoby: self.jacoby,
            luck: self.luck,
            seed: self.seed,
            chequer: self.chequer,
        }
    }

    /// Checks every limit of a simulation.
    pub fn validate(&self) -> Result<(), SimPlanError> {
        self.spec().validate().map_err(SimPlanError::Spec)?;
        if self.pairs == 0 || self.pairs > MAX_PAIRS {
            return Err(SimPlanError::Pairs(self.pairs));
        }
        if self.batch == 0 || !self.batch.is_multiple_of(FOLD_CHUNK) || self.batch > MAX_SIM_BATCH {
            return Err(SimPlanError::Batch(self.batch));
        }
        if self.pairs.div_ceil(self.batch) > MAX_BATCHES {
            return Err(SimPlanError::TooManyBatches {
                pairs: self.pairs,
                batch: self.batch,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        let mut p = SimPlan {
            a: CubeStrategy::parse("janowski-match").expect("a"),
            b: CubeStrategy::parse("janowski-money").expect("b"),
            length: 5,
            met: MatchEquityTable::kazaross_xg2(),
            own_mets: [None, None],
            jacoby: false,
            luck: false,
            seed: 1,
            chequer: ChequerPlay::Cubeless,
            pairs: 40,
            batch: 32,
        };
        assert_eq!(p.validate(), Ok(()));
        p.batch = 20;
        assert!(p
            .validate()
            .is_err_and(|e| e.to_string().contains("multiple of 16")));
        p.batch = 16;
        p.pairs = 0;
        assert_eq!(p.validate(), Err(SimPlanError::Pairs(0)));
        p.pairs = MAX_PAIRS;
        assert!(matches!(
            p.validate(),
            Err(SimPlanError::TooManyBatches { .. })
        ));
        p.pairs = 2;
        p.length = 65;
        assert!(p.validate().is_err_and(|e| e.to_string().contains("64")));
        p.length = 5;
        p.jacoby = true;
        assert!(p
            .validate()
            .is_err_and(|e| e.to_string().contains("Jacoby")));
    }
}
