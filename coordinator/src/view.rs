//! What the web page shows, copied out of the coordinator's state under its lock
//! (so the HTML is rendered without holding it): every job's progress and rate,
//! every worker's threads and throughput, and one job's result (its folded
//! batches, rendered by its kind after the lock is released).

use crate::core::{blocking, Core};
use crate::fold::{fold, FoldPlan};
use crate::job::Job;
use crate::kind::Work;
use bgfarm_proto::v1;
use bgfarm_storage::JobState;
use std::time::{Duration, Instant, SystemTime};

/// One job's line on the page.
#[derive(Clone, Debug)]
pub struct JobView {
    pub id: u64,
    /// "rollout", "match-sim", "study NAME" or "label METHOD" (`JobKind::label`).
    pub kind: String,
    /// What its units are (`JobKind::unit`): "trials" (per candidate), "pairs" (of
    /// matches) or "positions" (labels).
    pub unit: &'static str,
    pub state: JobState,
    pub message: String,
    pub units_done: u64,
    pub units_total: u64,
    /// Units per second over the last minute, in this coordinator process.
    pub rate: f64,
    /// `None` for a job resumed from the store.
    pub submitted: Option<SystemTime>,
}

impl JobView {
    /// Time left at the current rate, for a job still running with a rate.
    pub fn eta(&self) -> Option<Duration> {
        let left = self.units_total.saturating_sub(self.units_done);
        (!self.state.is_final() && self.rate > 0.0)
            .then(|| Duration::from_secs_f64(left as f64 / self.rate))
    }

    /// Done units in percent of the total.
    pub fn percent(&self) -> f64 {
        100.0 * self.units_done as f64 / self.units_total.max(1) as f64
    }
}

/// One worker's line on the page.
#[derive(Clone, Debug)]
pub struct WorkerView {
    pub id: String,
    pub threads: u32,
    /// Units of its accepted results, and per second over the last minute.
    pub units: u64,
    pub rate: f64,
    pub since_seen: Duration,
    pub since_registered: Duration,
}

/// The page's overview: jobs newest first, workers by id.
#[derive(Clone, Debug)]
pub struct Overview {
    pub jobs: Vec<JobView>,
    pub workers: Vec<WorkerView>,
}

/// What a finished job computed, rendered by its kind (`JobKind::render`).
pub enum JobResult {
    /// The job is not done (yet): nothing to show.
    Pending,
    /// The HTML of the result.
    Shown(String),
    /// The folded result could not be read (a bug, reported as such).
    Unreadable(String),
}

/// One job in full: its line, what it computes and its result.
pub struct JobDetail {
    pub view: JobView,
    /// What the job computes, as its kind describes it (`JobKind::describe`).
    pub about: Option<String>,
    pub result: JobResult,
}

fn job_view(job: &Job, now: Instant) -> JobView {
    JobView {
        id: job.id,
        kind: job.work.label(),
        unit: job.work.unit(),
        state: job.state,
        message: job.message.clone(),
        units_done: job.units_done,
        units_total: job.work.units(),
        rate: job.rate.per_second(now),
        submitted: job.submitted,
    }
}

/// What the page needs of `job`'s result, copied under the lock: its kind and
/// what folding its batches needs, when it is done.
fn finished(job: &Job) -> Option<(Work, FoldPlan)> {
    (job.state == JobState::Done).then(|| (job.work.clone(), job.fold_plan()))
}

impl Core {
    /// Every job (newest first) and worker (by id) now.
    pub fn overview(&self) -> Overview {
        let now = Instant::now();
        let st = self.lock();
        let jobs = st.jobs.values().rev().map(|j| job_view(j, now)).collect();
        let mut workers: Vec<WorkerView> = st
            .workers
            .iter()
            .map(|(id, w)| WorkerView {
                id: id.clone(),
                threads: w.threads,
                units: w.units,
                rate: w.rate(now),
                since_seen: now.duration_since(w.last_seen),
                since_registered: now.duration_since(w.registered),
            })
            .collect();
        workers.sort_by(|a, b| a.id.cmp(&b.id));
        Overview { jobs, workers }
    }

    /// Job `id` with its result when it is done; `None` when there is no such job.
    pub async fn detail(&self, id: u64) -> Option<JobDetail> {
        let now = Instant::now();
        let (view, work, finished) = {
            let st = self.lock();
            let job = st.jobs.get(&id)?;
            (job_view(job, now), job.work.clone(), finished(job))
        };
        let about = work.describe();
        // Folded and rendered without the lock.
        let result = match finished {
            None => JobResult::Pending,
            Some((work, plan)) => {
                let store = self.store.clone();
                let folded = blocking(move || {
                    let mut folded = v1::GetJobResponse::default();
                    fold(&store, &plan, &mut folded)?;
                    Ok(folded)
                })
                .await;
                match folded
                    .map_err(|e| e.message().to_string())
                    .and_then(|f| work.render(&f))
                {
                    Ok(html) => JobResult::Shown(html),
                    Err(e) => JobResult::Unreadable(e),
                }
            }
        };
        Some(JobDetail {
            view,
            about,
            result,
        })
    }
}
