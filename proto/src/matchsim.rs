//! Wire messages <-> the engine's match-simulation types: [`sim_plan_to_wire`] and
//! [`sim_plan_from_wire`] carry a whole [`SimPlan`], checked on arrival by
//! [`SimPlan::validate`].
//!
//! Strategies travel by canonical name (Rust prints an `f64` with the shortest
//! digits that parse back to it, so `x` and `sigma` round-trip exactly), the match
//! equity table in full (64 x 64 + 64 doubles, 33 KB: a worker needs no table file
//! and plays exactly the client's table), totals with their doubles bit for bit.

use crate::convert::Invalid;
use crate::v1;
use bgfarm_engine::matchsim::{ChequerPlay, CubeStrategy, SimPlan, SimStats};
use bgfarm_engine::met::{MatchEquity, MatchEquityTable, MAX_AWAY};

/// Longest table name accepted from the wire.
const MAX_NAME: usize = 200;

fn invalid(m: impl Into<String>) -> Invalid {
    Invalid(m.into())
}

/// The full table on the wire.
pub fn met_to_wire(met: &MatchEquityTable) -> v1::MatchEquityTable {
    let n = MAX_AWAY;
    v1::MatchEquityTable {
        name: met.name().to_string(),
        pre_crawford: (1..=n)
            .flat_map(|a| (1..=n).map(move |b| met.pre_crawford(a, b)))
            .collect(),
        post_crawford: (1..=n).map(|k| met.post_crawford(k)).collect(),
    }
}

/// The table from the wire: exactly `64 x 64` and `64` probabilities.
pub fn met_from_wire(w: Option<&v1::MatchEquityTable>) -> Result<MatchEquityTable, Invalid> {
    let w = w.ok_or_else(|| invalid("match simulation without its match equity table"))?;
    let n = MAX_AWAY as usize;
    if w.pre_crawford.len() != n * n || w.post_crawford.len() != n {
        return Err(invalid(format!(
            "match equity table with {} pre-Crawford and {} post-Crawford entries, \
             expected {} and {n}",
            w.pre_crawford.len(),
            w.post_crawford.len(),
            n * n
        )));
    }
    if w.name.len() > MAX_NAME {
        return Err(invalid(format!(
            "match equity table name longer than {MAX_NAME} bytes"
        )));
    }
    let rows: Vec<Vec<f64>> = w.pre_crawford.chunks(n).map(<[f64]>::to_vec).collect();
    MatchEquityTable::from_given(&w.name, &rows, &w.post_crawford)
        .map_err(|e| invalid(format!("match equity table: {e}")))
}

/// The wire spec of `plan`, to be computed with engine `fingerprint`.
pub fn sim_plan_to_wire(plan: &SimPlan, fingerprint: &str) -> v1::JobSpec {
    v1::JobSpec {
        kind: Some(v1::job_spec::Kind::MatchSim(v1::MatchSimSpec {
            strategy_a: plan.a.to_string(),
            strategy_b: plan.b.to_string(),
            length: plan.length,
            jacoby: plan.jacoby,
            luck: plan.luck,
            seed: plan.seed,
            pairs: plan.pairs,
            batch_size: plan.batch,
            fingerprint: fingerprint.to_string(),
            met: Some(met_to_wire(&plan.met)),
            chequer: chequer_to_wire(plan.chequer) as i32,
            met_a: plan.own_mets[0].as_ref().map(met_to_wire),
            met_b: plan.own_mets[1].as_ref().map(met_to_wire),
        })),
    }
}

/// The plan of a wire match-simulation spec: strategies parsed, table rebuilt,
/// validated by [`SimPlan::validate`].
pub fn sim_plan_from_wire(w: &v1::MatchSimSpec) -> Result<SimPlan, Invalid> {
    sim_plan_with_met(w, met_from_wire(w.met.as_ref())?)
}

/// [`sim_plan_from_wire`] with the table given (a study's cells share one; their
/// own `met` field is ignored). The players' own tables (`met_a`, `met_b`) are
/// read from `w` when present.
pub fn sim_plan_with_met(w: &v1::MatchSimSpec, met: MatchEquityTable) -> Result<SimPlan, Invalid> {
    let strategy = |name: &str, who: &str| {
        CubeStrategy::parse(name).map_err(|e| invalid(format!("strategy {who}: {e}")))
    };
    let plan = SimPlan {
        a: strategy(&w.strategy_a, "A")?,
        b: strategy(&w.strategy_b, "B")?,
        length: w.length,
        met,
        own_mets: [
            own_met(w.met_a.as_ref(), "A")?,
            own_met(w.met_b.as_ref(), "B")?,
        ],
        jacoby: w.jacoby,
        luck: w.luck,
        seed: w.seed,
        chequer: chequer_from_wire(w.chequer)?,
        pairs: w.pairs,
        batch: w.batch_size,
    };
    plan.validate().map_err(|e| invalid(e.to_string()))?;
    Ok(plan)
}

/// A player's own table from the wire, when there is one.
fn own_met(
    w: Option<&v1::MatchEquityTable>,
    who: &str,
) -> Result<Option<MatchEquityTable>, Invalid> {
    w.map(|t| met_from_wire(Some(t)).map_err(|e| invalid(format!("player {who}'s table: {}", e.0))))
        .transpose()
}

fn chequer_to_wire(c: ChequerPlay) -> v1::ChequerPlay {
    match c {
        ChequerPlay::Cubeless => v1::ChequerPlay::Cubeless,
        ChequerPlay::Match => v1::ChequerPlay::Match,
        ChequerPlay::Own => v1::ChequerPlay::Own,
    }
}

/// The chequer rule of a wire spec; an unknown number is refused rather than
/// played as another rule.
fn chequer_from_wire(n: i32) -> Result<ChequerPlay, Invalid> {
    match v1::ChequerPlay::try_from(n) {
        Ok(v1::ChequerPlay::Cubeless) => Ok(ChequerPlay::Cubeless),
        Ok(v1::ChequerPlay::Match) => Ok(ChequerPlay::Match),
        Ok(v1::ChequerPlay::Own) => Ok(ChequerPlay::Own),
        Err(_) => Err(invalid(format!("unknown chequer play {n}"))),
    }
}

/// The wire form of totals.
pub fn totals_to_wire(s: &SimStats) -> v1::SimTotals {
    v1::SimTotals {
        matches: s.matches,
        pairs: s.pairs,
        points: s.points,
        pair_points_sq: s.pair_points_sq,
        wins: s.wins,
        games: s.games,
        pair_games_sq: s.pair_games_sq,
        cube_sum: s.cube_sum,
        gammons: s.gammons,
        backgammons: s.backgammons,
        drops: s.drops,
        doubles: s.doubles,
        turns: s.turns,
        adjusted: s.adjusted,
        pair_adjusted_sq: s.pair_adjusted_sq,
    }
}

/// Totals from the wire (unchecked: see the coordinator's validation).
pub fn totals_from_wire(w: &v1::SimTotals) -> SimStats {
    SimStats {
        matches: w.matches,
        pairs: w.pairs,
        points: w.points,
        pair_points_sq: w.pair_points_sq,
        wins: w.wins,
        games: w.games,
        pair_games_sq: w.pair_games_sq,
        cube_sum: w.cube_sum,
        gammons: w.gammons,
        backgammons: w.backgammons,
        drops: w.drops,
        doubles: w.doubles,
        turns: w.turns,
        adjusted: w.adjusted,
        pair_adjusted_sq: w.pair_adjusted_sq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_exactly() {
        for met in [
            MatchEquityTable::kazaross_xg2(),
            MatchEquityTable::keith(0.26).expect("keith"),
        ] {
            let plan = SimPlan {
                a: CubeStrategy::parse("janowski-match:x=0.7123456789").expect("a"),
                b: CubeStrategy::parse("jump:x=0.61").expect("b"),
                length: 7,
                met: met.clone(),
                own_mets: [None, None],
                jacoby: false,
                luck: true,
                seed: 99,
                chequer: ChequerPlay::Match,
                pairs: 64,
                batch: 32,
            };
            let wire = sim_plan_to_wire(&plan, "fp");
            let Some(v1::job_spec::Kind::MatchSim(w)) = &wire.kind else {
                panic!("a match-sim spec")
            };
            let back = sim_plan_from_wire(w).expect("valid");
            assert_eq!((back.a, back.b), (plan.a, plan.b));
            assert_eq!((back.pairs, back.batch), (64, 32));
            // Every entry (the count of scores native to the source is not sent).
            assert_eq!(back.met.name(), met.name());
            assert_eq!(
                back.met.pre_crawford_square(64),
                met.pre_crawford_square(64)
            );
            assert_eq!(back.met.post_crawford_row(64), met.post_crawford_row(64));
            assert_eq!((back.length, back.luck, back.seed), (7, true, 99));
            assert_eq!(back.chequer, ChequerPlay::Match);
        }
    }

    #[test]
    fn bad_specs_are_rejected() {
        let met = MatchEquityTable::kazaross_xg2();
        let plan = SimPlan {
            a: CubeStrategy::parse("janowski-match").expect("a"),
            b: CubeStrategy::parse("janowski-money").expect("b"),
            length: 5,
            met,
            own_mets: [None, None],
            jacoby: false,
            luck: false,
            seed: 1,
            chequer: ChequerPlay::Cubeless,
            pairs: 2,
            batch: 16,
        };
        let Some(v1::job_spec::Kind::MatchSim(good)) = sim_plan_to_wire(&plan, "f").kind else {
            panic!("a match-sim spec")
        };
        let mut w = good.clone();
        w.strategy_a = "gnubg".into();
        assert!(sim_plan_from_wire(&w).is_err_and(|e| e.0.contains("strategy A")));
        let mut w = good.clone();
        if let Some(m) = w.met.as_mut() {
            m.post_crawford.pop();
        }
        assert!(sim_plan_from_wire(&w).is_err_and(|e| e.0.contains("post-Crawford")));
        let mut w = good.clone();
        if let Some(m) = w.met.as_mut() {
            m.pre_crawford[5] = 1.5;
        }
        assert!(sim_plan_from_wire(&w).is_err_and(|e| e.0.contains("probability")));
        let mut w = good.clone();
        w.batch_size = 20;
        assert!(sim_plan_from_wire(&w).is_err_and(|e| e.0.contains("multiple of 16")));
        let mut w = good.clone();
        w.jacoby = true;
        assert!(sim_plan_from_wire(&w).is_err_and(|e| e.0.contains("Jacoby")));
        let mut w = good;
        w.chequer = 7;
        assert!(sim_plan_from_wire(&w).is_err_and(|e| e.0.contains("chequer play 7")));
    }

    #[test]
    fn totals_round_trip_bit_for_bit() {
        let s = SimStats {
            matches: 4,
            pairs: 2,
            points: -2,
            pair_points_sq: 4,
            adjusted: -0.123456789012345,
            pair_adjusted_sq: 0.5e-300,
            ..SimStats::default()
        };
        assert_eq!(totals_from_wire(&totals_to_wire(&s)), s);
    }
}
