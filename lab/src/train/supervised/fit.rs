//! Supervised step 3: fitting the nets to labelled positions ([`fit`]), with
//! sibling groups fitted on their equity differences.

use crate::train::dataset::Sample;
use crate::train::net::adam::NetAdam;
use crate::train::net::gradient::Gradient;
use crate::train::net::sgd::sgd_step;
use crate::train::siblings::{difference_targets, residuals};
use bgfarm_engine::eval::net::inference::Scratch;
use bgfarm_engine::eval::net::Net;
use bgfarm_engine::eval::Probs;
use bgfarm_engine::rng::Rng;

/// Settings of [`fit`].
#[derive(Clone, Copy, Debug)]
pub struct FitConfig {
    /// Passes over the training part.
    pub epochs: u32,
    /// Learning rate at the start and the end (geometric in between).
    pub lr_start: f32,
    pub lr_end: f32,
    /// Every `holdout`-th sample (by a seeded hash) is held out to measure the fit;
    /// 0 holds out none.
    pub holdout: u32,
    pub seed: u64,
    pub optimizer: Optimizer,
    /// Threads for Adam's minibatch gradients (never changes the result).
    pub threads: usize,
    /// Weight of the sibling groups' equity-difference loss (see
    /// [`super::siblings`]); their members' cross-entropy counts as any sample's.
    /// Default 32: fitting a one-layer contact net to its own 3.7M 1-ply labels
    /// and 46,253 groups (6 epochs), the bench's difference error
    /// (`scripts/contact-diff-check.py`, RMS x1000) was 62.0 at weight 0, 61.4 at
    /// 4 and 61.0 at 32, while the equity RMSE against the labels barely moved
    /// (0.0321, 0.0319, 0.0324 held out).
    pub sibling_weight: f32,
}

/// How [`fit`] turns gradients into steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimizer {
    /// Plain gradient descent, one sample at a time (the shipped nets' legs up to
    /// 30).
    Sgd,
    /// Adam on minibatches of `batch` samples. The batch is split into [`SHARDS`] parts whose gradients are
    /// computed on `threads` threads and summed in order: the same fit on any
    /// thread count.
    Adam { batch: usize },
}

impl Optimizer {
    /// The learning rates at the start and the end that suit it: 0.02 -> 0.002 for
    /// SGD, 0.001 -> 0.00003 for Adam (whose steps are already scaled per weight).
    pub fn default_rates(self) -> (f32, f32) {
        match self {
            Optimizer::Sgd => (0.02, 0.002),
            Optimizer::Adam { .. } => (0.001, 0.00003),
        }
    }
}

/// Parts a minibatch is split into for the threads (fixed, so that the sum's
/// rounding does not depend on how many threads there are).
pub const SHARDS: usize = 8;

impl Default for FitConfig {
    fn default() -> Self {
        let (lr_start, lr_end) = Optimizer::Sgd.default_rates();
        FitConfig {
            epochs: 10,
            lr_start,
            lr_end,
            holdout: 20,
            seed: 1,
            optimizer: Optimizer::Sgd,
            threads: 1,
            sibling_weight: 32.0,
        }
    }
}

/// The fit after one epoch: root mean square error of the cubeless equity
/// (`p(win) * 2 - 1 + gammons + backgammons`, in points) on the training and
/// held-out parts.
#[derive(Clone, Copy, Debug, Default)]
pub struct EpochReport {
    pub epoch: u32,
    pub lr: f32,
    pub train_rmse: f64,
    pub holdout_rmse: f64,
    pub train_samples: usize,
    pub holdout_samples: usize,
    /// RMS of the sibling groups' centred equity residuals (see
    /// [`super::siblings::residuals`]) over the members of the training and
    /// held-out groups; 0 without groups.
    pub sibling_train_rmse: f64,
    pub sibling_holdout_rmse: f64,
    pub sibling_train_groups: usize,
    pub sibling_holdout_groups: usize,
}

/// Fits `net` to `samples` by stochastic gradient descent on the cross-entropy of
/// the five outputs; calls `report` after every epoch (and once before, as epoch 0).
/// Returns the last report.
///
/// With Adam, `groups` (sibling groups, see [`super::siblings`]) are fitted too:
/// each minibatch of samples takes its share of the shuffled groups, whose members
/// add their cross-entropy and `cfg.sibling_weight` times the group's difference
/// loss. Plain SGD ignores them. No group draws a random number, so a fit without
/// groups draws the same numbers as a fit that knows no groups, and fits recorded
/// without them reproduce bit for bit.
pub fn fit(
    net: &mut Net,
    samples: &[Sample],
    groups: &[Vec<Sample>],
    cfg: &FitConfig,
    mut report: impl FnMut(&EpochReport),
) -> EpochReport {
    // Inputs a net of an older file has zero weights for must be fitted too.
    net.read_every_input();
    let (mut train, held) = split_holdout(samples.len(), cfg.seed, cfg.holdout);
    let (mut gtrain, gheld) = split_holdout(groups.len(), cfg.seed ^ 0x6709, cfg.holdout);
    let mut scratch = net.scratch();
    let sibling_rmse = |net: &Net, idx: &[u32], scratch: &mut Scratch| -> f64 {
        let (mut sum, mut n) = (0f64, 0usize);
        let mut outs = Vec::new();
        for &g in idx {
            let group = &groups[g as usize];
            outs.clear();
            outs.extend(group.iter().map(|s| net.forward(&s.pos, scratch)));
            for r in residuals(&outs, group) {
                sum += f64::from(r) * f64::from(r);
                n += 1;
            }
        }
        if n == 0 {
            0.0
        } else {
            (sum / n as f64).sqrt()
        }
    };
    let rmse = |net: &Net, idx: &[u32], scratch: &mut Scratch| -> f64 {
        if idx.is_empty() {
            return 0.0;
        }
        let mut sum = 0f64;
        for &i in idx {
            let s = &samples[i as usize];
            let out = Probs(net.forward(&s.pos, scratch)).sanitized();
            let d = f64::from(out.equity() - Probs(s.probs).equity());
            sum += d * d;
        }
        (sum / idx.len() as f64).sqrt()
    };
    let mut last = EpochReport {
        epoch: 0,
        lr: cfg.lr_start,
        train_rmse: rmse(net, &train, &mut scratch),
        holdout_rmse: rmse(net, &held, &mut scratch),
        train_samples: train.len(),
        holdout_samples: held.len(),
        sibling_train_rmse: sibling_rmse(net, &gtrain, &mut scratch),
        sibling_holdout_rmse: sibling_rmse(net, &gheld, &mut scratch),
        sibling_train_groups: gtrain.len(),
        sibling_holdout_groups: gheld.len(),
    };
    report(&last);
    let mut rng = Rng::for_stream(cfg.seed, 0x05ee_df17);
    let mut adam: Option<NetAdam> = None;
    let mut shards: Vec<(Gradient, Scratch)> = match cfg.optimizer {
        Optimizer::Sgd => Vec::new(),
        Optimizer::Adam { .. } => (0..SHARDS)
            .map(|_| (Gradient::new(net), net.scratch()))
            .collect(),
    };
    let steps = (u64::from(cfg.epochs) * train.len() as u64).max(1);
    let mut step = 0u64;
    for epoch in 1..=cfg.epochs {
        shuffle(&mut train, &mut rng);
        shuffle(&mut gtrain, &mut rng);
        let mut lr = cfg.lr_start;
        let rate =
            |step: u64| cfg.lr_start * (cfg.lr_end / cfg.lr_start).powf(step as f32 / steps as f32);
        match cfg.optimizer {
            Optimizer::Sgd => {
                for &i in &train {
                    let s = &samples[i as usize];
                    lr = rate(step);
                    let out = net.forward(&s.pos, &mut scratch);
                    sgd_step(net, &scratch, &out, &s.probs, lr);
                    step += 1;
                }
            }
            Optimizer::Adam { batch } => {
                let batch = batch.max(1);
                let adam = adam.get_or_insert_with(|| NetAdam::new(net));
                let batches = train.len().div_ceil(batch).max(1);
                for (b, chunk) in train.chunks(batch).enumerate() {
                    lr = rate(step);
                    // This batch's share of the groups: all of them once an epoch.
                    let share =
                        &gtrain[b * gtrain.len() / batches..(b + 1) * gtrain.len() / batches];
                    let batch = Minibatch {
                        samples,
                        chunk,
                        groups,
                        share,
                        weight: cfg.sibling_weight,
                    };
                    minibatch_gradient(net, &batch, &mut shards, cfg.threads);
                    let (first, rest) = shards.split_at_mut(1);
                    for g in rest.iter() {
                        first[0].0.add(&g.0);
                    }
                    adam.step(net, &first[0].0, lr);
                    step += chunk.len() as u64;
                }
            }
        }
        last = EpochReport {
            epoch,
            lr,
            train_rmse: rmse(net, &train, &mut scratch),
            holdout_rmse: rmse(net, &held, &mut scratch),
            train_samples: train.len(),
            holdout_samples: held.len(),
            sibling_train_rmse: sibling_rmse(net, &gtrain, &mut scratch),
            sibling_holdout_rmse: sibling_rmse(net, &gheld, &mut scratch),
            sibling_train_groups: gtrain.len(),
            sibling_holdout_groups: gheld.len(),
        };
        report(&last);
    }
    last
}

/// Indices `0..n` split into a training and a held-out part: every `holdout`-th by
/// a hash of `seed` and the index (none with `holdout` 0).
fn split_holdout(n: usize, seed: u64, holdout: u32) -> (Vec<u32>, Vec<u32>) {
    let mut train: Vec<u32> = Vec::with_capacity(n);
    let mut held: Vec<u32> = Vec::new();
    for i in 0..n {
        let h = bgfarm_engine::rng::splitmix64(&mut (seed ^ (i as u64).wrapping_mul(0x9E37)));
        if holdout > 0 && h.is_multiple_of(u64::from(holdout)) {
            held.push(i as u32);
        } else {
            train.push(i as u32);
        }
    }
    (train, held)
}

/// Fisher-Yates with the seeded generator: the same order on every machine (no
/// random number drawn for fewer than two items).
fn shuffle(v: &mut [u32], rng: &mut Rng) {
    for k in (1..v.len()).rev() {
        let j = rng.below(k as u32 + 1) as usize;
        v.swap(k, j);
    }
}

/// What one Adam step learns from: samples `chunk` indexes and groups `share`
/// indexes.
struct Minibatch<'a> {
    samples: &'a [Sample],
    chunk: &'a [u32],
    groups: &'a [Vec<Sample>],
    share: &'a [u32],
    weight: f32,
}

/// The summed gradients of a minibatch, [`SHARDS`] parts of it in `shards` (part
/// `k` holds the samples `k * len / SHARDS..` and the groups likewise), the parts
/// spread over `threads` scoped threads (about 30 us to start per thread, against
/// ~1.3 ms of work in a 256-sample batch).
fn minibatch_gradient(
    net: &Net,
    batch: &Minibatch<'_>,
    shards: &mut [(Gradient, Scratch)],
    threads: usize,
) {
    let parts = shards.len();
    let work = |k: usize, g: &mut Gradient, scratch: &mut Scratch| {
        g.clear();
        let part = |len: usize| k * len / parts..(k + 1) * len / parts;
        for &i in &batch.chunk[part(batch.chunk.len())] {
            let s = &batch.samples[i as usize];
            let out = net.forward(&s.pos, scratch);
            g.add_sample(net, scratch, &out, &s.probs);
        }
        let mut outs = Vec::new();
        for &j in &batch.share[part(batch.share.len())] {
            let group = &batch.groups[j as usize];
            outs.clear();
            outs.extend(group.iter().map(|s| net.forward(&s.pos, scratch)));
            let targets = difference_targets(&outs, group, batch.weight);
            // Forward again: the gradient needs each member's activations.
            for (s, target) in group.iter().zip(&targets) {
                let out = net.forward(&s.pos, scratch);
                g.add_sample(net, scratch, &out, target);
            }
        }
    };
    let threads = threads.clamp(1, parts);
    if threads == 1 {
        for (k, (g, scratch)) in shards.iter_mut().enumerate() {
            work(k, g, scratch);
        }
        return;
    }
    let per = parts.div_ceil(threads);
    std::thread::scope(|scope| {
        for (t, group) in shards.chunks_mut(per).enumerate() {
            let work = &work;
            scope.spawn(move || {
                for (j, (g, scratch)) in group.iter_mut().enumerate() {
                    work(t * per + j, g, scratch);
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::net::init::random_net;
    use crate::train::supervised::positions::{selfplay_positions, Exploration};
    use crate::train::testutil::default_nets as default_eval;
    use bgfarm_engine::movegen::MoveGenerator;
    use bgfarm_engine::position::Position;

    #[test]
    fn fitting_pulls_a_net_towards_its_labels() {
        let eval = default_eval();
        let positions: Vec<Position> = (0..30)
            .flat_map(|g| selfplay_positions(&eval, 3, g, Exploration::default()))
            .filter(|p| p.has_contact())
            .collect();
        // Labels from the trained net; the student starts from random weights.
        let mut sc = eval.scratch();
        let samples: Vec<Sample> = positions
            .iter()
            .map(|p| Sample {
                pos: *p,
                probs: eval.evaluate_with(p, &mut sc).0,
            })
            .collect();
        let sgd = FitConfig {
            epochs: 5,
            lr_start: 0.05,
            lr_end: 0.01,
            holdout: 10,
            seed: 2,
            optimizer: Optimizer::Sgd,
            threads: 1,
            sibling_weight: 32.0,
        };
        let adam = FitConfig {
            lr_start: 0.01,
            lr_end: 0.001,
            optimizer: Optimizer::Adam { batch: 32 },
            ..sgd
        };
        for cfg in [sgd, adam] {
            let mut student = random_net(16, 4);
            let mut reports = Vec::new();
            let last = fit(&mut student, &samples, &[], &cfg, |r| reports.push(*r));
            assert_eq!(reports.len(), 6);
            assert!(last.holdout_samples > 0 && last.train_samples > last.holdout_samples);
            assert!(
                last.train_rmse < reports[0].train_rmse * 0.7,
                "{cfg:?}: {:?} -> {:?}",
                reports[0],
                last
            );
            // Deterministic, on any number of threads.
            for threads in [1, 3] {
                let mut again = random_net(16, 4);
                fit(
                    &mut again,
                    &samples,
                    &[],
                    &FitConfig { threads, ..cfg },
                    |_| {},
                );
                assert_eq!(again, student, "{cfg:?} on {threads} threads");
            }
        }
    }

    /// Sibling groups with a difference weight teach a student the trained net's
    /// differences within each roll's plays better than the same groups fitted as
    /// plain samples (weight 0), and the fit is the same on any thread count.
    #[test]
    fn sibling_groups_teach_differences() {
        use crate::train::siblings::sibling_positions;
        let eval = default_eval();
        let mut gen = MoveGenerator::new();
        let mut sc = eval.scratch();
        let label = |p: &Position, sc: &mut _| Sample {
            pos: *p,
            probs: eval.evaluate_with(p, sc).0,
        };
        let parents: Vec<Position> = (0..12)
            .flat_map(|g| selfplay_positions(&eval, 5, g, Exploration::default()))
            .filter(|p| p.has_contact())
            .collect();
        let samples: Vec<Sample> = parents.iter().map(|p| label(p, &mut sc)).collect();
        let groups: Vec<Vec<Sample>> = parents
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let dice = Rng::for_stream(9, i as u64).roll();
                sibling_positions(
                    &eval,
                    &mut gen,
                    p,
                    dice,
                    bgfarm_engine::eval::neural::Class::Contact,
                )
                .iter()
                .map(|q| label(q, &mut sc))
                .collect::<Vec<_>>()
            })
            .filter(|g| !g.is_empty())
            .collect();
        assert!(groups.len() > 100, "{} groups", groups.len());
        let cfg = FitConfig {
            epochs: 4,
            lr_start: 0.01,
            lr_end: 0.002,
            holdout: 10,
            seed: 4,
            optimizer: Optimizer::Adam { batch: 16 },
            threads: 1,
            sibling_weight: 0.0,
        };
        let run = |cfg: &FitConfig| {
            let mut student = random_net(16, 6);
            let last = fit(&mut student, &samples, &groups, cfg, |_| {});
            (student, last)
        };
        let (_, plain) = run(&cfg);
        let weighted = FitConfig {
            sibling_weight: 16.0,
            ..cfg
        };
        let (student, diff) = run(&weighted);
        assert!(plain.sibling_train_groups > 0 && plain.sibling_holdout_groups > 0);
        assert!(
            diff.sibling_train_rmse < plain.sibling_train_rmse * 0.9,
            "weight 16: {diff:?}, weight 0: {plain:?}"
        );
        let (again, _) = run(&FitConfig {
            threads: 3,
            ..weighted
        });
        assert_eq!(again, student);
    }
}
