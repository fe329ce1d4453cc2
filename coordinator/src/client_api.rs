//! The client gRPC service: submit, get, watch, cancel, list jobs, list results.

use crate::core::Core;
use bgfarm_proto::v1;
use bgfarm_proto::v1::client_service_server::ClientService;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

/// Longest position ID `ListResults` takes (GNU Backgammon's have 14 characters).
const MAX_POSITION_ID: usize = 64;

/// [`ClientService`] over a [`Core`].
pub struct ClientApi(pub Arc<Core>);

fn is_final(state: i32) -> bool {
    matches!(
        v1::JobState::try_from(state),
        Ok(v1::JobState::Done | v1::JobState::Cancelled | v1::JobState::Failed)
    )
}

#[tonic::async_trait]
impl ClientService for ClientApi {
    async fn submit_job(
        &self,
        req: Request<v1::SubmitJobRequest>,
    ) -> Result<Response<v1::SubmitJobResponse>, Status> {
        let spec = req
            .into_inner()
            .spec
            .ok_or_else(|| Status::invalid_argument("missing job spec"))?;
        let status = self.0.submit(spec).await?;
        Ok(Response::new(v1::SubmitJobResponse {
            status: Some(status),
        }))
    }

    async fn get_job(
        &self,
        req: Request<v1::GetJobRequest>,
    ) -> Result<Response<v1::GetJobResponse>, Status> {
        Ok(Response::new(self.0.get(req.into_inner().job_id).await?))
    }

    type WatchJobStream = ReceiverStream<Result<v1::JobStatus, Status>>;

    async fn watch_job(
        &self,
        req: Request<v1::WatchJobRequest>,
    ) -> Result<Response<Self::WatchJobStream>, Status> {
        let mut rx = self.0.watch(req.into_inner().job_id)?;
        let mut stopping = self.0.stopping();
        // Progress is a latest-value channel: a slow client skips intermediate states
        // but always sees the final one. A stopping coordinator ends the stream with
        // `unavailable`, which clients answer by watching again after the restart.
        let (tx, out) = mpsc::channel(4);
        tokio::spawn(async move {
            loop {
                let s = rx.borrow_and_update().clone();
                let fin = is_final(s.state);
                let stop_now = *stopping.borrow();
                if stop_now {
                    let _ = tx.send(Err(stopping_status())).await;
                    break;
                }
                if tx.send(Ok(s)).await.is_err() || fin {
                    break;
                }
                // The loop's top sends the latest state, or ends a stopping stream.
                let gone = tokio::select! {
                    changed = rx.changed() => changed.is_err(),
                    changed = stopping.changed() => changed.is_err(),
                };
                if gone {
                    break;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(out)))
    }

    async fn cancel_job(
        &self,
        req: Request<v1::CancelJobRequest>,
    ) -> Result<Response<v1::JobStatus>, Status> {
        Ok(Response::new(self.0.cancel(req.into_inner().job_id).await?))
    }

    async fn list_jobs(
        &self,
        _req: Request<v1::ListJobsRequest>,
    ) -> Result<Response<v1::ListJobsResponse>, Status> {
        Ok(Response::new(v1::ListJobsResponse {
            jobs: self.0.list(),
        }))
    }

    async fn list_results(
        &self,
        req: Request<v1::ListResultsRequest>,
    ) -> Result<Response<v1::ListResultsResponse>, Status> {
        let position_id = req.into_inner().position_id;
        if position_id.is_empty() || position_id.len() > MAX_POSITION_ID {
            return Err(Status::invalid_argument(format!(
                "position ID of {} characters: a GNU Backgammon position ID has 14",
                position_id.len()
            )));
        }
        Ok(Response::new(v1::ListResultsResponse {
            results: self.0.results_of(&position_id).await?,
        }))
    }
}

/// What a watch stream ends with when the coordinator stops.
fn stopping_status() -> Status {
    Status::unavailable("coordinator stopping; watch again once it is back")
}
