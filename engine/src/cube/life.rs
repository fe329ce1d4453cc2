//! The default cube life index `x` by position class (GNU Backgammon's defaults).
//!
//! How live the cube is depends on how the game can still swing: contact positions
//! keep market losers and recube vig, long races less so, short bear-offs little.
//! - contact (and crashed) positions: 0.68;
//! - races: `0.55 + 0.00125 * pips of the player on roll`, clamped to [0.60, 0.70]
//!   (0.60 at 40 pips or less, 0.70 at 120 pips or more);
//! - one-sided bear-offs (both sides' checkers all in their home boards): 0.60.

use crate::position::Position;

/// Cube life index for contact positions.
pub const CONTACT_X: f64 = 0.68;
/// Cube life index once both sides are bearing off.
pub const BEAROFF_X: f64 = 0.60;

/// Which default applies to a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LifeClass {
    Contact,
    Race,
    Bearoff,
}

impl LifeClass {
    /// The class of `pos`.
    pub fn of(pos: &Position) -> LifeClass {
        if pos.has_contact() {
            LifeClass::Contact
        } else if pos.mover_highest() <= 6 && pos.opponent_highest() <= 6 {
            LifeClass::Bearoff
        } else {
            LifeClass::Race
        }
    }

    /// Lower-case name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            LifeClass::Contact => "contact",
            LifeClass::Race => "race",
            LifeClass::Bearoff => "bear-off",
        }
    }
}

/// The default cube life index for the player on roll in `pos`.
pub fn default_x(pos: &Position) -> f64 {
    match LifeClass::of(pos) {
        LifeClass::Contact => CONTACT_X,
        LifeClass::Bearoff => BEAROFF_X,
        LifeClass::Race => {
            let pips = f64::from(pos.pip_counts().0);
            (0.55 + 0.00125 * pips).clamp(0.60, 0.70)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn race(mover_back: usize) -> Position {
        // Mover: 15 checkers spread from `mover_back` down; opponent likewise in
        // its own home board. No contact.
        let mut m = [0u8; 25];
        let mut o = [0u8; 25];
        m[mover_back - 1] = 10;
        m[0] = 5;
        o[2] = 15;
        Position::from_arrays(&m, &o).unwrap()
    }

    #[test]
    fn classes_and_values() {
        assert_eq!(LifeClass::of(&Position::STARTING), LifeClass::Contact);
        assert_eq!(default_x(&Position::STARTING), 0.68);
        let short = race(5);
        assert_eq!(LifeClass::of(&short), LifeClass::Bearoff);
        assert_eq!(default_x(&short), 0.60);
        // 10 checkers on 12 + 5 on 1 = 125 pips: 0.55 + 0.156 -> clamped to 0.70.
        let long = race(12);
        assert_eq!(LifeClass::of(&long), LifeClass::Race);
        assert_eq!(default_x(&long), 0.70);
        // 10 on 8 + 5 on 1 = 85 pips: 0.55 + 0.10625.
        let mid = race(8);
        assert!((default_x(&mid) - 0.65625).abs() < 1e-12);
    }
}
