//! A label plan: the positions, how they are labelled and in which batches, and
//! every limit a label job has ([`LabelPlan::validate`], [`check_nets`]), with
//! typed errors as the rollout and match-simulation plans have. The command line
//! (`bgfarm-lab train label`), the wire and the coordinator all check against
//! these, so a limit is written once.

use crate::eval::net::format::load_evaluator_nets;
use crate::position::Position;
use crate::search::Pruning;
use std::fmt;

/// Deepest labelling search: a 3-ply label costs ~20x a 2-ply one (~60 ms).
pub const MAX_LABEL_PLY: u8 = 3;

/// Most trials of a rollout label (all 1296 first-two-roll pairs 36 times).
pub const MAX_LABEL_TRIALS: u64 = 46_656;

/// Most positions in one label job: its spec (16 bytes a position, plus its nets)
/// and its labels (20 bytes a position) stay inside the 4 MiB of a gRPC message
/// when `GetJob` returns both: 0.8 + 1.5 + 1.0 MB. Longer lists are several jobs
/// (`bgfarm-lab train label --coordinator` cuts them).
pub const MAX_LABEL_POSITIONS: usize = 50_000;

/// Largest nets bundle a label job carries: the built-in nets are 0.7 MB (a
/// two-layer contact net, its one-layer screen, the race and crashed nets).
pub const MAX_LABEL_NETS_BYTES: usize = 3 << 19;

/// How positions are labelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelMethod {
    /// The n-ply search's probabilities, with reply pruning `prune`.
    Search { ply: u8, prune: Pruning },
    /// A rollout of `trials` trials (0-ply play, variance reduction) whose dice
    /// come from `seed` mixed with the position ([`super::position_seed`]).
    Rollout { trials: u64, seed: u64 },
}

/// Positions to label and how: the plan of a label job. Its work units are the
/// positions, in order; a batch is `batch` consecutive ones.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelPlan {
    pub positions: Vec<Position>,
    pub method: LabelMethod,
    pub batch: u64,
}

/// Why a label plan (or the nets a label job carries) cannot run; its `Display`
/// is the message the wire and the coordinator give, the command line names its
/// own flags.
#[derive(Clone, Debug, PartialEq)]
pub enum LabelPlanError {
    NoPositions,
    /// More than [`MAX_LABEL_POSITIONS`] positions (how many).
    TooManyPositions(usize),
    /// A batch of no position.
    Batch,
    /// A search deeper than [`MAX_LABEL_PLY`].
    Ply(u8),
    /// Rollout trials outside 1 to [`MAX_LABEL_TRIALS`].
    Trials(u64),
    /// A nets bundle over [`MAX_LABEL_NETS_BYTES`] (its size).
    NetsTooLarge(usize),
    /// A nets bundle that does not load (why).
    Nets(String),
}

impl fmt::Display for LabelPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelPlanError::NoPositions => write!(f, "a label job needs at least one position"),
            LabelPlanError::TooManyPositions(n) => write!(
                f,
                "a label job holds at most {MAX_LABEL_POSITIONS} positions, this one {n}: submit several"
            ),
            LabelPlanError::Batch => {
                write!(f, "a label job's batch holds at least one position")
            }
            LabelPlanError::Ply(ply) => {
                write!(f, "label ply {ply} is deeper than {MAX_LABEL_PLY}")
            }
            LabelPlanError::Trials(t) => write!(
                f,
                "label rollouts need 1 to {MAX_LABEL_TRIALS} trials, not {t}"
            ),
            LabelPlanError::NetsTooLarge(n) => {
                write!(f, "label nets of {n} bytes: at most {MAX_LABEL_NETS_BYTES}")
            }
            LabelPlanError::Nets(e) => write!(f, "label nets: {e}"),
        }
    }
}

impl std::error::Error for LabelPlanError {}

impl LabelMethod {
    /// Checks the method's limits.
    pub fn validate(&self) -> Result<(), LabelPlanError> {
        match *self {
            LabelMethod::Search { ply, .. } if ply > MAX_LABEL_PLY => Err(LabelPlanError::Ply(ply)),
            LabelMethod::Rollout { trials, .. } if !(1..=MAX_LABEL_TRIALS).contains(&trials) => {
                Err(LabelPlanError::Trials(trials))
            }
            _ => Ok(()),
        }
    }

    /// "2-ply" or "72-trial rollouts", for messages.
    pub fn describe(&self) -> String {
        match self {
            LabelMethod::Search { ply, .. } => format!("{ply}-ply"),
            LabelMethod::Rollout { trials, .. } => format!("{trials}-trial rollouts"),
        }
    }
}

impl LabelPlan {
    /// Checks every limit of a label job: 1 to [`MAX_LABEL_POSITIONS`] positions,
    /// a batch of at least one position, the method's limits.
    pub fn validate(&self) -> Result<(), LabelPlanError> {
        match self.positions.len() {
            0 => return Err(LabelPlanError::NoPositions),
            n if n > MAX_LABEL_POSITIONS => return Err(LabelPlanError::TooManyPositions(n)),
            _ => {}
        }
        if self.batch == 0 {
            return Err(LabelPlanError::Batch);
        }
        self.method.validate()
    }
}

/// Checks a nets bundle a label job carries: its size, and that it holds the
/// nets an evaluator needs, readable.
pub fn check_nets(nets: &[u8]) -> Result<(), LabelPlanError> {
    if nets.len() > MAX_LABEL_NETS_BYTES {
        return Err(LabelPlanError::NetsTooLarge(nets.len()));
    }
    load_evaluator_nets(nets)
        .map(|_| ())
        .map_err(|e| LabelPlanError::Nets(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_checked() {
        let plan = |method, n, batch| LabelPlan {
            positions: vec![Position::STARTING; n],
            method,
            batch,
        };
        let two = LabelMethod::Search {
            ply: 2,
            prune: Pruning::DEFAULT,
        };
        assert_eq!(plan(two, 3, 4).validate(), Ok(()));
        assert_eq!(plan(two, 0, 4).validate(), Err(LabelPlanError::NoPositions));
        assert!(plan(two, 0, 4)
            .validate()
            .is_err_and(|e| e.to_string().contains("one position")));
        assert_eq!(plan(two, 3, 0).validate(), Err(LabelPlanError::Batch));
        assert_eq!(
            plan(two, MAX_LABEL_POSITIONS + 1, 4).validate(),
            Err(LabelPlanError::TooManyPositions(MAX_LABEL_POSITIONS + 1))
        );
        let four = LabelMethod::Search {
            ply: 4,
            prune: Pruning::DEFAULT,
        };
        assert!(plan(four, 3, 4)
            .validate()
            .is_err_and(|e| e.to_string().contains("deeper than 3")));
        let none = LabelMethod::Rollout { trials: 0, seed: 1 };
        assert!(plan(none, 3, 4)
            .validate()
            .is_err_and(|e| e.to_string().contains("1 to 46656")));
        assert_eq!(two.describe(), "2-ply");
    }

    #[test]
    fn nets_are_checked() {
        assert_eq!(check_nets(crate::eval::default_nets::BYTES), Ok(()));
        assert!(check_nets(b"not nets").is_err_and(|e| e.to_string().contains("label nets")));
        let big = vec![0u8; MAX_LABEL_NETS_BYTES + 1];
        assert!(check_nets(&big).is_err_and(|e| e.to_string().contains("at most")));
    }
}
