//! The nets of label jobs that bring their own (`LabelSpec.nets`, e.g. the nets of
//! a training round just fitted): fetched from the coordinator once per bundle
//! (`GetJobNets`), checked against the digest the lease carries, loaded as a
//! training evaluator and kept for the job's later leases.

use crate::engine::label_evaluator;
use bgfarm_client::connect::WorkerClient;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_proto::label::nets_digest;
use bgfarm_proto::v1;
use std::collections::HashMap;
use std::sync::Arc;

/// Bundles kept: a bundle is 0.7 MB loaded; a cluster labels with one or two
/// sets of nets at a time.
const KEPT: usize = 4;

/// Label evaluators by the SHA-256 of their bundle.
#[derive(Default)]
pub struct LabelNets(HashMap<Vec<u8>, Arc<NeuralEvaluator<'static>>>);

impl LabelNets {
    /// The evaluator of the bundle with `digest`, if loaded.
    pub fn get(&self, digest: &[u8]) -> Option<Arc<NeuralEvaluator<'static>>> {
        self.0.get(digest).cloned()
    }

    /// Fetches the nets of job `job` from the coordinator unless the bundle with
    /// `digest` is loaded already; `Err` says why it cannot be used.
    pub async fn fetch(
        &mut self,
        client: &mut WorkerClient,
        worker: &str,
        job: u64,
        digest: &[u8],
    ) -> Result<(), String> {
        if self.0.contains_key(digest) {
            return Ok(());
        }
        let nets = client
            .get_job_nets(v1::GetJobNetsRequest {
                worker_id: worker.to_string(),
                job_id: job,
            })
            .await
            .map_err(|s| format!("cannot fetch the nets of job {job}: {}", s.message()))?
            .into_inner()
            .nets;
        if nets_digest(&nets) != digest {
            return Err(format!("the nets of job {job} do not match their digest"));
        }
        let eval = label_evaluator(&nets)?;
        if self.0.len() >= KEPT {
            self.0.clear();
        }
        self.0.insert(digest.to_vec(), Arc::new(eval));
        Ok(())
    }
}
