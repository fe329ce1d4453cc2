//! New nets with small random weights, for training from scratch.

use bgfarm_engine::eval::net::encode::INPUTS;
use bgfarm_engine::eval::net::kernels::LANES;
use bgfarm_engine::eval::net::params::Layers;
use bgfarm_engine::eval::net::{Net, OUTPUTS};
use bgfarm_engine::rng::Rng;

/// A net of `hidden` units (a positive multiple of 8) with small random weights,
/// deterministic in `seed`: first-layer weights uniform in +-2/sqrt(inputs), output
/// weights in +-1/sqrt(hidden), biases zero, so that a fresh net's hidden units start
/// in the sigmoid's steep middle rather than saturated.
pub fn random_net(hidden: usize, seed: u64) -> Net {
    assert!(
        hidden > 0 && hidden.is_multiple_of(LANES),
        "hidden width must be a positive multiple of 8"
    );
    let mut rng = Rng::new(seed);
    let mut uniform = |scale: f32| ((rng.next_f64() * 2.0 - 1.0) as f32) * scale;
    let s1 = 1.0 / (INPUTS as f32).sqrt() * 2.0;
    let s2 = 1.0 / (hidden as f32).sqrt();
    let layers = Layers {
        hidden,
        w1: (0..INPUTS * hidden).map(|_| uniform(s1)).collect(),
        b1: vec![0.0; hidden],
        wm: Vec::new(),
        bm: Vec::new(),
        w2: (0..OUTPUTS * hidden).map(|_| uniform(s2)).collect(),
        b2: [0.0; OUTPUTS],
    };
    Net::from_layers(layers).expect("a random net's shapes follow its width")
}
