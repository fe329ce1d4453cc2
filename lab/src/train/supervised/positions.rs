//! Supervised step 1: the positions before each roll of self-play games, with
//! occasional exploratory moves so the set covers more than the nets' own
//! favourite lines ([`selfplay_positions`]).

use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::eval::{best_move_index, terminal_probs, Probs};
use bgfarm_engine::movegen::MoveGenerator;
use bgfarm_engine::position::Position;
use bgfarm_engine::rng::Rng;

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
    /// extra random number, so a seed plays the same games as with no candidates
    /// option at all, and recorded pipelines reproduce).
    pub candidates: f32,
    /// Chance that a move is a uniformly random legal play instead (GNU Backgammon's
    /// bench draws its positions from games where it is one of 0, 0.05, 0.15, 0.3,
    /// 0.6 and 1 per game: that is how its crashed positions, mostly back games and
    /// closed-out sides, come about, which greedy self-play seldom reaches). 0 draws no
    /// extra random number, so a seed plays the same games as before the option.
    pub random: f32,
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
            random: 0.0,
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
            let random_now =
                explore.random > 0.0 && moves.len() > 1 && (rng.next_f64() as f32) < explore.random;
            if random_now {
                let i = rng.below(moves.len() as u32) as usize;
                let next = moves[i].next_position();
                if terminal_probs(&next).is_some() {
                    break;
                }
                pos = next;
                continue;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::testutil::default_nets as default_eval;

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
                        random: 0.0,
                    },
                )
            })
            .collect();
        assert_ne!(a, greedy);
    }

    #[test]
    fn random_moves_reach_more_crashed_positions() {
        let eval = default_eval();
        let crashed = |random: f32| {
            let ex = Exploration {
                random,
                ..Exploration::default()
            };
            (0..40)
                .flat_map(|g| selfplay_positions(&eval, 9, g, ex))
                .filter(bgfarm_engine::eval::crashed::is_crashed)
                .count()
        };
        let (greedy, random) = (crashed(0.0), crashed(1.0));
        assert!(random > 2 * greedy.max(1), "{random} against {greedy}");
        // Same seed, same option: same games.
        assert_eq!(random, crashed(1.0));
    }
}
