//! A rollout plan: the job (candidates, seed, trial settings), how many trials,
//! in which batches, with which stop rules. The command line builds one, the wire
//! carries one, the coordinator and the embedded run execute one, and
//! [`RolloutPlan::validate`] holds the only limits a rollout has.

use super::stop::StopRules;
use super::{RolloutJob, MAX_TRIAL_PLY};
use crate::batches::{batch_range, MAX_BATCHES};
use std::fmt;
use std::ops::Range;

/// Most candidates in one rollout: `--moves all` of the richest roll has a few
/// hundred moves; 1024 leaves room while bounding a result to ~250 KB.
pub const MAX_CANDIDATES: usize = 1024;
/// Most trials per candidate: 10^9 trials give an SE near 3x10^-6 (0.01 at 100
/// trials / sqrt(10^7)), for cluster-scale studies. Batches stay at most
/// [`MAX_BATCHES`], so 10^9 trials need batches of at least 1008 (992,064 of
/// them); a coordinator keeps about a bit per batch of a job, not a record.
pub const MAX_TRIALS: u64 = 1_000_000_000;
/// Largest batch: 36^4 trials, ~20 minutes of 0-ply trials on one core.
pub const MAX_BATCH_SIZE: u64 = 1_679_616;
/// Batch sizes are multiples of the 36 rolls so each batch keeps the first roll's
/// dice stratified.
pub const BATCH_STRATUM: u64 = 36;

/// Everything one rollout needs.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutPlan {
    pub job: RolloutJob,
    /// Trials per candidate.
    pub trials: u64,
    /// Trials per batch (the unit of parallel work and of the exact fold).
    pub batch: u64,
    pub stop: StopRules,
}

/// Why a plan cannot run; its `Display` names the wire fields, the command line
/// names its own flags.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanError {
    NoCandidates,
    TooManyCandidates(usize),
    Trials(u64),
    Batch(u64),
    TooManyBatches {
        trials: u64,
        batch: u64,
    },
    /// A chequer or cube ply above [`MAX_TRIAL_PLY`]: (which, value).
    Ply(&'static str, u8),
    /// Cube decisions searched in a cubeless rollout.
    CubePlyWithoutCube,
    SeTarget(f64),
    JsdK(f64),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::NoCandidates => write!(f, "rollout spec has no candidates"),
            PlanError::TooManyCandidates(n) => {
                write!(f, "{n} candidates: at most {MAX_CANDIDATES}")
            }
            PlanError::Trials(t) => {
                write!(f, "trials {t}: must be between 1 and {MAX_TRIALS}")
            }
            PlanError::Batch(b) => write!(
                f,
                "batch_size {b}: must be a positive multiple of {BATCH_STRATUM} up to {MAX_BATCH_SIZE}"
            ),
            PlanError::TooManyBatches { trials, batch } => write!(
                f,
                "{trials} trials in batches of {batch}: more than {MAX_BATCHES} batches"
            ),
            PlanError::Ply(what, p) => {
                write!(f, "{what} {p}: at most {MAX_TRIAL_PLY} in rollouts")
            }
            PlanError::CubePlyWithoutCube => {
                write!(f, "cube ply without cube rules: cube decisions need a cubeful rollout")
            }
            PlanError::SeTarget(t) => write!(f, "se_target {t}: must be a positive number"),
            PlanError::JsdK(k) => write!(f, "jsd_k {k}: must be a non-negative number"),
        }
    }
}

impl std::error::Error for PlanError {}

impl RolloutPlan {
    /// Checks every limit of a rollout.
    pub fn validate(&self) -> Result<(), PlanError> {
        let n = self.job.candidates.len();
        if n == 0 {
            return Err(PlanError::NoCandidates);
        }
        if n > MAX_CANDIDATES {
            return Err(PlanError::TooManyCandidates(n));
        }
        if self.trials == 0 || self.trials > MAX_TRIALS {
            return Err(PlanError::Trials(self.trials));
        }
        if self.batch == 0
            || !self.batch.is_multiple_of(BATCH_STRATUM)
            || self.batch > MAX_BATCH_SIZE
        {
            return Err(PlanError::Batch(self.batch));
        }
        if self.batches() > MAX_BATCHES {
            return Err(PlanError::TooManyBatches {
                trials: self.trials,
                batch: self.batch,
            });
        }
        let s = &self.job.settings;
        let plies = [
            ("chequer ply", Some(s.chequer_ply)),
            ("opponent chequer ply", s.opponent_ply),
            ("late chequer ply", s.late.map(|(_, p)| p)),
            ("cube ply", Some(s.cube_ply)),
        ];
        if let Some((what, Some(p))) = plies
            .into_iter()
            .find(|(_, p)| p.is_some_and(|p| p > MAX_TRIAL_PLY))
        {
            return Err(PlanError::Ply(what, p));
        }
        if s.cube_ply > 0 && s.cube.is_none() {
            return Err(PlanError::CubePlyWithoutCube);
        }
        if !self.stop.se_target_ok() {
            return Err(PlanError::SeTarget(self.stop.se_target.unwrap_or(0.0)));
        }
        if !self.stop.jsd_k_ok() {
            return Err(PlanError::JsdK(self.stop.jsd.map_or(0.0, |j| j.1)));
        }
        Ok(())
    }

    /// Number of batches.
    pub fn batches(&self) -> u64 {
        self.trials.div_ceil(self.batch.max(1))
    }

    /// The trials of batch `b`.
    pub fn batch_range(&self, b: u64) -> Range<u64> {
        batch_range(self.trials, self.batch, b)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::position::Position;
    use crate::rollout::{Candidate, CubeRules, TrialSettings};

    /// A one-candidate plan of the opening position.
    pub(crate) fn plan(trials: u64, batch: u64, stop: StopRules) -> RolloutPlan {
        RolloutPlan {
            job: RolloutJob {
                candidates: vec![Candidate::position(Position::STARTING)],
                seed: 1,
                settings: TrialSettings::default(),
            },
            trials,
            batch,
            stop,
        }
    }

    #[test]
    fn limits() {
        let ok = plan(1296, 144, StopRules::default());
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(ok.batches(), 9);
        assert_eq!(
            plan(1000, 144, StopRules::default()).batch_range(6),
            864..1000
        );
        assert_eq!(
            plan(0, 36, StopRules::default()).validate(),
            Err(PlanError::Trials(0))
        );
        let big = plan(MAX_TRIALS + 1, 144, StopRules::default());
        assert_eq!(big.validate(), Err(PlanError::Trials(MAX_TRIALS + 1)));
        assert_eq!(
            plan(144, 50, StopRules::default()).validate(),
            Err(PlanError::Batch(50))
        );
        assert!(matches!(
            plan(MAX_TRIALS, 36, StopRules::default()).validate(),
            Err(PlanError::TooManyBatches { .. })
        ));
        let mut deep = ok.clone();
        deep.job.settings.opponent_ply = Some(MAX_TRIAL_PLY + 1);
        assert!(matches!(
            deep.validate(),
            Err(PlanError::Ply("opponent chequer ply", _))
        ));
        let mut cube_ply = ok.clone();
        cube_ply.job.settings.cube_ply = 1;
        assert_eq!(cube_ply.validate(), Err(PlanError::CubePlyWithoutCube));
        cube_ply.job.settings.cube = Some(CubeRules::Money { jacoby: false });
        assert_eq!(cube_ply.validate(), Ok(()));
        let se = plan(
            144,
            36,
            StopRules {
                se_target: Some(0.0),
                jsd: None,
            },
        );
        assert!(se
            .validate()
            .is_err_and(|e| e.to_string().contains("se_target")));
        let mut none = ok;
        none.job.candidates.clear();
        assert_eq!(none.validate(), Err(PlanError::NoCandidates));
    }
}
