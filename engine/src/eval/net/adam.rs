//! Minibatch gradients and the Adam optimizer for supervised fits.
//!
//! Why: plain per-sample SGD ([`Net::train_step`]) fits the nets' own 1-ply labels
//! poorly. On 1,015,305 contact positions the equity RMSE against the labels fell
//! only from 0.0362 to 0.0339 in 20 epochs, and even 20,000 of them, seen 100 times,
//! were fitted no better than 0.028: the optimizer, not the 128 hidden units, was
//! the limit (a 256-unit net fitted no better either). Adam scales each weight's
//! step by its own gradient history, which suits a net whose input rows are seen at
//! very different rates (a checker on the bar is rare, a blot on the 6-point common).
//!
//! A [`Gradient`] sums the per-sample gradients of a minibatch (dense, laid out like
//! the net); [`Adam::step`] turns it into one update. Sums are in a fixed order, so a
//! fit is the same bit for bit on any number of threads.

use super::encode::INPUTS;
use super::inference::Scratch;
use super::{Net, OUTPUTS};

/// A gradient of the cross-entropy, laid out like the [`Net`] it belongs to.
#[derive(Clone, Debug)]
pub struct Gradient {
    hidden: usize,
    mid: usize,
    w1: Vec<f32>,
    b1: Vec<f32>,
    wm: Vec<f32>,
    bm: Vec<f32>,
    w2: Vec<f32>,
    b2: [f32; OUTPUTS],
    /// Samples summed since the last [`Gradient::clear`].
    samples: usize,
    /// Per-sample work space: the hidden errors.
    delta_h: Vec<f32>,
    delta_m: Vec<f32>,
}

impl Gradient {
    /// A zero gradient for nets shaped like `net`.
    pub fn new(net: &Net) -> Gradient {
        let (hidden, mid) = (net.hidden, net.mid());
        let top = net.top();
        Gradient {
            hidden,
            mid,
            w1: vec![0.0; INPUTS * hidden],
            b1: vec![0.0; hidden],
            wm: vec![0.0; mid * hidden],
            bm: vec![0.0; mid],
            w2: vec![0.0; OUTPUTS * top],
            b2: [0.0; OUTPUTS],
            samples: 0,
            delta_h: vec![0.0; hidden],
            delta_m: vec![0.0; mid],
        }
    }

    /// Back to zero.
    pub fn clear(&mut self) {
        self.w1.fill(0.0);
        self.b1.fill(0.0);
        self.wm.fill(0.0);
        self.bm.fill(0.0);
        self.w2.fill(0.0);
        self.b2 = [0.0; OUTPUTS];
        self.samples = 0;
    }

    /// Samples summed.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Adds the gradient of one sample: `net`'s outputs `out` for the inputs in
    /// `scratch` (filled by [`Net::forward`] just before) against `target`, from the
    /// errors [`Net::train_step`] starts from too.
    pub fn add_sample(
        &mut self,
        net: &Net,
        scratch: &Scratch,
        out: &[f32; OUTPUTS],
        target: &[f32; OUTPUTS],
    ) {
        let h = self.hidden;
        debug_assert_eq!((h, self.mid), (net.hidden, net.mid()));
        let delta_out = net.errors(scratch, out, target, &mut self.delta_h, &mut self.delta_m);
        let top = scratch.top();
        for (row, &d) in self.w2.chunks_exact_mut(top.len()).zip(&delta_out) {
            for (g, a) in row.iter_mut().zip(top) {
                *g += d * a;
            }
        }
        for (b, &d) in self.b2.iter_mut().zip(&delta_out) {
            *b += d;
        }
        if self.mid > 0 {
            for (row, a) in self.wm.chunks_exact_mut(self.mid).zip(&scratch.hidden) {
                for (g, d) in row.iter_mut().zip(&self.delta_m) {
                    *g += d * a;
                }
            }
            for (b, d) in self.bm.iter_mut().zip(&self.delta_m) {
                *b += d;
            }
        }
        for (g, dh) in self.b1.iter_mut().zip(&self.delta_h) {
            *g += dh;
        }
        for (i, v) in scratch.inputs.iter() {
            for (g, dh) in self.w1[i * h..(i + 1) * h].iter_mut().zip(&self.delta_h) {
                *g += v * dh;
            }
        }
        self.samples += 1;
    }

    /// Adds `other` (same width) to this one.
    pub fn add(&mut self, other: &Gradient) {
        for (a, b) in self.w1.iter_mut().zip(&other.w1) {
            *a += b;
        }
        for (a, b) in self.b1.iter_mut().zip(&other.b1) {
            *a += b;
        }
        for (a, b) in self.wm.iter_mut().zip(&other.wm) {
            *a += b;
        }
        for (a, b) in self.bm.iter_mut().zip(&other.bm) {
            *a += b;
        }
        for (a, b) in self.w2.iter_mut().zip(&other.w2) {
            *a += b;
        }
        for (a, b) in self.b2.iter_mut().zip(&other.b2) {
            *a += b;
        }
        self.samples += other.samples;
    }
}

/// Adam's moment estimates for one net (Kingma and Ba, 2015, with their defaults
/// beta1 0.9, beta2 0.999, epsilon 1e-8).
#[derive(Clone, Debug)]
pub struct Adam {
    m: Gradient,
    v: Gradient,
    steps: i32,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

impl Adam {
    /// Fresh moments for nets shaped like `net`.
    pub fn new(net: &Net) -> Adam {
        Adam {
            m: Gradient::new(net),
            v: Gradient::new(net),
            steps: 0,
        }
    }

    /// One update of `net` by the mean of the summed gradient `g` (nothing if it
    /// holds no sample), with step size `lr`.
    pub fn step(&mut self, net: &mut Net, g: &Gradient, lr: f32) {
        if g.samples == 0 {
            return;
        }
        assert_eq!(
            (net.hidden, net.mid()),
            (g.hidden, g.mid),
            "a gradient for another shape"
        );
        self.steps = self.steps.saturating_add(1);
        let scale = 1.0 / g.samples as f32;
        // Bias corrections folded into the step size.
        let c1 = 1.0 - BETA1.powi(self.steps);
        let c2 = 1.0 - BETA2.powi(self.steps);
        let alpha = lr * c2.sqrt() / c1;
        let update = |w: &mut [f32], m: &mut [f32], v: &mut [f32], g: &[f32]| {
            for (((w, m), v), &g) in w.iter_mut().zip(m).zip(v).zip(g) {
                let g = g * scale;
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                *w -= alpha * *m / (v.sqrt() + EPSILON);
            }
        };
        update(&mut net.w1, &mut self.m.w1, &mut self.v.w1, &g.w1);
        update(&mut net.b1, &mut self.m.b1, &mut self.v.b1, &g.b1);
        update(&mut net.wm, &mut self.m.wm, &mut self.v.wm, &g.wm);
        update(&mut net.bm, &mut self.m.bm, &mut self.v.bm, &g.bm);
        update(&mut net.w2, &mut self.m.w2, &mut self.v.w2, &g.w2);
        update(&mut net.b2, &mut self.m.b2, &mut self.v.b2, &g.b2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::testutil::random_positions;

    /// The summed gradient is the cross-entropy's: a finite difference of the loss
    /// along one weight agrees with it.
    #[test]
    fn gradient_matches_finite_differences() {
        gradient_matches(Net::random(16, 4));
    }

    /// The same with a second hidden layer, its weights and biases checked too.
    #[test]
    fn deep_gradient_matches_finite_differences() {
        let mut net = Net::random(16, 4).deepen(8, 3);
        // Output weights large enough that the second layer matters.
        for w in &mut net.w2 {
            *w *= 4.0;
        }
        gradient_matches(net);
    }

    fn gradient_matches(net: Net) {
        let positions = random_positions(8, 3);
        let target = [0.6, 0.2, 0.05, 0.1, 0.01];
        let loss = |net: &Net| -> f64 {
            let mut s = net.scratch();
            positions
                .iter()
                .map(|p| {
                    let y = net.forward(p, &mut s);
                    (0..OUTPUTS)
                        .map(|k| {
                            let (y, t) = (f64::from(y[k]), f64::from(target[k]));
                            -(t * y.ln() + (1.0 - t) * (1.0 - y).ln())
                        })
                        .sum::<f64>()
                })
                .sum()
        };
        let mut g = Gradient::new(&net);
        let mut s = net.scratch();
        for p in &positions {
            let y = net.forward(p, &mut s);
            g.add_sample(&net, &s, &y, &target);
        }
        assert_eq!(g.samples(), positions.len());
        // A first-layer weight of an input every position has (a checker count on
        // the mover's 6-point or the like is not certain): pick the most used row.
        let mut uses = vec![0usize; INPUTS];
        for p in &positions {
            net.forward(p, &mut s);
            for (i, _) in s.inputs.iter() {
                uses[i] += 1;
            }
        }
        let row = (0..INPUTS).max_by_key(|&i| uses[i]).unwrap_or(0);
        let mut checks = vec![
            ("w1", row * 16 + 3, g.w1[row * 16 + 3]),
            ("w2", 2 * 5 + 3, g.w2[2 * 5 + 3]),
            ("b1", 7, g.b1[7]),
            ("b2", 1, g.b2[1]),
        ];
        if net.mid() > 0 {
            checks.push(("wm", 3 * 16 + 9, g.wm[3 * 16 + 9]));
            checks.push(("bm", 5, g.bm[5]));
        }
        for (name, i, analytic) in checks {
            let eps = 1e-2f32;
            let (mut up, mut down) = (net.clone(), net.clone());
            let (wu, wd) = match name {
                "w1" => (&mut up.w1[i], &mut down.w1[i]),
                "w2" => (&mut up.w2[i], &mut down.w2[i]),
                "b2" => (&mut up.b2[i], &mut down.b2[i]),
                "wm" => (&mut up.wm[i], &mut down.wm[i]),
                "bm" => (&mut up.bm[i], &mut down.bm[i]),
                _ => (&mut up.b1[i], &mut down.b1[i]),
            };
            *wu += eps;
            *wd -= eps;
            let numeric = (loss(&up) - loss(&down)) / (2.0 * f64::from(eps));
            assert!(
                (numeric - f64::from(analytic)).abs() < 2e-3 + 0.02 * numeric.abs(),
                "{name}[{i}]: numeric {numeric} analytic {analytic}"
            );
        }
    }

    /// Adam fits a handful of positions to their targets far better than they
    /// start, and two gradients summed equal one gradient of both halves.
    #[test]
    fn adam_fits_a_small_set_and_gradients_add() {
        let mut net = Net::random(16, 9);
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
        let mut adam = Adam::new(&net);
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
            for (x, y) in a.w1.iter().zip(&all.w1) {
                assert!((x - y).abs() < 1e-5);
            }
            adam.step(&mut net, &all, 0.02);
        }
        let after = error(&net);
        assert!(after < before * 0.25, "{before} -> {after}");
    }
}
