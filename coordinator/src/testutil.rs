//! Fixtures of the unit tests.

use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};
use bgfarm_engine::met::MatchEquityTable;

/// A 5-point simulation of `pairs` pairs in batches of `batch`: match-aware
/// Janowski against money Janowski, without luck.
pub fn sim_plan(pairs: u64, batch: u64) -> SimPlan {
    SimPlan {
        a: CubeStrategy::parse("janowski-match").expect("a"),
        b: CubeStrategy::parse("janowski-money").expect("b"),
        length: 5,
        met: MatchEquityTable::kazaross_xg2(),
        own_mets: [None, None],
        jacoby: false,
        luck: false,
        seed: 1,
        chequer: Default::default(),
        pairs,
        batch,
    }
}
