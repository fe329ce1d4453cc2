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
//! Where things are: [`inference`] (forward passes, incremental from a shared
//! [`Base`](inference::Base)), [`input_gradient`] (the equity's gradient for
//! move-ranking tables, and the layers' chain rule), [`params`] (the weights as
//! named slices, through which `bgfarm-lab` fits, initialises and grows nets: the
//! engine ships inference only), [`format`] (the safetensors files) and
//! [`migrate`] (reading files of older encodings).
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

pub mod encode;
pub mod feature_layout;
pub mod features;
pub mod format;
pub mod inference;
pub mod input_gradient;
pub mod kernels;
pub mod migrate;
pub mod params;
pub mod quantized;
pub mod race_features;
pub mod shots;
pub mod side_view;
pub mod structure;

use encode::INPUTS;
pub use kernels::SimdLevel;
use std::collections::HashMap;

/// Outputs: win, win gammon, win backgammon, lose gammon, lose backgammon.
pub const OUTPUTS: usize = 5;

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
    /// The second hidden layer as the kernels read it ([`quantized`]), made from
    /// `wm` at the first evaluation after a load or a change of the weights.
    wq: std::sync::OnceLock<quantized::QuantizedLayer>,
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

impl Net {
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

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
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

#[cfg(test)]
mod tests;
