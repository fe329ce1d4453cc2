//! GNU Backgammon's 14-character position ID.
//!
//! The key is a bit string: for the side *not* on roll and then for the side on roll,
//! for each of its points 1..=24 and its bar, as many one-bits as checkers followed by
//! a zero-bit; padded to 80 bits (30 checkers + 50 separators), packed least
//! significant bit first into 10 bytes, then base64 without padding. (GNU
//! Backgammon's manual says the side on roll comes first; the program, and the oracle
//! files, put it second. We follow the program.)

use super::base64;
use crate::error::ParseError;
use crate::position::Position;
use std::fmt;

/// The 10-byte key of a position.
pub fn key(pos: &Position) -> [u8; 10] {
    let (mover, opp) = pos.to_arrays();
    let mut key = [0u8; 10];
    let mut bit = 0usize;
    for arr in [&opp, &mover] {
        for &count in arr.iter() {
            for _ in 0..count {
                key[bit / 8] |= 1 << (bit % 8);
                bit += 1;
            }
            bit += 1;
        }
    }
    key
}

/// The position ID of `pos` (the player on roll is the mover).
pub fn encode(pos: &Position) -> String {
    base64::encode(&key(pos))
}

/// Decodes a position key, checking that it describes a legal position.
pub fn from_key(key: &[u8; 10]) -> Result<Position, ParseError> {
    let mut arrays = [[0u8; 25]; 2];
    let mut slot = 0usize; // 0..50: which (side, index) the next one-bits belong to
    for bit in 0..80 {
        let one = key[bit / 8] >> (bit % 8) & 1 == 1;
        if slot >= 50 {
            if one {
                return Err(ParseError::new(
                    "position ID describes more than 30 checkers (bits left after both sides)",
                ));
            }
            continue;
        }
        if one {
            let cell = &mut arrays[slot / 25][slot % 25];
            *cell += 1;
            if *cell > 15 {
                return Err(ParseError::new(
                    "position ID puts more than 15 checkers on one point",
                ));
            }
        } else {
            slot += 1;
        }
    }
    if slot < 50 {
        return Err(ParseError::new(
            "position ID describes more than 30 checkers (too few point separators)",
        ));
    }
    let [opp, mover] = arrays;
    Position::from_arrays(&mover, &opp)
        .map_err(|e| ParseError::new(format!("position ID is not a legal position: {e}")))
}

/// Parses a 14-character position ID.
pub fn decode(id: &str) -> Result<Position, ParseError> {
    let key = base64::decode::<10>(id)
        .map_err(|e| ParseError::new(format!("bad position ID {id:?}: {e}")))?;
    from_key(&key).map_err(|e| ParseError::new(format!("bad position ID {id:?}: {}", e.message())))
}

/// A position debugs as its GNU Backgammon position ID, `Position(4HPwATDgc/ABMA)`:
/// short, and pasteable into GNU Backgammon or `bgfarm` to see the board. It lives
/// here, with the encoding, so that `position` needs nothing from `ids`.
impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", encode(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_position() {
        assert_eq!(encode(&Position::STARTING), "4HPwATDgc/ABMA");
        assert_eq!(decode("4HPwATDgc/ABMA").unwrap(), Position::STARTING);
    }

    #[test]
    fn worked_example_after_31() {
        // 8/5 6/5 played from the opening: the side that moved is now the opponent.
        let pos = decode("sGfwATDgc/ABMA").unwrap();
        let (mover, opp) = pos.to_arrays();
        let start = Position::STARTING.to_arrays().0;
        assert_eq!(mover, start);
        let mut expect = [0u8; 25];
        expect[4] = 2;
        expect[5] = 4;
        expect[7] = 2;
        expect[12] = 5;
        expect[23] = 2;
        assert_eq!(opp, expect);
    }

    #[test]
    fn rejects_malformed_ids() {
        for bad in [
            "",
            "4HPwATDgc/ABM",
            "4HPwATDgc/ABMAA",
            "4HPwATDgc/AB-A",
            "//////////////",
        ] {
            assert!(decode(bad).is_err(), "{bad} accepted");
        }
    }
}
