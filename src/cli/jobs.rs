//! `bgfarm jobs list|show ID|watch ID|cancel ID --coordinator URL`: the jobs on a
//! coordinator.

use super::runtime::{pem, print_line, runtime, token};
use super::CliError;
use bgfarm_client::connect::job_client;
pub use bgfarm_client::job::state_name;
use bgfarm_client::ClientError;
use bgfarm_proto::v1;
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
    /// Coordinator URL.
    #[arg(long, global = true, default_value = "http://127.0.0.1:7878")]
    pub coordinator: String,
    /// File holding the client token.
    #[arg(long, global = true)]
    pub token_file: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// With an https:// coordinator: the CA certificate (PEM) that signed its
    /// certificate (default: the system's roots).
    #[arg(long, global = true)]
    pub tls_ca: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Every job, oldest first.
    List,
    /// One job's status.
    Show { id: u64 },
    /// Follow one job's progress until it ends.
    Watch { id: u64 },
    /// Cancel a job (its accepted batches stay stored).
    Cancel { id: u64 },
}

/// A job status as printed with `--json`.
#[derive(Serialize)]
struct JsonStatus {
    id: u64,
    /// rollout, match-sim or `study NAME`.
    kind: String,
    state: String,
    batches_done: u64,
    batches_total: u64,
    trials_done: u64,
    trials_total: u64,
    message: String,
    /// Counters of the coordinator process (see `JobStatus` in the .proto).
    batches_resumed: u64,
    leases_granted: u64,
    leases_expired: u64,
    results_received: u64,
    results_duplicate: u64,
    /// Batches found in the coordinator's memory of computed batches, never leased.
    batches_reused: u64,
    /// Rollouts: first-move tables workers computed and handed in, and stored
    /// tables sent to workers (each a search not repeated).
    first_ply_computed: u64,
    first_ply_served: u64,
}

fn print(s: &v1::JobStatus, json: bool) -> Result<(), CliError> {
    if json {
        let j = JsonStatus {
            id: s.job_id,
            kind: s.kind.clone(),
            state: state_name(s.state),
            batches_done: s.batches_done,
            batches_total: s.batches_total,
            trials_done: s.trials_done,
            trials_total: s.trials_total,
            message: s.message.clone(),
            batches_resumed: s.batches_resumed,
            leases_granted: s.leases_granted,
            leases_expired: s.leases_expired,
            results_received: s.results_received,
            results_duplicate: s.results_duplicate,
            batches_reused: s.batches_reused,
            first_ply_computed: s.first_ply_computed,
            first_ply_served: s.first_ply_served,
        };
        print_line(&serde_json::to_string(&j)?)?;
    } else {
        // Each kind names its units (rollouts trials, match simulations and
        // studies duplicate pairs, label jobs positions).
        let unit = bgfarm_coordinator::unit_of(&s.kind);
        print_line(&format!(
            "{:>6}  {:<9}  {:<22}  {:>7}/{:<7} batches  {:>10}/{:<10} {unit:<6}  {}",
            s.job_id,
            state_name(s.state),
            s.kind,
            s.batches_done,
            s.batches_total,
            s.trials_done,
            s.trials_total,
            s.message
        ))?;
    }
    Ok(())
}

pub fn run(args: Args) -> Result<(), CliError> {
    let token = token(args.token_file.as_deref())?;
    let ca = pem(args.tls_ca.as_deref())?;
    runtime()?.block_on(async move {
        // The channel needs the runtime: create it inside.
        let mut client = job_client(&args.coordinator, token.as_deref(), ca.as_deref())?;
        match args.action {
            Action::List => {
                let r = client
                    .list_jobs(v1::ListJobsRequest {})
                    .await
                    .map_err(ClientError::from)?;
                for s in &r.into_inner().jobs {
                    print(s, args.json)?;
                }
            }
            Action::Show { id } => {
                let r = client
                    .get_job(v1::GetJobRequest { job_id: id })
                    .await
                    .map_err(ClientError::from)?;
                print(&r.into_inner().status.unwrap_or_default(), args.json)?;
            }
            Action::Watch { id } => {
                let mut stream = client
                    .watch_job(v1::WatchJobRequest { job_id: id })
                    .await
                    .map_err(ClientError::from)?
                    .into_inner();
                while let Some(s) = stream.message().await.map_err(ClientError::from)? {
                    print(&s, args.json)?;
                }
            }
            Action::Cancel { id } => {
                let r = client
                    .cancel_job(v1::CancelJobRequest { job_id: id })
                    .await
                    .map_err(ClientError::from)?;
                print(&r.into_inner(), args.json)?;
            }
        }
        Ok(())
    })
}
