//! [`Adam`] over an evaluation net's six weight tensors, stepping by a summed
//! minibatch [`Gradient`].

use super::gradient::Gradient;
use crate::train::adam::{Adam, Correction};
use bgfarm_engine::eval::net::Net;

/// Adam's moments for one net, in the bias-correction form the nets' fits were
/// recorded with ([`Correction::Folded`]).
#[derive(Clone, Debug)]
pub struct NetAdam {
    adam: Adam,
    /// The widths the moments are for.
    widths: (usize, usize),
}

impl NetAdam {
    /// Fresh moments for nets shaped like `net`.
    pub fn new(net: &Net) -> NetAdam {
        let p = net.params();
        let sizes = [
            p.w1.len(),
            p.b1.len(),
            p.wm.len(),
            p.bm.len(),
            p.w2.len(),
            p.b2.len(),
        ];
        NetAdam {
            adam: Adam::new(sizes, Correction::Folded),
            widths: (net.hidden(), net.mid()),
        }
    }

    /// One update of `net` by the mean of the summed gradient `g` (nothing if it
    /// holds no sample), with step size `lr`.
    pub fn step(&mut self, net: &mut Net, g: &Gradient, lr: f32) {
        if g.samples() == 0 {
            return;
        }
        assert_eq!(
            ((net.hidden(), net.mid()), g.widths()),
            (self.widths, self.widths),
            "a gradient or net of another shape"
        );
        self.adam.begin_step();
        let scale = 1.0 / g.samples() as f32;
        let p = net.params_mut();
        let weights: [&mut [f32]; 6] = [p.w1, p.b1, p.wm, p.bm, p.w2, p.b2];
        for (k, (w, g)) in weights.into_iter().zip(g.tensors()).enumerate() {
            self.adam.update(k, w, g.iter().map(|&g| g * scale), lr);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::net::init::random_net;
    use crate::train::testutil::random_positions;
    use bgfarm_engine::eval::net::OUTPUTS;
    use bgfarm_engine::position::Position;

    /// Adam fits a handful of positions to their targets far better than they
    /// start, and two gradients summed equal one gradient of both halves.
    #[test]
    fn adam_fits_a_small_set_and_gradients_add() {
        let mut net = random_net(16, 9);
        let positions: Vec<Position> = random_positions(32, 5);
        let targets: Vec<[f32; OUTPUTS]> = (0..positions.len())
            .map(|i| {
                let w = (i % 7) as f32 / 7.0;
                [w, w * 0.3, w * 0.05, (1.0 - w) * 0.3, (1.0 - w) * 0.02]
            })
            .collect();
        let error = |net: &Net| -> f32 {
            let mut s = net.scratch();
            positions
                .iter()
                .zip(&targets)
                .map(|(p, t)| (net.forward(p, &mut s)[0] - t[0]).powi(2))
                .sum::<f32>()
        };
        let before = error(&net);
        let mut adam = NetAdam::new(&net);
        let (mut all, mut a, mut b) = (
            Gradient::new(&net),
            Gradient::new(&net),
            Gradient::new(&net),
        );
        let mut s = net.scratch();
        for _ in 0..1000 {
            all.clear();
            a.clear();
            b.clear();
            for (i, (p, t)) in positions.iter().zip(&targets).enumerate() {
                let y = net.forward(p, &mut s);
                all.add_sample(&net, &s, &y, t);
                if i % 2 == 0 {
                    a.add_sample(&net, &s, &y, t);
                } else {
                    b.add_sample(&net, &s, &y, t);
                }
            }
            a.add(&b);
            assert_eq!(a.samples(), all.samples());
            for (x, y) in a.tensors()[0].iter().zip(all.tensors()[0]) {
                assert!((x - y).abs() < 1e-5);
            }
            adam.step(&mut net, &all, 0.02);
        }
        let after = error(&net);
        assert!(after < before * 0.25, "{before} -> {after}");
    }
}
