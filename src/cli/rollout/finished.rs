//! A finished rollout as the report needs it: the job, its statistics, and how it
//! ran (the rows themselves are built by `bgfarm_report::rollout_rows`, which the
//! coordinator's web page shares).

use bgfarm_engine::rollout::{RolloutJob, RolloutStats};
use bgfarm_engine::Dice;
use bgfarm_report::rollout_rows::JsonCubeDecision;

/// A finished rollout and how it ran.
pub struct Finished<'a> {
    /// The position as the user typed it.
    pub position: &'a str,
    pub job: &'a RolloutJob,
    pub total: &'a RolloutStats,
    pub dice: Option<Dice>,
    /// The engine fingerprint.
    pub fingerprint: &'a str,
    /// Wall seconds and threads of the run; `None` for a stored result shown
    /// again (`bgfarm results show`).
    pub timing: Option<(f64, usize)>,
}

/// What the table prints besides the rows.
pub struct Summary<'a> {
    pub run: &'a Finished<'a>,
    /// The score for the player on roll in the input position (match play).
    pub match_score: Option<[u32; 2]>,
    pub decision: Option<JsonCubeDecision>,
}
