//! Match simulation: complete matches (or cubeful money games) between two cube
//! strategies that share one chequer player.
//!
//! Determinism (the contract of DESIGN.md): match `i` of a job is a pure function of
//! (spec, evaluator, `i`). Its dice come from `Rng::for_stream(seed, i / 2)`; player A
//! sits in seat 0 for even `i` and seat 1 for odd `i`, so each dice stream is played
//! twice with the seats swapped (duplicate dice) and most of the dice luck cancels
//! within a pair. Who opens each game is a coin from the same stream, by seat, so
//! the swapped match gives A exactly B's dice.
//!
//! Rules: gammons and backgammons, the Crawford game (the first game after a player
//! reaches 1-away, no doubling), post-Crawford games (the leader's cube is dead; a
//! match-aware trailer doubles at once), no double with a cube that is dead for the
//! doubler, points capped by the match's end. Money sessions (`length` 0) play one
//! cubeful game per "match", with the Jacoby rule optional.
//!
//! Luck adjustment (optional, ~20x the cost): each roll's luck in the roller's
//! units (MWC in a match, points in money play; see [`game`]) is subtracted from A's
//! result, `Y = X - sum of A's luck + sum of B's luck`, with MWC luck doubled to
//! points per match (a match is worth +1 / -1 = 2 MWC - 1). `Y` is unbiased.

pub mod chequer;
pub mod chunk;
pub mod fit;
pub mod game;
pub mod plan;
pub mod stats;
pub mod strategy;
pub mod study;

pub use chequer::ChequerPlay;
pub use game::{GameOutcome, Rules, Table};
pub use plan::{SimPlan, SimPlanError};
pub use stats::SimStats;
pub use strategy::CubeStrategy;
pub use study::{StudyCell, StudyPlan, StudyPlanError};

use crate::eval::Evaluator;
use crate::met::{MatchEquityTable, MAX_AWAY};
use crate::rng::Rng;

/// What to simulate.
#[derive(Clone, Copy, Debug)]
pub struct SimSpec<'a> {
    /// Player A's cube strategy (results are from A's side).
    pub a: CubeStrategy,
    pub b: CubeStrategy,
    /// Match length, 1 to [`MAX_AWAY`]; 0 for money play.
    pub length: u32,
    /// The table: the luck is measured with it, and a player without its own
    /// decides with it.
    pub met: &'a MatchEquityTable,
    /// Player A's and player B's own tables (`None`: `met`), so that two players
    /// reading different tables can meet (`match-sim --met-a/--met-b`).
    pub own_mets: [Option<&'a MatchEquityTable>; 2],
    /// Money play: the Jacoby rule.
    pub jacoby: bool,
    /// Measure luck and report luck-adjusted results.
    pub luck: bool,
    pub seed: u64,
    /// How the shared chequer player picks its plays.
    pub chequer: ChequerPlay,
}

impl SimSpec<'_> {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), crate::ParseError> {
        if self.length > MAX_AWAY {
            return Err(crate::ParseError::new(format!(
                "match length {} is above {MAX_AWAY}",
                self.length
            )));
        }
        if self.jacoby && self.length > 0 {
            return Err(crate::ParseError::new(
                "the Jacoby rule applies to money play only (length 0)",
            ));
        }
        Ok(())
    }
}

/// One match from A's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchOutcome {
    /// +1 / -1 for the match; money play: the game's points.
    pub points: i32,
    pub games: u32,
    /// Sum of the final cubes of its games.
    pub cube_sum: u64,
    pub gammons: u32,
    pub backgammons: u32,
    pub drops: u32,
    pub doubles: u32,
    pub turns: u32,
    /// `points` less A's net luck (in the same units); equal to `points` when luck
    /// is not measured.
    pub adjusted: f64,
}

/// Plays match `index` of `spec` with chequer player `eval`.
pub fn play_match(spec: &SimSpec<'_>, eval: &dyn Evaluator, index: u64) -> MatchOutcome {
    let a_seat = (index % 2) as usize;
    let b_seat = 1 - a_seat;
    let mut seats = [&spec.a; 2];
    seats[b_seat] = &spec.b;
    let mut rng = Rng::for_stream(spec.seed, index / 2);
    let mut table = Table::new(eval, spec.luck, spec.chequer);
    let mut out = MatchOutcome {
        points: 0,
        games: 0,
        cube_sum: 0,
        gammons: 0,
        backgammons: 0,
        drops: 0,
        doubles: 0,
        turns: 0,
        adjusted: 0.0,
    };
    if spec.length == 0 {
        let opener = rng.below(2) as usize;
        let g = table.play(
            &Rules::Money {
                jacoby: spec.jacoby,
            },
            seats,
            &mut rng,
            opener,
        );
        record(&mut out, &g);
        let sign = if g.winner == a_seat { 1 } else { -1 };
        out.points = sign * g.points as i32;
        out.adjusted = f64::from(out.points) - (g.luck[a_seat] - g.luck[b_seat]);
        return out;
    }
    let len = spec.length;
    let mut score = [0u32; 2];
    let mut crawford_done = false;
    let mut luck_a = 0.0;
    loop {
        let away = [len - score[0], len - score[1]];
        let crawford = !crawford_done && ((away[0] == 1) != (away[1] == 1));
        crawford_done |= crawford;
        let opener = rng.below(2) as usize;
        let mut mets = [spec.met; 2];
        mets[a_seat] = spec.own_mets[0].unwrap_or(spec.met);
        mets[b_seat] = spec.own_mets[1].unwrap_or(spec.met);
        let rules = Rules::Match {
            away,
            crawford,
            met: spec.met,
            mets,
        };
        let g = table.play(&rules, seats, &mut rng, opener);
        record(&mut out, &g);
        luck_a += g.luck[a_seat] - g.luck[b_seat];
        score[g.winner] = (score[g.winner] + g.points).min(len);
        if score[g.winner] == len {
            out.points = if g.winner == a_seat { 1 } else { -1 };
            out.adjusted = f64::from(out.points) - 2.0 * luck_a;
            return out;
        }
    }
}

/// Adds a game's counts to a match's.
fn record(out: &mut MatchOutcome, g: &GameOutcome) {
    out.games += 1;
    out.cube_sum += u64::from(g.cube);
    out.gammons += u32::from(g.gammon);
    out.backgammons += u32::from(g.backgammon);
    out.drops += u32::from(g.dropped);
    out.doubles += g.doubles;
    out.turns += g.turns;
}

/// Plays duplicate pair `pair` (matches `2 pair` and `2 pair + 1`).
pub fn play_pair(spec: &SimSpec<'_>, eval: &dyn Evaluator, pair: u64) -> SimStats {
    let first = play_match(spec, eval, 2 * pair);
    let second = play_match(spec, eval, 2 * pair + 1);
    SimStats::from_pair(&first, &second)
}

/// [`play_pair`] when A and B use the same strategy: the swapped match is then the
/// mirror image of the first (same games, negated points), so it is not replayed.
/// Half the cost, for studies that only need game counts.
pub fn play_pair_symmetric(spec: &SimSpec<'_>, eval: &dyn Evaluator, pair: u64) -> SimStats {
    debug_assert_eq!(
        spec.a, spec.b,
        "play_pair_symmetric needs identical strategies"
    );
    debug_assert!(
        spec.own_mets[0] == spec.own_mets[1],
        "play_pair_symmetric needs identical tables"
    );
    let first = play_match(spec, eval, 2 * pair);
    let mirror = MatchOutcome {
        points: -first.points,
        adjusted: -first.adjusted,
        ..first
    };
    SimStats::from_pair(&first, &mirror)
}

/// Plays pairs `0..pairs` on this thread, folding them in order.
pub fn simulate(spec: &SimSpec<'_>, eval: &dyn Evaluator, pairs: u64) -> SimStats {
    let mut total = SimStats::default();
    for p in 0..pairs {
        total.merge(&play_pair(spec, eval, p));
    }
    total
}

#[cfg(test)]
mod tests;
