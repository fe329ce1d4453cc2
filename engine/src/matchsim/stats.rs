//! Totals of a match simulation, from player A's side, over duplicate pairs.
//!
//! Counts are exact integers; the luck-adjusted sums are floats, so callers fold
//! pairs in index order (as [`super::simulate`] does) to keep results bit-identical
//! whatever the thread count.

use super::MatchOutcome;

/// Running totals. "Points" are A's points per match (+1 / -1 in a match, the game's
/// points in money play).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimStats {
    pub matches: u64,
    pub pairs: u64,
    pub points: i64,
    /// Sum over pairs of the squared pair total.
    pub pair_points_sq: u64,
    pub wins: u64,
    pub games: u64,
    /// Sum over pairs of the squared games of the pair (both matches).
    pub pair_games_sq: u64,
    /// Sum of the final cube of every game.
    pub cube_sum: u64,
    /// Games borne off as gammons (backgammons included), either side.
    pub gammons: u64,
    pub backgammons: u64,
    /// Games ended by a passed double.
    pub drops: u64,
    /// Doubles taken.
    pub doubles: u64,
    /// Turns played.
    pub turns: u64,
    /// Luck-adjusted points: sum, and sum over pairs of the squared pair total.
    pub adjusted: f64,
    pub pair_adjusted_sq: f64,
}

impl SimStats {
    /// Totals of one duplicate pair (the same dice, seats swapped).
    pub fn from_pair(first: &MatchOutcome, second: &MatchOutcome) -> SimStats {
        let mut s = SimStats {
            pairs: 1,
            ..SimStats::default()
        };
        for m in [first, second] {
            s.matches += 1;
            s.points += i64::from(m.points);
            s.wins += u64::from(m.points > 0);
            s.games += u64::from(m.games);
            s.cube_sum += m.cube_sum;
            s.gammons += u64::from(m.gammons);
            s.backgammons += u64::from(m.backgammons);
            s.drops += u64::from(m.drops);
            s.doubles += u64::from(m.doubles);
            s.turns += u64::from(m.turns);
            s.adjusted += m.adjusted;
        }
        let pair_games = u64::from(first.games) + u64::from(second.games);
        s.pair_games_sq = pair_games * pair_games;
        let total = i64::from(first.points) + i64::from(second.points);
        s.pair_points_sq = total.unsigned_abs().pow(2);
        let adj = first.adjusted + second.adjusted;
        s.pair_adjusted_sq = adj * adj;
        s
    }

    /// Adds `other`'s totals.
    pub fn merge(&mut self, other: &SimStats) {
        self.matches += other.matches;
        self.pairs += other.pairs;
        self.points += other.points;
        self.pair_points_sq += other.pair_points_sq;
        self.wins += other.wins;
        self.games += other.games;
        self.pair_games_sq += other.pair_games_sq;
        self.cube_sum += other.cube_sum;
        self.gammons += other.gammons;
        self.backgammons += other.backgammons;
        self.drops += other.drops;
        self.doubles += other.doubles;
        self.turns += other.turns;
        self.adjusted += other.adjusted;
        self.pair_adjusted_sq += other.pair_adjusted_sq;
    }

    /// A's mean points per match (per game in money play).
    pub fn ppm(&self) -> f64 {
        self.points as f64 / self.matches as f64
    }

    /// Standard error of [`SimStats::ppm`] over independent pairs: with pair totals
    /// `t` over `P` pairs, `SE = sqrt(var(t) / P) / 2`. `None` below two pairs.
    pub fn se(&self) -> Option<f64> {
        pair_se(self.pairs, self.points as f64, self.pair_points_sq as f64)
    }

    /// Luck-adjusted mean (equal to [`SimStats::ppm`] in expectation).
    pub fn adjusted_ppm(&self) -> f64 {
        self.adjusted / self.matches as f64
    }

    /// Standard error of [`SimStats::adjusted_ppm`].
    pub fn adjusted_se(&self) -> Option<f64> {
        pair_se(self.pairs, self.adjusted, self.pair_adjusted_sq)
    }

    /// Fraction of matches (games in money play) A won.
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.matches as f64
    }

    /// Games per match.
    pub fn avg_games(&self) -> f64 {
        self.games as f64 / self.matches as f64
    }

    /// Standard error of [`SimStats::avg_games`] over pairs.
    pub fn avg_games_se(&self) -> Option<f64> {
        pair_se(self.pairs, self.games as f64, self.pair_games_sq as f64)
    }

    /// Mean final cube per game.
    pub fn avg_cube(&self) -> f64 {
        self.cube_sum as f64 / self.games as f64
    }

    /// Fraction of games that ended in a gammon or backgammon.
    pub fn gammon_rate(&self) -> f64 {
        self.gammons as f64 / self.games as f64
    }
}

fn pair_se(pairs: u64, sum: f64, sum_pair_sq: f64) -> Option<f64> {
    if pairs < 2 {
        return None;
    }
    let p = pairs as f64;
    let var = ((sum_pair_sq - sum * sum / p) / (p - 1.0)).max(0.0);
    Some((var / p).sqrt() / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(points: i32) -> MatchOutcome {
        MatchOutcome {
            points,
            games: 3,
            cube_sum: 5,
            gammons: 1,
            backgammons: 0,
            drops: 1,
            doubles: 2,
            turns: 100,
            adjusted: f64::from(points) / 2.0,
        }
    }

    #[test]
    fn statistics_by_hand() {
        let mut s = SimStats::from_pair(&outcome(1), &outcome(-1));
        s.merge(&SimStats::from_pair(&outcome(1), &outcome(1)));
        s.merge(&SimStats::from_pair(&outcome(-1), &outcome(-1)));
        assert_eq!((s.matches, s.pairs, s.points, s.wins), (6, 3, 0, 3));
        // Pair totals 0, 2, -2: variance 4, SE = sqrt(4 / 3) / 2.
        assert!((s.se().unwrap() - (4.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert!((s.adjusted_se().unwrap() - (1.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(s.avg_games(), 3.0);
        assert_eq!(s.avg_games_se(), Some(0.0));
        assert!((s.avg_cube() - 5.0 / 3.0).abs() < 1e-12);
        assert!((s.gammon_rate() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(SimStats::from_pair(&outcome(1), &outcome(1)).se(), None);
    }
}
