//! The doubling cube: cubeless odds turned into cubeful equities, and cube decisions.
//!
//! Models (formulas and references in `shared/specs/cube-and-match.md`):
//! - [`janowski`]: Janowski's money model, any cube life index `x`, Jacoby option;
//! - [`matchplay`]: Janowski extended to match play with a match equity table (live
//!   cash points over cube levels, Crawford and post-Crawford rules, dead cubes);
//! - [`jump`]: Higgins's jump model (first-order closed forms);
//! - [`jump_match`]: the jump model in match play (`W`, `L` from the match table);
//! - [`decision`]: no double / double-take / double-pass / too good at 0-ply, for
//!   every model, including money Janowski used in a match (the match-unaware
//!   baseline of Higgins's comparison);
//! - [`lookahead`]: the same decisions at n-ply (cubeful lookahead over the rolls,
//!   Janowski at the leaves);
//! - [`life`]: the default cube life index by position class;
//! - [`volatility`]: estimating the jump model's volatility from self-play, and of
//!   one position (`sigma=auto`).
//!
//! Everything is seen from the player on roll, whose cubeless odds are a
//! [`GameOdds`](crate::eval::odds::GameOdds). Money equities are per unit of the current cube; match values are
//! match-winning chances (MWC).

pub mod decision;
pub mod janowski;
pub mod jump;
pub mod jump_match;
pub mod life;
pub mod lookahead;
pub mod matchplay;
pub mod volatility;

pub use decision::{CubeAnalysis, CubeDecision, CubeModel, CubeSpot};

/// Who holds the cube, seen from the player on roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// In the middle: either player may double.
    Centred,
    /// The player on roll owns it (may redouble).
    Mover,
    /// The opponent owns it (the player on roll may not double).
    Opponent,
}

impl Owner {
    /// The same ownership seen by the opponent.
    #[must_use]
    pub fn flip(self) -> Owner {
        match self {
            Owner::Centred => Owner::Centred,
            Owner::Mover => Owner::Opponent,
            Owner::Opponent => Owner::Mover,
        }
    }
}

/// The cube: its value and who holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cube {
    /// 1, 2, 4, ...
    pub value: u32,
    pub owner: Owner,
}

impl Cube {
    /// The cube at the start of a game: 1, centred.
    pub const INITIAL: Cube = Cube {
        value: 1,
        owner: Owner::Centred,
    };

    /// The cube after the player on roll doubles and the opponent takes.
    #[must_use]
    pub fn doubled(self) -> Cube {
        Cube {
            value: self.value * 2,
            owner: Owner::Opponent,
        }
    }

    /// The same cube seen by the opponent.
    #[must_use]
    pub fn flip(self) -> Cube {
        Cube {
            value: self.value,
            owner: self.owner.flip(),
        }
    }
}

/// The piecewise-linear function through `points` (sorted by abscissa, from 0 to
/// 1), at `p` clamped to `[0, 1]`. Segments of zero width are skipped, so
/// degenerate corners (a take point of 0) are harmless.
pub(crate) fn piecewise(p: f64, points: &[(f64, f64)]) -> f64 {
    let p = p.clamp(0.0, 1.0);
    for seg in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (seg[0], seg[1]);
        if p <= x1 {
            if x1 - x0 <= 1e-15 {
                return y1;
            }
            return y0 + (y1 - y0) * (p - x0).max(0.0) / (x1 - x0);
        }
    }
    points.last().map_or(0.0, |&(_, y)| y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piecewise_interpolates_and_clamps() {
        let pts = [(0.0, -1.0), (0.25, 0.0), (0.25, 0.5), (1.0, 2.0)];
        assert_eq!(piecewise(0.0, &pts), -1.0);
        assert_eq!(piecewise(0.125, &pts), -0.5);
        assert_eq!(piecewise(1.0, &pts), 2.0);
        assert_eq!(piecewise(2.0, &pts), 2.0);
        assert_eq!(piecewise(-1.0, &pts), -1.0);
        assert!((piecewise(0.625, &pts) - 1.25).abs() < 1e-12);
    }

    #[test]
    fn cube_moves() {
        let c = Cube::INITIAL.doubled();
        assert_eq!(
            c,
            Cube {
                value: 2,
                owner: Owner::Opponent
            }
        );
        assert_eq!(c.flip().owner, Owner::Mover);
    }
}
