//! Unit tests of [`super`].

use super::encode::{SparseInputs, INPUTS, RAW_INPUTS};
use super::format::{bundle_has, load_bundle, save_bundle};
use super::migrate::*;
use super::*;
use crate::position::Position;
use crate::testutil::{random_deep_net, random_net};

#[test]
fn a_bundle_tells_an_absent_net_from_a_present_one() {
    let (a, b) = (random_net(16, 1), random_net(8, 2));
    let bytes = save_bundle(&[("contact.", &a), ("screen.", &b)]).expect("saved");
    assert!(bundle_has(&bytes, "contact.") && bundle_has(&bytes, "screen."));
    assert!(!bundle_has(&bytes, "race.") && !bundle_has(b"not safetensors", "screen."));
    assert_eq!(load_bundle(&bytes, "screen.").expect("loads"), b);
}
use crate::testutil::random_positions;

#[test]
fn safetensors_round_trip_and_validation() {
    let mut net = random_net(16, 3);
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
    let other = random_net(8, 4);
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

/// A file of encoding `bgfarm-198f-v3` (no second block) loads with zero rows
/// there, and so computes what it did.
#[test]
fn v3_files_load_with_zero_second_block_rows() {
    let (contact, race) = (random_net(16, 21), random_net(16, 22));
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

/// A file of encoding `bgfarm-198f-v4` (no third block) loads with zero rows
/// there, and so computes what it did.
#[test]
fn v4_files_load_with_zero_third_block_rows() {
    let (contact, race) = (random_net(16, 31), random_net(16, 32));
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
    let (contact, race) = (random_net(16, 11), random_net(16, 12));
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
    for slot in 0..feature_layout::FEATURES {
        let row = &r.w1[(RAW_INPUTS + slot) * h..(RAW_INPUTS + slot + 1) * h];
        let was = &race.w1[(RAW_INPUTS + slot) * h..(RAW_INPUTS + slot + 1) * h];
        if RACE_ONLY_SLOTS.contains(&slot) || slot >= feature_layout::BASE_FEATURES {
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
    let net = random_net(16, 8);
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
    let mut net = random_deep_net(128, 41, 24, 5);
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
        random_net(128, 9),
        random_net(24, 9),
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
        // The random second layer's 16-bit arithmetic (`quantized`): measured
        // 3.2e-5 (its weights are small, so each gets 15 fraction bits).
        let bound = if net.mid() == 0 { 2e-6 } else { 1e-4 };
        assert!(max < bound, "{}: max abs difference {max:e}", net.shape());
    }
}

/// The built-in deeper nets (contact and crashed) in 16-bit integers stay near
/// their float values: each activation rounded to 2^-13 and each weight to 2^-12
/// or 2^-13 moves an output by 2.8e-5 on average and at most 3.3e-4 over these
/// positions (the contact net; the crashed net 2.4e-5 and 2.8e-4), far below the
/// nets' own errors (an equity RMSE of about 0.04 against their 2-ply search).
#[test]
fn built_in_deep_nets_stay_near_their_float_values() {
    for prefix in ["contact.", ""] {
        let bytes = if prefix.is_empty() {
            crate::eval::default_nets::CRASHED_BYTES
        } else {
            crate::eval::default_nets::DEEP_BYTES
        };
        let net = load_bundle(bytes, prefix).expect("built-in deep net");
        assert!(net.mid() > 0);
        let mut s = net.scratch();
        let (mut max, mut sum, mut n) = (0f64, 0f64, 0usize);
        for pos in random_positions(5000, 3) {
            let fast = net.forward(&pos, &mut s);
            let exact = reference_forward(&net, &pos);
            for k in 0..OUTPUTS {
                let d = (f64::from(fast[k]) - exact[k]).abs();
                max = max.max(d);
                sum += d;
                n += 1;
            }
        }
        let mean = sum / n as f64;
        assert!(max < 1e-3 && mean < 1e-4, "max {max:e}, mean {mean:e}");
    }
}

#[test]
fn simd_levels_agree_bit_for_bit() {
    for net in nets_of_every_shape().into_iter().chain([random_net(72, 6)]) {
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
                // A deeper net's second layer rounds activations to 2^-13
                // (`quantized`): a step of 0.01 on either side may see one
                // rounding more, up to about 0.002 in the slope (measured 0.0016).
                let slack = if net.mid() == 0 { 1e-3 } else { 3e-3 };
                assert!(
                    (numeric - analytic).abs() < slack + 0.02 * numeric.abs(),
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
    let bundle = save_bundle(&[("contact.", &net), ("race.", &random_net(8, 1))]).unwrap();
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

/// The kernels read the second layer as 16-bit integers made from the float
/// weights once: a change through `params_mut` (as every fit step makes) must be
/// seen by the next evaluation, as a net built afresh from the new weights sees it.
#[test]
fn a_changed_second_layer_is_evaluated_as_changed() {
    let mut net = deep_random();
    let pos = random_positions(1, 12)[0];
    let mut s = net.scratch();
    let before = net.forward(&pos, &mut s);
    for w in net.params_mut().wm.iter_mut() {
        *w *= -1.5;
    }
    let after = net.forward(&pos, &mut s);
    assert_ne!(before, after);
    let p = net.params();
    let fresh = Net::from_layers(crate::eval::net::params::Layers {
        hidden: net.hidden(),
        w1: p.w1.to_vec(),
        b1: p.b1.to_vec(),
        wm: p.wm.to_vec(),
        bm: p.bm.to_vec(),
        w2: p.w2.to_vec(),
        b2: *p.b2,
    })
    .expect("same shapes");
    let mut t = fresh.scratch();
    assert_eq!(fresh.forward(&pos, &mut t), after);
}
