//! A study batch: the pairs of the one cell it covers, played and folded chunk by
//! chunk as a match-simulation batch of that cell.

use super::{Ctx, LeaseKind};
use bgfarm_proto::matchsim::totals_to_wire;
use bgfarm_proto::study::{study_cell_from_wire, study_units};
use bgfarm_proto::v1;
use std::ops::Range;

impl LeaseKind for v1::StudySpec {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn units(&self) -> u64 {
        study_units(self)
    }

    fn run(
        &self,
        ctx: &Ctx<'_>,
        units: Range<u64>,
        _lease: &v1::Lease,
        out: &mut v1::BatchResult,
    ) -> Result<(), String> {
        let (cell, pairs) = study_cell_from_wire(self, &units).map_err(|e| e.0)?;
        out.match_sim = Some(v1::MatchSimStats {
            chunks: cell
                .play_chunks(&ctx.engines.play, pairs)
                .iter()
                .map(totals_to_wire)
                .collect(),
        });
        Ok(())
    }
}
