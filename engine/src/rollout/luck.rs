//! The value function of the ranked luck estimate ([`super::Luck::Ranked`]): for each
//! of the 21 rolls at a state, a cheap linear score ranks every legal move, the best
//! [`RANKED_PRESELECT`] are re-ranked with the hits each leaves, the net values the
//! best [`RANKED_KEEP`] of those, and the best of those by the net is the roll's
//! value. The score is [`NetRank`]: the net's own equity linearized at the state
//! (plus 3% of PubEval in contact), rebuilt for each state, and in contact the net's
//! gradient for the hits the mover leaves ([`NetRank::hit_weights`]). It passes
//! the net's best move to the net more often than PubEval did (93% of contact rolls
//! against 87% at 4 valued), so the luck values are closer to the full estimate's:
//! on the opening rollout the per-trial variance fell 10-11% (10,368 trials, seeds
//! 11 and 12: SE 0.002943 -> 0.002795 and 0.003045 -> 0.002870) for 3% more CPU. The
//! shots term made 2 valued moves give up less equity than 4 did without it, for
//! about 15% more precision per CPU-second ([`RANKED_KEEP`]). The re-ranking also
//! counts the second block's rolls that hit two blots and pips the hits cost
//! ([`NetRank::hit_weights`]): nets with the features' second block read much of a
//! hit's cost there, and with the shots alone the opening rollout (1296 trials, one
//! thread, seeds 1-8) had an RMS SE of 0.00861 with such nets against 0.00808 with
//! nets without the block (0.00668 against 0.00737 with every move valued by the
//! net, 4 seeds). With all three: 0.00791, 16% less variance for ~4% more CPU
//! (medians of 3 alternating runs, 4.73 s against 4.56 s), about 14% more precision
//! per CPU-second.
//!
//! This runs 21 times per ply of every trial and was most of a trial's cost: on the
//! opening rollout a ply generates ~438 moves for the 21 rolls and (with 4 valued
//! per roll) valued ~66 of them with the net. Three things keep it cheap without
//! changing a bit of its result:
//!
//! - The moves are never listed: the move generator's walk hands each leaf to
//!   [`TopRanked`], which scores it by the points its steps touched
//!   and keeps the best few, so no move is copied and no result hashed except those
//!   that make the cut. Ties go to the first reached, as in the list.
//! - The net's first layer for the children of the state is computed once per ply,
//!   not once per roll ([`NeuralEvaluator::prepare_children`]).
//! - The rolls' candidates overlap (a 6-1, 5-2 and 4-3 can all run one checker 7
//!   pips): 58.5 distinct of 66 per ply on the opening rollout with 4 valued per
//!   roll. A per-ply [`Memo`] values each once, and the play of the roll that came
//!   reuses those values.

use crate::dice::Dice;
use crate::eval::net::features::mover_hits;
use crate::eval::net_rank::{HitWeights, NetRank};
use crate::eval::neural::{EvalScratch, NeuralEvaluator};
use crate::eval::pubeval::RankBase;
use crate::eval::top_ranked::TopRanked;
use crate::eval::{best_move_index, Probs};
use crate::movegen::{self, MoveGenerator};
use crate::position::Position;

/// Candidates the ranking passes to the net.
///
/// With the shots re-ranking ([`RANKED_PRESELECT`] = 8; opening before the roll,
/// 10,368 trials on 2 threads, seeds 11 and 12, mean squared SE; instructions of a
/// 216-trial run on one thread under `valgrind --tool=callgrind`, which the
/// shared machine's timings cannot resolve to a few percent; precision relative to
/// 4 valued without re-ranking, 8.03e-6 and 5.98e9):
///
/// | valued | SE^2 (1e-6) | instructions (1e9) | precision |
/// |---|---|---|---|
/// | 4, no re-ranking (before) | 8.03 | 5.98 | 1.00 |
/// | 5 | 7.06 | 6.97 | 0.98 |
/// | 4 | 7.23 | 6.36 | 1.05 |
/// | 3 | 7.50 | 5.71 | 1.12 |
/// | **2** | 8.26 | 5.02 | **1.16** |
/// | 1 | 11.02 | 4.31 | 1.01 |
///
/// (2 with 6 or 10 re-ranked: 1.15 each.) Timed (`perf stat` task-clock, 1296
/// trials, one thread, two sets of 4-5 alternating runs): 2 took 0.80 and 0.87 of
/// the time of 4 without re-ranking, 3 took 0.97, so 2 gains 12-21%.
///
/// Earlier, without the shots term: keep 3 / 4 / 5 with [`NetRank`] gave a squared
/// SE of 8.99 / 8.03 / 7.45 x 1e-6 for 5.35 / 5.50 / 5.91 s. With PubEval's ranking
/// and the self-consistency nets (2,592 trials, SE): keep 2 0.0076, 3 0.0066, 4
/// 0.0061, 8 0.0055, every move (`Full`) 0.0054; `Full` takes about 3.5x keep 4's
/// CPU (20.5-21.3 s against 5.5-6.3 s for 1296 trials on one thread).
pub const RANKED_KEEP: usize = 2;

/// Candidates the table's score passes on to be re-ranked with the shots term
/// ([`NetRank::hit_weights`]) before the best [`RANKED_KEEP`] go to the net.
///
/// The table is linear in the checker counts and knows nothing of the net's
/// hand-crafted inputs; of those, the shots the mover leaves matter most. On 3,000
/// contact states of 0-ply self-play (all 21 rolls; share of rolls whose best move
/// by the net is among those valued, and the net's equity given up by taking the
/// best of them):
///
/// | valued | re-ranked | best among those valued | equity given up |
/// |---|---|---|---|
/// | 4 | none | 93.5% | 0.00340 |
/// | 4 | best 8, + shots | 94.8% | 0.00183 |
/// | 4 | best 8, + all 12 features | 95.2% | 0.00162 |
/// | 3 | none | 89.9% | 0.00565 |
/// | 3 | best 8, + shots | 91.8% | 0.00287 |
/// | 2 | none | 82.1% | 0.01015 |
/// | 2 | best 6 / 8 / 10, + shots | 84.6 / 84.7 / 84.7% | 0.00589 / 0.00568 / 0.00563 |
///
/// Counting the shots of every move instead of the best 8 gains little (4 valued:
/// 0.00170) and costs a shots count per leaf of the walk.
pub const RANKED_PRESELECT: usize = 8;

/// Net values of the results of moves from one state, each computed once: an
/// open-addressing table cleared in O(1) by bumping a stamp.
struct Memo {
    /// (stamp, result seen by the mover, its probabilities for the next player).
    slots: Vec<(u32, Position, Probs)>,
    stamp: u32,
    len: usize,
}

impl Memo {
    /// Slots: the luck estimate stores at most 84 results a ply (21 rolls x 4), the
    /// play ~20 more; past half full (a double with hundreds of moves) new results
    /// are computed without being stored.
    const SLOTS: usize = 256;

    fn new() -> Memo {
        Memo {
            slots: vec![(0, Position::STARTING, Probs::default()); Memo::SLOTS],
            stamp: 0,
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.stamp = 1;
        }
    }

    /// The value of `result`, from `compute` the first time.
    #[inline]
    fn get_or(&mut self, result: &Position, compute: impl FnOnce() -> Probs) -> Probs {
        let mask = Memo::SLOTS - 1;
        let mut i = movegen::hash(result) as usize & mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.0 != self.stamp {
                let p = compute();
                if self.len * 2 < Memo::SLOTS {
                    *slot = (self.stamp, *result, p);
                    self.len += 1;
                }
                return p;
            }
            if slot.1 == *result {
                return slot.2;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Reusable buffers of the luck estimate, one per thread.
pub struct LuckScratch {
    memo: Memo,
    probs: Vec<Probs>,
    /// The ranking of the current state's moves.
    rank: NetRank,
    /// The state whose children `memo` holds (and the evaluator scratch's first
    /// layers were prepared for) since the last [`ranked_values`].
    parent: Option<Position>,
}

impl Default for LuckScratch {
    fn default() -> Self {
        LuckScratch {
            memo: Memo::new(),
            probs: Vec::with_capacity(RANKED_KEEP),
            rank: NetRank::default(),
            parent: None,
        }
    }
}

impl LuckScratch {
    /// Makes the memo and `es`'s first layers those of `pos`'s children.
    fn start(&mut self, eval: &NeuralEvaluator<'_>, es: &mut EvalScratch, pos: &Position) {
        eval.prepare_children(pos, es);
        self.memo.clear();
        self.parent = Some(*pos);
    }
}

/// The luck values `V(pos, r)` of the 21 rolls (mover's side, in
/// [`Dice::ALL_21`] order): for each roll, the best by the net of [`NetRank`]'s best
/// [`RANKED_KEEP`] moves; with no legal move, the position passed to the opponent.
pub fn ranked_values(
    eval: &NeuralEvaluator<'_>,
    es: &mut EvalScratch,
    ls: &mut LuckScratch,
    pos: &Position,
) -> [Probs; 21] {
    ls.start(eval, es, pos);
    ls.rank.prepare(eval, es, pos);
    let base = ls.rank.base(pos);
    let hits_w = ls.rank.hit_weights();
    let mut values = [Probs::default(); 21];
    for (v, &(dice, _)) in values.iter_mut().zip(&Dice::ALL_21) {
        *v = roll_value(
            eval,
            es,
            &mut ls.memo,
            &mut ls.probs,
            &base,
            hits_w,
            pos,
            dice,
        );
    }
    values
}

/// The 0-ply play of `dice` at `pos` (the position after the net's best move, as
/// [`NeuralEvaluator::best_successor`] chooses it). Right after [`ranked_values`] of
/// the same `pos` with the same buffers, the move's candidates share that call's
/// first layers and memo (the ranking's 4 of the roll are valued already), which saves
/// ~5% of a trial; for another `pos` both start afresh. `es` must not be used for
/// other evaluations in between.
pub fn play_after_ranked(
    eval: &NeuralEvaluator<'_>,
    es: &mut EvalScratch,
    ls: &mut LuckScratch,
    gen: &mut MoveGenerator,
    pos: &Position,
    dice: Dice,
) -> Position {
    if ls.parent != Some(*pos) {
        ls.start(eval, es, pos);
    }
    let moves = gen.generate(pos, dice);
    ls.probs.clear();
    for m in moves {
        let p = ls
            .memo
            .get_or(m.result(), || eval.screen_child(&m.next_position(), es));
        ls.probs.push(p);
    }
    match eval.screened_choice(moves, &ls.probs, es) {
        Some((i, _)) => moves[i].next_position(),
        None => pos.switch_sides(),
    }
}

/// One roll's value for [`ranked_values`]: the table's best
/// [`RANKED_PRESELECT`] moves, re-ranked by their score plus `hits_w`'s score of
/// the hits they leave, the best [`RANKED_KEEP`] of those valued by the net (in that
/// order; equal re-ranked scores in the order the walk reached them).
#[allow(clippy::too_many_arguments)]
fn roll_value(
    eval: &NeuralEvaluator<'_>,
    es: &mut EvalScratch,
    memo: &mut Memo,
    probs: &mut Vec<Probs>,
    base: &RankBase<'_>,
    hits_w: HitWeights,
    pos: &Position,
    dice: Dice,
) -> Probs {
    let mut top = TopRanked::<RANKED_PRESELECT>::new(base, RANKED_PRESELECT);
    if movegen::walk(pos, dice, &mut top) == 0 {
        return eval.evaluate_with(&pos.switch_sides(), es).flip();
    }
    // Best first by the table's score, equal scores in the order reached.
    let kept = top.chosen_by_score();
    probs.clear();
    let mut value = |result: &Position| {
        probs.push(memo.get_or(result, || eval.screen_child(&result.switch_sides(), es)));
    };
    if kept.len() <= RANKED_KEEP || hits_w.is_zero() {
        kept.iter().take(RANKED_KEEP).for_each(|e| value(&e.2));
    } else {
        best_with_hits(kept, hits_w)
            .iter()
            .for_each(|e| value(&e.2));
    }
    let i = best_move_index(probs).unwrap_or(0);
    probs[i].flip()
}

/// The best [`RANKED_KEEP`] of `kept` (the table's best, sorted by its score, equal
/// scores in the order reached) by the score plus `hits_w`'s score of
/// [`mover_hits`], best first, equal scores in the order reached. The hits cost
/// more than the rest of the re-ranking (~260 instructions a shots count), so they
/// are counted lazily: a candidate whose table score cannot reach the last kept
/// re-ranked score even with the most favourable hits ([`HitWeights::most`]), and
/// every later one, is never looked at.
fn best_with_hits(
    kept: &[(f32, u32, Position)],
    hits_w: HitWeights,
) -> [(f32, u32, Position); RANKED_KEEP] {
    let most = hits_w.most();
    let mut best = [(f32::NEG_INFINITY, u32::MAX, Position::STARTING); RANKED_KEEP];
    for &(score, order, result) in kept {
        let last = best[RANKED_KEEP - 1];
        if score + most < last.0 {
            break;
        }
        let s = score + hits_w.score(mover_hits(&result));
        if s < last.0 || (s == last.0 && order > last.1) {
            continue;
        }
        let mut i = RANKED_KEEP - 1;
        while i > 0 && (best[i - 1].0 < s || (best[i - 1].0 == s && best[i - 1].1 > order)) {
            best[i] = best[i - 1];
            i -= 1;
        }
        best[i] = (s, order, result);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{default_nets, random_positions};

    #[test]
    fn the_play_after_the_luck_values_is_the_net_s_best_move() {
        let screened = crate::eval::default_nets::default_evaluator(None).expect("built-in nets");
        for eval in [default_nets(), screened] {
            the_play_after_the_luck_values_is_best_successor_s(&eval);
        }
    }

    /// [`play_after_ranked`] plays what [`NeuralEvaluator::best_successor`] does, with
    /// or without a screen net.
    fn the_play_after_the_luck_values_is_best_successor_s(eval: &NeuralEvaluator<'_>) {
        let (mut es, mut ls, mut gen) =
            (eval.scratch(), LuckScratch::default(), MoveGenerator::new());
        let mut probs = Vec::new();
        for (k, pos) in random_positions(400, 8).iter().enumerate() {
            let dice = Dice::ALL_21[k % 21].0;
            // Every other position without the luck values first: the memo of
            // the previous position must not answer.
            if k % 2 == 0 {
                ranked_values(eval, &mut es, &mut ls, pos);
            }
            let got = play_after_ranked(eval, &mut es, &mut ls, &mut gen, pos, dice);
            let (expected, _) = eval.best_successor(&mut gen, &mut es, &mut probs, pos, dice);
            assert_eq!(got, expected, "{pos:?} {dice:?}");
        }
    }

    /// The lazy re-ranking keeps what scoring every preselected move would: the
    /// best by table score plus hits terms, equal scores in the order reached.
    #[test]
    fn the_lazy_hits_re_ranking_matches_scoring_every_candidate() {
        let eval = default_nets();
        let mut es = eval.scratch();
        let mut rank = NetRank::default();
        let mut checked = 0;
        for (k, pos) in random_positions(600, 31).iter().enumerate() {
            if !pos.has_contact() {
                continue;
            }
            eval.prepare_children(pos, &mut es);
            rank.prepare(&eval, &mut es, pos);
            let base = rank.base(pos);
            // The net's weights, positive ones and large ones: the bound must
            // hold whatever the signs.
            let weights = [
                rank.hit_weights(),
                HitWeights {
                    shots: 0.004,
                    double: 0.002,
                    loss: 0.0003,
                },
                HitWeights {
                    shots: -0.05,
                    double: 0.01,
                    loss: -0.001,
                },
            ];
            for w in weights {
                let dice = Dice::ALL_21[k % 21].0;
                let mut top = TopRanked::<RANKED_PRESELECT>::new(&base, RANKED_PRESELECT);
                if movegen::walk(pos, dice, &mut top) == 0 {
                    continue;
                }
                let kept = top.chosen_by_score();
                if kept.len() <= RANKED_KEEP {
                    continue;
                }
                let mut all: Vec<(f32, u32, Position)> = kept
                    .iter()
                    .map(|&(s, o, p)| (s + w.score(mover_hits(&p)), o, p))
                    .collect();
                all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let lazy = best_with_hits(kept, w);
                assert_eq!(
                    lazy.to_vec(),
                    all[..RANKED_KEEP].to_vec(),
                    "{pos:?} {dice:?} {w:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked}");
    }

    #[test]
    fn the_memo_returns_what_it_was_given_until_cleared() {
        let mut memo = Memo::new();
        memo.clear();
        let positions = random_positions(200, 4);
        for (k, p) in positions.iter().enumerate() {
            let v = Probs([k as f32, 0.0, 0.0, 0.0, 0.0]);
            assert_eq!(memo.get_or(p, || v), v);
        }
        // The first half of the table's slots are stored, the rest computed anew.
        let stored = Memo::SLOTS / 2;
        for (k, p) in positions.iter().enumerate().take(stored) {
            let got = memo.get_or(p, || panic!("recomputed"));
            assert_eq!(got.0[0], k as f32);
        }
        let late = Probs([-1.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(memo.get_or(&positions[stored], || late), late);
        memo.clear();
        let fresh = Probs([9.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(memo.get_or(&positions[0], || fresh), fresh);
    }
}
