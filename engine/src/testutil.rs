//! Helpers shared by the engine's unit tests.

use crate::eval::bearoff::BearoffDb;
use crate::eval::net::format::load_bundle;
use crate::eval::neural::NeuralEvaluator;
use crate::movegen::MoveGenerator;
use crate::position::Position;
use crate::rng::Rng;

/// A position from (point, count) lists: the mover's points in its numbering,
/// the opponent's in the opponent's numbering; point 25 = bar.
pub fn board(mover: &[(usize, u8)], opponent: &[(usize, u8)]) -> Position {
    let (mut m, mut o) = ([0u8; 25], [0u8; 25]);
    for &(p, n) in mover {
        m[p - 1] = n;
    }
    for &(p, n) in opponent {
        o[p - 1] = n;
    }
    Position::from_arrays(&m, &o).expect("test position")
}

/// Positions of random games: every candidate of every roll (contact, hits, bar,
/// races, bear-offs), deterministic in `seed`.
pub fn random_positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut gen = MoveGenerator::new();
    let mut out = Vec::new();
    let mut pos = Position::STARTING;
    while out.len() < n {
        let moves = gen.generate(&pos, rng.roll());
        out.extend(moves.iter().map(|m| m.next_position()));
        pos = match moves.len() {
            0 => pos.switch_sides(),
            k => moves[rng.below(k as u32) as usize].next_position(),
        };
        if pos.game_over() {
            pos = Position::STARTING;
        }
    }
    out
}

/// The built-in nets with the exact bear-off tables: the evaluator the product uses.
pub fn default_nets() -> NeuralEvaluator<'static> {
    let b = crate::eval::default_nets::BYTES;
    NeuralEvaluator {
        contact: load_bundle(b, "contact.").expect("built-in contact net"),
        race: load_bundle(b, "race.").expect("built-in race net"),
        endgame: Some(BearoffDb::global()),
        screen: None,
        crashed: None,
    }
}
