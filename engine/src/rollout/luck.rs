//! The value function of the ranked luck estimate ([`super::Luck::Ranked`]): for each
//! of the 21 rolls at a state, a cheap linear score ranks every legal move, the net
//! values the best [`RANKED_KEEP`], and the best of those by the net is the roll's
//! value. The score is [`NetRank`]: the net's own equity linearized at the state
//! (plus 3% of PubEval in contact), rebuilt for each state. It passes the net's best
//! move to the net more often than PubEval did (93% of contact rolls against 87%),
//! so the luck values are closer to the full estimate's: on the opening rollout
//! the per-trial variance fell 10-11% (10,368 trials, seeds 11 and 12: SE 0.002943
//! -> 0.002795 and 0.003045 -> 0.002870) for 3% more CPU (task-clock of three
//! alternating pairs of 1296-trial runs), about 8% more precision per CPU-second.
//!
//! This runs 21 times per ply of every trial and was most of a trial's cost: on the
//! opening rollout a ply generates ~438 moves for the 21 rolls and values ~66 of them
//! with the net. Three things keep it cheap without changing a bit of its result:
//!
//! - The moves are never listed: the move generator's walk hands each leaf to
//!   [`TopRanked`], which scores it by the points its steps touched
//!   and keeps the best few, so no move is copied and no result hashed except those
//!   that make the cut. Ties go to the first reached, as in the list.
//! - The net's first layer for the children of the state is computed once per ply,
//!   not once per roll ([`NeuralEvaluator::prepare_children`]).
//! - The rolls' candidates overlap (a 6-1, 5-2 and 4-3 can all run one checker 7
//!   pips): 58.5 distinct of 66 per ply on the opening rollout. A per-ply [`Memo`]
//!   values each once.

use crate::dice::Dice;
use crate::eval::net_rank::NetRank;
use crate::eval::neural::{EvalScratch, NeuralEvaluator};
use crate::eval::pubeval::RankBase;
use crate::eval::top_ranked::TopRanked;
use crate::eval::{best_move_index, Probs};
use crate::movegen::{self, MoveGenerator};
use crate::position::Position;

/// Candidates the ranking passes to the net.
///
/// With [`NetRank`] (opening before the roll, 10,368 trials on 2 threads, seeds 11
/// and 12; CPU of 1296-trial runs on one thread, medians of three): keep 3 / 4 / 5
/// gave a squared SE of 8.99 / 8.03 / 7.45 x 1e-6 (mean of the two seeds) for
/// 5.35 / 5.50 / 5.91 s. 4 and 5 tie on precision per CPU-second, so 4 stays. The
/// measurements below ranked by PubEval.
/// Measured on the opening before the roll, 1296 trials, one thread, 0-ply play
/// (precision = 1 / (SE^2 x CPU seconds)): keep 1: SE 0.0153, 8.0 s, 533; keep 3:
/// 0.0113, 8.3 s, 944; keep 6: 0.0104, 9.9 s, 946; every move (= `Full`): 0.0101,
/// 13.8 s, 716. Beyond 3 the SE hardly moves while the cost grows. Again with the
/// self-consistency nets (2,592 trials, SE): keep 2 0.0076, 3 0.0066, 4 0.0061,
/// 6 0.0056, 8 0.0055, every move 0.0054; SE^2 x CPU within 3% from 4 to 8 (also
/// with a cut on PubEval's score: 6 within 3 points, 8 within 4), so 4 stays.
/// Once the walk, the per-ply first layer and the memo made the ranking cheap
/// (2026-11-30), keep 6 cost +20% CPU and keep 8 +45% for -16% and -19% variance:
/// 4 still. Fewer in races only (keep 2 / 1 there): variance +1.2% / +2.5% for
/// -1% / -2% CPU, so races keep 4 too. By roll (same trials, 5,184, seed 1):
/// non-doubles 5 gave -7% variance for +7-9% CPU, doubles 6 or 8 -4% / -5% for
/// +6-15%, non-doubles 3 +15% variance: 4 for all.
pub const RANKED_KEEP: usize = 4;

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
    let mut values = [Probs::default(); 21];
    for (v, &(dice, _)) in values.iter_mut().zip(&Dice::ALL_21) {
        *v = roll_value(eval, es, &mut ls.memo, &mut ls.probs, &base, pos, dice);
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
            .get_or(m.result(), || eval.evaluate_child(&m.next_position(), es));
        ls.probs.push(p);
    }
    match best_move_index(&ls.probs) {
        Some(i) => moves[i].next_position(),
        None => pos.switch_sides(),
    }
}

/// One roll's value for [`ranked_values`].
fn roll_value(
    eval: &NeuralEvaluator<'_>,
    es: &mut EvalScratch,
    memo: &mut Memo,
    probs: &mut Vec<Probs>,
    base: &RankBase<'_>,
    pos: &Position,
    dice: Dice,
) -> Probs {
    let mut top = TopRanked::<RANKED_KEEP>::new(base, RANKED_KEEP);
    if movegen::walk(pos, dice, &mut top) == 0 {
        return eval.evaluate_with(&pos.switch_sides(), es).flip();
    }
    probs.clear();
    for &(_, _, result) in top.chosen_like_the_list() {
        let p = memo.get_or(&result, || eval.evaluate_child(&result.switch_sides(), es));
        probs.push(p);
    }
    let i = best_move_index(probs).unwrap_or(0);
    probs[i].flip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{default_nets, random_positions};

    #[test]
    fn the_play_after_the_luck_values_is_the_net_s_best_move() {
        let eval = default_nets();
        let (mut es, mut ls, mut gen) =
            (eval.scratch(), LuckScratch::default(), MoveGenerator::new());
        let mut probs = Vec::new();
        for (k, pos) in random_positions(400, 8).iter().enumerate() {
            let dice = Dice::ALL_21[k % 21].0;
            // Every other position without the luck values first: the memo of
            // the previous position must not answer.
            if k % 2 == 0 {
                ranked_values(&eval, &mut es, &mut ls, pos);
            }
            let got = play_after_ranked(&eval, &mut es, &mut ls, &mut gen, pos, dice);
            let (expected, _) = eval.best_successor(&mut gen, &mut es, &mut probs, pos, dice);
            assert_eq!(got, expected, "{pos:?} {dice:?}");
        }
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
