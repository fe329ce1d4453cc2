//! eXtreme Gammon's XGID, e.g. `XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10`.
//!
//! Fields after `XGID=`, separated by `:`:
//! 1. 26 characters: index 0 = the top player's (O's) bar, 1..=24 = points 1..=24 in
//!    the bottom player's (X's) numbering, 25 = X's bar. `-` empty, `A`..`P` = 1..16
//!    of X's checkers, `a`..`p` = O's.
//! 2. log2 of the cube value; 3. cube position: 0 centred, 1 X owns, -1 O owns;
//! 4. turn: 1 X to act, -1 O; 5. dice: `00` not rolled, `D` doubled, `B` beavered,
//!    `R` raccooned, else two digits; 6, 7. X's and O's scores;
//! 8. in a match 1 = Crawford game; in money bit 0 = Jacoby, bit 1 = beavers allowed;
//! 9. match length, 0 for money; 10. log2 of the maximum cube.

use crate::error::ParseError;
use crate::position::Position;
use std::fmt;

/// The dice field of an XGID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XgDice {
    NotRolled,
    Rolled(u8, u8),
    Doubled,
    Beavered,
    Raccooned,
}

/// A parsed XGID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xgid {
    /// The board from X's side (X = the bottom player, positive counts), whoever is
    /// on roll.
    pub board: Position,
    pub cube_log2: u8,
    /// 0 centred, 1 X owns, -1 O owns.
    pub cube_position: i8,
    /// 1 X to act, -1 O.
    pub turn: i8,
    pub dice: XgDice,
    pub score_x: u32,
    pub score_o: u32,
    /// Crawford flag in a match; Jacoby (1) + beaver (2) flags in money play.
    pub flags: u8,
    pub match_length: u32,
    pub max_cube_log2: u8,
}

impl Xgid {
    /// An XGID for `pos` with X on roll, money play, cube centred, not rolled.
    pub fn money(pos: Position) -> Xgid {
        Xgid {
            board: pos,
            cube_log2: 0,
            cube_position: 0,
            turn: 1,
            dice: XgDice::NotRolled,
            score_x: 0,
            score_o: 0,
            flags: 0,
            match_length: 0,
            max_cube_log2: 10,
        }
    }

    /// The position seen from the player who is to act.
    pub fn position_on_roll(&self) -> Position {
        if self.turn == 1 {
            self.board
        } else {
            self.board.switch_sides()
        }
    }

    /// Parses an XGID, with or without the `XGID=` prefix.
    pub fn parse(text: &str) -> Result<Xgid, ParseError> {
        let body = text.trim();
        let body = body.strip_prefix("XGID=").unwrap_or(body);
        let err = |what: String| ParseError::new(format!("bad XGID {text:?}: {what}"));
        let fields: Vec<&str> = body.split(':').collect();
        if fields.len() != 10 {
            return Err(err(format!("has {} fields, expected 10", fields.len())));
        }
        let chars = fields[0].as_bytes();
        if chars.len() != 26 {
            return Err(err(format!(
                "board has {} characters, expected 26",
                chars.len()
            )));
        }
        let mut pips = [0i8; 26];
        for (i, &c) in chars.iter().enumerate() {
            let v: i8 = match c {
                b'-' => 0,
                b'A'..=b'P' => (c - b'A' + 1) as i8,
                b'a'..=b'p' => -((c - b'a' + 1) as i8),
                _ => {
                    return Err(err(format!(
                        "board character {} ({:?}) is not -, A-P or a-p",
                        i + 1,
                        c as char
                    )))
                }
            };
            if (i == 0 && v > 0) || (i == 25 && v < 0) {
                return Err(err(format!(
                    "board character {} puts a checker on the wrong player's bar",
                    i + 1
                )));
            }
            pips[i] = v;
        }
        let board = Position::from_pips(pips).map_err(|e| err(e.to_string()))?;
        let int = |i: usize, name: &str| -> Result<i64, ParseError> {
            fields[i]
                .parse::<i64>()
                .map_err(|_| err(format!("{name} {:?} is not a number", fields[i])))
        };
        let cube_log2 = int(1, "cube")?;
        if !(0..=15).contains(&cube_log2) {
            return Err(err(format!("cube exponent {cube_log2} is not 0-15")));
        }
        let cube_position = int(2, "cube position")?;
        if !(-1..=1).contains(&cube_position) {
            return Err(err(format!(
                "cube position {cube_position} is not -1, 0 or 1"
            )));
        }
        let turn = int(3, "turn")?;
        if turn != 1 && turn != -1 {
            return Err(err(format!("turn {turn} is not 1 or -1")));
        }
        let dice = match fields[4] {
            "00" | "0" => XgDice::NotRolled,
            "D" => XgDice::Doubled,
            "B" => XgDice::Beavered,
            "R" => XgDice::Raccooned,
            s => {
                let b = s.as_bytes();
                if b.len() == 2 && (b'1'..=b'6').contains(&b[0]) && (b'1'..=b'6').contains(&b[1]) {
                    XgDice::Rolled(b[0] - b'0', b[1] - b'0')
                } else {
                    return Err(err(format!(
                        "dice {s:?} are not 00, D, B, R or two dice 1-6"
                    )));
                }
            }
        };
        let score_x = int(5, "score")?;
        let score_o = int(6, "score")?;
        let flags = int(7, "Crawford/Jacoby flags")?;
        if !(0..=3).contains(&flags) {
            return Err(err(format!("Crawford/Jacoby flags {flags} are not 0-3")));
        }
        let match_length = int(8, "match length")?;
        let max_cube_log2 = int(9, "maximum cube")?;
        if !(0..=15).contains(&max_cube_log2) {
            return Err(err(format!(
                "maximum cube exponent {max_cube_log2} is not 0-15"
            )));
        }
        if !(0..=32767).contains(&match_length) {
            return Err(err(format!("match length {match_length} is out of range")));
        }
        for s in [score_x, score_o] {
            if s < 0 || (match_length > 0 && s >= match_length) || s > 32767 {
                return Err(err(format!(
                    "score {s} does not fit a {match_length}-point match"
                )));
            }
        }
        Ok(Xgid {
            board,
            cube_log2: cube_log2 as u8,
            cube_position: cube_position as i8,
            turn: turn as i8,
            dice,
            score_x: score_x as u32,
            score_o: score_o as u32,
            flags: flags as u8,
            match_length: match_length as u32,
            max_cube_log2: max_cube_log2 as u8,
        })
    }
}

impl fmt::Display for Xgid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("XGID=")?;
        for &c in self.board.pips() {
            let ch = match c {
                0 => '-',
                n if n > 0 => (b'A' + n as u8 - 1) as char,
                n => (b'a' + n.unsigned_abs() - 1) as char,
            };
            write!(f, "{ch}")?;
        }
        let dice = match self.dice {
            XgDice::NotRolled => "00".to_string(),
            XgDice::Rolled(a, b) => format!("{a}{b}"),
            XgDice::Doubled => "D".into(),
            XgDice::Beavered => "B".into(),
            XgDice::Raccooned => "R".into(),
        };
        write!(
            f,
            ":{}:{}:{}:{}:{}:{}:{}:{}:{}",
            self.cube_log2,
            self.cube_position,
            self.turn,
            dice,
            self.score_x,
            self.score_o,
            self.flags,
            self.match_length,
            self.max_cube_log2
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";

    #[test]
    fn starting_position() {
        let x = Xgid::parse(START).unwrap();
        assert_eq!(x.board, Position::STARTING);
        assert_eq!(x.to_string(), START);
        assert_eq!(Xgid::money(Position::STARTING).to_string(), START);
    }

    #[test]
    fn o_on_roll_is_seen_from_o() {
        // A published example: X on 6-away... the board with O to act.
        let x = Xgid::parse("XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:-1:31:6:4:1:7:10").unwrap();
        assert_eq!(x.turn, -1);
        assert_eq!(x.dice, XgDice::Rolled(3, 1));
        assert_eq!(x.match_length, 7);
        assert_eq!(x.flags, 1);
        assert_eq!(x.position_on_roll(), x.board.switch_sides());
        assert_eq!(Xgid::parse(&x.to_string()).unwrap(), x);
    }

    #[test]
    fn rejects_bad_xgids() {
        for bad in [
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0",
            "XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10",
            "XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10",
            "XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
            "XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10",
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:0:0:10",
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10",
            "XGID=-b----P-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
        ] {
            assert!(Xgid::parse(bad).is_err(), "{bad}");
        }
    }
}
