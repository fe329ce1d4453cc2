//! What every command that submits a job to a coordinator shares (`bgfarm rollout
//! --coordinator`, `match-sim --coordinator`, `study ... --coordinator`,
//! `bgfarm-lab train label --coordinator`): [`run_job`] (submit, follow with a
//! progress bar across coordinator restarts, fetch the result; [`run_or_attach`]
//! re-attaches to a job a killed run submitted). How to reach the coordinator is
//! an [`Access`]; the progress bar is drawn by the caller's own code
//! (`bgfarm-cli-common`'s `progress::bar`). The commands depend on this module,
//! never the other way round.

use crate::connect::{job_client, JobClient};
use crate::runtime::{pem, runtime, token};
use crate::{Access, ClientError};
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
) -> Result<(v1::GetJobResponse, usize), ClientError> {
    run_or_attach(url, access, spec, None, &mut |_| Ok(()), bar, scale)
}

/// Submits `spec` to the coordinator at `url` with `access` and returns the job's
/// ID without following it: a client that keeps the next job queued behind the
/// one it follows (then [`run_or_attach`] with that ID) leaves no worker idle
/// between them.
pub fn submit(url: &str, access: &Access, spec: v1::JobSpec) -> Result<u64, ClientError> {
    let token = token(access.token_file.as_deref())?;
    let ca = pem(access.tls_ca.as_deref())?;
    runtime()?.block_on(async move {
        let mut client = job_client(url, token.as_deref(), ca.as_deref())?;
        submit_on(&mut client, spec).await
    })
}

/// Submits `spec` on `client`; returns the job's ID.
async fn submit_on(client: &mut JobClient, spec: v1::JobSpec) -> Result<u64, ClientError> {
    Ok(client
        .submit_job(v1::SubmitJobRequest { spec: Some(spec) })
        .await?
        .into_inner()
        .status
        .unwrap_or_default()
        .job_id)
}

/// [`run_job`], first trying to re-attach to job `attach` (a run of the same
/// command killed while it followed the job): it is followed instead of a new
/// submission when it exists with exactly `spec` and is not cancelled or failed.
/// `submitted` learns the ID of a new submission before it is followed (e.g. to
/// keep it in a file for the next run); its error, of the caller's type `E`, ends
/// the run, which is why the whole run returns `E` (any error a [`ClientError`]
/// converts into).
pub fn run_or_attach<E: From<ClientError>>(
    url: &str,
    access: &Access,
    spec: v1::JobSpec,
    attach: Option<u64>,
    submitted: &mut dyn FnMut(u64) -> Result<(), E>,
    bar: &ProgressBar,
    scale: u64,
) -> Result<(v1::GetJobResponse, usize), E> {
    let token = token(access.token_file.as_deref())?;
    let ca = pem(access.tls_ca.as_deref())?;
    runtime()?.block_on(async move {
        // The channel needs the runtime: create it inside.
        let mut client = job_client(url, token.as_deref(), ca.as_deref())?;
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
                Err(e) => return Err(ClientError::from(e).into()),
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
            return Err(ClientError::JobEnded {
                id,
                state: state_name(last.state),
                message: last.message,
            }
            .into());
        }
        let got = client
            .get_job(v1::GetJobRequest { job_id: id })
            .await
            .map_err(ClientError::from)?
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
) -> Result<v1::JobStatus, ClientError> {
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
                return Err(ClientError::from(e.clone()));
            }
        }
        errors += 1;
        if errors > MAX_WATCH_ERRORS {
            let why = err.map_or("stream ended".to_string(), |e| e.message().to_string());
            return Err(ClientError::Lost { id, why });
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
