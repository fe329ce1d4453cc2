//! Legal move generation.
//!
//! A move is identified by the position it produces (as GNU Backgammon does): two
//! checker sequences that end on the same board are one move, reported once, with the
//! first sequence found kept for notation.
//!
//! Rules (the oracle README section 1.4 states them the same way): checkers on the bar
//! enter first; a point with two or more opposing checkers is blocked; landing on a
//! lone opposing checker hits it; bearing off needs every checker home, with the
//! exact die or a larger die from the highest occupied point; both dice must be
//! played when any sequence allows it, otherwise the larger one when it can be; a
//! double is played up to four times.
//!
//! Speed: the search is a depth-first walk over checker steps on `Copy` positions
//! (26 bytes), with no allocation once a [`MoveGenerator`]'s buffers have grown to the
//! largest roll seen; duplicates are found with a small open-addressing table that is
//! cleared in O(1) by bumping a stamp. Doubles only try steps whose start point is not
//! above the previous step's (every sequence of a double can be reordered that way),
//! which cuts the 4-step tree by about 4! without losing a result.

use crate::dice::Dice;
use crate::position::{Position, BAR, OPP_BAR};

/// One checker step, in the mover's numbering: `from` 1..=24 or 25 (bar), `to` 0 (off)
/// or 1..=24. `die` is the die used (larger than `from - to` for some bear-offs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Step {
    pub from: u8,
    pub to: u8,
    pub die: u8,
    pub hit: bool,
}

/// A legal move: the checker steps (in playing order) and the resulting position,
/// still seen from the player who moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    steps: [Step; 4],
    len: u8,
    result: Position,
}

impl Move {
    /// The checker steps in the order played.
    pub fn steps(&self) -> &[Step] {
        &self.steps[..self.len as usize]
    }

    /// The position after the move, seen by the player who moved.
    pub fn result(&self) -> &Position {
        &self.result
    }

    /// The position after the move, seen by the next player on roll.
    pub fn next_position(&self) -> Position {
        self.result.switch_sides()
    }
}

/// Where the walk over checker steps sends its leaves: the move generator's list of
/// distinct moves, or a consumer that keeps only what it needs (PubEval's best few
/// for the rollouts' luck estimate and the search's reply choice, never building the
/// list: `eval::top_ranked`).
///
/// The walk enforces the rules on how many dice must be played: a leaf arrives only
/// if no leaf reported so far played more dice, and [`Leaves::restart`] comes first
/// whenever a leaf plays more dice than all before it. One result position may arrive
/// more than once (other orders of the same steps): the first arrival is the one the
/// move list keeps, and results are reported in that order.
pub trait Leaves {
    /// Every leaf reported so far played fewer dice than the next one: forget them.
    fn restart(&mut self);
    /// A sequence of `n` steps (`steps[..n]`) ending on `pos`, seen by the mover.
    fn leaf(&mut self, pos: &Position, steps: &[Step; 4], n: usize);
}

/// Reports every legal sequence of `dice` in `pos` to `leaves` and returns the number
/// of dice each playable move plays (0: the roll cannot be played; then the one leaf
/// reported, the unchanged position, is no move).
pub fn walk<L: Leaves>(pos: &Position, dice: Dice, leaves: &mut L) -> u8 {
    walk_with(pos, dice, leaves, true)
}

/// [`walk`], optionally without skipping the second pass's repeats (see
/// [`commutes`]): the tests compare the two.
fn walk_with<L: Leaves>(pos: &Position, dice: Dice, leaves: &mut L, skip_repeats: bool) -> u8 {
    let mut w = Walk {
        leaves,
        max_played: 0,
        pass: 0,
        singles: false,
        skip_repeats,
    };
    let mut steps = [Step::default(); 4];
    let (hi, lo) = dice.high_low();
    if dice.is_double() {
        w.double(*pos, hi, 4, BAR as u8, &mut steps, 0);
    } else {
        // Larger die first: when only one die can be played, the larger must be
        // played if it can, so the second pass (smaller die first) only reports
        // one-step leaves when the first found none.
        w.pair(*pos, [hi, lo], &mut steps, 0);
        w.pass = 1;
        w.pair(*pos, [lo, hi], &mut steps, 0);
    }
    w.max_played
}

/// The state of one [`walk`].
struct Walk<'l, L> {
    leaves: &'l mut L,
    max_played: u8,
    /// 0 for the larger die first, 1 for the smaller die first.
    pass: u8,
    /// The first pass reported a leaf of one step (the larger die alone).
    singles: bool,
    /// Skip the second pass's sequences that repeat a first-pass result.
    skip_repeats: bool,
}

impl<L: Leaves> Walk<'_, L> {
    fn pair(&mut self, pos: Position, dice: [u8; 2], steps: &mut [Step; 4], n: usize) {
        if n == 2 {
            self.record(&pos, steps, n);
            return;
        }
        let die = dice[n];
        let mut any = false;
        for_each_step(&pos, die, BAR as u8, |from, to| {
            any = true;
            if self.pass == 1 && n == 1 && self.skip_repeats && commutes(&steps[0], from, to) {
                // The first pass played these two steps the other way round.
                return;
            }
            let mut next = pos;
            steps[n] = apply(&mut next, from, to, die);
            self.pair(next, dice, steps, n + 1);
        });
        if !any {
            self.record(&pos, steps, n);
        }
    }

    fn double(
        &mut self,
        pos: Position,
        die: u8,
        left: u8,
        max_from: u8,
        steps: &mut [Step; 4],
        n: usize,
    ) {
        if left == 0 {
            self.record(&pos, steps, n);
            return;
        }
        let mut any = false;
        for_each_step(&pos, die, max_from, |from, to| {
            any = true;
            let mut next = pos;
            steps[n] = apply(&mut next, from, to, die);
            self.double(next, die, left - 1, from, steps, n + 1);
        });
        if !any {
            self.record(&pos, steps, n);
        }
    }

    #[inline]
    fn record(&mut self, pos: &Position, steps: &[Step; 4], n: usize) {
        let n8 = n as u8;
        if n8 < self.max_played {
            return;
        }
        if n8 == 1 {
            if self.pass == 0 {
                self.singles = true;
            } else if self.singles {
                // The smaller die alone, where the larger alone is playable.
                return;
            }
        }
        if n8 > self.max_played {
            self.max_played = n8;
            self.leaves.restart();
        }
        self.leaves.leaf(pos, steps, n);
    }
}

/// Reusable move generator: keeps its buffers between calls so the hot path does not
/// allocate. Not `Sync`; give each thread its own.
#[derive(Default)]
pub struct MoveGenerator {
    list: MoveList,
    max_played: u8,
}

/// The distinct results of a walk, in the order first reached.
#[derive(Default)]
struct MoveList {
    moves: Vec<Move>,
    seen: DedupTable,
}

impl Leaves for MoveList {
    fn restart(&mut self) {
        self.moves.clear();
        self.seen.clear();
    }

    #[inline]
    fn leaf(&mut self, pos: &Position, steps: &[Step; 4], n: usize) {
        if self.seen.insert(pos, &self.moves) {
            self.moves.push(Move {
                steps: *steps,
                len: n as u8,
                result: *pos,
            });
        }
    }
}

impl MoveGenerator {
    /// An empty generator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every legal move of `dice` in `pos`; empty when the roll cannot be played.
    pub fn generate(&mut self, pos: &Position, dice: Dice) -> &[Move] {
        self.list.restart();
        self.max_played = walk(pos, dice, &mut self.list);
        if self.max_played == 0 {
            self.list.moves.clear();
        }
        &self.list.moves
    }

    /// Moves of the last call to [`MoveGenerator::generate`].
    pub fn moves(&self) -> &[Move] {
        &self.list.moves
    }

    /// Number of dice every move of the last call plays.
    pub fn dice_played(&self) -> u8 {
        self.max_played
    }
}

/// Whether the smaller die's `first` step followed by the larger die's step
/// `from -> to` reaches a result the walk's first pass (larger die first) already
/// reported, by playing the second step first: true when neither step bears off,
/// neither enters from the bar, and the second does not move on the checker the first
/// just moved. Then the larger step was legal before the smaller one (its start point
/// held a checker already: two of them when both leave one point; its landing point
/// was open, a hit only opens one), and the smaller one after it, with the same
/// result. About a quarter of all the walk's leaves were such repeats, each hashed
/// (move list) or scored (luck estimate) only to be dropped.
#[inline]
fn commutes(first: &Step, from: u8, to: u8) -> bool {
    first.to != 0 && to != 0 && first.from != BAR as u8 && from != first.to
}

/// Calls `f(from, to)` for every legal single step of `die` whose start point is at most
/// `max_from`, from the highest start point down. `to` is 0 for bearing off.
#[inline]
fn for_each_step(pos: &Position, die: u8, max_from: u8, mut f: impl FnMut(u8, u8)) {
    let p = pos.pips();
    if p[BAR] > 0 {
        let to = BAR - die as usize;
        if p[to] >= -1 {
            f(BAR as u8, to as u8);
        }
        return;
    }
    let (mover, _) = pos.occupancy();
    let highest = (31 - (mover | 1).leading_zeros()) as usize;
    let all_home = highest <= 6;
    let top = (max_from as usize).min(highest);
    // The mover's points 1..=top, highest first.
    let mut from_points = mover & ((2u32 << top) - 1) & !1;
    while from_points != 0 {
        let from = (31 - from_points.leading_zeros()) as usize;
        from_points &= !(1 << from);
        let d = die as usize;
        if from > d {
            if p[from - d] >= -1 {
                f(from as u8, (from - d) as u8);
            }
        } else if all_home && (from == d || from == highest) {
            f(from as u8, 0);
        }
    }
}

/// Moves one checker; returns the step with its hit flag.
#[inline]
fn apply(pos: &mut Position, from: u8, to: u8, die: u8) -> Step {
    let p = pos.pips_mut();
    p[from as usize] -= 1;
    let mut hit = false;
    if to > 0 {
        let t = &mut p[to as usize];
        if *t == -1 {
            *t = 1;
            p[OPP_BAR] -= 1;
            hit = true;
        } else {
            *t += 1;
        }
    }
    Step { from, to, die, hit }
}

/// Open-addressing set of result positions, indexing into the move list; cleared in
/// O(1) by bumping `stamp`. Grows (the only allocation) when half full.
#[derive(Default)]
struct DedupTable {
    /// Per slot: (stamp, move index).
    slots: Vec<(u32, u32)>,
    stamp: u32,
    len: usize,
}

impl DedupTable {
    const INITIAL: usize = 256;

    fn clear(&mut self) {
        self.len = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Stamp wrapped: old entries could look live again.
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.stamp = 1;
        }
    }

    /// Inserts `pos` (whose index would be `moves.len()`); false if already present.
    #[inline]
    fn insert(&mut self, pos: &Position, moves: &[Move]) -> bool {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); Self::INITIAL];
            if self.stamp == 0 {
                self.stamp = 1;
            }
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(moves);
        }
        let mask = self.slots.len() - 1;
        let mut i = hash(pos) as usize & mask;
        loop {
            let (stamp, idx) = self.slots[i];
            if stamp != self.stamp {
                self.slots[i] = (self.stamp, moves.len() as u32);
                self.len += 1;
                return true;
            }
            if moves[idx as usize].result == *pos {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self, moves: &[Move]) {
        let size = self.slots.len() * 2;
        self.slots = vec![(0, 0); size];
        self.stamp = 1;
        let mask = size - 1;
        for (idx, m) in moves.iter().enumerate() {
            let mut i = hash(&m.result) as usize & mask;
            while self.slots[i].0 == self.stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = (self.stamp, idx as u32);
        }
    }
}

/// A fast, well-mixing hash of the 26 board bytes.
#[inline]
pub(crate) fn hash(pos: &Position) -> u64 {
    let p = pos.pips();
    let mut h = 0x9E37_79B9_7F4A_7C15u64;
    for chunk in p.chunks(8) {
        let mut w = 0u64;
        for (k, &b) in chunk.iter().enumerate() {
            w |= u64::from(b as u8) << (8 * k);
        }
        h = (h ^ w).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 29;
    }
    h
}

/// Convenience: every legal move, allocating a fresh generator. Use a
/// [`MoveGenerator`] in loops.
pub fn legal_moves(pos: &Position, dice: Dice) -> Vec<Move> {
    MoveGenerator::new().generate(pos, dice).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::position_id;

    fn results(pos: &Position, d1: u8, d2: u8) -> Vec<String> {
        let mut v: Vec<String> = legal_moves(pos, Dice::new(d1, d2).unwrap())
            .iter()
            .map(|m| position_id::encode(&m.next_position()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn opening_31_includes_8_5_6_5() {
        let r = results(&Position::STARTING, 3, 1);
        assert!(r.contains(&"sGfwATDgc/ABMA".to_string()));
    }

    #[test]
    fn skipping_repeats_changes_no_move_order_or_steps() {
        // Every leaf in order, duplicates included.
        #[derive(Default)]
        struct All(Vec<(Position, Vec<Step>)>);
        impl Leaves for All {
            fn restart(&mut self) {
                self.0.clear();
            }
            fn leaf(&mut self, pos: &Position, steps: &[Step; 4], n: usize) {
                self.0.push((*pos, steps[..n].to_vec()));
            }
        }
        let first_arrivals = |all: All| {
            let mut seen = std::collections::HashSet::new();
            let v: Vec<_> = all.0.into_iter().filter(|(p, _)| seen.insert(*p)).collect();
            v
        };
        let (mut fewer, mut total) = (0usize, 0usize);
        for pos in crate::testutil::random_positions(5000, 41) {
            for &(dice, _) in &Dice::ALL_21 {
                let (mut a, mut b) = (All::default(), All::default());
                let played = walk_with(&pos, dice, &mut a, true);
                assert_eq!(walk_with(&pos, dice, &mut b, false), played);
                total += b.0.len();
                fewer += b.0.len() - a.0.len();
                assert_eq!(first_arrivals(a), first_arrivals(b), "{pos:?} {dice:?}");
            }
        }
        // The skip must actually bite (a quarter of all leaves on random play).
        assert!(fewer * 10 > total, "{fewer} of {total}");
    }

    #[test]
    fn dedup_table_survives_growth() {
        let mut t = DedupTable::default();
        let mut moves = Vec::new();
        let base = Position::STARTING;
        // 300 distinct positions force at least one growth from 256 slots.
        for k in 0..300u32 {
            let mut p = base;
            let pp = p.pips_mut();
            pp[2] = (k % 10) as i8;
            pp[3] = (k / 10 % 10) as i8;
            pp[4] = (k / 100) as i8;
            assert!(t.insert(&p, &moves));
            moves.push(Move {
                steps: [Step::default(); 4],
                len: 0,
                result: p,
            });
        }
        for m in moves.clone() {
            assert!(!t.insert(&m.result, &moves));
        }
    }
}
