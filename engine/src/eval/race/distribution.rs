//! One-sided roll distributions of race sides that are not yet home, by memoised
//! search: the one-sided bear-off table extended to the whole board, one position at
//! a time.
//!
//! Why: in a race the win chance hangs on how many rolls each side needs to bear off
//! all its checkers, and the one-sided table answers that only once a side is home.
//! Before that the race net estimates it, and on GNU Backgammon's 250 bench races its
//! equity differences between plays are off by 8.2 thousandths where GNU Backgammon
//! 0-ply's are off by 2.6. The same one-sided approximation the tables make (each
//! side plays to minimise its expected rolls, the two sides independent) is close to
//! exact there: in `au8HBADlzLcAAA` 1-3 (95 pips against 82) it gives GNU Backgammon
//! 2-ply's best play 0.2176 (GNU 2-ply: 0.2175), in `a21eAACzuwMGAA` 4-1 0.5057
//! (0.5060) and 0.5041 for the second (0.5036), both orders right where the race net
//! had them wrong (see the tests).
//!
//! The search: `D(s)`, the distribution of the rolls side `s` needs, is the table's
//! for a side with every checker home; otherwise, for each of the 21 rolls, the play
//! with the least expected rolls (every legal play, the first in generation order on a
//! tie) and `D(s) = sum over rolls of weight x D(best play) shifted by one roll`.
//! Values depend on nothing but `s`, so one memo serves every query of a thread
//! ([`MEMO_CAP`] positions at most; clearing it costs time, never changes a value).
//!
//! The same search with the first checker off as its goal (a roll that can bear a
//! checker off ends it, a home side has the first-off table's distribution) gives
//! the distribution that decides gammons: [`race_gammons`].
//!
//! Cost: a side's search visits the positions its checkers can reach, which grows
//! fast with how far out they are. [`dominated_count`] bounds that number from the
//! side alone, so whether a query is searched never depends on what the memo holds.
//! Measured with `bgfarm eval ID --exact-race N` on the shared 2-core machine, about
//! 20,000 positions a second: `768AAMB9IQARAA` (a side of 60 pips with checkers on
//! its 20, 17 and 7 points) 10,833 positions, 0.12 s; `a21eAACzuwMGAA` (77 and 79
//! pips) 191,000, 6 s; `au8HBADlzLcAAA` (95 and 82 pips) 397,000, 17-21 s.
//! Searches that size fit in the caches and their time goes into move generation;
//! in the millions of positions of a far-back saver it goes into memo look-ups
//! that miss, which the memo's table ([`SideTable`]) is laid out for: the four
//! gammon saves of `bench race-referee` at its default limit took 1,183 CPU-seconds
//! and 1.06 GB with it, 1,672 and 1.43 GB with the standard library's map (one
//! core each, the two runs side by side; values identical).

use super::side::{expected_rolls, Side, RACE_ROLLS};
use super::side_table::{key_side, side_key, SideTable};
use crate::dice::Dice;
use crate::eval::bearoff::index::POINTS;
use crate::eval::bearoff::one_sided::{side_position, MAX_ROLLS};
use crate::eval::bearoff::OneSidedDb;
use crate::movegen::MoveGenerator;
use crate::position::Position;
use std::cell::RefCell;

/// Most positions a thread's memo keeps; beyond it the memo is emptied before the
/// next query. About 100 bytes each (a 16-byte slot of a table at most 3/4 full,
/// an 8-byte span, 10 to 20 values of 4 bytes): 400 MB. A query allowed more than
/// half of it (`limit`) raises the cap to twice its limit: the candidates of one move share
/// most of their positions, and a memo emptied between them made each candidate
/// search again from nothing (a hint whose saver reaches 5.6 million positions,
/// with `--exact-race 6000000`, had not finished after 48 CPU-minutes).
pub const MEMO_CAP: usize = 4_000_000;

/// Where a memoised distribution lies in [`Memo::values`]: its entries `lo..lo+len`
/// (the others are 0).
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    lo: u8,
    len: u8,
}

/// The memo: distributions stored by their non-zero range (10 to 20 entries for most
/// sides, against [`RACE_ROLLS`]).
#[derive(Default)]
struct Memo {
    /// Key -> (span number, expected rolls): the expectation kept beside the span
    /// number saves the search a second cache miss per child (about 5% of a large
    /// first-off search, whose time goes mostly into these look-ups).
    index: SideTable,
    spans: Vec<Span>,
    values: Vec<f32>,
}

impl Memo {
    fn clear(&mut self) {
        self.index.clear();
        self.spans.clear();
        self.values.clear();
    }

    /// Stores `d` and returns its span's number and expectation.
    fn push(&mut self, key: u64, d: &[f64; RACE_ROLLS]) -> (u32, f32) {
        let lo = d.iter().position(|&x| x != 0.0).unwrap_or(0);
        let hi = d.iter().rposition(|&x| x != 0.0).map_or(lo, |h| h + 1);
        let expected = expected_rolls(d) as f32;
        let span = Span {
            start: self.values.len() as u32,
            lo: lo as u8,
            len: (hi - lo) as u8,
        };
        self.values.extend(d[lo..hi].iter().map(|&p| p as f32));
        let i = self.spans.len() as u32;
        self.spans.push(span);
        self.index.insert(key, i, expected);
        (i, expected)
    }

    /// Adds `weight` x the distribution `i`, shifted by one roll, to `acc`.
    fn add_shifted(&self, i: u32, weight: f64, acc: &mut [f64; RACE_ROLLS]) {
        let s = self.spans[i as usize];
        let values = &self.values[s.start as usize..][..usize::from(s.len)];
        for (k, &p) in values.iter().enumerate() {
            let n = (usize::from(s.lo) + k + 1).min(RACE_ROLLS - 1);
            acc[n] += weight * f64::from(p);
        }
    }

    fn distribution(&self, i: u32) -> [f64; RACE_ROLLS] {
        let mut d = [0f64; RACE_ROLLS];
        let s = self.spans[i as usize];
        let values = &self.values[s.start as usize..][..usize::from(s.len)];
        for (k, &p) in values.iter().enumerate() {
            d[usize::from(s.lo) + k] = f64::from(p);
        }
        d
    }
}

/// What a search counts the rolls to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Goal {
    /// Every checker off (the race's length).
    AllOff,
    /// The first checker off (whether the side is gammoned).
    FirstOff,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
    static FIRST_MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The memo key of the mover's side of `pos` ([`side_key`]).
fn key(pos: &Position) -> u64 {
    let p = pos.pips();
    let mut side = [0u8; 24];
    for (s, &c) in side.iter_mut().zip(&p[1..25]) {
        *s = c.max(0).unsigned_abs();
    }
    side_key(&side)
}

/// The search over one side's positions.
struct Search<'a> {
    one: &'a OneSidedDb,
    goal: Goal,
    memo: &'a mut Memo,
    /// One move generator per depth, so that a level's plays stay intact while the
    /// levels below generate theirs.
    gens: Vec<MoveGenerator>,
    /// The keys of a roll's plays, one buffer per depth like `gens`.
    keys: Vec<Vec<u64>>,
}

impl Search<'_> {
    /// The memo entry of the mover's side of `pos` (a position holding only that
    /// side), searched first if need be.
    fn entry(&mut self, pos: &Position, depth: usize) -> (u32, f32) {
        let k = key(pos);
        match self.memo.index.get(k) {
            Some(i) => i,
            None => self.search(pos, k, depth),
        }
    }

    /// Searches the side of `pos` (key `k`, not in the memo) and memoises it.
    fn search(&mut self, pos: &Position, k: u64, depth: usize) -> (u32, f32) {
        let p = pos.pips();
        let mut d = [0f64; RACE_ROLLS];
        // A first-off search never gets here with a checker off: its root has 15
        // and a roll that can bear one off is not searched further (below).
        debug_assert!(self.goal == Goal::AllOff || pos.mover_checkers() == 15);
        if p[7..25].iter().all(|&c| c <= 0) {
            let mut home = [0u8; POINTS];
            for (i, c) in home.iter_mut().enumerate() {
                *c = p[i + 1].max(0).unsigned_abs();
            }
            // At most 15 checkers (exactly 15 for the first-off goal), so the table
            // has the side.
            let table = match self.goal {
                Goal::AllOff => self.one.distribution(&home),
                Goal::FirstOff => self.one.first_off_distribution(&home),
            };
            if let Some(t) = table {
                for (slot, &x) in d.iter_mut().zip(t.iter().take(MAX_ROLLS)) {
                    *slot = f64::from(x);
                }
            }
            return self.memo.push(k, &d);
        }
        if self.gens.len() <= depth {
            self.gens.resize_with(depth + 1, MoveGenerator::new);
            self.keys.resize_with(depth + 1, Vec::new);
        }
        for (dice, weight) in Dice::ALL_21 {
            let mut gen = std::mem::take(&mut self.gens[depth]);
            let mut keys = std::mem::take(&mut self.keys[depth]);
            let mut best: Option<(f32, u32)> = None;
            let moves = gen.generate(pos, dice);
            if self.goal == Goal::FirstOff && moves.iter().any(|m| m.result().mover_checkers() < 15)
            {
                // A checker off now is the best there is: no need to search the
                // other plays.
                d[1] += f64::from(weight) / 36.0;
                self.gens[depth] = gen;
                self.keys[depth] = keys;
                continue;
            }
            // All the plays' look-ups asked of the cache first, so that their misses
            // overlap (a roll has up to a few hundred plays, mostly memoised).
            keys.clear();
            for m in moves {
                let k = key(m.result());
                self.memo.index.prefetch(k);
                keys.push(k);
            }
            for (m, &k) in moves.iter().zip(&keys) {
                let (i, e) = match self.memo.index.get(k) {
                    Some(i) => i,
                    None => self.search(m.result(), k, depth + 1),
                };
                if best.is_none_or(|(b, _)| e < b) {
                    best = Some((e, i));
                }
            }
            self.gens[depth] = gen;
            self.keys[depth] = keys;
            // A side alone on the board always has a play: a checker outside the
            // home board can move by any die, and a side all home can bear off.
            if let Some((_, i)) = best {
                self.memo.add_shifted(i, f64::from(weight) / 36.0, &mut d);
            }
        }
        self.memo.push(k, &d)
    }
}

/// The number of positions of one side, with at least one checker outside its home
/// board, whose checkers could have come from `side`'s: for every point, at most as
/// many checkers on it and above as `side` has (checkers only move down). Every
/// position a search from `side` memoises is one of them, or home.
pub fn dominated_count(side: &Side) -> u64 {
    dominated(side, false)
}

/// [`dominated_count`] of the positions with all 15 checkers still on the board: the
/// ones a first-off search ([`first_off_distribution`]) can visit.
pub fn dominated_full_count(side: &Side) -> u64 {
    dominated(side, true)
}

/// [`dominated_count`], of every number of checkers or (`full`) of 15 only.
fn dominated(side: &Side, full: bool) -> u64 {
    // above[k] = checkers of `side` on points k + 1 and higher.
    let mut above = [0usize; 25];
    for k in (0..24).rev() {
        above[k] = above[k + 1] + usize::from(side[k]);
    }
    // Configurations over points `lowest..24` (1-based `lowest + 1` and up) with
    // nothing below the limit: dp[c] = ways with c checkers on the points done.
    let count = |lowest: usize, outside_empty: bool| -> u64 {
        let mut dp = [0u64; 16];
        dp[0] = 1;
        for k in (lowest..24).rev() {
            let cap = if outside_empty && k >= POINTS {
                0
            } else {
                above[k].min(15)
            };
            let mut next = [0u64; 16];
            for (c, &w) in dp.iter().enumerate() {
                for slot in next.iter_mut().take(cap + 1).skip(c) {
                    *slot += w;
                }
            }
            dp = next;
        }
        if full {
            dp[15]
        } else {
            dp.iter().sum()
        }
    };
    count(0, false) - count(0, true)
}

/// The distribution of the rolls `side` needs to bear off every checker (entry `n` =
/// P(exactly `n`)), each roll played to minimise the expected rolls; `None` for more
/// than 15 checkers or for a side whose [`dominated_count`] exceeds `limit`.
pub fn rolls_distribution(one: &OneSidedDb, side: &Side, limit: u64) -> Option<[f64; RACE_ROLLS]> {
    all_off_fits(side, limit).then(|| search(one, Goal::AllOff, side, limit))
}

/// Whether [`rolls_distribution`] answers for `side` within `limit` (microseconds:
/// the count is a small dynamic programme, not a search).
pub fn all_off_fits(side: &Side, limit: u64) -> bool {
    side.iter().map(|&c| usize::from(c)).sum::<usize>() <= 15 && dominated_count(side) <= limit
}

/// Whether [`first_off_distribution`] answers for `side` within `limit`.
pub fn first_off_fits(side: &Side, limit: u64) -> bool {
    side.iter().map(|&c| usize::from(c)).sum::<usize>() == 15 && dominated_full_count(side) <= limit
}

/// The distribution of the rolls `side` (all 15 checkers on the board, none off)
/// needs to bear its first checker off (entry `n` = P(exactly `n`)), each roll played
/// to minimise the expected rolls to that; `None` unless `side` holds exactly 15
/// checkers, or when its [`dominated_full_count`] exceeds `limit`.
///
/// It decides gammons ([`race_gammons`]): the side is gammoned if the other is done
/// first. Minimising the expected rolls is the one-sided approximation again: a
/// saver that knows the finisher's distribution would sometimes play for the rolls
/// that matter most instead.
pub fn first_off_distribution(
    one: &OneSidedDb,
    side: &Side,
    limit: u64,
) -> Option<[f64; RACE_ROLLS]> {
    first_off_fits(side, limit).then(|| search(one, Goal::FirstOff, side, limit))
}

/// The distribution for `goal` from the thread's memo of that goal, which is kept
/// unless it holds more than [`MEMO_CAP`] or twice `limit` positions.
fn search(one: &OneSidedDb, goal: Goal, side: &Side, limit: u64) -> [f64; RACE_ROLLS] {
    let memo = match goal {
        Goal::AllOff => &MEMO,
        Goal::FirstOff => &FIRST_MEMO,
    };
    let cap = usize::try_from(limit.saturating_mul(2))
        .unwrap_or(usize::MAX)
        .max(MEMO_CAP);
    memo.with(|m| {
        let mut memo = m.borrow_mut();
        if memo.spans.len() > cap {
            memo.clear();
        }
        let mut search = Search {
            one,
            goal,
            memo: &mut memo,
            gens: Vec::new(),
            keys: Vec::new(),
        };
        let i = search.entry(&side_position(side), 0);
        memo.distribution(i.0)
    })
}

/// Empties the thread's memo of the all-off (`first_off` false) or first-off search
/// and returns what it held: every side searched, with a checker outside its home
/// board, and its exact distribution. Training data for the one-sided race net
/// ([`SideNet`](super::side_net::SideNet)); the searches themselves lose nothing
/// but time.
pub fn drain_memo(first_off: bool) -> Vec<(Side, [f32; RACE_ROLLS])> {
    let memo = if first_off { &FIRST_MEMO } else { &MEMO };
    memo.with(|m| {
        let mut memo = m.borrow_mut();
        let mut out = Vec::with_capacity(memo.index.len());
        for (k, i, _) in memo.index.iter() {
            let side = key_side(k);
            if side[POINTS..].iter().all(|&c| c == 0) {
                continue;
            }
            let d = memo.distribution(i);
            let mut f = [0f32; RACE_ROLLS];
            for (x, &y) in f.iter_mut().zip(d.iter()) {
                *x = y as f32;
            }
            out.push((side, f));
        }
        memo.clear();
        out
    })
}

/// Positions held by this thread's two memos.
pub fn memo_len() -> usize {
    MEMO.with(|m| m.borrow().spans.len()) + FIRST_MEMO.with(|m| m.borrow().spans.len())
}

/// P(the mover bears off first) from the mover's (`m`) and the opponent's (`o`)
/// all-off distributions: the mover's `n`-th roll comes before the opponent's, so it
/// is the sum over `n` of P(M = n) P(O >= n).
pub fn win_from(m: &[f64; RACE_ROLLS], o: &[f64; RACE_ROLLS]) -> f64 {
    let mut tail = 0f64;
    let mut win = 0f64;
    for n in (1..RACE_ROLLS).rev() {
        tail += o[n];
        win += m[n] * tail;
    }
    win.clamp(0.0, 1.0)
}

/// P(the finisher wins a gammon) from its all-off distribution `f` and the saver's
/// first-off distribution `s`: the finisher done on its roll `n` while the saver's
/// first checker is not off in `n - 1 + lag` rolls (`lag` 0 when the finisher is on
/// roll, 1 when the saver is).
pub fn gammon_from(f: &[f64; RACE_ROLLS], s: &[f64; RACE_ROLLS], lag: usize) -> f64 {
    // at_least[n] = P(S >= n).
    let mut at_least = [0f64; RACE_ROLLS + 1];
    for n in (0..RACE_ROLLS).rev() {
        at_least[n] = at_least[n + 1] + s[n];
    }
    let g: f64 = (1..RACE_ROLLS)
        .map(|n| f[n] * at_least[(n + lag).min(RACE_ROLLS)])
        .sum();
    g.clamp(0.0, 1.0)
}

/// The two sides of a race position, the mover's and the opponent's, each in its own
/// numbering; `None` when a checker is on a bar.
pub fn race_sides(pos: &Position) -> Option<(Side, Side)> {
    let p = pos.pips();
    if p[0] != 0 || p[25] != 0 {
        return None;
    }
    let mut mover = [0u8; 24];
    let mut opponent = [0u8; 24];
    for i in 0..24 {
        mover[i] = p[i + 1].max(0).unsigned_abs();
        opponent[i] = p[24 - i].min(0).unsigned_abs();
    }
    Some((mover, opponent))
}

/// P(the player on roll bears off first) in the race `pos` (no contact: the caller's
/// to know), from both sides' [`rolls_distribution`]s: with `M`, `O` their rolls, the
/// mover finishes on its `n`-th roll before the opponent's `n`-th, so the chance is
/// the sum over `n` of P(M = n) P(O >= n). `None` when a side is over `limit` or has
/// no checker left.
pub fn race_win(one: &OneSidedDb, pos: &Position, limit: u64) -> Option<f64> {
    let (mover, opponent) = race_sides(pos)?;
    if mover.iter().all(|&c| c == 0) || opponent.iter().all(|&c| c == 0) {
        return None;
    }
    // Both limits first: one side's search is wasted when the other's is over.
    if !all_off_fits(&mover, limit) || !all_off_fits(&opponent, limit) {
        return None;
    }
    let m = search(one, Goal::AllOff, &mover, limit);
    let o = search(one, Goal::AllOff, &opponent, limit);
    Some(win_from(&m, &o))
}

/// Gammon chances of the race `pos` for the player on roll, `(win gammon, lose
/// gammon)`, from [`rolls_distribution`] of the side that may win one and
/// [`first_off_distribution`] of the side that may lose one. Each is `None` when the
/// side that would lose it has a checker off already (no gammon: the caller's tables
/// know) or a side is over `limit`.
///
/// The mover's `n`-th roll comes before the opponent's `n`-th: the mover wins a
/// gammon when it finishes on roll `n` and the opponent's first checker is not off
/// in `n - 1` rolls, and loses one when the opponent finishes on roll `n` and the
/// mover's first checker is not off in `n` rolls.
pub fn race_gammons(one: &OneSidedDb, pos: &Position, limit: u64) -> (Option<f64>, Option<f64>) {
    let Some((mover, opponent)) = race_sides(pos) else {
        return (None, None);
    };
    let finished = |s: &Side| s.iter().all(|&c| c == 0);
    if finished(&mover) || finished(&opponent) {
        return (None, None);
    }
    // Both sides' limits checked before either search: a saver with a checker off
    // has no first-off search, and the finisher's all-off search (that side then
    // trails, often by far) would be millions of positions wasted.
    let gammon = |finisher: &Side, saver: &Side, lag: usize| -> Option<f64> {
        if !first_off_fits(saver, limit) || !all_off_fits(finisher, limit) {
            return None;
        }
        let s = search(one, Goal::FirstOff, saver, limit);
        let f = search(one, Goal::AllOff, finisher, limit);
        Some(gammon_from(&f, &s, lag))
    };
    (gammon(&mover, &opponent, 0), gammon(&opponent, &mover, 1))
}

#[cfg(test)]
mod tests;
