//! TD(lambda) self-play training, from random weights.
//!
//! Each game is played by the nets being trained, greedily at 0-ply (the dice give
//! all the exploration backgammon needs, as TD-Gammon showed). At the end of the game
//! every position before a roll gets a lambda-return target, computed backwards:
//!
//! `G_t = (1 - lambda) * V'(t+1) + lambda * flip(G_{t+1})`, with `V'(t+1)` the value of
//! the position the mover chose (from the mover's side) and the final `G` the real
//! outcome; then one gradient step pulls the net's output for position `t` towards
//! `G_t`. This is the offline, forward-view form of TD(lambda): the same targets as
//! eligibility traces applied at the end of each game, at the cost of one backward
//! pass per position instead of a trace update per weight and step.
//!
//! Positions answered exactly by the endgame tables are not trained on and their
//! exact values serve as targets for the positions before them, so race play learns
//! from the truth at the end. Contact positions train the contact net, race
//! positions the race net.
//!
//! Everything is a deterministic function of the seed and the game count: game `g`
//! rolls from `Rng::for_stream(seed, g)`.

use crate::train::net::sgd::sgd_step;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::eval::{terminal_probs, Probs};
use bgfarm_engine::movegen::MoveGenerator;
use bgfarm_engine::position::Position;
use bgfarm_engine::rng::Rng;

/// Training settings.
#[derive(Clone, Debug)]
pub struct TdConfig {
    /// Games to play in this run.
    pub games: u64,
    /// Index of the first game (to continue a run with fresh dice).
    pub first_game: u64,
    /// Learning rate at the start and at the end (interpolated geometrically).
    pub lr_start: f32,
    pub lr_end: f32,
    /// Lambda of the lambda-return, 0..=1.
    pub lambda: f32,
    pub seed: u64,
}

impl Default for TdConfig {
    fn default() -> Self {
        TdConfig {
            games: 10_000,
            first_game: 0,
            lr_start: 0.1,
            lr_end: 0.01,
            lambda: 0.7,
            seed: 1,
        }
    }
}

/// Running statistics of a training run.
#[derive(Clone, Debug, Default)]
pub struct TdStats {
    pub games: u64,
    pub positions: u64,
    pub contact_updates: u64,
    pub race_updates: u64,
    /// Sum of squared TD errors on the win output (a rough learning curve).
    pub sq_error: f64,
}

struct Step {
    pos: Position,
    class: Class,
    /// Value of the chosen successor, from this position's mover's side.
    next: [f32; OUTPUTS],
}

/// Plays `cfg.games` self-play games and trains `eval`'s nets; calls `progress` every
/// 1000 games with the statistics so far.
pub fn train(
    eval: &mut NeuralEvaluator<'_>,
    cfg: &TdConfig,
    mut progress: impl FnMut(&TdStats, &NeuralEvaluator<'_>),
) -> TdStats {
    // Inputs nets of an older file have zero weights for must be trained too.
    eval.contact.read_every_input();
    eval.race.read_every_input();
    let mut gen = MoveGenerator::new();
    let mut scratch = eval.scratch();
    let mut stats = TdStats::default();
    let mut steps: Vec<Step> = Vec::with_capacity(128);
    let mut targets: Vec<[f32; OUTPUTS]> = Vec::with_capacity(128);
    let mut candidates: Vec<Probs> = Vec::with_capacity(64);
    for k in 0..cfg.games {
        let g = cfg.first_game + k;
        let frac = if cfg.games > 1 {
            k as f32 / (cfg.games - 1) as f32
        } else {
            0.0
        };
        let lr = cfg.lr_start * (cfg.lr_end / cfg.lr_start).powf(frac);
        let mut rng = Rng::for_stream(cfg.seed, g);
        steps.clear();
        let mut pos = Position::STARTING;
        let mut first = true;
        loop {
            let dice = if first {
                first = false;
                loop {
                    let d = rng.roll();
                    if !d.is_double() {
                        break d;
                    }
                }
            } else {
                rng.roll()
            };
            let class = eval.class(&pos);
            let (next_pos, next_val) =
                eval.best_successor(&mut gen, &mut scratch, &mut candidates, &pos, dice);
            let next_val = next_val.0;
            steps.push(Step {
                pos,
                class,
                next: next_val,
            });
            if terminal_probs(&next_pos).is_some() {
                break;
            }
            pos = next_pos;
            if steps.len() > 2000 {
                break; // cannot happen in legal play; a guard against a runaway loop
            }
        }
        // Lambda-returns, backwards.
        targets.clear();
        targets.resize(steps.len(), [0.0; OUTPUTS]);
        let mut later: Option<[f32; OUTPUTS]> = None;
        for t in (0..steps.len()).rev() {
            let v = steps[t].next;
            let gt = match later {
                None => v,
                Some(g_next) => {
                    let f = Probs(g_next).flip().0;
                    let mut out = [0.0; OUTPUTS];
                    for o in 0..OUTPUTS {
                        out[o] = (1.0 - cfg.lambda) * v[o] + cfg.lambda * f[o];
                    }
                    out
                }
            };
            targets[t] = gt;
            later = Some(gt);
        }
        for (s, target) in steps.iter().zip(&targets) {
            let (net, sc) = match s.class {
                Class::Contact => (&mut eval.contact, &mut scratch.contact),
                Class::Race => (&mut eval.race, &mut scratch.race),
                Class::Endgame | Class::Over => continue,
            };
            let out = net.forward(&s.pos, sc);
            let e = f64::from(out[0] - target[0]);
            stats.sq_error += e * e;
            sgd_step(net, sc, &out, target, lr);
            if s.class == Class::Contact {
                stats.contact_updates += 1;
            } else {
                stats.race_updates += 1;
            }
        }
        stats.games += 1;
        stats.positions += steps.len() as u64;
        if stats.games % 1000 == 0 {
            progress(&stats, eval);
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::net::init::random_net;

    #[test]
    fn training_is_deterministic_and_learns_something() {
        let fresh = || NeuralEvaluator {
            contact: random_net(16, 1),
            race: random_net(16, 2),
            endgame: None,
            screen: None,
            crashed: None,
        };
        let cfg = TdConfig {
            games: 30,
            lr_start: 0.1,
            lr_end: 0.05,
            ..TdConfig::default()
        };
        let mut a = fresh();
        let mut b = fresh();
        let sa = train(&mut a, &cfg, |_, _| {});
        let sb = train(&mut b, &cfg, |_, _| {});
        assert_eq!(a.contact, b.contact);
        assert_eq!(sa.positions, sb.positions);
        assert!(sa.contact_updates > 0 && sa.race_updates > 0);
        assert_ne!(a.contact, fresh().contact);
    }
}
