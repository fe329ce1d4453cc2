//! Forward passes: a position's outputs from scratch ([`Net::forward`]) or, for the
//! candidates of one move, from the parent's pre-activations ([`Net::forward_from`]
//! on a [`Base`]), and a net as an [`Evaluator`].

use super::encode::{encode_delta_within, encode_with, Reference, SparseInputs};
use super::kernels::{self, SimdLevel, Weights};
use super::quantized;
use super::{Net, OUTPUTS};
use crate::eval::{Evaluator, Probs};
use crate::position::Position;

/// Scratch space for one evaluation; reuse it across calls.
#[derive(Clone)]
pub struct Scratch {
    /// The inputs of the last [`Net::forward`] (what a training step reads).
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
    pub(super) reference: Reference,
    pub(super) pre: Vec<f32>,
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
    /// A scratch buffer sized for this net.
    pub fn scratch(&self) -> Scratch {
        Scratch::new(self.hidden, self.bm.len())
    }

    #[inline]
    pub(super) fn weights(&self) -> Weights<'_> {
        Weights {
            w1: &self.w1,
            wq: self.wq.get_or_init(|| {
                quantized::QuantizedLayer::new(&self.wm, self.hidden, self.bm.len())
            }),
            bm: &self.bm,
            w2: &self.w2,
            b2: &self.b2,
        }
    }

    /// Raw outputs for `pos` (player on roll), using `scratch`; leaves the inputs and
    /// hidden activations in `scratch` for a training step.
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
