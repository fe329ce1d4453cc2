//! Training targets from rollout trials' own results: every state a trial rolled
//! from, with the trial's luck-adjusted result from there on (`bgfarm-lab train
//! outcomes`). The engine's trial shows its states to an observer
//! ([`Trial::run_observed`]); the list and the targets are made here.

use bgfarm_engine::position::Position;
use bgfarm_engine::rollout::{BeforeRoll, Trial, TrialScratch, OUTPUTS};

/// A state a trial passed through before its roll.
#[derive(Clone, Copy, Debug)]
pub struct Visited {
    pub pos: Position,
    /// The player on roll here is the one on roll at the trial's start.
    pub root_moves: bool,
    /// The luck of the rolls before this state, from the start player's side.
    pub luck_before: [f64; 5],
}

/// [`Trial::run`] that also lists, in `visited` (cleared first), every state the
/// trial rolled from (not the one it stopped at); the trial's outputs are the same.
pub fn run_trial_visiting(
    trial_of: &Trial<'_>,
    trial: u64,
    s: &mut TrialScratch,
    visited: &mut Vec<Visited>,
) -> [f64; OUTPUTS] {
    visited.clear();
    let mut push = |b: BeforeRoll<'_>| {
        visited.push(Visited {
            pos: *b.pos,
            root_moves: b.root_moves,
            luck_before: *b.luck,
        })
    };
    trial_of.run_observed(trial, s, Some(&mut push))
}

/// Training targets from one trial: for each state it rolled from, the trial's
/// luck-adjusted result counted from that state on (the outcome minus the luck of
/// the rolls from there), from the side of the player on roll there.
///
/// Whatever the luck estimate, the luck of each roll has mean zero given the state,
/// so each target is an unbiased estimate of the state's value under the trials'
/// own play (what a rollout from the state would converge to), with the small noise
/// of a variance-reduced trial (per-output SD ~0.15 instead of ~0.5 for the bare
/// outcome). Targets are probabilities up to that noise: they can leave 0..1.
pub fn outcome_targets(out: &[f64; OUTPUTS], visited: &[Visited]) -> Vec<(Position, [f32; 5])> {
    visited
        .iter()
        .map(|v| {
            let y: [f64; 5] = std::array::from_fn(|k| out[k] + v.luck_before[k]);
            let y = if v.root_moves {
                y
            } else {
                [1.0 - y[0], y[3], y[4], y[1], y[2]]
            };
            (v.pos, y.map(|x| x as f32))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::testutil::default_nets as evaluator;
    use bgfarm_engine::eval::Probs;
    use bgfarm_engine::rollout::{CubeStart, Luck, TrialSettings};

    #[test]
    fn outcome_targets_are_each_state_s_own_luck_adjusted_result() {
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let mut visited = Vec::new();
        for luck in [Luck::Off, Luck::Ranked] {
            let settings = TrialSettings {
                luck,
                ..TrialSettings::default()
            };
            for t in 0..6 {
                let trial = Trial {
                    eval: &eval,
                    policy: None,
                    settings: &settings,
                    start: &Position::STARTING,
                    cube_start: &CubeStart::default(),
                    seed: 3,
                    cache: None,
                    start_is_opponent: false,
                };
                let plain = trial.run(t, &mut s);
                let out = run_trial_visiting(&trial, t, &mut s, &mut visited);
                assert_eq!(out, plain, "listing the states changes nothing");
                let targets = outcome_targets(&out, &visited);
                assert!(targets.len() > 10);
                assert_eq!(targets[0].0, Position::STARTING);
                let root: [f32; 5] = std::array::from_fn(|k| out[k] as f32);
                assert_eq!(targets[0].1, root);
                for ((pos, y), v) in targets.iter().zip(&visited) {
                    assert_eq!(*pos, v.pos);
                    // Without luck every state's target is the outcome, seen by
                    // the player on roll there; with it, the luck from there on
                    // is taken out.
                    let from_root: [f32; 5] =
                        std::array::from_fn(|k| (out[k] + v.luck_before[k]) as f32);
                    let want = if v.root_moves {
                        from_root
                    } else {
                        Probs(from_root).flip().0
                    };
                    for (a, b) in y.iter().zip(want) {
                        assert!((a - b).abs() < 1e-6, "{y:?} vs {want:?}");
                    }
                    if luck == Luck::Off {
                        assert_eq!(v.luck_before, [0.0; 5]);
                    }
                }
                // The players alternate.
                assert!(visited
                    .windows(2)
                    .all(|w| w[0].root_moves != w[1].root_moves));
            }
        }
    }
}
