//! The one-sided race net ([`SideNet`]) laid out for evaluation: its hidden layers
//! transposed, so that each of a side's few non-zero inputs adds one contiguous
//! row to every hidden unit at once, and the sums compiled for AVX2 where the CPU
//! has it.
//!
//! Why: the net answers every race with a saver (its split first-off
//! head a second hidden layer) and took 30% of the main job's rollout (the README's
//! main command, one thread, `perf`): the hidden layers walked one unit at a time
//! over scattered weights, and the SSE2 build ran the output dots 4 lanes wide.
//!
//! The results are [`SideNet::hidden_layer`] and [`SideNet::logits`] bit for bit:
//! each hidden unit still sums its inputs in the same order from 0 and adds its
//! bias last, and the output dots keep [`SideNet::logits`]' 8 lanes (one AVX2
//! register, or two SSE2 ones, the same additions either way; Rust never fuses
//! them into FMAs).

use super::side::{expected_rolls, RACE_ROLLS};
use super::side_net::{dot, Head, SideNet, SIDE_INPUTS};

/// A [`SideNet`] with its hidden weights transposed. See the module docs.
pub struct SideKernel<'a> {
    net: &'a SideNet,
    /// The shared hidden layer's weights, `SIDE_INPUTS x hidden` (row per input).
    shared: Vec<f32>,
    /// The first-off head's own layer, transposed the same way, for a split net.
    first: Option<Vec<f32>>,
}

impl<'a> SideKernel<'a> {
    /// `net` laid out for evaluation (two transposes of 100 x 128 weights).
    pub fn new(net: &'a SideNet) -> Self {
        let hidden = net.hidden;
        let transpose = |w: &[f32]| {
            let mut t = vec![0f32; w.len()];
            for j in 0..hidden {
                for i in 0..SIDE_INPUTS {
                    t[i * hidden + j] = w[j * SIDE_INPUTS + i];
                }
            }
            t
        };
        SideKernel {
            net,
            shared: transpose(&net.w1),
            first: net.first_hidden.as_ref().map(|f| transpose(&f.w)),
        }
    }

    /// The hidden activations `head` reads for inputs `x`:
    /// [`SideNet::hidden_layer`], bit for bit.
    pub fn hidden_layer(&self, head: Head, x: &[f32; SIDE_INPUTS]) -> Vec<f32> {
        let w = match (&self.first, head) {
            (Some(f), Head::FirstOff) => f,
            _ => &self.shared,
        };
        let (_, b) = self.net.hidden_weights(head);
        let mut h = vec![0f32; self.net.hidden];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above); the function is
            // otherwise safe code.
            unsafe { accumulate_avx2(w, x, &mut h) };
            finish_hidden(&mut h, b);
            return h;
        }
        accumulate(w, x, &mut h);
        finish_hidden(&mut h, b);
        h
    }

    /// The head's logits from hidden activations `h`: [`SideNet::logits`], bit
    /// for bit.
    pub fn logits(&self, head: Head, h: &[f32]) -> [f32; RACE_ROLLS] {
        let k = head as usize;
        let (w, b) = (&self.net.w2[k], &self.net.b2[k]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above); the function is
            // otherwise safe code.
            return unsafe { logits_avx2(w, b, h) };
        }
        logits(w, b, h)
    }

    /// The gradient of `head`'s expected rolls (the mean of its distribution) with
    /// respect to the inputs, at inputs `x`: a linear estimate of how much a
    /// change of the side moves the expectation, for ranking the plays of a
    /// roll before the net values the most promising of them
    /// ([`super::one_roll::PlayFilter`]). One backward pass: `d mean / d logit_n
    /// = p_n (n - mean)`, through the output weights, the sigmoid and the hidden
    /// weights (about the cost of two evaluations).
    pub fn mean_gradient(&self, head: Head, x: &[f32; SIDE_INPUTS]) -> [f32; SIDE_INPUTS] {
        let h = self.hidden_layer(head, x);
        let p = super::side_net::softmax(&self.logits(head, &h));
        let mean = expected_rolls(&p);
        let hidden = self.net.hidden;
        let mut g_h = vec![0f32; hidden];
        let w2 = &self.net.w2[head as usize];
        for (n, &q) in p.iter().enumerate() {
            let dz = (q * (n as f64 - mean)) as f32;
            if dz != 0.0 {
                for (g, &w) in g_h.iter_mut().zip(&w2[n * hidden..][..hidden]) {
                    *g += w * dz;
                }
            }
        }
        for (g, &a) in g_h.iter_mut().zip(&h) {
            *g *= a * (1.0 - a);
        }
        let w1 = match (&self.first, head) {
            (Some(f), Head::FirstOff) => f,
            _ => &self.shared,
        };
        std::array::from_fn(|i| dot(&w1[i * hidden..][..hidden], &g_h))
    }
}

/// `h[j] += w[i][j] * x[i]` for every non-zero input `i` in order (`w` transposed,
/// `h` from 0).
#[inline(always)]
fn accumulate(w: &[f32], x: &[f32; SIDE_INPUTS], h: &mut [f32]) {
    let n = h.len();
    for (i, &xi) in x.iter().enumerate() {
        if xi != 0.0 {
            for (hj, &wij) in h.iter_mut().zip(&w[i * n..(i + 1) * n]) {
                *hj += wij * xi;
            }
        }
    }
}

/// [`accumulate`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn accumulate_avx2(w: &[f32], x: &[f32; SIDE_INPUTS], h: &mut [f32]) {
    accumulate(w, x, h)
}

/// The bias, then the sigmoid, as [`SideNet::hidden_layer`] does.
fn finish_hidden(h: &mut [f32], b: &[f32]) {
    for (hj, &bj) in h.iter_mut().zip(b) {
        *hj = 1.0 / (1.0 + (-(bj + *hj)).exp());
    }
}

#[inline(always)]
fn logits(w: &[f32], b: &[f32], h: &[f32]) -> [f32; RACE_ROLLS] {
    let n = h.len();
    let mut out = [0f32; RACE_ROLLS];
    for (o, (row, &bo)) in out.iter_mut().zip(w.chunks_exact(n).zip(b)) {
        *o = bo + dot(row, h);
    }
    out
}

/// [`logits`] with AVX2 intrinsics: each row's 8 lanes in one register, the
/// lanes added in [`dot`]'s order (`hadd` pairs lanes 0+4 with 1+5 and 2+6 with
/// 3+7, as it does), and four rows at a time so that their chains of additions
/// overlap (one row's 16 dependent additions alone wait on each other).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn logits_avx2(w: &[f32], b: &[f32], h: &[f32]) -> [f32; RACE_ROLLS] {
    use std::arch::x86_64::*;
    let n = h.len();
    let chunks = n / 8;
    let mut out = [0f32; RACE_ROLLS];
    // The 8 lanes of a row, summed as `dot` sums them, plus the remainder.
    let finish = |acc: __m256, row: &[f32]| -> f32 {
        let v = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps::<1>(acc));
        let p = _mm_hadd_ps(v, v);
        let mut s = _mm_cvtss_f32(p) + _mm_cvtss_f32(_mm_shuffle_ps::<1>(p, p));
        for (x, y) in row[chunks * 8..].iter().zip(&h[chunks * 8..]) {
            s += x * y;
        }
        s
    };
    let row = |i: usize| &w[i * n..(i + 1) * n];
    let mut r = 0;
    while r + 4 <= RACE_ROLLS {
        let mut acc = [_mm256_setzero_ps(); 4];
        for c in 0..chunks {
            // SAFETY: c * 8 + 8 <= chunks * 8 <= n, the length of `h` and of each row.
            let hv = _mm256_loadu_ps(h.as_ptr().add(c * 8));
            for (k, a) in acc.iter_mut().enumerate() {
                let wv = _mm256_loadu_ps(row(r + k).as_ptr().add(c * 8));
                *a = _mm256_add_ps(*a, _mm256_mul_ps(wv, hv));
            }
        }
        for (k, a) in acc.iter().enumerate() {
            out[r + k] = b[r + k] + finish(*a, row(r + k));
        }
        r += 4;
    }
    while r < RACE_ROLLS {
        let mut a = _mm256_setzero_ps();
        for c in 0..chunks {
            // SAFETY: as above.
            let hv = _mm256_loadu_ps(h.as_ptr().add(c * 8));
            let wv = _mm256_loadu_ps(row(r).as_ptr().add(c * 8));
            a = _mm256_add_ps(a, _mm256_mul_ps(wv, hv));
        }
        out[r] = b[r] + finish(a, row(r));
        r += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::race::side_net::side_inputs;
    use crate::rng::Rng;

    /// The gradient against central differences of the built-in net's expected
    /// rolls, input by input, at a far saver (6-5's `unoAAMBubhgEAA` after 18/12
    /// 13/8) and at a side nearly home: within 2% of the largest component.
    #[test]
    fn mean_gradient_matches_finite_differences() {
        let net = crate::eval::default_nets::side_net().unwrap();
        let kernel = SideKernel::new(net);
        let mean = |head: Head, x: &[f32; SIDE_INPUTS]| -> f64 {
            let h = kernel.hidden_layer(head, x);
            expected_rolls(&crate::eval::race::side_net::softmax(
                &kernel.logits(head, &h),
            ))
        };
        let mut far = [0u8; 24];
        for (p, n) in [(6, 5), (8, 2), (12, 3), (13, 3), (14, 1), (24, 1)] {
            far[p - 1] = n;
        }
        let mut near = [0u8; 24];
        for (p, n) in [(1, 3), (3, 4), (5, 4), (6, 2), (8, 2)] {
            near[p - 1] = n;
        }
        for side in [far, near] {
            let x = side_inputs(&side);
            for head in [Head::FirstOff, Head::AllOff] {
                let g = kernel.mean_gradient(head, &x);
                let scale = g.iter().fold(0f32, |a, &v| a.max(v.abs()));
                assert!(scale > 0.0);
                for i in 0..SIDE_INPUTS {
                    let h = 1e-2;
                    let (mut up, mut down) = (x, x);
                    up[i] += h;
                    down[i] -= h;
                    let fd = (mean(head, &up) - mean(head, &down)) / (2.0 * f64::from(h));
                    assert!(
                        (fd - f64::from(g[i])).abs() < 0.02 * f64::from(scale),
                        "input {i}: {fd} {}",
                        g[i]
                    );
                }
            }
        }
    }

    /// Random sides through a random split net and a random shared one (an odd
    /// hidden size, so the dots have remainders): the same bits as [`SideNet`]'s
    /// own evaluation, both heads.
    #[test]
    fn the_same_bits_as_the_net() {
        let mut rng = Rng::new(7);
        for (hidden, split) in [(37, false), (128, true), (20, true)] {
            let mut net = SideNet::random(hidden, 11);
            if split {
                net = net.split();
                // Make the split layer differ from the shared one.
                if let Some(f) = &mut net.first_hidden {
                    for w in f.w.iter_mut() {
                        *w = -*w * 0.5;
                    }
                }
            }
            let kernel = SideKernel::new(&net);
            for _ in 0..200 {
                let mut side = [0u8; 24];
                let mut left = 1 + rng.below(15) as u8;
                while left > 0 {
                    let p = rng.below(24) as usize;
                    let n = 1 + rng.below(u32::from(left)) as u8;
                    side[p] += n;
                    left -= n;
                }
                let x = side_inputs(&side);
                for head in [Head::AllOff, Head::FirstOff] {
                    let want_h = net.hidden_layer(head, &x);
                    let got_h = kernel.hidden_layer(head, &x);
                    assert_eq!(
                        want_h.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        got_h.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        "{side:?} {head:?}"
                    );
                    let (a, b) = (net.logits(head, &want_h), kernel.logits(head, &got_h));
                    assert_eq!(
                        a.map(f32::to_bits),
                        b.map(f32::to_bits),
                        "{side:?} {head:?}"
                    );
                }
            }
        }
    }
}
