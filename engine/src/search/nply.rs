//! The n-ply expectation search, in GNU Backgammon's ply numbering.
//!
//! The n-ply value of a position (player on roll, before the roll) is:
//! - 0-ply: the static evaluation (exact for finished games);
//! - n-ply: the average over the 21 rolls (doubles 1/36, others 2/36) of the
//!   (n-1)-ply value of the position after the mover's reply to that roll, seen from
//!   the mover (a roll with no legal move passes the turn). The reply is chosen by its
//!   0-ply value, and only that single reply is searched deeper (GNU Backgammon's
//!   rule, which keeps a 2-ply search of a play at ~21 x 21 x 20 = 9,000 evaluations
//!   instead of 21 x 20 x 21 x 20 = 176,000).
//!
//! So the n-ply value of a *play* is the n-ply value of the position after it with
//! the opponent on roll: 1-ply of a play averages the opponent's 21 best replies at
//! 0-ply, as in `engine/testdata/oracle/bench.jsonl` (`eq1`, `eq2`).
//!
//! Pruning pass ([`Pruning`]): choosing each reply by the full network costs one
//! evaluation per legal reply, nearly all the work of a search. With pruning on, all
//! replies are first ranked by a linear score, the best `keep` are re-scored by the
//! network, and the best of those is the reply. GNU Backgammon does the same with
//! its small pruning networks (keeping ~5 to 10). The score is
//! [`NetRank`](crate::eval::net_rank): the net's equity linearized at the position
//! being expanded, built once for its 21 rolls (it needs fewer replies than a
//! ranking by PubEval: see [`Pruning::DEFAULT`]). With
//! pruning off every reply is scored by the network. Measured on 40 contact
//! decisions (`search::measure`): 2-ply hints with GNU Backgammon's normal filter
//! (`gnu-normal`) and PubEval's best 8 made 13,200 network evaluations each
//! against 34,500 without pruning.
//!
//! A [`Searcher`] holds one thread's scratch space and move generator; create one per
//! thread and share the evaluator and the [`EvalCache`]. Values are pure functions of
//! (evaluator, pruning, position, ply): sums run over the rolls in the fixed order of
//! [`Dice::ALL_21`] and ties go to the first reply generated, so results are
//! bit-identical with or without the cache and on any number of threads.

use super::cache::{CacheKey, CacheStats, EvalCache};
use super::evaluator::Leaf;
use crate::dice::Dice;
use crate::eval::net_rank::NetRank;
use crate::eval::neural::{EvalScratch, NeuralEvaluator};
use crate::eval::pubeval::{self, RankBase};
use crate::eval::top_ranked::TopRanked;
use crate::eval::{terminal_probs, Probs};
use crate::movegen::{self, Move, MoveGenerator};
use crate::position::Position;
use std::collections::VecDeque;

/// Lowest ply whose values go through the cache by default. A 0-ply value costs
/// one network evaluation (~1 µs), about ten times a lookup that misses the CPU
/// caches (~0.1 µs in a 64 MiB table), and 0-ply values would flood the table:
/// caching them too saved a third of the evaluations of 2-ply hints but no time
/// (20-30 ms per hint either way), while caching from 1-ply on gave 17-18 ms
/// (40 contact decisions, GNU Backgammon's normal filter; `search::measure` tests).
pub const DEFAULT_CACHE_MIN_PLY: u8 = 1;

/// How replies inside the search are chosen. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pruning {
    /// Replies re-scored by the network after the linear ranking; 0 = no pruning
    /// pass (the network scores every reply).
    pub keep: u8,
}

impl Pruning {
    /// No pruning pass: every reply is scored by the network.
    pub const OFF: Pruning = Pruning { keep: 0 };
    /// The default: re-score the ranking's best 5 replies.
    ///
    /// Keeping PubEval's best 8: on 300 random contact positions (~27 replies
    /// per roll) the 1-ply equity differed from the unpruned one by
    /// 0.0020 on average (keep 3: 0.012, 5: 0.0051, 12: 0.0007), with 143 instead of
    /// ~550 network evaluations, and 2-ply hints took about half the time. The net's
    /// linearized ranking finds the net's best reply among its best 5 about as often
    /// as PubEval does among its best 8 (95.4% and 95.5% of contact rolls). On the
    /// oracle bench, `bgfarm-lab bench hint --ply 2 --prune K` (loss x1000 contact /
    /// crashed / race; ms per contact hint, one thread, two alternating runs):
    /// PubEval 8: 2.9 / 13.5 / 1.2, 6.9-7.0 ms; linearized 8: 2.9 / 10.0 / 1.1,
    /// 5.5-7.1 ms; 5: 2.7 / 11.1 / 1.1, 4.7-5.5 ms; 4: 2.9 / 13.4 / 1.1, 4.1-4.5 ms.
    pub const DEFAULT: Pruning = Pruning { keep: 5 };
}

impl Default for Pruning {
    fn default() -> Self {
        Pruning::DEFAULT
    }
}

/// Work counted by a [`Searcher`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Static (network or table) evaluations.
    pub evals: u64,
    /// PubEval scores of the pruning pass.
    pub prune_scores: u64,
    /// Cache lookups, hits and misses.
    pub cache: CacheStats,
}

impl SearchStats {
    /// Adds `other`.
    pub fn add(&mut self, other: &SearchStats) {
        self.evals += other.evals;
        self.prune_scores += other.prune_scores;
        self.cache.add(other.cache);
    }
}

/// One thread's n-ply search. See the module docs.
pub struct Searcher<'a> {
    eval: Leaf<'a>,
    scratch: Option<EvalScratch>,
    cache: Option<&'a EvalCache>,
    /// Cache context: the evaluator's fingerprint mixed with the pruning setting.
    context: u64,
    prune: Pruning,
    gen: MoveGenerator,
    /// Buffer of the listed pruning pass (keeps above [`PRUNE_WALK_MAX`], or
    /// evaluators other than the nets): (PubEval score, move index).
    ranked: Vec<(f32, u32)>,
    /// The reply ranking of the position being expanded at each ply (index: the
    /// plies left to search there).
    ranks: Vec<NetRank>,
    stats: SearchStats,
    /// Lowest ply whose values go through the cache.
    cache_min_ply: u8,
    /// The replies of the last [`MEMO_SIZE`] expansions made at the top of a search
    /// (not inside another expansion), for a deeper expansion of the same position.
    memo: VecDeque<ReplyMemo>,
    /// Expansions under way (0: the next one is at the top of a search).
    nesting: u8,
}

/// The mover's reply to each of the 21 rolls at `pos` (the position to search
/// next, the turn passed where a roll has no move). A move filter values its
/// survivors at one ply and then the best of them one ply deeper; both expansions
/// choose the same replies, by their 0-ply values, so the deeper one takes them
/// from here instead of walking and valuing every roll's replies again.
struct ReplyMemo {
    pos: Position,
    next: [Position; 21],
}

/// The weighted sum over the 21 rolls (doubles 1, others 2) of an expansion's
/// values, added in [`Dice::ALL_21`] order so that every expansion sums alike.
#[derive(Default)]
struct RollSum([f32; 5]);

impl RollSum {
    fn add(&mut self, weight: u8, p: Probs) {
        let w = f32::from(weight);
        for (s, x) in self.0.iter_mut().zip(p.0) {
            *s += w * x;
        }
    }

    /// The average over the 36 rolls.
    fn mean(&self) -> Probs {
        Probs(self.0.map(|s| s / 36.0))
    }
}

/// Top-level expansions a [`Searcher`] remembers the replies of: more than the
/// plays a filter step keeps (`normal`: 8, `huge`: 20).
const MEMO_SIZE: usize = 32;

impl<'a> Searcher<'a> {
    /// A searcher for `eval` with reply pruning `prune`, sharing `cache` if given.
    pub fn new(eval: impl Into<Leaf<'a>>, prune: Pruning, cache: Option<&'a EvalCache>) -> Self {
        let eval = eval.into();
        Self::with_fingerprint(eval, eval.fingerprint(), prune, cache)
    }

    /// [`Searcher::new`] with `eval`'s [`Leaf::fingerprint`] computed once by the
    /// caller, for code that creates many searchers (one per task of a pool).
    pub fn with_fingerprint(
        eval: impl Into<Leaf<'a>>,
        fingerprint: u64,
        prune: Pruning,
        cache: Option<&'a EvalCache>,
    ) -> Self {
        let eval = eval.into();
        let context = fingerprint
            .rotate_left(7)
            .wrapping_add(u64::from(prune.keep).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Searcher {
            eval,
            scratch: eval.scratch(),
            cache,
            context,
            prune,
            gen: MoveGenerator::new(),
            ranked: Vec::new(),
            ranks: Vec::new(),
            stats: SearchStats::default(),
            cache_min_ply: DEFAULT_CACHE_MIN_PLY,
            memo: VecDeque::new(),
            nesting: 0,
        }
    }

    /// Caches only values of at least `ply` plies (default
    /// [`DEFAULT_CACHE_MIN_PLY`]; 0 caches every value). Never changes a result.
    #[must_use]
    pub fn cache_from_ply(mut self, ply: u8) -> Self {
        self.cache_min_ply = ply;
        self
    }

    /// The evaluator.
    pub fn evaluator(&self) -> Leaf<'a> {
        self.eval
    }

    /// The move generator, for callers in this module tree (no search is running
    /// while they hold it).
    pub(super) fn generator(&mut self) -> &mut MoveGenerator {
        &mut self.gen
    }

    /// The reply pruning setting.
    pub fn pruning(&self) -> Pruning {
        self.prune
    }

    /// Work counted since creation or the last [`Searcher::take_stats`].
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Returns the counts and starts again from zero (the cache's totals are updated).
    pub fn take_stats(&mut self) -> SearchStats {
        let s = std::mem::take(&mut self.stats);
        if let Some(c) = self.cache {
            c.record(s.cache);
        }
        s
    }

    /// The `ply`-ply probabilities of the player on roll in `pos`, before the roll.
    pub fn position_probs(&mut self, pos: &Position, ply: u8) -> Probs {
        if let Some(t) = terminal_probs(pos) {
            return t;
        }
        let key = match self.cache {
            Some(c) if ply >= self.cache_min_ply => {
                let key = CacheKey::new(pos, ply, self.context);
                if let Some(p) = c.get(key) {
                    self.stats.cache.hits += 1;
                    return p;
                }
                self.stats.cache.misses += 1;
                Some(key)
            }
            _ => None,
        };
        let probs = if ply == 0 {
            self.stats.evals += 1;
            self.eval.eval(pos, &mut self.scratch)
        } else {
            self.expectation(pos, ply)
        };
        if let (Some(c), Some(key)) = (self.cache, key) {
            c.put(key, &probs);
        }
        probs
    }

    /// The `ply`-ply probabilities of a play, for the player who made it.
    pub fn move_probs(&mut self, m: &Move, ply: u8) -> Probs {
        self.position_probs(&m.next_position(), ply).flip()
    }

    /// Average over the 21 rolls of the mover's best reply, searched `ply - 1` deeper.
    fn expectation(&mut self, pos: &Position, ply: u8) -> Probs {
        let top = self.nesting == 0;
        if top && ply >= 2 {
            if let Some(m) = self.memo.iter().find(|m| m.pos == *pos) {
                let next = m.next;
                self.nesting += 1;
                let probs = self.expectation_of(&next, ply);
                self.nesting -= 1;
                return probs;
            }
        }
        self.nesting += 1;
        let (probs, next) = self.expand(pos, ply);
        self.nesting -= 1;
        if top {
            if self.memo.len() == MEMO_SIZE {
                self.memo.pop_front();
            }
            self.memo.push_back(ReplyMemo { pos: *pos, next });
        }
        probs
    }

    /// The average over the 21 rolls of `next[k]` (the position after roll `k`'s
    /// reply, opponent on roll) searched `ply - 1` deep.
    fn expectation_of(&mut self, next: &[Position; 21], ply: u8) -> Probs {
        let mut sum = RollSum::default();
        for (n, &(_, weight)) in next.iter().zip(&Dice::ALL_21) {
            sum.add(weight, self.position_probs(n, ply - 1).flip());
        }
        sum.mean()
    }

    /// [`Searcher::expectation`] choosing the replies, which it returns too.
    fn expand(&mut self, pos: &Position, ply: u8) -> (Probs, [Position; 21]) {
        let mut sum = RollSum::default();
        let mut replies = [*pos; 21];
        // At the last ply nothing between the rolls touches the replies' first-layer
        // bases (a roll without a reply is valued by a full evaluation, which does
        // not use them), so they are made once for all 21 rolls instead of per roll:
        // same values, 2-ply contact hints 8-20% faster (medians of two sets of three
        // alternating `bench hint --ply 2 --class contact --threads 1` runs: 5.76 ->
        // 5.31 and 7.21 -> 5.76 ms), 3-ply 30.0 -> 28.3 ms (60 positions, two runs).
        let walked = (1..=PRUNE_WALK_MAX).contains(&usize::from(self.prune.keep));
        let shared = ply == 1;
        if let (true, Leaf::Neural(eval), Some(scratch)) =
            (walked, self.eval, self.scratch.as_mut())
        {
            // The ranking's gradient needs the bases of `pos`'s children.
            eval.prepare_children(pos, scratch);
            let p = usize::from(ply);
            if self.ranks.len() <= p {
                self.ranks.resize_with(p + 1, NetRank::default);
            }
            self.ranks[p].prepare(eval, scratch, pos);
        }
        for (reply, &(dice, weight)) in replies.iter_mut().zip(&Dice::ALL_21) {
            let v = match self.best_reply(pos, dice, ply, shared) {
                Reply::None => {
                    *reply = pos.switch_sides();
                    self.position_probs(reply, ply - 1).flip()
                }
                Reply::Scored(p, next) => {
                    *reply = next;
                    p
                }
                Reply::Next(next) => {
                    *reply = next;
                    self.position_probs(&next, ply - 1).flip()
                }
            };
            sum.add(weight, v);
        }
        (sum.mean(), replies)
    }

    /// The mover's reply to `dice` by 0-ply value (with the pruning pass). When
    /// `want_value` and the reply was scored, its 0-ply probabilities come back
    /// instead of the move, saving an evaluation at the last ply.
    ///
    /// `prepared`: `pos` was given to [`NeuralEvaluator::prepare_children`] and its
    /// bases are still valid.
    fn best_reply(&mut self, pos: &Position, dice: Dice, ply: u8, prepared: bool) -> Reply {
        let want_value = ply == 1;
        let keep = usize::from(self.prune.keep);
        if let (Leaf::Neural(eval), Some(scratch)) = (self.eval, self.scratch.as_mut()) {
            // The replies' 0-ply values skip the cache even with
            // `cache_from_ply(0)`: they come from their parent's first layer, which
            // the cache's full evaluations would not match bit for bit.
            if (1..=PRUNE_WALK_MAX).contains(&keep) {
                if !prepared {
                    // Only flags: the bases are made when a reply is first valued.
                    eval.prepare_children(pos, scratch);
                }
                let base = self.ranks[usize::from(ply)].base(pos);
                return Self::best_reply_walked(
                    eval,
                    scratch,
                    &base,
                    &mut self.stats,
                    dice,
                    keep,
                    want_value,
                );
            }
        }
        let n = self.gen.generate(pos, dice).len();
        match n {
            0 => return Reply::None,
            1 => return Reply::Next(self.gen.moves()[0].next_position()),
            _ => {}
        }
        let mut best: Option<(f32, usize, Probs)> = None;
        let mut consider = |i: usize, this: &mut Self| {
            let next = this.gen.moves()[i].next_position();
            let p = this.position_probs(&next, 0).flip();
            let eq = p.equity();
            if best.is_none_or(|(b, _, _)| eq > b) {
                best = Some((eq, i, p));
            }
        };
        if keep > 0 && n > keep {
            let race = pubeval::is_race(pos);
            self.ranked.clear();
            self.ranked.extend(
                self.gen
                    .moves()
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (pubeval::score(m.result(), race), i as u32)),
            );
            self.stats.prune_scores += n as u64;
            // Best `keep` by score, ties to the first generated, then back in
            // generation order so the network's ties also go to the first generated.
            self.ranked
                .select_nth_unstable_by(keep - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            self.ranked.truncate(keep);
            self.ranked.sort_unstable_by_key(|r| r.1);
            for k in 0..keep {
                let i = self.ranked[k].1 as usize;
                consider(i, self);
            }
        } else {
            for i in 0..n {
                consider(i, self);
            }
        }
        match best {
            Some((_, i, p)) if want_value => Reply::Scored(p, self.gen.moves()[i].next_position()),
            Some((_, i, _)) => Reply::Next(self.gen.moves()[i].next_position()),
            None => Reply::None,
        }
    }

    /// [`Searcher::best_reply`] for the nets with a pruning pass: `base`'s best
    /// `keep` replies are kept while the move generator walks (no move list), then
    /// valued from one first-layer base for `pos`'s children (`scratch` must have
    /// been given `pos` by [`NeuralEvaluator::prepare_children`]), in the order first
    /// reached (so the net's ties go to the first generated, as in the list).
    /// Measured on the oracle bench's 670 contact decisions, one core, busy shared
    /// machine (`bgfarm-lab bench hint --ply 2 --threads 1`, two alternating runs each):
    /// 2-ply hints with GNU Backgammon's normal filter (`gnu-normal`) and
    /// PubEval's ranking took 11.0-13.5 ms through the list (every reply scored by a
    /// 24-point PubEval pass, the kept ones encoded in full) and
    /// 8.0-8.8 ms so, with the same choices on all 1000 positions' tallies (the
    /// values differ from the list's only by the rounding of the incremental first
    /// layer, a few 1e-7).
    fn best_reply_walked(
        eval: &NeuralEvaluator<'_>,
        scratch: &mut EvalScratch,
        base: &RankBase<'_>,
        stats: &mut SearchStats,
        dice: Dice,
        keep: usize,
        want_value: bool,
    ) -> Reply {
        let pos = base.position();
        let mut top = TopRanked::<PRUNE_WALK_MAX>::new(base, keep);
        if movegen::walk(pos, dice, &mut top) == 0 {
            return Reply::None;
        }
        if top.all_kept() == Some(1) {
            return Reply::Next(top.chosen_in_order()[0].2.switch_sides());
        }
        stats.prune_scores += u64::from(top.reached());
        let mut best: Option<(f32, Position, Probs)> = None;
        for &(_, _, result) in top.chosen_in_order() {
            let next = result.switch_sides();
            let p = match terminal_probs(&next) {
                Some(t) => t,
                None => {
                    stats.evals += 1;
                    eval.evaluate_child(&next, scratch)
                }
            }
            .flip();
            let eq = p.equity();
            if best.is_none_or(|(b, _, _)| eq > b) {
                best = Some((eq, next, p));
            }
        }
        match best {
            Some((_, next, p)) if want_value => Reply::Scored(p, next),
            Some((_, next, _)) => Reply::Next(next),
            None => Reply::None,
        }
    }
}

/// Largest pruning `keep` served by [`Searcher::best_reply_walked`]; larger ones
/// (rare: a user's `--prune`) take the listed path.
const PRUNE_WALK_MAX: usize = 16;

impl Drop for Searcher<'_> {
    /// Adds this searcher's cache lookups to the cache's totals.
    fn drop(&mut self) {
        if let Some(c) = self.cache {
            c.record(self.stats.cache);
        }
    }
}

/// What [`Searcher::best_reply`] found.
enum Reply {
    /// No legal move: the turn passes.
    None,
    /// The reply's 0-ply probabilities, for the mover, and the position after it.
    Scored(Probs, Position),
    /// The position after the reply (next player on roll), to be searched deeper.
    Next(Position),
}
