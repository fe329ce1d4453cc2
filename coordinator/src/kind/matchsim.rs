//! Match simulations: units are duplicate pairs; a batch's result is the list of
//! its 16-pair chunk totals, whose float sums are folded chunk by chunk in order,
//! the association the embedded run uses (`bgfarm_engine::matchsim::chunk`), so
//! the folded totals are the embedded run's bit for bit. The plan's limits are
//! [`SimPlan::validate`]'s. A result's totals must be those of exactly the batch's
//! pairs, chunk by chunk, and internally consistent (a forged or corrupted result
//! is rejected, not folded). Studies check and fold their cells' chunks with the
//! same functions.

use super::{fingerprint, Cut, JobKind, SpecError};
use crate::html::{escape, facts};
use crate::outcome::Outcome;
use bgfarm_engine::matchsim::chunk::chunks;
use bgfarm_engine::matchsim::game::MONEY_CUBE_CAP;
use bgfarm_engine::matchsim::{SimPlan, SimStats};
use bgfarm_proto::matchsim::{sim_plan_from_wire, totals_from_wire, totals_to_wire};
use bgfarm_proto::v1;
use bgfarm_report::sim_summary;
use prost::Message;
use std::ops::Range;

pub(super) const NAME: &str = "match-sim";
pub(super) const UNIT: &str = "pairs";

/// A match-simulation job.
#[derive(Debug)]
pub struct MatchSim {
    plan: SimPlan,
    fingerprint: String,
}

impl MatchSim {
    pub(super) fn decode(m: &v1::MatchSimSpec) -> Result<MatchSim, SpecError> {
        Ok(MatchSim {
            fingerprint: fingerprint(&m.fingerprint, NAME)?,
            plan: sim_plan_from_wire(m)?,
        })
    }
}

impl JobKind for MatchSim {
    fn name(&self) -> &'static str {
        NAME
    }

    fn unit(&self) -> &'static str {
        UNIT
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        self.plan.pairs
    }

    fn cut(&self) -> Cut<'_> {
        Cut::Even {
            units: self.plan.pairs,
            batch: self.plan.batch,
        }
    }

    /// More pairs or another batch size leave a batch's chunks unchanged (the
    /// batch cut is the same for the same size).
    fn canonical(&self, spec: &mut v1::JobSpec) {
        if let Some(v1::job_spec::Kind::MatchSim(m)) = &mut spec.kind {
            m.pairs = 0;
            m.batch_size = 0;
        }
    }

    fn check_result(
        &self,
        units: &Range<u64>,
        _active: &[bool],
        r: &v1::BatchResult,
    ) -> Result<(Vec<u8>, Outcome), String> {
        let wire = r
            .match_sim
            .as_ref()
            .ok_or("match-simulation result without totals")?;
        let chunks = check_sim_result(&self.plan, units, wire)?;
        Ok((wire.encode_to_vec(), Outcome::MatchSim(chunks)))
    }

    fn decode_result(&self, bytes: &[u8]) -> Result<Outcome, String> {
        decode_chunks(bytes)
    }

    fn fold(
        &self,
        outcomes: &mut dyn Iterator<Item = (Range<u64>, Outcome)>,
        out: &mut v1::GetJobResponse,
    ) {
        out.match_sim_aggregate = Some(fold_chunks(outcomes.map(|(_, o)| o)));
    }

    fn render(&self, folded: &v1::GetJobResponse) -> Result<String, String> {
        let agg = folded
            .match_sim_aggregate
            .as_ref()
            .ok_or("no aggregate of the job's kind")?;
        let p = &self.plan;
        Ok(render(
            &p.a.to_string(),
            &p.b.to_string(),
            p.length,
            p.luck,
            p.seed,
            &totals_from_wire(agg),
        ))
    }
}

/// A stored match-simulation or study batch: its chunk totals.
pub(super) fn decode_chunks(bytes: &[u8]) -> Result<Outcome, String> {
    let w = v1::MatchSimStats::decode(bytes).map_err(|e| e.to_string())?;
    Ok(Outcome::MatchSim(
        w.chunks.iter().map(totals_from_wire).collect(),
    ))
}

/// The chunks of `outcomes` folded in order, on the wire.
pub(super) fn fold_chunks(outcomes: impl IntoIterator<Item = Outcome>) -> v1::SimTotals {
    // As `fold_totals` folds: from zero, chunk after chunk in order.
    let mut total = SimStats::default();
    for o in outcomes {
        for c in o.sim_chunks().unwrap_or(&[]) {
            total.merge(c);
        }
    }
    totals_to_wire(&total)
}

/// A match simulation's summary, as `bgfarm match-sim` prints it.
fn render(a: &str, b: &str, length: u32, luck: bool, seed: u64, stats: &SimStats) -> String {
    let lines = sim_summary::lines(stats, length, luck);
    let what = if length == 0 {
        "money games".to_string()
    } else {
        format!("{length}-point matches")
    };
    let rows: Vec<(&str, String)> = lines.iter().map(|(k, v)| (k.as_str(), escape(v))).collect();
    format!(
        "<h2>Match simulation</h2>\n<p>{} (A) vs {} (B): {} {what} ({} duplicate pairs), seed {seed}</p>\n{}",
        escape(a),
        escape(b),
        stats.matches,
        stats.pairs,
        facts(&rows)
    )
}

/// Checks the chunk totals handed in for the batch over pairs `pairs` of plan `m`;
/// `Ok` carries them decoded.
pub(super) fn check_sim_result(
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
    use crate::kind::decode;
    use crate::testutil::sim_plan as spec;
    use bgfarm_proto::matchsim::sim_plan_to_wire;

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

    #[test]
    fn specs_are_checked() {
        let err = |s: &v1::JobSpec| decode(s).err().map(|e| e.to_string()).unwrap_or_default();
        let sim = |pairs, batch| sim_plan_to_wire(&spec(pairs, batch), "fp");
        let w = decode(&sim(40, 32)).expect("valid");
        assert_eq!((w.name(), w.unit(), w.units()), ("match-sim", "pairs", 40));
        assert_eq!(w.batch_ranges(), vec![0..32, 32..40]);
        assert!(err(&sim(0, 32)).contains("pairs"));
        assert!(err(&sim(40, 20)).contains("multiple of 16"));
        let mut s = sim(40, 32);
        if let Some(v1::job_spec::Kind::MatchSim(m)) = &mut s.kind {
            m.length = 65;
        }
        assert!(err(&s).contains("64"));
        assert!(err(&sim_plan_to_wire(&spec(40, 32), "")).contains("fingerprint"));
    }

    #[test]
    fn a_match_simulation_shows_its_summary() {
        let stats = SimStats {
            matches: 4,
            pairs: 2,
            points: 2,
            wins: 3,
            games: 8,
            ..SimStats::default()
        };
        let html = render(
            "janowski-match:x=0.7",
            "janowski-money:x=0.7",
            5,
            false,
            9,
            &stats,
        );
        assert!(html.contains("5-point matches (2 duplicate pairs)"));
        assert!(html.contains("A ppm:"));
        assert!(html.contains("+0.5000"));
        assert!(html.contains("75.00%"));
        assert!(html.contains("games/match:"));
    }
}
