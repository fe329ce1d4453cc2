//! Rollouts: deterministic, variance-reduced trials, in mergeable batches.
//!
//! A rollout job is a list of candidates (one position before its roll, or the
//! positions after each candidate move of a roll) plus a seed and trial settings.
//! Trial `i` of every candidate uses the same dice (common random numbers), so the
//! differences between candidates are measured far more precisely than their
//! absolute values. A batch is a range of trial indices; its result holds exact
//! fixed-point sums per output per candidate ([`stats::Accumulator`]), so batch
//! results merge into the same bits in any grouping, on any number of threads or
//! machines (the determinism contract in DESIGN.md). A [`RolloutPlan`] adds the
//! trial count, batch size and stop rules; [`Waves`] runs it wave by wave.

pub mod cubeful;
pub mod dice;
pub mod first_ply;
pub mod luck;
pub mod plan;
pub mod settings;
pub mod stats;
pub mod stop;
pub mod trial;
pub mod waves;

use crate::eval::neural::NeuralEvaluator;
use crate::eval::Player;
use crate::position::Position;
pub use cubeful::{CubeRules, CubeStart};
pub use first_ply::{first_ply_keys, stored_tables, FirstPlyCache, FirstPlyKey, RollTable};
pub use plan::{PlanError, RolloutPlan};
use stats::Accumulator;
use std::ops::Range;
pub use stop::StopRules;
pub use trial::{BeforeRoll, Luck, Trial, TrialScratch, TrialSettings, MAX_TRIAL_PLY, OUTPUTS};
pub use waves::Waves;

/// One thing being rolled out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    /// The move in notation, or `None` for a rollout of the position itself.
    pub label: Option<String>,
    /// The position the trials start from, player on roll before the roll.
    pub start: Position,
    /// Whether results are reported for the player *not* on roll in `start` (true for
    /// candidate moves: the mover wants the value of the position after its move).
    pub report_for_opponent: bool,
    /// The cube at the start (used by cubeful rollouts), from the side of the player
    /// on roll in `start`.
    pub cube: CubeStart,
}

impl Candidate {
    /// The rollout of `start` itself, before the roll, reported for the player on
    /// roll, with a centred cube of 1.
    pub fn position(start: Position) -> Candidate {
        Candidate {
            label: None,
            start,
            report_for_opponent: false,
            cube: CubeStart::default(),
        }
    }
}

/// A rollout job: what the coordinator splits into batches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RolloutJob {
    pub candidates: Vec<Candidate>,
    pub seed: u64,
    pub settings: TrialSettings,
}

/// Statistics of a range of trials, per candidate and output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RolloutStats {
    pub per_candidate: Vec<[Accumulator; OUTPUTS]>,
}

impl RolloutStats {
    /// Empty statistics for `n` candidates.
    pub fn new(n: usize) -> RolloutStats {
        RolloutStats {
            per_candidate: vec![[Accumulator::default(); OUTPUTS]; n],
        }
    }

    /// Exact merge (any order, any grouping gives the same result).
    pub fn merge(&mut self, other: &RolloutStats) {
        if self.per_candidate.len() < other.per_candidate.len() {
            self.per_candidate
                .resize(other.per_candidate.len(), [Accumulator::default(); OUTPUTS]);
        }
        for (a, b) in self.per_candidate.iter_mut().zip(&other.per_candidate) {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
    }

    /// Trials accumulated for candidate `c`.
    pub fn trials(&self, c: usize) -> u64 {
        self.per_candidate.get(c).map_or(0, |a| a[0].count)
    }
}

/// Flips a luck-adjusted output vector to the other player's side (`match_units`:
/// the cubeful output is MWC, flipped as `1 - x`; otherwise money, `-x`).
fn flip_outputs(o: [f64; OUTPUTS], match_units: bool) -> [f64; OUTPUTS] {
    let cubeful = if match_units { 1.0 - o[6] } else { -o[6] };
    [1.0 - o[0], o[3], o[4], o[1], o[2], -o[5], cubeful]
}

/// Runs trials `range` for the candidates whose flag in `active` is true (all when
/// `active` is empty), in trial order.
pub fn run_batch(
    job: &RolloutJob,
    eval: &NeuralEvaluator<'_>,
    policy: Option<&dyn Player>,
    range: Range<u64>,
    active: &[bool],
    cache: Option<&FirstPlyCache>,
    scratch: &mut TrialScratch,
) -> RolloutStats {
    let mut stats = RolloutStats::new(job.candidates.len());
    for (c, cand) in job.candidates.iter().enumerate() {
        if !active.is_empty() && !active.get(c).copied().unwrap_or(false) {
            continue;
        }
        let trial = Trial {
            eval,
            policy,
            settings: &job.settings,
            start: &cand.start,
            cube_start: &cand.cube,
            seed: job.seed,
            cache,
            start_is_opponent: cand.report_for_opponent,
        };
        for t in range.clone() {
            let mut o = trial.run(t, scratch);
            if cand.report_for_opponent {
                o = flip_outputs(o, job.settings.cube.is_some_and(|c| c.is_match()));
            }
            for (acc, x) in stats.per_candidate[c].iter_mut().zip(o) {
                acc.add(x);
            }
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::default_nets as evaluator;

    #[test]
    fn batches_merge_to_the_same_bits_in_any_split() {
        let eval = evaluator();
        let job = RolloutJob {
            candidates: vec![Candidate {
                label: None,
                start: Position::STARTING,
                report_for_opponent: false,
                cube: CubeStart::default(),
            }],
            seed: 5,
            settings: TrialSettings {
                truncate: Some(6),
                ..TrialSettings::default()
            },
        };
        let mut s = TrialScratch::new(&eval);
        let whole = run_batch(&job, &eval, None, 0..72, &[], None, &mut s);
        let mut parts = RolloutStats::new(1);
        for r in [0..10, 10..36, 36..37, 37..72] {
            parts.merge(&run_batch(&job, &eval, None, r, &[], None, &mut s));
        }
        assert_eq!(parts, whole);
        assert_eq!(whole.trials(0), 72);
        // The first-ply cache serves the same values.
        let cache = FirstPlyCache::default();
        let cached = run_batch(&job, &eval, None, 0..72, &[], Some(&cache), &mut s);
        assert_eq!(cached, whole);
        assert!(!cache.is_empty());
    }

    #[test]
    fn luck_adjustment_is_unbiased_in_an_exact_race() {
        // A bear-off both sides can finish exactly: the rollout (without bear-off
        // truncation, so the game is played out) must agree with the exact table
        // with and without variance reduction.
        let eval = evaluator();
        let mut mover = [0u8; 25];
        let mut opp = [0u8; 25];
        mover[..6].copy_from_slice(&[0, 2, 1, 0, 1, 1]);
        opp[..6].copy_from_slice(&[1, 1, 0, 2, 0, 1]);
        let pos = Position::from_arrays(&mover, &opp).expect("legal race");
        assert!(!pos.has_contact());
        let exact = eval.evaluate_with(&pos, &mut eval.scratch()).equity() as f64;
        for luck in [Luck::Off, Luck::Full, Luck::Ranked, Luck::Searched] {
            // The searched estimate runs 21 1-ply searches a state: fewer trials.
            let trials = if luck == Luck::Searched { 324 } else { 1296 };
            let job = RolloutJob {
                candidates: vec![Candidate {
                    label: None,
                    start: pos,
                    report_for_opponent: false,
                    cube: CubeStart::default(),
                }],
                seed: 11,
                settings: TrialSettings {
                    luck,
                    truncate: None,
                    bearoff_truncation: false,
                    cube: None,
                    chequer_ply: 0,
                    opponent_ply: None,
                    cube_ply: 0,
                    late: None,
                },
            };
            let mut s = TrialScratch::new(&eval);
            let st = run_batch(&job, &eval, None, 0..trials, &[], None, &mut s);
            let acc = st.per_candidate[0][5];
            let se = acc.se().unwrap_or(1.0);
            assert!(
                (acc.mean() - exact).abs() < 4.0 * se + 0.02,
                "{luck:?}: {} vs exact {exact} (se {se})",
                acc.mean()
            );
        }
    }

    fn opening_job(cube: Option<CubeRules>, luck: Luck, start: CubeStart) -> RolloutJob {
        RolloutJob {
            candidates: vec![Candidate {
                label: None,
                start: Position::STARTING,
                report_for_opponent: false,
                cube: start,
            }],
            seed: 3,
            settings: TrialSettings {
                luck,
                truncate: Some(10),
                bearoff_truncation: true,
                cube,
                chequer_ply: 0,
                opponent_ply: None,
                cube_ply: 0,
                late: None,
            },
        }
    }

    #[test]
    fn cubeful_rollouts_keep_the_cubeless_outputs_and_stay_unbiased() {
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let cubeless = run_batch(
            &opening_job(None, Luck::Ranked, CubeStart::default()),
            &eval,
            None,
            0..648,
            &[],
            None,
            &mut s,
        );
        let score = crate::met::MatchScore::new(5, 3, false).expect("score");
        for rules in [
            CubeRules::Money { jacoby: false },
            CubeRules::Money { jacoby: true },
            CubeRules::Match { score },
        ] {
            let run = |luck| {
                let job = opening_job(Some(rules), luck, CubeStart::default());
                run_batch(
                    &job,
                    &eval,
                    None,
                    0..648,
                    &[],
                    None,
                    &mut TrialScratch::new(&eval),
                )
            };
            let (on, off) = (run(Luck::Ranked), run(Luck::Off));
            // Cube actions take no dice and change no chequer play: the cubeless
            // outputs are those of the cubeless rollout, bit for bit.
            assert_eq!(on.per_candidate[0][..6], cubeless.per_candidate[0][..6]);
            let (a, b) = (on.per_candidate[0][6], off.per_candidate[0][6]);
            let (sa, sb) = (a.se().unwrap_or(1.0), b.se().unwrap_or(1.0));
            assert!(
                (a.mean() - b.mean()).abs() < 3.0 * (sa * sa + sb * sb).sqrt(),
                "{rules:?}: VR {} ± {sa} vs plain {} ± {sb}",
                a.mean(),
                b.mean()
            );
            // Luck adjustment pays off in cubeful units too.
            assert!(sa < 0.6 * sb, "{rules:?}: SE {sa} with VR, {sb} without");
            if rules.is_match() {
                assert!((0.0..=1.0).contains(&a.mean()));
            }
        }
    }

    /// A thread's search cache ([`trial::SEARCH_CACHE_MIB`]) only saves work: 2-ply
    /// trials give the same bits from a fresh scratch each as from one scratch
    /// whose cache holds the values of the trials before.
    #[test]
    fn searched_trials_are_the_same_bits_with_a_warm_search_cache() {
        let eval = evaluator();
        // The searched luck estimate reads the search cache too.
        for luck in [Luck::Ranked, Luck::Searched] {
            let mut job = opening_job(None, luck, CubeStart::default());
            job.settings.chequer_ply = 2;
            job.settings.truncate = Some(4);
            let mut warm = TrialScratch::new(&eval);
            let together = run_batch(&job, &eval, None, 0..6, &[], None, &mut warm);
            // Again with the cache warm from the first run, and trial by trial from
            // fresh buffers.
            let again = run_batch(&job, &eval, None, 0..6, &[], None, &mut warm);
            assert_eq!(again, together, "{luck:?}");
            let mut merged: Option<RolloutStats> = None;
            for t in 0..6 {
                let one = run_batch(
                    &job,
                    &eval,
                    None,
                    t..t + 1,
                    &[],
                    None,
                    &mut TrialScratch::new(&eval),
                );
                merged = Some(match merged {
                    None => one,
                    Some(mut m) => {
                        m.merge(&one);
                        m
                    }
                });
            }
            assert_eq!(merged, Some(together), "{luck:?}");
        }
    }

    #[test]
    fn the_double_take_branch_hands_the_opponent_the_cube() {
        // Truncated at once: the opening with the cube held is worth a little for the
        // player on roll; after double/take the opponent owns a cube of 2, which
        // costs the doubler (Janowski: -0.2 to -0.3 per cube here).
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let money = Some(CubeRules::Money { jacoby: false });
        let held = CubeStart {
            no_double_first: true,
            ..CubeStart::default()
        };
        let taken = CubeStart {
            cube: crate::cube::Cube::INITIAL.doubled(),
            ..CubeStart::default()
        };
        let mut job = opening_job(money, Luck::Off, held);
        job.settings.truncate = Some(0);
        let nd = run_batch(&job, &eval, None, 0..36, &[], None, &mut s).per_candidate[0][6];
        job.candidates[0].cube = taken;
        let dt = run_batch(&job, &eval, None, 0..36, &[], None, &mut s).per_candidate[0][6];
        // At truncation 0 the value is the 0-ply Janowski equity of the start: ND with
        // a centred cube, DT with the opponent owning a cube of 2.
        assert!(
            nd.mean() > 0.0 && dt.mean() < nd.mean(),
            "{} {}",
            nd.mean(),
            dt.mean()
        );
    }

    #[test]
    fn searched_chequer_play_is_cached_exactly_and_late_settings_switch_it() {
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let mut job = opening_job(None, Luck::Ranked, CubeStart::default());
        job.settings.truncate = Some(4);
        let zero = run_batch(&job, &eval, None, 0..36, &[], None, &mut s);
        job.settings.chequer_ply = 1;
        let one = run_batch(&job, &eval, None, 0..36, &[], None, &mut s);
        let cache = FirstPlyCache::default();
        let one_cached = run_batch(&job, &eval, None, 0..36, &[], Some(&cache), &mut s);
        assert_eq!(
            one, one_cached,
            "the first-move cache changed a 1-ply result"
        );
        assert_ne!(one, zero, "1-ply play chose no other move in 36 trials");
        // Late evaluation from ply 0 at 0-ply is 0-ply play throughout.
        job.settings.late = Some((0, 0));
        assert_eq!(run_batch(&job, &eval, None, 0..36, &[], None, &mut s), zero);
    }

    #[test]
    fn auto_luck_is_ranked_below_two_plies_and_searched_from_two_per_state() {
        assert_eq!(
            [0, 1, 2, 3].map(|d| Luck::Auto.at(d)),
            [Luck::Ranked, Luck::Ranked, Luck::Searched, Luck::Searched]
        );
        for l in [Luck::Off, Luck::Full, Luck::Ranked, Luck::Searched] {
            assert_eq!([0, 2].map(|d| l.at(d)), [l, l]);
        }
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let mut run = |luck: Luck, ply: u8, opponent: Option<u8>, cache: Option<&FirstPlyCache>| {
            let mut job = opening_job(None, luck, CubeStart::default());
            job.settings.truncate = Some(3);
            job.settings.chequer_ply = ply;
            job.settings.opponent_ply = opponent;
            run_batch(&job, &eval, None, 0..6, &[], cache, &mut s)
        };
        assert_eq!(
            run(Luck::Auto, 0, None, None),
            run(Luck::Ranked, 0, None, None)
        );
        assert_eq!(
            run(Luck::Auto, 1, None, None),
            run(Luck::Ranked, 1, None, None)
        );
        let searched = run(Luck::Searched, 2, None, None);
        assert_eq!(run(Luck::Auto, 2, None, None), searched);
        assert_ne!(run(Luck::Full, 2, None, None), searched);
        assert_ne!(run(Luck::Ranked, 2, None, None), searched);
        // Both per state: the player at 0 plies (ranked), its opponent at 2
        // (searched).
        let split = run(Luck::Auto, 0, Some(2), None);
        assert_ne!(split, run(Luck::Ranked, 0, Some(2), None));
        assert_ne!(split, run(Luck::Searched, 0, Some(2), None));
        // The first-move cache keys the resolved estimate.
        let cache = FirstPlyCache::default();
        assert_eq!(run(Luck::Auto, 0, Some(2), Some(&cache)), split);
        assert_eq!(
            run(Luck::Auto, 0, Some(2), Some(&cache)),
            split,
            "warm cache"
        );
    }

    #[test]
    fn opponent_ply_plays_only_the_opponents_moves() {
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let mut job = opening_job(None, Luck::Ranked, CubeStart::default());
        // One ply: only the player on roll moves, so the opponent's setting cannot
        // matter; two plies: it must.
        job.settings.truncate = Some(1);
        let run = |job: &RolloutJob, s: &mut TrialScratch| {
            run_batch(job, &eval, None, 0..36, &[], None, s)
        };
        let zero = run(&job, &mut s);
        job.settings.opponent_ply = Some(1);
        assert_eq!(run(&job, &mut s), zero, "the opponent moved at ply 0");
        job.settings.opponent_ply = None;
        job.settings.chequer_ply = 1;
        assert_ne!(
            run(&job, &mut s),
            zero,
            "the player's 1-ply chose no other move"
        );
        job.settings.truncate = Some(2);
        let player_1ply = run(&job, &mut s);
        job.settings.opponent_ply = Some(0);
        let split = run(&job, &mut s);
        assert_ne!(
            split, player_1ply,
            "the opponent's 0-ply chose as its 1-ply"
        );
        // In a move rollout the opponent moves first: with the sides' settings
        // swapped, trial plies alternate the other way.
        let mut moves = job.clone();
        moves.candidates[0].report_for_opponent = true;
        moves.settings.chequer_ply = 0;
        moves.settings.opponent_ply = Some(1);
        let swapped = run(&moves, &mut s);
        let mut plain = job.clone();
        plain.settings.chequer_ply = 1;
        plain.settings.opponent_ply = Some(0);
        let direct = run(&plain, &mut s);
        assert_eq!(
            swapped.per_candidate[0][5].mean(),
            -direct.per_candidate[0][5].mean()
        );
    }

    #[test]
    fn cube_decisions_by_lookahead_change_only_the_cubeful_result() {
        let eval = evaluator();
        let mut s = TrialScratch::new(&eval);
        let mut job = opening_job(
            Some(CubeRules::Money { jacoby: false }),
            Luck::Ranked,
            CubeStart::default(),
        );
        job.settings.truncate = Some(16);
        let zero = run_batch(&job, &eval, None, 0..72, &[], None, &mut s);
        job.settings.cube_ply = 1;
        let one = run_batch(&job, &eval, None, 0..72, &[], None, &mut s);
        for k in 0..OUTPUTS - 1 {
            assert_eq!(
                zero.per_candidate[0][k], one.per_candidate[0][k],
                "output {k}"
            );
        }
        let (a, b) = (&zero.per_candidate[0][6], &one.per_candidate[0][6]);
        assert_ne!(a, b, "1-ply cube play decided as 0-ply in 72 trials");
        // Two estimates of nearly the same strategy's value: close.
        assert!(
            (a.mean() - b.mean()).abs() < 0.15,
            "{} {}",
            a.mean(),
            b.mean()
        );
    }
}
