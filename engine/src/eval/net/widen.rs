//! Nets grown from trained ones: wider (more first-layer units) or deeper (a second
//! hidden layer), computing the same outputs (widen) or keeping the trained first
//! layer (deepen) so that training goes on from what was learnt.

use super::encode::INPUTS;
use super::kernels::LANES;
use super::{Net, OUTPUTS};

impl Net {
    /// This net's first layer under a new second hidden layer of `mid` units and a
    /// new output layer, both with small random weights (deterministic in `seed`):
    /// the first layer's trained features kept, the layers above to be fitted. The
    /// output biases are kept, so the deeper net starts near the outputs' base rates.
    pub fn deepen(&self, mid: usize, seed: u64) -> Net {
        assert!(
            mid > 0 && mid.is_multiple_of(LANES) && self.bm.is_empty(),
            "a second layer needs a positive multiple of 8 units, on a net with one"
        );
        let mut rng = crate::rng::Rng::new(seed);
        let mut uniform = |scale: f32| ((rng.next_f64() * 2.0 - 1.0) as f32) * scale;
        let sm = 2.0 / (self.hidden as f32).sqrt();
        let s2 = 1.0 / (mid as f32).sqrt();
        Net {
            hidden: self.hidden,
            w1: self.w1.clone(),
            b1: self.b1.clone(),
            wm: (0..mid * self.hidden).map(|_| uniform(sm)).collect(),
            bm: vec![0.0; mid],
            w2: (0..OUTPUTS * mid).map(|_| uniform(s2)).collect(),
            b2: self.b2,
            metadata: self.metadata.clone(),
            third: true,
        }
    }

    /// This net with `hidden` hidden units (at least its own): the new units get small
    /// random input weights (deterministic in `seed`) and zero output weights, so the
    /// wider net computes exactly the same outputs until training gives them a use.
    /// For supervised refinement when the net's capacity, not the data, limits the fit.
    pub fn widen(&self, hidden: usize, seed: u64) -> Net {
        assert!(
            hidden >= self.hidden && hidden.is_multiple_of(LANES),
            "a wider net needs a multiple of 8 at least as wide"
        );
        let fresh = Net::random(hidden, seed);
        let (old, new) = (self.hidden, hidden);
        let mut w1 = fresh.w1;
        for i in 0..INPUTS {
            w1[i * new..i * new + old].copy_from_slice(&self.w1[i * old..(i + 1) * old]);
            // Quieter than a fresh net's: the new units start near the middle of the
            // sigmoid and learn without disturbing the trained ones.
            for w in &mut w1[i * new + old..(i + 1) * new] {
                *w *= 0.25;
            }
        }
        let mut b1 = vec![0.0; new];
        b1[..old].copy_from_slice(&self.b1);
        // The layer above the first gets zero weights from the new units: the
        // output layer of a one-layer net, the second hidden layer of a deeper one.
        let grow = |w: &[f32], rows: usize| {
            let mut out = vec![0.0; rows * new];
            for k in 0..rows {
                out[k * new..k * new + old].copy_from_slice(&w[k * old..(k + 1) * old]);
            }
            out
        };
        let (wm, w2) = if self.bm.is_empty() {
            (Vec::new(), grow(&self.w2, OUTPUTS))
        } else {
            // Rows of zeros for the new units.
            let mut wm = self.wm.clone();
            wm.resize(new * self.bm.len(), 0.0);
            (wm, self.w2.clone())
        };
        Net {
            hidden: new,
            w1,
            b1,
            wm,
            bm: self.bm.clone(),
            w2,
            b2: self.b2,
            metadata: self.metadata.clone(),
            third: true,
        }
    }
}
