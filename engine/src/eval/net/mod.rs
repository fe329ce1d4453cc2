//! A small feed-forward network: [`encode::INPUTS`] inputs, one sigmoid hidden layer,
//! five sigmoid outputs in GNU Backgammon's cumulative convention.
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

use super::{Evaluator, Probs};
use crate::position::Position;
use encode::{encode, encode_delta_within, Reference, SparseInputs, INPUTS, RAW_INPUTS};
pub use kernels::SimdLevel;
use kernels::{Weights, LANES};
use std::collections::HashMap;

/// Outputs: win, win gammon, win backgammon, lose gammon, lose backgammon.
pub const OUTPUTS: usize = 5;

/// Name of the input encoding written into every weights file: the 198 raw inputs
/// plus the hand-crafted [`features`] (both blocks), the [`race_features`] in races.
pub const ENCODING: &str = "bgfarm-198f-v4";

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
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    hidden: usize,
    /// `INPUTS` rows of `hidden` weights.
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// `OUTPUTS` rows of `hidden` weights.
    w2: Vec<f32>,
    b2: [f32; OUTPUTS],
    /// Free-form metadata kept with the weights (kind, training history).
    pub metadata: HashMap<String, String>,
}

/// Scratch space for one evaluation; reuse it across calls.
#[derive(Clone)]
pub struct Scratch {
    /// The inputs of the last [`Net::forward`] (what [`Net::train_step`] reads).
    pub inputs: SparseInputs,
    /// The hidden activations of the last evaluation.
    pub hidden: Vec<f32>,
    /// Input differences of the last [`Net::forward_from`].
    delta: SparseInputs,
}

impl Scratch {
    /// Scratch for a net of `hidden` units.
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            inputs: SparseInputs::default(),
            hidden: vec![0.0; hidden],
            delta: SparseInputs::default(),
        }
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
            w2: (0..OUTPUTS * hidden).map(|_| uniform(s2)).collect(),
            b2: [0.0; OUTPUTS],
            metadata: HashMap::new(),
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
        let mut w2 = vec![0.0; OUTPUTS * new];
        for k in 0..OUTPUTS {
            w2[k * new..k * new + old].copy_from_slice(&self.w2[k * old..(k + 1) * old]);
        }
        Net {
            hidden: new,
            w1,
            b1,
            w2,
            b2: self.b2,
            metadata: self.metadata.clone(),
        }
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// A scratch buffer sized for this net.
    pub fn scratch(&self) -> Scratch {
        Scratch::new(self.hidden)
    }

    #[inline]
    fn weights(&self) -> Weights<'_> {
        Weights {
            hidden: self.hidden,
            w1: &self.w1,
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
        encode(pos, &mut scratch.inputs);
        let inputs = &scratch.inputs;
        kernels::run(
            level,
            self.weights(),
            &self.b1,
            &inputs.idx[..inputs.len],
            &inputs.val[..inputs.len],
            &mut scratch.hidden,
        )
    }

    /// Makes `base` the reference for [`Net::forward_from`]: `pos`'s pre-activations.
    pub fn set_base(&self, pos: &Position, base: &mut Base, scratch: &mut Scratch) {
        encode(pos, &mut scratch.delta);
        base.reference = Reference::from_inputs(pos, &scratch.delta);
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
        let p = kernels::outputs_from_pre(level, self.weights(), &mut hidden);
        // d equity / d output: equity = 2 win - 1 + win gammon + win bg - lose gammon
        // - lose bg, each output a sigmoid.
        let de = [2.0f32, 1.0, 1.0, -1.0, -1.0];
        let mut dh = vec![0f32; h];
        for ((row, p), de) in self.w2.chunks_exact(h).zip(p).zip(de) {
            let g = de * p * (1.0 - p);
            for (d, w) in dh.iter_mut().zip(row) {
                *d += g * w;
            }
        }
        for (d, a) in dh.iter_mut().zip(&hidden) {
            *d *= a * (1.0 - a);
        }
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
        // Hidden error before the output weights change.
        let mut delta_h = vec![0f32; h];
        let delta_out = self.errors(&scratch.hidden, out, target, &mut delta_h);
        for (k, row) in self.w2.chunks_exact_mut(h).enumerate() {
            let g = lr * delta_out[k];
            for (w, a) in row.iter_mut().zip(&scratch.hidden) {
                *w -= g * a;
            }
            self.b2[k] -= g;
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
    /// with hidden activations `hidden`: the output errors (returned; with sigmoid
    /// outputs and cross-entropy simply `out - target`) and the hidden units' errors
    /// (written to `delta_h`, which is overwritten), both per unit of the loss.
    pub(crate) fn errors(
        &self,
        hidden: &[f32],
        out: &[f32; OUTPUTS],
        target: &[f32; OUTPUTS],
        delta_h: &mut [f32],
    ) -> [f32; OUTPUTS] {
        let mut delta_out = [0f32; OUTPUTS];
        for k in 0..OUTPUTS {
            delta_out[k] = out[k] - target[k];
        }
        delta_h.fill(0.0);
        for (k, row) in self.w2.chunks_exact(self.hidden).enumerate() {
            let d = delta_out[k];
            for (dh, w) in delta_h.iter_mut().zip(row) {
                *dh += d * w;
            }
        }
        for (dh, a) in delta_h.iter_mut().zip(hidden) {
            *dh *= a * (1.0 - a);
        }
        delta_out
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
        self.w1
            .iter()
            .chain(&self.b1)
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
        owned.push((
            format!("{name}w2"),
            bytes(&net.w2),
            vec![OUTPUTS, net.hidden],
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

/// [`load_bundle`] with the net's role given.
pub fn load_net(bytes: &[u8], name: &str, role: Role) -> Result<Net, NetError> {
    use safetensors::tensor::Dtype;
    use safetensors::SafeTensors;
    let err = |m: String| NetError(format!("bad network file: {m}"));
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| err(e.to_string()))?;
    let all_meta = header.metadata().clone().unwrap_or_default();
    let (rows, previous) = match all_meta.get("encoding") {
        Some(e) if e == ENCODING => (INPUTS, false),
        Some(e) if e == V3_ENCODING => (V3_INPUTS, false),
        Some(e) if e == PREVIOUS_ENCODING => (V3_INPUTS, true),
        Some(e) if e == LEGACY_ENCODING => (RAW_INPUTS, false),
        Some(e) => {
            return Err(err(format!(
                "input encoding {e:?}, this build reads {ENCODING:?}, {V3_ENCODING:?}, \
                 {PREVIOUS_ENCODING:?} and {LEGACY_ENCODING:?}"
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
    let mut w1 = get("w1", &[rows, hidden])?;
    // Older files: zero rows for the inputs they did not have (all at the end).
    w1.resize(INPUTS * hidden, 0.0);
    if previous && role == Role::Race {
        for slot in RACE_ONLY_SLOTS {
            let row = RAW_INPUTS + slot;
            w1[row * hidden..(row + 1) * hidden].fill(0.0);
        }
    }
    Ok(Net {
        hidden,
        w1,
        b1: get("b1", &[hidden])?,
        w2: get("w2", &[OUTPUTS, hidden])?,
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
                Some(sc) if sc.hidden.len() == self.hidden => sc,
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

    /// `net` with the rows of the features' second block zeroed.
    fn without_second_block(net: &Net) -> Net {
        let mut n = net.clone();
        n.w1[V3_INPUTS * n.hidden..].fill(0.0);
        n
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
            let x = kernels::run(
                SimdLevel::detect(),
                net.weights(),
                &net.b1,
                &idx,
                &val,
                &mut hidden,
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
        encode(pos, &mut s);
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
        let mut out = [0f64; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let dot: f64 = (0..h)
                .map(|j| f64::from(net.w2[k * h + j]) * hidden[j])
                .sum();
            *o = sig(f64::from(net.b2[k]) + dot);
        }
        out
    }

    #[test]
    fn forward_matches_the_f64_reference() {
        for net in [default_contact(), Net::random(24, 9)] {
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
        for net in [default_contact(), Net::random(16, 5), Net::random(72, 6)] {
            let (mut a, mut b) = (net.scratch(), net.scratch());
            for pos in random_positions(5000, 4) {
                let x = net.forward_with_level(SimdLevel::baseline(), &pos, &mut a);
                let y = net.forward_with_level(SimdLevel::detect(), &pos, &mut b);
                assert_eq!(x.map(f32::to_bits), y.map(f32::to_bits), "{pos:?}");
                assert_eq!(a.hidden, b.hidden);
            }
        }
    }

    #[test]
    fn forward_from_a_base_matches_forward() {
        let net = default_contact();
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
            for (x, y) in s.hidden.iter().zip(&t.hidden) {
                assert!((x - y).abs() < 1e-5);
            }
        }
        assert!(max < 1e-5, "max abs difference {max:e}");
    }

    #[test]
    fn widening_keeps_the_outputs() {
        let net = default_contact();
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
        let mut net = Net::random(16, 1);
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
