//! Helpers shared by the training code's unit tests.

use crate::train::net::grow::deepen;
use crate::train::net::init::random_net;
use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::default_nets::fast_evaluator;
use bgfarm_engine::eval::net::format::load_bundle;
use bgfarm_engine::eval::net::Net;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::movegen::MoveGenerator;
use bgfarm_engine::position::Position;
use bgfarm_engine::rng::Rng;

/// The built-in one-layer nets with the exact bear-off tables and no screen.
pub fn default_nets() -> NeuralEvaluator<'static> {
    fast_evaluator(Some(BearoffDb::global())).expect("built-in nets")
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

/// The default contact net, and random nets of other shapes: one layer of 128 and
/// of 24, and 128 under a second layer of 24 whose output weights are scaled up so
/// the second layer matters.
pub fn nets_of_every_shape() -> [Net; 4] {
    let contact = load_bundle(bgfarm_engine::eval::default_nets::BYTES, "contact.")
        .expect("built-in contact net");
    let mut deep = deepen(&random_net(128, 41), 24, 5);
    for w in deep.params_mut().w2.iter_mut() {
        *w *= 4.0;
    }
    [contact, random_net(128, 9), random_net(24, 9), deep]
}
