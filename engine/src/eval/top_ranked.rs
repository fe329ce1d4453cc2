//! PubEval's best few moves of one roll, kept while the move generator walks: the
//! cheap ranking in front of the net wherever only the best few moves matter (the
//! rollouts' luck estimate, the n-ply search's reply choice).
//!
//! Listing every move first costs a copy and a hash of each distinct result, and
//! the list is then scored and sorted; here each leaf of the walk is scored by the
//! points its steps touched ([`RankBase::score_steps`]) and dropped at once unless
//! it makes the cut, so only the few kept results are ever compared or copied. On
//! the opening rollout that took a ply's ranking of ~438 moves (21 rolls) from 27%
//! to 15% of a trial's time, with exactly the list's choice (tested).

use super::pubeval::RankBase;
use crate::movegen::{Leaves, Step};
use crate::position::Position;

/// The best `keep` (at most `N`) distinct results of one roll by PubEval, as the
/// walk reports them: sorted by score, equal scores in the order first reached.
pub struct TopRanked<'b, 'p, const N: usize> {
    base: &'b RankBase<'p>,
    /// (score, order reached, result seen by the mover).
    best: [(f32, u32, Position); N],
    len: usize,
    keep: usize,
    /// Leaves reported since the last restart (duplicates included: only their
    /// relative order matters).
    reached: u32,
    /// More than `keep` distinct results were reached.
    overflowed: bool,
}

impl<'b, 'p, const N: usize> TopRanked<'b, 'p, N> {
    /// Ranks moves from `base`'s position, keeping `keep` (1..=N; clamped).
    pub fn new(base: &'b RankBase<'p>, keep: usize) -> Self {
        TopRanked {
            base,
            best: [(0.0, 0, Position::STARTING); N],
            len: 0,
            keep: keep.clamp(1, N),
            reached: 0,
            overflowed: false,
        }
    }

    /// Leaves the walk reported since its last restart (repeats included).
    pub fn reached(&self) -> u32 {
        self.reached
    }

    /// Distinct results reached, when at most `keep` (then all are kept); `None`
    /// when there were more.
    pub fn all_kept(&self) -> Option<usize> {
        (!self.overflowed).then_some(self.len)
    }

    /// The kept results best first by score, equal scores in the order first
    /// reached (whether or not more than `keep` distinct results were reached): the
    /// order [`Leaves::leaf`] keeps them in. Entries are (score, order, result).
    pub fn chosen_by_score(&self) -> &[(f32, u32, Position)] {
        &self.best[..self.len]
    }

    /// The kept results in the order first reached.
    pub fn chosen_in_order(&mut self) -> &[(f32, u32, Position)] {
        let kept = &mut self.best[..self.len];
        kept.sort_unstable_by_key(|e| e.1);
        kept
    }
}

impl<const N: usize> Leaves for TopRanked<'_, '_, N> {
    fn restart(&mut self) {
        self.len = 0;
        self.reached = 0;
        self.overflowed = false;
    }

    #[inline]
    fn leaf(&mut self, pos: &Position, steps: &[Step; 4], n: usize) {
        let order = self.reached;
        self.reached += 1;
        let score = self.base.score_steps(pos, &steps[..n]);
        let keep = self.keep;
        let full = self.len == keep;
        // Kept entries all score at least the last one: a lower score is a result
        // not kept (new, or a repeat of one dropped earlier), so more than `keep`
        // distinct results exist; an equal score loses the tie to the kept one
        // unless it is that very result.
        if full && score <= self.best[keep - 1].0 {
            if score < self.best[keep - 1].0
                || !self.best[..self.len]
                    .iter()
                    .any(|e| e.0 == score && e.2 == *pos)
            {
                self.overflowed = true;
            }
            return;
        }
        // A repeat has its first arrival's score.
        if self.best[..self.len]
            .iter()
            .any(|e| e.0 == score && e.2 == *pos)
        {
            return;
        }
        if full {
            self.overflowed = true;
        } else {
            self.len += 1;
        }
        // After every entry scoring at least as much (ties stay first reached).
        let mut i = self.len - 1;
        while i > 0 && self.best[i - 1].0 < score {
            self.best[i] = self.best[i - 1];
            i -= 1;
        }
        self.best[i] = (score, order, *pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Dice;
    use crate::eval::pubeval;
    use crate::movegen::{self, MoveGenerator};
    use crate::testutil::random_positions;

    /// The selection as first written: list every move, score each, take the best
    /// `keep` (or every move when there are no more) by repeated maxima, first
    /// listed on ties. Best first.
    fn chosen_from_list(pos: &Position, dice: Dice, keep: usize) -> Vec<Position> {
        let mut gen = MoveGenerator::new();
        let moves = gen.generate(pos, dice);
        let base = RankBase::new(pos, pubeval::is_race(pos));
        let mut scored: Vec<f32> = moves.iter().map(|m| base.score(m)).collect();
        let mut out = Vec::new();
        for _ in 0..keep.min(moves.len()) {
            let mut best = 0;
            for (i, &s) in scored.iter().enumerate() {
                if s > scored[best] {
                    best = i;
                }
            }
            scored[best] = f32::NEG_INFINITY;
            out.push(*moves[best].result());
        }
        out
    }

    #[test]
    fn the_walk_keeps_what_the_list_would_choose() {
        let mut compared = 0;
        for pos in random_positions(2000, 21) {
            let base = RankBase::new(&pos, pubeval::is_race(&pos));
            for &(dice, _) in &Dice::ALL_21 {
                for keep in [4, 8] {
                    let mut top = TopRanked::<8>::new(&base, keep);
                    let played = movegen::walk(&pos, dice, &mut top);
                    let expected = chosen_from_list(&pos, dice, keep);
                    if played == 0 {
                        assert!(expected.is_empty(), "{pos:?} {dice:?}");
                        continue;
                    }
                    let listed: Vec<Position> = MoveGenerator::new()
                        .generate(&pos, dice)
                        .iter()
                        .map(|m| *m.result())
                        .collect();
                    let n = listed.len();
                    assert_eq!(top.all_kept(), (n <= keep).then_some(n));
                    let got: Vec<Position> = top.chosen_by_score().iter().map(|e| e.2).collect();
                    assert_eq!(got, expected, "{pos:?} {dice:?} keep {keep}");
                    if n <= keep {
                        // Every move, and in the list's order when asked for it.
                        let got: Vec<Position> =
                            top.chosen_in_order().iter().map(|e| e.2).collect();
                        assert_eq!(got, listed, "{pos:?} {dice:?} keep {keep}");
                    }
                    compared += 1;
                }
            }
        }
        assert!(compared > 60_000);
    }

    #[test]
    fn equal_scores_go_to_the_first_reached() {
        // Scores are fed directly: a result reached again is dropped, a new one
        // with an equal score ranks after the kept one.
        let base = RankBase::new(&Position::STARTING, false);
        let mut top = TopRanked::<4>::new(&base, 4);
        // Nobody on the opponent's bar: the bar term is the same for all.
        let positions: Vec<Position> = random_positions(100, 3)
            .into_iter()
            .filter(|p| p.pips()[crate::position::OPP_BAR] == 0)
            .take(6)
            .collect();
        let steps = [Step::default(); 4];
        for p in &positions {
            top.leaf(p, &steps, 0);
        }
        // With no steps every score is the base's own: all tie.
        top.leaf(&positions[0], &steps, 0);
        assert_eq!(top.all_kept(), None);
        let got: Vec<Position> = top.chosen_in_order().iter().map(|e| e.2).collect();
        assert_eq!(got, positions[..4].to_vec());
    }
}
