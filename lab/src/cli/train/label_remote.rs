//! `bgfarm-lab train label --coordinator`: the positions labelled by `label` jobs
//! on a coordinator, computed by its workers with the built-in nets or the nets
//! of a bundle the jobs carry (each worker fetches it once). The next
//! job is submitted before the current one is followed, so the workers go on
//! from one job to the next without waiting for the client.

use crate::cli::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_client::job::{run_or_attach, submit};
use bgfarm_client::{Access, ClientError};
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::label::{LabelMethod, LabelPlan};
use bgfarm_engine::Position;
use bgfarm_proto::label::{label_plan_to_wire, labels_from_wire};
use bgfarm_proto::v1;

/// A client of label jobs on one coordinator.
pub struct RemoteLabeller {
    url: String,
    access: Access,
    /// The bundle every job carries (empty: the built-in nets).
    nets: Vec<u8>,
    method: LabelMethod,
    batch: u64,
    /// The workers' engine fingerprint (that of `--net default`).
    fingerprint: String,
    /// The job submitted ahead: its spec and ID.
    ahead: Option<(v1::JobSpec, u64)>,
}

impl RemoteLabeller {
    pub fn new(
        url: &str,
        access: Access,
        nets: Vec<u8>,
        method: LabelMethod,
        batch: u64,
    ) -> Result<RemoteLabeller, CliError> {
        // The workers' fingerprint is the product evaluator's; their label
        // evaluator differs from it only in races, which it answers as the
        // in-process command does.
        let fp = fingerprint(&crate::cli::nets::load_evaluator("default")?).to_string();
        Ok(RemoteLabeller {
            url: url.to_string(),
            access,
            nets,
            method,
            batch,
            fingerprint: fp,
            ahead: None,
        })
    }

    fn spec(&self, positions: &[Position]) -> Result<v1::JobSpec, CliError> {
        let plan = LabelPlan {
            positions: positions.to_vec(),
            method: self.method,
            batch: self.batch,
        };
        plan.validate().map_err(|e| CliError::msg(e.to_string()))?;
        Ok(label_plan_to_wire(&plan, &self.nets, &self.fingerprint))
    }

    /// The labels of `positions` (one job), with `next` (the following job's
    /// positions) submitted before this job is followed.
    pub fn label(
        &mut self,
        positions: &[Position],
        next: Option<&[Position]>,
    ) -> Result<Vec<[f32; OUTPUTS]>, CliError> {
        let spec = self.spec(positions)?;
        let mut attach = match self.ahead.take() {
            Some((s, id)) if s == spec => Some(id),
            _ => None,
        };
        if attach.is_none() {
            attach = Some(submit(&self.url, &self.access, spec.clone())?);
        }
        if let Some(next) = next {
            let s = self.spec(next)?;
            let id = submit(&self.url, &self.access, s.clone())?;
            self.ahead = Some((s, id));
        }
        let progress = bar(false, positions.len() as u64, "positions")?;
        // Nothing to record on submission: the error type is the client's own.
        let (got, _) = run_or_attach::<ClientError>(
            &self.url,
            &self.access,
            spec,
            attach,
            &mut |_| Ok(()),
            &progress,
            1,
        )?;
        let labels = got
            .labels
            .as_ref()
            .map(labels_from_wire)
            .transpose()
            .map_err(|e| CliError::msg(format!("the coordinator's labels: {e}")))?
            .unwrap_or_default();
        if labels.len() != positions.len() {
            return Err(CliError::msg(format!(
                "the coordinator returned {} labels for {} positions",
                labels.len(),
                positions.len()
            )));
        }
        Ok(labels)
    }
}
