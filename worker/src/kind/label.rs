//! A label batch: its positions labelled one after the other with the training
//! evaluator (or the evaluator of the nets the job brings), through the engine's
//! `LabelPlan::run`, as `bgfarm-lab train label` labels in-process.

use super::{Ctx, LeaseKind};
use bgfarm_engine::label::LabelPlan;
use bgfarm_proto::label::{labels_to_wire, lease_positions};
use bgfarm_proto::v1;
use std::ops::Range;

impl LeaseKind for v1::LabelSpec {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// A label lease holds its own positions only: [`lease_positions`] checks
    /// that they are exactly its range.
    fn units(&self) -> u64 {
        u64::MAX
    }

    fn nets_sha256(&self) -> Option<&[u8]> {
        (!self.nets_sha256.is_empty()).then_some(self.nets_sha256.as_slice())
    }

    fn run(
        &self,
        ctx: &Ctx<'_>,
        range: Range<u64>,
        _lease: &v1::Lease,
        out: &mut v1::BatchResult,
    ) -> Result<(), String> {
        let (method, positions) = lease_positions(self, &range).map_err(|e| e.0)?;
        let n = positions.len() as u64;
        let plan = LabelPlan {
            positions,
            method,
            batch: n,
        };
        let eval = match (self.nets_sha256.is_empty(), ctx.own_nets) {
            (true, _) => &ctx.engines.label,
            (false, Some(e)) => e,
            (false, None) => return Err("the label job's nets are not loaded".into()),
        };
        out.labels = Some(labels_to_wire(&plan.run(
            eval,
            0..n,
            ctx.engines.label_cache(),
        )));
        Ok(())
    }
}
