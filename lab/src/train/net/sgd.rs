//! The plain per-sample gradient step: TD self-play's ([`crate::train::td`]) and
//! `bgfarm-lab train fit --optimizer sgd`'s (the shipped nets' legs up to 30).

use super::gradient::output_errors;
use bgfarm_engine::eval::net::inference::Scratch;
use bgfarm_engine::eval::net::{Net, OUTPUTS};

/// One step of gradient descent on the cross-entropy between `net`'s outputs `out`
/// for the inputs in `scratch` (filled by [`Net::forward`] just before) and
/// `target`, with step size `lr`. Cross-entropy with sigmoid outputs makes the
/// output error simply `out - target`.
pub fn sgd_step(
    net: &mut Net,
    scratch: &Scratch,
    out: &[f32; OUTPUTS],
    target: &[f32; OUTPUTS],
    lr: f32,
) {
    let h = net.hidden();
    // Hidden errors before the weights above them change.
    let mut delta_h = vec![0f32; h];
    let mut delta_m = vec![0f32; net.mid()];
    let delta_out = output_errors(net, scratch, out, target, &mut delta_h, &mut delta_m);
    let p = net.params_mut();
    let top = scratch.top();
    for (k, row) in p.w2.chunks_exact_mut(top.len()).enumerate() {
        let g = lr * delta_out[k];
        for (w, a) in row.iter_mut().zip(top) {
            *w -= g * a;
        }
        p.b2[k] -= g;
    }
    if !p.bm.is_empty() {
        for (row, a) in p.wm.chunks_exact_mut(delta_m.len()).zip(&scratch.hidden) {
            for (w, d) in row.iter_mut().zip(&delta_m) {
                *w -= lr * d * a;
            }
        }
        for (b, d) in p.bm.iter_mut().zip(&delta_m) {
            *b -= lr * d;
        }
    }
    for (b, dh) in p.b1.iter_mut().zip(&delta_h) {
        *b -= lr * dh;
    }
    for (i, v) in scratch.inputs.iter() {
        let row = &mut p.w1[i * h..(i + 1) * h];
        let g = lr * v;
        for (w, dh) in row.iter_mut().zip(&delta_h) {
            *w -= g * dh;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::net::grow::deepen;
    use crate::train::net::init::random_net;
    use bgfarm_engine::position::Position;

    /// 200 steps towards one target bring every output closer to it, with one
    /// hidden layer and with two.
    #[test]
    fn training_moves_outputs_towards_the_target() {
        for mut net in [random_net(16, 1), deepen(&random_net(16, 1), 8, 2)] {
            let mut s = net.scratch();
            let target = [1.0, 0.5, 0.0, 0.0, 0.0];
            let before = net.forward(&Position::STARTING, &mut s);
            for _ in 0..200 {
                let out = net.forward(&Position::STARTING, &mut s);
                sgd_step(&mut net, &s, &out, &target, 0.1);
            }
            let after = net.forward(&Position::STARTING, &mut s);
            for k in 0..OUTPUTS {
                assert!((after[k] - target[k]).abs() < (before[k] - target[k]).abs() + 1e-6);
            }
            assert!((after[0] - 1.0).abs() < 0.05);
        }
    }
}
