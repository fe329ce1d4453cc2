//! Supervised training on positions labelled by a deeper search.
//!
//! TD(lambda) self-play teaches a net to agree with itself one move later; it
//! plateaued at +0.52 points per game against PubEval after 1.5 million games (see
//! `scripts/train-default-nets.sh`). The second pipeline teaches the net what a
//! *deeper* look says instead: positions from self-play are labelled with the n-ply
//! value of the current nets (2-ply averages 21 x 21 replies, so it sees tactics two
//! rolls away the static net misses), and the net is fitted to those labels. Repeated,
//! each round's net labels the next round's positions.
//!
//! The three steps are separate so that the expensive one (labelling: ~3 ms a
//! position at 2-ply) can run on many cores or machines and be kept on disk:
//! - [`selfplay_positions`]: the positions before each roll of one self-play game,
//!   with occasional exploratory moves so the set covers more than the net's own
//!   favourite lines;
//! - [`label`]: a position's probabilities at n plies, by the [`Searcher`];
//! - [`fit`]: gradient descent (Adam on minibatches, or plain per-sample steps) on
//!   the cross-entropy between the net's outputs and the labels, in a seeded random
//!   order, with a held-out part to watch for over-fitting.
//!
//! Every step is a deterministic function of its inputs and seed.

use super::dataset::Sample;
use super::siblings::{difference_targets, residuals};
use crate::eval::net::adam::{Adam, Gradient};
use crate::eval::net::inference::Scratch;
use crate::eval::net::{Net, OUTPUTS};
use crate::eval::neural::{Class, NeuralEvaluator};
use crate::eval::{best_move_index, terminal_probs, Probs};
use crate::movegen::MoveGenerator;
use crate::position::Position;
use crate::rng::Rng;
use crate::rollout::{
    run_batch, Candidate, CubeStart, FirstPlyCache, RolloutJob, TrialScratch, TrialSettings,
};
use crate::search::Searcher;

/// How self-play games wander from the greedy line.
#[derive(Clone, Copy, Debug)]
pub struct Exploration {
    /// Chance that a move is drawn from the best few instead of being the best.
    pub rate: f32,
    /// How many of the best moves (by 0-ply equity) such a move is drawn from.
    pub top: usize,
    /// Chance that a roll's every candidate (the position after each legal play, the
    /// opponent on roll) is kept too, not only the position the game goes on from.
    /// A move choice compares candidates, bad ones included, which games between
    /// good players seldom reach; 0 keeps the games' positions only (and draws no
    /// extra random number, so the games are those of earlier releases).
    pub candidates: f32,
}

impl Default for Exploration {
    /// One move in ten drawn from the best four: enough to reach positions the
    /// greedy net would never play into (a game has ~55 moves, so ~5 detours), few
    /// enough that the positions stay ones strong players meet.
    fn default() -> Self {
        Exploration {
            rate: 0.1,
            top: 4,
            candidates: 0.0,
        }
    }
}

/// The positions before each roll of self-play game `game` (mover's view), those the
/// nets answer (contact and race: not finished games or endgame-table positions),
/// and with [`Exploration::candidates`] some rolls' candidates.
/// The game rolls from `Rng::for_stream(seed, game)`.
pub fn selfplay_positions(
    eval: &NeuralEvaluator<'_>,
    seed: u64,
    game: u64,
    explore: Exploration,
) -> Vec<Position> {
    let mut rng = Rng::for_stream(seed, game);
    let mut gen = MoveGenerator::new();
    let mut scratch = eval.scratch();
    let mut probs: Vec<Probs> = Vec::with_capacity(64);
    let mut order: Vec<(f32, usize)> = Vec::with_capacity(64);
    let mut out = Vec::with_capacity(64);
    let mut pos = Position::STARTING;
    let mut first = true;
    for _ in 0..2000 {
        if matches!(eval.class(&pos), Class::Contact | Class::Race) && !first {
            out.push(pos);
        }
        let dice = loop {
            let d = rng.roll();
            if !(first && d.is_double()) {
                break d;
            }
        };
        first = false;
        let moves = gen.generate(&pos, dice);
        let next = if moves.is_empty() {
            pos.switch_sides()
        } else {
            if explore.candidates > 0.0 && (rng.next_f64() as f32) < explore.candidates {
                out.extend(
                    moves
                        .iter()
                        .map(|m| m.next_position())
                        .filter(|p| matches!(eval.class(p), Class::Contact | Class::Race)),
                );
            }
            eval.evaluate_moves(&pos, moves, &mut scratch, &mut probs);
            let explore_now =
                explore.top > 1 && moves.len() > 1 && (rng.next_f64() as f32) < explore.rate;
            let i = if explore_now {
                order.clear();
                // Equity for the mover: the candidates are scored for the opponent.
                order.extend(probs.iter().enumerate().map(|(i, p)| (-p.equity(), i)));
                order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let k = explore.top.min(order.len());
                order[rng.below(k as u32) as usize].1
            } else {
                best_move_index(&probs).unwrap_or(0)
            };
            moves[i].next_position()
        };
        if terminal_probs(&next).is_some() {
            break;
        }
        pos = next;
    }
    out
}

/// `pos`'s probabilities by a rollout of `trials` trials (player on roll, before the
/// roll): 0-ply play, the ranked luck estimate, stopped where the exact bear-off
/// tables take over, trial `i` with the dice of `(seed, i)`.
///
/// Why rollouts as labels: a search labels a position with the nets' own values a
/// few plies on, so what the nets get wrong about a whole class of positions
/// survives the search. A rollout plays each game to its end (or the exact tables),
/// so the label measures what actually happens. That matters most in races with
/// gammons or backgammons at stake, where the race net's gammon outputs are what
/// decides the move: on GNU Backgammon's bench a few such races are most of the race
/// net's loss. Race trials are short (0.2 ms on average over self-play races, luck
/// estimate included), so 72 trials label a race in ~15 ms on one core.
///
/// The mean of luck-adjusted trials can leave 0..1 by a little; the label is
/// [`Probs::sanitized`].
pub fn rollout_label(
    eval: &NeuralEvaluator<'_>,
    scratch: &mut TrialScratch,
    pos: &Position,
    trials: u64,
    seed: u64,
) -> [f32; OUTPUTS] {
    // A cubeless position rollout with the default settings, through the code
    // `bgfarm rollout` runs (a finished game's trials return its result at once).
    let job = RolloutJob {
        candidates: vec![Candidate {
            label: None,
            start: *pos,
            report_for_opponent: false,
            cube: CubeStart::default(),
        }],
        seed,
        settings: TrialSettings::default(),
    };
    // The first plies of every trial start from the same states: share them.
    let cache = FirstPlyCache::default();
    let stats = run_batch(&job, eval, None, 0..trials, &[], Some(&cache), scratch);
    Probs(std::array::from_fn(|k| {
        stats.per_candidate[0][k].mean() as f32
    }))
    .sanitized()
    .0
}

/// `pos`'s probabilities at `ply` plies (player on roll, before the roll).
pub fn label(searcher: &mut Searcher<'_>, pos: &Position, ply: u8) -> [f32; OUTPUTS] {
    searcher.position_probs(pos, ply).sanitized().0
}

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
    /// Default 32: fitting release 0.7.0's contact net to its 3.7M 1-ply labels
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
/// groups is the one earlier releases made.
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
    let mut adam: Option<Adam> = None;
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
                    net.train_step(&scratch, &out, &s.probs, lr);
                    step += 1;
                }
            }
            Optimizer::Adam { batch } => {
                let batch = batch.max(1);
                let adam = adam.get_or_insert_with(|| Adam::new(net));
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
        let h = crate::rng::splitmix64(&mut (seed ^ (i as u64).wrapping_mul(0x9E37)));
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
    use crate::search::Pruning;

    use crate::testutil::default_nets as default_eval;

    #[test]
    fn rollout_labels_are_exact_where_the_game_is_decided_and_deterministic() {
        let eval = default_eval();
        let mut s = TrialScratch::new(&eval);
        // The mover has one checker left on its 1-point; the opponent has all 15 in
        // the mover's home board: every trial is a backgammon win at once.
        let mut mover = [0u8; 25];
        mover[0] = 1;
        let mut opp = [0u8; 25];
        opp[20] = 8;
        opp[21] = 7;
        let won = Position::from_arrays(&mover, &opp).unwrap();
        assert_eq!(
            rollout_label(&eval, &mut s, &won, 36, 1),
            [1.0, 1.0, 1.0, 0.0, 0.0]
        );
        // Where the exact tables answer, the trials stop at once: the label is theirs.
        let mut home = [0u8; 25];
        home[0] = 3;
        home[4] = 2;
        let endgame = Position::from_arrays(&home, &home).unwrap();
        assert_eq!(eval.class(&endgame), Class::Endgame);
        let exact = eval
            .evaluate_with(&endgame, &mut eval.scratch())
            .sanitized()
            .0;
        assert_eq!(rollout_label(&eval, &mut s, &endgame, 36, 1), exact);
        // A race the tables do not cover: the same trials give the same bits, and
        // the label is a distribution.
        let race = crate::ids::position_id::decode("/wEAAJjtCEB4AA").unwrap();
        assert_eq!(eval.class(&race), Class::Race);
        let a = rollout_label(&eval, &mut s, &race, 72, 3);
        assert_eq!(
            a,
            rollout_label(&eval, &mut TrialScratch::new(&eval), &race, 72, 3)
        );
        assert!(a[0] < 1e-6, "{a:?}");
        assert!(a[3] > 0.99 && (0.0..=a[3]).contains(&a[4]), "{a:?}");
    }

    #[test]
    fn selfplay_positions_are_deterministic_and_cover_both_nets() {
        let eval = default_eval();
        let ex = Exploration::default();
        let a: Vec<Position> = (0..20)
            .flat_map(|g| selfplay_positions(&eval, 7, g, ex))
            .collect();
        let b: Vec<Position> = (0..20)
            .flat_map(|g| selfplay_positions(&eval, 7, g, ex))
            .collect();
        assert_eq!(a, b);
        assert!(a.len() > 20 * 20, "{} positions", a.len());
        assert!(a.iter().any(|p| eval.class(p) == Class::Race));
        assert!(a
            .iter()
            .all(|p| matches!(eval.class(p), Class::Contact | Class::Race)));
        // Exploration changes the games.
        let greedy: Vec<Position> = (0..20)
            .flat_map(|g| {
                selfplay_positions(
                    &eval,
                    7,
                    g,
                    Exploration {
                        rate: 0.0,
                        top: 1,
                        candidates: 0.0,
                    },
                )
            })
            .collect();
        assert_ne!(a, greedy);
    }

    #[test]
    fn one_ply_label_is_the_average_of_the_replies() {
        let eval = default_eval();
        let mut s = Searcher::new(&eval, Pruning::OFF, None);
        let pos = Position::STARTING;
        let l0 = label(&mut s, &pos, 0);
        let l1 = label(&mut s, &pos, 1);
        // The opening is nearly balanced and both agree on it within a few hundredths.
        assert!((l0[0] - 0.5).abs() < 0.05 && (l1[0] - 0.5).abs() < 0.05);
        assert_ne!(l0, l1);
    }

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
            let mut student = Net::random(16, 4);
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
                let mut again = Net::random(16, 4);
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
                    crate::eval::neural::Class::Contact,
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
            let mut student = Net::random(16, 6);
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
