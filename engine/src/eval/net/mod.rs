//! A small feed-forward network: [`encode::INPUTS`] inputs, one or two sigmoid hidden
//! layers, five sigmoid outputs in GNU Backgammon's cumulative convention.
//!
//! Why a second hidden layer (optional, `wm`/`bm` in the file): fitted to the same
//! 1-ply labels (2.1M contact positions, 30 epochs, equal optimizer), a 128-64 net
//! reached an equity RMSE of 0.0331 where a 128-unit one stopped at 0.0373, and a
//! 256-unit one had fitted no better than 128 before: depth, not width, was what the
//! one-layer nets lacked. It costs a dense 64 x 128 product per evaluation, which the
//! first layer's sparse, incremental update does not amortize.
//!
//! Layout for speed: the first layer is stored input-major (one row of `hidden`
//! weights per input), so a position costs one vector add per *non-zero* input
//! (about 30 of 198), and the rows are contiguous `f32` slices the compiler turns
//! into 8-wide SIMD adds. The hidden width is kept a multiple of 8.
//!
//! The arithmetic lives in [`kernels`]: 8-wide loops compiled for the baseline
//! target and for AVX2 (picked at run time, bit-identical results), and a vectorized
//! sigmoid for the hidden layer. Sibling positions (the candidates of one move) are
//! evaluated from a shared [`Base`]: only the inputs a move changed are added to the
//! parent's pre-activations (about 6 rows instead of 30).
//!
//! Weights live in safetensors files (`w1` [inputs x hidden], `b1` [hidden],
//! `w2` [5 x hidden], `b2` [5]) with metadata naming the input encoding, so a file
//! made for another encoding is refused rather than misread.

pub mod adam;
pub mod encode;
pub mod features;
pub mod kernels;
pub mod race_features;
pub mod structure;

use super::{Evaluator, Probs};
use crate::position::Position;
use encode::{encode_delta_within, encode_with, Reference, SparseInputs, INPUTS, RAW_INPUTS};
pub use kernels::SimdLevel;
use kernels::{Weights, LANES};
use std::collections::HashMap;

/// Outputs: win, win gammon, win backgammon, lose gammon, lose backgammon.
pub const OUTPUTS: usize = 5;

/// Name of the input encoding written into every weights file: the 198 raw inputs
/// plus the hand-crafted [`features`] (three blocks), the [`race_features`] in races.
pub const ENCODING: &str = "bgfarm-198f-v5";

/// The encoding before the features' third block ([`structure`], release 0.8.0),
/// still read: the same inputs up to the second block's end. Its nets load with zero
/// rows for the third block, so they compute exactly what they did.
pub const V4_ENCODING: &str = "bgfarm-198f-v4";

/// Inputs of a [`V4_ENCODING`] file.
const V4_INPUTS: usize = RAW_INPUTS + features::V4_FEATURES;

/// The encoding before the features' second block (release 0.6.0), still read: the
/// same inputs up to the first block's end. Its nets load with zero rows for the
/// second block, so they compute exactly what they did.
pub const V3_ENCODING: &str = "bgfarm-198f-v3";

/// Inputs of a [`V3_ENCODING`] or [`PREVIOUS_ENCODING`] file.
const V3_INPUTS: usize = RAW_INPUTS + features::BASE_FEATURES;

/// The encoding before the race features (release 0.5.0 and earlier), still read: the
/// same inputs except in races, where five slots per side were always 0. A race net
/// of that encoding has its rows there zeroed on load (they never received a
/// gradient, but a net trained from random weights kept random ones), so it computes
/// exactly what it did.
pub const PREVIOUS_ENCODING: &str = "bgfarm-198f-v2";

/// The first encoding (the raw 198 inputs only). Its files still load: the feature
/// rows of the first layer are zero, so such a net computes exactly what it did.
pub const LEGACY_ENCODING: &str = "bgfarm-198-v1";

/// Feature slots (of [`features::FEATURES`]) that hold race features in races and
/// were always 0 there before: all but `prime` (3 and 9).
const RACE_ONLY_SLOTS: [usize; 10] = [0, 1, 2, 4, 5, 6, 7, 8, 10, 11];

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetError(pub String);

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NetError {}

/// Network weights.
#[derive(Clone, Debug)]
pub struct Net {
    hidden: usize,
    /// `INPUTS` rows of `hidden` weights.
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// The second hidden layer, if any: `hidden` rows of its units' weights (`wm`,
    /// first-layer-unit-major like `w1`) and its units' biases (`bm`); both empty
    /// with one hidden layer.
    wm: Vec<f32>,
    bm: Vec<f32>,
    /// `OUTPUTS` rows, one weight per unit of the last hidden layer.
    w2: Vec<f32>,
    b2: [f32; OUTPUTS],
    /// Free-form metadata kept with the weights (kind, training history).
    pub metadata: HashMap<String, String>,
    /// Whether the features' third block is computed for this net: false for a net
    /// whose weights there are all zero (a file of an older encoding), which would
    /// add nothing but its cost. Training sets it ([`Net::read_every_input`]).
    third: bool,
}

/// Nets are equal when their weights and metadata are (whether the third block is
/// computed follows from the weights, or from training having started).
impl PartialEq for Net {
    fn eq(&self, other: &Net) -> bool {
        self.hidden == other.hidden
            && self.w1 == other.w1
            && self.b1 == other.b1
            && self.wm == other.wm
            && self.bm == other.bm
            && self.w2 == other.w2
            && self.b2 == other.b2
            && self.metadata == other.metadata
    }
}

/// Scratch space for one evaluation; reuse it across calls.
#[derive(Clone)]
pub struct Scratch {
    /// The inputs of the last [`Net::forward`] (what [`Net::train_step`] reads).
    pub inputs: SparseInputs,
    /// The hidden activations of the last evaluation.
    pub hidden: Vec<f32>,
    /// The second hidden layer's activations of the last evaluation (empty for a net
    /// with one hidden layer).
    pub mid: Vec<f32>,
    /// Input differences of the last [`Net::forward_from`].
    delta: SparseInputs,
}

impl Scratch {
    /// Scratch for a net of `hidden` units and `mid` second-layer units (0: none).
    pub fn new(hidden: usize, mid: usize) -> Scratch {
        Scratch {
            inputs: SparseInputs::default(),
            hidden: vec![0.0; hidden],
            mid: vec![0.0; mid],
            delta: SparseInputs::default(),
        }
    }

    /// The last hidden layer's activations: the output layer's inputs.
    pub fn top(&self) -> &[f32] {
        if self.mid.is_empty() {
            &self.hidden
        } else {
            &self.mid
        }
    }

    /// Whether this scratch is sized for `net`.
    pub fn fits(&self, net: &Net) -> bool {
        self.hidden.len() == net.hidden && self.mid.len() == net.bm.len()
    }
}

/// A reference position's first-layer pre-activations (bias plus weighted inputs,
/// before the sigmoid), from which [`Net::forward_from`] evaluates positions that
/// differ in a few points. Made by [`Net::set_base`] and only meaningful for the net
/// that made it, until that net's weights change.
#[derive(Clone, Debug)]
pub struct Base {
    reference: Reference,
    pre: Vec<f32>,
}

impl Base {
    /// An empty base for a net of `hidden` units (fill it with [`Net::set_base`]).
    pub fn new(hidden: usize) -> Base {
        Base {
            reference: Reference::new(&Position::STARTING),
            pre: vec![0.0; hidden],
        }
    }

    /// The reference position.
    pub fn position(&self) -> &Position {
        self.reference.position()
    }

    /// Its hidden pre-activations (for diagnostics: the range the hidden sigmoid
    /// sees).
    pub fn pre_activations(&self) -> &[f32] {
        &self.pre
    }
}

/// Beyond this many changed points [`Net::forward_from`] encodes from scratch: the
/// delta costs up to 8 rows per point (4 per side, both sides on a hit), a full
/// encoding about 30 rows.
const MAX_DELTA_POINTS: usize = 8;

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

    /// The layer widths, inputs to outputs: `234-128-5`, or `234-128-64-5` with a
    /// second hidden layer.
    pub fn shape(&self) -> String {
        match self.bm.len() {
            0 => format!("{INPUTS}-{}-{OUTPUTS}", self.hidden),
            m => format!("{INPUTS}-{}-{m}-{OUTPUTS}", self.hidden),
        }
    }

    /// Units in the second hidden layer (0: the net has one hidden layer).
    pub fn mid(&self) -> usize {
        self.bm.len()
    }

    /// Units in the last hidden layer, the output layer's inputs.
    pub fn top(&self) -> usize {
        if self.bm.is_empty() {
            self.hidden
        } else {
            self.bm.len()
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

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// A scratch buffer sized for this net.
    pub fn scratch(&self) -> Scratch {
        Scratch::new(self.hidden, self.bm.len())
    }

    #[inline]
    fn weights(&self) -> Weights<'_> {
        Weights {
            w1: &self.w1,
            wm: &self.wm,
            bm: &self.bm,
            w2: &self.w2,
            b2: &self.b2,
        }
    }

    /// Raw outputs for `pos` (player on roll), using `scratch`; leaves the inputs and
    /// hidden activations in `scratch` for [`Net::train_step`].
    #[inline]
    pub fn forward(&self, pos: &Position, scratch: &mut Scratch) -> [f32; OUTPUTS] {
        self.forward_with_level(SimdLevel::detect(), pos, scratch)
    }

    /// [`Net::forward`] on the kernels of `level` (falls back to the baseline when the
    /// CPU lacks it): for tests and benchmarks comparing the paths.
    pub fn forward_with_level(
        &self,
        level: SimdLevel,
        pos: &Position,
        scratch: &mut Scratch,
    ) -> [f32; OUTPUTS] {
        encode_with(pos, &mut scratch.inputs, self.third);
        let inputs = &scratch.inputs;
        kernels::run(
            level,
            self.weights(),
            &self.b1,
            &inputs.idx[..inputs.len],
            &inputs.val[..inputs.len],
            &mut scratch.hidden,
            &mut scratch.mid,
        )
    }

    /// Makes `base` the reference for [`Net::forward_from`]: `pos`'s pre-activations.
    pub fn set_base(&self, pos: &Position, base: &mut Base, scratch: &mut Scratch) {
        encode_with(pos, &mut scratch.delta, self.third);
        base.reference = Reference::from_inputs(pos, &scratch.delta, self.third);
        base.pre.resize(self.hidden, 0.0);
        let d = &scratch.delta;
        kernels::pre_activations(
            SimdLevel::detect(),
            self.weights(),
            &self.b1,
            &d.idx[..d.len],
            &d.val[..d.len],
            &mut base.pre,
        );
    }

    /// Raw outputs for `pos`, computed from `base` (made by [`Net::set_base`] of this
    /// net) by adding only the inputs that differ: for the candidates of one move,
    /// about 6 weight rows instead of 30. Equal to [`Net::forward`] up to float
    /// rounding (a few 1e-7). Leaves the hidden activations in `scratch` but not the
    /// inputs: train with [`Net::forward`].
    pub fn forward_from(
        &self,
        base: &Base,
        pos: &Position,
        scratch: &mut Scratch,
    ) -> [f32; OUTPUTS] {
        assert_eq!(base.pre.len(), self.hidden, "base made for another net");
        let changed =
            encode_delta_within(&base.reference, pos, &mut scratch.delta, MAX_DELTA_POINTS);
        if changed > MAX_DELTA_POINTS {
            return self.forward(pos, scratch);
        }
        let d = &scratch.delta;
        kernels::run(
            SimdLevel::detect(),
            self.weights(),
            &base.pre,
            &d.idx[..d.len],
            &d.val[..d.len],
            &mut scratch.hidden,
            &mut scratch.mid,
        )
    }

    /// A base buffer sized for this net.
    pub fn base(&self) -> Base {
        Base::new(self.hidden)
    }

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

    /// Serializes to safetensors bytes, with `metadata` and the encoding name.
    pub fn to_safetensors(&self) -> Result<Vec<u8>, NetError> {
        save_bundle(&[("", self)])
    }

    /// Loads weights from safetensors bytes, checking shapes, the encoding and that
    /// every weight is finite: a file holding one net, for `role`.
    pub fn from_safetensors(bytes: &[u8], role: Role) -> Result<Net, NetError> {
        load_net(bytes, "", role)
    }

    /// A 64-bit FNV-1a hash of the weights, part of the engine fingerprint.
    pub fn hash(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |x: f32| {
            for b in x.to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        // A net with one hidden layer has empty `wm` and `bm`: its hash is what it was
        // before nets could have two.
        self.w1
            .iter()
            .chain(&self.b1)
            .chain(&self.wm)
            .chain(&self.bm)
            .chain(&self.w2)
            .chain(&self.b2)
            .for_each(|&x| eat(x));
        h
    }
}

/// Writes several nets into one safetensors file: net `name`'s tensors are called
/// `{name}w1`, `{name}b1`, ... (use names like `contact.`), its metadata keys
/// `{name}key`. The file records the input encoding once.
pub fn save_bundle(nets: &[(&str, &Net)]) -> Result<Vec<u8>, NetError> {
    use safetensors::tensor::{Dtype, TensorView};
    fn bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
    let mut owned: Vec<(String, Vec<u8>, Vec<usize>)> = Vec::new();
    let mut meta = HashMap::new();
    for (name, net) in nets {
        owned.push((
            format!("{name}w1"),
            bytes(&net.w1),
            vec![INPUTS, net.hidden],
        ));
        owned.push((format!("{name}b1"), bytes(&net.b1), vec![net.hidden]));
        let mid = net.bm.len();
        if mid > 0 {
            owned.push((format!("{name}wm"), bytes(&net.wm), vec![net.hidden, mid]));
            owned.push((format!("{name}bm"), bytes(&net.bm), vec![mid]));
        }
        owned.push((
            format!("{name}w2"),
            bytes(&net.w2),
            vec![OUTPUTS, net.top()],
        ));
        owned.push((format!("{name}b2"), bytes(&net.b2), vec![OUTPUTS]));
        for (k, v) in &net.metadata {
            meta.insert(format!("{name}{k}"), v.clone());
        }
    }
    meta.insert("encoding".into(), ENCODING.into());
    let mut views = Vec::with_capacity(owned.len());
    for (n, data, shape) in &owned {
        let view = TensorView::new(Dtype::F32, shape.clone(), data)
            .map_err(|e| NetError(e.to_string()))?;
        views.push((n.clone(), view));
    }
    safetensors::serialize(views, Some(meta)).map_err(|e| NetError(e.to_string()))
}

/// What a net is used for: it decides how files of an older encoding are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Positions with contact.
    Contact,
    /// Pure races: reads the [`race_features`].
    Race,
}

/// Reads net `name` (see [`save_bundle`]) from safetensors bytes, checking the input
/// encoding, every shape, and that every weight is finite; `race.` is read as the
/// race net ([`Role::Race`]), any other name as a contact net.
pub fn load_bundle(bytes: &[u8], name: &str) -> Result<Net, NetError> {
    let role = if name.starts_with("race") {
        Role::Race
    } else {
        Role::Contact
    };
    load_net(bytes, name, role)
}

/// Whether `bytes` (a safetensors bundle) holds a net named `name` (its `w1`
/// tensor): tells an optional net of a bundle (`screen.`, see
/// [`crate::eval::neural::NeuralEvaluator::screen`]) that is absent from one that is
/// damaged, which [`load_bundle`] then reports. False for bytes that are not
/// safetensors at all.
pub fn bundle_has(bytes: &[u8], name: &str) -> bool {
    let w1 = format!("{name}w1");
    safetensors::SafeTensors::deserialize(bytes).is_ok_and(|st| st.names().contains(&w1.as_str()))
}

/// [`load_bundle`] with the net's role given.
pub fn load_net(bytes: &[u8], name: &str, role: Role) -> Result<Net, NetError> {
    use safetensors::tensor::Dtype;
    use safetensors::SafeTensors;
    let err = |m: String| NetError(format!("bad network file: {m}"));
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| err(e.to_string()))?;
    let all_meta = header.metadata().clone().unwrap_or_default();
    let (rows, previous) = match all_meta.get("encoding") {
        Some(e) if e == ENCODING => (INPUTS, false),
        Some(e) if e == V4_ENCODING => (V4_INPUTS, false),
        Some(e) if e == V3_ENCODING => (V3_INPUTS, false),
        Some(e) if e == PREVIOUS_ENCODING => (V3_INPUTS, true),
        Some(e) if e == LEGACY_ENCODING => (RAW_INPUTS, false),
        Some(e) => {
            return Err(err(format!(
                "input encoding {e:?}, this build reads {ENCODING:?}, {V4_ENCODING:?}, \
                 {V3_ENCODING:?}, {PREVIOUS_ENCODING:?} and {LEGACY_ENCODING:?}"
            )))
        }
        None => return Err(err("no input encoding in its metadata".into())),
    };
    let st = SafeTensors::deserialize(bytes).map_err(|e| err(e.to_string()))?;
    let get = |t: &str, shape: &[usize]| -> Result<Vec<f32>, NetError> {
        let full = format!("{name}{t}");
        let v = st
            .tensor(&full)
            .map_err(|e| err(format!("tensor {full}: {e}")))?;
        if v.dtype() != Dtype::F32 || v.shape() != shape {
            return Err(err(format!(
                "tensor {full} is {:?} {:?}, expected F32 {shape:?}",
                v.dtype(),
                v.shape()
            )));
        }
        let out: Vec<f32> = v
            .data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if out.iter().any(|x| !x.is_finite()) {
            return Err(err(format!("tensor {full} holds a non-finite weight")));
        }
        Ok(out)
    };
    let b1_name = format!("{name}b1");
    let b1 = st
        .tensor(&b1_name)
        .map_err(|e| err(format!("tensor {b1_name}: {e}")))?;
    let hidden = b1.shape().first().copied().unwrap_or(0);
    if hidden == 0 || !hidden.is_multiple_of(LANES) || hidden > 4096 {
        return Err(err(format!(
            "hidden width {hidden} is not a multiple of 8 up to 4096"
        )));
    }
    let b2 = get("b2", &[OUTPUTS])?;
    let metadata = all_meta
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(name).map(|k| (k.to_string(), v.clone())))
        .filter(|(k, _)| k != "encoding" && (name.is_empty() || !k.contains('.')))
        .collect();
    // A second hidden layer where the file has one (`bm`), its width a multiple of 8.
    let mid = match st.tensor(&format!("{name}bm")) {
        Ok(t) => {
            let m = t.shape().first().copied().unwrap_or(0);
            if m == 0 || !m.is_multiple_of(LANES) || m > 4096 || t.shape().len() != 1 {
                return Err(err(format!(
                    "second hidden layer {:?} is not a multiple of 8 up to 4096",
                    t.shape()
                )));
            }
            m
        }
        Err(_) => 0,
    };
    let (wm, bm) = if mid > 0 {
        (get("wm", &[hidden, mid])?, get("bm", &[mid])?)
    } else {
        (Vec::new(), Vec::new())
    };
    let top = if mid > 0 { mid } else { hidden };
    let mut w1 = get("w1", &[rows, hidden])?;
    // Older files: zero rows for the inputs they did not have (all at the end).
    w1.resize(INPUTS * hidden, 0.0);
    if previous && role == Role::Race {
        for slot in RACE_ONLY_SLOTS {
            let row = RAW_INPUTS + slot;
            w1[row * hidden..(row + 1) * hidden].fill(0.0);
        }
    }
    let third = w1[V4_INPUTS * hidden..].iter().any(|&w| w != 0.0);
    Ok(Net {
        hidden,
        third,
        w1,
        b1: get("b1", &[hidden])?,
        wm,
        bm,
        w2: get("w2", &[OUTPUTS, top])?,
        b2: [b2[0], b2[1], b2[2], b2[3], b2[4]],
        metadata,
    })
}

/// A single net used as an evaluator (thread-local scratch keeps it `Sync`).
impl Evaluator for Net {
    fn evaluate(&self, pos: &Position) -> Probs {
        thread_local! {
            static SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
        }
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            let scratch = match s.as_mut() {
                Some(sc) if sc.fits(self) => sc,
                _ => s.insert(self.scratch()),
            };
            Probs(self.forward(pos, scratch)).sanitized()
        })
    }

    fn name(&self) -> String {
        self.metadata
            .get("name")
            .cloned()
            .unwrap_or_else(|| format!("net-{}", self.hidden))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_tells_an_absent_net_from_a_present_one() {
        let (a, b) = (Net::random(16, 1), Net::random(8, 2));
        let bytes = save_bundle(&[("contact.", &a), ("screen.", &b)]).expect("saved");
        assert!(bundle_has(&bytes, "contact.") && bundle_has(&bytes, "screen."));
        assert!(!bundle_has(&bytes, "race.") && !bundle_has(b"not safetensors", "screen."));
        assert_eq!(load_bundle(&bytes, "screen.").expect("loads"), b);
    }
    use crate::testutil::random_positions;

    #[test]
    fn safetensors_round_trip_and_validation() {
        let mut net = Net::random(16, 3);
        net.metadata.insert("kind".into(), "contact".into());
        let bytes = net.to_safetensors().unwrap();
        let back = Net::from_safetensors(&bytes, Role::Contact).unwrap();
        assert_eq!(back.w1, net.w1);
        assert_eq!(back.hash(), net.hash());
        assert_eq!(
            back.metadata.get("kind").map(String::as_str),
            Some("contact")
        );
        assert!(Net::from_safetensors(&bytes[..bytes.len() - 4], Role::Contact).is_err());
        assert!(Net::from_safetensors(b"not a net", Role::Race).is_err());
        let other = Net::random(8, 4);
        let bundle = save_bundle(&[("contact.", &net), ("race.", &other)]).unwrap();
        assert_eq!(load_bundle(&bundle, "race.").unwrap(), other);
        assert_eq!(load_bundle(&bundle, "contact.").unwrap().w2, net.w2);
        assert!(load_bundle(&bundle, "crashed.").is_err());
    }

    /// A bundle of `nets` as an older build wrote it: the first `rows` input rows
    /// only, and `encoding` in the metadata.
    fn older_bundle(nets: &[(&str, &Net)], rows: usize, encoding: &str) -> Vec<u8> {
        use safetensors::tensor::{Dtype, TensorView};
        let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let data: Vec<(String, Vec<usize>, Vec<u8>)> = nets
            .iter()
            .flat_map(|(name, net)| {
                let h = net.hidden;
                [
                    (
                        format!("{name}w1"),
                        vec![rows, h],
                        bytes(&net.w1[..rows * h]),
                    ),
                    (format!("{name}b1"), vec![h], bytes(&net.b1)),
                    (format!("{name}w2"), vec![OUTPUTS, h], bytes(&net.w2)),
                    (format!("{name}b2"), vec![OUTPUTS], bytes(&net.b2)),
                ]
            })
            .collect();
        let views: Vec<(String, TensorView<'_>)> = data
            .iter()
            .map(|(n, shape, b)| {
                (
                    n.clone(),
                    TensorView::new(Dtype::F32, shape.clone(), b).unwrap(),
                )
            })
            .collect();
        let meta = HashMap::from([("encoding".to_string(), encoding.to_string())]);
        safetensors::serialize(views, Some(meta)).unwrap()
    }

    /// `net` with the first-layer rows of inputs `first..` zeroed: what a file of an
    /// older encoding, `first` inputs wide, loads as.
    fn with_rows_zeroed_from(net: &Net, first: usize) -> Net {
        let mut n = net.clone();
        n.w1[first * n.hidden..].fill(0.0);
        n
    }

    /// `net` with the rows of the features' second block (and the third) zeroed.
    fn without_second_block(net: &Net) -> Net {
        with_rows_zeroed_from(net, V3_INPUTS)
    }

    /// A file of release 0.6.0's encoding (no second block) loads with zero rows
    /// there, and so computes what it did.
    #[test]
    fn v3_files_load_with_zero_second_block_rows() {
        let (contact, race) = (Net::random(16, 21), Net::random(16, 22));
        let old = older_bundle(
            &[("contact.", &contact), ("race.", &race)],
            V3_INPUTS,
            V3_ENCODING,
        );
        let c = load_bundle(&old, "contact.").unwrap();
        assert_eq!(c, without_second_block(&contact));
        assert_eq!(
            load_bundle(&old, "race.").unwrap(),
            without_second_block(&race)
        );
        // Its outputs are those of the first block's inputs alone.
        assert_first_inputs_decide(&c, V3_INPUTS, 23);
        // A file with the wrong row count for its encoding is refused.
        let wrong = older_bundle(&[("contact.", &contact)], V3_INPUTS, ENCODING);
        assert!(load_bundle(&wrong, "contact.").is_err());
    }

    /// A file of release 0.8.0's encoding (no third block) loads with zero rows
    /// there, and so computes what it did.
    #[test]
    fn v4_files_load_with_zero_third_block_rows() {
        let (contact, race) = (Net::random(16, 31), Net::random(16, 32));
        let old = older_bundle(
            &[("contact.", &contact), ("race.", &race)],
            V4_INPUTS,
            V4_ENCODING,
        );
        let c = load_bundle(&old, "contact.").unwrap();
        assert_eq!(c, with_rows_zeroed_from(&contact, V4_INPUTS));
        assert_first_inputs_decide(&c, V4_INPUTS, 33);
        // It skips the third block's cost, and gives the same outputs as with it;
        // training makes it read the block.
        assert!(!c.third);
        let mut every = c.clone();
        every.read_every_input();
        assert!(every.third && every == c);
        let (mut s, mut t) = (c.scratch(), c.scratch());
        let (mut base, mut base_every) = (c.base(), c.base());
        for pos in random_positions(300, 34) {
            let (x, y) = (c.forward(&pos, &mut s), every.forward(&pos, &mut t));
            assert_eq!(x.map(f32::to_bits), y.map(f32::to_bits));
            c.set_base(&pos, &mut base, &mut s);
            every.set_base(&pos, &mut base_every, &mut t);
            assert_eq!(base.pre_activations(), base_every.pre_activations());
        }
        assert!(load_bundle(&save_bundle(&[("contact.", &every)]).unwrap(), "contact.").is_ok());
        let wrong = older_bundle(&[("contact.", &contact)], V4_INPUTS, ENCODING);
        assert!(load_bundle(&wrong, "contact.").is_err());
    }

    /// A file of the encoding before that: its race net's rows for the race-only
    /// slots, which the race net never used, load as zero (so it computes what it
    /// did); the contact net keeps every row it had, as does a race net of a later
    /// encoding.
    #[test]
    fn previous_encoding_race_nets_load_without_race_rows() {
        let (contact, race) = (Net::random(16, 11), Net::random(16, 12));
        let bundle = save_bundle(&[("contact.", &contact), ("race.", &race)]).unwrap();
        assert_eq!(load_bundle(&bundle, "race.").unwrap(), race);
        let old = older_bundle(
            &[("contact.", &contact), ("race.", &race)],
            V3_INPUTS,
            PREVIOUS_ENCODING,
        );
        assert_eq!(
            load_bundle(&old, "contact.").unwrap(),
            without_second_block(&contact)
        );
        let r = load_bundle(&old, "race.").unwrap();
        let h = r.hidden;
        for slot in 0..features::FEATURES {
            let row = &r.w1[(RAW_INPUTS + slot) * h..(RAW_INPUTS + slot + 1) * h];
            let was = &race.w1[(RAW_INPUTS + slot) * h..(RAW_INPUTS + slot + 1) * h];
            if RACE_ONLY_SLOTS.contains(&slot) || slot >= features::BASE_FEATURES {
                assert!(row.iter().all(|&w| w == 0.0), "slot {slot}");
            } else {
                assert_eq!(row, was, "slot {slot}");
            }
        }
        assert_eq!(r.w1[..RAW_INPUTS * h], race.w1[..RAW_INPUTS * h]);
        // A one-net file of a race net, read for its role.
        let single = older_bundle(&[("", &race)], V3_INPUTS, PREVIOUS_ENCODING);
        assert_eq!(Net::from_safetensors(&single, Role::Race).unwrap(), r);
        assert_eq!(
            Net::from_safetensors(&single, Role::Contact).unwrap(),
            without_second_block(&race)
        );
    }

    /// A file in the first encoding (198 rows) loads with zero feature rows, and so
    /// gives the outputs the raw inputs alone give.
    #[test]
    fn legacy_files_load_with_zero_feature_rows() {
        let net = Net::random(16, 8);
        let h = net.hidden;
        let file = older_bundle(&[("", &net)], RAW_INPUTS, LEGACY_ENCODING);
        let old = Net::from_safetensors(&file, Role::Contact).unwrap();
        assert_eq!(old.w1[..RAW_INPUTS * h], net.w1[..RAW_INPUTS * h]);
        assert!(old.w1[RAW_INPUTS * h..].iter().all(|&w| w == 0.0));
        // Raw inputs only, by hand: the features do not move the outputs.
        assert_first_inputs_decide(&old, RAW_INPUTS, 7);
        // Saved again, it is in the new encoding.
        assert_eq!(
            Net::from_safetensors(&old.to_safetensors().unwrap(), Role::Contact).unwrap(),
            old
        );
    }

    /// `net`'s outputs are, bit for bit, those of its first `rows` inputs alone (the
    /// others have zero weights), on random positions of `seed`.
    fn assert_first_inputs_decide(net: &Net, rows: usize, seed: u64) {
        let mut s = net.scratch();
        for pos in random_positions(300, seed) {
            let y = net.forward(&pos, &mut s);
            let kept: Vec<(usize, f32)> = s.inputs.iter().filter(|&(i, _)| i < rows).collect();
            let idx: Vec<u16> = kept.iter().map(|&(i, _)| i as u16).collect();
            let val: Vec<f32> = kept.iter().map(|&(_, v)| v).collect();
            let mut hidden = vec![0.0; net.hidden];
            let mut mid = vec![0.0; net.mid()];
            let x = kernels::run(
                SimdLevel::detect(),
                net.weights(),
                &net.b1,
                &idx,
                &val,
                &mut hidden,
                &mut mid,
            );
            assert_eq!(x.map(f32::to_bits), y.map(f32::to_bits));
        }
    }

    fn default_contact() -> Net {
        load_bundle(crate::eval::default_nets::BYTES, "contact.").expect("default nets")
    }

    /// The network as first written: dense inputs, `f64`, libm `exp`.
    fn reference_forward(net: &Net, pos: &Position) -> [f64; OUTPUTS] {
        let mut s = SparseInputs::default();
        encode::encode(pos, &mut s);
        let x = s.to_dense();
        let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
        let h = net.hidden;
        let hidden: Vec<f64> = (0..h)
            .map(|j| {
                let pre = f64::from(net.b1[j])
                    + (0..INPUTS)
                        .map(|i| f64::from(x[i]) * f64::from(net.w1[i * h + j]))
                        .sum::<f64>();
                sig(pre)
            })
            .collect();
        let top: Vec<f64> = if net.mid() == 0 {
            hidden
        } else {
            (0..net.mid())
                .map(|j| {
                    let pre = f64::from(net.bm[j])
                        + (0..h)
                            .map(|i| f64::from(net.wm[i * net.mid() + j]) * hidden[i])
                            .sum::<f64>();
                    sig(pre)
                })
                .collect()
        };
        let t = top.len();
        let mut out = [0f64; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let dot: f64 = (0..t).map(|j| f64::from(net.w2[k * t + j]) * top[j]).sum();
            *o = sig(f64::from(net.b2[k]) + dot);
        }
        out
    }

    /// A net with two hidden layers whose upper layers are not small: a random
    /// 128-unit first layer under a random second layer of 24, the output weights
    /// scaled up so the second layer matters.
    fn deep_random() -> Net {
        let mut net = Net::random(128, 41).deepen(24, 5);
        for w in &mut net.w2 {
            *w *= 4.0;
        }
        net
    }

    /// The default contact net, and nets of other shapes: one layer of 128 and of
    /// 24, and [`deep_random`].
    fn nets_of_every_shape() -> [Net; 4] {
        [
            default_contact(),
            Net::random(128, 9),
            Net::random(24, 9),
            deep_random(),
        ]
    }

    #[test]
    fn forward_matches_the_f64_reference() {
        for net in nets_of_every_shape() {
            let mut s = net.scratch();
            let mut max = 0f64;
            for pos in random_positions(5000, 3) {
                let fast = net.forward(&pos, &mut s);
                let exact = reference_forward(&net, &pos);
                for k in 0..OUTPUTS {
                    max = max.max((f64::from(fast[k]) - exact[k]).abs());
                }
            }
            assert!(max < 2e-6, "max abs difference {max:e}");
        }
    }

    #[test]
    fn simd_levels_agree_bit_for_bit() {
        for net in nets_of_every_shape()
            .into_iter()
            .chain([Net::random(72, 6)])
        {
            let (mut a, mut b) = (net.scratch(), net.scratch());
            for pos in random_positions(5000, 4) {
                let x = net.forward_with_level(SimdLevel::baseline(), &pos, &mut a);
                let y = net.forward_with_level(SimdLevel::detect(), &pos, &mut b);
                assert_eq!(x.map(f32::to_bits), y.map(f32::to_bits), "{pos:?}");
                assert_eq!(a.hidden, b.hidden);
                assert_eq!(a.mid, b.mid);
            }
        }
    }

    #[test]
    fn forward_from_a_base_matches_forward() {
        for net in nets_of_every_shape() {
            forward_from_matches_forward(&net);
        }
    }

    fn forward_from_matches_forward(net: &Net) {
        let positions = random_positions(20_000, 5);
        let (mut s, mut t) = (net.scratch(), net.scratch());
        let mut base = net.base();
        let mut max = 0f32;
        // Consecutive positions are siblings or one roll apart; every 50th base
        // is compared with a random far position, which takes the full path.
        for (k, pair) in positions.windows(2).enumerate() {
            net.set_base(&pair[0], &mut base, &mut s);
            assert_eq!(base.position(), &pair[0]);
            let target = if k % 50 == 0 {
                &positions[(k * 7919) % positions.len()]
            } else {
                &pair[1]
            };
            let inc = net.forward_from(&base, target, &mut s);
            let full = net.forward(target, &mut t);
            for k in 0..OUTPUTS {
                max = max.max((inc[k] - full[k]).abs());
            }
            // The activations left for inspection agree too.
            for (x, y) in s
                .hidden
                .iter()
                .chain(&s.mid)
                .zip(t.hidden.iter().chain(&t.mid))
            {
                assert!((x - y).abs() < 1e-5);
            }
        }
        assert!(max < 1e-5, "max abs difference {max:e}");
    }

    /// [`Net::input_gradient`] agrees with finite differences of the equity along
    /// single inputs, for one hidden layer and for two.
    #[test]
    fn input_gradient_matches_finite_differences() {
        let equity = |p: [f32; OUTPUTS]| f64::from(2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]);
        for net in nets_of_every_shape() {
            let (mut s, mut base) = (net.scratch(), net.base());
            for pos in random_positions(40, 8) {
                net.set_base(&pos, &mut base, &mut s);
                let rows: Vec<u16> = (0..INPUTS as u16).step_by(7).collect();
                let mut g = [0f32; INPUTS];
                net.input_gradient(&base, &rows, &mut g);
                let eps = 1e-2f32;
                for &r in &rows {
                    let at = |d: f32| {
                        let (mut h, mut m) = (vec![0.0; net.hidden], vec![0.0; net.mid()]);
                        equity(kernels::run(
                            SimdLevel::detect(),
                            net.weights(),
                            base.pre_activations(),
                            &[r],
                            &[d],
                            &mut h,
                            &mut m,
                        ))
                    };
                    let numeric = (at(eps) - at(-eps)) / (2.0 * f64::from(eps));
                    let analytic = f64::from(g[usize::from(r)]);
                    assert!(
                        (numeric - analytic).abs() < 1e-3 + 0.02 * numeric.abs(),
                        "row {r}: numeric {numeric} analytic {analytic}"
                    );
                }
            }
        }
    }

    /// A net with two hidden layers survives a round trip through a file, and a
    /// second layer of a width other than a multiple of 8 is refused.
    #[test]
    fn deep_nets_round_trip() {
        let net = deep_random();
        assert_eq!(net.mid(), 24);
        let bundle = save_bundle(&[("contact.", &net), ("race.", &Net::random(8, 1))]).unwrap();
        let back = load_bundle(&bundle, "contact.").unwrap();
        assert_eq!(back, net);
        assert_eq!(back.hash(), net.hash());
        let mut odd = net.clone();
        odd.bm.truncate(20);
        odd.wm = vec![0.0; 20 * odd.hidden];
        odd.w2 = vec![0.0; OUTPUTS * 20];
        let bytes = odd.to_safetensors().unwrap();
        let e = Net::from_safetensors(&bytes, Role::Contact).unwrap_err();
        assert!(e.0.contains("second hidden layer"), "{e}");
    }

    #[test]
    fn widening_keeps_the_outputs() {
        for net in nets_of_every_shape() {
            widening_keeps(&net);
        }
    }

    fn widening_keeps(net: &Net) {
        let wide = net.widen(net.hidden() + 64, 3);
        assert_eq!(wide.hidden(), net.hidden() + 64);
        let (mut a, mut b) = (net.scratch(), wide.scratch());
        for pos in random_positions(500, 6) {
            let x = net.forward(&pos, &mut a);
            let y = wide.forward(&pos, &mut b);
            for k in 0..OUTPUTS {
                assert!((x[k] - y[k]).abs() < 1e-5, "{x:?} {y:?}");
            }
        }
    }

    #[test]
    fn training_moves_outputs_towards_the_target() {
        for net in [Net::random(16, 1), Net::random(16, 1).deepen(8, 2)] {
            training_moves(net);
        }
    }

    fn training_moves(mut net: Net) {
        let mut s = net.scratch();
        let target = [1.0, 0.5, 0.0, 0.0, 0.0];
        let before = net.forward(&Position::STARTING, &mut s);
        for _ in 0..200 {
            let out = net.forward(&Position::STARTING, &mut s);
            net.train_step(&s, &out, &target, 0.1);
        }
        let after = net.forward(&Position::STARTING, &mut s);
        for k in 0..OUTPUTS {
            assert!((after[k] - target[k]).abs() < (before[k] - target[k]).abs() + 1e-6);
        }
        assert!((after[0] - 1.0).abs() < 0.05);
    }
}
