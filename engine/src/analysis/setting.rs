//! The cube and score of a decision, seen from the player on roll: what every
//! cubeful value of an analysis depends on besides the board.

use crate::cube::Cube;
use crate::met::MatchScore;

/// The match part of a decision, seen from the player on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    pub cube: Cube,
    /// `(length, score)` in a match, `None` for money.
    pub score: Option<(u32, MatchScore)>,
    pub jacoby: bool,
}

impl Setting {
    /// The same setting seen by the opponent.
    pub fn flip(&self) -> Setting {
        Setting {
            cube: self.cube.flip(),
            score: self.score.map(|(l, s)| (l, s.flip())),
            jacoby: self.jacoby,
        }
    }
}
