//! Estimating the jump model's volatility `sigma` from self-play.
//!
//! Higgins's estimator: the mean absolute change of a player's cubeless P(win)
//! between their consecutive turns (before each roll), counted only where the
//! earlier P lies in [0.20, 0.35] or [0.65, 0.80] — the doubling and take windows,
//! where the jumps matter for cube handling. He measured 0.077 to 0.091 with bots;
//! `x = 1 - 3.125 sigma` converts it to a cube life index ([`super::jump`]).
//!
//! [`VolatilityStats`] holds exact-order running sums that merge like every other
//! statistic of the engine; [`measure`] plays greedy 0-ply self-play games with
//! dice streams `Rng::for_stream(seed, game)`, so results are reproducible and games
//! can be split across threads and merged.
//!
//! [`position_sigma`] is the same estimator applied to one position, in expectation
//! instead of by sampling (what `jump-match:sigma=auto` decides with): the exact
//! mean over the 21 rolls of `|dP|` of the player on roll from now to after their
//! greedy 0-ply play, times `sqrt 2` to stand for a whole turn pair (the player's
//! roll and the opponent's reply, taken as two steps of about the same size and
//! independent: `E|a + b| = sqrt 2 E|a|` for equal centred normal steps).

use crate::dice::Dice;
use crate::eval::{after_move, terminal_probs, Evaluator};
use crate::movegen::MoveGenerator;
use crate::position::Position;
use crate::rng::Rng;

/// The sigma of `jump-match:sigma=auto`'s chequer play, where no position's sigma is
/// at hand: 0.1024, the gammonless equivalent of GNU Backgammon's x = 0.68
/// (`sigma = (1 - x) / 3.125`).
pub const AUTO_CHEQUER_SIGMA: f64 = 0.1024;

/// Smallest sigma [`position_sigma`] returns: a position no roll changes (a certain
/// win) would give 0, where the jump model's corrections vanish and its
/// strategies refuse to go (`sigma` must be above 0).
pub const MIN_POSITION_SIGMA: f64 = 0.005;

/// The volatility of `pos` for the player on roll (module docs): `sqrt 2` times the
/// mean `|P_r - P|` over the 21 rolls `r` (1/36 doubles, 2/36 the others), `P_r` the
/// P(win) after the best 0-ply play by cubeless equity (the first of equal ones),
/// clamped to [`MIN_POSITION_SIGMA`]..=[`super::jump::MAX_SIGMA`]. Costs the
/// evaluations of every play of every roll, about 20 times a turn's.
pub fn position_sigma<E: Evaluator + ?Sized>(
    eval: &E,
    pos: &Position,
    gen: &mut MoveGenerator,
) -> f64 {
    let now = f64::from(eval.evaluate(pos).sanitized().win_prob());
    let mut sum = 0.0;
    for &(dice, weight) in &Dice::ALL_21 {
        let mut best: Option<(f32, f64)> = None;
        for m in gen.generate(pos, dice) {
            let probs = after_move(eval, m);
            let eq = probs.equity();
            if best.is_none_or(|(b, _)| eq > b) {
                best = Some((eq, f64::from(probs.sanitized().win_prob())));
            }
        }
        let after = match best {
            Some((_, p)) => p,
            None => f64::from(
                eval.evaluate(&pos.switch_sides())
                    .flip()
                    .sanitized()
                    .win_prob(),
            ),
        };
        sum += f64::from(weight) * (after - now).abs();
    }
    (std::f64::consts::SQRT_2 * sum / 36.0).clamp(MIN_POSITION_SIGMA, super::jump::MAX_SIGMA)
}

/// True when a P(win) is inside Higgins's measurement windows.
pub fn in_window(p: f64) -> bool {
    (0.20..=0.35).contains(&p) || (0.65..=0.80).contains(&p)
}

/// Running sums of `|dP|` over counted turn pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VolatilityStats {
    /// Turn pairs counted (earlier P in a window).
    pub count: u64,
    /// Sum of `|dP|`.
    pub sum_abs: f64,
    /// Sum of `dP^2`.
    pub sum_sq: f64,
    /// Games played.
    pub games: u64,
}

impl VolatilityStats {
    /// Records a player's P(win) moving from `before` to `after` between two of their
    /// turns; ignored unless `before` is in a window.
    pub fn add(&mut self, before: f64, after: f64) {
        if in_window(before) {
            let d = (after - before).abs();
            self.count += 1;
            self.sum_abs += d;
            self.sum_sq += d * d;
        }
    }

    /// Adds `other`'s sums.
    pub fn merge(&mut self, other: &VolatilityStats) {
        self.count += other.count;
        self.sum_abs += other.sum_abs;
        self.sum_sq += other.sum_sq;
        self.games += other.games;
    }

    /// The estimate of `sigma = E|dP|`; `None` before any counted pair.
    pub fn sigma(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_abs / self.count as f64)
    }

    /// Standard error of [`VolatilityStats::sigma`] treating pairs as independent
    /// (consecutive pairs of one game are mildly correlated: read it as a lower
    /// bound).
    pub fn se(&self) -> Option<f64> {
        if self.count < 2 {
            return None;
        }
        let n = self.count as f64;
        let mean = self.sum_abs / n;
        let var = ((self.sum_sq - n * mean * mean) / (n - 1.0)).max(0.0);
        Some((var / n).sqrt())
    }
}

/// Plays games `first..first + games` of greedy 0-ply self-play with `eval` and
/// measures the volatility of each player's P(win) between their turns. A finished
/// game counts its final transition too (P goes to 1 for the winner, 0 for the
/// loser).
pub fn measure<E: Evaluator + ?Sized>(
    eval: &E,
    seed: u64,
    first: u64,
    games: u64,
) -> VolatilityStats {
    let mut stats = VolatilityStats::default();
    let mut gen = MoveGenerator::new();
    for g in first..first + games {
        let mut rng = Rng::for_stream(seed, g);
        play_one(eval, &mut rng, &mut gen, &mut stats);
        stats.games += 1;
    }
    stats
}

fn play_one<E: Evaluator + ?Sized>(
    eval: &E,
    rng: &mut Rng,
    gen: &mut MoveGenerator,
    stats: &mut VolatilityStats,
) {
    let mut pos = Position::STARTING;
    // P(win) of side 0 (who opens) and side 1 at their previous turn.
    let mut last: [Option<f64>; 2] = [None, None];
    let mut side = 0usize;
    let mut dice = loop {
        let d = rng.roll();
        if !d.is_double() {
            break d;
        }
    };
    loop {
        let p = f64::from(eval.evaluate(&pos).sanitized().win_prob());
        if let Some(prev) = last[side] {
            stats.add(prev, p);
        }
        last[side] = Some(p);
        let moves = gen.generate(&pos, dice);
        if moves.is_empty() {
            pos = pos.switch_sides();
        } else {
            let mut best = 0;
            let mut best_eq = f32::NEG_INFINITY;
            for (i, m) in moves.iter().enumerate() {
                let eq = after_move(eval, m).equity();
                if eq > best_eq {
                    best_eq = eq;
                    best = i;
                }
            }
            pos = moves[best].next_position();
            if terminal_probs(&pos).is_some() {
                // `side` has won.
                for (s, prev) in last.iter().enumerate() {
                    if let Some(prev) = *prev {
                        stats.add(prev, if s == side { 1.0 } else { 0.0 });
                    }
                }
                return;
            }
        }
        side = 1 - side;
        dice = rng.roll();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Probs;

    /// A race-style evaluator from the pip counts alone: enough to drive games.
    struct Pips;

    impl Evaluator for Pips {
        fn evaluate(&self, pos: &Position) -> Probs {
            let (me, opp) = pos.pip_counts();
            let d = (f64::from(opp) - f64::from(me) + 8.0) / 25.0;
            let p = 1.0 / (1.0 + (-d).exp());
            Probs([p as f32, 0.0, 0.0, 0.0, 0.0])
        }

        fn name(&self) -> String {
            "pips".into()
        }
    }

    #[test]
    fn a_position_s_sigma() {
        // The opening position (pip counts 167 each), the player on roll's P by the
        // pip evaluator: 1 / (1 + e^(-8/25)) = 0.5793. The estimate is
        // deterministic, positive and within the clamp.
        let mut gen = MoveGenerator::new();
        let s = position_sigma(&Pips, &Position::STARTING, &mut gen);
        assert_eq!(s, position_sigma(&Pips, &Position::STARTING, &mut gen));
        assert!((MIN_POSITION_SIGMA..=0.32).contains(&s), "{s}");
        // By hand: every play of a roll of pips n leaves the mover n pips better
        // off, d = (n + 8) / 25 -> P = logistic(d)... the opponent is then on roll
        // with pip lead -n: the mover's P = 1 - logistic((8 - n) / 25).
        let logistic = |d: f64| 1.0 / (1.0 + (-d).exp());
        let now = logistic(8.0 / 25.0);
        let mut want = 0.0;
        for &(dice, w) in &Dice::ALL_21 {
            let (d1, d2) = dice.values();
            let n = f64::from(d1 + d2) * if dice.is_double() { 2.0 } else { 1.0 };
            let after = 1.0 - logistic((8.0 - n) / 25.0);
            want += f64::from(w) * (after - now).abs();
        }
        let want = std::f64::consts::SQRT_2 * want / 36.0;
        // (The evaluator's probabilities are f32.)
        assert!((s - want).abs() < 1e-5, "{s} vs {want}");
    }

    #[test]
    fn windows_and_sums() {
        let mut s = VolatilityStats::default();
        s.add(0.5, 0.9); // outside the windows
        s.add(0.3, 0.4);
        s.add(0.7, 0.6);
        s.add(0.8, 0.9);
        assert_eq!(s.count, 3);
        assert!((s.sigma().unwrap() - 0.1).abs() < 1e-12);
        assert!(s.se().unwrap() < 1e-9);
        let mut t = VolatilityStats::default();
        t.merge(&s);
        t.merge(&s);
        assert_eq!(t.count, 6);
        assert_eq!(VolatilityStats::default().sigma(), None);
    }

    #[test]
    fn self_play_measures_a_plausible_volatility_reproducibly() {
        // The pip-count player hits whenever it can, so its games run to thousands
        // of turns (about 0.4 s each in a test build): 16 games played in all keep
        // this test near 6 s (60 took 21 s). Measuring them in two parts and merging must give the whole: the
        // games are played the same way in either call (the sums agree up to the
        // order of the additions).
        let a = measure(&Pips, 3, 0, 8);
        let mut split = measure(&Pips, 3, 0, 3);
        split.merge(&measure(&Pips, 3, 3, 5));
        assert_eq!(split.count, a.count);
        assert_eq!(split.games, a.games);
        assert!((split.sum_abs - a.sum_abs).abs() < 1e-9);
        let sigma = a.sigma().unwrap();
        assert!(a.count > 50, "{a:?}");
        assert!((0.01..0.3).contains(&sigma), "{sigma}");
    }
}
