//! What a board line from GNU Backgammon asks: roll or double, take or drop, or which
//! move to play, with the position, cube and match score seen by the player on roll.
//!
//! GNU Backgammon (1.07) asks its external player only when that player must act, and
//! fills the FIBS board its own way (facts checked on recorded lines, see
//! `tests/data/external/`):
//!
//! - the board is always written for GNU Backgammon's player 1: colour 1, direction
//!   -1, positive counts;
//! - the turn field names the player on roll (the one who rolls, or who doubled);
//! - "was doubled" is set while a double is pending: then the *other* side must
//!   answer it; otherwise the side on turn acts: with no dice it chooses between
//!   rolling and doubling, with dice it moves;
//! - the may-double flags say who owns the cube (both set: centred), not who may
//!   double now (Crawford and dead cubes are left to the receiver);
//! - the score fields follow the name fields, which GNU Backgammon swaps: while no
//!   double is pending the first score is its player 0's, that is the side *not* of
//!   the colour field; while a double is pending it is the colour side's;
//! - the last two fields ("did Crawford" and "redoubles" in FIBS's names) are 0:0 in
//!   the Crawford game, 1:1 after it (post-Crawford) and 0:1 before. GNU Backgammon's
//!   own reader of FIBS boards reads them as "non-Crawford" and "post-Crawford"
//!   flags, and so does this one: with exactly one player 1-away, the game is the
//!   Crawford game when both are 0 (which FIBS's own meaning, "the Crawford game was
//!   played", agrees with).
//!
//! A match length of 0 (or FIBS's 9999) is money play.

use bgfarm_engine::cube::{Cube, Owner};
use bgfarm_engine::ids::fibs_board::{FibsBoard, FibsSide};
use bgfarm_engine::met::MatchScore;
use bgfarm_engine::{Dice, ParseError, Position};

/// The decision asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Before rolling: `roll` or `double`.
    RollOrDouble,
    /// The opponent doubled: `take`, `drop` or `beaver`.
    TakeOrDrop,
    /// Play this roll.
    Move(Dice),
}

/// One decision, seen from the player on roll (the roller, or the doubler when a
/// double is pending: the taker's question is answered from the doubler's side).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    pub ask: Ask,
    /// The position seen by the player on roll.
    pub position: Position,
    /// The cube before any pending double, seen by the player on roll.
    pub cube: Cube,
    /// `(length, score)` in a match, the score seen by the player on roll; `None` for
    /// money play.
    pub score: Option<(u32, MatchScore)>,
}

impl Request {
    /// Reads the decision a GNU Backgammon board line asks for.
    pub fn from_board(b: &FibsBoard) -> Result<Request, ParseError> {
        let Some(on_turn) = b.side_on_turn() else {
            return Err(ParseError::new(
                "the board line says the game is over (turn 0): there is nothing to decide",
            ));
        };
        let doubled = b.was_doubled != 0;
        let position = b.position_for(on_turn)?;
        if position.game_over() {
            return Err(ParseError::new(
                "a side has borne off every checker: the game is over",
            ));
        }
        let ask = if doubled {
            Ask::TakeOrDrop
        } else {
            // GNU Backgammon writes the roll in both pairs; FIBS in the roller's.
            let (mine, theirs) = match on_turn {
                FibsSide::Player => (b.player_dice, b.opponent_dice),
                FibsSide::Opponent => (b.opponent_dice, b.player_dice),
            };
            match if mine == [0, 0] { theirs } else { mine } {
                [0, 0] => Ask::RollOrDouble,
                [d1, d2] => Ask::Move(Dice::new(d1, d2).ok_or_else(|| {
                    ParseError::new(format!("the dice {d1} and {d2} are not a roll"))
                })?),
            }
        };
        let owner = match (b.player_may_double, b.opponent_may_double) {
            (true, false) => Owner::Mover,
            (false, true) => Owner::Opponent,
            _ => Owner::Centred,
        };
        let owner = if on_turn == FibsSide::Player {
            owner
        } else {
            owner.flip()
        };
        let cube = Cube {
            value: b.cube,
            owner,
        };
        let score = if b.is_money() {
            None
        } else {
            Some((b.match_length, match_score(b, on_turn, doubled)?))
        };
        Ok(Request {
            ask,
            position,
            cube,
            score,
        })
    }
}

/// The match score seen by `on_turn` (see the module docs for whose score is whose).
fn match_score(b: &FibsBoard, on_turn: FibsSide, doubled: bool) -> Result<MatchScore, ParseError> {
    let first_is = if doubled {
        FibsSide::Player
    } else {
        FibsSide::Opponent
    };
    let (mine, theirs) = if on_turn == first_is {
        (b.player_score, b.opponent_score)
    } else {
        (b.opponent_score, b.player_score)
    };
    let len = b.match_length;
    if mine >= len || theirs >= len {
        return Err(ParseError::new(format!(
            "the score {mine}-{theirs} has already ended a {len}-point match"
        )));
    }
    let (away, opp_away) = (len - mine, len - theirs);
    let crawford = (away == 1) != (opp_away == 1) && b.did_crawford == 0 && b.redoubles == 0;
    MatchScore::new(away, opp_away, crawford).map_err(|e| ParseError::new(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU Backgammon 1.07, 3-point match at 0-0: player 1 (the external player, the
    /// colour side) on roll before rolling, cube centred.
    const ROLL_OR_DOUBLE: &str = "board:gnubg:root:3:0:0:0:-1:0:0:0:0:5:0:3:0:-1:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";

    fn with(line: &str, edits: &[(usize, &str)]) -> FibsBoard {
        let mut f: Vec<&str> = line.split(':').collect();
        for &(i, v) in edits {
            f[i] = v;
        }
        FibsBoard::parse(&f.join(":")).unwrap()
    }

    #[test]
    fn roll_or_double_then_move() {
        let r = Request::from_board(&FibsBoard::parse(ROLL_OR_DOUBLE).unwrap()).unwrap();
        assert_eq!(r.ask, Ask::RollOrDouble);
        assert_eq!(r.cube, Cube::INITIAL);
        let (len, s) = r.score.unwrap();
        assert_eq!((len, s.away, s.opp_away, s.crawford), (3, 3, 3, false));
        let m = Request::from_board(&with(ROLL_OR_DOUBLE, &[(33, "6"), (34, "4")])).unwrap();
        assert_eq!(m.ask, Ask::Move(Dice::new(6, 4).unwrap()));
        assert_eq!(m.position, r.position);
    }

    #[test]
    fn scores_follow_gnubgs_order() {
        // 5-point match, first score 1 (player 0's while no double is pending), second
        // 3 (the colour side's, on roll): the player on roll needs 2, the other 4.
        let b = with(ROLL_OR_DOUBLE, &[(3, "5"), (4, "1"), (5, "3")]);
        let (_, s) = Request::from_board(&b).unwrap().score.unwrap();
        assert_eq!((s.away, s.opp_away), (2, 4));
        // A pending double by player 0 (turn -1): the first score is now the colour
        // side's (3), the doubler (on turn) has the other (1).
        let b = with(
            ROLL_OR_DOUBLE,
            &[(3, "5"), (4, "3"), (5, "1"), (32, "-1"), (40, "1")],
        );
        let r = Request::from_board(&b).unwrap();
        assert_eq!(r.ask, Ask::TakeOrDrop);
        let (_, s) = r.score.unwrap();
        assert_eq!((s.away, s.opp_away), (4, 2));
        assert_eq!(
            r.position,
            FibsBoard::parse(ROLL_OR_DOUBLE)
                .unwrap()
                .position_for(FibsSide::Opponent)
                .unwrap()
        );
    }

    #[test]
    fn cube_owner_is_seen_by_the_player_on_roll() {
        // Player 1 (colour side) owns a 2-cube: may double 1, opponent may double 0.
        let b = with(ROLL_OR_DOUBLE, &[(37, "2"), (39, "0")]);
        let r = Request::from_board(&b).unwrap();
        assert_eq!(
            r.cube,
            Cube {
                value: 2,
                owner: Owner::Mover
            }
        );
        // The same cube when the other side is on turn (doubling back).
        let b = with(
            ROLL_OR_DOUBLE,
            &[(37, "2"), (39, "0"), (32, "-1"), (40, "1")],
        );
        let r = Request::from_board(&b).unwrap();
        assert_eq!(r.cube.owner, Owner::Opponent);
    }

    #[test]
    fn crawford_and_money() {
        // 5-point match, player 0 has 4 (1-away), the player on roll 2.
        let at = |last: &str| {
            let b = with(ROLL_OR_DOUBLE, &[(3, "5"), (4, "4"), (5, "2"), (52, last)]);
            Request::from_board(&b).unwrap().score.unwrap().1
        };
        let s = at("0");
        assert_eq!((s.away, s.opp_away, s.crawford), (3, 1, true));
        // Post-Crawford: the last field is 1.
        assert!(!at("1").crawford);
        // Both flags 0 without a 1-away player: no Crawford game.
        let b = with(ROLL_OR_DOUBLE, &[(52, "0")]);
        assert!(!Request::from_board(&b).unwrap().score.unwrap().1.crawford);
        for len in ["0", "9999"] {
            let b = with(ROLL_OR_DOUBLE, &[(3, len)]);
            assert!(Request::from_board(&b).unwrap().score.is_none());
        }
    }

    #[test]
    fn refusals() {
        let err = |b: FibsBoard| Request::from_board(&b).unwrap_err().to_string();
        assert!(err(with(ROLL_OR_DOUBLE, &[(32, "0")])).contains("game is over"));
        assert!(err(with(ROLL_OR_DOUBLE, &[(4, "3")])).contains("already ended"));
        assert!(err(with(ROLL_OR_DOUBLE, &[(33, "3")])).contains("not a roll"));
    }
}
