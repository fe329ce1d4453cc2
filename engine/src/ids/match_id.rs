//! GNU Backgammon's 12-character match ID.
//!
//! A 66-bit key, each field least significant bit first, then base64 of the 9 bytes:
//!
//! | bits | field |
//! |---|---|
//! | 0-3 | log2 of the cube value |
//! | 4-5 | cube owner: 0 player 0, 1 player 1, 3 centred |
//! | 6 | dice owner: the player on roll (or who rolled) |
//! | 7 | Crawford game |
//! | 8-10 | game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped cube |
//! | 11 | turn: the player who must act now (differs from bit 6 after a double) |
//! | 12 | a double is being offered |
//! | 13-14 | resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon |
//! | 15-17, 18-20 | the dice, 0 when not rolled |
//! | 21-35 | match length, 0 for money play |
//! | 36-50, 51-65 | scores of player 0 and player 1 |
//!
//! The 6 bits after bit 65 are ignored when reading, as GNU Backgammon, eXtreme Gammon
//! and BGBlitz do, and written as zero.

use super::base64;
use crate::error::ParseError;
use std::fmt;

/// Who holds the cube.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubeOwner {
    /// In the middle: either player may double.
    Centered,
    /// Owned by player 0 or 1.
    Player(u8),
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameState {
    NoGame,
    Playing,
    Over,
    Resigned,
    Dropped,
}

/// A resignation on offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resignation {
    None,
    Single,
    Gammon,
    Backgammon,
}

/// Everything a match ID holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchState {
    /// Cube value: a power of two, 1..=32768.
    pub cube: u32,
    pub cube_owner: CubeOwner,
    /// The player on roll (0 or 1).
    pub dice_owner: u8,
    pub crawford: bool,
    pub game_state: GameState,
    /// The player who must act now (0 or 1).
    pub turn: u8,
    pub doubled: bool,
    pub resignation: Resignation,
    /// The dice, when rolled.
    pub dice: Option<(u8, u8)>,
    /// Match length; 0 for money play.
    pub match_length: u32,
    /// Points of player 0 and player 1.
    pub score: [u32; 2],
}

impl Default for MatchState {
    /// A money game in progress, cube centred, player 0 to roll.
    fn default() -> Self {
        MatchState {
            cube: 1,
            cube_owner: CubeOwner::Centered,
            dice_owner: 0,
            crawford: false,
            game_state: GameState::Playing,
            turn: 0,
            doubled: false,
            resignation: Resignation::None,
            dice: None,
            match_length: 0,
            score: [0, 0],
        }
    }
}

/// Largest match length or score the 15-bit fields hold.
pub const MAX_FIELD: u32 = (1 << 15) - 1;

impl MatchState {
    /// Checks the fields that the key cannot check by itself.
    pub fn validate(&self) -> Result<(), ParseError> {
        if !self.cube.is_power_of_two() || self.cube > 1 << 15 {
            return Err(ParseError::new(format!(
                "cube value {} is not a power of two up to 32768",
                self.cube
            )));
        }
        if let CubeOwner::Player(p) = self.cube_owner {
            if p > 1 {
                return Err(ParseError::new(format!(
                    "cube owner {p} is not player 0 or 1"
                )));
            }
        }
        if self.dice_owner > 1 || self.turn > 1 {
            return Err(ParseError::new("player on roll and turn must be 0 or 1"));
        }
        if let Some((a, b)) = self.dice {
            if !(1..=6).contains(&a) || !(1..=6).contains(&b) {
                return Err(ParseError::new(format!("impossible dice {a}{b}")));
            }
        }
        if self.match_length > MAX_FIELD || self.score.iter().any(|&s| s > MAX_FIELD) {
            return Err(ParseError::new(
                "match length and scores must be below 32768",
            ));
        }
        if self.match_length > 0 {
            for (p, &s) in self.score.iter().enumerate() {
                if s >= self.match_length {
                    return Err(ParseError::new(format!(
                        "player {p} has {s} points in a {}-point match: the match would be over",
                        self.match_length
                    )));
                }
            }
        } else if self.crawford {
            return Err(ParseError::new("Crawford game flag set in a money game"));
        }
        Ok(())
    }

    /// The 9-byte key.
    pub fn key(&self) -> [u8; 9] {
        let mut w = BitWriter::default();
        w.put(self.cube.trailing_zeros(), 4);
        w.put(
            match self.cube_owner {
                CubeOwner::Player(p) => u32::from(p),
                CubeOwner::Centered => 3,
            },
            2,
        );
        w.put(self.dice_owner.into(), 1);
        w.put(self.crawford.into(), 1);
        w.put(
            match self.game_state {
                GameState::NoGame => 0,
                GameState::Playing => 1,
                GameState::Over => 2,
                GameState::Resigned => 3,
                GameState::Dropped => 4,
            },
            3,
        );
        w.put(self.turn.into(), 1);
        w.put(self.doubled.into(), 1);
        w.put(
            match self.resignation {
                Resignation::None => 0,
                Resignation::Single => 1,
                Resignation::Gammon => 2,
                Resignation::Backgammon => 3,
            },
            2,
        );
        let (a, b) = self.dice.unwrap_or((0, 0));
        w.put(a.into(), 3);
        w.put(b.into(), 3);
        w.put(self.match_length, 15);
        w.put(self.score[0], 15);
        w.put(self.score[1], 15);
        w.bytes
    }

    /// The 12-character match ID.
    pub fn encode(&self) -> String {
        base64::encode(&self.key())
    }

    /// Decodes a 9-byte key, checking every field.
    pub fn from_key(key: &[u8; 9]) -> Result<MatchState, ParseError> {
        let mut r = BitReader { bytes: key, bit: 0 };
        let cube_log = r.get(4);
        let owner = match r.get(2) {
            0 => CubeOwner::Player(0),
            1 => CubeOwner::Player(1),
            3 => CubeOwner::Centered,
            v => {
                return Err(ParseError::new(format!(
                    "cube owner field is {v}: not 0, 1 or 3"
                )))
            }
        };
        let dice_owner = r.get(1) as u8;
        let crawford = r.get(1) == 1;
        let game_state = match r.get(3) {
            0 => GameState::NoGame,
            1 => GameState::Playing,
            2 => GameState::Over,
            3 => GameState::Resigned,
            4 => GameState::Dropped,
            v => return Err(ParseError::new(format!("game state field is {v}: not 0-4"))),
        };
        let turn = r.get(1) as u8;
        let doubled = r.get(1) == 1;
        let resignation = match r.get(2) {
            0 => Resignation::None,
            1 => Resignation::Single,
            2 => Resignation::Gammon,
            _ => Resignation::Backgammon,
        };
        let d1 = r.get(3) as u8;
        let d2 = r.get(3) as u8;
        let dice = match (d1, d2) {
            (0, 0) => None,
            (a, b) if (1..=6).contains(&a) && (1..=6).contains(&b) => Some((a, b)),
            (a, b) => return Err(ParseError::new(format!("impossible dice {a} and {b}"))),
        };
        let match_length = r.get(15);
        let score = [r.get(15), r.get(15)];
        let state = MatchState {
            cube: 1 << cube_log,
            cube_owner: owner,
            dice_owner,
            crawford,
            game_state,
            turn,
            doubled,
            resignation,
            dice,
            match_length,
            score,
        };
        state.validate()?;
        Ok(state)
    }

    /// Parses a 12-character match ID.
    pub fn decode(id: &str) -> Result<MatchState, ParseError> {
        let key = base64::decode::<9>(id)
            .map_err(|e| ParseError::new(format!("bad match ID {id:?}: {e}")))?;
        MatchState::from_key(&key)
            .map_err(|e| ParseError::new(format!("bad match ID {id:?}: {}", e.message())))
    }

    /// Points each player still needs (player 0, player 1); `None` in money play.
    pub fn away(&self) -> Option<[u32; 2]> {
        (self.match_length > 0).then(|| {
            [
                self.match_length - self.score[0],
                self.match_length - self.score[1],
            ]
        })
    }
}

impl fmt::Display for MatchState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

#[derive(Default)]
struct BitWriter {
    bytes: [u8; 9],
    bit: usize,
}

impl BitWriter {
    fn put(&mut self, value: u32, width: usize) {
        for k in 0..width {
            if value >> k & 1 == 1 {
                self.bytes[self.bit / 8] |= 1 << (self.bit % 8);
            }
            self.bit += 1;
        }
    }
}

struct BitReader<'a> {
    bytes: &'a [u8; 9],
    bit: usize,
}

impl BitReader<'_> {
    fn get(&mut self, width: usize) -> u32 {
        let mut v = 0;
        for k in 0..width {
            if self.bytes[self.bit / 8] >> (self.bit % 8) & 1 == 1 {
                v |= 1 << k;
            }
            self.bit += 1;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_game_id_from_gnubg() {
        // GNU Backgammon's ID for a money game in progress, player 1 on roll.
        let m = MatchState::decode("cAkAAAAAAAAA").unwrap();
        assert_eq!(m.cube, 1);
        assert_eq!(m.cube_owner, CubeOwner::Centered);
        assert_eq!(m.dice_owner, 1);
        assert_eq!(m.turn, 1);
        assert_eq!(m.game_state, GameState::Playing);
        assert_eq!(m.match_length, 0);
        assert_eq!(m.encode(), "cAkAAAAAAAAA");
    }

    #[test]
    fn every_field_round_trips() {
        let m = MatchState {
            cube: 8,
            cube_owner: CubeOwner::Player(1),
            dice_owner: 1,
            crawford: true,
            game_state: GameState::Playing,
            turn: 0,
            doubled: true,
            resignation: Resignation::Gammon,
            dice: Some((5, 2)),
            match_length: 9,
            score: [2, 8],
        };
        assert_eq!(MatchState::decode(&m.encode()).unwrap(), m);
    }

    #[test]
    fn ignores_the_six_spare_bits() {
        let id = MatchState::default().encode();
        let mut spare = id.into_bytes();
        // The last character holds key bits 64-65 in its two low bits (value 1, 2)
        // and spare bits 66-69 above them: 0b111100 sets only spare bits.
        spare[11] = b'8';
        let parsed = MatchState::decode(std::str::from_utf8(&spare).unwrap()).unwrap();
        assert_eq!(parsed, MatchState::default());
    }

    #[test]
    fn rejects_bad_ids() {
        assert!(MatchState::decode("cAkAAAAAAAA").is_err());
        assert!(MatchState::decode("cAkAAAAAAA*A").is_err());
        // Score 9 in a 9-point match.
        let m = MatchState {
            match_length: 9,
            score: [9, 0],
            ..MatchState::default()
        };
        assert!(MatchState::decode(&m.encode()).is_err());
    }
}
