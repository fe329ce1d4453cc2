//! The luck of a roll.
//!
//! The luck of a roll is the mover's value after the best play of the roll they
//! got, minus the mean of that value over every roll they could have got (the 21
//! rolls, a double weighted 1/36, any other 2/36). A roll that cannot be played is
//! valued as the position left as it is with the opponent on roll. The value is the
//! one the chequer errors use ([`super::rate::play_value`]: the Janowski cubeful value at the
//! cube and score, MWC in a match, money equity per unit cube), so luck is in the
//! errors' units: EMG at the score, and MWC in a match.
//!
//! A game's opening roll also decides who moves first, so its mean is over the 30
//! equally likely outcomes of the opening: each of the 15 non-doubles, played by
//! either player (the outcomes where the opponent moves are valued from the
//! opponent's side and turned back to the mover's). Money play starts even, so this
//! puts the opening's luck on the roll rather than on winning the opening roll.
//!
//! The best play of each roll is chosen at `--luck-ply` (default 0: the nets alone,
//! as GNU Backgammon's default luck analysis). Both the actual roll and the 21 are
//! valued at the same ply, so a player who gets an average roll has zero luck
//! whatever the ply. Cost on the 5-point test match (2 shared cores, release):
//! see docs/research-log.md, "Luck in the match analysis".
//!
//!
//! The players' totals and the luck-adjusted result are the command line's
//! (`bgfarm analyse`).

use super::rate::{emg_per_unit, play_value};
use super::{Analyst, Setting};
use crate::met::MatchEquityTable;
use crate::search::Ladder;
use crate::{Dice, Position};

/// A roll a player got, to be valued.
pub struct Roll {
    pub game: u32,
    pub move_no: u32,
    pub player: u8,
    /// Before the roll, seen by the roller.
    pub position: Position,
    pub dice: Dice,
    pub set: Setting,
    /// The game's first roll (see the module docs).
    pub opening: bool,
}

/// The luck of one roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollLuck {
    pub game: u32,
    pub move_no: u32,
    pub player: u8,
    /// EMG at the score.
    pub emg: f64,
    /// MWC (match play).
    pub mwc: Option<f64>,
    /// Money play: equity times the cube value.
    pub points: f64,
}

/// The mover's value (`play_value`'s units) of the best play of `dice` at `pos`.
fn best_value<A: Analyst + ?Sized>(
    engine: &A,
    pos: &Position,
    dice: Dice,
    (ply, ladder): (u8, &Ladder),
    set: &Setting,
    met: Option<&MatchEquityTable>,
) -> f64 {
    let ranked = engine.rank(pos, dice, ply, ladder);
    if ranked.is_empty() {
        // A roll that cannot be played: the same board, the opponent on roll.
        let next = pos.switch_sides();
        let probs = engine.searcher().position_probs(&next, ply).flip();
        return play_value(&probs, &next, set, met);
    }
    let deepest = ranked.iter().map(|c| c.ply).max().unwrap_or(0);
    ranked
        .iter()
        .filter(|c| c.ply == deepest)
        .map(|c| play_value(&c.probs, &c.mv.next_position(), set, met))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The luck of one roll in the value's units.
pub fn luck_value<A: Analyst + ?Sized>(
    engine: &A,
    r: &Roll,
    search: (u8, &Ladder),
    met: Option<&MatchEquityTable>,
) -> f64 {
    let value =
        |pos: &Position, dice: Dice, set: &Setting| best_value(engine, pos, dice, search, set, met);
    let actual = value(&r.position, r.dice, &r.set);
    let opening = r.opening && !r.dice.is_double();
    if !opening {
        let mean: f64 = Dice::ALL_21
            .iter()
            .map(|&(d, w)| f64::from(w) * value(&r.position, d, &r.set))
            .sum::<f64>()
            / 36.0;
        return actual - mean;
    }
    // The opponent moving first, valued from their side and turned back.
    let theirs = r.set.flip();
    let their_pos = r.position.switch_sides();
    let back = |v: f64| if r.set.score.is_some() { 1.0 - v } else { -v };
    let mut sum = 0.0;
    for &(d, _) in Dice::ALL_21.iter().filter(|(d, _)| !d.is_double()) {
        sum += value(&r.position, d, &r.set) + back(value(&their_pos, d, &theirs));
    }
    actual - sum / 30.0
}

/// The luck of roll `r` in the errors' units.
pub fn roll_luck<A: Analyst + ?Sized>(
    engine: &A,
    r: &Roll,
    search: (u8, &Ladder),
    met: Option<&MatchEquityTable>,
) -> RollLuck {
    let v = luck_value(engine, r, search, met);
    let is_match = r.set.score.is_some();
    RollLuck {
        game: r.game,
        move_no: r.move_no,
        player: r.player,
        emg: v * emg_per_unit(&r.set, met),
        mwc: is_match.then_some(v),
        points: if is_match {
            0.0
        } else {
            v * f64::from(r.set.cube.value)
        },
    }
}
