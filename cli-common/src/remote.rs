//! What every command that submits a job to a coordinator shares (`bgfarm rollout
//! --coordinator`, `match-sim --coordinator`, `study ... --coordinator`,
//! `bgfarm-lab train label --coordinator`): how to
//! reach it ([`Access`]), [`run_job`] (submit, follow with a progress bar across
//! coordinator restarts, fetch the result; [`run_or_attach`] re-attaches to a job
//! a killed run submitted) and the progress [`bar`]. The commands depend on this module,
//! never the other way round.

use crate::net_runtime::{pem, runtime, token};
use crate::CliError;
use bgfarm_proto::client::{job_client, JobClient};
use bgfarm_proto::v1;
use indicatif::ProgressBar;
use std::time::Duration;

/// Consecutive failed attempts to follow the job before giving up: with 0.5 s to
/// 5 s between them, about two minutes (a coordinator restart takes seconds).
const MAX_WATCH_ERRORS: u32 = 30;

fn is_final(state: i32) -> bool {
    matches!(
        v1::JobState::try_from(state),
        Ok(v1::JobState::Done | v1::JobState::Cancelled | v1::JobState::Failed)
    )
}

pub use crate::progress::bar;

/// The flags of a command that may run on a coordinator instead of in-process.
#[derive(clap::Args, Default)]
pub struct RemoteArgs {
    /// Run on the coordinator at this URL (`http://host:port`) instead of
    /// in-process; the results are bit-identical.
    #[arg(long)]
    pub coordinator: Option<String>,
    /// With --coordinator: file holding the client token.
    #[arg(long)]
    pub token_file: Option<std::path::PathBuf>,
    /// With an https:// --coordinator: the CA certificate (PEM) that signed its
    /// certificate (default: the system's roots).
    #[arg(long)]
    pub tls_ca: Option<std::path::PathBuf>,
}

/// How a client reaches a coordinator: its token file and, for https://, the CA.
pub struct Access {
    pub token_file: Option<std::path::PathBuf>,
    pub tls_ca: Option<std::path::PathBuf>,
}

impl Access {
    /// The access of a command's `--token-file` and `--tls-ca`.
    pub fn of(remote: &RemoteArgs) -> Access {
        Access {
            token_file: remote.token_file.clone(),
            tls_ca: remote.tls_ca.clone(),
        }
    }

    /// [`Access::of`] for a job computed with nets `net` (`--net`): workers run
    /// the default nets only.
    pub fn for_default_nets(net: &str, remote: &RemoteArgs) -> Result<Access, CliError> {
        if net != "default" {
            return Err(CliError::msg(
                "workers run the default nets: use --net default with --coordinator",
            ));
        }
        Ok(Access::of(remote))
    }
}

/// Submits `spec` to the coordinator at `url` with `access`,
/// follows it on `bar` (units of the job times `scale`: matches are twice the
/// pairs) and returns the finished job and the threads of the workers alive at the
/// end. A job that does not end done is an error naming its state and message.
pub fn run_job(
    url: &str,
    access: &Access,
    spec: v1::JobSpec,
    bar: &ProgressBar,
    scale: u64,
) -> Result<(v1::GetJobResponse, usize), CliError> {
    run_or_attach(url, access, spec, None, &mut |_| Ok(()), bar, scale)
}

/// Submits `spec` to the coordinator at `url` with `access` and returns the job's
/// ID without following it: a client that keeps the next job queued behind the
/// one it follows (then [`run_or_attach`] with that ID) leaves no worker idle
/// between them.
pub fn submit(url: &str, access: &Access, spec: v1::JobSpec) -> Result<u64, CliError> {
    let token = token(access.token_file.as_deref())?;
    let ca = pem(access.tls_ca.as_deref())?;
    runtime()?.block_on(async move {
        let mut client = job_client(url, token.as_deref(), ca.as_deref()).map_err(CliError::msg)?;
        submit_on(&mut client, spec).await
    })
}

/// Submits `spec` on `client`; returns the job's ID.
async fn submit_on(client: &mut JobClient, spec: v1::JobSpec) -> Result<u64, CliError> {
    Ok(client
        .submit_job(v1::SubmitJobRequest { spec: Some(spec) })
        .await
        .map_err(status_error)?
        .into_inner()
        .status
        .unwrap_or_default()
        .job_id)
}

/// [`run_job`], first trying to re-attach to job `attach` (a run of the same
/// command killed while it followed the job): it is followed instead of a new
/// submission when it exists with exactly `spec` and is not cancelled or failed.
/// `submitted` learns the ID of a new submission before it is followed.
pub fn run_or_attach(
    url: &str,
    access: &Access,
    spec: v1::JobSpec,
    attach: Option<u64>,
    submitted: &mut dyn FnMut(u64) -> Result<(), CliError>,
    bar: &ProgressBar,
    scale: u64,
) -> Result<(v1::GetJobResponse, usize), CliError> {
    let token = token(access.token_file.as_deref())?;
    let ca = pem(access.tls_ca.as_deref())?;
    runtime()?.block_on(async move {
        // The channel needs the runtime: create it inside.
        let mut client = job_client(url, token.as_deref(), ca.as_deref()).map_err(CliError::msg)?;
        let mut id = None;
        if let Some(old) = attach {
            match client.get_job(v1::GetJobRequest { job_id: old }).await {
                Ok(r) => {
                    let r = r.into_inner();
                    let state = r.status.as_ref().map_or(0, |s| s.state);
                    let failed = matches!(
                        v1::JobState::try_from(state),
                        Ok(v1::JobState::Cancelled | v1::JobState::Failed)
                    );
                    if r.spec.as_ref() == Some(&spec) && !failed {
                        eprintln!("re-attached to job {old}");
                        id = Some(old);
                    }
                }
                Err(e) if e.code() == tonic::Code::NotFound => {}
                Err(e) => return Err(status_error(e)),
            }
        }
        let id = match id {
            Some(id) => id,
            None => {
                let id = submit_on(&mut client, spec).await?;
                submitted(id)?;
                id
            }
        };
        bar.set_message(format!("job {id}"));
        let last = follow(&mut client, id, bar, scale).await?;
        bar.finish_and_clear();
        if last.state != v1::JobState::Done as i32 {
            return Err(CliError::msg(format!(
                "job {id} {}: {}",
                state_name(last.state),
                last.message
            )));
        }
        let got = client
            .get_job(v1::GetJobRequest { job_id: id })
            .await
            .map_err(status_error)?
            .into_inner();
        Ok((got, last.worker_threads as usize))
    })
}

/// Follows job `id` until it ends, re-watching after a dropped stream (e.g. a
/// coordinator restart). Returns the final status.
async fn follow(
    client: &mut JobClient,
    id: u64,
    bar: &ProgressBar,
    scale: u64,
) -> Result<v1::JobStatus, CliError> {
    let mut errors = 0u32;
    loop {
        let err = match client.watch_job(v1::WatchJobRequest { job_id: id }).await {
            Ok(stream) => {
                let mut stream = stream.into_inner();
                loop {
                    match stream.message().await {
                        Ok(Some(s)) => {
                            errors = 0;
                            bar.set_position(s.trials_done * scale);
                            if is_final(s.state) {
                                return Ok(s);
                            }
                        }
                        Ok(None) => break None,
                        Err(e) => break Some(e),
                    }
                }
            }
            Err(e) => Some(e),
        };
        if let Some(e) = &err {
            if matches!(
                e.code(),
                tonic::Code::Unauthenticated
                    | tonic::Code::NotFound
                    | tonic::Code::PermissionDenied
            ) {
                return Err(status_error(e.clone()));
            }
        }
        errors += 1;
        if errors > MAX_WATCH_ERRORS {
            let why = err.map_or("stream ended".to_string(), |e| e.message().to_string());
            return Err(CliError::msg(format!(
                "lost job {id} on the coordinator: {why}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(500 * u64::from(errors.min(10)))).await;
    }
}

/// The state's name in lower case (`running`, `done`, ...).
pub fn state_name(state: i32) -> String {
    v1::JobState::try_from(state)
        .map(|s| {
            s.as_str_name()
                .trim_start_matches("JOB_STATE_")
                .to_lowercase()
        })
        .unwrap_or_else(|_| format!("unknown({state})"))
}

/// A gRPC failure as a one-line error.
pub fn status_error(s: tonic::Status) -> CliError {
    CliError::msg(format!("coordinator: {} ({:?})", s.message(), s.code()))
}
