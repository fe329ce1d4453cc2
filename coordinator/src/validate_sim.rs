//! Validation of the chunk totals a worker hands in for a match simulation. Totals
//! must be those of exactly the batch's pairs, chunk by chunk, and internally
//! consistent (a forged or corrupted result is rejected, not folded into the
//! aggregate).

use bgfarm_engine::matchsim::chunk::chunks;
use bgfarm_engine::matchsim::game::MONEY_CUBE_CAP;
use bgfarm_engine::matchsim::{SimPlan, SimStats};
use bgfarm_proto::matchsim::totals_from_wire;
use bgfarm_proto::v1;
use std::ops::Range;

/// Checks the chunk totals handed in for the batch over pairs `pairs` of plan `m`;
/// `Ok` carries them decoded.
pub fn check_sim_result(
    m: &SimPlan,
    pairs: &Range<u64>,
    wire: &v1::MatchSimStats,
) -> Result<Vec<SimStats>, String> {
    let want: Vec<Range<u64>> = chunks(pairs.clone()).collect();
    if wire.chunks.len() != want.len() {
        return Err(format!(
            "{} chunks in the result, the batch has {}",
            wire.chunks.len(),
            want.len()
        ));
    }
    let mut out = Vec::with_capacity(want.len());
    for (k, (w, range)) in wire.chunks.iter().zip(&want).enumerate() {
        let s = totals_from_wire(w);
        check_chunk(m, range.end - range.start, &s).map_err(|e| format!("chunk {k}: {e}"))?;
        out.push(s);
    }
    Ok(out)
}

/// Most points of one match from A's side: 1 in a match; in money play a backgammon
/// (3) on the largest cube.
fn max_points(length: u32) -> u64 {
    if length == 0 {
        3 * u64::from(MONEY_CUBE_CAP)
    } else {
        1
    }
}

/// Most games of one match: each game gives the winner at least a point, so a match
/// to `L` ends within `2L - 1` games; a money "match" is one game.
fn max_games(length: u32) -> u64 {
    (2 * u64::from(length)).saturating_sub(1).max(1)
}

fn check_chunk(m: &SimPlan, n: u64, s: &SimStats) -> Result<(), String> {
    let matches = 2 * n;
    if s.pairs != n || s.matches != matches {
        return Err(format!(
            "{} pairs and {} matches, expected {n} and {matches}",
            s.pairs, s.matches
        ));
    }
    let (maxp, maxg) = (max_points(m.length), max_games(m.length));
    let points = u128::from(s.points.unsigned_abs());
    let n128 = u128::from(n);
    let ok = s.wins <= matches
        && points <= u128::from(matches * maxp)
        // Cauchy-Schwarz over the pair totals, and their largest size.
        && points * points <= n128 * u128::from(s.pair_points_sq)
        && u128::from(s.pair_points_sq) <= n128 * u128::from(2 * maxp).pow(2)
        && (matches..=matches * maxg).contains(&s.games)
        && u128::from(s.games).pow(2) <= n128 * u128::from(s.pair_games_sq)
        && u128::from(s.pair_games_sq) <= n128 * u128::from(2 * maxg).pow(2)
        && s.cube_sum >= s.games
        && u128::from(s.cube_sum) <= u128::from(s.games) * u128::from(MONEY_CUBE_CAP)
        && s.backgammons <= s.gammons
        && s.gammons <= s.games
        && s.drops <= s.games
        && s.turns >= s.games
        && s.doubles <= s.turns;
    if !ok {
        return Err("counts out of range or inconsistent".into());
    }
    if !(s.adjusted.is_finite() && s.pair_adjusted_sq.is_finite() && s.pair_adjusted_sq >= 0.0) {
        return Err("luck-adjusted sums are not finite".into());
    }
    // Without luck measurement the adjusted result is the result itself: small
    // integers, exact in a double.
    if !m.luck && (s.adjusted != s.points as f64 || s.pair_adjusted_sq != s.pair_points_sq as f64) {
        return Err("luck-adjusted sums differ from the points without --luck".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sim_plan as spec;
    use bgfarm_proto::matchsim::totals_to_wire;

    /// Plausible totals of `n` pairs: A wins every match in 3 games.
    fn chunk(n: u64) -> SimStats {
        SimStats {
            matches: 2 * n,
            pairs: n,
            points: 2 * n as i64,
            pair_points_sq: 4 * n,
            wins: 2 * n,
            games: 6 * n,
            pair_games_sq: 36 * n,
            cube_sum: 6 * n,
            turns: 60 * n,
            adjusted: 2.0 * n as f64,
            pair_adjusted_sq: 4.0 * n as f64,
            ..SimStats::default()
        }
    }

    #[test]
    fn results_are_checked() {
        let m = spec(40, 32);
        let wire = |cs: &[SimStats]| v1::MatchSimStats {
            chunks: cs.iter().map(totals_to_wire).collect(),
        };
        // Batch 1 of 40 pairs in batches of 32: pairs 32..40, one chunk of 8.
        assert!(check_sim_result(&m, &(32..40), &wire(&[chunk(8)])).is_ok());
        assert!(check_sim_result(&m, &(0..32), &wire(&[chunk(16), chunk(16)])).is_ok());
        assert!(check_sim_result(&m, &(0..32), &wire(&[chunk(16)]))
            .is_err_and(|e| e.contains("chunks")));
        assert!(check_sim_result(&m, &(32..40), &wire(&[chunk(9)]))
            .is_err_and(|e| e.contains("expected 8")));
        let mut forged = chunk(8);
        forged.points = 100;
        assert!(check_sim_result(&m, &(32..40), &wire(&[forged])).is_err());
        let mut forged = chunk(8);
        forged.adjusted = f64::NAN;
        assert!(check_sim_result(&m, &(32..40), &wire(&[forged])).is_err());
        let mut forged = chunk(8);
        forged.adjusted = 3.5;
        assert!(check_sim_result(&m, &(32..40), &wire(&[forged]))
            .is_err_and(|e| e.contains("without --luck")));
    }
}
