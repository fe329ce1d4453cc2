//! `--nets` / `--class` of the supervised commands: which of the two nets a
//! command fits, or whose positions it keeps.

use bgfarm_engine::eval::crashed::is_crashed;
use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::Position;

/// The nets `bgfarm-lab train fit` changes (and whose positions `positions`,
/// `label` and `siblings` keep).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Nets {
    Both,
    Contact,
    Race,
    /// The contact positions GNU Backgammon classes as crashed
    /// ([`bgfarm_engine::eval::crashed`]).
    Crashed,
}

impl Nets {
    /// Whether a position is one these nets answer (`Both`: any position).
    pub fn answers(self, eval: &NeuralEvaluator, pos: &Position) -> bool {
        match self {
            Nets::Both => true,
            Nets::Contact => eval.class(pos) == Class::Contact,
            Nets::Race => eval.class(pos) == Class::Race,
            Nets::Crashed => eval.class(pos) == Class::Contact && is_crashed(pos),
        }
    }
}
