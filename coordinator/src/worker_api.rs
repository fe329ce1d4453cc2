//! The worker gRPC service: register, exchange, heartbeat, a label job's nets.

use crate::core::Core;
use bgfarm_proto::v1;
use bgfarm_proto::v1::worker_service_server::WorkerService;
use std::sync::Arc;
use tonic::{Request, Response, Status};

/// [`WorkerService`] over a [`Core`].
pub struct WorkerApi(pub Arc<Core>);

#[tonic::async_trait]
impl WorkerService for WorkerApi {
    async fn register(
        &self,
        req: Request<v1::RegisterRequest>,
    ) -> Result<Response<v1::RegisterResponse>, Status> {
        Ok(Response::new(self.0.register(req.into_inner())?))
    }

    async fn exchange(
        &self,
        req: Request<v1::ExchangeRequest>,
    ) -> Result<Response<v1::ExchangeResponse>, Status> {
        Ok(Response::new(self.0.exchange(req.into_inner()).await?))
    }

    async fn heartbeat(
        &self,
        req: Request<v1::HeartbeatRequest>,
    ) -> Result<Response<v1::HeartbeatResponse>, Status> {
        Ok(Response::new(self.0.heartbeat(req.into_inner())?))
    }

    async fn get_job_nets(
        &self,
        req: Request<v1::GetJobNetsRequest>,
    ) -> Result<Response<v1::GetJobNetsResponse>, Status> {
        Ok(Response::new(self.0.job_nets(req.into_inner())?))
    }
}
