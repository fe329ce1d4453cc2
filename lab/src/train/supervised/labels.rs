//! Supervised step 2: a position's label, its probabilities by an n-ply search
//! ([`label`]) or by rollouts of the nets' own play ([`rollout_label`]).

use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::eval::Probs;
use bgfarm_engine::position::Position;
use bgfarm_engine::rollout::{
    run_batch, Candidate, CubeStart, FirstPlyCache, RolloutJob, TrialScratch, TrialSettings,
};
use bgfarm_engine::search::Searcher;

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
    use crate::train::testutil::default_nets as default_eval;
    use bgfarm_engine::eval::neural::Class;
    use bgfarm_engine::search::Pruning;

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
        let race = bgfarm_engine::ids::position_id::decode("/wEAAJjtCEB4AA").unwrap();
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
}
