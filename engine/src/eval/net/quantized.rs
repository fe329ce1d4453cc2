//! The second hidden layer in 16-bit integers.
//!
//! Why: in a searched rollout the second layer is the largest part of the nets'
//! kernel (a 128-64 layer is 8,192 multiply-adds an evaluation, where the
//! incremental first layer adds a handful of 128-wide rows), and in 32-bit floats its
//! 32 KB of weights do not stay in the core's 32 KB L1 cache beside everything
//! else. As `i16` the weights take 16 KB, and AVX2's `vpmaddwd` multiplies 16 pairs
//! and adds them pairwise in one instruction: twice the work per instruction and
//! per byte loaded.
//!
//! The arithmetic is exact: activations become `round(h * 2^ACT_BITS)`, weights
//! `round(w * 2^bits)`, and every sum is an `i32` that cannot overflow (`bits` is
//! chosen per unit from its weights so that no partial sum can leave an `i32`). Integer sums do not depend on their order, so the AVX2 and
//! baseline builds give the same bits, as the float kernels do by keeping one order.
//! The rounding moves an output of the built-in deeper nets by 2.8e-5 on average
//! and at most 3.3e-4 (5,000 random positions, tested in `net::tests`), and the
//! equity of the dev set's 65,225 contact candidates by 1.8e-4 on average and at
//! most 0.0012: a fortieth of the nets' own error against their 2-ply search.

/// Fraction bits of the quantized activations (sigmoids in 0..=1: 0..=8192).
pub const ACT_BITS: u32 = 13;

/// A second hidden layer's weights as `i16`, row pairs interleaved for
/// `vpmaddwd`: entry `(p * mid + k) * 2 + j` is the weight from first-layer unit
/// `2p + j` to second-layer unit `k`. Each unit `k` has its own fraction bits.
#[derive(Clone, Debug, Default)]
pub struct QuantizedLayer {
    weights: Vec<i16>,
    /// Per unit: multiply its integer sum by this to get the float sum,
    /// `2^-(ACT_BITS + bits_k)`.
    scales: Vec<f32>,
    mid: usize,
}

/// The most fraction bits a unit's weights `col` can have: each weight must fit an
/// `i16`, and every partial sum of `h_i w_i` an `i32`. With activations in 0..=1
/// a partial sum lies between minus the sum of the negative weights and the sum of
/// the positive ones, so the larger of the two bounds them all, in any order.
///
/// Weights too large for any (no trained net has them; a file's weights are
/// finite, `format`) get negative bits, a coarser grid, rather than sums that
/// overflow.
fn unit_bits(col: &[f32]) -> i32 {
    let act_max = f64::from(1u32 << ACT_BITS);
    (MIN_WEIGHT_BITS..=MAX_WEIGHT_BITS)
        .rev()
        .find(|&bits| {
            let q: Vec<f64> = col
                .iter()
                .map(|&w| (f64::from(w) * f64::from(bits).exp2()).round_ties_even())
                .collect();
            let pos: f64 = q.iter().filter(|&&x| x > 0.0).sum();
            let neg: f64 = -q.iter().filter(|&&x| x < 0.0).sum::<f64>();
            q.iter().all(|x| x.abs() <= f64::from(i16::MAX))
                && pos.max(neg) * act_max <= f64::from(i32::MAX)
        })
        .unwrap_or(MIN_WEIGHT_BITS)
}

/// Most fraction bits a weight gets (the activations' rounding dominates the error
/// beyond this).
const MAX_WEIGHT_BITS: i32 = 15;

/// Fewest: a weight up to 2^55 and sums of them fit at this grid.
const MIN_WEIGHT_BITS: i32 = -40;

impl QuantizedLayer {
    /// `wm` (first-layer-unit-major, `hidden` rows of `mid` weights) quantized, each
    /// unit with the most fraction bits [`unit_bits`] allows (12 or 13 for the
    /// built-in nets). Empty for an empty layer.
    pub fn new(wm: &[f32], hidden: usize, mid: usize) -> QuantizedLayer {
        if mid == 0 {
            return QuantizedLayer::default();
        }
        debug_assert_eq!(wm.len(), hidden * mid);
        debug_assert!(hidden.is_multiple_of(2));
        let bits: Vec<i32> = (0..mid)
            .map(|k| unit_bits(&(0..hidden).map(|i| wm[i * mid + k]).collect::<Vec<_>>()))
            .collect();
        let mut weights = vec![0i16; hidden * mid];
        for p in 0..hidden / 2 {
            for (k, &b) in bits.iter().enumerate() {
                for j in 0..2 {
                    let w = f64::from(wm[(2 * p + j) * mid + k]) * f64::from(b).exp2();
                    // In range by `unit_bits`.
                    weights[(p * mid + k) * 2 + j] = w.round_ties_even() as i16;
                }
            }
        }
        let scales = bits
            .iter()
            .map(|&b| (-(f64::from(ACT_BITS) + f64::from(b))).exp2() as f32)
            .collect();
        QuantizedLayer {
            weights,
            scales,
            mid,
        }
    }

    /// Fraction bits of each unit's weights (for the tests: the kernels read only
    /// the scales).
    #[cfg(test)]
    fn weight_bits(&self) -> Vec<i32> {
        self.scales
            .iter()
            .map(|&s| (-f64::from(s).log2()).round() as i32 - ACT_BITS as i32)
            .collect()
    }
}

/// `round(h * 2^ACT_BITS)` for each activation (0..=1, so 0..=8192), as pairs
/// packed for `vpmaddwd`: entry `p` holds unit `2p` in its low half and `2p + 1`
/// in its high.
#[inline(always)]
pub(crate) fn pack_activations(hidden: &[f32], packed: &mut [i32]) {
    let s = (1u32 << ACT_BITS) as f32;
    for (out, pair) in packed.iter_mut().zip(hidden.chunks_exact(2)) {
        let lo = (pair[0] * s).round_ties_even() as i32;
        let hi = (pair[1] * s).round_ties_even() as i32;
        *out = (lo & 0xFFFF) | (hi << 16);
    }
}

/// `mid[k] = bm[k] + scale * sum_i hq[i] * wq[i][k]` (pre-activations), the
/// portable build: each unit's sum as `i32`, exact, so any order gives the AVX2
/// build's bits.
#[inline(always)]
pub(crate) fn second_layer_generic(
    q: &QuantizedLayer,
    bm: &[f32],
    packed: &[i32],
    mid: &mut [f32],
) {
    let m = q.mid;
    let mut acc = [0i32; 64];
    for block in (0..m).step_by(64) {
        let width = (m - block).min(64);
        acc[..width].fill(0);
        for (p, &h) in packed.iter().enumerate() {
            let (h0, h1) = (i32::from(h as i16), h >> 16);
            let row = &q.weights[(p * m + block) * 2..(p * m + block + width) * 2];
            for (a, w) in acc[..width].iter_mut().zip(row.chunks_exact(2)) {
                *a += i32::from(w[0]) * h0 + i32::from(w[1]) * h1;
            }
        }
        for k in 0..width {
            mid[block + k] = bm[block + k] + acc[k] as f32 * q.scales[block + k];
        }
    }
}

/// [`second_layer_generic`] with `vpmaddwd`: 8 second-layer units per register,
/// 64 at a time (8 accumulators), then 8 at a time for the rest.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn second_layer_avx2(
    q: &QuantizedLayer,
    bm: &[f32],
    packed: &[i32],
    mid: &mut [f32],
) {
    let m = q.mid;
    assert!(m.is_multiple_of(8) && q.weights.len() == packed.len() * 2 * m);
    assert!(bm.len() == m && mid.len() == m);
    let mut block = 0;
    while block + 64 <= m {
        // SAFETY: AVX2 (this function's contract); the block is in bounds (asserted).
        unsafe { block_avx2::<8>(q, bm, packed, mid, block) };
        block += 64;
    }
    while block < m {
        // SAFETY: as above.
        unsafe { block_avx2::<1>(q, bm, packed, mid, block) };
        block += 8;
    }
}

/// Second-layer units `block..block + 8 R` of [`second_layer_avx2`], `R` registers
/// of 8 sums each.
///
/// # Safety
/// AVX2; `block + 8 R <= q.mid`, `q.weights.len() == packed.len() * 2 * q.mid`,
/// `bm` and `mid` `q.mid` long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block_avx2<const R: usize>(
    q: &QuantizedLayer,
    bm: &[f32],
    packed: &[i32],
    mid: &mut [f32],
    block: usize,
) {
    use std::arch::x86_64::*;
    let m = q.mid;
    let base = q.weights.as_ptr();
    let mut acc = [_mm256_setzero_si256(); R];
    for (p, &h) in packed.iter().enumerate() {
        let hv = _mm256_set1_epi32(h);
        for (r, a) in acc.iter_mut().enumerate() {
            // SAFETY: entry (p * m + block + 8 r) * 2 + 15 < weights.len() by the
            // contract.
            let w = unsafe { _mm256_loadu_si256(base.add((p * m + block + 8 * r) * 2).cast()) };
            *a = _mm256_add_epi32(*a, _mm256_madd_epi16(w, hv));
        }
    }
    for (r, a) in acc.iter().enumerate() {
        let k = block + 8 * r;
        // SAFETY: k + 8 <= m, the length of `bm`, `mid` and `scales`.
        unsafe {
            let scale = _mm256_loadu_ps(q.scales.as_ptr().add(k));
            let b = _mm256_loadu_ps(bm.as_ptr().add(k));
            let v = _mm256_add_ps(b, _mm256_mul_ps(_mm256_cvtepi32_ps(*a), scale));
            _mm256_storeu_ps(mid.as_mut_ptr().add(k), v);
        }
    }
}

/// [`pack_activations`] with AVX2, 16 activations at a time (the rest as the
/// portable build does it): `vcvtps2dq` rounds to nearest, ties to even, as
/// `round_ties_even` does, so both builds pack the same integers.
///
/// # Safety
/// The CPU must support AVX2; `packed` is `hidden.len() / 2` long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pack_activations_avx2(hidden: &[f32], packed: &mut [i32]) {
    use std::arch::x86_64::*;
    assert_eq!(packed.len() * 2, hidden.len());
    let s = _mm256_set1_ps((1u32 << ACT_BITS) as f32);
    let full = hidden.len() / 16;
    for c in 0..full {
        // SAFETY: 16 c + 16 <= hidden.len() and 8 c + 8 <= packed.len().
        unsafe {
            let a = _mm256_cvtps_epi32(_mm256_mul_ps(
                _mm256_loadu_ps(hidden.as_ptr().add(16 * c)),
                s,
            ));
            let b = _mm256_cvtps_epi32(_mm256_mul_ps(
                _mm256_loadu_ps(hidden.as_ptr().add(16 * c + 8)),
                s,
            ));
            // Each 64-bit lane (x0, x1) -> low 32 bits x0 | x1 << 16 (x0 < 2^16).
            let a = _mm256_or_si256(a, _mm256_srli_epi64::<16>(a));
            let b = _mm256_or_si256(b, _mm256_srli_epi64::<16>(b));
            // Even 32-bit lanes of a and b: pairs 0 1 4 5 | 2 3 6 7 ...
            let e = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
            ));
            // ... put in order.
            let e = _mm256_permute4x64_epi64::<0b11_01_10_00>(e);
            _mm256_storeu_si256(packed.as_mut_ptr().add(8 * c).cast(), e);
        }
    }
    pack_activations(&hidden[16 * full..], &mut packed[8 * full..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The AVX2 packing rounds as the portable one, ties to even included
    /// (activations exactly halfway between two steps), and 0 and 1 survive.
    #[test]
    fn both_packings_give_the_same_integers() {
        let mut rng = Rng::new(5);
        let mut hidden: Vec<f32> = (0..136).map(|_| rng.next_f64() as f32).collect();
        for (i, h) in hidden.iter_mut().take(40).enumerate() {
            // k + 0.5 steps: rounds to the even neighbour.
            *h = (2 * i + 1) as f32 / (2u32 << ACT_BITS) as f32;
        }
        hidden[41] = 0.0;
        hidden[42] = 1.0;
        let mut a = vec![0i32; hidden.len() / 2];
        pack_activations(&hidden, &mut a);
        assert_eq!(a[0] & 0xFFFF, 0, "0.5 step rounds to 0");
        assert_eq!(a[0] >> 16, 2, "1.5 steps round to 2");
        assert_eq!(a[20] >> 16, 0);
        assert_eq!(a[21] & 0xFFFF, 1 << ACT_BITS);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut b = vec![0i32; hidden.len() / 2];
            // SAFETY: AVX2 detected; `b` is half as long as `hidden`.
            unsafe { pack_activations_avx2(&hidden, &mut b) };
            assert_eq!(a, b);
        }
    }

    /// A unit with large weights of one sign gets fewer fraction bits, and its
    /// largest sum (every activation 1) comes out exact, without overflow, in both
    /// builds; a unit of small weights gets the most bits.
    #[test]
    fn large_weights_lose_bits_and_never_overflow() {
        let (hidden, mid) = (128, 16);
        let mut wm = vec![0.001f32; hidden * mid];
        for i in 0..hidden {
            wm[i * mid] = 7.5; // unit 0: sum 960 at full activation
            wm[i * mid + 1] = -7.5;
        }
        let q = QuantizedLayer::new(&wm, hidden, mid);
        let bits = q.weight_bits();
        // 960 * 2^13 * 2^b <= 2^31 - 1: b <= 8.
        assert_eq!(bits[0], 8);
        assert_eq!(bits[1], 8);
        assert_eq!(bits[2], MAX_WEIGHT_BITS);
        let packed = vec![(1 << ACT_BITS) | ((1 << ACT_BITS) << 16); hidden / 2];
        let bm = vec![0.5f32; mid];
        let mut out = vec![0f32; mid];
        second_layer_generic(&q, &bm, &packed, &mut out);
        assert_eq!(out[0], 0.5 + 960.0);
        assert_eq!(out[1], 0.5 - 960.0);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut fast = vec![0f32; mid];
            // SAFETY: AVX2 detected; the shapes are the layer's.
            unsafe { second_layer_avx2(&q, &bm, &packed, &mut fast) };
            assert_eq!(bits_of(&out), bits_of(&fast));
        }
    }

    /// Weights far beyond any trained net's get a coarser grid (negative bits), not
    /// sums that overflow: the largest sum comes out within the grid's step.
    #[test]
    fn huge_weights_get_a_coarser_grid() {
        let (hidden, mid) = (128, 8);
        let mut wm = vec![0.0f32; hidden * mid];
        for i in 0..hidden {
            wm[i * mid] = 3.0e6;
        }
        let q = QuantizedLayer::new(&wm, hidden, mid);
        assert!(q.weight_bits()[0] < 0, "{:?}", q.weight_bits());
        let packed = vec![(1 << ACT_BITS) | ((1 << ACT_BITS) << 16); hidden / 2];
        let bm = vec![0f32; mid];
        let mut out = vec![0f32; mid];
        second_layer_generic(&q, &bm, &packed, &mut out);
        let want = 128.0 * 3.0e6;
        assert!(
            (out[0] - want).abs() / want < 1e-3,
            "{} against {want}",
            out[0]
        );
    }

    fn bits_of(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }
}
