//! New nets with small random weights, for training from scratch.

use super::encode::INPUTS;
use super::kernels::LANES;
use super::{Net, OUTPUTS};
use std::collections::HashMap;

impl Net {
    /// A net with small random weights (for training from scratch), deterministic in
    /// `seed`.
    pub fn random(hidden: usize, seed: u64) -> Net {
        assert!(
            hidden > 0 && hidden.is_multiple_of(LANES),
            "hidden width must be a positive multiple of 8"
        );
        let mut rng = crate::rng::Rng::new(seed);
        let mut uniform = |scale: f32| ((rng.next_f64() * 2.0 - 1.0) as f32) * scale;
        let s1 = 1.0 / (INPUTS as f32).sqrt() * 2.0;
        let s2 = 1.0 / (hidden as f32).sqrt();
        Net {
            hidden,
            w1: (0..INPUTS * hidden).map(|_| uniform(s1)).collect(),
            b1: vec![0.0; hidden],
            wm: Vec::new(),
            bm: Vec::new(),
            w2: (0..OUTPUTS * hidden).map(|_| uniform(s2)).collect(),
            b2: [0.0; OUTPUTS],
            metadata: HashMap::new(),
            third: true,
        }
    }

    /// Makes every input count, the features' third block included, for training:
    /// a net loaded from an older file has zero weights there and skips the block's
    /// cost until it is fitted.
    pub fn read_every_input(&mut self) {
        self.third = true;
    }
}
