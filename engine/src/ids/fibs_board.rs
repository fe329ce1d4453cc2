//! The FIBS board state line (`board:...`, CLIP "boardstyle 3"), which FIBS clients
//! receive and which GNU Backgammon sends to an external player for every decision.
//!
//! 53 fields separated by colons (see "FIBS Client Protocol Detailed Specification",
//! section "The board state"):
//!
//! | fields | meaning |
//! |---|---|
//! | `board` | the literal tag |
//! | 2, 3 | player's name, opponent's name |
//! | 4 | match length (0 or 9999: unlimited, i.e. money play) |
//! | 5, 6 | player's score, opponent's score |
//! | 7-32 | the board: 26 signed counts, positive for O, negative for X |
//! | 33 | turn: 1 O to act, -1 X, 0 game over |
//! | 34-37 | player's two dice, opponent's two dice (0 when not rolled) |
//! | 38 | cube value |
//! | 39, 40 | player may double, opponent may double (0/1) |
//! | 41 | was doubled (non-zero while a double is pending) |
//! | 42 | colour: the player's colour, 1 O or -1 X |
//! | 43 | direction: -1 the player moves from 24 to 1, 1 from 1 to 24 |
//! | 44, 45 | home and bar of the player: 0 and 25 for direction -1, else 25 and 0 |
//! | 46-49 | checkers borne off (player, opponent), on the bar (player, opponent) |
//! | 50-53 | can move, forced move, did Crawford, redoubles |
//!
//! The player ("you") is the side of the colour field; each side's point `p` in its
//! own numbering (24 = its back point) is board index `p` for direction -1 and
//! `25 - p` for direction 1, and its bar is the index of its bar field (25 for
//! direction -1, 0 for direction 1). This module parses the line faithfully and turns
//! the board into a [`Position`] seen by either side; what a sender means by the
//! remaining flags (GNU Backgammon fills some of them its own way) is left to the
//! caller.

use crate::error::ParseError;
use crate::position::{Position, CHECKERS};

/// Number of colon-separated fields, the `board` tag included.
pub const FIELDS: usize = 53;

/// The two sides of a FIBS board line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FibsSide {
    /// The side of the colour field ("you").
    Player,
    /// The other side.
    Opponent,
}

impl FibsSide {
    /// The other side.
    #[must_use]
    pub fn other(self) -> FibsSide {
        match self {
            FibsSide::Player => FibsSide::Opponent,
            FibsSide::Opponent => FibsSide::Player,
        }
    }
}

/// One parsed `board:` line, field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FibsBoard {
    pub player_name: String,
    pub opponent_name: String,
    /// Match length as sent: 0 or 9999 mean an unlimited (money) session.
    pub match_length: u32,
    pub player_score: u32,
    pub opponent_score: u32,
    /// The 26 board fields: positive counts are O's checkers, negative X's.
    pub board: [i8; 26],
    /// 1: O to act, -1: X, 0: the game is over.
    pub turn: i8,
    pub player_dice: [u8; 2],
    pub opponent_dice: [u8; 2],
    pub cube: u32,
    pub player_may_double: bool,
    pub opponent_may_double: bool,
    /// Non-zero while a double is pending (GNU Backgammon may give it a sign).
    pub was_doubled: i32,
    /// The player's colour: 1 (O) or -1 (X).
    pub colour: i8,
    /// The player's direction: -1 (24 towards 1) or 1 (1 towards 24).
    pub direction: i8,
    pub home: u8,
    pub bar: u8,
    pub player_off: u8,
    pub opponent_off: u8,
    pub player_on_bar: u8,
    pub opponent_on_bar: u8,
    pub can_move: u8,
    pub forced_move: i32,
    pub did_crawford: i32,
    /// Redoubles allowed; `u32::MAX` for "unlimited".
    pub redoubles: u32,
}

/// Reads one numeric field, naming it in the error.
fn num<T: std::str::FromStr>(fields: &[&str], i: usize, what: &str) -> Result<T, ParseError> {
    let text = fields.get(i).copied().unwrap_or("").trim();
    text.parse().map_err(|_| {
        ParseError::new(format!(
            "FIBS board field {} ({what}) is {text:?}, not a valid number",
            i + 1
        ))
    })
}

fn flag(fields: &[&str], i: usize, what: &str) -> Result<bool, ParseError> {
    match num::<i32>(fields, i, what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(ParseError::new(format!(
            "FIBS board field {} ({what}) is {v}, expected 0 or 1",
            i + 1
        ))),
    }
}

fn sign(fields: &[&str], i: usize, what: &str) -> Result<i8, ParseError> {
    match num::<i8>(fields, i, what)? {
        v @ (-1 | 1) => Ok(v),
        v => Err(ParseError::new(format!(
            "FIBS board field {} ({what}) is {v}, expected 1 or -1",
            i + 1
        ))),
    }
}

impl FibsBoard {
    /// Parses a `board:` line; surrounding whitespace and NUL bytes are ignored.
    pub fn parse(line: &str) -> Result<FibsBoard, ParseError> {
        let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        let fields: Vec<&str> = line.split(':').collect();
        if fields.first().map(|f| f.trim()) != Some("board") {
            return Err(ParseError::new(
                "not a FIBS board line: it must start with `board:`",
            ));
        }
        if fields.len() != FIELDS {
            return Err(ParseError::new(format!(
                "a FIBS board line has {FIELDS} colon-separated fields, this one {}",
                fields.len()
            )));
        }
        let mut board = [0i8; 26];
        for (k, b) in board.iter_mut().enumerate() {
            let v: i8 = num(&fields, 6 + k, "board")?;
            if v.unsigned_abs() > CHECKERS {
                return Err(ParseError::new(format!(
                    "FIBS board field {} holds {v} checkers (at most 15)",
                    7 + k
                )));
            }
            *b = v;
        }
        let turn: i8 = num(&fields, 32, "turn")?;
        if !(-1..=1).contains(&turn) {
            return Err(ParseError::new(format!(
                "FIBS board field 33 (turn) is {turn}, expected 1, -1 or 0"
            )));
        }
        let die = |i: usize| -> Result<u8, ParseError> {
            let d: u8 = num(&fields, i, "die")?;
            if d > 6 {
                return Err(ParseError::new(format!(
                    "FIBS board field {} (a die) is {d}, expected 0 to 6",
                    i + 1
                )));
            }
            Ok(d)
        };
        let cube: u32 = num(&fields, 37, "cube")?;
        if !cube.is_power_of_two() {
            return Err(ParseError::new(format!(
                "FIBS board field 38 (cube) is {cube}, not a power of two"
            )));
        }
        let count = |i: usize, what: &str| -> Result<u8, ParseError> {
            let n: u8 = num(&fields, i, what)?;
            if n > CHECKERS {
                return Err(ParseError::new(format!(
                    "FIBS board field {} ({what}) is {n}, more than 15 checkers",
                    i + 1
                )));
            }
            Ok(n)
        };
        let redoubles = match fields[52].trim() {
            t if t.eq_ignore_ascii_case("unlimited") => u32::MAX,
            _ => num(&fields, 52, "redoubles")?,
        };
        let out = FibsBoard {
            player_name: fields[1].to_string(),
            opponent_name: fields[2].to_string(),
            match_length: num(&fields, 3, "match length")?,
            player_score: num(&fields, 4, "player's score")?,
            opponent_score: num(&fields, 5, "opponent's score")?,
            board,
            turn,
            player_dice: [die(33)?, die(34)?],
            opponent_dice: [die(35)?, die(36)?],
            cube,
            player_may_double: flag(&fields, 38, "player may double")?,
            opponent_may_double: flag(&fields, 39, "opponent may double")?,
            was_doubled: num(&fields, 40, "was doubled")?,
            colour: sign(&fields, 41, "colour")?,
            direction: sign(&fields, 42, "direction")?,
            home: num(&fields, 43, "home")?,
            bar: num(&fields, 44, "bar")?,
            player_off: count(45, "player's checkers off")?,
            opponent_off: count(46, "opponent's checkers off")?,
            player_on_bar: count(47, "player's checkers on the bar")?,
            opponent_on_bar: count(48, "opponent's checkers on the bar")?,
            can_move: num(&fields, 49, "can move")?,
            forced_move: num(&fields, 50, "forced move")?,
            did_crawford: num(&fields, 51, "did Crawford")?,
            redoubles,
        };
        let (home, bar) = if out.direction < 0 { (0, 25) } else { (25, 0) };
        if (out.home, out.bar) != (home, bar) {
            return Err(ParseError::new(format!(
                "FIBS board home {} and bar {} do not match direction {} (expected {home} and {bar})",
                out.home, out.bar, out.direction
            )));
        }
        Ok(out)
    }

    /// The colour (1 O, -1 X) of `side`.
    pub fn colour_of(&self, side: FibsSide) -> i8 {
        match side {
            FibsSide::Player => self.colour,
            FibsSide::Opponent => -self.colour,
        }
    }

    /// The side of colour `colour` (1 O, -1 X).
    pub fn side_of_colour(&self, colour: i8) -> FibsSide {
        if colour == self.colour {
            FibsSide::Player
        } else {
            FibsSide::Opponent
        }
    }

    /// The side whose turn it is, or `None` when the game is over.
    pub fn side_on_turn(&self) -> Option<FibsSide> {
        (self.turn != 0).then(|| self.side_of_colour(self.turn))
    }

    /// The direction (-1 from 24 towards 1, 1 from 1 towards 24) of `side`.
    pub fn direction_of(&self, side: FibsSide) -> i8 {
        match side {
            FibsSide::Player => self.direction,
            FibsSide::Opponent => -self.direction,
        }
    }

    /// The dice `side` rolled (`None` when not rolled).
    pub fn dice_of(&self, side: FibsSide) -> Option<[u8; 2]> {
        let d = match side {
            FibsSide::Player => self.player_dice,
            FibsSide::Opponent => self.opponent_dice,
        };
        (d[0] != 0 && d[1] != 0).then_some(d)
    }

    /// `side`'s checkers in its own numbering: index 0..=23 = points 1..=24, index 24
    /// = its bar (the array layout of [`Position::from_arrays`]).
    pub fn checkers_of(&self, side: FibsSide) -> [u8; 25] {
        let colour = self.colour_of(side);
        let down = self.direction_of(side) < 0;
        let mut out = [0u8; 25];
        for (p, slot) in out.iter_mut().take(24).enumerate() {
            let point = p + 1;
            let v = self.board[if down { point } else { 25 - point }];
            if v.signum() == colour {
                *slot = v.unsigned_abs();
            }
        }
        // The bar field is read by its place, whatever its sign: senders differ.
        out[24] = self.board[if down { 25 } else { 0 }].unsigned_abs();
        out
    }

    /// The position seen by `side` as the player on roll.
    pub fn position_for(&self, side: FibsSide) -> Result<Position, ParseError> {
        let mover = self.checkers_of(side);
        let opp = self.checkers_of(side.other());
        Position::from_arrays(&mover, &opp)
            .map_err(|e| ParseError::new(format!("the FIBS board is not a position: {e}")))
    }

    /// True for an unlimited session (money play).
    pub fn is_money(&self) -> bool {
        self.match_length == 0 || self.match_length == 9999
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::position_id;

    /// A line GNU Backgammon 1.07 sent to its external player 1 after its own opening
    /// 24/15 (as X): the external (O, positive, direction -1) is on roll with 13.
    const GNUBG_MOVE: &str = "board:gnubg:root:3:0:0:0:-1:0:0:0:0:5:0:3:0:-1:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:1:3:1:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";

    #[test]
    fn parses_every_field_of_a_gnubg_line() {
        let b = FibsBoard::parse(&format!("{GNUBG_MOVE}\n\0")).unwrap();
        assert_eq!(
            (b.player_name.as_str(), b.opponent_name.as_str()),
            ("gnubg", "root")
        );
        assert_eq!(
            (b.match_length, b.player_score, b.opponent_score),
            (3, 0, 0)
        );
        assert_eq!(b.turn, 1);
        assert_eq!((b.player_dice, b.opponent_dice), ([1, 3], [1, 3]));
        assert_eq!(b.cube, 1);
        assert!(b.player_may_double && b.opponent_may_double);
        assert_eq!(
            (b.was_doubled, b.colour, b.direction, b.home, b.bar),
            (0, 1, -1, 0, 25)
        );
        assert_eq!(b.redoubles, 1);
        assert_eq!(b.side_on_turn(), Some(FibsSide::Player));
        assert!(!b.is_money());
    }

    #[test]
    fn positions_seen_by_each_side() {
        let b = FibsBoard::parse(GNUBG_MOVE).unwrap();
        let me = b.position_for(FibsSide::Player).unwrap();
        // The opponent played 24/15 from the opening position.
        let mut arr = Position::STARTING.to_arrays();
        arr.1[23] = 1;
        arr.1[14] = 1;
        let want = Position::from_arrays(&arr.0, &arr.1).unwrap();
        assert_eq!(me, want);
        assert_eq!(
            b.position_for(FibsSide::Opponent).unwrap(),
            want.switch_sides()
        );
        assert_eq!(position_id::encode(&me), position_id::encode(&want));
    }

    #[test]
    fn the_other_direction_mirrors_the_board() {
        // The same game written for X moving 1 -> 24 (direction 1): reverse the board
        // and flip the signs; X is now the player, O the opponent.
        let b = FibsBoard::parse(GNUBG_MOVE).unwrap();
        let mut fields: Vec<String> = GNUBG_MOVE.split(':').map(str::to_string).collect();
        for k in 0..26 {
            fields[6 + k] = (-b.board[25 - k]).to_string();
        }
        fields[41] = "-1".into(); // colour X
        fields[42] = "1".into(); // direction 1
        fields[43] = "25".into();
        fields[44] = "0".into();
        fields[32] = "-1".into(); // X's turn
        let m = FibsBoard::parse(&fields.join(":")).unwrap();
        assert_eq!(m.side_on_turn(), Some(FibsSide::Player));
        assert_eq!(
            m.position_for(FibsSide::Player).unwrap(),
            b.position_for(FibsSide::Player).unwrap()
        );
    }

    #[test]
    fn bars_are_read_by_place() {
        let mut fields: Vec<String> = GNUBG_MOVE.split(':').map(str::to_string).collect();
        // One O checker from its 24-point on its bar (index 25), one X checker from
        // its 24 (index 1) on its bar (index 0, written negative).
        fields[6 + 24] = "1".into();
        fields[6 + 25] = "1".into();
        fields[6 + 1] = "0".into();
        fields[6] = "-1".into();
        let b = FibsBoard::parse(&fields.join(":")).unwrap();
        let (m, o) = b.position_for(FibsSide::Player).unwrap().to_arrays();
        assert_eq!((m[24], m[23]), (1, 1));
        assert_eq!((o[24], o[23]), (1, 0));
    }

    #[test]
    fn rejects_bad_lines_with_a_message() {
        let bad = |text: &str, needle: &str| {
            let e = FibsBoard::parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        };
        bad("", "must start with `board:`");
        bad("hello", "must start with `board:`");
        bad("board:a:b:3", "53 colon-separated fields");
        let with = |i: usize, v: &str| {
            let mut f: Vec<&str> = GNUBG_MOVE.split(':').collect();
            f[i] = v;
            f.join(":")
        };
        bad(&with(3, "x"), "match length");
        bad(&with(10, "99"), "at most 15");
        bad(&with(32, "2"), "turn");
        bad(&with(33, "7"), "die");
        bad(&with(37, "3"), "power of two");
        bad(&with(38, "2"), "expected 0 or 1");
        bad(&with(41, "0"), "colour");
        bad(&with(43, "25"), "do not match direction");
        // 16 checkers for O.
        let f = with(12, "6");
        let b = FibsBoard::parse(&f).unwrap();
        assert!(b.position_for(FibsSide::Player).is_err());
    }
}
