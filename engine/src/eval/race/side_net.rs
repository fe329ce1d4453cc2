//! The one-sided race net: a side's distribution of rolls to bear off, learned from
//! the one-sided searches ([`distribution`](super::distribution)), for
//! the sides those searches cannot reach in time.
//!
//! Why: a race's win and gammon chances follow from two one-sided distributions
//! (the mover's rolls to bear off all, the other side's; the first-off rolls of a
//! side that may be gammoned), and on GNU Backgammon's bench races those one-sided
//! chances value plays the way GNU Backgammon 2-ply does where the two-sided race
//! net does not (difference error 3.2 thousandths with searches of 200,000
//! positions a side, against 8.2 for the race net). A search costs milliseconds to
//! minutes; this net answers in microseconds. It sees one side only (half the
//! inputs of a race net, and one side's positions are far fewer than pairs), and
//! its outputs are the quantity the combination needs, so what it learns from
//! exact searches carries over to every pairing of sides.
//!
//! Shape: [`SIDE_INPUTS`] inputs, one sigmoid hidden layer, two softmax heads of
//! [`RACE_ROLLS`] entries: P(all off in exactly `n` rolls) and P(first checker off
//! in exactly `n` rolls) (the latter meaningful for sides of 15 checkers only).
//! A split net gives the first-off head a hidden layer of its own
//! ([`SideNet::first_hidden`]), so that one head can be refitted without moving
//! the other: a refit of the shared layer on far first-off samples moved the
//! all-off head in mid-length races (see the README).

use super::side::{Side, RACE_ROLLS};
use crate::rng::Rng;
use std::collections::HashMap;

/// Per point: checkers >= 1, >= 2, >= 3, and (n - 3) / 2 beyond; then pips / 100,
/// pips outside the home board / 50, checkers outside / 15, checkers off / 15.
pub const SIDE_INPUTS: usize = 24 * 4 + 4;

/// Which head of the net.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// Rolls to bear off every checker.
    AllOff = 0,
    /// Rolls to bear off the first checker (sides of 15 checkers).
    FirstOff = 1,
}

/// A one-sided race net. See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct SideNet {
    pub hidden: usize,
    /// `hidden x SIDE_INPUTS`, row per hidden unit.
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    /// Per head: `RACE_ROLLS x hidden`, row per output.
    pub w2: [Vec<f32>; 2],
    pub b2: [Vec<f32>; 2],
    /// The first-off head's own hidden layer (weights `hidden x SIDE_INPUTS`,
    /// biases), where the net is split; else that head reads `w1`/`b1` too.
    pub first_hidden: Option<Hidden>,
    /// Free-form description (how it was trained), saved with the weights.
    pub metadata: HashMap<String, String>,
}

/// A hidden layer: `w` is `hidden x SIDE_INPUTS`, row per unit; `b` its biases.
#[derive(Clone, Debug, PartialEq)]
pub struct Hidden {
    pub w: Vec<f32>,
    pub b: Vec<f32>,
}

/// The file kinds: a shared hidden layer, or a split net.
const KIND_SHARED: &str = "bgfarm-side-net-1";
const KIND_SPLIT: &str = "bgfarm-side-net-2";

/// The inputs of `side` (see [`SIDE_INPUTS`]).
pub fn side_inputs(side: &Side) -> [f32; SIDE_INPUTS] {
    let mut x = [0f32; SIDE_INPUTS];
    let (mut pips, mut outside_pips, mut outside, mut on) = (0u32, 0u32, 0u32, 0u32);
    for (i, &n) in side.iter().enumerate() {
        let f = &mut x[4 * i..4 * i + 4];
        f[0] = f32::from(n >= 1);
        f[1] = f32::from(n >= 2);
        f[2] = f32::from(n >= 3);
        f[3] = f32::from(n.saturating_sub(3)) / 2.0;
        let n = u32::from(n);
        let point = i as u32 + 1;
        pips += n * point;
        on += n;
        if point > 6 {
            outside_pips += n * (point - 6);
            outside += n;
        }
    }
    x[96] = pips as f32 / 100.0;
    x[97] = outside_pips as f32 / 50.0;
    x[98] = outside as f32 / 15.0;
    x[99] = 15u32.saturating_sub(on) as f32 / 15.0;
    x
}

/// `a . b` over 8 lanes (the compiler vectorises the lanes; one running sum would
/// keep the additions in order and scalar), then the lanes in a fixed order: the
/// same bits on every machine. Shared with [`super::side_kernel`], which must give
/// the same bits.
#[inline(always)]
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut s = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5]))
        + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Softmax of `logits`, in `f32` (the exponentials are most of a call's cost; a
/// probability below 1e-38 becomes 0), widened to `f64` for the caller's sums.
pub fn softmax(logits: &[f32; RACE_ROLLS]) -> [f64; RACE_ROLLS] {
    let m = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let mut e = [0f32; RACE_ROLLS];
    for (o, &l) in e.iter_mut().zip(logits) {
        // Below -87 the exponential is 0 in f32: skip the call.
        let x = l - m;
        *o = if x < -87.0 { 0.0 } else { x.exp() };
    }
    // The sum in f64, so the distribution sums to 1 within f64's rounding.
    let sum: f64 = e.iter().map(|&x| f64::from(x)).sum();
    e.map(|x| f64::from(x) / sum)
}

impl SideNet {
    /// A net of `hidden` units with small random weights from `seed`.
    pub fn random(hidden: usize, seed: u64) -> SideNet {
        let mut rng = Rng::new(seed);
        let mut uniform = |scale: f32| ((rng.next_f64() * 2.0 - 1.0) as f32) * scale;
        let s1 = 1.0 / (SIDE_INPUTS as f32).sqrt();
        let s2 = 1.0 / (hidden as f32).sqrt();
        let w1 = (0..hidden * SIDE_INPUTS).map(|_| uniform(s1)).collect();
        let w2a = (0..hidden * RACE_ROLLS).map(|_| uniform(s2)).collect();
        let w2b = (0..hidden * RACE_ROLLS).map(|_| uniform(s2)).collect();
        SideNet {
            hidden,
            w1,
            b1: vec![0.0; hidden],
            w2: [w2a, w2b],
            b2: [vec![0.0; RACE_ROLLS], vec![0.0; RACE_ROLLS]],
            first_hidden: None,
            metadata: HashMap::new(),
        }
    }

    /// The net split: the first-off head gets a copy of the shared hidden layer as
    /// its own (the same distributions until one head is refitted).
    pub fn split(mut self) -> SideNet {
        if self.first_hidden.is_none() {
            self.first_hidden = Some(Hidden {
                w: self.w1.clone(),
                b: self.b1.clone(),
            });
        }
        self
    }

    /// Whether `head` has a hidden layer of its own.
    pub fn has_own_hidden(&self, head: Head) -> bool {
        head == Head::FirstOff && self.first_hidden.is_some()
    }

    /// The weights and biases of `head`'s hidden layer.
    pub fn hidden_weights(&self, head: Head) -> (&[f32], &[f32]) {
        match (&self.first_hidden, head) {
            (Some(f), Head::FirstOff) => (&f.w, &f.b),
            _ => (&self.w1, &self.b1),
        }
    }

    /// The same, to change (a fit's gradients and steps). Public because the
    /// side-net fit lives in `bgfarm-lab`, outside the engine.
    pub fn hidden_weights_mut(&mut self, head: Head) -> (&mut Vec<f32>, &mut Vec<f32>) {
        match (&mut self.first_hidden, head) {
            (Some(f), Head::FirstOff) => (&mut f.w, &mut f.b),
            _ => (&mut self.w1, &mut self.b1),
        }
    }

    /// `head`'s hidden layer's activations for inputs `x`.
    pub fn hidden_layer(&self, head: Head, x: &[f32; SIDE_INPUTS]) -> Vec<f32> {
        let (w1, b1) = self.hidden_weights(head);
        // Most inputs are 0 (a side occupies a handful of points): only the others
        // are multiplied.
        let mut nz = [(0usize, 0f32); SIDE_INPUTS];
        let mut k = 0;
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                nz[k] = (i, xi);
                k += 1;
            }
        }
        let nz = &nz[..k];
        let mut h = b1.to_vec();
        for (j, hj) in h.iter_mut().enumerate() {
            let row = &w1[j * SIDE_INPUTS..][..SIDE_INPUTS];
            let mut s = 0f32;
            for &(i, xi) in nz {
                s += row[i] * xi;
            }
            *hj = sigmoid(*hj + s);
        }
        h
    }

    /// The head's logits from hidden activations `h`.
    pub fn logits(&self, head: Head, h: &[f32]) -> [f32; RACE_ROLLS] {
        let k = head as usize;
        let mut out = [0f32; RACE_ROLLS];
        for (n, o) in out.iter_mut().enumerate() {
            let row = &self.w2[k][n * self.hidden..][..self.hidden];
            *o = self.b2[k][n] + dot(row, h);
        }
        out
    }

    /// The distribution of `head` for `side`: entry `n` = P(exactly `n` rolls).
    pub fn distribution(&self, head: Head, side: &Side) -> [f64; RACE_ROLLS] {
        let h = self.hidden_layer(head, &side_inputs(side));
        softmax(&self.logits(head, &h))
    }

    /// Both distributions of `side`, from one hidden layer unless the net is split.
    pub fn distributions(&self, side: &Side) -> [[f64; RACE_ROLLS]; 2] {
        let x = side_inputs(side);
        let h = self.hidden_layer(Head::AllOff, &x);
        let first = if self.first_hidden.is_some() {
            softmax(&self.logits(Head::FirstOff, &self.hidden_layer(Head::FirstOff, &x)))
        } else {
            softmax(&self.logits(Head::FirstOff, &h))
        };
        [softmax(&self.logits(Head::AllOff, &h)), first]
    }

    /// A hash of the weights, for the engine fingerprint.
    pub fn checksum(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |v: &[f32]| {
            for x in v {
                for b in x.to_le_bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        };
        eat(&self.w1);
        eat(&self.b1);
        for k in 0..2 {
            eat(&self.w2[k]);
            eat(&self.b2[k]);
        }
        // A shared net's checksum is what it was before split nets existed.
        if let Some(f) = &self.first_hidden {
            eat(&f.w);
            eat(&f.b);
        }
        h
    }

    /// The net as a safetensors file.
    pub fn to_safetensors(&self) -> Result<Vec<u8>, String> {
        use safetensors::tensor::{Dtype, TensorView};
        let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let h = self.hidden;
        let mut owned: Vec<(&str, Vec<u8>, Vec<usize>)> = vec![
            ("w1", bytes(&self.w1), vec![h, SIDE_INPUTS]),
            ("b1", bytes(&self.b1), vec![h]),
            ("w2_all", bytes(&self.w2[0]), vec![RACE_ROLLS, h]),
            ("b2_all", bytes(&self.b2[0]), vec![RACE_ROLLS]),
            ("w2_first", bytes(&self.w2[1]), vec![RACE_ROLLS, h]),
            ("b2_first", bytes(&self.b2[1]), vec![RACE_ROLLS]),
        ];
        if let Some(f) = &self.first_hidden {
            owned.push(("w1_first", bytes(&f.w), vec![h, SIDE_INPUTS]));
            owned.push(("b1_first", bytes(&f.b), vec![h]));
        }
        let mut views = Vec::with_capacity(owned.len());
        for (n, data, shape) in &owned {
            let view =
                TensorView::new(Dtype::F32, shape.clone(), data).map_err(|e| e.to_string())?;
            views.push((n.to_string(), view));
        }
        let mut meta = self.metadata.clone();
        // A split net has its own kind, so that a reader that knows only shared
        // nets refuses it instead of ignoring the first-off head's hidden layer.
        let kind = match self.first_hidden {
            Some(_) => KIND_SPLIT,
            None => KIND_SHARED,
        };
        meta.insert("kind".into(), kind.into());
        safetensors::serialize(views, Some(meta)).map_err(|e| e.to_string())
    }

    /// Reads a net written by [`SideNet::to_safetensors`]; every shape is checked.
    pub fn from_safetensors(bytes: &[u8]) -> Result<SideNet, String> {
        use safetensors::tensor::Dtype;
        use safetensors::SafeTensors;
        let err = |m: String| format!("bad one-sided race net file: {m}");
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| err(e.to_string()))?;
        let metadata = header.metadata().clone().unwrap_or_default();
        let split = match metadata.get("kind").map(String::as_str) {
            Some(KIND_SHARED) => false,
            Some(KIND_SPLIT) => true,
            _ => {
                return Err(err(format!(
                    "not a one-sided race net (kind {KIND_SHARED} or {KIND_SPLIT})"
                )))
            }
        };
        let st = SafeTensors::deserialize(bytes).map_err(|e| err(e.to_string()))?;
        let get = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let t = st.tensor(name).map_err(|e| err(format!("{name}: {e}")))?;
            if t.dtype() != Dtype::F32 || t.shape() != shape {
                return Err(err(format!(
                    "{name}: expected f32 {shape:?}, found {:?} {:?}",
                    t.dtype(),
                    t.shape()
                )));
            }
            let v: Vec<f32> = t
                .data()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if v.iter().any(|x| !x.is_finite()) {
                return Err(err(format!("{name}: a weight is not finite")));
            }
            Ok(v)
        };
        let b1 = st.tensor("b1").map_err(|e| err(format!("b1: {e}")))?;
        let hidden = match b1.shape() {
            [h] if (1..=4096).contains(h) => *h,
            s => return Err(err(format!("b1: bad shape {s:?}"))),
        };
        let mut metadata = metadata;
        metadata.remove("kind");
        Ok(SideNet {
            hidden,
            w1: get("w1", &[hidden, SIDE_INPUTS])?,
            b1: get("b1", &[hidden])?,
            w2: [
                get("w2_all", &[RACE_ROLLS, hidden])?,
                get("w2_first", &[RACE_ROLLS, hidden])?,
            ],
            b2: [
                get("b2_all", &[RACE_ROLLS])?,
                get("b2_first", &[RACE_ROLLS])?,
            ],
            first_hidden: match split {
                true => Some(Hidden {
                    w: get("w1_first", &[hidden, SIDE_INPUTS])?,
                    b: get("b1_first", &[hidden])?,
                }),
                false => None,
            },
            metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_by_hand() {
        let mut s = [0u8; 24];
        s[0] = 5; // 5 on the 1-point
        s[7] = 1; // 1 on the 8-point
        let x = side_inputs(&s);
        assert_eq!(&x[0..4], &[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(&x[28..32], &[1.0, 0.0, 0.0, 0.0]);
        assert!((x[96] - 0.13).abs() < 1e-6);
        assert!((x[97] - 2.0 / 50.0).abs() < 1e-6);
        assert!((x[98] - 1.0 / 15.0).abs() < 1e-6);
        assert!((x[99] - 9.0 / 15.0).abs() < 1e-6);
    }

    #[test]
    fn round_trips_through_safetensors_and_sums_to_one() {
        let mut net = SideNet::random(16, 7);
        net.metadata.insert("note".into(), "test".into());
        let bytes = net.to_safetensors().unwrap();
        let back = SideNet::from_safetensors(&bytes).unwrap();
        assert_eq!(back, net);
        let mut s = [0u8; 24];
        s[12] = 3;
        s[3] = 12;
        for d in net.distributions(&s) {
            assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        assert!(SideNet::from_safetensors(&bytes[..bytes.len() - 8]).is_err());
        assert!(SideNet::from_safetensors(b"nonsense").is_err());

        // Split: the same distributions and a new checksum until a head moves;
        // the first-off head's own layer survives the file and moves only that head.
        let mut split = net.clone().split();
        assert_eq!(split.distributions(&s), net.distributions(&s));
        assert_ne!(split.checksum(), net.checksum());
        if let Some(f) = &mut split.first_hidden {
            f.b[0] += 1.0;
        }
        let back = SideNet::from_safetensors(&split.to_safetensors().unwrap()).unwrap();
        assert_eq!(back, split);
        let [all, first] = back.distributions(&s);
        assert_eq!(all, net.distribution(Head::AllOff, &s));
        assert_ne!(first, net.distribution(Head::FirstOff, &s));
        assert_eq!(first, back.distribution(Head::FirstOff, &s));
    }
}
