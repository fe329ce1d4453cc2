//! Playing games between two [`Player`]s: single cubeless money games, duplicate-dice
//! pairs, and the statistics a duel reports (points per game and its standard error).
//!
//! Duplicate dice: game `g` rolls the dice stream `Rng::for_stream(seed, g / 2)`, with
//! A opening for even `g` and B for odd `g`. Each stream is thus played twice with the
//! seats swapped, so a lucky roll sequence helps both players once and most of the
//! dice luck cancels within a pair. Everything here is single-threaded and a pure
//! function of (players, seed, game index); a caller may play pairs on many threads
//! and merge their [`DuelStats`] (exact integer sums) in any grouping.

pub mod game;

pub use game::{play_game, play_indexed, GameResult};

use crate::dice::Dice;
use crate::eval::Player;
use crate::movegen::Move;
use crate::position::Position;
use crate::rng::splitmix64;

/// A player that picks a uniformly random legal move. The choice is a hash of
/// (position, roll, salt), so the player stays a pure function like every other
/// [`Player`] and games stay reproducible from the dice seed alone. For tests and as
/// the weakest possible baseline.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomPlayer {
    /// Varies the choices between otherwise identical random players.
    pub salt: u64,
}

impl Player for RandomPlayer {
    fn choose(&self, pos: &Position, dice: Dice, moves: &[Move]) -> usize {
        let mut state = self.salt;
        let mut h = 0u64;
        for chunk in pos.pips().chunks(8) {
            let mut w = 0u64;
            for (k, &b) in chunk.iter().enumerate() {
                w |= u64::from(b as u8) << (8 * k);
            }
            state ^= w ^ h;
            h = splitmix64(&mut state);
        }
        let (hi, lo) = dice.high_low();
        state ^= (u64::from(hi) << 8 | u64::from(lo)) ^ h;
        h = splitmix64(&mut state);
        // Multiply-shift maps the top 32 bits onto 0..len; the bias is below 2^-20 for
        // any real move count.
        (((h >> 32) * moves.len() as u64) >> 32) as usize
    }

    fn name(&self) -> String {
        "random".into()
    }
}

/// Running totals of a duel, from A's side, over whole duplicate pairs.
///
/// All fields are exact integer sums, so [`DuelStats::merge`] is associative and
/// commutative: splitting the pairs among any number of threads and merging the
/// partial totals gives bit-identical statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DuelStats {
    /// Games played (twice the pairs).
    pub games: u64,
    /// Duplicate pairs played.
    pub pairs: u64,
    /// Sum of A's points over all games.
    pub points: i64,
    /// Sum of the squares of A's points per game.
    pub points_sq: u64,
    /// Sum over pairs of the square of the pair's total (its two games added).
    pub pair_points_sq: u64,
    /// Games won by A.
    pub wins: u64,
    /// Games A won with a gammon or backgammon.
    pub gammons_won: u64,
    /// Games A won with a backgammon.
    pub backgammons_won: u64,
    /// Games A lost with a gammon or backgammon.
    pub gammons_lost: u64,
    /// Games A lost with a backgammon.
    pub backgammons_lost: u64,
    /// Turns played in all games.
    pub turns: u64,
}

impl DuelStats {
    /// Totals of one duplicate pair: the same dice played with A opening, then B.
    pub fn from_pair(first: &GameResult, second: &GameResult) -> DuelStats {
        let mut s = DuelStats {
            pairs: 1,
            ..DuelStats::default()
        };
        for r in [first, second] {
            s.games += 1;
            s.points += i64::from(r.points);
            s.points_sq += u64::from(r.points.unsigned_abs().pow(2));
            s.turns += u64::from(r.turns);
            let (g, bg) = (u64::from(r.gammon), u64::from(r.backgammon));
            if r.a_won() {
                s.wins += 1;
                s.gammons_won += g;
                s.backgammons_won += bg;
            } else {
                s.gammons_lost += g;
                s.backgammons_lost += bg;
            }
        }
        s.pair_points_sq = u64::from((first.points + second.points).unsigned_abs().pow(2));
        s
    }

    /// Adds `other`'s totals to these.
    pub fn merge(&mut self, other: &DuelStats) {
        self.games += other.games;
        self.pairs += other.pairs;
        self.points += other.points;
        self.points_sq += other.points_sq;
        self.pair_points_sq += other.pair_points_sq;
        self.wins += other.wins;
        self.gammons_won += other.gammons_won;
        self.backgammons_won += other.backgammons_won;
        self.gammons_lost += other.gammons_lost;
        self.backgammons_lost += other.backgammons_lost;
        self.turns += other.turns;
    }

    /// `self` merged with `other`, for reductions.
    #[must_use]
    pub fn merged(mut self, other: DuelStats) -> DuelStats {
        self.merge(&other);
        self
    }

    /// A's mean points per game (NaN before any game).
    pub fn ppg(&self) -> f64 {
        self.points as f64 / self.games as f64
    }

    /// Standard error of [`DuelStats::ppg`], `None` with fewer than two pairs.
    ///
    /// The two games of a duplicate pair share their dice and are strongly
    /// (negatively) correlated, so they are not independent samples: treating games as
    /// independent would misstate the error. The pairs are independent, so the SE is
    /// computed over pair totals `t` (both games added): the sample variance `s²` of
    /// `t` over `P` pairs gives `SE(mean t) = sqrt(s² / P)`, and since
    /// `ppg = mean t / 2`, `SE(ppg) = sqrt(s² / P) / 2`.
    pub fn se(&self) -> Option<f64> {
        if self.pairs < 2 {
            return None;
        }
        let p = self.pairs as f64;
        let sum = self.points as f64;
        let var = ((self.pair_points_sq as f64 - sum * sum / p) / (p - 1.0)).max(0.0);
        Some((var / p).sqrt() / 2.0)
    }

    /// Standard error of the ppg as if every game were independent (for comparison
    /// with [`DuelStats::se`]; not the right error bar for duplicate dice).
    pub fn se_unpaired(&self) -> Option<f64> {
        if self.games < 2 {
            return None;
        }
        let n = self.games as f64;
        let sum = self.points as f64;
        let var = ((self.points_sq as f64 - sum * sum / n) / (n - 1.0)).max(0.0);
        Some((var / n).sqrt())
    }

    fn rate(&self, count: u64) -> f64 {
        count as f64 / self.games as f64
    }

    /// Fraction of games A won.
    pub fn win_rate(&self) -> f64 {
        self.rate(self.wins)
    }

    /// Fraction of games A won with a gammon (backgammons included).
    pub fn gammon_won_rate(&self) -> f64 {
        self.rate(self.gammons_won)
    }

    /// Fraction of games A lost with a gammon (backgammons included).
    pub fn gammon_lost_rate(&self) -> f64 {
        self.rate(self.gammons_lost)
    }

    /// Fraction of games A won with a backgammon.
    pub fn backgammon_won_rate(&self) -> f64 {
        self.rate(self.backgammons_won)
    }

    /// Fraction of games A lost with a backgammon.
    pub fn backgammon_lost_rate(&self) -> f64 {
        self.rate(self.backgammons_lost)
    }
}

/// Plays duplicate pair `pair` (games `2 * pair` and `2 * pair + 1`) of a duel.
pub fn play_pair(a: &dyn Player, b: &dyn Player, seed: u64, pair: u64) -> DuelStats {
    let first = play_indexed(a, b, seed, 2 * pair);
    let second = play_indexed(a, b, seed, 2 * pair + 1);
    DuelStats::from_pair(&first, &second)
}

/// Plays pairs `0..pairs` on this thread, in order.
pub fn play_duel(a: &dyn Player, b: &dyn Player, seed: u64, pairs: u64) -> DuelStats {
    (0..pairs)
        .map(|p| play_pair(a, b, seed, p))
        .fold(DuelStats::default(), DuelStats::merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pubeval::PubEval;
    use crate::movegen::legal_moves;
    use crate::rng::Rng;

    /// A player that checks, at every turn, that both sides' 15 checkers are
    /// accounted for on the board, bar and off, and then plays like a random player.
    struct Checking(RandomPlayer);

    impl Player for Checking {
        fn choose(&self, pos: &Position, dice: Dice, moves: &[Move]) -> usize {
            assert!(pos.mover_checkers() > 0 && pos.opponent_checkers() > 0);
            assert_eq!(pos.mover_checkers() + pos.mover_off(), 15);
            assert_eq!(pos.opponent_checkers() + pos.opponent_off(), 15);
            assert_eq!(Position::from_pips(*pos.pips()), Ok(*pos));
            assert_eq!(legal_moves(pos, dice), moves);
            for m in moves {
                assert_eq!(m.result().mover_checkers() + m.result().mover_off(), 15);
                assert_eq!(m.result().opponent_checkers(), pos.opponent_checkers());
            }
            self.0.choose(pos, dice, moves)
        }

        fn name(&self) -> String {
            "checking".into()
        }
    }

    fn legal_result(r: &GameResult) {
        assert!(matches!(r.points.abs(), 1..=3), "{r:?}");
        assert_eq!(r.gammon, r.points.abs() >= 2, "{r:?}");
        assert_eq!(r.backgammon, r.points.abs() == 3, "{r:?}");
        assert!(r.turns >= 2, "{r:?}");
    }

    #[test]
    fn random_games_end_legally() {
        let a = Checking(RandomPlayer { salt: 1 });
        let b = Checking(RandomPlayer { salt: 2 });
        let mut gammons = 0;
        for g in 0..200 {
            let r = play_indexed(&a, &b, 5, g);
            legal_result(&r);
            gammons += u32::from(r.gammon);
        }
        // Random play gammons often; this also shows the flags are ever set.
        assert!(gammons > 10, "{gammons}");
    }

    #[test]
    fn random_player_is_a_function_of_its_inputs() {
        let dice = Dice::new(4, 3).unwrap();
        let moves = legal_moves(&Position::STARTING, dice);
        let p = RandomPlayer::default();
        let i = p.choose(&Position::STARTING, dice, &moves);
        assert!(i < moves.len());
        assert_eq!(
            i,
            p.choose(&Position::STARTING, Dice::new(3, 4).unwrap(), &moves)
        );
        // Different salts spread over the moves.
        let picks: std::collections::HashSet<usize> = (0..200)
            .map(|salt| RandomPlayer { salt }.choose(&Position::STARTING, dice, &moves))
            .collect();
        assert!(
            picks.len() > moves.len() / 2,
            "{picks:?} of {}",
            moves.len()
        );
    }

    #[test]
    fn games_are_deterministic() {
        let a = RandomPlayer { salt: 3 };
        let b = PubEval;
        for g in 0..20 {
            assert_eq!(play_indexed(&a, &b, 9, g), play_indexed(&a, &b, 9, g));
        }
        assert_eq!(play_duel(&a, &b, 9, 10), play_duel(&a, &b, 9, 10));
        assert_ne!(play_duel(&a, &b, 9, 10), play_duel(&a, &b, 10, 10));
    }

    #[test]
    fn duplicate_pairs_swap_seats_on_the_same_dice() {
        // A player identical to itself on both seats: the second game of a pair is
        // the first with the seats swapped, so its result is exactly the negation.
        let p = PubEval;
        for pair in 0..10 {
            let first = play_indexed(&p, &p, 4, 2 * pair);
            let second = play_indexed(&p, &p, 4, 2 * pair + 1);
            assert_eq!(first.points, -second.points);
            assert_eq!(first.turns, second.turns);
            let s = DuelStats::from_pair(&first, &second);
            assert_eq!((s.points, s.pair_points_sq), (0, 0));
        }
        // And `play_game` with an explicit stream agrees with the indexed form.
        let r = play_game(
            &p,
            &RandomPlayer::default(),
            &mut Rng::for_stream(4, 3),
            false,
        );
        assert_eq!(r, play_indexed(&p, &RandomPlayer::default(), 4, 7));
    }

    #[test]
    fn merge_is_independent_of_grouping() {
        let a = PubEval;
        let b = RandomPlayer::default();
        let per_pair: Vec<DuelStats> = (0..24).map(|p| play_pair(&a, &b, 2, p)).collect();
        let serial = per_pair
            .iter()
            .fold(DuelStats::default(), |acc, s| acc.merged(*s));
        assert_eq!(serial, play_duel(&a, &b, 2, 24));
        for chunk in [1, 2, 5, 7, 24] {
            let grouped = per_pair
                .chunks(chunk)
                .map(|c| c.iter().fold(DuelStats::default(), |acc, s| acc.merged(*s)))
                .rev()
                .fold(DuelStats::default(), DuelStats::merged);
            assert_eq!(grouped, serial, "chunks of {chunk}");
        }
        assert_eq!(serial.games, 48);
        assert_eq!(serial.pairs, 24);
    }

    #[test]
    fn statistics_by_hand() {
        let r = |points: i32| GameResult {
            points,
            gammon: points.abs() >= 2,
            backgammon: points.abs() == 3,
            turns: 40,
        };
        let mut s = DuelStats::from_pair(&r(1), &r(-1));
        s.merge(&DuelStats::from_pair(&r(2), &r(1)));
        s.merge(&DuelStats::from_pair(&r(-3), &r(1)));
        assert_eq!(s.games, 6);
        assert_eq!(s.points, 1);
        assert_eq!(s.wins, 4);
        assert_eq!((s.gammons_won, s.backgammons_won), (1, 0));
        assert_eq!((s.gammons_lost, s.backgammons_lost), (1, 1));
        assert!((s.ppg() - 1.0 / 6.0).abs() < 1e-12);
        // Pair totals 0, 3, -2: mean 1/3, sample variance (0 + 9 + 4 - 3 * 1/9) / 2.
        let var = (13.0 - 1.0 / 3.0) / 2.0;
        let want = (var / 3.0f64).sqrt() / 2.0;
        assert!((s.se().unwrap() - want).abs() < 1e-12);
        assert_eq!(DuelStats::from_pair(&r(1), &r(1)).se(), None);
    }

    #[test]
    fn pubeval_crushes_random() {
        // 400 games. Measured: +2.48 ppg with SE 0.037 and 99.5% wins (seeds 1..=5:
        // +2.48..+2.55), so the +1.5 bound is over 25 SE away from failing.
        let s = play_duel(&PubEval, &RandomPlayer::default(), 1, 200);
        let se = s.se().unwrap();
        assert!(s.ppg() > 1.5, "ppg {} se {se}", s.ppg());
        assert!(se < 0.1, "se {se}");
        assert!(s.win_rate() > 0.9, "win rate {}", s.win_rate());
    }
}
