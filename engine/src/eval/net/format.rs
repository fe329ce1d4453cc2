//! Nets in safetensors files: one net, or several in one bundle, with metadata
//! naming the input encoding, so that a file made for another encoding is refused
//! rather than misread (older encodings are read through [`super::migrate`]).

use super::encode::INPUTS;
use super::kernels::LANES;
use super::migrate::{self, Role, ENCODING};
use super::{Net, OUTPUTS};
use std::collections::HashMap;

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetError(pub String);

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NetError {}

impl Net {
    /// Serializes to safetensors bytes, with `metadata` and the encoding name.
    pub fn to_safetensors(&self) -> Result<Vec<u8>, NetError> {
        save_bundle(&[("", self)])
    }

    /// Loads weights from safetensors bytes, checking shapes, the encoding and that
    /// every weight is finite: a file holding one net, for `role`.
    pub fn from_safetensors(bytes: &[u8], role: Role) -> Result<Net, NetError> {
        load_net(bytes, "", role)
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

/// The nets of a bundle as an evaluator's (contact, race, screen, crashed): the
/// contact and race nets must be there, the screen and the crashed net may be
/// absent. What `--net FILE` loads and what a worker loads from the nets a label
/// job carries, so both evaluate alike.
pub fn load_evaluator_nets(bytes: &[u8]) -> Result<BundleNets, NetError> {
    let optional = |name: &str| -> Result<Option<Net>, NetError> {
        if bundle_has(bytes, name) {
            load_bundle(bytes, name).map(Some)
        } else {
            Ok(None)
        }
    };
    Ok(BundleNets {
        contact: load_bundle(bytes, "contact.")?,
        race: load_bundle(bytes, "race.")?,
        screen: optional("screen.")?,
        crashed: optional("crashed.")?,
    })
}

/// The nets of an evaluator read from a bundle ([`load_evaluator_nets`]).
pub struct BundleNets {
    pub contact: Net,
    pub race: Net,
    pub screen: Option<Net>,
    pub crashed: Option<Net>,
}

/// [`load_bundle`] with the net's role given.
pub fn load_net(bytes: &[u8], name: &str, role: Role) -> Result<Net, NetError> {
    use safetensors::tensor::Dtype;
    use safetensors::SafeTensors;
    let err = |m: String| NetError(format!("bad network file: {m}"));
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| err(e.to_string()))?;
    let all_meta = header.metadata().clone().unwrap_or_default();
    let rows = match all_meta.get("encoding") {
        Some(e) => migrate::stored_rows(e).map_err(err)?,
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
    let encoding = all_meta.get("encoding").map_or("", String::as_str);
    migrate::complete_first_layer(&mut w1, hidden, encoding, role);
    let third = migrate::third_block_used(&w1, hidden);
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
        wq: std::sync::OnceLock::new(),
    })
}
