//! Labels of positions for training the nets: a position's cubeless
//! probabilities by an n-ply search ([`label`]) or by rollouts of the nets' own
//! play ([`rollout_label`]), and a whole list of them ([`LabelPlan`]).
//!
//! They live in the engine, not in the training tools, because the cluster labels
//! positions too (a `label` job): a worker and `bgfarm-lab train label` run the
//! same functions, so a position's label is the same bits wherever it was
//! computed. Each label depends only on (position, method, engine): a batch of a
//! label job is a range of positions, labelled one after the other. The plan and
//! every limit of a label job are in [`plan`].

use crate::eval::net::OUTPUTS;
use crate::eval::neural::NeuralEvaluator;
use crate::eval::Probs;
use crate::ids::position_id;
use crate::position::Position;
use crate::rollout::{
    run_batch, Candidate, CubeStart, FirstPlyCache, RolloutJob, TrialScratch, TrialSettings,
};
use crate::search::{EvalCache, Leaf, Searcher};
use std::ops::Range;

pub mod plan;

pub use plan::{
    check_nets, LabelMethod, LabelPlan, LabelPlanError, MAX_LABEL_NETS_BYTES, MAX_LABEL_PLY,
    MAX_LABEL_POSITIONS, MAX_LABEL_TRIALS,
};

/// Search cache size for labelling: 64 MiB, shared by every thread of a process
/// (a worker's label batches, `bgfarm-lab train label`'s pool), holds the leaves
/// of many 2-ply searches, which is where a search revisits positions
/// (transpositions within one position's replies and between nearby positions).
/// A cache never changes a value, only how often it is computed.
pub const LABEL_CACHE_MIB: usize = 64;

/// Labels positions one after the other with one evaluator, reusing its scratch
/// space and fingerprint across them, with a search cache it may share with
/// other labellers.
pub struct Labeller<'e> {
    eval: &'e NeuralEvaluator<'e>,
    method: LabelMethod,
    cache: &'e EvalCache,
    fingerprint: u64,
    scratch: Option<TrialScratch>,
}

impl<'e> Labeller<'e> {
    pub fn new(
        eval: &'e NeuralEvaluator<'e>,
        method: LabelMethod,
        cache: &'e EvalCache,
    ) -> Labeller<'e> {
        Labeller {
            eval,
            method,
            cache,
            fingerprint: Leaf::from(eval).fingerprint(),
            scratch: None,
        }
    }

    /// The label of `pos` (player on roll, before the roll).
    pub fn label(&mut self, pos: &Position) -> [f32; OUTPUTS] {
        match self.method {
            LabelMethod::Search { ply, prune } => {
                let mut s = Searcher::with_fingerprint(
                    self.eval,
                    self.fingerprint,
                    prune,
                    Some(self.cache),
                );
                label(&mut s, pos, ply)
            }
            LabelMethod::Rollout { trials, seed } => {
                let eval = self.eval;
                let scratch = self.scratch.get_or_insert_with(|| TrialScratch::new(eval));
                rollout_label(eval, scratch, pos, trials, position_seed(seed, pos))
            }
        }
    }
}

impl LabelPlan {
    /// The labels of positions `range` of the plan, in order (searches use
    /// `cache`): what a worker returns for a batch.
    pub fn run(
        &self,
        eval: &NeuralEvaluator<'_>,
        range: Range<u64>,
        cache: &EvalCache,
    ) -> Vec<[f32; OUTPUTS]> {
        let mut l = Labeller::new(eval, self.method, cache);
        self.positions[range.start as usize..range.end as usize]
            .iter()
            .map(|p| l.label(p))
            .collect()
    }
}

/// The dice seed of `pos`'s rollout label: the run's seed mixed with the position's
/// key, so that positions do not share their dice (their labels' errors would then
/// be correlated) and a resumed run gives the same labels.
pub fn position_seed(seed: u64, pos: &Position) -> u64 {
    position_id::key(pos)
        .iter()
        .fold(seed ^ 0x9E37_79B9_7F4A_7C15, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::neural::Class;
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
        let race = position_id::decode("/wEAAJjtCEB4AA").unwrap();
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
    fn a_plan_labels_the_same_bits_in_any_batches() {
        let eval = default_eval();
        let mut positions = crate::testutil::random_positions(12, 5);
        positions.truncate(12);
        for method in [
            LabelMethod::Search {
                ply: 1,
                prune: Pruning::DEFAULT,
            },
            LabelMethod::Rollout {
                trials: 36,
                seed: 9,
            },
        ] {
            let plan = LabelPlan {
                positions: positions.clone(),
                method,
                batch: 5,
            };
            assert_eq!(plan.validate(), Ok(()));
            let shared = EvalCache::with_mib(4);
            let whole = plan.run(&eval, 0..12, &shared);
            let pieces: Vec<_> = [0..5, 5..10, 10..12]
                .into_iter()
                .flat_map(|r| plan.run(&eval, r, &shared))
                .collect();
            assert_eq!(whole, pieces, "{method:?}");
            // One labeller and cache per position gives the same bits (neither
            // the cache nor the scratch space carries anything over).
            let single: Vec<_> = positions
                .iter()
                .map(|p| Labeller::new(&eval, method, &EvalCache::with_mib(1)).label(p))
                .collect();
            assert_eq!(whole, single, "{method:?}");
        }
    }
}
