//! Recorded matches: GNU Backgammon's `.sgf` files and the `.mat` match text format
//! (GNU Backgammon's `export match mat`, eXtreme Gammon, servers), read into one
//! model so that analysis never cares which format a match came in.
//!
//! Reading is pure: a reader takes the file's text and returns a [`Match`] or a
//! [`MatchFileError`] with the 1-based line it is about (the caller adds the file
//! name). Every move read is replayed through the move generator ([`replay`]): the
//! move must be a legal play of its dice from the position, and the position after
//! it is the generator's, so a match that reads is a legal match and two files of
//! the same match give the same actions (same positions, dice, moves, cube actions),
//! whatever notation each used.
//!
//! Players are numbered as both formats list them: player 0 is GNU Backgammon's
//! white (`PW`, the left column of a `.mat` file), player 1 black (`PB`, the right
//! column).

pub mod mat;
pub mod replay;
pub mod sgf;

use crate::dice::Dice;
use crate::movegen::Move;
use crate::position::Position;
use std::fmt;

/// A recorded match (or money session: `length == 0`).
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The players' names, player 0 first.
    pub players: [String; 2],
    /// Points to win the match; 0 for money play.
    pub length: u32,
    /// The Crawford rule is in force (match play).
    pub crawford_rule: bool,
    /// The Jacoby rule is in force (money play).
    pub jacoby: bool,
    pub games: Vec<Game>,
}

/// One game of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// 1-based game number.
    pub number: u32,
    /// Points each player had when the game started.
    pub score: [u32; 2],
    /// This is the Crawford game (no doubling).
    pub crawford: bool,
    /// Every action in the order played.
    pub actions: Vec<Action>,
    /// How the game ended; `None` for a game still in progress when the file was saved.
    pub end: Option<GameEnd>,
}

/// The cube before an action: its value and the player who owns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeState {
    pub value: u32,
    /// `None`: centred.
    pub owner: Option<u8>,
}

impl CubeState {
    /// The cube at the start of every game.
    pub const INITIAL: CubeState = CubeState {
        value: 1,
        owner: None,
    };
}

/// One thing a player did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Action {
    /// 1-based line of the file it was read from.
    pub line: usize,
    /// Who acted (0 or 1).
    pub player: u8,
    /// The board seen by the player on roll at that moment: the mover for a move, the
    /// doubler for a double and for the opponent's take or drop.
    pub position: Position,
    /// The cube before the action.
    pub cube: CubeState,
    pub kind: ActionKind,
}

/// What an [`Action`] was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ActionKind {
    /// A roll and its play; `None` when the roll could not be played.
    Move {
        dice: Dice,
        played: Option<Move>,
    },
    /// A roll that was not played because the game ended before (the roller
    /// resigned): no chequer decision.
    Rolled {
        dice: Dice,
    },
    Double,
    Take,
    Drop,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The winner bore off all their checkers.
    BoreOff { winner: u8, points: u32 },
    /// The loser passed a double.
    Dropped { winner: u8, points: u32 },
    /// The loser resigned and the winner accepted.
    Resigned { winner: u8, points: u32 },
}

impl GameEnd {
    /// The winner and the points they won.
    pub fn winner_points(self) -> (u8, u32) {
        match self {
            GameEnd::BoreOff { winner, points }
            | GameEnd::Dropped { winner, points }
            | GameEnd::Resigned { winner, points } => (winner, points),
        }
    }
}

/// A file that cannot be read: the line (1-based; 0 when about the whole file) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchFileError {
    pub line: usize,
    pub message: String,
}

impl MatchFileError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        MatchFileError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for MatchFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for MatchFileError {}

/// The formats this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Sgf,
    Mat,
}

impl Format {
    /// The format of a file's text: SGF starts with `(;` (after white space);
    /// anything else is tried as match text.
    pub fn detect(text: &str) -> Format {
        if text.trim_start().starts_with('(') {
            Format::Sgf
        } else {
            Format::Mat
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Sgf => "sgf",
            Format::Mat => "mat",
        }
    }
}

/// Reads a match in either format ([`Format::detect`]).
pub fn parse(text: &str) -> Result<(Format, Match), MatchFileError> {
    let format = Format::detect(text);
    let m = match format {
        Format::Sgf => sgf::parse(text)?,
        Format::Mat => mat::parse(text)?,
    };
    Ok((format, m))
}

impl Match {
    /// Whether the game with these starting scores is the Crawford game: the first
    /// game in which a player is one point from winning, under the Crawford rule.
    /// `previous` is the score at the start of the game before (`None` for the first).
    pub fn is_crawford(&self, score: [u32; 2], previous: Option<[u32; 2]>) -> bool {
        if !self.crawford_rule || self.length == 0 {
            return false;
        }
        let at_one = |s: [u32; 2]| s.iter().any(|&p| p + 1 == self.length);
        let won = |s: [u32; 2]| s.iter().any(|&p| p >= self.length);
        at_one(score) && !won(score) && !previous.is_some_and(at_one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAT: &str = " 0 point match

 Game 1
 Alice Smith : 0                Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
";

    const SGF: &str = "(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[Alice Smith]PB[Bob]\
RE[W+1]C[a \\] in a comment]
;W[31hefe];B[42qusu];W[double];B[drop])";

    #[test]
    fn a_money_game_in_both_formats() {
        let (f1, a) = parse(MAT).unwrap();
        let (f2, b) = parse(SGF).unwrap();
        assert_eq!((f1, f2), (Format::Mat, Format::Sgf));
        assert_eq!(a.players, ["Alice Smith".to_string(), "Bob".to_string()]);
        assert_eq!((a.length, b.length), (0, 0));
        let strip = |m: &Match| -> Vec<_> {
            m.games[0]
                .actions
                .iter()
                .map(|x| (x.player, x.position, x.kind, x.cube))
                .collect()
        };
        assert_eq!(strip(&a), strip(&b));
        assert_eq!(strip(&a).len(), 4);
        let end = Some(GameEnd::Dropped {
            winner: 0,
            points: 1,
        });
        assert_eq!((a.games[0].end, b.games[0].end), (end, end));
    }

    #[test]
    fn refusals_name_the_line() {
        let out_of_turn = MAT.replace(
            "  2)  Doubles => 2                Drops",
            "  2)                             Doubles => 2",
        );
        let e = parse(&out_of_turn).unwrap_err();
        assert_eq!(e.line, 6, "{e}");
        let e = parse(&SGF.replace("W[double];B[drop]", "B[take]")).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = parse(&SGF.replace("GM[6]", "GM[1]")).unwrap_err();
        assert_eq!(e.line, 1, "{e}");
        let e = parse(&SGF.replace("W[31hefe]", "W[31hefd]")).unwrap_err();
        assert!(e.message.contains("illegal"), "{e}");
    }

    #[test]
    fn crawford_game() {
        let m = Match {
            players: Default::default(),
            length: 5,
            crawford_rule: true,
            jacoby: false,
            games: Vec::new(),
        };
        assert!(m.is_crawford([4, 2], Some([3, 2])));
        assert!(!m.is_crawford([4, 3], Some([4, 2])));
        assert!(!m.is_crawford([3, 3], Some([3, 2])));
        assert!(m.is_crawford([1, 4], None));
    }
}
