//! `bgfarm-lab bench luck-fit`: whether a learned luck estimate without the move
//! walk could replace the ranked one (issue 48, item 1).
//!
//! The luck estimate needs, at each state, a value for each of the 21 rolls; the
//! ranked estimate walks every move of every roll for it (~450 leaves a state, most
//! of a trial's cost). A model g(s, r) from the state alone would skip the walk. This
//! command measures how much of the rolls' spread such a model can carry: it plays
//! 0-ply games from the opening with a random play 1 time in 10 (as the benches are
//! drawn), values each contact state's 21 rolls by the full estimate (the best play
//! by the nets), and fits, per roll, a ridge regression on the contact net's
//! activations at the state (both hidden layers and the outputs; `--screen-features`
//! adds the screen's hidden layer). The first 80% of the games fit it, the rest
//! test it: per state, the roll-weighted mean square of the centred roll values (the
//! luck's variance), of the fit's error and of the ranked estimate's error, both
//! against the full estimate. A trial adds about one such error per state to its
//! variance, so the error is what a replacement would cost.
//!
//! `--leaves` instead counts the walk's leaves and distinct plays per state, for
//! doubles and the other rolls.

use crate::cli::nets::load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::dice::Dice;
use bgfarm_engine::eval::crashed::is_crashed;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::movegen::{self, Leaves, Step};
use bgfarm_engine::position::Position;
use bgfarm_engine::rng::Rng;
use bgfarm_engine::rollout::luck::{ranked_values, LuckScratch};
use bgfarm_engine::MoveGenerator;
use rayon::prelude::*;

#[derive(clap::Args)]
pub struct LuckFitArgs {
    /// Games played (each game's contact states are samples).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Dice seed (game g rolls from stream g).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Nets: `default`, `fast`, a .safetensors bundle or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Ridge added to the normal equations' diagonal (features are activations
    /// in 0..1, averaged over the samples).
    #[arg(long, default_value_t = 1e-3)]
    pub ridge: f64,
    /// Also read out the screen net's hidden layer.
    #[arg(long)]
    pub screen_features: bool,
    /// Count the walk's leaves per state instead of fitting.
    #[arg(long)]
    pub leaves: bool,
}

/// One contact state: the read-out's features, every roll's value by the full and
/// the ranked estimate (mover's cubeless equity), and whether it is crashed.
struct Sample {
    pos: Position,
    features: Vec<f64>,
    full: [f64; 21],
    ranked: [f64; 21],
    crashed: bool,
}

/// A constant, the contact net's activations at `pos` and its outputs (and the
/// screen's hidden layer).
fn features(eval: &NeuralEvaluator<'_>, pos: &Position, screen: bool) -> Vec<f64> {
    let mut s = eval.contact.scratch();
    let out = eval.contact.forward(pos, &mut s);
    let mut v = vec![1.0];
    v.extend(
        s.hidden
            .iter()
            .chain(&s.mid)
            .chain(&out)
            .map(|&x| f64::from(x)),
    );
    if let (true, Some(net)) = (screen, &eval.screen) {
        let mut s = net.scratch();
        net.forward(pos, &mut s);
        v.extend(s.hidden.iter().map(|&x| f64::from(x)));
    }
    v
}

/// The contact states of game `g`.
fn game(eval: &NeuralEvaluator<'_>, a: &LuckFitArgs, g: u64) -> Vec<Sample> {
    let mut rng = Rng::for_stream(a.seed, g);
    let (mut gen, mut es, mut probs) = (MoveGenerator::new(), eval.scratch(), Vec::new());
    let (mut ls, mut es_ranked) = (LuckScratch::default(), eval.scratch());
    let mut pos = Position::STARTING;
    let mut out = Vec::new();
    while !pos.game_over() && pos.has_contact() {
        let roll = rng.roll();
        // The full values' plays include the one of the roll that came; counting
        // leaves needs only that one.
        let (mut full, mut ranked) = ([0f64; 21], [0f64; 21]);
        let mut best = None;
        if a.leaves {
            best = Some(
                eval.best_successor(&mut gen, &mut es, &mut probs, &pos, roll)
                    .0,
            );
        } else {
            for (k, &(dice, _)) in Dice::ALL_21.iter().enumerate() {
                let (n, v) = eval.best_successor(&mut gen, &mut es, &mut probs, &pos, dice);
                full[k] = f64::from(v.equity());
                if dice.high_low() == roll.high_low() {
                    best = Some(n);
                }
            }
            let values = ranked_values(eval, &mut es_ranked, &mut ls, &pos);
            for (r, v) in ranked.iter_mut().zip(values) {
                *r = f64::from(v.equity());
            }
        }
        out.push(Sample {
            pos,
            features: if a.leaves {
                Vec::new()
            } else {
                features(eval, &pos, a.screen_features)
            },
            full,
            ranked,
            crashed: is_crashed(&pos),
        });
        let played = if rng.below(10) == 0 {
            let moves = gen.generate(&pos, roll);
            match moves.len() {
                0 => None,
                n => Some(moves[rng.below(n as u32) as usize].next_position()),
            }
        } else {
            best
        };
        pos = played.unwrap_or_else(|| pos.switch_sides());
    }
    out
}

/// `v` less its roll-weighted mean: the luck of each roll.
fn centred(v: &[f64; 21]) -> [f64; 21] {
    let mean: f64 = Dice::ALL_21
        .iter()
        .zip(v)
        .map(|(&(_, w), x)| f64::from(w) / 36.0 * x)
        .sum();
    v.map(|x| x - mean)
}

/// The roll-weighted mean square of `a - b`.
fn weighted_square(a: &[f64; 21], b: &[f64; 21]) -> f64 {
    Dice::ALL_21
        .iter()
        .zip(a.iter().zip(b))
        .map(|(&(_, w), (x, y))| f64::from(w) / 36.0 * (x - y).powi(2))
        .sum()
}

/// Solves `(a + ridge I) x = b` in place for each column `b` (a symmetric, positive
/// definite `d x d`), by Cholesky.
fn solve(a: &[f64], d: usize, columns: &mut [Vec<f64>], ridge: f64) {
    let mut l = a.to_vec();
    for i in 0..d {
        l[i * d + i] += ridge;
    }
    for j in 0..d {
        let s = l[j * d + j] - (0..j).map(|k| l[j * d + k].powi(2)).sum::<f64>();
        let djj = s.max(1e-12).sqrt();
        l[j * d + j] = djj;
        for i in j + 1..d {
            let s = l[i * d + j] - (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum::<f64>();
            l[i * d + j] = s / djj;
        }
    }
    for x in columns.iter_mut() {
        for i in 0..d {
            let s = x[i] - (0..i).map(|k| l[i * d + k] * x[k]).sum::<f64>();
            x[i] = s / l[i * d + i];
        }
        for i in (0..d).rev() {
            let s = x[i] - (i + 1..d).map(|k| l[k * d + i] * x[k]).sum::<f64>();
            x[i] = s / l[i * d + i];
        }
    }
}

/// Counts a walk's leaves.
struct Count(u64);

impl Leaves for Count {
    fn restart(&mut self) {
        self.0 = 0;
    }
    fn leaf(&mut self, _: &Position, _: &[Step; 4], _: usize) {
        self.0 += 1;
    }
}

fn print_leaves(samples: &[Sample]) {
    let mut gen = MoveGenerator::new();
    // (leaves, distinct plays) of doubles, then of the other rolls.
    let mut sums = [[0u64; 2]; 2];
    for s in samples {
        for &(dice, _) in &Dice::ALL_21 {
            let mut c = Count(0);
            movegen::walk(&s.pos, dice, &mut c);
            let k = usize::from(!dice.is_double());
            sums[k][0] += c.0;
            sums[k][1] += gen.generate(&s.pos, dice).len() as u64;
        }
    }
    let n = samples.len().max(1) as f64;
    println!(
        "{} contact states; per state: doubles {:.1} leaves, {:.1} distinct plays; \
         other rolls {:.1} leaves, {:.1} distinct plays",
        samples.len(),
        sums[0][0] as f64 / n,
        sums[0][1] as f64 / n,
        sums[1][0] as f64 / n,
        sums[1][1] as f64 / n
    );
}

pub fn luck_fit(a: LuckFitArgs) -> Result<(), CliError> {
    let eval = load_evaluator(&a.net)?;
    let samples: Vec<Sample> = (0..a.games)
        .into_par_iter()
        .flat_map_iter(|g| game(&eval, &a, g))
        .collect();
    if a.leaves {
        print_leaves(&samples);
        return Ok(());
    }
    let Some(d) = samples.first().map(|s| s.features.len()) else {
        return Err(CliError::msg("no contact states: play more games"));
    };
    let test_from = samples.len() * 4 / 5;
    println!(
        "{} games, seed {}, nets {}: {} features, ridge {}",
        a.games, a.seed, a.net, d, a.ridge
    );
    println!("class    fitted  tested  luck var  read-out err (R2)  ranked err (R2)");
    for crashed in [false, true] {
        let of_class = |s: &&Sample| s.crashed == crashed;
        let train: Vec<&Sample> = samples[..test_from].iter().filter(of_class).collect();
        let test: Vec<&Sample> = samples[test_from..].iter().filter(of_class).collect();
        if train.len() < d || test.is_empty() {
            continue;
        }
        let mut gram = vec![0f64; d * d];
        let mut columns = vec![vec![0f64; d]; 21];
        for s in &train {
            let y = centred(&s.full);
            for (i, &fi) in s.features.iter().enumerate() {
                for (g, &fj) in gram[i * d..(i + 1) * d].iter_mut().zip(&s.features) {
                    *g += fi * fj;
                }
                for (c, &yr) in columns.iter_mut().zip(&y) {
                    c[i] += fi * yr;
                }
            }
        }
        let n = train.len() as f64;
        gram.iter_mut().for_each(|x| *x /= n);
        columns.iter_mut().flatten().for_each(|x| *x /= n);
        solve(&gram, d, &mut columns, a.ridge);
        let (mut spread, mut fit_err, mut ranked_err) = (0f64, 0f64, 0f64);
        for s in &test {
            let y = centred(&s.full);
            let mut g = [0f64; 21];
            for (gr, c) in g.iter_mut().zip(&columns) {
                *gr = c.iter().zip(&s.features).map(|(b, f)| b * f).sum();
            }
            spread += weighted_square(&y, &[0.0; 21]);
            fit_err += weighted_square(&y, &centred(&g));
            ranked_err += weighted_square(&y, &centred(&s.ranked));
        }
        let m = test.len() as f64;
        println!(
            "{:8} {:6}  {:6}  {:8.5}  {:8.5} ({:5.3})   {:8.5} ({:5.3})",
            if crashed { "crashed" } else { "contact" },
            train.len(),
            test.len(),
            spread / m,
            fit_err / m,
            1.0 - fit_err / spread,
            ranked_err / m,
            1.0 - ranked_err / spread
        );
    }
    Ok(())
}
