//! Helpers shared by the engine's unit tests.

use crate::eval::bearoff::BearoffDb;
use crate::eval::net::encode::INPUTS;
use crate::eval::net::format::load_bundle;
use crate::eval::net::params::Layers;
use crate::eval::net::{Net, OUTPUTS};
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

/// Uniform weights in +-`scale`, `n` of them, from `rng`.
fn uniform(rng: &mut Rng, n: usize, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|_| ((rng.next_f64() * 2.0 - 1.0) as f32) * scale)
        .collect()
}

/// A net of `hidden` units with small random weights, deterministic in `seed`:
/// the same draws as `bgfarm-lab`'s `random_net` (which makes nets to train; the
/// engine only needs some net of each shape), so these tests see the nets they
/// were written against.
pub fn random_net(hidden: usize, seed: u64) -> Net {
    let mut rng = Rng::new(seed);
    let w1 = uniform(
        &mut rng,
        INPUTS * hidden,
        1.0 / (INPUTS as f32).sqrt() * 2.0,
    );
    let w2 = uniform(&mut rng, OUTPUTS * hidden, 1.0 / (hidden as f32).sqrt());
    Net::from_layers(Layers {
        hidden,
        w1,
        b1: vec![0.0; hidden],
        wm: Vec::new(),
        bm: Vec::new(),
        w2,
        b2: [0.0; OUTPUTS],
    })
    .expect("a random net's shapes")
}

/// [`random_net`]`(hidden, seed)`'s first layer under a random second layer of
/// `mid` units and a random output layer, deterministic in `mid_seed`: the draws
/// of `bgfarm-lab`'s `deepen`.
pub fn random_deep_net(hidden: usize, seed: u64, mid: usize, mid_seed: u64) -> Net {
    let base = random_net(hidden, seed);
    let p = base.params();
    let mut rng = Rng::new(mid_seed);
    let wm = uniform(&mut rng, mid * hidden, 2.0 / (hidden as f32).sqrt());
    let w2 = uniform(&mut rng, OUTPUTS * mid, 1.0 / (mid as f32).sqrt());
    Net::from_layers(Layers {
        hidden,
        w1: p.w1.to_vec(),
        b1: p.b1.to_vec(),
        wm,
        bm: vec![0.0; mid],
        w2,
        b2: *p.b2,
    })
    .expect("a deep random net's shapes")
}
