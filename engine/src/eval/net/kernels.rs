//! The arithmetic of one evaluation, written once and compiled twice: for the
//! baseline target (SSE2 on x86-64, NEON on aarch64) and, behind runtime detection,
//! for AVX2 (8-wide `f32`).
//!
//! Every loop works on chunks of 8 hidden units with plain multiplies and adds (no
//! fused multiply-add, no reassociation): each hidden unit sees the same IEEE
//! operations in the same order at every SIMD width, so the AVX2 and baseline paths
//! give bit-identical results (tested), and a worker's SIMD level cannot change a
//! rollout. The level is still recorded in the engine fingerprint. A deeper net's
//! second hidden layer is the exception to the floats: it runs in 16-bit integers
//! ([`super::quantized`]), whose sums are exact, so the levels agree there too.
//!
//! The hidden layer's sigmoid uses [`exp_approx`], a branch-free Cody-Waite + degree-6
//! polynomial `exp` that vectorizes (the libm `expf` call does not): 1.46M instead of
//! 1.02M evaluations/s of the 198-128-5 contact net (CPU-time medians on this machine
//! type). Its sigmoid's relative error is at most 1.5e-7 over the pre-activations the
//! default contact net produces on the oracle positions and their candidates
//! (-30.5..10.3; libm's own `f32` sigmoid: 1.3e-7) and below 3e-7 over the whole
//! clamped range (tested against `f64`). The five output sigmoids keep `f32::exp`.
//!
//! AVX2 takes one small `unsafe` call per kernel (a `#[target_feature]` function
//! behind `is_x86_feature_detected!`): 1.42M against 0.83M evaluations/s for the
//! SSE2 baseline.

use super::quantized::{self, QuantizedLayer};
use super::OUTPUTS;

/// The widest instruction set the evaluation kernels use on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdLevel {
    /// AVX2 (x86-64, detected at run time): 8 lanes.
    Avx2,
    /// x86-64 baseline: 4 lanes.
    Sse2,
    /// aarch64 baseline: 4 lanes.
    Neon,
    /// Whatever the compiler makes of the portable loops elsewhere.
    Scalar,
}

impl SimdLevel {
    /// The level [`super::Net::forward`] uses on this machine.
    #[inline]
    pub fn detect() -> SimdLevel {
        #[cfg(target_arch = "x86_64")]
        {
            // std caches the CPUID answer: one relaxed atomic load per call.
            if std::arch::is_x86_feature_detected!("avx2") {
                return SimdLevel::Avx2;
            }
            SimdLevel::Sse2
        }
        #[cfg(target_arch = "aarch64")]
        {
            SimdLevel::Neon
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            SimdLevel::Scalar
        }
    }

    /// The build's portable level (what runs without runtime-detected features).
    pub fn baseline() -> SimdLevel {
        if cfg!(target_arch = "x86_64") {
            SimdLevel::Sse2
        } else if cfg!(target_arch = "aarch64") {
            SimdLevel::Neon
        } else {
            SimdLevel::Scalar
        }
    }

    /// Lower-case name, as in the engine fingerprint.
    pub fn as_str(self) -> &'static str {
        match self {
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Sse2 => "sse2",
            SimdLevel::Neon => "neon",
            SimdLevel::Scalar => "scalar",
        }
    }
}

impl std::fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lanes of every kernel loop; hidden widths are multiples of it.
pub const LANES: usize = 8;

/// Sigmoid inputs are clamped to +-`CLAMP` so that `exp_approx` stays in the normal
/// range (`e^87` = 6.1e37 < `f32::MAX`, `e^-87` = 1.6e-38 > `f32::MIN_POSITIVE`).
/// Beyond it the f32 sigmoid is already 1.0 on the right and below 1.7e-38 on the
/// left; the default contact net's hidden pre-activations stay within -31..11.
pub const CLAMP: f32 = 87.0;

/// `e^x` for `x` in `[-CLAMP, CLAMP]`, max relative error 1.5e-7 (about 2 ulp; tested):
/// `x = n ln2 + r` with `|r| <= ln2/2` (Cody-Waite, two-part ln2), Cephes' degree-6
/// polynomial for `e^r`, and `2^n` built in the exponent bits. No branches, no
/// float-to-int conversions, so loops over it vectorize.
#[inline(always)]
pub fn exp_approx(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // 1.5 * 2^23: adding it rounds to an integer held in the low mantissa bits.
    const MAGIC: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4; // 0.693359375, 9 significant bits: n * LN2_HI is exact
    const LN2_LO: f32 = -2.121_944_4e-4;
    let t = x * LOG2E + MAGIC;
    let n = t - MAGIC;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 0.5;
    let e = p * (r * r) + r + 1.0;
    // t's bits are MAGIC's plus n (n in -126..=126 here), so 2^n's exponent field is
    // n + 127: integer ops only.
    let scale = f32::from_bits(t.to_bits().wrapping_sub(MAGIC.to_bits()).wrapping_add(127) << 23);
    e * scale
}

/// The hidden layer's sigmoid: `1 / (1 + e^-x)` with [`exp_approx`] on the clamped
/// input.
#[inline(always)]
pub fn sigmoid_approx(x: f32) -> f32 {
    let x = x.clamp(-CLAMP, CLAMP);
    1.0 / (1.0 + exp_approx(-x))
}

/// The output layer's sigmoid (libm `exp`: five calls per evaluation).
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The weights one evaluation reads, borrowed from a [`super::Net`].
#[derive(Clone, Copy)]
pub(crate) struct Weights<'a> {
    /// The first layer: one row per input, as wide as the pre-activations given.
    pub w1: &'a [f32],
    /// The second hidden layer in 16-bit integers ([`QuantizedLayer`]) and its
    /// units' biases; both empty in a net with one hidden layer.
    pub wq: &'a QuantizedLayer,
    pub bm: &'a [f32],
    /// The output layer: five rows, one weight per unit of the last hidden layer.
    pub w2: &'a [f32],
    pub b2: &'a [f32; OUTPUTS],
}

/// `pre += v * row(i)` for each `(i, v)`, rows of `w1` input-major. `v` is 1.0 for
/// most inputs: `1.0 * w` is exact, so this matches a plain add bit for bit.
///
/// Blocked: `BLOCK` hidden units at a time stay in registers while every input row
/// adds its slice, so the accumulators are loaded and stored once per block instead
/// of once per row (the row-by-row loop it replaced spent most of its time on those
/// loads and stores). Each unit still sums its inputs in input order, so the block
/// size does not change a bit of the result: 64 units (8 registers) with AVX2, 32 on
/// the baseline (8 of the 16 SSE registers; 64 would spill).
#[inline(always)]
fn accumulate<const BLOCK: usize>(w: Weights<'_>, pre: &mut [f32], idx: &[u16], val: &[f32]) {
    let rows = idx.iter().zip(val).map(|(&i, &v)| (usize::from(i), v));
    accumulate_rows::<BLOCK>(w.w1, pre, rows);
}

/// `pre += v * row(i)` for each `(i, v)` of `rows`, row `i` being the `i`-th run of
/// `pre.len()` weights in `w`, `BLOCK` units at a time in registers: the loop of
/// [`accumulate`] (sparse inputs).
#[inline(always)]
fn accumulate_rows<const BLOCK: usize>(
    w: &[f32],
    pre: &mut [f32],
    rows: impl Iterator<Item = (usize, f32)> + Clone,
) {
    let stride = pre.len();
    let mut blocks = pre.chunks_exact_mut(BLOCK);
    let mut off = 0;
    for block in &mut blocks {
        accumulate_block::<BLOCK>(w, stride, off, rows.clone(), block);
        off += BLOCK;
    }
    for block in blocks.into_remainder().chunks_exact_mut(LANES) {
        accumulate_block::<LANES>(w, stride, off, rows.clone(), block);
        off += LANES;
    }
}

/// Hidden units per register block of [`accumulate`] on the baseline and with AVX2.
const BLOCK_BASELINE: usize = 32;
#[cfg(target_arch = "x86_64")]
const BLOCK_AVX2: usize = 64;

#[inline(always)]
fn accumulate_block<const B: usize>(
    w: &[f32],
    stride: usize,
    off: usize,
    rows: impl Iterator<Item = (usize, f32)>,
    pre: &mut [f32],
) {
    let mut acc = [0f32; B];
    acc.copy_from_slice(pre);
    for (i, v) in rows {
        let start = i * stride + off;
        let row = &w[start..start + B];
        for k in 0..B {
            acc[k] += v * row[k];
        }
    }
    pre.copy_from_slice(&acc);
}

/// Folds 8 partial sums as a fixed tree (the one an 8-wide register reduction
/// uses), so every SIMD width agrees.
#[inline(always)]
fn fold(a: &[f32; LANES]) -> f32 {
    ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
}

/// Pre-activations in `hidden` (already accumulated) -> activations in place ->
/// (with a second hidden layer, its activations in `mid`) -> the five outputs: one
/// pass for the sigmoid, one for the five sums (each chunk of 8 activations feeds 8
/// partial sums per output, folded by [`fold`]).
#[inline(always)]
fn finish<const AVX2: bool>(w: Weights<'_>, hidden: &mut [f32], mid: &mut [f32]) -> [f32; OUTPUTS] {
    for c in hidden.chunks_exact_mut(LANES) {
        for x in c {
            *x = sigmoid_approx(*x);
        }
    }
    if w.bm.is_empty() {
        return output_layer(w, hidden);
    }
    second_layer::<AVX2>(w, hidden, mid);
    output_layer(w, mid)
}

/// `mid = sigmoid(bm + sum over units i of hidden[i] x row(i))` in 16-bit
/// integers ([`super::quantized`]): the activations rounded to 13 fraction bits and
/// packed in pairs, each unit's sum exact in an `i32`, so the AVX2 build
/// (`vpmaddwd`) and the portable one give the same bits. Up to 0.18.0 this layer
/// was a float loop of 8,192 multiplies and adds over 32 KB of weights, which did
/// not stay in L1 beside the rest; in integers a 2-ply rollout takes 7.5% less CPU.
#[inline(always)]
fn second_layer<const AVX2: bool>(w: Weights<'_>, hidden: &[f32], mid: &mut [f32]) {
    let pairs = hidden.len() / 2;
    let mut stack = [0i32; 256];
    let mut heap = Vec::new();
    let packed: &mut [i32] = if pairs <= stack.len() {
        &mut stack[..pairs]
    } else {
        heap.resize(pairs, 0);
        &mut heap
    };
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is true only in the kernels compiled for AVX2, which run
        // only where it was detected; `packed` is half as long as `hidden`.
        unsafe {
            quantized::pack_activations_avx2(hidden, packed);
            quantized::second_layer_avx2(w.wq, w.bm, packed, mid);
        }
    } else {
        quantized::pack_activations(hidden, packed);
        quantized::second_layer_generic(w.wq, w.bm, packed, mid);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        quantized::pack_activations(hidden, packed);
        quantized::second_layer_generic(w.wq, w.bm, packed, mid);
    }
    for c in mid.chunks_exact_mut(LANES) {
        for x in c {
            *x = sigmoid_approx(*x);
        }
    }
}

/// The five outputs from the last hidden layer's activations `top`.
#[inline(always)]
fn output_layer(w: Weights<'_>, top: &[f32]) -> [f32; OUTPUTS] {
    let h = top.len();
    let (r0, rest) = w.w2.split_at(h);
    let (r1, rest) = rest.split_at(h);
    let (r2, rest) = rest.split_at(h);
    let (r3, r4) = rest.split_at(h);
    let mut acc = [[0f32; LANES]; OUTPUTS];
    let rows = r0
        .chunks_exact(LANES)
        .zip(r1.chunks_exact(LANES))
        .zip(r2.chunks_exact(LANES))
        .zip(r3.chunks_exact(LANES))
        .zip(r4.chunks_exact(LANES));
    for (x, ((((w0, w1), w2), w3), w4)) in top.chunks_exact(LANES).zip(rows) {
        for k in 0..LANES {
            let a = x[k];
            acc[0][k] += w0[k] * a;
            acc[1][k] += w1[k] * a;
            acc[2][k] += w2[k] * a;
            acc[3][k] += w3[k] * a;
            acc[4][k] += w4[k] * a;
        }
    }
    outputs(&acc, w.b2)
}

/// The output sigmoids of the five folded sums. Not inlined on purpose: inlined, the
/// fold let LLVM's SLP vectorizer turn the sum loop above into 4-wide shuffles, at a
/// third of the 8-wide speed; this way the loop ends in plain 8-wide stores.
#[inline(never)]
fn outputs(acc: &[[f32; LANES]; OUTPUTS], b2: &[f32; OUTPUTS]) -> [f32; OUTPUTS] {
    let mut out = *b2;
    for (o, a) in out.iter_mut().zip(acc) {
        *o = sigmoid(*o + fold(a));
    }
    out
}

/// `hidden = start + sum of v * row(i)`, then sigmoid and the output layer.
#[inline(always)]
fn run_generic<const BLOCK: usize, const AVX2: bool>(
    w: Weights<'_>,
    start: &[f32],
    idx: &[u16],
    val: &[f32],
    hidden: &mut [f32],
    mid: &mut [f32],
) -> [f32; OUTPUTS] {
    hidden.copy_from_slice(start);
    accumulate::<BLOCK>(w, hidden, idx, val);
    finish::<AVX2>(w, hidden, mid)
}

#[inline(always)]
fn pre_generic<const BLOCK: usize>(
    w: Weights<'_>,
    start: &[f32],
    idx: &[u16],
    val: &[f32],
    pre: &mut [f32],
) {
    pre.copy_from_slice(start);
    accumulate::<BLOCK>(w, pre, idx, val);
}

/// [`run_generic`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (checked by [`SimdLevel::detect`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2(
    w: Weights<'_>,
    start: &[f32],
    idx: &[u16],
    val: &[f32],
    hidden: &mut [f32],
    mid: &mut [f32],
) -> [f32; OUTPUTS] {
    run_generic::<BLOCK_AVX2, true>(w, start, idx, val, hidden, mid)
}

/// [`pre_generic`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (checked by [`SimdLevel::detect`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pre_avx2(w: Weights<'_>, start: &[f32], idx: &[u16], val: &[f32], pre: &mut [f32]) {
    pre_generic::<BLOCK_AVX2>(w, start, idx, val, pre)
}

/// `hidden = start + sum of val[j] * row(idx[j])`, hidden sigmoid, (the second
/// hidden layer into `mid`,) outputs. All slices must have the net's sizes (`start`
/// and `hidden`: `w.hidden`, `mid`: `w.bm.len()`, indices < inputs).
#[inline]
pub(crate) fn run(
    level: SimdLevel,
    w: Weights<'_>,
    start: &[f32],
    idx: &[u16],
    val: &[f32],
    hidden: &mut [f32],
    mid: &mut [f32],
) -> [f32; OUTPUTS] {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above); the function is otherwise
        // safe code.
        return unsafe { run_avx2(w, start, idx, val, hidden, mid) };
    }
    let _ = level;
    run_generic::<BLOCK_BASELINE, false>(w, start, idx, val, hidden, mid)
}

/// `pre = start + sum of val[j] * row(idx[j])`: pre-activations only.
#[inline]
pub(crate) fn pre_activations(
    level: SimdLevel,
    w: Weights<'_>,
    start: &[f32],
    idx: &[u16],
    val: &[f32],
    pre: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above); the function is otherwise
        // safe code.
        return unsafe { pre_avx2(w, start, idx, val, pre) };
    }
    let _ = level;
    pre_generic::<BLOCK_BASELINE>(w, start, idx, val, pre)
}

/// `out[r] = row(r) . v` for each `r` in `rows`, where row `r` is the `r`-th run of
/// `v.len()` weights in `w` (a multiple of 8): each dot product as 8 partial sums
/// (lane `l` takes the products `8k + l` in order) folded by [`fold`], so the 8-lane
/// AVX2 and 2 x 4-lane baseline builds give the same bits. For
/// [`super::Net::input_gradient`].
#[inline]
pub(crate) fn row_dots(level: SimdLevel, w: &[f32], rows: &[u16], v: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above); the function is otherwise
        // safe code.
        return unsafe { row_dots_avx2(w, rows, v, out) };
    }
    let _ = level;
    row_dots_generic(w, rows, v, out)
}

/// [`row_dots_generic`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (checked by [`SimdLevel::detect`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_dots_avx2(w: &[f32], rows: &[u16], v: &[f32], out: &mut [f32]) {
    row_dots_generic(w, rows, v, out)
}

#[inline(always)]
fn row_dots_generic(w: &[f32], rows: &[u16], v: &[f32], out: &mut [f32]) {
    let n = v.len();
    for &r in rows {
        let r = usize::from(r);
        let row = &w[r * n..(r + 1) * n];
        let mut acc = [0f32; 8];
        for (x, y) in row.chunks_exact(8).zip(v.chunks_exact(8)) {
            for l in 0..8 {
                acc[l] += x[l] * y[l];
            }
        }
        out[r] = fold(&acc);
    }
}

/// Hidden pre-activations in `hidden` -> activations in place (and the second hidden
/// layer's in `mid`) -> the five outputs ([`finish`], as every evaluation ends).
#[inline]
pub(crate) fn outputs_from_pre(
    level: SimdLevel,
    w: Weights<'_>,
    hidden: &mut [f32],
    mid: &mut [f32],
) -> [f32; OUTPUTS] {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above); the function is otherwise
        // safe code.
        return unsafe { finish_avx2(w, hidden, mid) };
    }
    let _ = level;
    finish::<false>(w, hidden, mid)
}

/// [`finish`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (checked by [`SimdLevel::detect`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn finish_avx2(w: Weights<'_>, hidden: &mut [f32], mid: &mut [f32]) -> [f32; OUTPUTS] {
    finish::<true>(w, hidden, mid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sigmoid64(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// Max relative error of `f` against `exact` over `n + 1` evenly spaced points.
    fn max_rel(
        lo: f32,
        hi: f32,
        n: u32,
        f: impl Fn(f32) -> f32,
        exact: impl Fn(f64) -> f64,
    ) -> f64 {
        (0..=n)
            .map(|k| {
                let x = lo + (hi - lo) * k as f32 / n as f32;
                let e = exact(f64::from(x));
                ((f64::from(f(x)) - e) / e).abs()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn exp_approx_is_within_two_ulp() {
        let err = max_rel(-CLAMP, CLAMP, 2_000_000, exp_approx, f64::exp);
        assert!(err < 1.5e-7, "exp_approx max relative error {err:e}");
    }

    #[test]
    fn hidden_sigmoid_relative_error_is_below_1e_6() {
        let fast = max_rel(-CLAMP, CLAMP, 2_000_000, sigmoid_approx, sigmoid64);
        let libm = max_rel(-CLAMP, CLAMP, 2_000_000, sigmoid, sigmoid64);
        assert!(
            fast < 3e-7,
            "approx sigmoid max relative error {fast:e} (libm {libm:e})"
        );
        assert_eq!(sigmoid_approx(200.0), 1.0);
        assert!(sigmoid_approx(-200.0) < 2e-38);
    }

    #[test]
    fn levels_have_names() {
        assert_eq!(SimdLevel::Avx2.to_string(), "avx2");
        let d = SimdLevel::detect();
        assert!(d == SimdLevel::baseline() || d == SimdLevel::Avx2);
    }
}
