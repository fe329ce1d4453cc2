//! An analysis batch: its units (decisions, then rolls) evaluated one after the
//! other on this thread, with the built-in nets and the analysing commands'
//! endgame (as `bgfarm analyse` evaluates) and a cache of their own,
//! through the engine's `AnalysisPlan::run`: the same function the command line
//! runs, so a cluster analysis equals the embedded one.

use super::{Ctx, LeaseKind};
use bgfarm_engine::analysis::Sequential;
use bgfarm_proto::analysis::{units_to_wire, Analysis};
use bgfarm_proto::v1;
use std::ops::Range;

impl LeaseKind for v1::AnalysisSpec {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The lease's range is checked against the plan in [`LeaseKind::run`]
    /// (counting units needs the file read).
    fn units(&self) -> u64 {
        u64::MAX
    }

    fn run(
        &self,
        ctx: &Ctx<'_>,
        range: Range<u64>,
        _lease: &v1::Lease,
        out: &mut v1::BatchResult,
    ) -> Result<(), String> {
        let analysis = Analysis::from_wire(self).map_err(|e| e.0)?;
        let plan = analysis.plan().map_err(|e| e.0)?;
        if range.end > plan.units() {
            return Err(format!(
                "range {}..{} outside the analysis's {} units",
                range.start,
                range.end,
                plan.units()
            ));
        }
        let engine = Sequential {
            eval: &ctx.engines.analysis,
            prune: analysis.prune,
            cache: Some(ctx.engines.analysis_cache()),
        };
        let results = range
            .map(|i| plan.run(&engine, i).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        out.analysis = Some(units_to_wire(&results));
        Ok(())
    }
}
