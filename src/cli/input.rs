//! Reading positions as users paste them: a GNU Backgammon position ID, optionally
//! followed by `:MATCHID` (the "GNUBG ID" form), or an XGID.

use bgfarm_engine::ids::match_id::MatchState;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::ids::xgid::{XgDice, Xgid};
use bgfarm_engine::{Dice, ParseError, Position};

/// A position as the user gave it.
#[derive(Clone)]
pub struct PositionInput {
    /// The position seen by the player on roll.
    pub position: Position,
    /// Dice included in the input (XGID or match ID), if any.
    pub dice: Option<Dice>,
    /// The match state, if a match ID or XGID came with the position.
    pub match_state: Option<MatchState>,
}

/// Parses `4HPwATDgc/ABMA`, `4HPwATDgc/ABMA:cAkAAAAAAAAA` or `XGID=...`.
pub fn parse_position(text: &str) -> Result<PositionInput, ParseError> {
    let t = text.trim();
    if t.starts_with("XGID=") || t.matches(':').count() == 9 {
        let x = Xgid::parse(t)?;
        let dice = match x.dice {
            XgDice::Rolled(a, b) => Dice::new(a, b),
            _ => None,
        };
        return Ok(PositionInput {
            position: x.position_on_roll(),
            dice,
            match_state: None,
        });
    }
    let (pos_part, match_part) = match t.split_once(':') {
        Some((p, m)) => (p, Some(m)),
        None => (t, None),
    };
    let position = position_id::decode(pos_part)?;
    let match_state = match_part.map(MatchState::decode).transpose()?;
    let dice = match_state
        .and_then(|m| m.dice)
        .and_then(|(a, b)| Dice::new(a, b));
    Ok(PositionInput {
        position,
        dice,
        match_state,
    })
}

/// The dice to play: `text` when given, else those in the position input (XGID or
/// match ID).
pub fn dice_for(input: &PositionInput, text: Option<&str>) -> Result<Dice, ParseError> {
    match (text, input.dice) {
        (Some(d), _) => Dice::parse(d),
        (None, Some(d)) => Ok(d),
        (None, None) => Err(ParseError::new(
            "no dice given: add them after the position, e.g. 31",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_three_forms() {
        assert_eq!(
            parse_position("4HPwATDgc/ABMA").unwrap().position,
            Position::STARTING
        );
        let both = parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA").unwrap();
        assert!(both.match_state.is_some());
        let x = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10").unwrap();
        assert_eq!(x.position, Position::STARTING);
        assert_eq!(x.dice.map(|d| d.values()), Some((5, 2)));
        assert!(parse_position("4HPwATDgc/ABM").is_err());
        assert!(parse_position("4HPwATDgc/ABMA:cAk").is_err());
    }
}
