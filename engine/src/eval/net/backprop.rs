//! Gradients: of the equity with respect to the inputs (for move-ranking tables),
//! and of the cross-entropy loss for training (the plain SGD step here, Adam in
//! [`super::adam`]).

use super::encode::INPUTS;
use super::inference::{Base, Scratch};
use super::kernels::{self, SimdLevel};
use super::{Net, OUTPUTS};

impl Net {
    /// The gradient of the cubeless equity of `base`'s position (for its player on
    /// roll) with respect to the inputs listed in `rows` (indices below [`INPUTS`]),
    /// at that position: how much each checker-count, bar, borne-off and pip unit,
    /// or hand-crafted feature, moves the net's equity there. The other entries of
    /// `out` are left as they are. [`crate::eval::net_rank`] turns it into a
    /// move-ranking table.
    ///
    /// Cost: the hidden and output layers once, then one 128-wide dot product per
    /// listed input ([`kernels::row_dots`]: 8 partial sums, AVX2 where present, the
    /// same bits either way).
    pub fn input_gradient(&self, base: &Base, rows: &[u16], out: &mut [f32; INPUTS]) {
        let h = self.hidden;
        let level = SimdLevel::detect();
        let mut hidden = base.pre.clone();
        let mut mid = vec![0f32; self.bm.len()];
        let p = kernels::outputs_from_pre(level, self.weights(), &mut hidden, &mut mid);
        // d equity / d output: equity = 2 win - 1 + win gammon + win bg - lose gammon
        // - lose bg, each output a sigmoid.
        let de = [2.0f32, 1.0, 1.0, -1.0, -1.0];
        let g: [f32; OUTPUTS] = std::array::from_fn(|k| de[k] * p[k] * (1.0 - p[k]));
        let mut dh = vec![0f32; h];
        self.back_propagate(&hidden, &mid, &g, &mut dh, &mut vec![0f32; mid.len()]);
        debug_assert!(rows.iter().all(|&r| usize::from(r) < INPUTS));
        kernels::row_dots(level, &self.w1, rows, &dh, out);
    }

    /// One step of gradient descent on the cross-entropy between the outputs for the
    /// inputs in `scratch` (filled by [`Net::forward`] just before) and `target`.
    /// Cross-entropy with sigmoid outputs makes the output error simply `y - t`.
    pub fn train_step(
        &mut self,
        scratch: &Scratch,
        out: &[f32; OUTPUTS],
        target: &[f32; OUTPUTS],
        lr: f32,
    ) {
        let h = self.hidden;
        // Hidden errors before the weights above them change.
        let mut delta_h = vec![0f32; h];
        let mut delta_m = vec![0f32; self.bm.len()];
        let delta_out = self.errors(scratch, out, target, &mut delta_h, &mut delta_m);
        let top = scratch.top();
        for (k, row) in self.w2.chunks_exact_mut(top.len()).enumerate() {
            let g = lr * delta_out[k];
            for (w, a) in row.iter_mut().zip(top) {
                *w -= g * a;
            }
            self.b2[k] -= g;
        }
        if !self.bm.is_empty() {
            for (row, a) in self.wm.chunks_exact_mut(delta_m.len()).zip(&scratch.hidden) {
                for (w, d) in row.iter_mut().zip(&delta_m) {
                    *w -= lr * d * a;
                }
            }
            for (b, d) in self.bm.iter_mut().zip(&delta_m) {
                *b -= lr * d;
            }
        }
        for (b, dh) in self.b1.iter_mut().zip(&delta_h) {
            *b -= lr * dh;
        }
        for (i, v) in scratch.inputs.iter() {
            let row = &mut self.w1[i * h..(i + 1) * h];
            let g = lr * v;
            for (w, dh) in row.iter_mut().zip(&delta_h) {
                *w -= g * dh;
            }
        }
    }

    /// The errors back-propagation starts from, for outputs `out` against `target`
    /// with the activations in `scratch` (of the evaluation that gave `out`): the
    /// output errors (returned; with sigmoid outputs and cross-entropy simply
    /// `out - target`) and the hidden units' errors (written to `delta_h` and, with a
    /// second hidden layer, `delta_m`, which are overwritten), per unit of the loss.
    pub(crate) fn errors(
        &self,
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
        self.back_propagate(&scratch.hidden, &scratch.mid, &delta_out, delta_h, delta_m);
        delta_out
    }

    /// The errors of the hidden units (`delta_h`; the second layer's in `delta_m`,
    /// both overwritten) for errors `delta_out` at the outputs' pre-activations, given
    /// the activations `hidden` and `mid` (empty with one hidden layer).
    fn back_propagate(
        &self,
        hidden: &[f32],
        mid: &[f32],
        delta_out: &[f32; OUTPUTS],
        delta_h: &mut [f32],
        delta_m: &mut [f32],
    ) {
        let (top, delta_top): (&[f32], &mut [f32]) = if self.bm.is_empty() {
            (hidden, &mut *delta_h)
        } else {
            (mid, &mut *delta_m)
        };
        delta_top.fill(0.0);
        for (row, &d) in self.w2.chunks_exact(top.len()).zip(delta_out) {
            for (dt, w) in delta_top.iter_mut().zip(row) {
                *dt += d * w;
            }
        }
        for (dt, a) in delta_top.iter_mut().zip(top) {
            *dt *= a * (1.0 - a);
        }
        if self.bm.is_empty() {
            return;
        }
        for ((dh, row), a) in delta_h
            .iter_mut()
            .zip(self.wm.chunks_exact(delta_m.len()))
            .zip(hidden)
        {
            let back: f32 = row.iter().zip(delta_m.iter()).map(|(w, d)| w * d).sum();
            *dh = back * a * (1.0 - a);
        }
    }
}
