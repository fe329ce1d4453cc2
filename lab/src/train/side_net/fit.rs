//! Fitting the one-sided race net ([`SideNet`]) to exact one-sided distributions:
//! cross-entropy of each head's softmax against the searched distribution, the
//! shared [`Adam`] (per-moment bias correction, idle weights skipped),
//! mini-batches split over threads.
//!
//! Why cross-entropy on the whole distribution rather than a loss on the expected
//! rolls: the race's chances are sums over the two sides' distributions (see
//! [`win_from`](bgfarm_engine::eval::race::distribution::win_from)), so their shape
//! matters, and the softmax keeps every prediction a distribution.

use super::SideSample;
use crate::train::adam::{Adam, Correction};
use bgfarm_engine::eval::race::side::{expected_rolls, Side, RACE_ROLLS};
use bgfarm_engine::eval::race::side_net::{side_inputs, Head, Hidden, SideNet, SIDE_INPUTS};
use bgfarm_engine::eval::race::side_race::pips_to_come_home;
use bgfarm_engine::rng::Rng;

/// How to fit.
#[derive(Clone, Debug)]
pub struct SideFitOptions {
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub threads: usize,
    pub seed: u64,
    /// Fit only this head's output layer: the hidden layer and the other head keep
    /// their weights bit for bit, so the other head's distributions do not move.
    /// Why: the heads share the hidden layer, and a fit on far first-off samples
    /// moved the all-off head in mid-length races (a bench race without gammons
    /// went from 0 to 0.044 lost).
    pub only_head: Option<Head>,
}

/// Held-out figures after an epoch.
#[derive(Clone, Copy, Debug, Default)]
pub struct SideFitReport {
    pub epoch: usize,
    /// Mean cross-entropy minus the targets' own entropy (the KL divergence), nats.
    pub kl: f64,
    /// Mean absolute error of the expected rolls.
    pub mean_error: f64,
    /// Largest absolute error of the expected rolls.
    pub max_error: f64,
    /// Mean absolute error of the expected rolls of the sides of
    /// [`FAR_PIPS`] pips or more (the race's early sides, where the searches cost
    /// most), and how many there were.
    pub far_error: f64,
    pub far: usize,
    /// The same for the first-off samples of savers at least
    /// [`FAR_FIRST_PIPS`] pips from home, where the net is hardest to fit.
    pub far_first_error: f64,
    pub far_first: usize,
}

/// Pips to come home from which [`SideFitReport::far_first_error`] counts a
/// saver: where a net with one hidden layer for both heads was too far off
/// (0.03 rolls and more) for the evaluator to take its gammon chances.
pub const FAR_FIRST_PIPS: u32 = 25;

/// Pips from which [`SideFitReport::far_error`] counts a side.
pub const FAR_PIPS: u32 = 60;

fn pips(side: &Side) -> u32 {
    side.iter()
        .enumerate()
        .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
        .sum()
}

/// A net of zeros shaped like `net`: a gradient.
fn zeros_like(net: &SideNet) -> SideNet {
    SideNet {
        hidden: net.hidden,
        w1: vec![0.0; net.w1.len()],
        b1: vec![0.0; net.b1.len()],
        w2: [vec![0.0; net.w2[0].len()], vec![0.0; net.w2[1].len()]],
        b2: [vec![0.0; RACE_ROLLS], vec![0.0; RACE_ROLLS]],
        first_hidden: net.first_hidden.as_ref().map(|f| Hidden {
            w: vec![0.0; f.w.len()],
            b: vec![0.0; f.b.len()],
        }),
        metadata: Default::default(),
    }
}

/// The parameters in a fixed order: w1, b1, w2 and b2 of each head, then a split
/// net's first-off hidden layer.
fn params(n: &SideNet) -> Vec<&Vec<f32>> {
    let mut v = vec![&n.w1, &n.b1, &n.w2[0], &n.b2[0], &n.w2[1], &n.b2[1]];
    if let Some(f) = &n.first_hidden {
        v.extend([&f.w, &f.b]);
    }
    v
}

fn params_mut(n: &mut SideNet) -> Vec<&mut Vec<f32>> {
    let [w2a, w2b] = &mut n.w2;
    let [b2a, b2b] = &mut n.b2;
    let mut v = vec![&mut n.w1, &mut n.b1, w2a, b2a, w2b, b2b];
    if let Some(f) = &mut n.first_hidden {
        v.extend([&mut f.w, &mut f.b]);
    }
    v
}

/// Which of [`params`] a fit moves: all, or with `only` one head's output layer
/// and, in a split net, the first-off head's own hidden layer.
fn moving(net: &SideNet, only: Option<Head>) -> Vec<bool> {
    let mut v = match only {
        None => vec![true; 6],
        Some(Head::AllOff) => vec![false, false, true, true, false, false],
        Some(Head::FirstOff) => vec![false, false, false, false, true, true],
    };
    if net.has_own_hidden(Head::FirstOff) {
        v.extend([only != Some(Head::AllOff); 2]);
    }
    v
}

/// The net's distribution of `s`'s head, with its hidden layer and inputs.
fn forward(net: &SideNet, s: &SideSample) -> ([f32; SIDE_INPUTS], Vec<f32>, [f64; RACE_ROLLS]) {
    let x = side_inputs(&s.side);
    let h = net.hidden_layer(s.head, &x);
    let logits = net.logits(s.head, &h);
    let m = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let mut p = [0f64; RACE_ROLLS];
    let mut sum = 0f64;
    for (o, &l) in p.iter_mut().zip(&logits) {
        *o = f64::from(l - m).exp();
        sum += *o;
    }
    for o in &mut p {
        *o /= sum;
    }
    (x, h, p)
}

/// Adds the cross-entropy gradient of `s` to `g`; with `frozen_hidden`, to the
/// output layer only (`s`'s head's hidden layer does not move).
fn accumulate(net: &SideNet, s: &SideSample, g: &mut SideNet, frozen_hidden: bool) {
    let (x, h, p) = forward(net, s);
    let k = s.head as usize;
    let hidden = net.hidden;
    let mut dh = vec![0f32; hidden];
    for (n, (&q, &t)) in p.iter().zip(&s.target).enumerate() {
        let d = (q - f64::from(t)) as f32;
        if d.abs() < 1e-9 {
            continue;
        }
        g.b2[k][n] += d;
        let row = &net.w2[k][n * hidden..][..hidden];
        let grow = &mut g.w2[k][n * hidden..][..hidden];
        for j in 0..hidden {
            grow[j] += d * h[j];
            dh[j] += d * row[j];
        }
    }
    if frozen_hidden {
        return;
    }
    let nonzero: Vec<(usize, f32)> = x
        .iter()
        .enumerate()
        .filter(|(_, &v)| v != 0.0)
        .map(|(i, &v)| (i, v))
        .collect();
    let (gw1, gb1) = g.hidden_weights_mut(s.head);
    for j in 0..hidden {
        let d = dh[j] * h[j] * (1.0 - h[j]);
        gb1[j] += d;
        let grow = &mut gw1[j * SIDE_INPUTS..][..SIDE_INPUTS];
        for &(i, v) in &nonzero {
            grow[i] += d * v;
        }
    }
}

/// Held-out figures of `net` on `samples`.
pub fn evaluate(net: &SideNet, samples: &[SideSample]) -> SideFitReport {
    let mut r = SideFitReport::default();
    if samples.is_empty() {
        return r;
    }
    for s in samples {
        let (_, _, p) = forward(net, s);
        let mut kl = 0f64;
        for (&t, &q) in s.target.iter().zip(&p) {
            let t = f64::from(t);
            if t > 1e-12 {
                kl += t * (t / q.max(1e-300)).ln();
            }
        }
        r.kl += kl;
        let e = (expected_rolls(&p) - expected_rolls(&s.target)).abs();
        r.mean_error += e;
        r.max_error = r.max_error.max(e);
        if pips(&s.side) >= FAR_PIPS {
            r.far_error += e;
            r.far += 1;
        }
        if s.head == Head::FirstOff && pips_to_come_home(&s.side) >= FAR_FIRST_PIPS {
            r.far_first_error += e;
            r.far_first += 1;
        }
    }
    r.kl /= samples.len() as f64;
    r.mean_error /= samples.len() as f64;
    r.far_error /= r.far.max(1) as f64;
    r.far_first_error /= r.far_first.max(1) as f64;
    r
}

/// Fits `net` to `train` with Adam for `opts.epochs` epochs, calling `report` with
/// the held-out figures on `test` after each.
pub fn fit(
    net: &mut SideNet,
    train: &[SideSample],
    test: &[SideSample],
    opts: &SideFitOptions,
    mut report: impl FnMut(SideFitReport),
) {
    let mut adam =
        Adam::new(params(net).iter().map(|p| p.len()), Correction::PerMoment).skipping_idle();
    // With `only_head`, the other head's samples give no gradient to what moves.
    let mut order: Vec<usize> = (0..train.len())
        .filter(|&i| opts.only_head.is_none_or(|h| train[i].head == h))
        .collect();
    let moves = moving(net, opts.only_head);
    // Fitting one head, the hidden layer its samples read moves only when it is
    // that head's own (a split net's first-off head).
    let frozen_hidden = opts.only_head.is_some_and(|h| !net.has_own_hidden(h));
    let mut rng = Rng::new(opts.seed);
    let threads = opts.threads.max(1);
    let batch = opts.batch.max(1);
    // Epoch 0: the starting net as it is (an `--init` net's figures on new samples).
    report(evaluate(net, test));
    for epoch in 1..=opts.epochs {
        for i in (1..order.len()).rev() {
            let j = rng.below((i + 1) as u32) as usize;
            order.swap(i, j);
        }
        for chunk in order.chunks(batch) {
            let per = chunk.len().div_ceil(threads);
            let grads: Vec<SideNet> = std::thread::scope(|scope| {
                let handles: Vec<_> = chunk
                    .chunks(per)
                    .map(|part| {
                        let net = &*net;
                        scope.spawn(move || {
                            let mut g = zeros_like(net);
                            for &i in part {
                                accumulate(net, &train[i], &mut g, frozen_hidden);
                            }
                            g
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            });
            adam.begin_step();
            let scale = 1.0 / chunk.len() as f32;
            let gs: Vec<Vec<&Vec<f32>>> = grads.iter().map(params).collect();
            for (k, p) in params_mut(net).into_iter().enumerate() {
                if !moves[k] {
                    continue;
                }
                // The threads' gradients summed in thread order, then scaled.
                let g = (0..p.len()).map(|i| gs.iter().map(|g| g[k][i]).sum::<f32>() * scale);
                adam.update(k, p, g, opts.lr);
            }
        }
        let mut r = evaluate(net, test);
        r.epoch = epoch;
        report(r);
    }
}

#[cfg(test)]
mod tests {
    use super::super::samples::{decode_samples, encode_samples};
    use super::*;
    use bgfarm_engine::eval::bearoff::BearoffDb;
    use bgfarm_engine::eval::race::distribution::{drain_memo, rolls_distribution};

    /// A small net learns the exact distributions of the sides one search visits:
    /// after a few epochs its expected rolls are within a fraction of a roll, far
    /// closer than a random net's.
    #[test]
    fn learns_searched_distributions() {
        let one = BearoffDb::global().one_sided();
        let _ = drain_memo(false);
        let mut side = [0u8; 24];
        side[8] = 1; // one on the 9-point
        side[6] = 1;
        side[5] = 6;
        side[2] = 7;
        rolls_distribution(one, &side, 1_000_000).unwrap();
        let samples: Vec<SideSample> = drain_memo(false)
            .into_iter()
            .map(|(side, target)| SideSample {
                side,
                head: Head::AllOff,
                target,
            })
            .collect();
        assert!(samples.len() > 50, "{}", samples.len());
        let bytes = encode_samples(&samples);
        assert_eq!(decode_samples(&bytes).unwrap(), samples);
        assert!(decode_samples(&bytes[..bytes.len() - 1]).is_err());
        let mut net = SideNet::random(24, 1);
        let before = evaluate(&net, &samples);
        let opts = SideFitOptions {
            epochs: 30,
            batch: 32,
            lr: 0.01,
            threads: 2,
            seed: 3,
            only_head: None,
        };
        let mut last = SideFitReport::default();
        fit(&mut net, &samples, &samples, &opts, |r| last = r);
        assert_eq!(last.epoch, 30);
        assert!(
            last.mean_error < 0.2 && last.mean_error < before.mean_error / 5.0,
            "{before:?} {last:?}"
        );

        // Fitting the first-off head alone (here to the same distributions) leaves
        // the hidden layer and the all-off head bit for bit as they were, and
        // still learns: a readout of the fitted hidden layer suffices.
        let first: Vec<SideSample> = samples
            .iter()
            .map(|s| SideSample {
                head: Head::FirstOff,
                ..s.clone()
            })
            .collect();
        let mut readout = net.clone();
        let before = evaluate(&readout, &first);
        let opts = SideFitOptions {
            only_head: Some(Head::FirstOff),
            lr: 0.05,
            epochs: 10,
            ..opts
        };
        // All-off samples mixed in are skipped, not fitted through the hidden layer.
        let mixed: Vec<SideSample> = first.iter().chain(&samples).cloned().collect();
        fit(&mut readout, &mixed, &first, &opts, |r| last = r);
        assert_eq!(
            (&readout.w1, &readout.b1, &readout.w2[0], &readout.b2[0]),
            (&net.w1, &net.b1, &net.w2[0], &net.b2[0])
        );
        assert!(
            last.mean_error < before.mean_error / 3.0 && last.mean_error < 0.4,
            "{before:?} {last:?}"
        );

        // A split net refits the first-off head's own hidden layer as well, and
        // still leaves the all-off head as it was.
        let mut own = net.clone().split();
        let mut split_last = SideFitReport::default();
        fit(&mut own, &mixed, &first, &opts, |r| split_last = r);
        assert_eq!(
            (&own.w1, &own.b1, &own.w2[0], &own.b2[0]),
            (&net.w1, &net.b1, &net.w2[0], &net.b2[0])
        );
        assert_ne!(own.first_hidden.as_ref().map(|f| &f.w), Some(&net.w1));
        assert!(
            split_last.mean_error < before.mean_error / 3.0,
            "{before:?} {split_last:?}"
        );
    }
}
