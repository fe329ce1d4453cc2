//! A roll of two dice.

use crate::error::ParseError;
use std::fmt;

/// Two dice as rolled (order kept for display; it carries no meaning for play).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dice {
    d1: u8,
    d2: u8,
}

impl Dice {
    /// A roll; `None` unless both dice are 1..=6.
    pub const fn new(d1: u8, d2: u8) -> Option<Dice> {
        if d1 >= 1 && d1 <= 6 && d2 >= 1 && d2 <= 6 {
            Some(Dice { d1, d2 })
        } else {
            None
        }
    }

    /// The dice as rolled.
    pub const fn values(self) -> (u8, u8) {
        (self.d1, self.d2)
    }

    /// Larger die first.
    pub const fn high_low(self) -> (u8, u8) {
        if self.d1 >= self.d2 {
            (self.d1, self.d2)
        } else {
            (self.d2, self.d1)
        }
    }

    /// True for doubles.
    pub const fn is_double(self) -> bool {
        self.d1 == self.d2
    }

    /// Dice to play: 4 for doubles, else 2.
    pub const fn count(self) -> usize {
        if self.is_double() {
            4
        } else {
            2
        }
    }

    /// The 21 distinct rolls with their weight out of 36 (1 for doubles, 2 otherwise),
    /// doubles first then the rest in ascending order: the order every expectation
    /// over rolls in the engine uses, so sums are bit-for-bit reproducible.
    pub const ALL_21: [(Dice, u8); 21] = {
        let mut out = [(Dice { d1: 1, d2: 1 }, 1u8); 21];
        let mut k = 0;
        let mut a = 1;
        while a <= 6 {
            out[k] = (Dice { d1: a, d2: a }, 1);
            k += 1;
            a += 1;
        }
        let mut a = 1;
        while a <= 6 {
            let mut b = a + 1;
            while b <= 6 {
                out[k] = (Dice { d1: b, d2: a }, 2);
                k += 1;
                b += 1;
            }
            a += 1;
        }
        out
    };

    /// Parses `31`, `3-1`, `3,1` or `3 1`.
    pub fn parse(text: &str) -> Result<Dice, ParseError> {
        let digits: Vec<char> = text
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | ',' | ' ' | 'x'))
            .collect();
        let bad = || {
            ParseError::new(format!(
                "bad dice {text:?}: expected two dice 1-6 such as 31 or 3-1"
            ))
        };
        if digits.len() != 2 {
            return Err(bad());
        }
        let d1 = digits[0].to_digit(10).ok_or_else(bad)? as u8;
        let d2 = digits[1].to_digit(10).ok_or_else(bad)? as u8;
        Dice::new(d1, d2).ok_or_else(|| {
            ParseError::new(format!("impossible dice {text:?}: each die must be 1 to 6"))
        })
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.d1, self.d2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_forms() {
        assert_eq!(Dice::parse("31").unwrap().values(), (3, 1));
        assert_eq!(Dice::parse("6-6").unwrap().values(), (6, 6));
        assert_eq!(Dice::parse(" 2,5 ").unwrap().high_low(), (5, 2));
        for bad in ["", "3", "07", "71", "ab", "123", "3-"] {
            assert!(Dice::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn all_21_weights_sum_to_36() {
        let total: u32 = Dice::ALL_21.iter().map(|&(_, w)| u32::from(w)).sum();
        assert_eq!(total, 36);
    }
}
