//! `bgfarm-lab bench residuals`: where a luck-adjusted rollout's variance is left.
//!
//! With the full luck estimate (every roll's best 0-ply play, valued by the nets)
//! a trial's luck-adjusted result telescopes to the first state's roll average plus
//! one residual per later state, `E_r V(s_t, r) - V(s_{t-1}, r_{t-1})` (both from
//! the player on roll at `s_t`, the second sign-flipped): how far the nets' value of
//! the play made disagrees with the average of the next player's 21 best replies.
//! No luck estimate removes these; only nets more consistent with their own play do.
//! This command plays trials at 0-ply, sums the squared residuals by the class of
//! the state they arise at (contact, crashed, race, bear-off, the final result
//! against the last value), and prints each class's share, with the per-trial SD
//! of the summed residuals (the full estimate's per-trial SD, first roll aside).

use crate::cli::nets::load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::dice::Dice;
use bgfarm_engine::eval::crashed::is_crashed;
use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::eval::terminal_probs;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::position::Position;
use bgfarm_engine::rng::Rng;
use bgfarm_engine::MoveGenerator;
use rayon::prelude::*;

#[derive(clap::Args)]
pub struct ResidualsArgs {
    /// Trials (games played to the end at 0-ply).
    #[arg(long, default_value_t = 1000)]
    pub trials: u64,
    /// Dice seed (trial t rolls from stream t).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The position the trials start from (GNU Backgammon position ID, player on
    /// roll before the roll).
    #[arg(long, default_value = "4HPwATDgc/ABMA")]
    pub position: String,
    /// Nets: `default`, `fast`, a .safetensors bundle or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
}

/// State classes, in the order of the table.
const CLASSES: [&str; 5] = ["contact", "crashed", "race", "bear-off", "result"];

/// One trial's residuals: per class (sum of squares, sum, count), and the
/// sign-adjusted sum from the first player's side.
#[derive(Clone, Copy, Default)]
struct Tally {
    squares: [f64; 5],
    sums: [f64; 5],
    counts: [u64; 5],
    total: f64,
}

impl Tally {
    fn add(&mut self, class: usize, r: f64, sign: f64) {
        self.squares[class] += r * r;
        self.sums[class] += r;
        self.counts[class] += 1;
        self.total += sign * r;
    }

    fn merge(mut self, o: Tally) -> Tally {
        for k in 0..5 {
            self.squares[k] += o.squares[k];
            self.sums[k] += o.sums[k];
            self.counts[k] += o.counts[k];
        }
        self
    }
}

fn class_of(eval: &NeuralEvaluator<'_>, pos: &Position) -> usize {
    match eval.class(pos) {
        Class::Contact if is_crashed(pos) => 1,
        Class::Contact => 0,
        Class::Race => 2,
        _ => 3,
    }
}

/// One trial from `start`: 0-ply play, every roll's best play valued.
fn trial(eval: &NeuralEvaluator<'_>, start: &Position, seed: u64, t: u64) -> Tally {
    let mut rng = Rng::for_stream(seed, t);
    let (mut gen, mut es, mut probs) = (MoveGenerator::new(), eval.scratch(), Vec::new());
    let mut tally = Tally::default();
    let mut pos = *start;
    // The previous play's value, for the player who made it; +1 / -1: whether the
    // player on roll now is the first player.
    let mut previous: Option<f64> = None;
    let mut sign = 1f64;
    loop {
        if let Some(p) = terminal_probs(&pos) {
            let r = f64::from(p.equity()) + previous.unwrap_or(0.0);
            tally.add(4, r, sign);
            return tally;
        }
        let class = class_of(eval, &pos);
        let mut values = [0f64; 21];
        let mut next = [pos; 21];
        let mut mean = 0f64;
        for (k, &(dice, w)) in Dice::ALL_21.iter().enumerate() {
            let (n, v) = eval.best_successor(&mut gen, &mut es, &mut probs, &pos, dice);
            values[k] = f64::from(v.equity());
            next[k] = n;
            mean += f64::from(w) / 36.0 * values[k];
        }
        if let Some(v) = previous {
            tally.add(class, mean + v, sign);
        }
        let roll = rng.roll();
        let k = Dice::ALL_21
            .iter()
            .position(|&(d, _)| d.high_low() == roll.high_low())
            .unwrap_or(0);
        previous = Some(values[k]);
        pos = next[k];
        sign = -sign;
    }
}

pub fn residuals(a: ResidualsArgs) -> Result<(), CliError> {
    if a.trials < 2 {
        return Err(CliError::msg("--trials must be at least 2"));
    }
    let start = position_id::decode(&a.position)
        .map_err(|e| CliError::msg(format!("--position {:?}: {e}", a.position)))?;
    let eval = load_evaluator(&a.net)?;
    let trials: Vec<Tally> = (0..a.trials)
        .into_par_iter()
        .map(|t| trial(&eval, &start, a.seed, t))
        .collect();
    let n = trials.len() as f64;
    let mean = trials.iter().map(|t| t.total).sum::<f64>() / n;
    let var = trials.iter().map(|t| (t.total - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let all = trials.iter().fold(Tally::default(), |acc, t| acc.merge(*t));
    let squares: f64 = all.squares.iter().sum();
    println!(
        "{} trials from {} at 0-ply, seed {}, nets {}: per-trial SD of the summed residuals {:.4}",
        a.trials,
        a.position,
        a.seed,
        a.net,
        var.sqrt()
    );
    println!("class      steps/trial  mean residual  mean square  share of squares");
    for (k, name) in CLASSES.iter().enumerate() {
        let c = all.counts[k].max(1) as f64;
        println!(
            "{name:10} {:11.1}  {:+13.5}  {:11.6}  {:15.1}%",
            all.counts[k] as f64 / n,
            all.sums[k] / c,
            all.squares[k] / c,
            100.0 * all.squares[k] / squares.max(f64::MIN_POSITIVE)
        );
    }
    Ok(())
}
