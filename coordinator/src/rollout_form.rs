//! The rollout form of the web page (`/submit`) as data: its fields, read from a
//! form post, and the planner that turns them into a job spec.
//!
//! The coordinator does not plan rollouts itself: ranking `top:N` moves needs the
//! nets, and the rules and messages must be the command line's. So whoever starts
//! the coordinator (`bgfarm serve`) hands it a [`RolloutPlanner`] that builds the
//! plan exactly as `bgfarm rollout` does with the same flags; without one the
//! form says that this coordinator cannot plan rollouts.

use crate::urlencoded::field as form_field;
use bgfarm_proto::v1;
use std::fmt;
use std::sync::Arc;

/// The fields of the rollout form, as typed (trimmed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RolloutForm {
    /// A GNU Backgammon position ID (optionally `ID:MATCHID`) or an XGID.
    pub position: String,
    /// The roll whose moves are rolled out; empty: the position before the roll.
    pub dice: String,
    /// `all`, `top:N` or moves in notation separated by commas.
    pub moves: String,
    pub trials: String,
    pub seed: String,
    pub ply: String,
    pub truncate: String,
    /// A preset's name (`bgfarm rollout --preset`); empty: none.
    pub preset: String,
    pub cubeful: bool,
}

/// The form's field names, in the order of the page.
pub const FIELDS: [&str; 9] = [
    "position", "dice", "moves", "trials", "seed", "ply", "truncate", "preset", "cubeful",
];

impl RolloutForm {
    /// The fields of an `application/x-www-form-urlencoded` body; a missing field
    /// is empty, a field that is not UTF-8 keeps its readable part.
    pub fn from_body(body: &str) -> RolloutForm {
        let get = |name: &str| {
            form_field(body, name)
                .map(|v| String::from_utf8_lossy(&v).trim().to_string())
                .unwrap_or_default()
        };
        RolloutForm {
            position: get("position"),
            dice: get("dice"),
            moves: get("moves"),
            trials: get("trials"),
            seed: get("seed"),
            ply: get("ply"),
            truncate: get("truncate"),
            preset: get("preset"),
            cubeful: !get("cubeful").is_empty(),
        }
    }

    /// The form as first shown: the command line's defaults.
    pub fn defaults() -> RolloutForm {
        RolloutForm {
            moves: "top:5".into(),
            seed: "1".into(),
            ..RolloutForm::default()
        }
    }
}

/// Builds the job spec of a filled-in form, or says (in one line, in the words
/// of the command line) why it cannot. It may evaluate positions (`top:N`), so
/// the page calls it off the async threads.
type PlanFn = dyn Fn(&RolloutForm) -> Result<v1::JobSpec, String> + Send + Sync;

/// The planner of the rollout form ([`PlanFn`]), shared.
#[derive(Clone)]
pub struct RolloutPlanner(pub Arc<PlanFn>);

impl fmt::Debug for RolloutPlanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RolloutPlanner")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_from_a_post() {
        let f = RolloutForm::from_body(
            "position=4HPwATDgc%2FABMA&dice=31&moves=top%3A3&trials=+72+&seed=5&ply=0\
             &truncate=&preset=&cubeful=on&token=x",
        );
        assert_eq!(f.position, "4HPwATDgc/ABMA");
        assert_eq!((f.dice.as_str(), f.moves.as_str()), ("31", "top:3"));
        assert_eq!(f.trials, "72");
        assert!(f.cubeful && f.truncate.is_empty());
        assert!(!RolloutForm::from_body("position=x").cubeful);
        assert_eq!(RolloutForm::from_body("").position, "");
    }
}
