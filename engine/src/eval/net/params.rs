//! The weights as named slices, for code outside the engine that changes them
//! (`bgfarm-lab`'s fits, its random and grown nets) and for building a net from
//! weights made elsewhere.
//!
//! Why a view and not public fields: the engine keeps invariants the layout relies
//! on (the hidden width a multiple of 8 for the 8-wide kernels, `w1` input-major,
//! `w2` as wide as the last hidden layer). A view lends out the values, never the
//! shapes, and [`Net::from_layers`] checks the shapes of a new net once.

use super::encode::INPUTS;
use super::format::NetError;
use super::kernels::LANES;
use super::{Net, OUTPUTS};
use std::collections::HashMap;

/// A net's weights, read-only, in the net's own layout.
#[derive(Clone, Copy, Debug)]
pub struct Params<'a> {
    /// First layer, input-major: [`INPUTS`] rows of `hidden` weights.
    pub w1: &'a [f32],
    /// First layer's biases, `hidden` of them.
    pub b1: &'a [f32],
    /// Second hidden layer, first-layer-unit-major: `hidden` rows of `mid` weights
    /// (empty with one hidden layer).
    pub wm: &'a [f32],
    /// Second hidden layer's biases, `mid` of them (empty with one hidden layer).
    pub bm: &'a [f32],
    /// Output layer: [`OUTPUTS`] rows, one weight per unit of the last hidden layer.
    pub w2: &'a [f32],
    pub b2: &'a [f32; OUTPUTS],
}

/// A net's weights, writable, laid out as in [`Params`]: the values may change,
/// the shapes cannot.
#[derive(Debug)]
pub struct ParamsMut<'a> {
    pub w1: &'a mut [f32],
    pub b1: &'a mut [f32],
    pub wm: &'a mut [f32],
    pub bm: &'a mut [f32],
    pub w2: &'a mut [f32],
    pub b2: &'a mut [f32; OUTPUTS],
}

/// Owned weights in the layout of [`Params`], from which [`Net::from_layers`]
/// builds a net.
#[derive(Clone, Debug, PartialEq)]
pub struct Layers {
    /// First-layer units: a positive multiple of 8 (the kernels' lane count).
    pub hidden: usize,
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    /// Empty with one hidden layer; otherwise `bm` is a multiple of 8 long.
    pub wm: Vec<f32>,
    pub bm: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: [f32; OUTPUTS],
}

impl Net {
    /// The weights, read-only.
    pub fn params(&self) -> Params<'_> {
        Params {
            w1: &self.w1,
            b1: &self.b1,
            wm: &self.wm,
            bm: &self.bm,
            w2: &self.w2,
            b2: &self.b2,
        }
    }

    /// The weights, writable. A net loaded from an older file skips the features'
    /// third block (its weights are zero there) until [`Net::read_every_input`]:
    /// call that before fitting, or the block is never fitted.
    pub fn params_mut(&mut self) -> ParamsMut<'_> {
        // The integer copy of the second layer is made again from the new values.
        self.wq = std::sync::OnceLock::new();
        ParamsMut {
            w1: &mut self.w1,
            b1: &mut self.b1,
            wm: &mut self.wm,
            bm: &mut self.bm,
            w2: &mut self.w2,
            b2: &mut self.b2,
        }
    }

    /// A net of `layers`, reading every input, with no metadata; refused when a
    /// length does not fit the widths (`hidden`, and `bm`'s length for the second
    /// layer) or a width is not a positive multiple of 8.
    pub fn from_layers(layers: Layers) -> Result<Net, NetError> {
        let Layers {
            hidden,
            w1,
            b1,
            wm,
            bm,
            w2,
            b2,
        } = layers;
        let mid = bm.len();
        let top = if mid > 0 { mid } else { hidden };
        if hidden == 0 || !hidden.is_multiple_of(LANES) || !mid.is_multiple_of(LANES) {
            return Err(NetError(format!(
                "layer widths {hidden} and {mid}: each must be a multiple of 8 (the first positive)"
            )));
        }
        let lengths = [
            ("w1", w1.len(), INPUTS * hidden),
            ("b1", b1.len(), hidden),
            ("wm", wm.len(), hidden * mid),
            ("w2", w2.len(), OUTPUTS * top),
        ];
        if let Some((name, got, want)) = lengths.iter().find(|(_, got, want)| got != want) {
            return Err(NetError(format!(
                "{name} holds {got} weights where a {hidden}-{mid} net has {want}"
            )));
        }
        Ok(Net {
            hidden,
            w1,
            b1,
            wm,
            bm,
            w2,
            b2,
            metadata: HashMap::new(),
            third: true,
            wq: std::sync::OnceLock::new(),
        })
    }

    /// Makes every input count, the features' third block included, for training:
    /// a net loaded from an older file has zero weights there and skips the block's
    /// cost until it is fitted.
    pub fn read_every_input(&mut self) {
        self.third = true;
    }
}
