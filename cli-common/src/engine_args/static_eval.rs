//! The static (0-ply) evaluation of a position with the nets and race options a
//! command names, and which part of the evaluator answered: what `bgfarm eval`
//! prints, and what the training tests compare fitted nets with.

use super::nets::load_evaluator;
use super::race_args::RaceArgs;
use crate::CliError;
use bgfarm_engine::eval::crashed::is_crashed;
use bgfarm_engine::eval::neural::Class;
use bgfarm_engine::eval::{terminal_probs, Evaluator, Probs};
use bgfarm_engine::Position;

/// A position's cubeless probabilities and the part of the evaluator that gave
/// them.
pub struct StaticEval {
    pub probs: Probs,
    /// `game over`, `bear-off database`, `race net`, `crashed net` (nets that carry
    /// one, on a crashed position) or `contact net`.
    pub source: &'static str,
}

/// Evaluates `pos` with the nets named by `net` (see [`load_evaluator`]) and the
/// endgame `race` asks for.
pub fn static_eval(net: &str, race: &RaceArgs, pos: &Position) -> Result<StaticEval, CliError> {
    let mut eval = load_evaluator(net)?;
    if let Some(e) = race.endgame()? {
        eval.endgame = Some(e);
    }
    let probs = terminal_probs(pos).unwrap_or_else(|| eval.evaluate(pos));
    let source = match eval.class(pos) {
        Class::Over => "game over",
        Class::Endgame => "bear-off database",
        Class::Race => "race net",
        Class::Contact if eval.crashed.is_some() && is_crashed(pos) => "crashed net",
        Class::Contact => "contact net",
    };
    Ok(StaticEval { probs, source })
}
