//! The cross-entropy's gradient for the evaluation nets, summed over a minibatch
//! ([`Gradient`]), and the errors back-propagation starts from ([`output_errors`]),
//! which the plain SGD step ([`super::sgd`]) uses too.
//!
//! Sums are in a fixed order, so a fit is the same bit for bit on any number of
//! threads.

use bgfarm_engine::eval::net::encode::INPUTS;
use bgfarm_engine::eval::net::inference::Scratch;
use bgfarm_engine::eval::net::{Net, OUTPUTS};

/// The errors back-propagation starts from, for outputs `out` against `target`
/// with the activations in `scratch` (of the evaluation that gave `out`): the
/// output errors (returned; with sigmoid outputs and cross-entropy simply
/// `out - target`) and the hidden units' errors (written to `delta_h` and, with a
/// second hidden layer, `delta_m`, which are overwritten), per unit of the loss.
pub fn output_errors(
    net: &Net,
    scratch: &Scratch,
    out: &[f32; OUTPUTS],
    target: &[f32; OUTPUTS],
    delta_h: &mut [f32],
    delta_m: &mut [f32],
) -> [f32; OUTPUTS] {
    let mut delta_out = [0f32; OUTPUTS];
    for k in 0..OUTPUTS {
        delta_out[k] = out[k] - target[k];
    }
    net.hidden_errors(&scratch.hidden, &scratch.mid, &delta_out, delta_h, delta_m);
    delta_out
}

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
        let (hidden, mid) = (net.hidden(), net.mid());
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

    /// The first-layer and second-layer widths of the nets this gradient is for.
    pub fn widths(&self) -> (usize, usize) {
        (self.hidden, self.mid)
    }

    /// The summed gradients as the net's six tensors, in the order of
    /// [`bgfarm_engine::eval::net::params::Params`]: w1, b1, wm, bm, w2, b2.
    pub fn tensors(&self) -> [&[f32]; 6] {
        [&self.w1, &self.b1, &self.wm, &self.bm, &self.w2, &self.b2]
    }

    /// Adds the gradient of one sample: `net`'s outputs `out` for the inputs in
    /// `scratch` (filled by [`Net::forward`] just before) against `target`, from the
    /// errors [`output_errors`] gives (as the plain SGD step does).
    pub fn add_sample(
        &mut self,
        net: &Net,
        scratch: &Scratch,
        out: &[f32; OUTPUTS],
        target: &[f32; OUTPUTS],
    ) {
        let h = self.hidden;
        debug_assert_eq!((h, self.mid), (net.hidden(), net.mid()));
        let delta_out = output_errors(
            net,
            scratch,
            out,
            target,
            &mut self.delta_h,
            &mut self.delta_m,
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::net::grow::deepen;
    use crate::train::net::init::random_net;
    use crate::train::testutil::random_positions;

    /// The summed gradient is the cross-entropy's: a finite difference of the loss
    /// along one weight agrees with it.
    #[test]
    fn gradient_matches_finite_differences() {
        gradient_matches(random_net(16, 4));
    }

    /// The same with a second hidden layer, its weights and biases checked too.
    #[test]
    fn deep_gradient_matches_finite_differences() {
        let mut net = deepen(&random_net(16, 4), 8, 3);
        // Output weights large enough that the second layer matters.
        for w in net.params_mut().w2.iter_mut() {
            *w *= 4.0;
        }
        gradient_matches(net);
    }

    /// Weight `i` of tensor `name` in `net`.
    fn weight<'a>(net: &'a mut Net, name: &str, i: usize) -> &'a mut f32 {
        let p = net.params_mut();
        match name {
            "w1" => &mut p.w1[i],
            "w2" => &mut p.w2[i],
            "b2" => &mut p.b2[i],
            "wm" => &mut p.wm[i],
            "bm" => &mut p.bm[i],
            _ => &mut p.b1[i],
        }
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
            *weight(&mut up, name, i) += eps;
            *weight(&mut down, name, i) -= eps;
            let numeric = (loss(&up) - loss(&down)) / (2.0 * f64::from(eps));
            assert!(
                (numeric - f64::from(analytic)).abs() < 2e-3 + 0.02 * numeric.abs(),
                "{name}[{i}]: numeric {numeric} analytic {analytic}"
            );
        }
    }
}
