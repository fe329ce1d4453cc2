//! The gradient of the equity with respect to the inputs (for move-ranking
//! tables), and the chain rule from the outputs down to the hidden units it rests
//! on, which `bgfarm-lab`'s fits use too (one copy of the layers' derivatives).

use super::encode::INPUTS;
use super::inference::Base;
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
        self.hidden_errors(&hidden, &mid, &g, &mut dh, &mut vec![0f32; mid.len()]);
        debug_assert!(rows.iter().all(|&r| usize::from(r) < INPUTS));
        kernels::row_dots(level, &self.w1, rows, &dh, out);
    }

    /// The errors of the hidden units (`delta_h`; the second layer's in `delta_m`,
    /// both overwritten) for errors `delta_out` at the outputs' pre-activations, given
    /// the activations `hidden` and `mid` (empty with one hidden layer): the
    /// derivative of whatever `delta_out` is the derivative of, with respect to each
    /// hidden unit's pre-activation.
    pub fn hidden_errors(
        &self,
        hidden: &[f32],
        mid: &[f32],
        delta_out: &[f32; OUTPUTS],
        delta_h: &mut [f32],
        delta_m: &mut [f32],
    ) {
        let (h, m) = (self.hidden, self.bm.len());
        assert!(
            hidden.len() == h && delta_h.len() == h && mid.len() == m && delta_m.len() == m,
            "hidden errors need layers of {h} and {m} units"
        );
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
