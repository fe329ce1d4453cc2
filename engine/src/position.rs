//! The board, always seen from the player on roll.
//!
//! Like GNU Backgammon's internal board and wildbg's `Position`, the engine never asks
//! "whose turn is it": a position is stored from the viewpoint of the player who moves
//! next, and [`Position::switch_sides`] turns it around after every move. Move
//! generation, evaluation and IDs then need only one orientation.
//!
//! Layout (`[i8; 26]`, 26 bytes so a position is `Copy` and hashes in a few words):
//! - index `p` in 1..=24: point `p` in the mover's numbering (1 = deepest home point,
//!   24 = where the mover's back checkers start); `> 0` mover's checkers, `< 0` the
//!   opponent's (the opponent calls this point `25 - p`);
//! - index 25: the mover's bar (`>= 0`);
//! - index 0: the opponent's bar, stored negative (`<= 0`), so that
//!   `switched[i] = -self[25 - i]` holds for every index, bars included.
//!
//! Borne-off checkers are not stored: `15 - sum` of each side.

use std::fmt;

/// Checkers per side.
pub const CHECKERS: u8 = 15;
/// Index of the mover's bar.
pub const BAR: usize = 25;
/// Index of the opponent's bar (stored as a negative count).
pub const OPP_BAR: usize = 0;

/// Why a board cannot be a backgammon position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A side has more than 15 checkers on the board and bar.
    TooManyCheckers { side: Side, count: u32 },
    /// Both sides have checkers on the same point (mover's numbering).
    SharedPoint { point: usize },
    /// A count that does not fit (negative, or over 15 on one point).
    BadCount { index: usize, value: i32 },
}

/// Which side of a position a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The player on roll.
    Mover,
    /// The player not on roll.
    Opponent,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Mover => "player on roll",
            Side::Opponent => "player not on roll",
        })
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::TooManyCheckers { side, count } => {
                write!(f, "the {side} has {count} checkers (at most 15)")
            }
            PositionError::SharedPoint { point } => write!(
                f,
                "both players have checkers on point {point} (player on roll's numbering)"
            ),
            PositionError::BadCount { index, value } => {
                write!(f, "impossible checker count {value} at index {index}")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// A backgammon position seen from the player on roll. See the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pips: [i8; 26],
}

impl Position {
    /// The opening position.
    pub const STARTING: Position = {
        let mut pips = [0i8; 26];
        pips[24] = 2;
        pips[13] = 5;
        pips[8] = 3;
        pips[6] = 5;
        pips[1] = -2;
        pips[12] = -5;
        pips[17] = -3;
        pips[19] = -5;
        Position { pips }
    };

    /// Builds a position from the two per-player arrays used by GNU Backgammon and the
    /// oracle files: index 0..=23 = the owner's points 1..=24, index 24 = the owner's bar.
    pub fn from_arrays(mover: &[u8; 25], opponent: &[u8; 25]) -> Result<Position, PositionError> {
        let mut pips = [0i8; 26];
        for (side, arr) in [(Side::Mover, mover), (Side::Opponent, opponent)] {
            let total: u32 = arr.iter().map(|&c| u32::from(c)).sum();
            if total > u32::from(CHECKERS) {
                return Err(PositionError::TooManyCheckers { side, count: total });
            }
        }
        for i in 0..24 {
            let m = mover[i];
            let o = opponent[23 - i];
            if m > 0 && o > 0 {
                return Err(PositionError::SharedPoint { point: i + 1 });
            }
            // Counts are at most 15 here (checked above), so they fit in i8.
            pips[i + 1] = m as i8 - o as i8;
        }
        pips[BAR] = mover[24] as i8;
        pips[OPP_BAR] = -(opponent[24] as i8);
        Ok(Position { pips })
    }

    /// Builds a position from the raw signed layout (see the module docs), checking
    /// every invariant.
    pub fn from_pips(pips: [i8; 26]) -> Result<Position, PositionError> {
        if pips[BAR] < 0 {
            return Err(PositionError::BadCount {
                index: BAR,
                value: pips[BAR].into(),
            });
        }
        if pips[OPP_BAR] > 0 {
            return Err(PositionError::BadCount {
                index: OPP_BAR,
                value: pips[OPP_BAR].into(),
            });
        }
        let mut mover = 0u32;
        let mut opp = 0u32;
        for &c in &pips {
            if c > 0 {
                mover += c as u32;
            } else {
                opp += c.unsigned_abs() as u32;
            }
        }
        if mover > u32::from(CHECKERS) {
            return Err(PositionError::TooManyCheckers {
                side: Side::Mover,
                count: mover,
            });
        }
        if opp > u32::from(CHECKERS) {
            return Err(PositionError::TooManyCheckers {
                side: Side::Opponent,
                count: opp,
            });
        }
        Ok(Position { pips })
    }

    /// The two per-player arrays (mover, opponent), each in its owner's numbering:
    /// index 0..=23 = points 1..=24, index 24 = bar.
    pub fn to_arrays(&self) -> ([u8; 25], [u8; 25]) {
        let mut mover = [0u8; 25];
        let mut opp = [0u8; 25];
        for p in 1..=24 {
            let c = self.pips[p];
            if c > 0 {
                mover[p - 1] = c as u8;
            } else if c < 0 {
                opp[24 - p] = c.unsigned_abs();
            }
        }
        mover[24] = self.pips[BAR] as u8;
        opp[24] = self.pips[OPP_BAR].unsigned_abs();
        (mover, opp)
    }

    /// The raw signed layout.
    #[inline]
    pub fn pips(&self) -> &[i8; 26] {
        &self.pips
    }

    /// Signed count at `index` (see the module docs).
    #[inline]
    pub fn at(&self, index: usize) -> i8 {
        self.pips[index]
    }

    /// The same position seen by the other player.
    #[inline]
    #[must_use]
    pub fn switch_sides(&self) -> Position {
        let mut pips = [0i8; 26];
        for (i, p) in pips.iter_mut().enumerate() {
            *p = -self.pips[25 - i];
        }
        Position { pips }
    }

    /// Mover's checkers on the board or bar.
    pub fn mover_checkers(&self) -> u8 {
        self.pips.iter().filter(|&&c| c > 0).map(|&c| c as u8).sum()
    }

    /// Opponent's checkers on the board or bar.
    pub fn opponent_checkers(&self) -> u8 {
        self.pips
            .iter()
            .filter(|&&c| c < 0)
            .map(|&c| c.unsigned_abs())
            .sum()
    }

    /// Checkers the mover has borne off.
    pub fn mover_off(&self) -> u8 {
        CHECKERS - self.mover_checkers()
    }

    /// Checkers the opponent has borne off.
    pub fn opponent_off(&self) -> u8 {
        CHECKERS - self.opponent_checkers()
    }

    /// Pip counts (mover, opponent); a checker on the bar counts 25.
    pub fn pip_counts(&self) -> (u32, u32) {
        let mut m = 0u32;
        let mut o = 0u32;
        for (i, &c) in self.pips.iter().enumerate() {
            if c > 0 {
                m += c as u32 * i as u32;
            } else if c < 0 {
                o += c.unsigned_abs() as u32 * (25 - i as u32);
            }
        }
        (m, o)
    }

    /// The mover's highest occupied index (25 = bar), or 0 when all are off.
    #[inline]
    pub fn mover_highest(&self) -> usize {
        let (mover, _) = self.occupancy();
        (31 - (mover | 1).leading_zeros()) as usize
    }

    /// The opponent's highest occupied point in its own numbering (25 = bar), or 0.
    #[inline]
    pub fn opponent_highest(&self) -> usize {
        let (_, opponent) = self.occupancy();
        if opponent == 0 {
            0
        } else {
            25 - opponent.trailing_zeros() as usize
        }
    }

    /// Bit masks of the board indices (bit `i` = index `i`: 0 the opponent's bar,
    /// 1..=24 the points, 25 the mover's bar) holding the mover's checkers and the
    /// opponent's.
    ///
    /// On x86-64 two 16-byte SSE2 compares per side (bytes 0..16 and 10..26) instead
    /// of a scan of up to 26 bytes: the move generator asks at every step of its
    /// walk, and the scans were a tenth of the rollouts' luck estimate.
    #[inline]
    pub fn occupancy(&self) -> (u32, u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
            };
            // SAFETY: SSE2 is part of the x86-64 baseline; the two unaligned 16-byte
            // loads read bytes 0..16 and 10..26 of the 26-byte array.
            unsafe {
                let lo = _mm_loadu_si128(self.pips.as_ptr().cast::<__m128i>());
                let hi = _mm_loadu_si128(self.pips.as_ptr().add(10).cast::<__m128i>());
                let zero = _mm_setzero_si128();
                let join = |l: __m128i, h: __m128i| {
                    let (l, h) = (_mm_movemask_epi8(l) as u32, _mm_movemask_epi8(h) as u32);
                    l | h << 10
                };
                (
                    join(_mm_cmpgt_epi8(lo, zero), _mm_cmpgt_epi8(hi, zero)),
                    join(_mm_cmpgt_epi8(zero, lo), _mm_cmpgt_epi8(zero, hi)),
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.occupancy_by_loop()
    }

    /// Bit mask of the board indices (as in [`Position::occupancy`]) where `self`
    /// and `other` differ: the net's incremental encoding visits only those (a
    /// legal move changes at most 8 points and the two bars).
    #[inline]
    pub fn differences(&self, other: &Position) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8};
            // SAFETY: as in `occupancy`: bytes 0..16 and 10..26 of both arrays.
            unsafe {
                let load =
                    |p: &[i8; 26], at: usize| _mm_loadu_si128(p.as_ptr().add(at).cast::<__m128i>());
                let lo =
                    _mm_movemask_epi8(_mm_cmpeq_epi8(load(&self.pips, 0), load(&other.pips, 0)))
                        as u32;
                let hi =
                    _mm_movemask_epi8(_mm_cmpeq_epi8(load(&self.pips, 10), load(&other.pips, 10)))
                        as u32;
                !(lo | hi << 10) & 0x03FF_FFFF
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.differences_by_loop(other)
    }

    /// [`Position::differences`] byte by byte.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn differences_by_loop(&self, other: &Position) -> u32 {
        let mut mask = 0u32;
        for (i, (a, b)) in self.pips.iter().zip(&other.pips).enumerate() {
            mask |= u32::from(a != b) << i;
        }
        mask
    }

    /// [`Position::occupancy`] byte by byte: for other targets, and to test it.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn occupancy_by_loop(&self) -> (u32, u32) {
        let (mut mover, mut opponent) = (0u32, 0u32);
        for (i, &c) in self.pips.iter().enumerate() {
            mover |= u32::from(c > 0) << i;
            opponent |= u32::from(c < 0) << i;
        }
        (mover, opponent)
    }

    /// True while some checker still has to pass an opposing one (GNU Backgammon's
    /// definition: the two rearmost checkers, each in its owner's numbering with bar
    /// = 25, add up to more than 25).
    pub fn has_contact(&self) -> bool {
        // Mover's rearmost index above the opponent's (its own 25 - i).
        let (mover, opponent) = self.occupancy();
        mover != 0 && opponent != 0 && 31 - mover.leading_zeros() > opponent.trailing_zeros()
    }

    /// True when one side has borne off all its checkers.
    pub fn game_over(&self) -> bool {
        self.mover_checkers() == 0 || self.opponent_checkers() == 0
    }

    /// Mutable access for move application inside the engine.
    #[inline]
    pub(crate) fn pips_mut(&mut self) -> &mut [i8; 26] {
        &mut self.pips
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::STARTING
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn occupancy_highest_and_contact_match_scans() {
        for pos in crate::testutil::random_positions(20_000, 31) {
            for p in [pos, pos.switch_sides()] {
                assert_eq!(p.occupancy(), p.occupancy_by_loop());
                assert_eq!(p.differences(&pos), p.differences_by_loop(&pos));
                assert_eq!(p.differences(&p), 0);
                let pips = p.pips();
                let m = (1..=25).rev().find(|&i| pips[i] > 0).unwrap_or(0);
                let o = (0..=24).find(|&i| pips[i] < 0).map_or(0, |i| 25 - i);
                assert_eq!((p.mover_highest(), p.opponent_highest()), (m, o));
                assert_eq!(p.has_contact(), m > 0 && o > 0 && m + o > 25, "{p:?}");
            }
        }
    }

    use super::*;

    #[test]
    fn starting_position_is_symmetric() {
        assert_eq!(Position::STARTING.switch_sides(), Position::STARTING);
        assert_eq!(Position::STARTING.pip_counts(), (167, 167));
        assert_eq!(Position::STARTING.mover_checkers(), 15);
        assert_eq!(Position::STARTING.opponent_checkers(), 15);
        assert!(Position::STARTING.has_contact());
    }

    #[test]
    fn arrays_round_trip() {
        let (m, o) = Position::STARTING.to_arrays();
        assert_eq!(Position::from_arrays(&m, &o).unwrap(), Position::STARTING);
    }

    #[test]
    fn rejects_shared_points_and_overfull_sides() {
        let mut m = [0u8; 25];
        let mut o = [0u8; 25];
        m[5] = 2;
        o[18] = 1; // the opponent's 19 is the mover's 6
        assert_eq!(
            Position::from_arrays(&m, &o),
            Err(PositionError::SharedPoint { point: 6 })
        );
        o[18] = 0;
        m[7] = 14;
        assert!(matches!(
            Position::from_arrays(&m, &o),
            Err(PositionError::TooManyCheckers {
                side: Side::Mover,
                count: 16
            })
        ));
    }
}
