//! Tesauro's PubEval (1993): the public-domain linear move-selection function that
//! backgammon programs have long reported their strength against (points per game
//! versus PubEval). bgfarm uses it as a fixed, well-known reference opponent for duels.
//!
//! PubEval scores the board *after* a move, from the mover's side; the move with the
//! highest score is played. The score is not an equity or a probability, so PubEval is
//! a [`Player`], not an [`Evaluator`](super::Evaluator).
//!
//! Orientation. Tesauro's `pos[28]` array uses exactly our layout: `pos[1..=24]` are
//! the points from the mover's ("computer's") side with the mover running from 24 down
//! to 1, mover's checkers positive, `pos[25]` the mover's bar, `pos[0]` the opponent's
//! bar (negative). His `setx` then fills input block `j` (`j` = 1..=24, inputs
//! `5(j-1)..5(j-1)+4`) from `pos[25 - j]`: block 1 is the mover's 24-point (its back
//! checkers) and block 24 its 1-point. That reversal is part of the published function
//! and the weights depend on it (the large positive "made point" weights 3.36, 4.38,
//! 3.54 sit in blocks 19..=21, i.e. the mover's 6-, 5- and 4-points); reading block `j`
//! from point `j` instead would value points in the opponent's home board and play
//! badly. `shared/reference/pubeval.md` describes block `j` as "point j" without that
//! reversal; the original source (`n = pos[25-j]`) is what is implemented here.

use super::Player;
use crate::dice::Dice;
use crate::movegen::{Move, Step};
use crate::position::{Position, BAR, OPP_BAR};

/// Number of PubEval inputs: 5 per point, the opponent's bar, the mover's borne-off.
pub const INPUTS: usize = 122;

/// Weights for contact positions, as published.
#[rustfmt::skip]
pub const CONTACT_WEIGHTS: [f32; INPUTS] = [
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
    -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
    -0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
    -1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
    1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
    -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
    -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
    1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
    0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
    -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
    -0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
    1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
];

/// Weights for races (no contact before the move), as published.
#[rustfmt::skip]
pub const RACE_WEIGHTS: [f32; INPUTS] = [
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
    0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
    -2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
    -0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
    0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
    0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
    0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
    0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
    -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
    -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
    2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
    -0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
    -3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
];

/// PubEval's race test, applied to the position BEFORE the move (Tesauro: "race should
/// be set based on the initial position before the move"): true when no checker has
/// to pass an opposing one any more.
#[inline]
pub fn is_race(before: &Position) -> bool {
    !before.has_contact()
}

/// The 122 inputs for `after`, a position after a move seen from the player who moved
/// (as [`Move::result`] gives it). For block `j` = 1..=24 (inputs `k = 5(j-1)`..`k+4`)
/// with `n` the signed count on the mover's point `25 - j`:
/// `x[k]` = opposing blot, `x[k+1]` = own blot, `x[k+2]` = own point (`n >= 2`),
/// `x[k+3]` = exactly three, `x[k+4]` = `(n - 3) / 2` for `n >= 4`;
/// `x[120]` = opponent's checkers on the bar / 2, `x[121]` = own checkers off / 15.
/// The mover's own bar is not an input.
pub fn inputs(after: &Position) -> [f32; INPUTS] {
    let p = after.pips();
    let mut x = [0.0f32; INPUTS];
    for j in 1..=24 {
        let k = 5 * (j - 1);
        let n = p[25 - j];
        match n {
            -1 => x[k] = 1.0,
            1 => x[k + 1] = 1.0,
            _ => {}
        }
        if n >= 2 {
            x[k + 2] = 1.0;
        }
        if n == 3 {
            x[k + 3] = 1.0;
        }
        if n >= 4 {
            x[k + 4] = f32::from(n - 3) / 2.0;
        }
    }
    x[120] = f32::from(p[OPP_BAR].unsigned_abs()) / 2.0;
    x[121] = f32::from(after.mover_off()) / 15.0;
    x
}

/// PubEval's score of `after` (see [`inputs`]) with the race or contact weights;
/// `+inf` when the mover has borne off all 15 checkers (the best possible move).
///
/// Equal, bit for bit, to `sum(w[i] * x[i])` accumulated in `f32` in input order, as
/// Tesauro's C code does: zero inputs are skipped, which changes no partial sum, so
/// the hot path never builds the 122-vector.
pub fn score(after: &Position, race: bool) -> f32 {
    if after.mover_checkers() == 0 {
        return f32::INFINITY;
    }
    let w = if race {
        &RACE_WEIGHTS
    } else {
        &CONTACT_WEIGHTS
    };
    let p = after.pips();
    let mut s = 0.0f32;
    for j in 1..=24 {
        let k = 5 * (j - 1);
        let n = p[25 - j];
        if n == -1 {
            s += w[k];
        } else if n == 1 {
            s += w[k + 1];
        } else if n >= 2 {
            s += w[k + 2];
            if n == 3 {
                s += w[k + 3];
            } else if n >= 4 {
                s += w[k + 4] * (f32::from(n - 3) / 2.0);
            }
        }
    }
    let bar = p[OPP_BAR].unsigned_abs();
    if bar > 0 {
        s += w[120] * (f32::from(bar) / 2.0);
    }
    let off = after.mover_off();
    if off > 0 {
        s += w[121] * (f32::from(off) / 15.0);
    }
    s
}

/// Per point (1..=24, index `j - 1`) and signed checker count there (index `n + 15`):
/// that point's contribution to a ranking score, for [`RankBase`]. PubEval's point
/// `j` is the mover's point `25 - j` (its index in [`Position::pips`]).
pub type PointTable = [[f32; 31]; 24];

fn point_table(w: &[f32; INPUTS]) -> PointTable {
    let mut t = [[0f32; 31]; 24];
    for (j, row) in t.iter_mut().enumerate() {
        let k = 5 * j;
        for (i, c) in row.iter_mut().enumerate() {
            let n = i as i32 - 15;
            *c = match n {
                -1 => w[k],
                1 => w[k + 1],
                2 => w[k + 2],
                3 => w[k + 2] + w[k + 3],
                n if n >= 4 => w[k + 2] + w[k + 4] * ((n - 3) as f32 / 2.0),
                _ => 0.0,
            };
        }
    }
    t
}

/// PubEval's ranking tables, contact and race, built once.
fn tables() -> &'static [PointTable; 2] {
    static TABLES: std::sync::OnceLock<[PointTable; 2]> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| [point_table(&CONTACT_WEIGHTS), point_table(&RACE_WEIGHTS)])
}

/// PubEval's point table for `race` and the weights of its bar input (the opponent's
/// checkers on the bar / 2) and borne-off input (the mover's checkers off / 15).
pub fn ranking_terms(race: bool) -> (&'static PointTable, f32, f32) {
    let (t, w) = table_of(race);
    (t, w[120], w[121])
}

/// The table and weights of `race`.
#[inline]
fn table_of(race: bool) -> (&'static PointTable, &'static [f32; INPUTS]) {
    let t = tables();
    if race {
        (&t[1], &RACE_WEIGHTS)
    } else {
        (&t[0], &CONTACT_WEIGHTS)
    }
}

/// The bar and borne-off terms of a position with `left` of the mover's checkers
/// still on the board or bar and `bar` opposing checkers on the bar; `None` when
/// `left` is 0 (the game is won: the score is `+inf`).
#[inline]
fn bar_off_terms(bar_w: f32, off_w: f32, left: u32, bar: u8) -> Option<f32> {
    if left == 0 {
        return None;
    }
    let mut s = 0.0f32;
    if bar > 0 {
        s += bar_w * (f32::from(bar) / 2.0);
    }
    let off = 15u32.saturating_sub(left);
    if off > 0 {
        s += off_w * (off as f32 / 15.0);
    }
    Some(s)
}

/// PubEval's ranking of the moves from one position, by differences: a move changes
/// at most 8 points, so its score is the position's per-point sum plus the changed
/// points' differences (about 8 look-ups instead of 24 table look-ups, or [`score`]'s
/// branches on every point). The rollouts' luck estimate ranks every move of all 21
/// rolls every turn, where a per-position table score was still 12% of a 0-ply
/// rollout's time.
///
/// Equal to [`score`] of the move's result up to float rounding (the terms are
/// summed in another order), and a pure function of the position and the move's
/// result: the changed points are added in increasing order, and a point a move
/// passes through unchanged adds exactly 0.
///
/// The same machinery ranks by any score of this shape (a per-point table plus bar
/// and borne-off terms): [`RankBase::with_terms`], as [`crate::eval::net_rank`] does.
pub struct RankBase<'a> {
    before: &'a Position,
    table: &'a PointTable,
    /// Weight of the opponent's checkers on the bar / 2 (PubEval's input 120).
    bar_w: f32,
    /// Weight of the mover's checkers off / 15 (PubEval's input 121).
    off_w: f32,
    /// Per mover's checker on the bar (PubEval has no such input: 0).
    own_bar: f32,
    /// Sum of `before`'s per-point terms.
    points: f32,
    /// The mover's checkers on the board or bar.
    left: u32,
    /// Added to the score of a move that bears a checker off (0 for PubEval; see
    /// [`RankBase::with_first_off`]).
    first_off: f32,
    /// Added to the score of a move after which the mover has no checker left in
    /// the opponent's home board (0 for PubEval; see [`RankBase::with_escape`]).
    escape: f32,
}

impl<'a> RankBase<'a> {
    /// The base for the moves from `before` (the position before the roll, mover's
    /// view), with the race or contact weights (see [`is_race`]).
    pub fn new(before: &'a Position, race: bool) -> RankBase<'a> {
        let (table, bar_w, off_w) = ranking_terms(race);
        RankBase::with_terms(before, table, bar_w, off_w, 0.0)
    }

    /// A base scoring by `table` and the bar and borne-off weights `bar_w` and
    /// `off_w` (as PubEval's inputs 120 and 121), plus `own_bar` per mover's checker
    /// on the bar. A move that bears off the last checker scores `+inf`.
    pub fn with_terms(
        before: &'a Position,
        table: &'a PointTable,
        bar_w: f32,
        off_w: f32,
        own_bar: f32,
    ) -> RankBase<'a> {
        let p = before.pips();
        let points = table
            .iter()
            .enumerate()
            .map(|(j, row)| row[(i32::from(p[24 - j]) + 15) as usize])
            .sum();
        RankBase {
            before,
            table,
            bar_w,
            off_w,
            own_bar,
            points,
            left: u32::from(before.mover_checkers()),
            first_off: 0.0,
            escape: 0.0,
        }
    }

    /// The same base with `bonus` added to every move that bears a checker off: a
    /// ranking's term for what a first checker off changes all at once (a race net's
    /// gammon inputs), which the per-point terms cannot hold. Meant for bases of
    /// positions whose mover has borne off none; 0 leaves the ranking as it was.
    pub fn with_first_off(mut self, bonus: f32) -> RankBase<'a> {
        self.first_off = bonus;
        self
    }

    /// The same base with `bonus` added to every move that takes the mover's last
    /// checker out of the opponent's home board: in races the backgammon chances
    /// come from exact escape tables, not from the net whose gradient the ranking
    /// is, so only such a term lets the ranking see a backgammon saved.
    pub fn with_escape(mut self, bonus: f32) -> RankBase<'a> {
        self.escape = bonus;
        self
    }

    /// The position whose moves this base ranks.
    pub fn position(&self) -> &'a Position {
        self.before
    }

    /// The ranking score of `mv` (a legal move from the base position).
    #[inline]
    pub fn score(&self, mv: &Move) -> f32 {
        self.score_steps(mv.result(), mv.steps())
    }

    /// The ranking score of the result `after` of the checker steps `steps` from the
    /// base position (what [`RankBase::score`] computes, for callers that walk the
    /// steps without building [`Move`]s).
    #[inline]
    pub fn score_steps(&self, after: &Position, steps: &[Step]) -> f32 {
        let before = self.before.pips();
        let after = after.pips();
        let mut changed = 0u32;
        let mut borne_off = 0u32;
        for st in steps {
            changed |= 1 << st.from;
            if st.to == 0 {
                borne_off += 1;
            } else {
                changed |= 1 << st.to;
            }
        }
        // Bit 25 is the bar: not a point term.
        changed &= !(1 << 25);
        let mut s = self.points;
        if borne_off > 0 {
            s += self.first_off;
        }
        if self.escape != 0.0 && after[19..25].iter().all(|&c| c <= 0) {
            s += self.escape;
        }
        while changed != 0 {
            let i = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let row = &self.table[24 - i];
            s += row[(i32::from(after[i]) + 15) as usize]
                - row[(i32::from(before[i]) + 15) as usize];
        }
        if self.own_bar != 0.0 {
            s += self.own_bar * f32::from(after[BAR].unsigned_abs());
        }
        match bar_off_terms(
            self.bar_w,
            self.off_w,
            self.left - borne_off,
            after[OPP_BAR].unsigned_abs(),
        ) {
            Some(x) => s + x,
            None => f32::INFINITY,
        }
    }
}

/// Tesauro's PubEval as a [`Player`]: plays the legal move whose result scores
/// highest, the first one listed on ties (so it is a pure function of its inputs).
#[derive(Clone, Copy, Debug, Default)]
pub struct PubEval;

impl Player for PubEval {
    fn choose(&self, pos: &Position, _dice: Dice, moves: &[Move]) -> usize {
        let race = is_race(pos);
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for (i, m) in moves.iter().enumerate() {
            let s = score(m.result(), race);
            if s > best_score {
                best_score = s;
                best = i;
            }
        }
        best
    }

    fn name(&self) -> String {
        "pubeval".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;
    use crate::notation::format_move;

    fn pos(pips: [i8; 26]) -> Position {
        Position::from_pips(pips).unwrap()
    }

    /// The plain dot product, as in Tesauro's `pubeval()`.
    fn dot(after: &Position, race: bool) -> f32 {
        let w = if race {
            &RACE_WEIGHTS
        } else {
            &CONTACT_WEIGHTS
        };
        inputs(after)
            .iter()
            .zip(w)
            .fold(0.0f32, |s, (x, w)| s + w * x)
    }

    fn chosen(d1: u8, d2: u8) -> String {
        let dice = Dice::new(d1, d2).unwrap();
        let moves = legal_moves(&Position::STARTING, dice);
        format_move(&moves[PubEval.choose(&Position::STARTING, dice, &moves)])
    }

    #[test]
    fn starting_position_inputs() {
        let x = inputs(&Position::STARTING);
        // Block j reads point 25 - j: 24-point (2) -> block 1, 13-point (5) -> block 12,
        // 8-point (3) -> block 17, 6-point (5) -> block 19. The opponent's points are
        // made (not blots), so they are invisible to PubEval.
        let mut want = [0.0f32; INPUTS];
        want[2] = 1.0; // 24: n >= 2
        want[55 + 2] = 1.0; // 13: n >= 2
        want[55 + 4] = 1.0; // 13: (5 - 3) / 2
        want[80 + 2] = 1.0; // 8: n >= 2
        want[80 + 3] = 1.0; // 8: n == 3
        want[90 + 2] = 1.0; // 6: n >= 2
        want[90 + 4] = 1.0; // 6: (5 - 3) / 2
        assert_eq!(x, want);
    }

    #[test]
    fn bar_blots_and_borne_off_inputs() {
        // Mover: blot on its 1-point, 4 on its 2-point, 7 borne off, 3 on the bar;
        // opponent: a blot on the mover's 24-point, 2 on the bar, the rest elsewhere.
        let mut p = [0i8; 26];
        p[1] = 1;
        p[2] = 4;
        p[25] = 3;
        p[24] = -1;
        p[0] = -2;
        p[10] = -12;
        let after = pos(p);
        let x = inputs(&after);
        assert_eq!(x[0], 1.0, "opposing blot on the mover's 24-point");
        assert_eq!(x[5 * 23 + 1], 1.0, "own blot on the 1-point");
        assert_eq!(x[5 * 22 + 2], 1.0);
        assert_eq!(x[5 * 22 + 4], 0.5, "(4 - 3) / 2 on the 2-point");
        assert_eq!(x[120], 1.0, "two opposing checkers on the bar / 2");
        assert_eq!(x[121], 7.0 / 15.0);
        assert_eq!(x.iter().filter(|&&v| v != 0.0).count(), 6);
    }

    #[test]
    fn race_switch_is_the_contact_test() {
        assert!(!is_race(&Position::STARTING));
        // Mover all home, opponent all in its home (the mover's 19..=24): a race.
        let mut p = [0i8; 26];
        p[6] = 15;
        p[19] = -15;
        assert!(is_race(&pos(p)));
        // One opposing checker back on the mover's 5-point: contact again.
        p[19] = -14;
        p[5] = -1;
        assert!(!is_race(&pos(p)));
        // Checkers just past each other (mover's highest 12, opponent's lowest 13).
        let mut p = [0i8; 26];
        p[12] = 15;
        p[13] = -15;
        assert!(is_race(&pos(p)));
        p[12] = 14;
        p[14] = 1;
        assert!(!is_race(&pos(p)));
    }

    #[test]
    fn score_is_the_dot_product_and_deterministic() {
        let dice = Dice::new(6, 4).unwrap();
        for m in legal_moves(&Position::STARTING, dice) {
            for race in [false, true] {
                let s = score(m.result(), race);
                assert_eq!(s.to_bits(), dot(m.result(), race).to_bits());
                assert_eq!(s.to_bits(), score(m.result(), race).to_bits());
            }
        }
        // Hand check: the starting position scores w[2] + w[57] + w[59] + w[82] +
        // w[83] + w[92] + w[94] with the contact weights.
        let want = -1.66135f32 + 1.78389 + 0.36797 + 1.83120 + 0.58722 + 3.35809 + 0.57353;
        assert!((score(&Position::STARTING, false) - want).abs() < 1e-5);
    }

    #[test]
    fn bearing_off_the_last_checker_wins_outright() {
        let mut p = [0i8; 26];
        p[1] = 1;
        p[20] = -3;
        let before = pos(p);
        let dice = Dice::new(2, 1).unwrap();
        let moves = legal_moves(&before, dice);
        let best = &moves[PubEval.choose(&before, dice, &moves)];
        assert_eq!(best.result().mover_checkers(), 0);
        assert_eq!(score(best.result(), true), f32::INFINITY);
    }

    #[test]
    fn plays_the_standard_openings() {
        // Measured: PubEval plays the book move for these rolls.
        assert_eq!(chosen(3, 1), "8/5 6/5");
        assert_eq!(chosen(4, 2), "8/4 6/4");
        assert_eq!(chosen(6, 1), "13/7 8/7");
    }

    #[test]
    fn rank_base_matches_score_up_to_rounding() {
        use crate::dice::Dice;
        use crate::movegen::MoveGenerator;
        let mut gen = MoveGenerator::new();
        let mut rng = crate::rng::Rng::new(9);
        let mut pos = Position::STARTING;
        let mut checked = 0;
        for _ in 0..400 {
            let dice: Dice = rng.roll();
            let race = is_race(&pos);
            let moves = gen.generate(&pos, dice).to_vec();
            for m in &moves {
                let (a, c) = (score(m.result(), race), RankBase::new(&pos, race).score(m));
                assert!(
                    a == c || (a - c).abs() <= 1e-5 * a.abs().max(1.0),
                    "{a} vs {c}"
                );
                checked += 1;
            }
            pos = match moves.first() {
                Some(m) if !m.next_position().game_over() => m.next_position(),
                Some(_) => Position::STARTING,
                None => pos.switch_sides(),
            };
        }
        assert!(checked > 1000);
    }
}
