//! Nets grown from trained ones: wider (more first-layer units) or deeper (a second
//! hidden layer), computing the same outputs (widen) or keeping the trained first
//! layer (deepen) so that training goes on from what was learnt.

use super::init::random_net;
use bgfarm_engine::eval::net::encode::INPUTS;
use bgfarm_engine::eval::net::kernels::LANES;
use bgfarm_engine::eval::net::params::Layers;
use bgfarm_engine::eval::net::{Net, OUTPUTS};
use bgfarm_engine::rng::Rng;

/// `net`'s first layer under a new second hidden layer of `mid` units and a new
/// output layer, both with small random weights (deterministic in `seed`): the
/// first layer's trained features kept, the layers above to be fitted. The output
/// biases are kept, so the deeper net starts near the outputs' base rates.
pub fn deepen(net: &Net, mid: usize, seed: u64) -> Net {
    assert!(
        mid > 0 && mid.is_multiple_of(LANES) && net.mid() == 0,
        "a second layer needs a positive multiple of 8 units, on a net with one"
    );
    let p = net.params();
    let hidden = net.hidden();
    let mut rng = Rng::new(seed);
    let mut uniform = |scale: f32| ((rng.next_f64() * 2.0 - 1.0) as f32) * scale;
    let sm = 2.0 / (hidden as f32).sqrt();
    let s2 = 1.0 / (mid as f32).sqrt();
    let layers = Layers {
        hidden,
        w1: p.w1.to_vec(),
        b1: p.b1.to_vec(),
        wm: (0..mid * hidden).map(|_| uniform(sm)).collect(),
        bm: vec![0.0; mid],
        w2: (0..OUTPUTS * mid).map(|_| uniform(s2)).collect(),
        b2: *p.b2,
    };
    let mut deep = Net::from_layers(layers).expect("a deepened net's shapes follow its widths");
    deep.metadata = net.metadata.clone();
    deep
}

/// `net` with `hidden` hidden units (at least its own): the new units get small
/// random input weights (deterministic in `seed`) and zero output weights, so the
/// wider net computes exactly the same outputs until training gives them a use.
/// For supervised refinement when the net's capacity, not the data, limits the fit.
pub fn widen(net: &Net, hidden: usize, seed: u64) -> Net {
    assert!(
        hidden >= net.hidden() && hidden.is_multiple_of(LANES),
        "a wider net needs a multiple of 8 at least as wide"
    );
    let p = net.params();
    let fresh = random_net(hidden, seed);
    let (old, new) = (net.hidden(), hidden);
    let mut w1 = fresh.params().w1.to_vec();
    for i in 0..INPUTS {
        w1[i * new..i * new + old].copy_from_slice(&p.w1[i * old..(i + 1) * old]);
        // Quieter than a fresh net's: the new units start near the middle of the
        // sigmoid and learn without disturbing the trained ones.
        for w in &mut w1[i * new + old..(i + 1) * new] {
            *w *= 0.25;
        }
    }
    let mut b1 = vec![0.0; new];
    b1[..old].copy_from_slice(p.b1);
    // The layer above the first gets zero weights from the new units: the
    // output layer of a one-layer net, the second hidden layer of a deeper one.
    let grow = |w: &[f32], rows: usize| {
        let mut out = vec![0.0; rows * new];
        for k in 0..rows {
            out[k * new..k * new + old].copy_from_slice(&w[k * old..(k + 1) * old]);
        }
        out
    };
    let (wm, w2) = if p.bm.is_empty() {
        (Vec::new(), grow(p.w2, OUTPUTS))
    } else {
        // Rows of zeros for the new units.
        let mut wm = p.wm.to_vec();
        wm.resize(new * p.bm.len(), 0.0);
        (wm, p.w2.to_vec())
    };
    let layers = Layers {
        hidden: new,
        w1,
        b1,
        wm,
        bm: p.bm.to_vec(),
        w2,
        b2: *p.b2,
    };
    let mut wide = Net::from_layers(layers).expect("a widened net's shapes follow its widths");
    wide.metadata = net.metadata.clone();
    wide
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::testutil::{nets_of_every_shape, random_positions};

    /// A widened net computes what the net did (within float rounding: the new
    /// units add exact zeros, but the sums are longer).
    #[test]
    fn widening_keeps_the_outputs() {
        for net in nets_of_every_shape() {
            let wide = widen(&net, net.hidden() + 64, 3);
            assert_eq!(wide.hidden(), net.hidden() + 64);
            assert_eq!(wide.mid(), net.mid());
            let (mut a, mut b) = (net.scratch(), wide.scratch());
            for pos in random_positions(500, 6) {
                let x = net.forward(&pos, &mut a);
                let y = wide.forward(&pos, &mut b);
                for k in 0..OUTPUTS {
                    assert!((x[k] - y[k]).abs() < 1e-5, "{x:?} {y:?}");
                }
            }
        }
    }

    /// A deepened net keeps the first layer and the output biases.
    #[test]
    fn deepening_keeps_the_first_layer() {
        let net = random_net(16, 1);
        let deep = deepen(&net, 8, 2);
        assert_eq!((deep.hidden(), deep.mid()), (16, 8));
        let (p, q) = (net.params(), deep.params());
        assert_eq!((p.w1, p.b1, p.b2), (q.w1, q.b1, q.b2));
    }
}
