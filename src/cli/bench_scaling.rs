//! `bgfarm bench cluster`, part 2: cluster efficiency. The same real rollout runs
//! on one worker with one thread, then on two workers with one thread each; the
//! efficiency is `t1 / (2 t2)` (DESIGN.md target: >= 95%). The CPU time of both
//! runs is reported too: `cpu1 / cpu2` is the share of the work that was not
//! overhead of distribution (a second first-ply cache, coordination), which a busy
//! machine does not distort as it does wall time.
//!
//! Coordinator and workers run in this process (one rayon thread per worker, the
//! tokio threads for gRPC), over gRPC on 127.0.0.1 with a sled store on disk, as
//! separate processes would. Workers start and register before the clock starts:
//! loading nets and building the bear-off tables is not part of a job.

use super::bench_coordinator::BenchCoordinator;
use super::CliError;
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::rollout::{Candidate, Luck, RolloutJob, RolloutPlan, StopRules, TrialSettings};
use bgfarm_engine::Position;
use bgfarm_proto::convert::plan_to_wire;
use bgfarm_proto::v1;
use bgfarm_worker::WorkerConfig;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The rollout both runs compute.
#[derive(Clone, Copy, Debug)]
pub struct ScalingJob {
    pub trials: u64,
    pub batch: u64,
    pub truncate: Option<u32>,
}

/// CPU seconds (user + system) this process has used so far.
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a zeroed rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

/// One run of the job: wall seconds and CPU seconds of this process (workers,
/// coordinator and gRPC together) from submission to the end.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub wall: f64,
    pub cpu: f64,
}

/// Times the job on `n` one-thread workers.
pub async fn time_on(data: &Path, n: usize, sj: ScalingJob) -> Result<Timing, CliError> {
    let coordinator = BenchCoordinator::start(data).await?;
    let (core, url) = (&coordinator.core, &coordinator.url);
    // Each worker stops on the second "signal": give held batches back, exit.
    let (shutdown, rx) = watch::channel(0u8);
    let workers: Vec<_> = (0..n)
        .map(|_| {
            let cfg = WorkerConfig {
                coordinator: url.clone(),
                token: None,
                threads: 1,
                tls_ca: None,
            };
            tokio::spawn(bgfarm_worker::run(cfg, rx.clone()))
        })
        .collect();
    let t = Instant::now();
    while core.worker_threads() < n as u32 {
        if t.elapsed() > Duration::from_secs(120) {
            return Err(CliError::msg(
                "the workers did not register within 2 minutes",
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let eval = bgfarm_worker::default_evaluator().map_err(CliError::msg)?;
    let job = RolloutJob {
        candidates: vec![Candidate::position(Position::STARTING)],
        seed: 7,
        settings: TrialSettings {
            luck: Luck::Full,
            truncate: sj.truncate,
            bearoff_truncation: true,
            cube: None,
            chequer_ply: 0,
            opponent_ply: None,
            cube_ply: 0,
            late: None,
        },
    };
    let plan = RolloutPlan {
        job,
        trials: sj.trials,
        batch: sj.batch,
        stop: StopRules::default(),
    };
    let spec = plan_to_wire(&plan, &fingerprint(&eval).to_string());
    let (start, cpu0) = (Instant::now(), cpu_seconds());
    let id = core
        .submit(spec)
        .await
        .map_err(|e| CliError::msg(e.message().to_string()))?
        .job_id;
    let mut progress = core
        .watch(id)
        .map_err(|e| CliError::msg(e.message().to_string()))?;
    let last = progress
        .wait_for(|s| {
            !matches!(
                v1::JobState::try_from(s.state),
                Ok(v1::JobState::Queued | v1::JobState::Running)
            )
        })
        .await
        .map_err(|_| CliError::msg("the coordinator dropped the job"))?
        .clone();
    let timing = Timing {
        wall: start.elapsed().as_secs_f64(),
        cpu: cpu_seconds() - cpu0,
    };
    if last.state != v1::JobState::Done as i32 {
        return Err(CliError::msg(format!("the job ended: {}", last.message)));
    }
    shutdown.send_replace(2);
    for w in workers {
        w.await
            .map_err(|e| CliError::msg(format!("worker task: {e}")))?
            .map_err(|e| CliError::msg(e.to_string()))?;
    }
    coordinator.stop().await?;
    Ok(timing)
}
